package server

import (
	"context"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// A node on a developer's laptop runs without authentication by default, so
// every web page the developer opens could talk to it: a page may send
// text/plain, form and multipart bodies across sites without asking the
// server first (no CORS preflight), and a page on a domain that resolves to
// 127.0.0.1 (DNS rebinding) is same-origin with the node. The guard closes
// both doors, in front of every route:
//
//   - a request whose Origin is present and neither the node's own origin
//     nor one of Config.CORSOrigins is refused (403); allowed origins get
//     CORS answers, preflights included;
//   - while the node listens on a loopback address, a request whose Host is
//     neither a loopback name or address nor one of Config.AllowedHosts is
//     refused (403);
//   - a JSON route refuses a body whose Content-Type is present and not JSON
//     (415); an upload route (Route.Upload) takes application/octet-stream.
//     A missing Content-Type is accepted: Canton's own TypeScript client
//     sends its POSTs without one.
//
// Canton's JSON API has no such checks (it runs behind authentication); the
// refusals are this node's, with Canton's error body and a cause that says
// what to change.

// refusal is a request the guard turns away: status and a non-redacted
// error body (the client should learn what to change).
type refusal struct {
	status int
	err    *ledgerapi.JsCantonError
}

func (r *refusal) Error() string { return r.err.Error() }

func refuse(status int, format string, args ...any) *refusal {
	return &refusal{status: status, err: ledgerapi.Errorf(ledgerapi.CodeInvalidArgument, format, args...)}
}

// corsMethods and corsHeaders are what a preflight is told the node takes.
const (
	corsMethods = "GET, POST, PATCH, DELETE"
	corsHeaders = "Authorization, Content-Type, traceparent, tracestate"
)

// guard wraps the route table with the Host and Origin checks and the CORS
// answers.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.checkHost && !s.hostAllowed(r.Host) {
			s.writeRefusal(w, r, refuse(http.StatusForbidden,
				"Host %q is not a loopback name or address, and not one of the node's allowed hosts: a node listening on loopback answers only requests addressed to loopback, so that a web page on a domain that resolves to 127.0.0.1 (DNS rebinding) cannot use it",
				r.Host))
			return
		}
		origin := r.Header.Get("Origin")
		if origin != "" {
			if !s.originAllowed(origin, r.Host) {
				s.writeRefusal(w, r, refuse(http.StatusForbidden,
					"Origin %q may not use this node: it is not one of the node's allowed CORS origins, and the node refuses requests from other web pages",
					origin))
				return
			}
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				h.Set("Access-Control-Allow-Methods", corsMethods)
				h.Set("Access-Control-Allow-Headers", corsHeaders)
				h.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// writeRefusal answers a refusal made before a route's wrapper has given the
// request its ids.
func (s *Server) writeRefusal(w http.ResponseWriter, r *http.Request, err error) {
	req := &Request{Request: r, W: w, TraceID: traceID(r), CorrelationID: newID()}
	s.writeError(w, r.WithContext(context.WithValue(r.Context(), requestKey{}, req)), err)
}

// hostAllowed: localhost and its subdomains (RFC 6761), loopback addresses,
// and the configured hosts. A request without Host (HTTP/1.0) cannot come
// from a rebinding page and passes.
func (s *Server) hostAllowed(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "" || host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return true
	}
	for _, h := range s.allowedHosts {
		if h == "*" || strings.EqualFold(h, host) || strings.EqualFold(h, hostport) {
			return true
		}
	}
	return false
}

// originAllowed: the node's own origin (a page it served itself) and the
// configured ones ("*" allows every origin).
func (s *Server) originAllowed(origin, host string) bool {
	if u, err := url.Parse(origin); err == nil && u.Scheme == "http" && u.Path == "" && strings.EqualFold(u.Host, host) {
		return true
	}
	for _, o := range s.corsOrigins {
		if o == "*" || strings.EqualFold(strings.TrimSuffix(o, "/"), origin) {
			return true
		}
	}
	return false
}

// checkContentType refuses a body a browser page could have sent across
// sites: on a JSON route any present Content-Type that is not JSON, on an
// upload route any that is neither application/octet-stream nor JSON.
func checkContentType(rt Route, r *http.Request) error {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return nil
	}
	ct := r.Header.Get("Content-Type")
	if strings.TrimSpace(ct) == "" {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && (mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")) {
		return nil
	}
	if err == nil && rt.Upload && mt == "application/octet-stream" {
		return nil
	}
	want := "application/json"
	if rt.Upload {
		want = "application/octet-stream"
	}
	return refuse(http.StatusUnsupportedMediaType,
		"Content-Type %q is not accepted here: send %s, or no Content-Type. The node refuses the types a web page may send to any site without asking (text/plain, forms, multipart)",
		ct, want)
}

// websocketOrigins are the origin host patterns the websocket library is
// told to accept besides the node's own: the guard has already refused
// every other origin.
func websocketOrigins(corsOrigins []string) []string {
	var out []string
	for _, o := range corsOrigins {
		if o == "*" {
			return []string{"*"}
		}
		if u, err := url.Parse(o); err == nil && u.Host != "" {
			out = append(out, u.Host)
		}
	}
	return out
}
