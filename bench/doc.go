// Package bench is the load engine of `ledger bench`: it drives a JSON
// Ledger API node (ledger serve or a Canton participant) with a scenario of
// operations from many concurrent workers and measures what the node does.
//
// A run has three phases. Setup allocates what the scenario needs (parties,
// external parties with their keys, user rights, seeded completions) and is
// not measured. Warm-up runs the scenario for a while without recording.
// The measured phase runs until a duration has passed or a number of
// operations has been issued, optionally capped at a rate across all
// workers; operations in flight when it ends are awaited and counted.
//
// Each operation's latency is recorded, in microseconds, in an HDR
// histogram (3 significant digits, 1 µs to 10 min); failures are counted by
// the Canton error id the node answered with, else by HTTP status or as a
// transport error. Throughput counts successful operations per second of the
// measured phase. Latencies are service times: with a rate limit an
// operation's clock starts when the limiter lets it go, so queueing in the
// limiter is not counted (no coordinated-omission correction).
//
// Scenarios and the rights their setup and operations need:
//
//   - prepare: POST /v2/interactive-submission/prepare of one create command
//     per operation, acting as a local party. Operations need read rights on
//     the party (Canton); setup allocates parties (participant admin) unless
//     they are given.
//   - submit: POST /v2/commands/submit-and-wait-for-transaction-tree of one
//     create per operation. Operations need act rights on the party; setup
//     allocates parties and grants the user CanActAs (participant admin).
//   - execute: per operation prepare, recompute the hash locally (the node's
//     hash is never signed unchecked), sign it, and POST
//     /v2/interactive-submission/executeAndWait, acting as external parties
//     whose ed25519 keys setup generates and onboards (generate-topology,
//     check, sign the multi-hash, allocate; participant admin) before it
//     grants the user CanActAs on them.
//   - completions: page through the completions of one party from offset 0
//     with POST /v2/commands/completions, one page per operation, counting
//     completions per second. Needs read rights on the party; setup first
//     submits Config.Seed creates (act rights), DefaultSeed when the party
//     has none to read, at SeedConcurrency or more, and checks once that a
//     page of PageSize is within the node's list maximum.
//   - mixed: a weighted mix of the above, each kind measured separately too.
package bench
