// Package script runs Daml Script: the Script values of a DAR, written
// against the daml-script package (3.x), against a ledger.
//
// A Script is data. daml-script's Script is a record whose runScript field,
// applied to (), gives a free monad over ScriptF (Daml.Script.Internal.Free,
// .LowLevel): either Pure (result, ()) or Free of a Question record holding
// the command's name and version, its payload (a record of the command's
// Daml type, e.g. Daml.Script.Internal.Questions.Submit:Submit), the
// script's call stack and the continuation, a function from the command's
// answer to the rest of the script. The Runner evaluates with package interp
// to the next command, performs it against a Ledger, builds the answer as the
// Daml value the script expects (Either, tuples, AnyTemplate, SubmitError,
// TransactionTree, …) and applies the continuation to it, until Pure.
//
// daml-script casts between its Question type and the real request and
// answer types with dangerousCast, which Daml's runner replaces by the
// identity function; Runner does the same to the loaded package.
//
// The commands performed are those of daml-script 3.x (Daml's runner:
// daml-script/runner, v2/ScriptF.scala): Submit (submit, submitMulti,
// submitMustFail, trySubmit, disclosures), QueryACS, QueryContractId,
// QueryInterface, QueryInterfaceContractId, QueryContractKey,
// AllocateParty, ListKnownParties, GetTime, SetTime, Sleep, Catch, Throw,
// TryCommands, the user-management commands and, on a ledger that lets
// scripts change vetting (MemoryLedger), the package commands
// (ListAllPackages, ListVettedPackages, VetPackages, UnvetPackages, VetDar,
// UnvetDar). Any other is an error naming it and the daml-script version.
//
// Ledgers: MemoryLedger is the ledger of scripts under test, as Daml's IDE
// ledger is for daml test — one participant in memory, static time from the
// epoch, submissions interpreted by daml/engine (engine.Submit) with the
// rollback rule of Daml's IDE ledger for the DAR's daml-script version
// (Runner.StateMode): before 3.5 a caught exception undoes its try block
// (Canton 3.4's rule), from 3.5 on an effectful rollback is refused
// (Canton 3.5's, the IDE ledger's default protocol version 35);
// client/scriptledger is the ledger of a node over the JSON Ledger API.
//
// Package names, as in Daml's runner (IdeLedgerClient): a command made
// with createCmd, exerciseCmd, … (explicitPackageId = False) names its
// template by package name; the in-memory ledger runs it with its
// preferred package of that name (the package preference's, else the
// highest vetted version), converting its arguments by upgrade, and the
// script sees the command's results as the version it names (asWritten).
// queryContractId converts a contract of another version likewise; query,
// as the IDE ledger's, matches the exact template id.
//
// Every script is bounded: each evaluation between two commands by the
// interpreter's step, depth and memory limits; all of them together by
// Options.MaxSteps; the number of commands by Options.MaxCommands; the
// nesting of try blocks by maxCatchDepth; the trace by maxTraceLines; a
// MemoryLedger's contracts and the bytes its submissions build by
// MaxMemoryContracts and MaxMemoryBytes. Cancelling the context stops it.
package script
