// Package lf is the abstract syntax of Daml-LF 2.x (2.1, 2.2, 2.3 and 2.dev)
// as plain Go values. It depends on nothing but the standard library; the
// archive package decodes DARs and dalfs into it, and the interpreter and the
// typed JSON codec read it.
//
// The tree is the decoded package, with every interning resolved: no string,
// dotted-name, type, kind or expression index is left, and references to the
// package itself carry the package's real id. What the tree holds:
//
//   - A Package has an id (the lower-case hex SHA-256 of its archive
//     payload), a LanguageVersion, a name and version from its metadata, the
//     package-import table (LF 2.2+), the set of packages it refers to, and
//     its modules in archive order.
//   - A Module holds type synonyms, data types (records, variants, enums and
//     the marker of an interface), values, templates, exceptions and
//     interfaces, each in archive order and each found by name with the
//     Module's lookup methods.
//   - Types are canonical, as the LF specification writes them: a type
//     application is binary (TApp), a forall binds one variable (TForall);
//     SplitApp and SplitForall undo that for printing and matching. Builtin
//     types (BuiltinType) include the dev-only BigNumeric and RoundingMode.
//   - Expressions (Expr) are one Go type per kind, named E… and used by
//     pointer; updates (Update) likewise, named U…; case patterns (Pattern)
//     are values named P….
//     Multi-argument applications and abstractions keep the arity the archive
//     gave them (LF 2.1 lists several arguments, LF 2.2+ one at a time).
//     Source locations are ELocation nodes around the expression they locate.
//     The tree is immutable once decoded and shares sub-trees (an LF 2.2+
//     interned expression is decoded once per definition; a variable node
//     serves every use of its name), so a walker must not mutate it.
//   - Decoding checks the form of a package, not its types: nothing here
//     promises that a package is well-typed.
//
// Names are Go strings: an identifier (field, variable, choice, constructor)
// is a string; a DottedName is the segments of a module or definition name;
// a QualifiedName (TypeConName, ValueName, TypeSynName) is package id, module
// and name, written "pkg:Mod.Sub:Name".
//
// The typed view is what a client needs to build and read contracts without
// the expressions: Package.Templates, Package.Template, Package.Interfaces
// and Package.DataTypes give TemplateSignature (contract fields, key type,
// implemented interfaces, choices), ChoiceSignature (name, consuming,
// argument and result types), InterfaceSignature and DataTypeSignature.
//
// The String methods of types, kinds, data types and signatures render
// Daml-like syntax: `Optional (ContractId Foo)`, `Numeric 10`, `[Party]`,
// `TextMap Int`, `Map k v`, `(Text, Time)`, `data Color = Red | Green`,
// `template Ping with id: Text; initiator: Party; responder: Party`,
// `choice Respond : ()`. Type constructors print by their unqualified
// name; QualifiedName.String gives the full "pkg:Mod:Name".
package lf
