// Package dalfedit edits real Daml-LF 2.x archives at the protobuf level,
// for tests that build hostile packages out of real ones (a mutated dalf
// gets a new package id: the payload's SHA-256, which Archive re-hashes).
//
// The field numbers are those of daml/archive/FORMAT.md. An archive is
// Archive { 3: payload, 4: hash }, the payload ArchivePayload { 4: the
// Package }, and Package { 1*: modules, 2*: interned strings, 3*: interned
// dotted names, 5*: interned types }. Only what the tests need is here.
package dalfedit

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field is one field of a message: its number, wire type and the bytes of
// its value (for a length-delimited field, the content without length).
type Field struct {
	Num  protowire.Number
	Type protowire.Type
	Val  []byte
}

// Msg is a message as its fields, in wire order.
type Msg []Field

// Parse splits a message into its fields.
func Parse(b []byte) (Msg, error) {
	var m Msg
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		b = b[n:]
		var val []byte
		if typ == protowire.BytesType {
			v, k := protowire.ConsumeBytes(b)
			if k < 0 {
				return nil, protowire.ParseError(k)
			}
			val, n = v, k
		} else {
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return nil, protowire.ParseError(n)
			}
			val = b[:n]
		}
		m = append(m, Field{Num: num, Type: typ, Val: val})
		b = b[n:]
	}
	return m, nil
}

// MustParse is Parse for bytes known to be a message.
func MustParse(b []byte) Msg {
	m, err := Parse(b)
	if err != nil {
		panic(err)
	}
	return m
}

// Bytes encodes the message.
func (m Msg) Bytes() []byte {
	var b []byte
	for _, f := range m {
		b = protowire.AppendTag(b, f.Num, f.Type)
		if f.Type == protowire.BytesType {
			b = protowire.AppendBytes(b, f.Val)
		} else {
			b = append(b, f.Val...)
		}
	}
	return b
}

// All returns the indexes of the fields numbered num.
func (m Msg) All(num protowire.Number) []int {
	var out []int
	for i, f := range m {
		if f.Num == num {
			out = append(out, i)
		}
	}
	return out
}

// First returns the index of the first field numbered num, or -1.
func (m Msg) First(num protowire.Number) int {
	for i, f := range m {
		if f.Num == num {
			return i
		}
	}
	return -1
}

// Varint returns the value of the first varint field numbered num: 0, as
// proto3 omits it, when there is none.
func (m Msg) Varint(num protowire.Number) uint64 {
	if i := m.First(num); i >= 0 {
		return m[i].Varint()
	}
	return 0
}

// Varint returns the value of a varint field.
func (f Field) Varint() uint64 {
	v, _ := protowire.ConsumeVarint(f.Val)
	return v
}

// Bytes makes a length-delimited field.
func Bytes(num protowire.Number, v []byte) Field {
	return Field{Num: num, Type: protowire.BytesType, Val: v}
}

// Varint makes a varint field.
func Varint(num protowire.Number, v uint64) Field {
	return Field{Num: num, Type: protowire.VarintType, Val: protowire.AppendVarint(nil, v)}
}

// Package is an LF 2.x package being edited.
type Package struct {
	Msg     Msg
	strings []string
	dotted  [][]int
	ntypes  int
}

// Interned string, dotted-name and type tables of Package.
const (
	pkgModules     = 1
	pkgStrings     = 2
	pkgDottedNames = 3
	pkgTypes       = 5
)

func newPackage(b []byte) (*Package, error) {
	m, err := Parse(b)
	if err != nil {
		return nil, err
	}
	p := &Package{Msg: m}
	for _, i := range m.All(pkgStrings) {
		p.strings = append(p.strings, string(m[i].Val))
	}
	for _, i := range m.All(pkgDottedNames) {
		var segs []int
		dm, err := Parse(m[i].Val)
		if err != nil {
			return nil, err
		}
		for _, j := range dm.All(1) {
			if dm[j].Type == protowire.BytesType {
				for v := dm[j].Val; len(v) > 0; {
					x, n := protowire.ConsumeVarint(v)
					if n < 0 {
						return nil, protowire.ParseError(n)
					}
					segs = append(segs, int(x))
					v = v[n:]
				}
			} else {
				segs = append(segs, int(dm[j].Varint()))
			}
		}
		p.dotted = append(p.dotted, segs)
	}
	p.ntypes = len(m.All(pkgTypes))
	return p, nil
}

