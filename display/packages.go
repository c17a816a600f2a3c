package display

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/typed"
)

// PackageSignature is what `ledger dars inspect` shows of a Daml-LF
// package: what a developer needs to write a command. Its templates
// (fields, signatories, observers, ensure, key and maintainers, interfaces,
// choices with controllers, argument and result types) and interfaces,
// module by module, each with the id a command names it by; then the
// records, variants and enums those mention. Types are written as Daml
// writes them, clauses by lf.ExprPrinter. It is also the -o json form.
type PackageSignature struct {
	PackageID       string            `json:"packageId"`
	Name            string            `json:"name"`
	Version         string            `json:"version"`
	LanguageVersion string            `json:"languageVersion"`
	Main            bool              `json:"main"`
	Dependencies    int               `json:"dependencies"`
	Modules         []ModuleSignature `json:"modules"`
	// DataTypes are the records, variants and enums the templates and
	// interfaces mention, in this package or another of the DAR, in the
	// order they are first mentioned.
	DataTypes []DataTypeSignature `json:"dataTypes"`
	// DataTypesCut says the list stops at MaxInspectDataTypes.
	DataTypesCut bool `json:"dataTypesCut,omitempty"`
}

// ModuleSignature is a module's templates and interfaces.
type ModuleSignature struct {
	Name       string               `json:"name"`
	Templates  []TemplateSignature  `json:"templates"`
	Interfaces []InterfaceSignature `json:"interfaces"`
}

// FieldSignature is a field and its type.
type FieldSignature struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// TemplateSignature is a template. ID is the template id a command names
// it by (#package-name:Module:Entity); the clauses are Daml-LF
// expressions as lf.ExprPrinter renders them.
type TemplateSignature struct {
	Name        string            `json:"name"`
	ID          string            `json:"id"`
	Fields      []FieldSignature  `json:"fields"`
	Signatories string            `json:"signatories"`
	Observers   string            `json:"observers"`
	Ensure      string            `json:"ensure"`
	Key         string            `json:"key,omitempty"` // the key's type
	KeyBody     string            `json:"keyExpression,omitempty"`
	Maintainers string            `json:"maintainers,omitempty"`
	Implements  []string          `json:"implements"`
	Choices     []ChoiceSignature `json:"choices"`
}

// ChoiceSignature is a choice: its controllers, its argument type (and,
// when that is the record Daml makes of the choice's "with" fields, those
// fields) and its result type.
type ChoiceSignature struct {
	Name           string           `json:"name"`
	Consuming      bool             `json:"consuming"`
	Controllers    string           `json:"controllers"`
	Argument       string           `json:"argument"`
	ArgumentFields []FieldSignature `json:"argumentFields,omitempty"`
	Result         string           `json:"result"`
}

// InterfaceSignature is an interface.
type InterfaceSignature struct {
	Name     string            `json:"name"`
	ID       string            `json:"id"`
	View     string            `json:"view"`
	Requires []string          `json:"requires"`
	Methods  []FieldSignature  `json:"methods"`
	Choices  []ChoiceSignature `json:"choices"`
}

// DataTypeSignature is a record (Fields), variant (Fields are its
// constructors and their argument types) or enum (Constructors).
type DataTypeSignature struct {
	Name         string           `json:"name"`
	ID           string           `json:"id"`
	Kind         string           `json:"kind"`
	Params       []string         `json:"params,omitempty"`
	Fields       []FieldSignature `json:"fields,omitempty"`
	Constructors []string         `json:"constructors,omitempty"`
}

// MaxInspectDataTypes bounds the data types a package signature lists,
// and maxTypeVisits the type nodes visited to find them (types share
// parts, and a package may make one type of 2^40 leaves).
const (
	MaxInspectDataTypes = 500
	maxTypeVisits       = 100_000
)

func fieldSignatures(fs []lf.Field) []FieldSignature {
	out := make([]FieldSignature, len(fs))
	for i, f := range fs {
		out[i] = FieldSignature{Name: f.Name, Type: f.Type.String()}
	}
	return out
}

