// Package archivetest builds hostile DARs for tests by mutating real ones:
// at the protobuf level (a choice argument whose type doubles forty times
// through the interned type table) and at the zip level (an entry of many
// zeros, a manifest that names one dalf many times). Nothing it builds is
// committed; every test makes its own from ../shared/dars.
package archivetest

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// SharedDar reads a DAR of the shared folder beside the repository
// (../shared/dars from the module root), or skips the test.
func SharedDar(tb testing.TB, name string) []byte {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "shared", "dars")
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		tb.Skipf("real DAR %s not found in %s (the shared folder beside the repository); skipping", name, dir)
	}
	return b
}

// PingDar is the DAR the doubling mutation applies to: Canton's Ping
// workflow (Daml-LF 2.2), whose choice Respond takes an argument its body
// never reads.
const PingDar = "canton-builtin-admin-workflow-ping.dar"

// Entry is one file of a zip, in the zip's order.
type Entry struct {
	Name string
	Data []byte
}

// Unzip returns the entries of a zip.
func Unzip(tb testing.TB, b []byte) []Entry {
	tb.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		tb.Fatal(err)
	}
	var out []Entry
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			tb.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, Entry{Name: f.Name, Data: data})
	}
	return out
}

// Zip deflates entries into a zip, in order.
func Zip(tb testing.TB, entries []Entry) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.Create(e.Name)
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := w.Write(e.Data); err != nil {
			tb.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

const manifestPath = "META-INF/MANIFEST.MF"

// manifestAttr returns an attribute of a manifest's main section,
// continuation lines joined.
func manifestAttr(manifest []byte, name string) string {
	text := strings.ReplaceAll(string(manifest), "\r\n", "\n")
	var value strings.Builder
	in := false
	for _, line := range strings.Split(text, "\n") {
		switch {
		case in && strings.HasPrefix(line, " "):
			value.WriteString(line[1:])
		case in:
			return strings.TrimSpace(value.String())
		case strings.HasPrefix(line, name+": "):
			in = true
			value.WriteString(strings.TrimPrefix(line, name+": "))
		}
	}
	return strings.TrimSpace(value.String())
}

// ZeroBomb returns the DAR with one more dalf, named in its manifest: size
// zero bytes, which deflate to about a thousandth of that.
func ZeroBomb(tb testing.TB, dar []byte, size int) []byte {
	tb.Helper()
	entries := Unzip(tb, dar)
	const bomb = "zeros.dalf"
	for i, e := range entries {
		if e.Name == manifestPath {
			entries[i].Data = []byte(fmt.Sprintf("Manifest-Version: 1.0\r\nMain-Dalf: %s\r\nDalfs: %s, %s\r\nFormat: daml-lf\r\n\r\n",
				manifestAttr(e.Data, "Main-Dalf"), manifestAttr(e.Data, "Main-Dalf"), bomb))
		}
	}
	return Zip(tb, append(entries, Entry{Name: bomb, Data: make([]byte, size)}))
}

// RepeatedManifest returns the DAR with its main dalf renamed m.dalf and a
// manifest whose Dalfs name it times times (and nothing else): 7 bytes a
// time, so 100,000 times fit in a manifest of 1 MiB.
func RepeatedManifest(tb testing.TB, dar []byte, times int) []byte {
	tb.Helper()
	entries := Unzip(tb, dar)
	var main string
	for _, e := range entries {
		if e.Name == manifestPath {
			main = manifestAttr(e.Data, "Main-Dalf")
		}
	}
	var m strings.Builder
	m.WriteString("Manifest-Version: 1.0\r\nMain-Dalf: m.dalf\r\nDalfs: ")
	for j := range times {
		if j > 0 {
			m.WriteString(",")
		}
		m.WriteString("m.dalf")
	}
	m.WriteString("\r\nFormat: daml-lf\r\n\r\n")
	for i, e := range entries {
		switch e.Name {
		case manifestPath:
			entries[i].Data = []byte(m.String())
		case main:
			entries[i].Name = "m.dalf"
		}
	}
	return Zip(tb, entries)
}

// Doubling returns Ping's DAR (PingDar) with its main package changed: the
// interned types t0 = Int64 and t(i+1) = GenMap t(i) t(i) up to t(n) are
// added to the type table (2n+2 entries, each naming the one before twice,
// so that t(n) written out has 2^(n+1)-1 leaves), the record Respond — the
// argument of choice Respond of template Ping — gets a field "field" of type
// t(n), so the package stays well typed, module Canton.Internal.Ping gains a
// serializable record Doubling with one field of type t(n) (so that an
// upgrade check compares t(n) with itself), and the package's version is
// version (the original is "3.4.0"). The package id changes with it; the
// manifest keeps naming the dalf by its old file name, as a DAR may.
func Doubling(tb testing.TB, dar []byte, n int, version string) []byte {
	tb.Helper()
	entries := Unzip(tb, dar)
	var main string
	for _, e := range entries {
		if e.Name == manifestPath {
			main = manifestAttr(e.Data, "Main-Dalf")
		}
	}
	found := false
	for i, e := range entries {
		if e.Name == main {
			entries[i].Data = mutateArchive(tb, e.Data, func(pkg []byte) []byte { return doublePackage(tb, pkg, n, version) })
			found = true
		}
	}
	if !found {
		tb.Fatalf("DAR has no main dalf %q", main)
	}
	return Zip(tb, entries)
}

// MainPackageID returns the package id of a DAR's main dalf.
func MainPackageID(tb testing.TB, dar []byte) string {
	tb.Helper()
	entries := Unzip(tb, dar)
	var main string
	for _, e := range entries {
		if e.Name == manifestPath {
			main = manifestAttr(e.Data, "Main-Dalf")
		}
	}
	for _, e := range entries {
		if e.Name == main {
			for _, f := range fields(tb, e.Data) {
				if f.num == 4 {
					return string(f.val)
				}
			}
		}
	}
	tb.Fatalf("DAR has no main dalf %q", main)
	return ""
}

// mutateArchive rewrites the Daml-LF 2 package of an Archive and sets its
// hash to the new payload's SHA-256.
func mutateArchive(tb testing.TB, archive []byte, mutate func(pkg []byte) []byte) []byte {
	var payload []byte
	for _, f := range fields(tb, archive) {
		if f.num == 3 {
			payload = f.val
		}
	}
	var newPayload []byte
	for _, f := range fields(tb, payload) {
		if f.num == 4 {
			newPayload = appendBytes(newPayload, 4, mutate(f.val))
			continue
		}
		newPayload = append(newPayload, f.raw...)
	}
	sum := sha256.Sum256(newPayload)
	var out []byte
	out = appendBytes(out, 3, newPayload)
	out = appendBytes(out, 4, []byte(hex.EncodeToString(sum[:])))
	return out
}

// doublePackage adds the doubling types to a Package and gives the record
// Respond (choice Respond's argument) and a new record Doubling a field of
// the last.
func doublePackage(tb testing.TB, pkg []byte, n int, version string) []byte {
	fs := fields(tb, pkg)
	var strs []string
	types := 0
	for _, f := range fs {
		switch f.num {
		case 2:
			strs = append(strs, string(f.val))
		case 5:
			types++
		}
	}
	respond := -1
	for i, s := range strs {
		if s == "Respond" {
			respond = i
		}
	}
	if respond < 0 {
		tb.Fatal("the package has no interned string Respond")
	}
	// New interned strings after the last: the version, the name and the
	// field of the data type Doubling; a new dotted name, Doubling.
	versionIdx, doublingIdx, fieldIdx := len(strs), len(strs)+1, len(strs)+2
	dnames := 0
	respondDname := -1
	for _, f := range fs {
		if f.num == 3 {
			// An interned dotted name: its segments' string indices.
			if segs := varints(tb, f.val, 1); len(segs) == 1 && segs[0] == respond {
				respondDname = dnames
			}
			dnames++
		}
	}
	if respondDname < 0 {
		tb.Fatal("the package has no interned dotted name Respond")
	}
	doublingDname := dnames
	// The new types: GenMap, t0, then per level GenMap t(i) and t(i+1).
	ref := func(i int) []byte {
		return protowire.AppendVarint(protowire.AppendTag(nil, 8, protowire.VarintType), uint64(i))
	}
	builtin := func(b uint64) []byte {
		return appendBytes(nil, 3, protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), b))
	}
	tapp := func(fun, arg int) []byte {
		return appendBytes(nil, 9, appendBytes(appendBytes(nil, 1, ref(fun)), 2, ref(arg)))
	}
	const genMap, int64Type = 11, 2
	newTypes := [][]byte{builtin(genMap), builtin(int64Type)}
	genMapIdx, t := types, types+1
	for range n {
		half := types + len(newTypes)
		newTypes = append(newTypes, tapp(genMapIdx, t))
		next := types + len(newTypes)
		newTypes = append(newTypes, tapp(half, t))
		t = next
	}
	var out []byte
	lastString, lastType := lastIndex(fs, 2), lastIndex(fs, 5)
	for i, f := range fs {
		switch f.num {
		case 1: // a module
			found := false
			// The record Respond, choice Respond's argument, gets a field
			// of type t(n): the package stays well typed (its code never
			// builds a Respond), and the choice takes {"field": …}.
			field := appendBytes(nil, 2, ref(t))
			field = protowire.AppendVarint(protowire.AppendTag(field, 3, protowire.VarintType), uint64(fieldIdx))
			mod := mapField(tb, f.val, 4, func(def []byte) []byte {
				if !hasVarint(tb, def, 2, respondDname) {
					return def
				}
				found = true
				return replaceField(tb, def, 5, appendBytes(nil, 1, field))
			})
			if found {
				// data Doubling = Doubling with field: t(n), serializable.
				def := protowire.AppendVarint(protowire.AppendTag(nil, 2, protowire.VarintType), uint64(doublingDname))
				def = protowire.AppendVarint(protowire.AppendTag(def, 4, protowire.VarintType), 1)
				def = appendBytes(def, 5, appendBytes(nil, 1, field))
				mod = appendBytes(mod, 4, def)
			}
			out = appendBytes(out, 1, mod)
		case 4: // metadata: version
			out = appendBytes(out, 4, replaceField(tb, f.val, 2,
				protowire.AppendVarint(nil, uint64(versionIdx)), protowire.VarintType))
		default:
			out = append(out, f.raw...)
		}
		if i == lastString {
			out = appendBytes(out, 2, []byte(version))
			out = appendBytes(out, 2, []byte("Doubling"))
			out = appendBytes(out, 2, []byte("field"))
		}
		if i == lastIndex(fs, 3) {
			out = appendBytes(out, 3, protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), uint64(doublingIdx)))
		}
		if i == lastType {
			for _, nt := range newTypes {
				out = appendBytes(out, 5, nt)
			}
		}
	}
	if lastType < 0 {
		tb.Fatal("the package has no interned types")
	}
	return out
}

