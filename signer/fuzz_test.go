package signer

import (
	"bytes"
	"testing"
)

// The seed corpora live in testdata/fuzz/<FuzzName>/. Run for example
//
//	go test ./signer -run '^$' -fuzz FuzzParseKeyFile -fuzztime 1m

func FuzzParseKeyFile(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		kf, err := ParseKeyFile(data)
		if err != nil {
			return
		}
		// Decrypt only what is cheap, so the fuzzer keeps its pace.
		if kf.Encrypted && kf.kdf.N*kf.kdf.R*kf.kdf.P > 1<<13 {
			return
		}
		k, err := kf.Decrypt([]byte(casePassphrase))
		if err != nil {
			return
		}
		if k.Public() != kf.Public {
			t.Fatalf("decrypted key %s does not match the file's public key %s", k.Public(), kf.Public)
		}
	})
}

func FuzzParsePrivate(f *testing.F) {
	f.Fuzz(func(t *testing.T, text string) {
		k, err := ParsePrivate(text)
		if err != nil {
			return
		}
		again, err := FromSeed(k.seed())
		if err != nil || again.Public() != k.Public() {
			t.Fatalf("key does not round-trip through its seed: %v", err)
		}
		if len(k.Fingerprint()) != 68 {
			t.Fatalf("fingerprint %q", k.Fingerprint())
		}
	})
}

func FuzzParsePublicKey(f *testing.F) {
	f.Fuzz(func(t *testing.T, text string) {
		p, err := ParsePublicKey(text)
		if err != nil {
			return
		}
		for _, form := range []string{p.Base64(), p.Hex(), p.SPKIPEM()} {
			q, err := ParsePublicKey(form)
			if err != nil || q != p {
				t.Fatalf("%q does not round-trip: %v", form, err)
			}
		}
		if !bytes.HasPrefix(p.SPKIDER(), spkiPrefix) {
			t.Fatal("SPKI prefix")
		}
	})
}
