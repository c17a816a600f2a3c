package interp

import (
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/value"
)

// Translate converts v, a value of a type of one version of a package, to
// type t of another version of it, as smart-contract upgrading converts a
// contract's argument (importArg): a record gains None for trailing
// optional fields it lacks and loses trailing fields that are None;
// variant and enum constructors are matched by name. A value that does not
// convert is an error saying why, in Canton's words.
func (e *Engine) Translate(t lf.Type, v value.Value) (value.Value, error) {
	m := &Machine{pkgs: e.pkgs}
	return m.translate(t, v, 0)
}
