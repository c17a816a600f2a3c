package ledgerapi

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"io"
	"math/big"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/server"
)

// testCertificate is a self-signed certificate for 127.0.0.1, made for
// one test, and a pool that trusts it.
func testCertificate(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "ledger serve test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}, pool
}

// TLSOnePointThreeIT and TLSAtLeastOnePointTwoIT (TlsIT.scala, the test
// tool's optional suites): a node serving HTTPS with TLS 1.3 as its minimum
// accepts clients offering 1.3 and refuses 1.2 and older; with the default
// minimum it accepts 1.2 and 1.3 and refuses 1.1 and 1.0. Scala asks the
// gRPC version service; here GET /v2/version over HTTPS, the certificate
// checked against a CA made in the test.
func TestTLSIT(t *testing.T) {
	cert, pool := testCertificate(t)
	type client struct {
		name     string
		min, max uint16
	}
	v12and13 := client{"TLSv12andTLSv13", tls.VersionTLS12, tls.VersionTLS13}
	v13 := client{"TLSv13", tls.VersionTLS13, tls.VersionTLS13}
	v12 := client{"TLSv12", tls.VersionTLS12, tls.VersionTLS12}
	v11 := client{"TLSv11", tls.VersionTLS11, tls.VersionTLS11}
	v10 := client{"TLSv1", tls.VersionTLS10, tls.VersionTLS10}
	for _, suite := range []struct {
		name, prefix string
		min          uint16 // the server's; 0 is the default
		accept       map[string]bool
	}{
		{"TLSOnePointThreeIT", "ServerOnTLSv13ConnectionFromClientOn", tls.VersionTLS13, map[string]bool{v12and13.name: true, v13.name: true}},
		{"TLSAtLeastOnePointTwoIT", "ServerOnTLSConnectionFromClientOn", 0, map[string]bool{v12and13.name: true, v13.name: true, v12.name: true}},
	} {
		{ // one node per suite; the cases are subtests of TestTLSIT
			p := startParticipantWith(t, node.Config{}, nil, func(c *server.Config) {
				c.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: suite.min}
			})
			if !strings.HasPrefix(p.url, "https://") {
				t.Fatalf("%s: the node's URL is %s, want https", suite.name, p.url)
			}
			for _, c := range []client{v12and13, v13, v12, v11, v10} {
				t.Run(suite.prefix+c.name, func(t *testing.T) {
					hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
						TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: c.min, MaxVersion: c.max}}}
					defer hc.CloseIdleConnections()
					resp, err := hc.Get(p.url + "/v2/version")
					if !suite.accept[c.name] {
						if err == nil {
							resp.Body.Close()
							t.Fatalf("a %s client connected (%s), want the handshake refused", c.name, resp.Status)
						}
						if !strings.Contains(err.Error(), "protocol version") {
							t.Errorf("refused with %v, want a protocol version alert", err)
						}
						return
					}
					if err != nil {
						t.Fatalf("a %s client: %v", c.name, err)
					}
					defer resp.Body.Close()
					body, _ := io.ReadAll(resp.Body)
					var v struct {
						Version string `json:"version"`
					}
					if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &v) != nil || v.Version == "" {
						t.Errorf("GET /v2/version: %d %s, want a version", resp.StatusCode, body)
					}
					if resp.TLS == nil || resp.TLS.Version < c.min || resp.TLS.Version > c.max {
						t.Errorf("negotiated %+v, want a version in the client's range", resp.TLS)
					}
				})
			}
		}
	}
}
