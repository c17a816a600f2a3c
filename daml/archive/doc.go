// Package archive decodes DARs and dalfs into Daml-LF packages (package
// lf): the first step of decode → resolve → evaluate.
//
// A DAR is a zip. Its META-INF/MANIFEST.MF is a Java manifest: "Name: value"
// lines of at most 72 bytes, a line starting with one space continuing the
// one before; the main section ends at the first empty line. It must give
// Format: daml-lf, Main-Dalf (the zip path of the main dalf) and Dalfs (the
// zip paths of every dalf, comma-separated). DecodeDar decodes each dalf
// the manifest names once (a name given twice is read once), main first,
// and keeps a package that appears twice once.
//
// A DAR comes from anyone who may upload one, so before inflating anything
// DecodeDar checks the zip's directory against one set of limits (Options;
// the node and the CLI use the same defaults): the manifest at most 1 MiB,
// each dalf at most 256 MiB, the manifest and the distinct dalfs it names
// at most 128 MiB together and at most 1000 of them, and no entry of more
// than 1 MiB that inflates more than 100 times (real DARs stay under 8;
// deflate reaches 1032 on runs of one byte). A refusal is a *LimitError
// naming the limit; a compression ratio over the limit is also ErrZipBomb.
// DecodeDarContext stops between dalfs when its context ends.
//
// A dalf is an Archive protobuf message: a hash function (SHA256 = 0, the
// only one), the payload bytes and the hash as lower-case hex. The package
// id is the SHA-256 of the payload bytes; DecodeArchive refuses a hash field
// that differs. The payload is an ArchivePayload: the minor version ("1",
// "2", "3" or "dev"), a patch version that must be 0, and the bytes of a
// Daml-LF 2 Package (or of an LF 1 package, which is refused, naming its
// version). Daml-LF 2.dev is accepted only with Options.AllowDev.
//
// A Package interns what repeats. DecodeArchive resolves every table before
// the modules, so the lf tree holds no index:
//
//   - interned strings: identifiers, package ids, text and numeric literals;
//   - interned dotted names: lists of string indices (module and definition
//     names);
//   - interned kinds (2.2+) and interned types: each entry may refer only to
//     entries before it, and outside the type table every type is a
//     reference into it;
//   - interned expressions (2.2+, the "flat archive"): an expression may be
//     a reference to one, and an entry may refer only to entries before it,
//     which rules out cycles. An entry is decoded once per definition that
//     uses it (its locations name that definition) and shared within it.
//   - the package-import table (2.2+): module references index it; earlier
//     versions, and stable packages always, name the package by interned
//     string; "self" is the package's own id.
//
// From 2.2 on, applications, abstractions and foralls carry one argument or
// binder per node and types are applied with explicit type-application
// nodes; 2.1 lists several. Contract keys and the by-key updates need 2.3.
// FORMAT.md beside this file lists every field number the decoder reads.
//
// The decoder reads the protobuf wire format directly. It never panics on
// any input: every index is bounds-checked and its error names the table and
// its size; nesting of expressions, types and kinds is bounded
// (Options.MaxDepth, 1000 by default, where real packages reach about 110);
// the work is bounded too, to 4 expressions per byte of the package plus
// 65536 (real packages decode to under 0.1 per byte), since an interned
// expression shared by many definitions is decoded for each; unknown fields
// are refused, as Canton refuses them; a singular field that appears twice
// takes its last value. Errors name the dalf, the module, the definition
// and the choice where the problem was found, and the innermost interned
// expression it lies in.
//
// Types are shared, as the type table shares them: a type of forty
// interned entries, each naming the one before twice, stands for a tree of
// 2^40 leaves. Code that walks decoded types must memoise by node
// (lf.NodeOf) or bound its work; their text is cut at lf.MaxTypeString.
//
// Decoding checks the archive's form, not its types: the interpreter (or a
// type checker) must not assume a decoded package is well-typed. The one
// exception is a value whose body is a literal of another type than
// declared (as in Canton's illformed.dar test DAR), which is refused.
package archive
