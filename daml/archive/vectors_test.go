package archive

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// The dalfs in testdata/dalfs are built by hand, one per rule of the
// decoder: good_*.dalf must decode, fail_*.dalf must be refused with an
// error containing the text of fail_*.err. TestVectors runs them all;
// go test -run TestVectors -update rewrites them from the table below.

var update = flag.Bool("update", false, "rewrite testdata/dalfs from the table in vectors_test.go")

// pb appends protobuf fields; enough to build test archives.
type pb []byte

func (m pb) msg(num int, b []byte) pb {
	m = protowire.AppendTag(m, protowire.Number(num), protowire.BytesType)
	return protowire.AppendBytes(m, b)
}

func (m pb) str(num int, s string) pb { return m.msg(num, []byte(s)) }

func (m pb) varint(num int, v uint64) pb {
	m = protowire.AppendTag(m, protowire.Number(num), protowire.VarintType)
	return protowire.AppendVarint(m, v)
}

// testPackage describes a package of one module "Mod" with values.
// Interned strings: 0 "Mod", 1 "x", 2 "test-pkg", 3 "1.0.0"; dotted names:
// 0 Mod, 1 x; types: 0 Bool, 1 Unit.
type testPackage struct {
	minor      string
	values     []pb // DefValue messages
	templates  []pb // DefTemplate messages
	exprs      []pb // interned expressions (2.2+)
	noMetadata bool
	noFlags    bool
	hash       string // overrides the archive's hash field
}

func (p testPackage) dalf() []byte {
	var pkg pb
	mod := pb(nil).varint(1, 0)
	if !p.noFlags {
		mod = mod.msg(2, pb(nil).varint(1, 1).varint(2, 1).varint(3, 1))
	}
	for _, v := range p.values {
		mod = mod.msg(5, v)
	}
	for _, t := range p.templates {
		mod = mod.msg(6, t)
	}
	pkg = pkg.msg(1, mod)
	for _, s := range []string{"Mod", "x", "test-pkg", "1.0.0"} {
		pkg = pkg.str(2, s)
	}
	pkg = pkg.msg(3, pb(nil).varint(1, 0)).msg(3, pb(nil).varint(1, 1))
	if !p.noMetadata {
		pkg = pkg.msg(4, pb(nil).varint(1, 2).varint(2, 3))
	}
	pkg = pkg.msg(5, builtinType(1)).msg(5, builtinType(0))
	for _, e := range p.exprs {
		pkg = pkg.msg(7, e)
	}
	minor := p.minor
	if minor == "" {
		minor = "1"
	}
	payload := pb(nil).str(3, minor).msg(4, pkg)
	sum := sha256.Sum256(payload)
	hash := hex.EncodeToString(sum[:])
	if p.hash != "" {
		hash = p.hash
	}
	return pb(nil).varint(1, 0).msg(3, payload).str(4, hash)
}

func builtinType(tag uint64) pb { return pb(nil).msg(3, pb(nil).varint(1, tag)) }

// value is "x : type = body" with type an interned type index.
func value(typ uint64, body pb) pb {
	nameWithType := pb(nil).varint(1, 1).msg(2, pb(nil).varint(8, typ))
	return pb(nil).msg(2, nameWithType).msg(3, body)
}

// template is template x (with parameter x) with one choice x whose
// controllers are the expression given.
func template(controllers pb) pb {
	nilParties := pb(nil).msg(21, pb(nil).msg(1, pb(nil).varint(8, 0)))
	choice := pb(nil).varint(2, 1).varint(3, 1).msg(4, controllers).msg(5, nilParties).
		msg(6, pb(nil).varint(3, 1).msg(2, pb(nil).varint(8, 0))).
		msg(8, pb(nil).varint(8, 1)).msg(9, exprUnit).varint(10, 1)
	return pb(nil).varint(1, 1).varint(2, 1).msg(4, nilParties).msg(6, choice).msg(7, nilParties)
}

var (
	exprTrue = pb(nil).varint(5, 2)
	exprUnit = pb(nil).varint(5, 0)
)

// nested wraps body n times in Some (an OptionalSome of type Bool).
func nested(n int, body pb) pb {
	e := body
	for range n {
		some := pb(nil).msg(1, pb(nil).varint(8, 0)).msg(2, e)
		e = pb(nil).msg(26, some)
	}
	return e
}

