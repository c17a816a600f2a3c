package lfbuild

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

func protoNum(n int) protowire.Number { return protowire.Number(n) }

// Package is one package of one module being declared.
type Package struct {
	Name, Version, Module string
	defs                  []func(w *writer) (num int, def msg)
	// keys is set by a template with a key: the package is then
	// Daml-LF 2.3, the first stable version with contract keys.
	keys bool
	// deps are dalfs the DAR carries beside the package, by path.
	deps []dep
}

type dep struct {
	path string
	dalf []byte
}

// Dependency adds a dalf (e.g. the stable daml-prim package of TTuple2,
// taken from a real DAR) to the DAR, at path inside it.
func (p *Package) Dependency(path string, dalf []byte) {
	p.deps = append(p.deps, dep{path, dalf})
}

// New declares package name at version with one module.
func New(name, version, module string) *Package {
	return &Package{Name: name, Version: version, Module: module}
}

func (p *Package) add(num int, f func(w *writer) msg) {
	p.defs = append(p.defs, func(w *writer) (int, msg) { return num, f(w) })
}

func (p *Package) dataType(name string, params []string, kind int, body func(w *writer) msg) {
	p.add(4, func(w *writer) msg {
		b := msg{}.varint(2, w.dname(name))
		for _, v := range params {
			b = b.bytes(3, msg{}.varint(3, w.str(v)).bytes(2, msg{}.unit(1)))
		}
		return b.boolean(4, kind != kindInterface).bytes(protoNum(kind), body(w))
	})
}

const kindInterface = 8

// Interface declares an interface with no methods and no choices whose
// view is of type view; templates implement it with Template.Implements.
func (p *Package) Interface(name, param string, view Type) {
	p.InterfaceOf(InterfaceDef{Name: name, Param: param, View: view})
}

// InterfaceDef is an interface: its view type, its methods (name and
// type) and its choices, in whose expressions Param is the interface value.
type InterfaceDef struct {
	Name, Param string
	View        Type
	Methods     []Field
	Choices     []Choice
}

// InterfaceOf declares the interface i.
func (p *Package) InterfaceOf(i InterfaceDef) {
	p.dataType(i.Name, nil, kindInterface, func(*writer) msg { return nil })
	p.add(8, func(w *writer) msg {
		b := msg{}.varint(2, w.dname(i.Name))
		for _, m := range i.Methods {
			b = b.bytes(3, msg{}.varint(2, w.str(m.Name)).bytes(3, m.Type.ref(w)))
		}
		b = b.varint(4, w.str(i.Param))
		for _, c := range i.Choices {
			b = b.bytes(5, c.encode(w))
		}
		return b.bytes(6, i.View.ref(w))
	})
}

// Implementation is a template's instance of an interface: its view and
// its methods, expressions over the template's Param.
type Implementation struct {
	Interface string
	View      Expr
	Methods   []FieldExpr
}

func fieldList(fields []Field) func(w *writer) msg {
	return func(w *writer) msg {
		var b msg
		for _, f := range fields {
			b = b.bytes(1, f.encode(w))
		}
		return b
	}
}

// Record declares a serializable record type.
func (p *Package) Record(name string, fields ...Field) { p.RecordOf(name, nil, fields...) }

// RecordOf declares a serializable record type of type parameters (of kind *).
func (p *Package) RecordOf(name string, params []string, fields ...Field) {
	p.dataType(name, params, 5, fieldList(fields))
}

// Variant declares a serializable variant type: a Field per constructor.
func (p *Package) Variant(name string, ctors ...Field) { p.VariantOf(name, nil, ctors...) }

// VariantOf declares a serializable variant type of type parameters.
func (p *Package) VariantOf(name string, params []string, ctors ...Field) {
	p.dataType(name, params, 6, fieldList(ctors))
}

// Enum declares an enum type.
func (p *Package) Enum(name string, ctors ...string) {
	p.dataType(name, nil, 7, func(w *writer) msg {
		var packed []byte
		for _, c := range ctors {
			packed = protowire.AppendVarint(packed, w.str(c))
		}
		return msg{}.bytes(2, packed)
	})
}

// Value declares the top-level value name of type t.
func (p *Package) Value(name string, t Type, body Expr) {
	p.add(5, func(w *writer) msg {
		return msg{}.bytes(2, msg{}.varint(1, w.dname(name)).bytes(2, t.ref(w))).bytes(3, body.encode(w))
	})
}

// Exception declares the exception name over the record type of that
// name; message is a function from it to Text.
func (p *Package) Exception(name string, message Expr) {
	p.add(7, func(w *writer) msg { return msg{}.varint(1, w.dname(name)).bytes(3, message.encode(w)) })
}

// Template is a template over the record type of the same Name; in its
// expressions Param is the contract's argument.
type Template struct {
	Name, Param string
	Precond     Expr // none: True
	Signatories Expr
	Observers   Expr // none: no observers
	Choices     []Choice
	Implements  []Implementation
	// Key, when set, makes the package Daml-LF 2.3 (contract keys).
	Key *Key
}

// Key is a template's contract key: Body (of type Type, over the template's
// Param) and Maintainers, a function from the key to its maintainers.
type Key struct {
	Type        Type
	Body        Expr
	Maintainers Expr
}

// Choice is a choice of a template. In Controllers, Observers and Update
// ArgName is the choice argument; in Update Self is the contract id.
type Choice struct {
	Name        string
	Consuming   bool
	Controllers Expr
	Observers   Expr // none: no choice observers
	ArgName     string
	ArgType     Type
	ReturnType  Type
	Self        string
	Update      Expr
}