// signatureBuilder holds what building one package's signature looks up:
// the packages of its DAR (values to inline, data types, package names)
// and the data types found so far.
type signatureBuilder struct {
	pkg     *lf.Package
	pkgs    map[lf.PackageID]*lf.Package
	lookup  func(lf.ValueName) *lf.Value
	seen    map[string]bool
	skip    map[string]bool // records shown as templates or choice arguments
	visits  int
	walked  map[lf.TypeNode]bool
	pending []lf.TypeConName
	out     *PackageSignature
}

// NewPackageSignature builds the signature of p; main marks the main
// package of a DAR, and dar are the DAR's packages (p among them, or only
// p), where the compiler's values and the mentioned data types are found.
func NewPackageSignature(p *lf.Package, main bool, dar []*lf.Package) PackageSignature {
	s := PackageSignature{PackageID: string(p.ID), Name: p.Name, Version: p.Version,
		LanguageVersion: p.LanguageVersion.String(), Main: main, Dependencies: len(p.DirectDeps),
		Modules: []ModuleSignature{}, DataTypes: []DataTypeSignature{}}
	b := newSignatureBuilder(p, dar, &s)
	for _, m := range p.Modules {
		ms := ModuleSignature{Name: m.Name.String(), Templates: []TemplateSignature{}, Interfaces: []InterfaceSignature{}}
		for _, t := range m.Templates {
			if sig, ok := p.Template(m.Name.String(), t.Name.String()); ok {
				ms.Templates = append(ms.Templates, b.template(sig))
			}
		}
		for _, is := range p.Interfaces() {
			if is.Name.Module.Equal(m.Name) {
				ms.Interfaces = append(ms.Interfaces, b.iface(is))
			}
		}
		if len(ms.Templates) > 0 || len(ms.Interfaces) > 0 {
			s.Modules = append(s.Modules, ms)
		}
	}
	b.dataTypes()
	return s
}

// TemplateID returns the id a command names the template n of p by:
// #package-name:Module:Entity, or by package id when p has no name.
func TemplateID(p *lf.Package, n lf.TypeConName) string {
	if p == nil || p.Name == "" {
		return n.String()
	}
	return "#" + p.Name + ":" + n.Module.String() + ":" + n.Name.String()
}

func newSignatureBuilder(p *lf.Package, dar []*lf.Package, out *PackageSignature) *signatureBuilder {
	b := &signatureBuilder{pkg: p, pkgs: map[lf.PackageID]*lf.Package{p.ID: p}, seen: map[string]bool{}, skip: map[string]bool{}, walked: map[lf.TypeNode]bool{}, out: out}
	all := []*lf.Package{p}
	for _, d := range dar {
		if d != nil && b.pkgs[d.ID] == nil {
			b.pkgs[d.ID] = d
			all = append(all, d)
		}
	}
	b.lookup = lf.PackageLookup(all...)
	return b
}

func (b *signatureBuilder) id(n lf.TypeConName) string { return TemplateID(b.pkgs[n.Package], n) }

func (b *signatureBuilder) template(sig lf.TemplateSignature) TemplateSignature {
	t := sig.Template
	pr := lf.ExprPrinter{Lookup: b.lookup, Fields: []string{t.Param}}
	ts := TemplateSignature{Name: sig.Name.Name.String(), ID: b.id(sig.Name), Fields: fieldSignatures(sig.Fields),
		Signatories: pr.Print(t.Signatories), Observers: pr.Print(t.Observers), Ensure: pr.Print(t.Precond),
		Implements: []string{}, Choices: []ChoiceSignature{}}
	b.skip[sig.Name.String()] = true
	for _, f := range sig.Fields {
		b.mention(f.Type)
	}
	if t.Key != nil {
		ts.Key = t.Key.Type.String()
		ts.KeyBody = pr.Print(t.Key.Body)
		ts.Maintainers = lf.ExprPrinter{Lookup: b.lookup}.PrintApplied(t.Key.Maintainers, "key")
		b.mention(t.Key.Type)
	}
	for _, i := range sig.Implements {
		ts.Implements = append(ts.Implements, b.id(i))
	}
	for _, c := range sig.Choices {
		ts.Choices = append(ts.Choices, b.choice(c, t.Param))
	}
	return ts
}

