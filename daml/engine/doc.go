// Package engine is the Daml engine as a library, between the interpreter
// (daml/interp) and whoever holds the ledger — a participant node, an
// offline signer. It is Daml's daml-lf/engine: Engine.scala's submit and
// reinterpret, with no participant behind it.
//
//   - A PackageSet is the packages at hand, by id and by name, with the
//     vetting that resolves a package name to a package.
//   - Submit runs commands (typed by their packages) against a contract
//     source and returns the transaction (daml/tx), the contracts it read,
//     its node seeds and its ledger-time bounds.
//   - EncodeTransaction writes a transaction as Canton's interactive
//     submission does (damlpb.DamlTransaction): pre-order node ids, values
//     with their type ids and labels, sorted party sets, seeds, rollbacks.
//   - Reinterpret reads the commands back from the root nodes of a
//     prepared transaction, runs them, and names the first difference
//     (node, field path, both sides) from the prepared one.
//   - InputContracts authenticates a prepared transaction's input
//     contracts from their event blobs alone, offline.
//
// It imports nothing of the node, the server, the commands or the wallet,
// no net/http and no database/sql (TestImportBoundary).
package engine
