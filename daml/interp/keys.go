package interp

import "github.com/ledger-cli/ledger/daml/tx"

// keyState is what the transaction knows of contract keys.
type keyState struct{}

func (k *keyState) undoLocal(tx.Hash) {}