// Template declares a template.
func (p *Package) Template(t Template) {
	if t.Key != nil {
		p.keys = true
	}
	p.add(6, func(w *writer) msg {
		pre := t.Precond
		if pre.encode == nil {
			pre = True
		}
		obs := t.Observers
		if obs.encode == nil {
			obs = Nil(TParty)
		}
		b := msg{}.varint(1, w.dname(t.Name)).varint(2, w.str(t.Param)).bytes(3, pre.encode(w)).
			bytes(4, t.Signatories.encode(w))
		for _, c := range t.Choices {
			b = b.bytes(6, c.encode(w))
		}
		b = b.bytes(7, obs.encode(w))
		for _, i := range t.Implements {
			var body msg
			for _, m := range i.Methods {
				body = body.bytes(1, msg{}.varint(1, w.str(m.Name)).bytes(2, m.Value.encode(w)))
			}
			b = b.bytes(10, msg{}.bytes(1, w.tyCon(i.Interface)).bytes(2, body.bytes(2, i.View.encode(w))))
		}
		if k := t.Key; k != nil {
			b = b.bytes(9, msg{}.bytes(1, k.Type.ref(w)).bytes(3, k.Maintainers.encode(w)).bytes(4, k.Body.encode(w)))
		}
		return b
	})
}

func (c Choice) encode(w *writer) msg {
	self := c.Self
	if self == "" {
		self = "self"
	}
	obs := c.Observers
	if obs.encode == nil {
		obs = Nil(TParty)
	}
	b := msg{}.varint(2, w.str(c.Name)).boolean(3, c.Consuming).bytes(4, c.Controllers.encode(w)).bytes(5, obs.encode(w))
	return b.bytes(6, F(c.ArgName, c.ArgType).encode(w)).bytes(8, c.ReturnType.ref(w)).
		bytes(9, c.Update.encode(w)).varint(10, w.str(self))
}

// Archive is the consuming choice every Daml template has: controlled by
// the signatories, argument the record type archiveArg (declared empty by
// the caller), returning ().
func Archive(archiveArg string, signatories Expr) Choice {
	return Choice{Name: "Archive", Consuming: true, Controllers: signatories, ArgName: "arg",
		ArgType: TCon(archiveArg), ReturnType: TUnit, Update: Pure(TUnit, Unit)}
}

// Archive returns the package's dalf (an Archive message) and its id.
func (p *Package) Archive() (dalf []byte, id string) {
	w := &writer{module: p.Module, strIdx: map[string]uint64{}, dotIdx: map[string]uint64{}, typeIdx: map[string]uint64{}, tapp: p.keys}
	mod := msg{}.varint(1, w.dname(p.Module)).bytes(2, msg{}.boolean(1, true).boolean(2, true).boolean(3, true))
	for _, d := range p.defs {
		num, def := d(w)
		mod = mod.bytes(protoNum(num), def)
	}
	meta := msg{}.varint(1, w.str(p.Name)).varint(2, w.str(p.Version))
	pkg := msg{}.bytes(1, mod)
	for _, s := range w.strs {
		pkg = pkg.bytes(2, []byte(s))
	}
	for _, segs := range w.dotted {
		var packed []byte
		for _, s := range segs {
			packed = protowire.AppendVarint(packed, s)
		}
		pkg = pkg.bytes(3, msg{}.bytes(1, packed))
	}
	pkg = pkg.bytes(4, meta)
	for _, t := range w.types {
		pkg = pkg.bytes(5, t)
	}
	minor := "1"
	if p.keys {
		minor = "3"
	}
	payload := msg{}.bytes(3, []byte(minor)).bytes(4, pkg)
	sum := sha256.Sum256(payload)
	id = hex.EncodeToString(sum[:])
	return msg{}.bytes(3, payload).bytes(4, []byte(id)), id
}

// DAR returns the package as a DAR of its one dalf, and its package id.
func (p *Package) DAR() (dar []byte, id string) {
	dalf, id := p.Archive()
	name := fmt.Sprintf("%s-%s-%s/%s-%s-%s.dalf", p.Name, p.Version, id[:8], p.Name, p.Version, id)
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	write := func(path string, b []byte) {
		f, err := z.Create(path)
		if err == nil {
			_, err = f.Write(b)
		}
		if err != nil {
			panic(fmt.Sprintf("lfbuild: writing %s to memory: %v", path, err)) // bytes.Buffer does not fail
		}
	}
	dalfs := []string{name}
	for _, d := range p.deps {
		dalfs = append(dalfs, d.path)
	}
	write("META-INF/MANIFEST.MF", manifest(
		"Manifest-Version: 1.0", "Created-By: lfbuild", "Main-Dalf: "+name, "Dalfs: "+strings.Join(dalfs, ", "),
		"Format: daml-lf", "Encryption: non-encrypted"))
	write(name, dalf)
	for _, d := range p.deps {
		write(d.path, d.dalf)
	}
	if err := z.Close(); err != nil {
		panic(fmt.Sprintf("lfbuild: closing the zip: %v", err))
	}
	return buf.Bytes(), id
}

// manifest writes Java manifest lines, cut at 72 bytes with continuation
// lines that start with a space.
func manifest(lines ...string) []byte {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l[:min(72, len(l))])
		b.WriteString("\r\n")
		for l = l[min(72, len(l)):]; l != ""; l = l[min(71, len(l)):] {
			b.WriteString(" " + l[:min(71, len(l))] + "\r\n")
		}
	}
	b.WriteString("\r\n")
	return []byte(b.String())
}