// blowup is a 2.2 package whose interned expressions form a chain of n
// Somes, and whose values, many of them, each refer to the end of it.
func blowup(n, values int) testPackage {
	p := testPackage{minor: "2", exprs: []pb{exprTrue}}
	for i := 1; i < n; i++ {
		some := pb(nil).msg(1, pb(nil).varint(8, 0)).msg(2, pb(nil).varint(44, uint64(i-1)))
		p.exprs = append(p.exprs, pb(nil).msg(26, some))
	}
	for range values {
		p.values = append(p.values, value(0, pb(nil).varint(44, uint64(n-1))))
	}
	return p
}

var vectors = []struct {
	name string
	pkg  testPackage
	raw  []byte // used instead of pkg when set
	err  string // "" for good_ vectors
}{
	{name: "good_value_2_1", pkg: testPackage{values: []pb{value(0, exprTrue)}}},
	{name: "good_value_2_3", pkg: testPackage{minor: "3", values: []pb{value(0, exprTrue)}}},
	{name: "good_nesting_900", pkg: testPackage{values: []pb{value(0, nested(900, exprTrue))}}},
	{name: "good_interned_exprs_2_2", pkg: testPackage{minor: "2",
		exprs:  []pb{exprTrue, pb(nil).msg(26, pb(nil).msg(1, pb(nil).varint(8, 0)).msg(2, pb(nil).varint(44, 0)))},
		values: []pb{value(0, pb(nil).varint(44, 1))}}},
	{name: "fail_hash_mismatch", pkg: testPackage{values: []pb{value(0, exprTrue)}, hash: strings.Repeat("0", 64)},
		err: "package id does not match the payload: hash field is \"0000"},
	{name: "fail_dev_without_option", pkg: testPackage{minor: "dev"},
		err: "the package is Daml-LF 2.dev, which is accepted only in dev mode"},
	{name: "fail_unknown_minor", pkg: testPackage{minor: "9"},
		err: "the package is Daml-LF 2.\"9\"; supported are 2.1, 2.2, 2.3"},
	{name: "fail_interned_string_out_of_range",
		pkg: testPackage{values: []pb{value(0, pb(nil).varint(2, 9999))}},
		err: "module 0 (Mod): value 0 (x): variable: interned string index 9999 out of range (table has 4)"},
	{name: "good_template", pkg: testPackage{templates: []pb{template(exprUnit)}}},
	{name: "fail_choice_interned_string_out_of_range", pkg: testPackage{templates: []pb{template(pb(nil).varint(2, 9999))}},
		err: "module 0 (Mod): template 0 (x): choice 0 (x): controllers: variable: interned string index 9999 out of range (table has 4)"},
	{name: "fail_interned_type_out_of_range", pkg: testPackage{values: []pb{value(9999, exprTrue)}},
		err: "value 0 (x): type: interned type index 9999 out of range (table has 2)"},
	{name: "fail_too_deep", pkg: testPackage{values: []pb{value(0, nested(1500, exprTrue))}},
		err: "nesting too deep: expressions and types nest more than 1000 deep"},
	{name: "fail_interned_expr_forward", pkg: testPackage{minor: "2",
		exprs:  []pb{pb(nil).msg(26, pb(nil).msg(1, pb(nil).varint(8, 0)).msg(2, pb(nil).varint(44, 1))), exprTrue},
		values: []pb{value(0, pb(nil).varint(44, 0))}},
		err: "interned expression 0: interned expression 0 refers to interned expression 1; only earlier ones are allowed"},
	{name: "good_interned_expr_deep_chain", pkg: blowup(400, 1)},
	{name: "fail_interned_expr_blowup", pkg: blowup(400, 2000),
		err: "package too large when decoded: more than 217240 expressions from a package of 37926 bytes"},
	{name: "fail_interned_expr_in_2_1", pkg: testPackage{exprs: []pb{exprTrue}},
		err: "interned expressions are not supported by Daml-LF 2.1"},
	{name: "fail_no_metadata", pkg: testPackage{noMetadata: true},
		err: "no package metadata, which Daml-LF 2.1 requires"},
	{name: "fail_feature_flags", pkg: testPackage{noFlags: true},
		err: "module 0 (Mod): deprecated feature flags"},
	{name: "fail_literal_of_wrong_type", pkg: testPackage{values: []pb{value(0, exprUnit)}},
		err: "value 0 (x): declared type Bool does not match its body, a literal of type ()"},
	{name: "fail_unknown_expr_field", pkg: testPackage{values: []pb{value(0, pb(nil).varint(777, 1))}},
		err: "Expr: unknown field 777"},
	{name: "fail_truncated", raw: testPackage{values: []pb{value(0, exprTrue)}}.dalf()[:40],
		err: "Archive: field 3: malformed value: unexpected EOF"},
}

