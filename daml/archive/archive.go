package archive

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/ledger-cli/ledger/daml/lf"
)

// Options control decoding. The zero value accepts Daml-LF 2.1, 2.2 and 2.3.
type Options struct {
	// AllowDev accepts Daml-LF 2.dev packages, whose format may change
	// with any Canton release.
	AllowDev bool
	// MaxDepth bounds the nesting of expressions, types and kinds; 0 means
	// DefaultMaxDepth. Real packages nest about 110 deep.
	MaxDepth int
	// MaxDalfSize bounds the uncompressed size of one dalf in a DAR; 0
	// means DefaultMaxDalfSize.
	MaxDalfSize int64
}

// Defaults of Options.
const (
	DefaultMaxDepth    = 1000
	DefaultMaxDalfSize = 256 << 20
)

// Errors a caller may test for with errors.Is.
var (
	// ErrUnsupportedVersion: the archive is of a Daml-LF version this
	// package does not decode (1.x, an unknown 2.x, or 2.dev without
	// Options.AllowDev).
	ErrUnsupportedVersion = errors.New("unsupported Daml-LF version")
	// ErrHashMismatch: the archive's hash field is not the SHA-256 of its
	// payload.
	ErrHashMismatch = errors.New("package id does not match the payload")
	// ErrTooDeep: expressions or types nest deeper than Options.MaxDepth.
	ErrTooDeep = errors.New("nesting too deep")
	// ErrTooLarge: the package decodes to far more expressions than its
	// size allows for (its interned expressions are shared by too many
	// definitions).
	ErrTooLarge = errors.New("package too large when decoded")
)

// DecodeArchive decodes one dalf: an Archive message whose payload is an
// ArchivePayload holding a Daml-LF 2 package. The package id is the SHA-256
// of the payload, and must equal the archive's hash field. The package
// holds no reference to dalf, which the caller may reuse.
func DecodeArchive(dalf []byte, opts Options) (*lf.Package, error) {
	p, err := decodeArchive(dalf, opts, new(scratch))
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	return p, nil
}

func decodeArchive(b []byte, opts Options, sc *scratch) (*lf.Package, error) {
	var (
		hashFunction int32
		payload      []byte
		hash         string
		err          error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return nil, in("Archive", err)
		}
		switch f.num {
		case 1:
			hashFunction, err = f.int32()
		case 3:
			payload, err = f.bytes()
		case 4:
			hash, err = f.str()
		default:
			err = unknownField("Archive", f)
		}
		if err != nil {
			return nil, in("Archive", err)
		}
	}
	if hashFunction != 0 {
		return nil, in("Archive", fmt.Errorf("hash function %d is not SHA256 (0)", hashFunction))
	}
	sum := sha256.Sum256(payload)
	id := hex.EncodeToString(sum[:])
	if hash != id {
		return nil, in("Archive", fmt.Errorf("%w: hash field is %q, SHA-256 of the payload is %s", ErrHashMismatch, hash, id))
	}
	p, err := decodePayload(lf.PackageID(id), payload, opts, sc)
	if err != nil {
		return nil, in("ArchivePayload", err)
	}
	return p, nil
}

// decodePayload decodes an ArchivePayload: the minor version, the patch
// version and the LF 1 or LF 2 package bytes.
func decodePayload(id lf.PackageID, b []byte, opts Options, sc *scratch) (*lf.Package, error) {
	var (
		minor string
		patch int32
		lf2   []byte
		major int // 1 or 2: which of daml_lf_1 and daml_lf_2 is set
		err   error
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return nil, err
		}
		switch f.num {
		case 2:
			_, err = f.bytes()
			major = 1
		case 3:
			minor, err = f.str()
		case 4:
			lf2, err = f.bytes()
			major = 2
		case 5:
			patch, err = f.int32()
		default:
			err = unknownField("ArchivePayload", f)
		}
		if err != nil {
			return nil, err
		}
	}
	switch major {
	case 0:
		return nil, errors.New("no Daml-LF package (neither daml_lf_1 nor daml_lf_2 is set)")
	case 1:
		return nil, fmt.Errorf("%w: the package is Daml-LF 1.%s; only Daml-LF 2.x is supported", ErrUnsupportedVersion, minor)
	}
	v, err := languageVersion(minor, opts)
	if err != nil {
		return nil, err
	}
	if patch != 0 {
		return nil, fmt.Errorf("unknown patch version %d of Daml-LF %s", patch, v)
	}
	p, err := decodePackage(id, v, lf2, opts, sc)
	if err != nil {
		return nil, fmt.Errorf("package: %w", err)
	}
	return p, nil
}

// languageVersion parses an LF 2 minor version: "1", "2", "3" or "dev".
func languageVersion(minor string, opts Options) (lf.LanguageVersion, error) {
	switch minor {
	case "1", "2", "3":
		return lf.LanguageVersion{Major: 2, Minor: int(minor[0] - '0')}, nil
	case "dev":
		if !opts.AllowDev {
			return lf.LanguageVersion{}, fmt.Errorf("%w: the package is Daml-LF 2.dev, which is accepted only in dev mode (Options.AllowDev)", ErrUnsupportedVersion)
		}
		return lf.LanguageVersion{Major: 2, Minor: lf.DevMinor}, nil
	}
	return lf.LanguageVersion{}, fmt.Errorf("%w: the package is Daml-LF 2.%q; supported are 2.1, 2.2, 2.3 and, in dev mode, 2.dev", ErrUnsupportedVersion, minor)
}
