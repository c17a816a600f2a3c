package contract

import (
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/value"
)

var (
	pingOnce sync.Once
	pingPkg  *lf.Package
	pingEnv  *typed.Env
	pingErr  error
)

// pingTypes decodes the Ping DAR of daml/archive/testdata once.
func pingTypes(t testing.TB) (*lf.Package, *typed.Env) {
	t.Helper()
	pingOnce.Do(func() {
		var d *archive.Dar
		d, pingErr = archive.ReadDarFile(filepath.Join(moduleRoot(), "daml", "archive", "testdata", "canton-builtin-admin-workflow-ping.dar"), archive.Options{})
		if pingErr == nil {
			pingPkg, pingEnv = d.MainPackage(), typed.NewEnv(d.Packages...)
		}
	})
	if pingErr != nil {
		t.Fatal(pingErr)
	}
	return pingPkg, pingEnv
}

// pingContract returns a local Ping contract as the interpreter builds it:
// a typed argument, a local id derived from a node seed.
func pingContract(t testing.TB, id string, seed byte) *Contract {
	t.Helper()
	pkg, env := pingTypes(t)
	tmpl := lf.TypeConName{Package: pkg.ID, Module: lf.DottedName{"Canton", "Internal", "Ping"}, Name: lf.DottedName{"Ping"}}
	p, err := env.Plan(lf.TCon{Con: tmpl})
	if err != nil {
		t.Fatal(err)
	}
	arg, err := p.DecodeJSON([]byte(`{"id":"`+id+`","initiator":"alice::1220","responder":"bob::1220"}`), typed.DecodeOptions{Path: "createArguments"})
	if err != nil {
		t.Fatal(err)
	}
	prep := value.Timestamp(1765068805921013)
	stakeholders := []string{"alice::1220", "bob::1220"}
	return &Contract{
		Version:      SerializationV1,
		ID:           tx.ContractIDV1(tx.Hash{seed}, prep, stakeholders),
		PackageName:  pkg.Name,
		TemplateID:   *value.IdentifierOf(tmpl),
		Argument:     arg,
		Signatories:  []string{"alice::1220"},
		Stakeholders: stakeholders,
		CreatedAt:    prep + 1000,
	}
}

// TestSuffixAuthenticates suffixes a Ping contract with each id version and
// checks that the result is a 138-character id whose blob decodes and
// authenticates (ca12 with and without the suffixer knowing the types: the
// interpreter's typed argument and the stored, normalized one translated by
// the package give the same hash).
func TestSuffixAuthenticates(t *testing.T) {
	_, env := pingTypes(t)
	salt := DeriveSalt(make([]byte, SaltSeedLen), 4)
	for _, tc := range []struct {
		v     Version
		types *typed.Env
	}{{V10, nil}, {V11, nil}, {V12, nil}, {V12, env}} {
		c := pingContract(t, "ping-1", 7)
		s := NewSuffixer(tc.v, tc.types)
		out, err := s.Suffix(c, salt)
		if err != nil {
			t.Fatalf("%s: %v", tc.v, err)
		}
		if len(out.ID) != 138 || out.ID[:66] != c.ID {
			t.Errorf("%s: suffixed id %s of local %s", tc.v, out.ID, c.ID)
		}
		if got, _ := s.Lookup(c.ID); got != out.ID {
			t.Errorf("%s: Lookup gives %s", tc.v, got)
		}
		blob, err := EncodeBlob(out)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeBlob(blob)
		if err != nil {
			t.Fatal(err)
		}
		if err := Authenticate(back, env, ""); err != nil {
			t.Errorf("%s: %v", tc.v, err)
		}
		if tc.v != V12 {
			if err := Authenticate(back, nil, ""); err != nil {
				t.Errorf("%s without types: %v", tc.v, err)
			}
		}
		if _, err := s.Suffix(c, salt); err == nil {
			t.Errorf("%s: a contract was suffixed twice", tc.v)
		}
	}
}

// TestSuffixerRewrites checks that a create argument naming an earlier
// contract of the transaction by its local id is stored and hashed with
// the suffixed id, and that a local id not suffixed yet is refused.
func TestSuffixerRewrites(t *testing.T) {
	first := pingContract(t, "first", 1)
	second := pingContract(t, "second", 2)
	s := NewSuffixer(V11, nil)
	done, err := s.Suffix(first, Salt{1})
	if err != nil {
		t.Fatal(err)
	}
	v := &value.Record{Fields: []value.Field{{Value: first.ID}, {Value: value.NewList(value.Some(first.ID))}}}
	got, err := s.Rewrite(v)
	if err != nil {
		t.Fatal(err)
	}
	want := &value.Record{Fields: []value.Field{{Value: done.ID}, {Value: value.NewList(value.Some(done.ID))}}}
	if eq, _ := value.Equal(got, want); !eq {
		t.Errorf("rewritten %s, want %s", got, want)
	}
	if _, err := s.Rewrite(value.NewList(second.ID)); !errors.Is(err, ErrUnknownLocalID) {
		t.Errorf("unknown local id: %v", err)
	}
	second.Argument = &value.Record{Fields: []value.Field{{Value: value.Text("x")}, {Value: value.Party("alice::1220")}, {Value: second.ID}}}
	if _, err := s.Suffix(second, Salt{2}); !errors.Is(err, ErrUnknownLocalID) {
		t.Errorf("create naming itself: %v", err)
	}
}

// TestRootViewPositions pins the Merkle-sequence paths of root views,
// leaf first, as Canton's MerkleSeq.indicesFromSeq lays them out.
func TestRootViewPositions(t *testing.T) {
	L, R := false, true
	for n, want := range map[int][]ViewPosition{
		1: {{{}}},
		2: {{{L}}, {{R}}},
		3: {{{L, L}}, {{R, L}}, {{R}}},
		5: {{{L, L, L}}, {{R, L, L}}, {{L, R, L}}, {{R, R, L}}, {{R}}},
	} {
		got := RootViewPositions(n)
		if len(got) != len(want) {
			t.Fatalf("n=%d: %d positions", n, len(got))
		}
		for i := range want {
			if string(want[i].encode(nil)) != string(got[i].encode(nil)) {
				t.Errorf("n=%d, view %d: %v, want %v", n, i, got[i], want[i])
			}
		}
	}
}
