// Package contract makes and checks contracts as Canton 3.4/3.5 does:
// their V1 contract ids, their event blobs, and the authentication of a
// contract against its id.
//
// # Contract ids
//
// A V1 contract id is 0x00 ‖ discriminator (32 bytes) ‖ suffix. While a
// transaction is built or prepared its creates have local ids, with no
// suffix (66 hex characters; package tx derives the discriminator). At
// commit each create gets Canton's suffix
//
//	"ca1X" ‖ 0x12 0x20 ‖ unicum (32 bytes)          (138 hex characters)
//
// where X is the id's Version: 0 (Legacy hash), 1 (UpgradeFriendly) or 2
// (TypedNormalForm; Canton 3.4 and 3.5 make these). ParseID takes an id
// apart; Suffixer gives a transaction's creates their suffixes in order and
// rewrites the local ids in later arguments.
//
// # Unicum and salt
//
//	unicum = SHA-256(int32(29) ‖ salt ‖ int64(epoch s) ‖ int32(ns) of createdAt
//	                 ‖ L(parties(sorted signatories)) ‖ L(parties(sorted stakeholders − signatories))
//	                 ‖ (0x00 | 0x01 ‖ key hash) ‖ L(0x00 | 0x01 ‖ parties(sorted maintainers))
//	                 ‖ contract hash)
//
// with parties(ps) = int32(n) ‖ (int32(len) ‖ UTF-8)*, L(b) = int32(len(b)) ‖ b
// (UnicumGenerator). The salt (ContractSaltV1) is an HMAC-SHA256, keyed with
// the creating view's participant-data salt, of the create's index in the
// view, the view's position, the transaction UUID, the synchronizer id and
// "MGR::<mediator group>"; the view salts come from a random 16-byte seed,
// HMAC(seed, int32(k)) (DeriveSalt). The salt travels in the contract's
// authentication data (AuthenticationDataV1, 42 bytes).
//
// # Contract hashes
//
// HashUntyped (Legacy, UpgradeFriendly) hashes a contract as stored:
// SHA-256(version ‖ 0x05 ‖ str(package name) ‖ str(package id) ‖
// dotted(module) ‖ dotted(entity) ‖ value), version 0x00 or 0x01. Values:
// unit 0x00, bool one byte, Int64 and Timestamp (µs) eight bytes, Date four,
// Numeric the length-prefixed two's-complement bytes of its unscaled
// integer (scale not hashed), Text and Party length-prefixed UTF-8, a
// contract id its length-prefixed bytes, lists and maps an int32 count
// then their items (map keys then values), variants the constructor name
// then the value, enums the constructor name. Legacy writes Optional as
// int32 0 or int32 1 ‖ value and a record as int32 count ‖ fields.
// UpgradeFriendly writes Optional as a byte 0 or 1 ‖ value, and a record as
// (int32 index ‖ value)* ‖ 0xFF over its non-default fields (0, 0.0, "",
// False, (), epoch, None, [], empty maps are left out; a Some field writes
// its content untagged; a non-empty map field is written without its
// index, as Canton does).
//
// HashTyped (TypedNormalForm) hashes a typed value: SHA-256(0x03 ‖ 0x05 ‖
// str(package name) ‖ dotted(module) ‖ dotted(entity) ‖ typed value), the
// typed value a tag byte (Int64 0 … ContractId 15) then content; records
// name their type (qualified, no package) and write label ‖ value per
// field, trailing None fields left out, then 0xFF; variants and enums write
// their constructor and its rank. Translate gives a stored argument its
// types in a target package, with Daml's upgrade rules.
//
// # Event blobs
//
// EncodeBlob and DecodeBlob are Canton's FatContractInstance codec
// (TransactionCoder): Versioned{1 version, 2 payload}, the payload 1
// contract id, 2 package name, 3 template id, 4 argument (value.proto
// Value, no labels), 5 non-maintainer signatories, 6 non-signatory
// stakeholders (both strictly sorted), 7 created_at (sfixed64 µs), 8
// authentication data, 1001 key. Encoding is byte-exact with Canton's;
// decoding refuses unknown fields and every malformed part, with work and
// memory linear in the blob and values nested at most 100 levels.
//
// # Authentication
//
// Authenticate checks a contract against its id (ContractValidator): the
// suffix's version picks the hash, the salt comes from the authentication
// data, the creation time must be real, and the recomputed unicum must be
// the id's. docs/contract-ids.md says how a one-participant node maps
// Canton's views and mediator groups.
package contract
