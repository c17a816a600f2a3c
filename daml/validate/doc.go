// Package validate checks that a decoded Daml-LF 2.x package is well formed
// and well typed, as Canton's package validation (daml-lf/validation
// Validation.checkPackage) does before a participant accepts an upload.
//
// Package runs, in Canton's order:
//
//  0. Collisions: no two modules, data types, fields, constructors,
//     synonyms, interfaces or choices have the same fully resolved name
//     upper-cased (ECollision), but for a variant constructor and the
//     record named after it.
//  1. Recursion: no cycle among the package's modules (EImportCycle; a
//     module referring to a definition of another module of the same
//     package depends on it — found from what typing looks up, so reported
//     after typing) and no cycle among type synonyms (ETypeSynCycle, found
//     when a synonym's definition is checked).
//  2. Dependency versions: no direct dependency uses a newer Daml-LF
//     version than the package (EModuleVersionDependencies).
//  3. Typing, module by module: kinds of every type; data types (unique
//     parameters, fields and constructors; enums and interfaces without
//     parameters); synonyms (kind *); values (the body has the declared
//     type); templates (the argument is a record without parameters, the
//     precondition is Bool, signatories, observers, choice controllers and
//     observers are [Party], a choice body has type Update of its return
//     type, the key's body and maintainers); interface instances (the
//     required instances exist, every method is implemented with its type
//     and no other, the view has the interface's view type); interfaces
//     (requirements closed and not circular, view a record without
//     parameters); exceptions (message : T -> Text). Expressions are typed
//     by the rules of Canton's Typing.scala: types are compared up to
//     renaming of bound variables, first as written and then with every
//     synonym expanded; a case must be exhaustive.
//  4. Serializability of template arguments, choice arguments and results,
//     keys, exception payloads, interface views and every data type marked
//     serializable (EExpectedSerializableType, with Canton's reasons).
//
// Errors are *Error, whose message has Canton's shape ("validation error in
// choice Respond in template pkg:Mod:Ping: type mismatch: ...") and whose
// Kind names Canton's error class (ETypeMismatch, ETypeSynCycle, ...).
//
// The checker is bounded: every type-level and expression-level step
// counts against Options.MaxSteps and every type node built by substitution
// or expansion against Options.MaxTypeNodes (a hostile package whose
// synonyms or shared types expand exponentially is refused with EBudget,
// not run to exhaustion), synonym expansion is bounded in depth, and a
// context cancels the check (ECancelled). Each synonym definition is
// kind-checked and expanded once per Checker, then reused at every
// application.
//
// The upgrade checks are package upgrade's.
package validate
