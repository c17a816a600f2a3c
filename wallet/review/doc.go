// Package review is the model of what a person is shown before signing a
// prepared transaction: plain data that -o json prints as it is, and that
// display renders for a terminal.
//
// Summarize builds it from a decoded PreparedTransaction and the hash the
// caller recomputed: the nodes as a tree with decoded Daml values, the net
// effects (contracts created and archived, steps rolled back), the
// deadlines and what the scheme signs of them, the warnings a reviewer must
// read, the parties, and a summary sentence. Names gives every id a short
// form unique within one review; Escape makes any string from the
// transaction safe for a terminal.
//
// The package depends on the prepared-transaction schema and the wire types
// only: it neither hashes nor signs (the wallet does both).
package review
