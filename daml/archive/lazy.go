package archive

import (
	"fmt"
	"slices"
	"sync"

	"github.com/ledger-cli/ledger/daml/lf"
)

// lazyValues decodes the bodies of a package's top-level values when they
// are first asked for (Options.LazyValues): a program that runs a few
// values of a large package (the signer re-running one transaction with
// daml-stdlib) decodes only those. Each body is decoded with the rules,
// limits and budget of the eager decoder, from the package's own copy of
// its bytes and tables, one at a time.
type lazyValues struct {
	mu sync.Mutex
	d  *decoder // set once the package has decoded
}

// lazyBody is the body of value name of module, of declared type typ,
// not decoded yet: b.
type lazyBody struct {
	l      *lazyValues
	module lf.ModuleName
	name   lf.DottedName
	typ    lf.Type
	b      []byte
	done   bool
	e      lf.Expr
	err    error
}

// get is the value's LazyBody.
func (lb *lazyBody) get() (lf.Expr, error) {
	lb.l.mu.Lock()
	defer lb.l.mu.Unlock()
	if !lb.done {
		lb.done = true
		d := lb.l.d
		d.module, d.choiceName, d.depth = lb.module, "", 0
		d.startDefinition(lb.name.String())
		if lb.e, lb.err = d.valueBody(lb.typ, lb.b); lb.err != nil {
			lb.e, lb.err = nil, fmt.Errorf("archive: package %s, module %s, value %s: %w", d.pkgID, lb.module, lb.name, lb.err)
		}
		lb.b = nil
	}
	return lb.e, lb.err
}

// keep gives l the tables of d, copied out of the scratch that the next
// package decoded reuses.
func (l *lazyValues) keep(d *decoder) {
	k := *d
	k.sc = nil
	k.strings = slices.Clone(d.strings)
	k.nameOK = slices.Clone(d.nameOK)
	k.vars = slices.Clone(d.vars)
	k.depsByString = slices.Clone(d.depsByString)
	k.depsByImport = slices.Clone(d.depsByImport)
	k.dottedNames = slices.Clone(d.dottedNames)
	k.kinds = slices.Clone(d.kinds)
	k.types = slices.Clone(d.types)
	k.exprs = slices.Clone(d.exprs)
	k.exprCache = make([]lf.Expr, len(d.exprs))
	k.exprGen = make([]uint32, len(d.exprs))
	k.gen = 0
	l.mu.Lock()
	l.d = &k
	l.mu.Unlock()
}

// mayReferTo is what a package decoded with lazy values may refer to from
// the bodies not decoded yet: every interned string that may name a
// package (a package id, allowed there by the package's version) and
// every entry of its import table.
func (d *decoder) mayReferTo() []lf.PackageID {
	var out []lf.PackageID
	for i, s := range d.strings {
		if !d.depsByString[i] && lf.IsHashPackageID(s) && lf.PackageID(s) != d.pkgID &&
			(!d.version.AtLeast(2, 2) || d.version.IsDev() || stablePackages[s]) {
			out = append(out, lf.PackageID(s))
		}
	}
	for _, id := range d.imports {
		if id != d.pkgID {
			out = append(out, id)
		}
	}
	return out
}
