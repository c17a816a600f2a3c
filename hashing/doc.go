// Package hashing computes the hash an external party signs for a Canton
// prepared transaction, under hashing schemes V2 (Canton 3.3+) and V3
// (Canton 3.5.1+), byte for byte as the executing participant does.
//
// The input is the binary protobuf com.daml.ledger.api.v2.interactive.PreparedTransaction
// (the base64-decoded `preparedTransaction` of the JSON API). The encoder reads
// the protobuf wire format directly instead of building Go structs, so hashing
// costs little more than SHA-256 over the preimages and needs no memory
// proportional to the number of values.
//
// The hash is
//
//	SHA-256(00000030 ‖ VV ‖ H_tx ‖ H_meta)        VV = 02 (V2) or 03 (V3)
//
// where 00000030 is the hash purpose PreparedSubmission (48) and
//
//	H_tx   = SHA-256(00000030 ‖ string(version) ‖ int32(#roots) ‖ H(root)…)
//	H_meta = SHA-256(00000030 ‖ [01 in V2] ‖ act_as ‖ command_id ‖ transaction_uuid
//	                 ‖ mediator_group ‖ synchronizer_id ‖ ?min_let ‖ ?max_let
//	                 ‖ preparation_time ‖ input contracts ‖ [?max_record_time in V3])
//
// A node hash H(node) is SHA-256 of the node's encoding, with no purpose
// prefix; the encodings of create (tag 00), exercise (01), fetch (02),
// rollback (03) and, in V3 only, query-by-key (04) nodes follow the field
// orders of docs/hashing.md §4.4, which differ from the protobuf field orders.
// Integers are big-endian, strings are int32 length ‖ UTF-8 bytes, lists are
// int32 count ‖ elements, optionals are 00 or 01 ‖ value.
//
// V3 differs from V2 in that nodes and metadata lose their leading 01
// encoding-version byte, create, fetch and exercise nodes carry contract-key
// data, query-by-key nodes exist, and max_record_time is signed.
//
// The encoder is strict: it refuses what the executing participant would
// hash differently or reject — an unset Value, non-canonical numerics, contract
// ids that are not lower-case even-length hex, unsorted or duplicated party
// sets, text-map keys out of order, missing node seeds, dangling or orphaned
// node ids, node lf_versions the scheme cannot hash, fields that appear twice.
// Every error names the node and the field path where it was found.
//
// With Options.Trace the encoder records every hashed field with its bytes in
// the `'hex' # comment` format Canton uses for hashingDetails, so two
// encodings can be compared line by line (see FirstDifference).
//
// A transaction of 256 KiB or more whose nodes form a proper tree is hashed
// on up to GOMAXPROCS goroutines (at most 8): disjoint subtrees and the
// metadata are hashed at the same time, then the nodes above them in the
// calling goroutine. The result, the errors and the warnings are those of
// the one-goroutine hasher; asking for a trace or for node hashes, or
// GOMAXPROCS=1, keeps everything in the calling goroutine.
package hashing