func (b *signatureBuilder) iface(is lf.InterfaceSignature) InterfaceSignature {
	i := InterfaceSignature{Name: is.Name.Name.String(), ID: b.id(is.Name), Requires: []string{}, Methods: []FieldSignature{}, Choices: []ChoiceSignature{}}
	if is.View != nil {
		i.View = is.View.String()
		b.mention(is.View)
	}
	for _, r := range is.Requires {
		i.Requires = append(i.Requires, b.id(r))
	}
	for _, meth := range is.Methods {
		i.Methods = append(i.Methods, FieldSignature{Name: meth.Name, Type: meth.Type.String()})
	}
	for _, c := range is.Choices {
		i.Choices = append(i.Choices, b.choice(c, is.Interface.Param))
	}
	return i
}

// choice expands a choice's argument record when Daml made it of the
// choice's "with" fields: a record of this package named after the choice.
func (b *signatureBuilder) choice(c lf.ChoiceSignature, param string) ChoiceSignature {
	p := b.pkg
	cs := ChoiceSignature{Name: c.Name, Consuming: c.Consuming, Argument: c.ArgType.String(), Result: c.ReturnType.String()}
	if c.Choice != nil {
		pr := lf.ExprPrinter{Lookup: b.lookup, Fields: []string{param, c.Choice.ArgBinder.Name}}
		cs.Controllers = pr.Print(c.Choice.Controllers)
	}
	b.mention(c.ReturnType)
	if con, ok := c.ArgType.(lf.TCon); ok && con.Con.Package == p.ID && con.Con.Name.String() == c.Name {
		if m := p.Module(con.Con.Module.String()); m != nil {
			if d := m.DataType(c.Name); d != nil && d.Kind == lf.DataRecord {
				cs.ArgumentFields = fieldSignatures(d.Fields)
				b.skip[con.Con.String()] = true
				for _, f := range d.Fields {
					b.mention(f.Type)
				}
				return cs
			}
		}
	}
	b.mention(c.ArgType)
	return cs
}

// mention queues the data types t names. Parts of types that are shared
// (the decoder interns them) are walked once.
func (b *signatureBuilder) mention(t lf.Type) {
	if b.visits >= maxTypeVisits {
		return
	}
	b.visits++
	switch t.(type) {
	case lf.TApp, lf.TSyn, lf.TStruct, lf.TForall:
		n := lf.NodeOf(t)
		if b.walked[n] {
			return
		}
		b.walked[n] = true
	}
	switch t := t.(type) {
	case lf.TCon:
		if k := t.Con.String(); !b.seen[k] {
			b.seen[k] = true
			b.pending = append(b.pending, t.Con)
		}
	case lf.TApp:
		b.mention(t.Fun)
		b.mention(t.Arg)
	case lf.TSyn:
		for _, a := range t.Args {
			b.mention(a)
		}
	case lf.TStruct:
		for _, f := range t.Fields {
			b.mention(f.Type)
		}
	case lf.TForall:
		b.mention(t.Body)
	}
}

