// Package wallet holds the custodian's use cases: what happens to a prepared
// transaction between the node that prepared it and the signature that
// lets it execute, and the onboarding of the external party that signs.
//
//   - The Envelope: the one JSON file that carries a prepared transaction
//     from the online machine to the offline signer and back (envelope.go).
//   - Verify: recompute the hash under the scheme the file names and compare
//     it with the node's, explaining a mismatch (check.go).
//   - Review: decode the transaction and build the review model a person
//     reads before signing (ReviewEnvelope; the model is package review).
//   - Packages and re-interpretation: the Daml packages a transaction
//     names travel in the envelope or come from DARs (LoadPackages, each
//     checked against its id); Reinterpret re-runs the transaction's Daml
//     code offline on daml/engine — input contracts authenticated from
//     their blobs, root commands re-run, the result compared node by node
//     and hashed — so that what is signed is what the code makes
//     (packages.go, reinterpret.go).
//   - The Policy: what a signer will sign at all (policy.go).
//   - Sign: the signing decision — hash, deadline, policy, party, key — and
//     the signature added to the envelope (sign.go).
//   - Onboard: allocate an external party whose key never leaves the
//     custodian, after checking every topology transaction (onboard.go).
//   - NewEnvelope: the envelope of a node's prepare response (prepare.go).
//
// show, verify and sign run one pipeline (pipeline.go): read, recompute,
// review, re-interpret, check, sign. Open stops after the re-interpretation,
// Verify after the recomputation (and the re-interpretation, when the
// hashes match and packages are at hand), Sign runs it all in one call,
// with the question and the passphrase as callbacks.
//
// Nothing here prints or reads a terminal, and no error names a command-line
// flag: the commands in cmd/ add that, and display/ renders the models.
package wallet
