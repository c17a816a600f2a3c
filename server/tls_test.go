package server_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"io"
	"math/big"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/local"
	"github.com/ledger-cli/ledger/server"
	"github.com/ledger-cli/ledger/server/auth"
)

// startTLS serves a fresh node over HTTPS with a certificate for
// 127.0.0.1 made here, and returns it with a client that trusts it.
func startTLS(t *testing.T, sc server.Config) (*server.Running, *http.Client) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	n, err := local.Open(context.Background(), local.Config{DBPath: filepath.Join(t.TempDir(), "ledger.db"), Node: node.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	sc.Addr, sc.Auth = "127.0.0.1:0", auth.Config{Mode: auth.ModeNone}
	sc.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	run, err := server.Start(context.Background(), n, sc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Close() })
	return run, &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
}

// A node given TLS serves HTTPS at an https URL, refuses TLS 1.1 even when
// its configuration asks for no minimum, and cuts off a client that opens
// a connection and never finishes its handshake after the header timeout,
// answering others meanwhile.
func TestServeTLS(t *testing.T) {
	run, client := startTLS(t, server.Config{ReadHeaderTimeout: 300 * time.Millisecond})
	if !strings.HasPrefix(run.URL(), "https://127.0.0.1:") {
		t.Fatalf("URL %s, want https", run.URL())
	}
	resp, err := client.Get(run.URL() + "/v2/version")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.TLS == nil {
		t.Fatalf("GET /v2/version over HTTPS: %s, TLS %v", resp.Status, resp.TLS)
	}
	old := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
		InsecureSkipVerify: true, MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS11}}}
	if _, err := old.Get(run.URL() + "/v2/version"); err == nil || !strings.Contains(err.Error(), "protocol version") {
		t.Errorf("a TLS 1.1 client: %v, want the handshake refused", err)
	}

	conn, err := net.Dial("tcp", run.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	if _, err := client.Get(run.URL() + "/v2/version"); err != nil {
		t.Errorf("another client while one stalls: %v", err)
	}
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadAll(conn); err != nil {
		t.Fatalf("the stalled connection was not closed by the server: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the stalled handshake was cut off after %v, want about the 300 ms header timeout", d)
	} else {
		t.Logf("stalled TLS handshake cut off after %v", d.Round(time.Millisecond))
	}
}
