package resolve

import "github.com/ledger-cli/ledger/daml/lf"

// DataType returns the data type n names, or nil.
func (pkgs *Packages) DataType(n lf.TypeConName) *lf.DataType {
	_, m, err := pkgs.module(n.Package, n.Module.String())
	if err != nil {
		return nil
	}
	return m.DataType(n.Name.String())
}

// Expand replaces type synonyms at the head of t by their definitions.
func (pkgs *Packages) Expand(t lf.Type) lf.Type {
	for i := 0; i < 100; i++ {
		s, ok := t.(lf.TSyn)
		if !ok {
			return t
		}
		pkg := pkgs.Package(s.Syn.Package)
		if pkg == nil {
			return t
		}
		m := pkg.Module(s.Syn.Module.String())
		if m == nil {
			return t
		}
		def := m.Synonym(s.Syn.Name.String())
		if def == nil || len(def.Params) != len(s.Args) {
			return t
		}
		sub := map[string]lf.Type{}
		for i, p := range def.Params {
			sub[p.Name] = s.Args[i]
		}
		t = lf.Substitute(def.Type, sub)
	}
	return t
}
