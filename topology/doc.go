// Package topology encodes, decodes, hashes and checks the Canton topology
// transactions that onboard an external party, byte for byte as a Canton
// participant does (v30 schema, protocol versions 33–35). Both sides use it:
// `ledger serve` answers generate-topology with GenerateExternalParty and
// checks allocate requests with VerifyAllocation; the client runs
// CheckExternalPartyOnboarding and VerifyMultiHash on what a node returns
// before it signs.
//
// # Serialized transaction
//
// What the JSON API carries (standard base64) in topologyTransactions and
// onboardingTransactions[].transaction, and what is hashed, is an
// UntypedVersionedMessage {1: data bytes, 2: version int32 = 30}, written
// data first, whose data is a TopologyTransaction
// {1: operation enum (1 ADD_REPLACE, 2 REMOVE), 2: serial uint32, 3: mapping}.
// TopologyMapping is a oneof; onboarding uses 1 namespace_delegation,
// 9 party_to_participant and (before Canton 3.4.9) 16 party_to_key_mapping.
// Field by field, with the Canton sources they come from: docs/topology.md.
//
// A party's key is a SigningPublicKey {2: format = 4 (DER X.509
// SubjectPublicKeyInfo), 3: the SPKI bytes, 5: usage = packed [1 NAMESPACE,
// 5 PROOF_OF_OWNERSHIP, 4 PROTOCOL], 6: key_spec = 1 (EC_CURVE25519)}.
//
// # Hashes
//
//	Fingerprint(k)       = "1220" ‖ hex(SHA-256(00 00 00 0C ‖ raw Ed25519 key))
//	TransactionHash(tx)  = 12 20 ‖ SHA-256(00 00 00 0B ‖ serialized tx)
//	MultiHash(h₁…hₙ)     = 12 20 ‖ SHA-256(00 00 00 37 ‖ int32(n) ‖ (int32(34) ‖ hᵢ)…)
//
// with integers big-endian, 0B/0C/37 the hash purposes 11, 12 and 55, and the
// hᵢ deduplicated and sorted by their hex. A signature authorizes a
// transaction when it is an Ed25519 signature over the 34 bytes of its
// TransactionHash, or over the 34 bytes of a MultiHash that covers it — the
// 12 20 header is signed too (unlike a prepared transaction's hash).
//
// The party id is hint "::" Fingerprint(key): the key is also the party's
// namespace key.
package topology
