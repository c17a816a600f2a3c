// Package interp evaluates Daml-LF: the third room of the pipeline, after
// decoding (package archive) and resolving (package resolve). It runs
// pure expressions and the commands of a submission, and builds the
// transaction they make as Canton's engine builds it (package tx).
//
// # Using it
//
// One Engine serves a set of packages and any number of goroutines:
//
//	pkgs := resolve.NewPackages(dar.Packages...)   // every package the commands may reach
//	eng := interp.NewEngine(pkgs, interp.Limits{})  // default step and depth limits
//	res, err := eng.Submit(ctx, &interp.Submission{
//		Commands:        []interp.Command{&interp.CreateCommand{Template: id, Argument: arg}},
//		ActAs:           []string{"alice::1220…"},
//		SubmissionSeed:  seed,            // 32 random bytes per submission
//		ParticipantID:   "participant1::1220…",
//		PreparationTime: now,             // µs; derives seeds and contract ids
//		LedgerTime:      now,             // what get_time answers
//		Disclosed:       disclosed,       // optional *tx.Contract, read before the ledger
//	}, ledger)                         // interp.Ledger: LookupContract(ctx, id)
//
// Commands are CreateCommand, ExerciseCommand and CreateAndExerciseCommand
// with typed values (value.Record of the template's or choice's argument
// type, built by the typed JSON codec). The Result holds the transaction
// (tx.Transaction: nodes in pre-order, roots, node seeds, lf_version per
// node), the contracts it read (Inputs: from the ledger or disclosed, in
// the order first read), whether it read the ledger time and the
// ledger-time bounds it depends on, and the steps it took. To re-interpret
// a prepared transaction, set RootSeeds to the seeds of its root nodes.
//
// Eval evaluates a top-level value (and applies it to arguments); it is
// what `ledger daml eval` runs.
//
// # Errors
//
// Every failure is an *Error. Its ID and Category are the error id and
// category Canton's Ledger API answers (DAML_AUTHORIZATION_ERROR,
// DAML_FAILURE for unhandled exceptions and failWithStatus,
// INTERPRETATION_USER_ERROR, TEMPLATE_PRECONDITION_VIOLATED,
// CONTRACT_NOT_FOUND, CONTRACT_NOT_ACTIVE, WRONGLY_TYPED_CONTRACT,
// NON_COMPARABLE_VALUES, CONTRACT_ID_COMPARABILITY, VALUE_NESTING,
// MALFORMED_TEXT, INTERPRETATION_TIME_EXCEEDED for the step budget and
// cancellation, …); Cause is Canton's text for it ("Interpretation error:
// Error: …"), and Metadata the error metadata of DAML_FAILURE (error_id).
// Template, Choice, Action, Location and Backtrace say where it happened;
// Error() prints all of it. A server answers ID, Category and Cause as
// Canton's error body; the rest is for logs and developers.
//
// # The machine
//
// The evaluator is a CEK machine in the manner of Canton's Speedy: the
// control is an expression of the resolved tree (package resolve) or a
// value; the environment is a frame of slots per function invocation plus
// the closure's captured variables; the continuations are a stack in the
// heap. Function application never grows the Go stack, so Daml code that
// recurses over long lists runs in bounded Go stack; its depth is the
// height of the continuation stack, which Limits.Depth bounds (tail calls
// take none). Each expression evaluated and each continuation run is a
// step, bounded by Limits.Steps; the context is checked every 1024 steps.
// Go panics (which only a bug of this package or an ill-typed package can
// cause) are recovered at the machine's boundary and returned as internal
// errors.
//
// Updates are functions of a token, as in Speedy: running an update
// applies it to the token. Create, exercise and fetch are operations of the
// machine that evaluate the template's ensure, signatories, observers,
// controllers and choice observers as continuations, check authorization
// as Canton's DefaultAuthorizationChecker does, and record nodes.
//
// Not yet supported (issue 16): interfaces, try/catch and rollback nodes,
// contract keys, package upgrades (a contract of another package version),
// the secp256k1 builtins, and the 2.dev-only features; they fail with
// DAML_INTERPRETATION_ERROR naming the feature when reached.
package interp
