package server

import (
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// MaxDarBytes bounds the body of a DAR upload (64 MiB, Canton's default
// maximum inbound message size of the Ledger API).
const MaxDarBytes = 64 << 20

// packageRoutes are the package service and the package preferences of the
// interactive submission service. Uploads, validation and vetting changes
// need participant admin rights; reading packages, vetting state and
// preferences any authenticated user.
func (s *Server) packageRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Pattern: "/v2/packages", Handler: s.listPackages},
		{Method: http.MethodPost, Pattern: "/v2/packages", Handler: s.uploadDar, Upload: true, MaxBodyBytes: MaxDarBytes},
		{Method: http.MethodPost, Pattern: "/v2/dars", Handler: s.uploadDar, Upload: true, MaxBodyBytes: MaxDarBytes},
		{Method: http.MethodPost, Pattern: "/v2/dars/validate", Handler: s.validateDar, Upload: true, MaxBodyBytes: MaxDarBytes},
		{Method: http.MethodGet, Pattern: "/v2/packages/{packageID}", Handler: s.getPackage},
		{Method: http.MethodGet, Pattern: "/v2/packages/{packageID}/status", Handler: s.getPackageStatus},
		{Method: http.MethodGet, Pattern: "/v2/package-vetting", Handler: s.listVettedPackages},
		{Method: http.MethodPost, Pattern: "/v2/package-vetting/list", Handler: s.listVettedPackages},
		{Method: http.MethodPost, Pattern: "/v2/package-vetting", Handler: s.updateVettedPackages},
		{Method: http.MethodPost, Pattern: "/v2/package-vetting/update", Handler: s.updateVettedPackages},
		{Method: http.MethodGet, Pattern: "/v2/interactive-submission/preferred-package-version", Handler: s.preferredPackageVersion},
		{Method: http.MethodPost, Pattern: "/v2/interactive-submission/preferred-packages", Handler: s.preferredPackages},
	}
}

func (s *Server) listPackages(req *Request) (any, error) {
	return ledgerapi.ListPackagesResponse{PackageIDs: s.Node.ListPackages()}, nil
}

// readDar reads a DAR body (application/octet-stream).
func readDar(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, mbe
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, &DecodeError{What: "body", Detail: "the body did not arrive within the node's body read timeout"}
		}
		return nil, &DecodeError{What: "body", Detail: "reading the body failed: " + err.Error()}
	}
	// An empty body is an empty DAR: the node refuses it as Canton does
	// (INVALID_DAR).
	return b, nil
}

// queryBool reads an optional boolean query parameter.
func queryBool(r *http.Request, name string, def bool) (bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, &DecodeError{What: "query parameter " + name}
	}
	return b, nil
}

func (s *Server) uploadDar(req *Request) (any, error) {
	vet, err := queryBool(req.Request, "vetAllPackages", true)
	if err != nil {
		return nil, err
	}
	dar, err := s.darRequest(req)
	if err != nil {
		return nil, err
	}
	if _, err := s.Node.UploadDar(req.Context(), dar, vet); err != nil {
		return nil, err
	}
	return ledgerapi.UploadDarFileResponse{}, nil
}

func (s *Server) validateDar(req *Request) (any, error) {
	dar, err := s.darRequest(req)
	if err != nil {
		return nil, err
	}
	if _, err := s.Node.ValidateDar(req.Context(), dar); err != nil {
		return nil, err
	}
	return ledgerapi.ValidateDarFileResponse{}, nil
}

// darRequest checks the caller and the synchronizerId of an upload or a
// validation, and reads the DAR.
func (s *Server) darRequest(req *Request) ([]byte, error) {
	if err := req.Caller.RequireParticipantAdmin(); err != nil {
		return nil, err
	}
	if err := s.checkSynchronizer("synchronizer_id", req.URL.Query().Get("synchronizerId")); err != nil {
		return nil, err
	}
	return readDar(req.Request)
}

// getPackage sends the archive payload of a package, its hash (the package
// id) in the Canton-Package-Hash header.
func (s *Server) getPackage(req *Request) (any, error) {
	id := req.PathValue("packageID")
	payload, err := s.Node.PackagePayload(req.Context(), id)
	if err != nil {
		return nil, err
	}
	h := req.W.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set(ledgerapi.PackageHashHeader, id)
	h.Set("Content-Length", strconv.Itoa(len(payload)))
	req.W.WriteHeader(http.StatusOK)
	_, _ = req.W.Write(payload)
	return nil, nil
}

func (s *Server) getPackageStatus(req *Request) (any, error) {
	return ledgerapi.GetPackageStatusResponse{PackageStatus: s.Node.PackageStatus(req.PathValue("packageID"))}, nil
}

func (s *Server) listVettedPackages(req *Request) (any, error) {
	var body ledgerapi.ListVettedPackagesRequest
	// The deprecated GET carries the request as a body too, which may be empty.
	if req.Method == http.MethodPost || req.ContentLength > 0 {
		if err := decodeBody(req.Request, &body); err != nil {
			return nil, err
		}
	}
	return s.Node.ListVettedPackages(body)
}

func (s *Server) updateVettedPackages(req *Request) (any, error) {
	if err := req.Caller.RequireParticipantAdmin(); err != nil {
		return nil, err
	}
	var body ledgerapi.UpdateVettedPackagesRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	return s.Node.UpdateVettedPackages(req.Context(), body)
}

func (s *Server) preferredPackages(req *Request) (any, error) {
	var body ledgerapi.GetPreferredPackagesRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	return s.Node.PreferredPackages(req.Context(), body)
}

func (s *Server) preferredPackageVersion(req *Request) (any, error) {
	q := req.URL.Query()
	name := q.Get("package-name")
	if name == "" {
		return nil, &DecodeError{What: "query parameter package-name", Detail: "missing"}
	}
	var at *time.Time
	if v := q.Get("vetting_valid_at"); v != "" {
		ts, err := ledgerapi.ParseTimestamp(v)
		if err != nil {
			return nil, &DecodeError{What: "query parameter vetting_valid_at"}
		}
		at = &ts.Time
	}
	return s.Node.PreferredPackageVersion(req.Context(), name, q["parties"], at, q.Get("synchronizer-id"))
}
