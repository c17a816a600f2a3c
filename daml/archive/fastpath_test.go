package archive

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/internal/pbwire"
)

// The fast paths of references (qualifiedNameFast, and typ's) must agree
// with the general decoding on every input they accept: same result, same
// dependencies recorded, and only on inputs the general path accepts.

const (
	testOtherID  = "5aee9b21b8e9a4c4975b5f4c4198e6e6e8469df49e2010820e792f393db870f4"
	testImportID = "e7e0adfa881e7dbbb07da065ae54444da7c4bccebcb8872ab0cb5dcf9f3761ce"
)

// referenceDecoder returns a decoder with small tables: strings 0 "Mod", 1
// a package id, 2 a string that is not one, 3 "A"; dotted names 0 Mod, 1
// Mod.A, and 200 more so that two-byte indices are in range; two types;
// one import.
func referenceDecoder(v lf.LanguageVersion) *decoder {
	d := &decoder{pkgID: "self", version: v}
	d.strings = []string{"Mod", testOtherID, "not a package id!", "A"}
	d.nameOK = make([]uint8, len(d.strings))
	d.depsByString = make([]bool, len(d.strings))
	d.dottedNames = []lf.DottedName{{"Mod"}, {"Mod", "A"}}
	for len(d.dottedNames) < 202 {
		d.dottedNames = append(d.dottedNames, lf.DottedName{"A"})
	}
	d.types = []lf.Type{lf.TBuiltin{Builtin: lf.BuiltinBool}, lf.TBuiltin{Builtin: lf.BuiltinText}}
	if v.AtLeast(2, 2) {
		d.imports, d.importsDeclared = []lf.PackageID{testImportID}, true
		d.depsByImport = make([]bool, 1)
	}
	return d
}

// referenceEncodings are TypeConIds: the forms compilers write and others
// that only the general path decodes, or that are errors.
func referenceEncodings() [][]byte {
	self := pb(nil).msg(1, nil)
	byString := func(i uint64) pb { return pb(nil).varint(3, i) }
	byImport := func(i uint64) pb { return pb(nil).varint(4, i) }
	module := func(pkg pb, name uint64) pb { return pb(nil).msg(1, pkg).varint(2, name) }
	ref := func(mod pb, name uint64) pb { return pb(nil).msg(1, mod).varint(2, name) }
	var out [][]byte
	for _, pkg := range []pb{self, byString(1), byString(2), byString(0), byString(9), byImport(0), byImport(1), byImport(300),
		pb(nil).msg(1, []byte{0x08, 0x01}), // self with content
		byString(1).varint(3, 1),           // the field twice
		byString(1).msg(1, nil),            // two kinds: the last wins
		nil,                                // no package
		{0x18},                             // truncated
		{0x18, 0x81, 0x00},                 // a two-byte index written long
	} {
		for _, names := range [][2]uint64{{0, 1}, {1, 0}, {0, 2}, {0, 201}, {0, 202}, {200, 1}, {1 << 20, 1}} {
			m := module(pkg, names[0])
			out = append(out, ref(m, names[1]))
			out = append(out, pb(nil).varint(2, names[1]).msg(1, m))                                       // name first
			out = append(out, pb(nil).msg(1, pb(nil).varint(2, names[0]).msg(1, pkg)).varint(2, names[1])) // module name first
		}
	}
	out = append(out,
		nil,
		pb(nil).varint(2, 0),                       // no module
		ref(module(self, 0), 1).varint(2, 0),       // name twice
		ref(module(self, 0), 1).varint(5, 0),       // unknown field
		ref(pb(nil).msg(1, self), 1),               // module without a name
		[]byte{0x0a, 0x04, 0x0a, 0x00, 0x10, 0x00}, // cut short
		[]byte{0x0a, 0x80, 0x01},                   // length too long for the input
	)
	return out
}

