package interp

import (
	"fmt"
	"strings"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/value"
)

// Smart-contract upgrading, as Canton's: a contract created with one
// version of a package may be used through another version of the same
// package name. Its argument is converted to the other version's type
// (importArg, Speedy's importCreateArg and ValueTranslator): a record
// gains None for trailing optional fields it lacks (upgrade) and loses
// trailing fields that are None (downgrade; a field that is set cannot be
// dropped); variant and enum constructors are matched by name. Its
// contract info is then recomputed with the other version and must equal
// what it was (readContract).

// preferredPackage returns the package the submission uses for package
// name name.
func (u *updateState) preferredPackage(name string) (lf.PackageID, bool) {
	if id, ok := u.preferred[name]; ok {
		return id, true
	}
	if u.engine == nil {
		return "", false
	}
	return u.engine.PreferredPackage(name)
}

// contractTemplate returns the template a contract of template src is
// used as when the code does not name one (through an interface): the
// template of the same name in the preferred version of src's package, as
// Speedy's fetchInterface resolves the contract's package name.
func (m *Machine) contractTemplate(src *value.Identifier) *resolve.Template {
	pkg := m.pkgs.Package(lf.PackageID(src.PackageID))
	id := src
	if pkg != nil && m.upd != nil {
		if pref, ok := m.upd.preferredPackage(pkg.Name); ok && string(pref) != src.PackageID {
			id = &value.Identifier{PackageID: string(pref), ModuleName: src.ModuleName, EntityName: src.EntityName}
		}
	} else if pkg == nil {
		m.fail(m.newError(errPackageName, fmt.Sprintf("%sUpdate failed due to a failed package name resolution: package %s of template %s is not loaded",
			interpretationError, src.PackageID, src)))
		return nil
	}
	t, err := m.pkgs.TemplateByID(id)
	if err != nil {
		m.fail(m.newError(errInternal, fmt.Sprintf("template of contract: %v", err)))
		return nil
	}
	return t
}

// importArg converts the argument of a contract of template src (cid ""
// for an interface value) to the type of template t of another package.
func (m *Machine) importArg(cid value.ContractID, src *value.Identifier, t *resolve.Template, arg value.Value) (value.Value, bool) {
	v, err := m.translate(lf.TCon{Con: t.Name}, arg, 0)
	if err == nil {
		return v, true
	}
	what := "a contract"
	if cid != "" {
		what = "contract " + string(cid)
	}
	m.fail(m.newError(errUpgradeTranslation, fmt.Sprintf("%sTranslation of %s to a value of type %s fails.\nReason: Type-checking fails %s\n"+
		"The contract is purportedly an instance of %s\nIts contract argument is:  %s",
		interpretationError, what, prettyID(t.ID), err, prettyID(src), value.Terse(arg))))
	return nil, false
}

// translationError is why a value does not convert, in Canton's words
// (which start with a capital and end with a period).
type translationError string

func (e translationError) Error() string { return string(e) }

func translationErrorf(format string, args ...any) error {
	return translationError(fmt.Sprintf(format, args...))
}

// translate converts v to type t of the target package, by its structure.
func (m *Machine) translate(t lf.Type, v value.Value, depth int) (value.Value, error) {
	if depth > maxNesting {
		return nil, translationErrorf("Value exceeds maximum nesting level of %d", maxNesting)
	}
	t = m.pkgs.Expand(t)
	head, args := lf.SplitApp(t)
	mismatch := func() error { return translationErrorf("mismatching type: %s and value: %s", t, v) }
	switch h := head.(type) {
	case lf.TBuiltin:
		switch h.Builtin {
		case lf.BuiltinOptional:
			o, ok := v.(value.Optional)
			if !ok || len(args) != 1 {
				return nil, mismatch()
			}
			if o.Value == nil {
				return o, nil
			}
			x, err := m.translate(args[0], o.Value, depth+1)
			return value.Some(x), err
		case lf.BuiltinList:
			l, ok := v.(*value.List)
			if !ok || len(args) != 1 {
				return nil, mismatch()
			}
			out := make([]value.Value, 0, l.Len())
			for e := range l.All() {
				x, err := m.translate(args[0], e, depth+1)
				if err != nil {
					return nil, err
				}
				out = append(out, x)
			}
			return value.NewList(out...), nil
		case lf.BuiltinTextMap:
			tm, ok := v.(*value.TextMap)
			if !ok || len(args) != 1 {
				return nil, mismatch()
			}
			es := tm.Entries()
			out := make([]value.TextMapEntry, len(es))
			for i, e := range es {
				x, err := m.translate(args[0], e.Value, depth+1)
				if err != nil {
					return nil, err
				}
				out[i] = value.TextMapEntry{Key: e.Key, Value: x}
			}
			return value.NewTextMap(out)
		case lf.BuiltinGenMap:
			gm, ok := v.(*value.GenMap)
			if !ok || len(args) != 2 {
				return nil, mismatch()
			}
			es := gm.Entries()
			out := make([]value.GenMapEntry, len(es))
			for i, e := range es {
				k, err := m.translate(args[0], e.Key, depth+1)
				if err != nil {
					return nil, err
				}
				x, err := m.translate(args[1], e.Value, depth+1)
				if err != nil {
					return nil, err
				}
				out[i] = value.GenMapEntry{Key: k, Value: x}
			}
			return value.NewGenMap(out)
		}
		// Scalars and contract ids are the same in every version.
		return v, nil
	case lf.TCon:
		return m.translateData(h.Con, args, v, depth)
	}
	return nil, mismatch()
}

