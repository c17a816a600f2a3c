package lf

import (
	"strconv"
	"strings"
)

// PackageID identifies a package: the lower-case hex SHA-256 of its archive
// payload (64 characters) or, for references the archive writes by name, any
// string of at most 64 characters of [A-Za-z0-9_ -].
type PackageID string

// IsHashPackageID reports whether s is a package id as Daml-LF 2 packages
// get them: the SHA-256 of the payload in 64 lower-case hex digits (and so
// not a #name reference, a package name or a file name).
func IsHashPackageID(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// DottedName is a module name or a definition name: one or more segments,
// each an identifier, written with dots ("Canton.Internal.Ping").
type DottedName []string

func (n DottedName) String() string { return strings.Join(n, ".") }

// SplitDotted reads a dotted name written as String writes it ("DA.Types").
func SplitDotted(s string) DottedName { return strings.Split(s, ".") }

// Equal reports whether n and m have the same segments.
func (n DottedName) Equal(m DottedName) bool {
	if len(n) != len(m) {
		return false
	}
	for i := range n {
		if n[i] != m[i] {
			return false
		}
	}
	return true
}

// ModuleName is the dotted name of a module.
type ModuleName = DottedName

// QualifiedName names a definition of some package: the package, the module
// and the definition's dotted name within the module.
type QualifiedName struct {
	Package PackageID
	Module  ModuleName
	Name    DottedName
}

// TypeConName names a data type, template, interface or exception.
type TypeConName = QualifiedName

// TypeSynName names a type synonym.
type TypeSynName = QualifiedName

// ValueName names a top-level value.
type ValueName = QualifiedName

// String returns "package:Module.Name:Definition.Name", the form Canton
// prints and the JSON Ledger API accepts as a template id.
func (q QualifiedName) String() string {
	return string(q.Package) + ":" + q.Module.String() + ":" + q.Name.String()
}

// Equal reports whether q and r name the same definition.
func (q QualifiedName) Equal(r QualifiedName) bool {
	return q.Package == r.Package && q.Module.Equal(r.Module) && q.Name.Equal(r.Name)
}

// LanguageVersion is a Daml-LF version. Minor is 1, 2, 3 … for stable
// versions and DevMinor for 2.dev, which sorts after every stable version.
type LanguageVersion struct {
	Major int
	Minor int
}

// DevMinor is the Minor of the 2.dev staging version.
const DevMinor = 1 << 30

// IsDev reports whether v is a dev version.
func (v LanguageVersion) IsDev() bool { return v.Minor == DevMinor }

// AtLeast reports whether v is major.minor or later.
func (v LanguageVersion) AtLeast(major, minor int) bool {
	return v.Major > major || v.Major == major && v.Minor >= minor
}

func (v LanguageVersion) String() string {
	if v.IsDev() {
		return strconv.Itoa(v.Major) + ".dev"
	}
	return strconv.Itoa(v.Major) + "." + strconv.Itoa(v.Minor)
}

// Position is a 0-based line and column of a Daml source file.
type Position struct {
	Line, Col int32
}

// Location is a range of Daml source. Module is the module of the source
// file (it may differ from the module holding the definition); Definition is
// the top-level definition the location was decoded in ("Ping" for a
// template, "Ping:Respond" for a choice, the name of a value).
type Location struct {
	Package    PackageID
	Module     ModuleName
	Definition string
	Start, End Position
}

// String renders the location as Daml tools do: "Module:line:col" with
// 1-based line and column.
func (l *Location) String() string {
	return l.Module.String() + ":" + strconv.Itoa(int(l.Start.Line)+1) + ":" + strconv.Itoa(int(l.Start.Col)+1)
}