// appendTable adds a field after the last one of its table, so that the
// table's indexes are kept.
func (p *Package) appendTable(num protowire.Number, f Field) {
	idx := p.Msg.All(num)
	at := len(p.Msg)
	if len(idx) > 0 {
		at = idx[len(idx)-1] + 1
	}
	p.Msg = append(p.Msg[:at], append(Msg{f}, p.Msg[at:]...)...)
}

// String returns the index of an interned string, adding it if needed.
func (p *Package) String(s string) int {
	for i, x := range p.strings {
		if x == s {
			return i
		}
	}
	p.appendTable(pkgStrings, Bytes(pkgStrings, []byte(s)))
	p.strings = append(p.strings, s)
	return len(p.strings) - 1
}

// DottedName returns the index of an interned dotted name ("A.B"), adding
// it if needed.
func (p *Package) DottedName(name string) int {
	var segs []int
	for _, s := range strings.Split(name, ".") {
		segs = append(segs, p.String(s))
	}
	for i, d := range p.dotted {
		if equalInts(d, segs) {
			return i
		}
	}
	var packed []byte
	for _, s := range segs {
		packed = protowire.AppendVarint(packed, uint64(s))
	}
	p.appendTable(pkgDottedNames, Bytes(pkgDottedNames, Msg{Bytes(1, packed)}.Bytes()))
	p.dotted = append(p.dotted, segs)
	return len(p.dotted) - 1
}

// DottedNameOf returns the dotted name at an index.
func (p *Package) DottedNameOf(i int) string {
	if i < 0 || i >= len(p.dotted) {
		return ""
	}
	var segs []string
	for _, s := range p.dotted[i] {
		if s < len(p.strings) {
			segs = append(segs, p.strings[s])
		}
	}
	return strings.Join(segs, ".")
}

