// Package resolve is the second room of the Daml-LF pipeline, between
// decoding (package archive) and evaluation (package interp): it binds
// names once, ahead of time, so the machine never looks anything up by name.
//
// Resolving a definition turns its lf expression into an Expr tree where
//
//   - every variable is a slot of the current frame (Local: parameters
//     first, then let- and case-bound variables, a slot reused by variables
//     of disjoint scopes) or a variable the closure captured when it was
//     made (Free): closure conversion is done here, each MakeClosure lists
//     what it captures;
//   - types are erased: type abstractions and applications disappear, as in
//     Speedy (Daml-LF 2 passes numeric scales as witness values, so no type
//     is needed at run time except those of to_any, from_any, type_rep and
//     throw, which the operations keep);
//   - record fields and constructors are numbers: a record is built with
//     its fields in the data type's order, a projection reads field i, a
//     case alternative matches a constructor's rank;
//   - builtins applied to all their arguments become Calls of an Op, as do
//     constructors, projections and the other primitive operations;
//     applications are flattened (f a b c is one App) and nested lambdas
//     merged, so partial and over-application are handled by the machine
//     in one place;
//   - updates become functions of the update token, as in Speedy: 'pure v'
//     is the operation Pure partially applied to v, a block is a closure
//     that runs each update on the token in turn, 'create @T arg' is Create
//     applied to arg, and so on; running an update applies it to the token;
//   - references to top-level values are TopRefs to a TopDef shared by all
//     users, resolved on first evaluation and whose value is computed once
//     and cached (top-level values are pure);
//   - templates and choices become lambdas of the contract argument (ensure,
//     signatories, observers), of the contract and choice argument
//     (controllers, choice observers) and of the contract, its id, the
//     choice argument and the token (the choice body).
//
// Packages holds a set of decoded packages and resolves definitions on
// first use, so loading a DAR costs nothing until its code runs; it is safe
// for concurrent use. Expressions this interpreter does not evaluate yet
// (interfaces, try/catch, contract keys) resolve to Unsupported, which fails
// only when evaluated.
package resolve
