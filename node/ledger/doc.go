// Package ledger is the participant's vocabulary: the records a node keeps
// and the rules that belong to the records themselves. The command engine
// (node/engine) makes them, the store (node/sqlite) persists them, and the
// ledger service (node) moves them between the two; all three speak of the
// same Contract, Entry, Completion, ChangeID, Dedup, User, Right, Party and
// Identity, defined here once.
//
// The package depends on the standard library only, so every other package
// of the node may import it without a cycle. It knows neither SQL nor HTTP
// nor the JSON wire types (those are ledgerapi's): opaque payloads, such as
// a transaction's events or a contract's create argument, are byte slices
// whose encoding the engine chooses.
//
// The ledger is an append-only log of entries at gap-free offsets 1, 2, 3, …
// (the ledger end is 0 while it is empty). Every entry is one command
// outcome (an accepted transaction together with its completion, or a
// rejected completion alone) or a topology change (a party allocated).
//
// Errors a Store returns are the sentinel values below, to test with
// errors.Is; DuplicateCommandError and ContractNotActiveError carry details
// for errors.As.
package ledger