// dataTypes lists the pending data types, and those their fields mention,
// in the order they were first mentioned.
func (b *signatureBuilder) dataTypes() {
	for i := 0; i < len(b.pending); i++ {
		n := b.pending[i]
		// Tuples print as (a, b); Archive is the argument of every
		// template's Archive choice, and empty.
		if b.skip[n.String()] || n.Module.String() == "DA.Types" && strings.HasPrefix(n.Name.String(), "Tuple") ||
			n.Module.String() == "DA.Internal.Template" && n.Name.String() == "Archive" {
			continue
		}
		p := b.pkgs[n.Package]
		if p == nil {
			continue
		}
		m := p.Module(n.Module.String())
		if m == nil || m.Template(n.Name.String()) != nil {
			continue
		}
		d := m.DataType(n.Name.String())
		if d == nil || d.Kind == lf.DataInterface {
			continue
		}
		if len(b.out.DataTypes) == MaxInspectDataTypes {
			b.out.DataTypesCut = true
			return
		}
		ds := DataTypeSignature{Name: n.Name.String(), ID: b.id(n), Kind: d.Kind.String()}
		for _, v := range d.Params {
			ds.Params = append(ds.Params, v.Name)
		}
		if d.Kind == lf.DataEnum {
			ds.Constructors = d.EnumCons
		} else {
			ds.Fields = fieldSignatures(d.Fields)
			for _, f := range d.Fields {
				b.mention(f.Type)
			}
		}
		b.out.DataTypes = append(b.out.DataTypes, ds)
	}
}

// TemplateDetail is what `ledger dars inspect --template` shows of one
// template: its signature, the data types it mentions, and an example of
// its create arguments with the command that creates one. It is also the
// -o json form.
type TemplateDetail struct {
	PackageID   string              `json:"packageId"`
	PackageName string              `json:"packageName"`
	Version     string              `json:"version"`
	Module      string              `json:"module"`
	Template    TemplateSignature   `json:"template"`
	DataTypes   []DataTypeSignature `json:"dataTypes"`
	// ExampleArgs is a skeleton of the create arguments, placeholders by
	// type (typed.Plan.Example); ExampleCommand creates a contract with it.
	ExampleArgs    json.RawMessage `json:"exampleArgs,omitempty"`
	ExampleCommand string          `json:"exampleCommand,omitempty"`
	// ExampleExercises exercise each choice, its --arg a skeleton too.
	ExampleExercises []string `json:"exampleExercises,omitempty"`
	// ExampleProblem says why there is no example.
	ExampleProblem string `json:"exampleProblem,omitempty"`
}

// NewTemplateDetail builds the detail of template module:name of p, with
// dar as in NewPackageSignature; ok is false when p has no such template.
func NewTemplateDetail(p *lf.Package, dar []*lf.Package, module, name string) (d TemplateDetail, ok bool) {
	sig, ok := p.Template(module, name)
	if !ok {
		return d, false
	}
	var s PackageSignature
	s.DataTypes = []DataTypeSignature{}
	b := newSignatureBuilder(p, dar, &s)
	d = TemplateDetail{PackageID: string(p.ID), PackageName: p.Name, Version: p.Version, Module: module, Template: b.template(sig)}
	b.dataTypes()
	d.DataTypes = s.DataTypes
	return d, true
}

