package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// progressReader reports the bytes read so far to fn (when set): for a
// request body, the bytes the transport has sent.
type progressReader struct {
	r    io.Reader
	fn   func(sent int64)
	sent int64
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.sent += int64(n)
	if p.fn != nil && n > 0 {
		p.fn(p.sent)
	}
	return n, err
}

// UploadOptions tune UploadDar.
type UploadOptions struct {
	// DontVet uploads without vetting (vetAllPackages=false).
	DontVet bool
	// SynchronizerID names the synchronizer to vet on ("" = the node's).
	SynchronizerID string
	// Progress, when set, is told the bytes sent so far.
	Progress func(sent int64)
}

// UploadDar calls POST /v2/dars with the bytes of a DAR. Uploading a DAR
// the node has is harmless, so the call is retried like a read.
func (c *Client) UploadDar(ctx context.Context, dar []byte, opts UploadOptions) error {
	q := url.Values{}
	if opts.DontVet {
		q.Set("vetAllPackages", "false")
	}
	if opts.SynchronizerID != "" {
		q.Set("synchronizerId", opts.SynchronizerID)
	}
	return c.do(ctx, call{method: http.MethodPost, path: "/v2/dars", query: q, raw: dar, progress: opts.Progress, idempotent: true})
}

// ValidateDar calls POST /v2/dars/validate: the node checks the DAR as an
// upload would and stores nothing. Idempotent.
func (c *Client) ValidateDar(ctx context.Context, dar []byte) error {
	return c.do(ctx, call{method: http.MethodPost, path: "/v2/dars/validate", raw: dar, idempotent: true})
}

// ListPackages calls GET /v2/packages. Idempotent.
func (c *Client) ListPackages(ctx context.Context) ([]string, error) {
	var out ledgerapi.ListPackagesResponse
	err := c.do(ctx, call{method: http.MethodGet, path: "/v2/packages", out: &out, idempotent: true})
	return out.PackageIDs, err
}

// GetPackage calls GET /v2/packages/{id} and returns the package's archive
// payload, checked against the id: its SHA-256 must be the id and the
// Canton-Package-Hash header. Idempotent.
func (c *Client) GetPackage(ctx context.Context, id string) ([]byte, error) {
	var payload []byte
	var h http.Header
	path := "/v2/packages/" + pathEscape(id)
	err := c.do(ctx, call{method: http.MethodGet, path: path, header: &h, idempotent: true,
		decode: func(b []byte) error { payload = b; return nil }})
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(payload)
	if got := hex.EncodeToString(sum[:]); got != id {
		return nil, fmt.Errorf("GET %s: the node sent %d bytes whose SHA-256 is %s, not the package id", path, len(payload), got)
	}
	if hh := h.Get(ledgerapi.PackageHashHeader); hh != "" && hh != id {
		return nil, fmt.Errorf("GET %s: the node's %s header is %s, not the package id", path, ledgerapi.PackageHashHeader, hh)
	}
	return payload, nil
}

// PackageStatus calls GET /v2/packages/{id}/status. Idempotent.
func (c *Client) PackageStatus(ctx context.Context, id string) (string, error) {
	var out ledgerapi.GetPackageStatusResponse
	err := c.do(ctx, call{method: http.MethodGet, path: "/v2/packages/" + pathEscape(id) + "/status", out: &out, idempotent: true})
	return out.PackageStatus, err
}

// ListVettedPackages calls POST /v2/package-vetting/list. Idempotent.
func (c *Client) ListVettedPackages(ctx context.Context, req ledgerapi.ListVettedPackagesRequest) (*ledgerapi.ListVettedPackagesResponse, error) {
	var out ledgerapi.ListVettedPackagesResponse
	return &out, c.do(ctx, call{method: http.MethodPost, path: "/v2/package-vetting/list", body: req, out: &out, idempotent: true})
}

// PreferredPackages calls POST /v2/interactive-submission/preferred-packages.
// Idempotent.
func (c *Client) PreferredPackages(ctx context.Context, req ledgerapi.GetPreferredPackagesRequest) (*ledgerapi.GetPreferredPackagesResponse, error) {
	var out ledgerapi.GetPreferredPackagesResponse
	return &out, c.do(ctx, call{method: http.MethodPost, path: "/v2/interactive-submission/preferred-packages", body: req, out: &out, idempotent: true})
}
