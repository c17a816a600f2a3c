// Package tx is the transaction structure the Daml-LF interpreter builds,
// as Canton's engine builds it: nodes numbered in pre-order (create,
// exercise, fetch and rollback nodes; an exercise's children nested under
// it), the node seeds and the V1 local contract ids of created contracts.
//
// Seeds and contract ids are derived as Canton derives them
// (contract-id.rst and Canton's crypto.Hash), all HMAC-SHA256:
//
//	transaction seed   = HMAC(submission seed, participant id ‖ preparation time)
//	root i's seed      = HMAC(transaction seed, i)
//	child i's seed     = HMAC(exercise node's seed, i)
//	discriminator      = HMAC(create node's seed, preparation time ‖ stakeholders)
//	contract id (V1)   = 0x00 ‖ discriminator
//
// where strings are length-prefixed UTF-8, i is a 4-byte big-endian int
// counting the action children (creates, exercises and fetches) of the
// parent, times are µs as 8-byte big-endian longs, and stakeholders are a
// sorted set (size, then each party). Only create and exercise nodes carry
// a seed.
//
// Values in nodes are as the interpreter computed them: records carry their
// type constructor and field labels, and trailing None fields are kept.
// Canton's engine stores normalized values (no type constructors or labels,
// trailing None fields dropped) and its interactive submission service puts
// them back ("enriches") before encoding a PreparedTransaction; whoever
// writes nodes to protobuf chooses the form it needs.
package tx
