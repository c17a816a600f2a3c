package serve

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeTLSConfig: --tls-cert and --tls-key load a PEM pair into the
// server's TLS configuration, at TLS 1.2 or (--tls-min-version 1.3) 1.3 at
// least; a key that is not the certificate's is refused naming the flags.
func TestServeTLSConfig(t *testing.T) {
	dir := t.TempDir()
	writeKeyPair := func(name string) (certFile, keyFile string) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour)}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			t.Fatal(err)
		}
		kder, err := x509.MarshalECPrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		certFile, keyFile = filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
		if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
			t.Fatal(err)
		}
		return certFile, keyFile
	}
	cert, key := writeKeyPair("a")
	for _, c := range []struct {
		min  string
		want uint16
	}{{"1.2", tls.VersionTLS12}, {"1.3", tls.VersionTLS13}} {
		cfg, err := serveConfig(&Options{TLSCert: cert, TLSKey: key, TLSMinVersion: c.min})
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Server.TLS == nil || len(cfg.Server.TLS.Certificates) != 1 || cfg.Server.TLS.MinVersion != c.want {
			t.Errorf("--tls-min-version %s: TLS config %+v", c.min, cfg.Server.TLS)
		}
	}
	if cfg, err := serveConfig(&Options{}); err != nil || cfg.Server.TLS != nil {
		t.Errorf("without --tls-cert: %v, TLS %+v; want plain HTTP", err, cfg.Server.TLS)
	}
	_, otherKey := writeKeyPair("b")
	if _, err := serveConfig(&Options{TLSCert: cert, TLSKey: otherKey}); err == nil || !strings.Contains(err.Error(), "--tls-cert/--tls-key") {
		t.Errorf("a key of another certificate: %v", err)
	}
}