func TestVectors(t *testing.T) {
	dir := filepath.Join("testdata", "dalfs")
	if *update {
		os.RemoveAll(dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, v := range vectors {
			b := v.raw
			if b == nil {
				b = v.pkg.dalf()
			}
			if err := os.WriteFile(filepath.Join(dir, v.name+".dalf"), b, 0o644); err != nil {
				t.Fatal(err)
			}
			if v.err != "" {
				if err := os.WriteFile(filepath.Join(dir, v.name+".err"), []byte(v.err+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.dalf"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no vectors in %s (go test -run TestVectors -update writes them)", dir)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".dalf")
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			p, err := DecodeArchive(b, Options{})
			switch {
			case strings.HasPrefix(name, "good_"):
				if err != nil {
					t.Fatalf("DecodeArchive: %v", err)
				}
				sum := sha256.Sum256(payloadOf(t, b))
				if string(p.ID) != hex.EncodeToString(sum[:]) {
					t.Errorf("package id %s is not the SHA-256 of the payload", p.ID)
				}
			case strings.HasPrefix(name, "fail_"):
				want, rerr := os.ReadFile(strings.TrimSuffix(file, ".dalf") + ".err")
				if rerr != nil {
					t.Fatal(rerr)
				}
				if err == nil {
					t.Fatalf("DecodeArchive succeeded, want an error containing %q", want)
				}
				if !strings.Contains(err.Error(), strings.TrimSpace(string(want))) {
					t.Errorf("error %q\ndoes not contain %q", err, strings.TrimSpace(string(want)))
				}
			default:
				t.Fatalf("vector %s is neither good_ nor fail_", name)
			}
		})
	}
}

// payloadOf returns the payload field (3) of an Archive, parsed here
// independently of the decoder.
func payloadOf(t testing.TB, dalf []byte) []byte {
	t.Helper()
	for b := dalf; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatal("malformed archive")
		}
		b = b[n:]
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			t.Fatal("malformed archive")
		}
		if num == 3 {
			v, _ := protowire.ConsumeBytes(b)
			return v
		}
		b = b[n:]
	}
	t.Fatal("archive has no payload")
	return nil
}

func TestErrorsIs(t *testing.T) {
	tests := []struct {
		pkg  testPackage
		want error
	}{
		{testPackage{minor: "dev"}, ErrUnsupportedVersion},
		{testPackage{hash: strings.Repeat("a", 64)}, ErrHashMismatch},
		{testPackage{values: []pb{value(0, nested(1500, exprTrue))}}, ErrTooDeep},
		{blowup(400, 2000), ErrTooLarge},
	}
	for _, tt := range tests {
		if _, err := DecodeArchive(tt.pkg.dalf(), Options{}); !errors.Is(err, tt.want) {
			t.Errorf("error %v is not %v", err, tt.want)
		}
	}
	if _, err := DecodeArchive(testPackage{minor: "dev"}.dalf(), Options{AllowDev: true}); err != nil {
		t.Errorf("with AllowDev, a 2.dev package is refused: %v", err)
	}
	deep := testPackage{values: []pb{value(0, nested(1500, exprTrue))}}.dalf()
	if _, err := DecodeArchive(deep, Options{MaxDepth: 2000}); err != nil {
		t.Errorf("with MaxDepth 2000, 1500 levels are refused: %v", err)
	}
}

// TestNoAliasing checks that a decoded package keeps no reference to the
// dalf bytes, which DecodeDar reuses for the next dalf.
func TestNoAliasing(t *testing.T) {
	dar, err := os.ReadFile("testdata/canton-builtin-admin-workflow-ping.dar")
	if err != nil {
		t.Fatal(err)
	}
	d, err := decodeDar(context.Background(), dar, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dalf := zipEntries(t, dar)[d.Manifest.MainDalf]
	p, err := DecodeArchive(dalf, Options{})
	if err != nil {
		t.Fatal(err)
	}
	view := func() string {
		var b strings.Builder
		for _, s := range p.Templates() {
			b.WriteString(s.String())
			for _, c := range s.Choices {
				b.WriteString(c.String())
			}
		}
		for _, dt := range p.DataTypes() {
			b.WriteString(dt.String())
		}
		b.WriteString(p.Name + p.Version + strings.Join(p.ModuleNames(), ","))
		return b.String()
	}
	before := view()
	for i := range dalf {
		dalf[i] = 'X'
	}
	if after := view(); after != before {
		t.Errorf("the package changed when its dalf bytes were overwritten")
	}
}