// ShellQuote quotes s for a POSIX shell: in single quotes, each single
// quote inside closed, escaped and reopened.
func ShellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.:/@%+=,", r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// RenderTemplateDetail writes one template, its data types and the
// example:
//
//	package canton-builtin-admin-workflow-ping 3.4.0 (de2cc2f9…), module Canton.Internal.Ping
//	  template Ping with
//	  …
//
//	--args skeleton (replace alice::1220… by party ids, 00… by contract ids):
//	  {
//	    "id": "",
//	    …
//	  }
//
//	create one:
//	  ledger submit --create '#canton-builtin-admin-workflow-ping:…' --act-as alice --args '{…}'
func RenderTemplateDetail(w io.Writer, d TemplateDetail) error {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s %s (%s), module %s\n", d.PackageName, d.Version, d.PackageID, d.Module)
	writeTemplate(&b, d.Template)
	writeDataTypes(&b, d.DataTypes, false)
	if d.ExampleProblem != "" {
		fmt.Fprintf(&b, "\nno --args skeleton: %s\n", escapeLine(d.ExampleProblem))
	}
	if len(d.ExampleArgs) > 0 {
		var indented bytes.Buffer
		if err := json.Indent(&indented, d.ExampleArgs, "  ", "  "); err != nil {
			return err
		}
		fmt.Fprintf(&b, "\n--args skeleton (replace %s by party ids, %s by contract ids):\n  %s\n", typed.ExampleParty, typed.ExampleContractID, indented.String())
	}
	if d.ExampleCommand != "" {
		fmt.Fprintf(&b, "\ncreate one:\n  %s\n", d.ExampleCommand)
	}
	if len(d.ExampleExercises) > 0 {
		b.WriteString("\nexercise a choice on one (the choice argument is --arg):\n")
		for _, c := range d.ExampleExercises {
			fmt.Fprintf(&b, "  %s\n", c)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// RenderPackageSignature writes s in Daml-like syntax:
//
//	package canton-builtin-admin-workflow-ping 3.4.0 (main)
//	  id de2cc2f9…, Daml-LF 2.2, 5 dependencies
//
//	module Canton.Internal.Ping
//	  template Ping with
//	      id: Text
//	      initiator: Party
//	      responder: Party
//	    templateId #canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping
//	    signatory initiator
//	    observer responder
//	    choice Respond : ()
//	      controller responder
//	    choice AbortPing : () with
//	        anyone: Party
//	      controller anyone
func RenderPackageSignature(w io.Writer, s PackageSignature) error {
	var b strings.Builder
	main := ""
	if s.Main {
		main = " (main)"
	}
	fmt.Fprintf(&b, "package %s %s%s\n  id %s, Daml-LF %s, %d dependencies\n", s.Name, s.Version, main, s.PackageID, s.LanguageVersion, s.Dependencies)
	if len(s.Modules) == 0 {
		b.WriteString("  no templates or interfaces\n")
	}
	for _, m := range s.Modules {
		fmt.Fprintf(&b, "\nmodule %s\n", m.Name)
		for _, t := range m.Templates {
			writeTemplate(&b, t)
		}
		for _, i := range m.Interfaces {
			writeInterface(&b, i)
		}
	}
	writeDataTypes(&b, s.DataTypes, s.DataTypesCut)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeTemplate(b *strings.Builder, t TemplateSignature) {
	fmt.Fprintf(b, "  template %s", t.Name)
	writeFieldLines(b, t.Fields, "      ")
	fmt.Fprintf(b, "    templateId %s\n", t.ID)
	fmt.Fprintf(b, "    signatory %s\n", t.Signatories)
	if t.Observers != "[]" {
		fmt.Fprintf(b, "    observer %s\n", t.Observers)
	}
	if t.Ensure != "True" {
		fmt.Fprintf(b, "    ensure %s\n", t.Ensure)
	}
	if t.Key != "" {
		fmt.Fprintf(b, "    key %s : %s\n    maintainer %s\n", t.KeyBody, t.Key, t.Maintainers)
	}
	for _, i := range t.Implements {
		fmt.Fprintf(b, "    implements %s\n", i)
	}
	writeChoices(b, t.Choices)
}

func writeInterface(b *strings.Builder, i InterfaceSignature) {
	fmt.Fprintf(b, "  interface %s", i.Name)
	if len(i.Requires) > 0 {
		fmt.Fprintf(b, " requires %s", strings.Join(i.Requires, ", "))
	}
	b.WriteString("\n")
	fmt.Fprintf(b, "    interfaceId %s\n", i.ID)
	if i.View != "" {
		fmt.Fprintf(b, "    viewtype %s\n", i.View)
	}
	for _, meth := range i.Methods {
		fmt.Fprintf(b, "    method %s : %s\n", meth.Name, meth.Type)
	}
	writeChoices(b, i.Choices)
}

func writeFieldLines(b *strings.Builder, fs []FieldSignature, indent string) {
	if len(fs) == 0 {
		b.WriteString("\n")
		return
	}
	b.WriteString(" with\n")
	for _, f := range fs {
		fmt.Fprintf(b, "%s%s: %s\n", indent, f.Name, f.Type)
	}
}

func writeChoices(b *strings.Builder, cs []ChoiceSignature) {
	for _, c := range cs {
		b.WriteString("    ")
		if !c.Consuming {
			b.WriteString("nonconsuming ")
		}
		fmt.Fprintf(b, "choice %s : %s", c.Name, c.Result)
		if c.ArgumentFields != nil {
			writeFieldLines(b, c.ArgumentFields, "        ")
		} else {
			fmt.Fprintf(b, " (argument %s)\n", c.Argument)
		}
		if c.Controllers != "" {
			fmt.Fprintf(b, "      controller %s\n", c.Controllers)
		}
	}
}

// writeDataTypes writes the records, variants and enums:
//
//	data types
//	  record ExpiringAmount with
//	      initialAmount: Numeric 10
//	    id #splice-amulet:Splice.Fees:ExpiringAmount
//	  enum Color = Red | Green
//	    id #my-app:Main:Color
func writeDataTypes(b *strings.Builder, ds []DataTypeSignature, cut bool) {
	if len(ds) == 0 {
		return
	}
	b.WriteString("\ndata types\n")
	for _, d := range ds {
		name := d.Name
		if len(d.Params) > 0 {
			name += " " + strings.Join(d.Params, " ")
		}
		switch d.Kind {
		case "enum":
			fmt.Fprintf(b, "  enum %s = %s\n", name, strings.Join(d.Constructors, " | "))
		case "variant":
			fmt.Fprintf(b, "  variant %s with constructors\n", name)
			for _, f := range d.Fields {
				fmt.Fprintf(b, "      %s %s\n", f.Name, f.Type)
			}
		default:
			fmt.Fprintf(b, "  %s %s", d.Kind, name)
			writeFieldLines(b, d.Fields, "      ")
		}
		fmt.Fprintf(b, "    id %s\n", d.ID)
	}
	if cut {
		fmt.Fprintf(b, "  … (the first %d data types only)\n", MaxInspectDataTypes)
	}
}

// TypedArgument is the argument of one create or exercise node of a
// transaction, read by the Daml-LF types of its package: each field's type
// beside its value (`ledger show --dar`).
type TypedArgument struct {
	NodeID   string       `json:"nodeId"`
	Kind     string       `json:"kind"` // "create" or "exercise"
	Template string       `json:"template"`
	Choice   string       `json:"choice,omitempty"`
	Type     string       `json:"type"`
	Fields   []TypedField `json:"fields"`
	// Problem says why the value does not read by its type ("" when it does).
	Problem string `json:"problem,omitempty"`
}

// TypedField is a field, its Daml type and its value as the JSON API
// writes it.
type TypedField struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Value string `json:"value"`
}

// RenderTypedArguments writes the arguments one node at a time:
//
//	node 0  create Canton.Internal.Ping:Ping
//	    id: Text = "ping-1"
//	    initiator: Party = "alice::1220…"
func RenderTypedArguments(w io.Writer, args []TypedArgument) error {
	var b strings.Builder
	b.WriteString("\nTypes (from --dar)\n")
	if len(args) == 0 {
		b.WriteString("  no node of this transaction uses a template of the given DARs\n")
	}
	for _, a := range args {
		what := a.Template
		if a.Choice != "" {
			what += " choice " + a.Choice
		}
		fmt.Fprintf(&b, "  node %s  %s %s : %s\n", escapeLine(a.NodeID), a.Kind, escapeLine(what), escapeLine(a.Type))
		if a.Problem != "" {
			fmt.Fprintf(&b, "    does not read by its type: %s\n", escapeLine(a.Problem))
			continue
		}
		for _, f := range a.Fields {
			fmt.Fprintf(&b, "    %s: %s = %s\n", escapeLine(f.Name), escapeLine(f.Type), escapeLine(f.Value))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// escapeLine keeps text from a transaction from controlling the terminal:
// control characters are written as Go escapes.
func escapeLine(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 }) {
		return s
	}
	q := fmt.Sprintf("%q", s)
	return q[1 : len(q)-1]
}