type field struct {
	num protowire.Number
	typ protowire.Type
	val []byte // the bytes of a LEN field; the encoded value otherwise
	raw []byte // tag and value
}

func fields(tb testing.TB, b []byte) []field {
	var out []field
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			tb.Fatalf("malformed message: %v", protowire.ParseError(n))
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			tb.Fatalf("malformed field %d: %v", num, protowire.ParseError(m))
		}
		f := field{num: num, typ: typ, raw: b[:n+m], val: b[n : n+m]}
		if typ == protowire.BytesType {
			f.val, _ = protowire.ConsumeBytes(b[n:])
		}
		out = append(out, f)
		b = b[n+m:]
	}
	return out
}

func lastIndex(fs []field, num protowire.Number) int {
	last := -1
	for i, f := range fs {
		if f.num == num {
			last = i
		}
	}
	return last
}

func appendBytes(b []byte, num protowire.Number, v []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), v)
}

// mapField rewrites every LEN field num of a message.
func mapField(tb testing.TB, msg []byte, num protowire.Number, f func([]byte) []byte) []byte {
	var out []byte
	for _, x := range fields(tb, msg) {
		if x.num == num && x.typ == protowire.BytesType {
			out = appendBytes(out, num, f(x.val))
			continue
		}
		out = append(out, x.raw...)
	}
	return out
}