// translateData converts a record, variant or enum value to data type con
// applied to args.
func (m *Machine) translateData(con lf.TypeConName, args []lf.Type, v value.Value, depth int) (value.Value, error) {
	dt := m.pkgs.DataType(con)
	if dt == nil {
		return nil, translationErrorf("unknown data type %s", con)
	}
	sub := map[string]lf.Type{}
	for i, p := range dt.Params {
		if i < len(args) {
			sub[p.Name] = args[i]
		}
	}
	id := m.pkgs.Identifier(con)
	mismatch := func() error { return translationErrorf("mismatching type: %s and value: %s", qualified(con), v) }
	switch dt.Kind {
	case lf.DataRecord:
		r, ok := v.(*value.Record)
		if !ok {
			return nil, mismatch()
		}
		fields := make([]value.Field, len(dt.Fields))
		for i, f := range dt.Fields {
			if i >= len(r.Fields) { // upgrade: a field the older version lacks
				if h, _ := lf.SplitApp(m.pkgs.Expand(f.Type)); !isOptional(h) {
					return nil, translationErrorf("Unexpected non-optional extra template field type encountered during upgrading.")
				}
				fields[i] = value.Field{Label: f.Name, Value: value.None}
				continue
			}
			x, err := m.translate(lf.Substitute(f.Type, sub), r.Fields[i].Value, depth+1)
			if err != nil {
				return nil, err
			}
			fields[i] = value.Field{Label: f.Name, Value: x}
		}
		for i := len(dt.Fields); i < len(r.Fields); i++ { // downgrade: drop what the older version lacks
			o, ok := r.Fields[i].Value.(value.Optional)
			switch {
			case !ok:
				return nil, translationErrorf("Found non-optional extra field at index %d, cannot remove for downgrading.", i)
			case o.Value != nil:
				return nil, translationErrorf("Found an optional contract field with a value of Some at index %d, may not be dropped during downgrading.", i)
			}
		}
		return &value.Record{TypeCon: id, Fields: fields}, nil
	case lf.DataVariant:
		x, ok := v.(*value.Variant)
		if !ok {
			return nil, mismatch()
		}
		for rank, f := range dt.Fields {
			if f.Name == x.Constructor {
				arg, err := m.translate(lf.Substitute(f.Type, sub), x.Value, depth+1)
				if err != nil {
					return nil, err
				}
				return &value.Variant{TypeCon: id, Constructor: f.Name, Rank: rank, Value: arg}, nil
			}
		}
		return nil, translationErrorf("unknown variant constructor %s of %s", x.Constructor, qualified(con))
	case lf.DataEnum:
		x, ok := v.(*value.Enum)
		if !ok {
			return nil, mismatch()
		}
		for rank, c := range dt.EnumCons {
			if c == x.Constructor {
				return &value.Enum{TypeCon: id, Constructor: c, Rank: rank}, nil
			}
		}
		return nil, translationErrorf("unknown enum constructor %s of %s", x.Constructor, qualified(con))
	}
	return nil, mismatch()
}

func isOptional(t lf.Type) bool {
	b, ok := t.(lf.TBuiltin)
	return ok && b.Builtin == lf.BuiltinOptional
}

// resolveRef turns a reference by package name ("#name" as package id)
// into the package the submission uses for that name.
func (e *Engine) resolveRef(m *Machine, id *value.Identifier) (*value.Identifier, error) {
	name, byName := strings.CutPrefix(id.PackageID, "#")
	if !byName {
		return id, nil
	}
	pid, ok := m.upd.preferredPackage(name)
	if !ok {
		return nil, m.newError(errPackageNotFound, fmt.Sprintf("Could not find package: no package named %s (in %s)", name, id))
	}
	return &value.Identifier{PackageID: string(pid), ModuleName: id.ModuleName, EntityName: id.EntityName}, nil
}
