package interp

import (
	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// keyState is what the transaction knows of contract keys.
type keyState struct{}

func (k *keyState) undoLocal(tx.Hash) {}

func (m *Machine) keyUpdate(op resolve.Op, args []value.Value) {
	m.fail(m.newError(errUnsupported, "Interpretation error: contract keys are not supported by this interpreter yet"))
}