func TestQualifiedNameFastPathAgrees(t *testing.T) {
	for _, v := range []lf.LanguageVersion{{Major: 2, Minor: 1}, {Major: 2, Minor: 2}} {
		fastTaken := 0
		for _, b := range referenceEncodings() {
			// Twice each: the first use of an interned string as a package
			// id is checked by the general path, later ones may be fast.
			general, both := referenceDecoder(v), referenceDecoder(v)
			for range 2 {
				if _, ok := both.qualifiedNameFast(b); ok {
					fastTaken++
				}
				want, wantErr := general.qualifiedNameGeneral(b)
				got, gotErr := both.qualifiedName(b)
				if (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error() {
					t.Fatalf("%s %x: error %v, general path %v", v, b, gotErr, wantErr)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s %x: %v, general path %v", v, b, got, want)
				}
				if !reflect.DeepEqual(general.depsByString, both.depsByString) || !reflect.DeepEqual(general.depsByImport, both.depsByImport) {
					t.Fatalf("%s %x: dependencies %v %v, general path %v %v", v, b, both.depsByString, both.depsByImport, general.depsByString, general.depsByImport)
				}
			}
		}
		if fastTaken == 0 {
			t.Fatalf("%s: the fast path took no encoding", v)
		}
	}
}

func TestTypeReferenceFastPathAgrees(t *testing.T) {
	d := referenceDecoder(lf.LanguageVersion{Major: 2, Minor: 1})
	for len(d.types) < 300 {
		d.types = append(d.types, lf.TVar{Name: "a"})
	}
	for _, b := range [][]byte{
		pb(nil).varint(8, 0), pb(nil).varint(8, 1), pb(nil).varint(8, 299), pb(nil).varint(8, 300),
		pb(nil).varint(8, 1<<20), pb(nil).varint(8, 0).varint(8, 1), pb(nil).varint(1, 0), {0x40}, {0x40, 0x80}, nil,
		{0x40, 0x81, 0x00},
	} {
		want, wantErr := d.typGeneral(b)
		got, gotErr := d.typ(b)
		if (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error() {
			t.Fatalf("%x: error %v, general path %v", b, gotErr, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%x: %v, general path %v", b, got, want)
		}
	}
}

func TestNestedTypeFastPathAgrees(t *testing.T) {
	d := referenceDecoder(lf.LanguageVersion{Major: 2, Minor: 1})
	for len(d.types) < 300 {
		d.types = append(d.types, lf.TVar{Name: "a"})
	}
	for _, depth := range [][2]int{{0, 1000}, {1, 2}, {1, 1}, {2, 1}} {
		d.depth, d.maxDepth = depth[0], depth[1]
		for _, b := range [][]byte{
			pb(nil).varint(8, 0), pb(nil).varint(8, 299), pb(nil).varint(8, 300), pb(nil).varint(8, 0).varint(8, 1),
			{0x40, 0x81, 0x00}, builtinType(1), nil,
		} {
			d.depth = depth[0]
			want, wantErr := d.typeEntry(b, false)
			d.depth = depth[0]
			got, gotErr := d.nestedType(b)
			if (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error() {
				t.Fatalf("depth %v %x: error %v, general path %v", depth, b, gotErr, wantErr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("depth %v %x: %v, general path %v", depth, b, got, want)
			}
			if gotErr == nil && d.depth != depth[0] {
				t.Fatalf("depth %v %x: depth left at %d", depth, b, d.depth)
			}
		}
	}
}

// FuzzReferenceFastPath checks that whatever the fast path of references
// accepts, the general path decodes to the same name and dependencies.
func FuzzReferenceFastPath(f *testing.F) {
	for _, b := range referenceEncodings() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, v := range []lf.LanguageVersion{{Major: 2, Minor: 1}, {Major: 2, Minor: 2}} {
			fast, general := referenceDecoder(v), referenceDecoder(v)
			fast.depsByString[1], general.depsByString[1] = true, true
			got, ok := fast.qualifiedNameFast(b)
			if !ok {
				continue
			}
			want, err := general.qualifiedNameGeneral(b)
			if err != nil {
				t.Fatalf("%s %x: fast path gave %v, general path %v", v, b, got, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s %x: fast path gave %v, general path %v", v, b, got, want)
			}
			if !reflect.DeepEqual(fast.depsByImport, general.depsByImport) {
				t.Fatalf("%s %x: fast path recorded imports %v, general path %v", v, b, fast.depsByImport, general.depsByImport)
			}
		}
	})
}

// splitRepPlain is splitRep without its fast path: every field through
// nextField.
func splitRepPlain(b []byte, name string, repeated protowire.Number, m *msg) ([][]byte, error) {
	m.name = name
	var reps [][]byte
	for len(b) > 0 {
		f, rest, err := nextField(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		b = rest
		switch {
		case f.Num == repeated:
			v, err := f.Delimited()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			reps = append(reps, v)
		case f.Num >= 1 && f.Num < 8:
			m.f[f.Num], m.has[f.Num] = f, true
		default:
			return nil, unknownField(name, f)
		}
	}
	return reps, nil
}

// countFieldsPlain is countFields without its fast path.
func countFieldsPlain(b []byte, counts []int) {
	for len(b) > 0 {
		f, rest, err := nextField(b)
		if err != nil {
			return
		}
		b = rest
		if int(f.Num) < len(counts) {
			counts[f.Num]++
		}
	}
}

// wireSamples are messages whose fields take every path of pbwire.Header:
// one- and two-byte values and lengths, lengths past the end, long tags,
// fixed-width fields, field numbers past 7, a zero tag.
func wireSamples() [][]byte {
	long := make([]byte, 200)
	out := [][]byte{
		nil, {0x08}, {0x0a}, {0x0a, 0x05, 1}, {0x0a, 0x80}, {0x0a, 0x80, 0x01}, {0x00, 0x01},
		{0x80, 0x01, 0x00}, {0x08, 0x80, 0x80, 0x01}, {0x0b, 0x00}, {0x0c, 0x00},
		pb(nil).varint(1, 5).msg(2, []byte("ab")).varint(3, 300).msg(2, long).msg(4, nil),
		pb(nil).msg(1, long).msg(1, []byte{1}).varint(7, 1<<14).varint(7, 1<<13),
		pb(nil).varint(8, 1).varint(2, 1), pb(nil).msg(9, nil), pb(nil).varint(2, 1).msg(2, nil),
		pb(nil).varint(20, 1), pb(nil).msg(16, nil).varint(1, 1),
		protowire.AppendFixed64(protowire.AppendTag(nil, 3, protowire.Fixed64Type), 7),
		protowire.AppendFixed32(protowire.AppendTag(nil, 3, protowire.Fixed32Type), 7),
		append(pb(nil).msg(2, long[:150]), 0x10),
	}
	return out
}

func checkWireAgrees(t *testing.T, b []byte) {
	t.Helper()
	for _, repeated := range []protowire.Number{0, 1, 2, 9} {
		var m1, m2 msg
		got, gotErr := splitRep(b, "M", repeated, &m1, nil)
		want, wantErr := splitRepPlain(b, "M", repeated, &m2)
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Fatalf("splitRep %x (repeated %d): error %v, plain %v", b, repeated, gotErr, wantErr)
		}
		if gotErr == nil && (!reflect.DeepEqual(m1, m2) || len(got) != len(want)) {
			t.Fatalf("splitRep %x (repeated %d): %+v %q, plain %+v %q", b, repeated, m1, got, m2, want)
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("splitRep %x (repeated %d): %q, plain %q", b, repeated, got, want)
			}
		}
	}
	var c1, c2 [10]int
	countFields(b, c1[:])
	countFieldsPlain(b, c2[:])
	if c1 != c2 {
		t.Fatalf("countFields %x: %v, plain %v", b, c1, c2)
	}
	if num, typ, v, n := pbwire.Header(b); n > 0 {
		f, _, err := nextField(b)
		if typ == protowire.VarintType || typ == protowire.BytesType && uint64(len(b)-n) >= v {
			if err != nil || f.Num != num || f.Type != typ || typ == protowire.VarintType && f.Int != v || typ == protowire.BytesType && len(f.Bytes) != int(v) {
				t.Fatalf("pbwire.Header %x: %d %d %d, nextField %+v %v", b, num, typ, v, f, err)
			}
		}
	}
}

func TestWireFastPathsAgree(t *testing.T) {
	for _, b := range wireSamples() {
		checkWireAgrees(t, b)
	}
}

// FuzzWireFastPaths checks splitRep, countFields and pbwire.Header against
// their plain versions on any bytes.
func FuzzWireFastPaths(f *testing.F) {
	for _, b := range wireSamples() {
		f.Add(b)
	}
	f.Fuzz(checkWireAgrees)
}

// TestScratchReuse decodes every test vector and every dalf of the Ping DAR
// (LF 2.2, interned expressions) with fresh tables and with tables left
// over from decoding all the others, failures included: the same package
// or the same error.
func TestScratchReuse(t *testing.T) {
	var dalfs [][]byte
	files, _ := filepath.Glob("testdata/dalfs/*.dalf")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		dalfs = append(dalfs, b)
	}
	dar, err := os.ReadFile("testdata/canton-builtin-admin-workflow-ping.dar")
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range zipEntries(t, dar) {
		if strings.HasSuffix(name, ".dalf") {
			dalfs = append(dalfs, b)
		}
	}
	var used scratch
	for _, opts := range []Options{{}, {AllowDev: true}} {
		for range 2 { // the second round after every dalf has used the tables
			for _, b := range dalfs {
				want, wantErr := decodeArchive(b, opts, new(scratch))
				got, gotErr := decodeArchive(b, opts, &used)
				if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
					t.Fatalf("reused tables: error %v, fresh tables %v", gotErr, wantErr)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("reused tables: package %s differs from the one decoded with fresh tables", want.ID)
				}
			}
		}
	}
}

// TestScratchRelease checks that tables waiting for the next DAR hold no
// reference to the packages decoded with them.
func TestScratchRelease(t *testing.T) {
	dar, err := os.ReadFile("testdata/canton-builtin-admin-workflow-ping.dar")
	if err != nil {
		t.Fatal(err)
	}
	var sc scratch
	for name, b := range zipEntries(t, dar) {
		if strings.HasSuffix(name, ".dalf") {
			if _, err := decodeArchive(b, Options{}, &sc); err != nil {
				t.Fatal(err)
			}
		}
	}
	sc.release()
	var check func(path string, v reflect.Value)
	check = func(path string, v reflect.Value) {
		switch v.Kind() {
		case reflect.Struct:
			for i := range v.NumField() {
				check(path+"."+v.Type().Field(i).Name, v.Field(i))
			}
		case reflect.Slice:
			switch {
			case strings.HasSuffix(path, ".nameOK"), strings.HasSuffix(path, ".deps"), strings.HasSuffix(path, ".exprGen"):
				return // flags, not references; zeroed when next used
			case v.Type().Elem().Kind() == reflect.Uint8:
				if !v.IsNil() {
					t.Errorf("scratch%s still refers to %d bytes", path, v.Len())
				}
				return
			}
			all := v.Slice(0, v.Cap())
			for i := range all.Len() {
				if !all.Index(i).IsZero() {
					t.Errorf("scratch%s[%d] still holds %v", path, i, all.Index(i))
					return
				}
			}
		}
	}
	check("", reflect.ValueOf(sc))
}
