package contract

import (
	"testing"

	"github.com/ledger-cli/ledger/daml/typed"
)

// benchAuthenticate measures AuthenticateBlob — decode, type check or
// translation, hash, unicum — of one blob.
func benchAuthenticate(b *testing.B, blob []byte, types *typed.Env) {
	if _, err := AuthenticateBlob(blob, types, ""); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(blob)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := AuthenticateBlob(blob, types, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAuthenticatePing authenticates a ca12 Ping contract with its
// package's types (target ≤ 20 µs on one core).
func BenchmarkAuthenticatePing(b *testing.B) {
	_, env := pingTypes(b)
	out, err := NewSuffixer(V12, nil).Suffix(pingContract(b, "ping-bench", 1), Salt{1})
	if err != nil {
		b.Fatal(err)
	}
	blob, err := EncodeBlob(out)
	if err != nil {
		b.Fatal(err)
	}
	benchAuthenticate(b, blob, env)
}

// amuletRules returns the golden transfer's AmuletRules blob (ca11) and the
// same contract suffixed as ca12.
func amuletRules(b *testing.B, env *typed.Env) (ca11, ca12 []byte) {
	for _, blob := range goldenBlobs(b) {
		c, err := DecodeBlob(blob)
		if err != nil {
			b.Fatal(err)
		}
		if c.TemplateID.EntityName != "AmuletRules" {
			continue
		}
		local := *c
		local.ID = c.ID[:66]
		out, err := NewSuffixer(V12, env).Suffix(&local, Salt{5})
		if err != nil {
			b.Fatal(err)
		}
		ca12, err = EncodeBlob(out)
		if err != nil {
			b.Fatal(err)
		}
		return blob, ca12
	}
	b.Fatal("no AmuletRules in the golden transfer")
	return nil, nil
}

// BenchmarkAuthenticateAmuletRules authenticates the golden AmuletRules
// contract (a large configuration record with maps and nested schedules,
// target ≤ 200 µs on one core): as Canton made it (ca11, type-checked
// against splice-amulet) and as a ca12 (translated, then hashed).
func BenchmarkAuthenticateAmuletRules(b *testing.B) {
	env := sharedTypes(b)
	ca11, ca12 := amuletRules(b, env)
	b.Run("ca11", func(b *testing.B) { benchAuthenticate(b, ca11, env) })
	b.Run("ca11-untyped", func(b *testing.B) { benchAuthenticate(b, ca11, nil) })
	b.Run("ca12", func(b *testing.B) { benchAuthenticate(b, ca12, env) })
}