// replaceField replaces field num of a message by v, a LEN field unless
// typ says otherwise.
func replaceField(tb testing.TB, msg []byte, num protowire.Number, v []byte, typ ...protowire.Type) []byte {
	t := protowire.BytesType
	if len(typ) > 0 {
		t = typ[0]
	}
	var out []byte
	for _, x := range fields(tb, msg) {
		if x.num != num {
			out = append(out, x.raw...)
		}
	}
	out = protowire.AppendTag(out, num, t)
	if t == protowire.BytesType {
		return protowire.AppendBytes(out, v)
	}
	return append(out, v...)
}

func hasVarint(tb testing.TB, msg []byte, num protowire.Number, want int) bool {
	for _, x := range fields(tb, msg) {
		if x.num == num && x.typ == protowire.VarintType {
			v, _ := protowire.ConsumeVarint(x.val)
			return int(v) == want
		}
	}
	return false
}

// varints returns the varints of field num of a message, packed or not.
func varints(tb testing.TB, msg []byte, num protowire.Number) []int {
	var out []int
	for _, x := range fields(tb, msg) {
		if x.num != num {
			continue
		}
		switch x.typ {
		case protowire.VarintType:
			v, _ := protowire.ConsumeVarint(x.val)
			out = append(out, int(v))
		case protowire.BytesType:
			for b := x.val; len(b) > 0; {
				v, n := protowire.ConsumeVarint(b)
				if n < 0 {
					tb.Fatalf("malformed packed field %d", num)
				}
				out = append(out, int(v))
				b = b[n:]
			}
		}
	}
	return out
}
