package display

import (
	"fmt"
	"io"
	"strings"

	"github.com/ledger-cli/ledger/daml/lf"
)

// PackageSignature is what `ledger dars inspect` shows of a Daml-LF
// package: its templates (fields, key, interfaces, choices with argument
// and result types) and interfaces, module by module, types written as
// Daml writes them. It is also the -o json form.
type PackageSignature struct {
	PackageID       string            `json:"packageId"`
	Name            string            `json:"name"`
	Version         string            `json:"version"`
	LanguageVersion string            `json:"languageVersion"`
	Main            bool              `json:"main"`
	Dependencies    int               `json:"dependencies"`
	Modules         []ModuleSignature `json:"modules"`
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

// TemplateSignature is a template.
type TemplateSignature struct {
	Name       string            `json:"name"`
	Fields     []FieldSignature  `json:"fields"`
	Key        string            `json:"key,omitempty"`
	Implements []string          `json:"implements"`
	Choices    []ChoiceSignature `json:"choices"`
}

// ChoiceSignature is a choice: its argument type (and, when that is the
// record Daml makes of the choice's "with" fields, those fields) and its
// result type.
type ChoiceSignature struct {
	Name           string           `json:"name"`
	Consuming      bool             `json:"consuming"`
	Argument       string           `json:"argument"`
	ArgumentFields []FieldSignature `json:"argumentFields,omitempty"`
	Result         string           `json:"result"`
}

// InterfaceSignature is an interface.
type InterfaceSignature struct {
	Name     string            `json:"name"`
	View     string            `json:"view"`
	Requires []string          `json:"requires"`
	Methods  []FieldSignature  `json:"methods"`
	Choices  []ChoiceSignature `json:"choices"`
}

func fieldSignatures(fs []lf.Field) []FieldSignature {
	out := make([]FieldSignature, len(fs))
	for i, f := range fs {
		out[i] = FieldSignature{Name: f.Name, Type: f.Type.String()}
	}
	return out
}

// NewPackageSignature builds the signature of p; main marks the main
// package of a DAR.
func NewPackageSignature(p *lf.Package, main bool) PackageSignature {
	s := PackageSignature{PackageID: string(p.ID), Name: p.Name, Version: p.Version,
		LanguageVersion: p.LanguageVersion.String(), Main: main, Dependencies: len(p.DirectDeps), Modules: []ModuleSignature{}}
	for _, m := range p.Modules {
		ms := ModuleSignature{Name: m.Name.String(), Templates: []TemplateSignature{}, Interfaces: []InterfaceSignature{}}
		for _, t := range m.Templates {
			sig, ok := p.Template(m.Name.String(), t.Name.String())
			if !ok {
				continue
			}
			ts := TemplateSignature{Name: t.Name.String(), Fields: fieldSignatures(sig.Fields), Implements: []string{}, Choices: []ChoiceSignature{}}
			if sig.Key != nil {
				ts.Key = sig.Key.String()
			}
			for _, i := range sig.Implements {
				ts.Implements = append(ts.Implements, qualified(p, i))
			}
			for _, c := range sig.Choices {
				ts.Choices = append(ts.Choices, choiceSignature(p, c))
			}
			ms.Templates = append(ms.Templates, ts)
		}
		for _, is := range p.Interfaces() {
			if !is.Name.Module.Equal(m.Name) {
				continue
			}
			i := InterfaceSignature{Name: is.Name.Name.String(), Requires: []string{}, Methods: []FieldSignature{}, Choices: []ChoiceSignature{}}
			if is.View != nil {
				i.View = is.View.String()
			}
			for _, r := range is.Requires {
				i.Requires = append(i.Requires, qualified(p, r))
			}
			for _, meth := range is.Methods {
				i.Methods = append(i.Methods, FieldSignature{Name: meth.Name, Type: meth.Type.String()})
			}
			for _, c := range is.Choices {
				i.Choices = append(i.Choices, choiceSignature(p, c))
			}
			ms.Interfaces = append(ms.Interfaces, i)
		}
		if len(ms.Templates) > 0 || len(ms.Interfaces) > 0 {
			s.Modules = append(s.Modules, ms)
		}
	}
	return s
}

// qualified names a definition by its module when it is in p, else by its
// package too.
func qualified(p *lf.Package, n lf.TypeConName) string {
	if n.Package == p.ID {
		return n.Module.String() + ":" + n.Name.String()
	}
	return n.String()
}

// choiceSignature expands a choice's argument record when Daml made it of
// the choice's "with" fields: a record of this package named after the
// choice.
func choiceSignature(p *lf.Package, c lf.ChoiceSignature) ChoiceSignature {
	cs := ChoiceSignature{Name: c.Name, Consuming: c.Consuming, Argument: c.ArgType.String(), Result: c.ReturnType.String()}
	if con, ok := c.ArgType.(lf.TCon); ok && con.Con.Package == p.ID && con.Con.Name.String() == c.Name {
		if m := p.Module(con.Con.Module.String()); m != nil {
			if d := m.DataType(c.Name); d != nil && d.Kind == lf.DataRecord {
				cs.ArgumentFields = fieldSignatures(d.Fields)
			}
		}
	}
	return cs
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
//	    choice Respond : ()
//	    choice AbortPing : () with
//	        anyone: Party
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
			fmt.Fprintf(&b, "  template %s", t.Name)
			writeFieldLines(&b, t.Fields, "      ")
			if t.Key != "" {
				fmt.Fprintf(&b, "    key %s\n", t.Key)
			}
			for _, i := range t.Implements {
				fmt.Fprintf(&b, "    implements %s\n", i)
			}
			writeChoices(&b, t.Choices)
		}
		for _, i := range m.Interfaces {
			fmt.Fprintf(&b, "  interface %s", i.Name)
			if len(i.Requires) > 0 {
				fmt.Fprintf(&b, " requires %s", strings.Join(i.Requires, ", "))
			}
			b.WriteString("\n")
			if i.View != "" {
				fmt.Fprintf(&b, "    viewtype %s\n", i.View)
			}
			for _, meth := range i.Methods {
				fmt.Fprintf(&b, "    method %s : %s\n", meth.Name, meth.Type)
			}
			writeChoices(&b, i.Choices)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
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