// StringOf returns the interned string at an index.
func (p *Package) StringOf(i int) string {
	if i < 0 || i >= len(p.strings) {
		return ""
	}
	return p.strings[i]
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// AddType appends a Type message to the interned types and returns its
// index; it may refer only to earlier entries.
func (p *Package) AddType(t Msg) int {
	p.appendTable(pkgTypes, Bytes(pkgTypes, t.Bytes()))
	p.ntypes++
	return p.ntypes - 1
}

// TypeRef is a Type that refers to interned type i, as every Type outside
// the table is.
func TypeRef(i int) Msg { return Msg{Varint(8, uint64(i))} }

// Builtin is the Type of a builtin type (its enum value of FORMAT.md).
func Builtin(tag uint64) Msg { return Msg{Bytes(3, Msg{Varint(1, tag)}.Bytes())} }

// Module is one module of the package: its index in Msg and its fields.
type Module struct {
	Index int
	Name  string
	Msg   Msg
}

// Modules returns the package's modules.
func (p *Package) Modules() []Module {
	var out []Module
	for _, i := range p.Msg.All(pkgModules) {
		m := MustParse(p.Msg[i].Val)
		name := p.DottedNameOf(int(m.Varint(1)))
		out = append(out, Module{Index: i, Name: name, Msg: m})
	}
	return out
}

// Module returns the module named name.
func (p *Package) Module(name string) (Module, error) {
	for _, m := range p.Modules() {
		if m.Name == name {
			return m, nil
		}
	}
	return Module{}, fmt.Errorf("no module %s", name)
}

// SetModule writes a module back (found again by name: edits of the
// interned tables may have moved it).
func (p *Package) SetModule(m Module) {
	for _, x := range p.Modules() {
		if x.Name == m.Name {
			p.Msg[x.Index].Val = m.Msg.Bytes()
		}
	}
}

// EditDalf decodes an LF 2.x dalf, lets edit change its package, and
// returns the new dalf with its hash recomputed.
func EditDalf(dalf []byte, edit func(*Package) error) ([]byte, error) {
	archive, err := Parse(dalf)
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	pi := archive.First(3)
	if pi < 0 {
		return nil, errors.New("archive has no payload")
	}
	payload, err := Parse(archive[pi].Val)
	if err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	li := payload.First(4)
	if li < 0 {
		return nil, errors.New("payload is not Daml-LF 2")
	}
	pkg, err := newPackage(payload[li].Val)
	if err != nil {
		return nil, fmt.Errorf("package: %w", err)
	}
	if err := edit(pkg); err != nil {
		return nil, err
	}
	payload[li].Val = pkg.Msg.Bytes()
	pb := payload.Bytes()
	archive[pi].Val = pb
	sum := sha256.Sum256(pb)
	if hi := archive.First(4); hi >= 0 {
		archive[hi].Val = []byte(hex.EncodeToString(sum[:]))
	}
	return archive.Bytes(), nil
}

// EditMainDalf rewrites a DAR with its main dalf edited by EditDalf.
func EditMainDalf(dar []byte, edit func(*Package) error) ([]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(dar), int64(len(dar)))
	if err != nil {
		return nil, err
	}
	main := ""
	for _, f := range zr.File {
		if f.Name == "META-INF/MANIFEST.MF" {
			b, err := readEntry(f)
			if err != nil {
				return nil, err
			}
			main = manifestMain(string(b))
		}
	}
	if main == "" {
		return nil, errors.New("the DAR's manifest names no Main-Dalf")
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		b, err := readEntry(f)
		if err != nil {
			return nil, err
		}
		if f.Name == main {
			if b, err = EditDalf(b, edit); err != nil {
				return nil, err
			}
		}
		w, err := zw.Create(f.Name)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(b); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func readEntry(f *zip.File) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// manifestMain reads Main-Dalf, joining continuation lines.
func manifestMain(text string) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\n ", "")
	for _, l := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(l, "Main-Dalf: "); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// Unwrap returns an LF 2.x dalf's Package bytes and minor version.
func Unwrap(dalf []byte) (pkg []byte, minor string, err error) {
	archive, err := Parse(dalf)
	if err != nil {
		return nil, "", err
	}
	pi := archive.First(3)
	if pi < 0 {
		return nil, "", errors.New("archive has no payload")
	}
	payload, err := Parse(archive[pi].Val)
	if err != nil {
		return nil, "", err
	}
	li, mi := payload.First(4), payload.First(3)
	if li < 0 || mi < 0 {
		return nil, "", errors.New("payload is not Daml-LF 2")
	}
	return payload[li].Val, string(payload[mi].Val), nil
}

// Wrap makes a dalf of Package bytes and a minor version ("1", "2", "3",
// "dev"), with its hash: the inverse of Unwrap.
func Wrap(pkg []byte, minor string) []byte {
	payload := Msg{Bytes(3, []byte(minor)), Bytes(4, pkg)}.Bytes()
	sum := sha256.Sum256(payload)
	return Msg{Varint(1, 0), Bytes(3, payload), Bytes(4, []byte(hex.EncodeToString(sum[:])))}.Bytes()
}

// MainPackageID is the package id of a DAR's main dalf, read from its
// archive's hash field without decoding any package.
func MainPackageID(dar []byte) (string, error) {
	zr, err := zip.NewReader(bytes.NewReader(dar), int64(len(dar)))
	if err != nil {
		return "", err
	}
	files := map[string]*zip.File{}
	for _, f := range zr.File {
		files[f.Name] = f
	}
	mf, ok := files["META-INF/MANIFEST.MF"]
	if !ok {
		return "", errors.New("the DAR has no manifest")
	}
	b, err := readEntry(mf)
	if err != nil {
		return "", err
	}
	main, ok := files[manifestMain(string(b))]
	if !ok {
		return "", errors.New("the DAR's manifest names no Main-Dalf it holds")
	}
	if b, err = readEntry(main); err != nil {
		return "", err
	}
	archive, err := Parse(b)
	if err != nil {
		return "", fmt.Errorf("archive: %w", err)
	}
	hi := archive.First(4)
	if hi < 0 {
		return "", errors.New("the main archive has no hash")
	}
	return string(archive[hi].Val), nil
}
