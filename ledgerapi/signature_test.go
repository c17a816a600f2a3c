package ledgerapi

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"go/build"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/signer"
)

// signer's own Signature encodes as the wire form, and the conversions
// both ways keep every field.
func TestSignatureOf(t *testing.T) {
	key, err := signer.Generate(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sig := key.SignHash([32]byte{1, 2, 3})
	own, _ := json.Marshal(sig)
	wire, _ := json.Marshal(SignatureOf(sig))
	if !bytes.Equal(own, wire) {
		t.Fatalf("signer encodes %s, the wire %s", own, wire)
	}
	var back Signature
	if err := json.Unmarshal(wire, &back); err != nil {
		t.Fatal(err)
	}
	if err := signer.VerifyHash(key.Public(), [32]byte{1, 2, 3}, back.Signer()); err != nil {
		t.Fatal(err)
	}
}

// The key code stands on nothing of ours.
func TestSignerImportsNothingOfOurs(t *testing.T) {
	pkg, err := build.Import("github.com/ledger-cli/ledger/signer", "", 0)
	if err != nil {
		t.Skip(err)
	}
	for _, imp := range pkg.Imports {
		if strings.HasPrefix(imp, "github.com/ledger-cli/ledger/") && !strings.HasPrefix(imp, "github.com/ledger-cli/ledger/internal/") {
			t.Errorf("signer imports %s", imp)
		}
	}
}
