package archive

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

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
	// MaxDarSize bounds the uncompressed size of all a DAR's entries that
	// are read (its manifest and the dalfs it names, each once); 0 means
	// DefaultMaxDarSize.
	MaxDarSize int64
	// MaxManifestSize bounds the uncompressed size of the manifest; 0
	// means DefaultMaxManifestSize.
	MaxManifestSize int64
	// MaxDalfs bounds the number of distinct dalfs a manifest names; 0
	// means DefaultMaxDalfs.
	MaxDalfs int
	// MaxCompressionRatio bounds how many times larger than its compressed
	// form an entry of more than one MiB may be; 0 means
	// DefaultMaxCompressionRatio.
	MaxCompressionRatio int64
	// KeepArchives keeps each decoded dalf's bytes in Dar.Archives (a node
	// stores them).
	KeepArchives bool
	// LazyValues leaves the bodies of top-level values undecoded until
	// first asked for (lf.Value.Expr): a package whose values are mostly
	// never run decodes in a third of the time. Everything else decodes
	// as without it; a malformed body is refused when it is asked for,
	// not when the package decodes, so a package that must be checked
	// whole (an upload) is decoded without it. DirectDeps then also names
	// every package the undecoded bodies may refer to: each interned
	// string that is a package id the version allows there, and each
	// import. The package keeps the bytes it was decoded from: the
	// caller must not change them.
	LazyValues bool
}

// Defaults of Options: one set of limits for the node and the CLI. The
// largest real DAR at hand (splice-amulet 0.1.14) holds 5.3 MB
// uncompressed, 37 dalfs, a manifest of 8 kB, and no entry compresses more
// than 7.4 times; deflate reaches 1032 only on runs of one byte.
const (
	DefaultMaxDepth            = 1000
	DefaultMaxDalfSize         = 256 << 20
	DefaultMaxDarSize          = 128 << 20
	DefaultMaxManifestSize     = 1 << 20
	DefaultMaxDalfs            = 1000
	DefaultMaxCompressionRatio = 100
)

// ratioFloor is the size under which an entry's compression ratio is not
// checked: small entries compress unevenly and cost nothing.
const ratioFloor = 1 << 20

func (o Options) limit(v, def int64) int64 {
	if v <= 0 {
		return def
	}
	return v
}

// LimitError is a DAR refused for exceeding one of the limits of Options,
// before any of it is inflated: Limit names the field of Options, Value is
// what the DAR asks for. ErrZipBomb is its cause when the limit is
// MaxCompressionRatio.
type LimitError struct {
	Limit string // "MaxDarSize", "MaxDalfSize", "MaxManifestSize", "MaxDalfs", "MaxCompressionRatio"
	Entry string // the zip entry, when one entry exceeds it
	Value int64
	Max   int64
}

func (e *LimitError) Error() string {
	switch e.Limit {
	case "MaxCompressionRatio":
		return fmt.Sprintf("entry %q inflates %d times, more than the limit of %d (%s): no real DAR compresses so well", e.Entry, e.Value, e.Max, e.Limit)
	case "MaxDalfs":
		return fmt.Sprintf("the manifest names %d distinct dalfs, more than the limit of %d (%s)", e.Value, e.Max, e.Limit)
	case "MaxDarSize":
		return fmt.Sprintf("the manifest and the dalfs it names are %d bytes uncompressed, more than the limit of %d (%s)", e.Value, e.Max, e.Limit)
	}
	return fmt.Sprintf("entry %q is %d bytes uncompressed, more than the limit of %d (%s)", e.Entry, e.Value, e.Max, e.Limit)
}

// Unwrap makes a compression ratio over the limit ErrZipBomb.
func (e *LimitError) Unwrap() error {
	if e.Limit == "MaxCompressionRatio" {
		return ErrZipBomb
	}
	return nil
}

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
	// ErrZipBomb: a DAR entry inflates far more than real DARs do
	// (Options.MaxCompressionRatio); a *LimitError says which.
	ErrZipBomb = errors.New("the DAR seems to be a zip bomb")
	// ErrInvalidDar: the DAR is no zip file, has no manifest, or its
	// manifest does not parse — what Canton's DAR reader calls an invalid
	// DAR, as opposed to a dalf that does not decode.
	ErrInvalidDar = errors.New("invalid DAR")
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
	id, payload, err := splitArchive(b)
	if err != nil {
		return nil, err
	}
	p, err := decodePayload(lf.PackageID(id), payload, opts, sc)
	if err != nil {
		return nil, in("ArchivePayload", err)
	}
	return p, nil
}

// ArchivePayload returns the package id and the payload of a dalf, the
// bytes whose SHA-256 the id is and which GET /v2/packages/{id} serves,
// without decoding the package. The archive's hash field must be that id.
// The payload aliases dalf.
func ArchivePayload(dalf []byte) (id string, payload []byte, err error) {
	id, payload, err = splitArchive(dalf)
	if err != nil {
		return "", nil, fmt.Errorf("archive: %w", err)
	}
	return id, payload, nil
}

// splitArchive reads an Archive message: the hash function (SHA-256), the
// payload and the hash field, which must be the payload's SHA-256.
func splitArchive(b []byte) (id string, payload []byte, err error) {
	var (
		hashFunction int32
		hash         string
	)
	for len(b) > 0 {
		var f field
		if f, b, err = nextField(b); err != nil {
			return "", nil, in("Archive", err)
		}
		switch f.Num {
		case 1:
			hashFunction, err = f.Int32()
		case 3:
			payload, err = f.Delimited()
		case 4:
			hash, err = f.Text()
		default:
			err = unknownField("Archive", f)
		}
		if err != nil {
			return "", nil, in("Archive", err)
		}
	}
	if hashFunction != 0 {
		return "", nil, in("Archive", fmt.Errorf("hash function %d is not SHA256 (0)", hashFunction))
	}
	sum := sha256.Sum256(payload)
	id = hex.EncodeToString(sum[:])
	if hash != id {
		return "", nil, in("Archive", fmt.Errorf("%w: hash field is %q, SHA-256 of the payload is %s", ErrHashMismatch, hash, id))
	}
	return id, payload, nil
}

// DecodePayload decodes a package's ArchivePayload on its own, as
// GET /v2/packages/{id} sends it: the payload must hash (SHA-256) to id,
// as in an Archive, whose hash field id stands for.
func DecodePayload(id string, payload []byte, opts Options) (*lf.Package, error) {
	sum := sha256.Sum256(payload)
	if got := hex.EncodeToString(sum[:]); got != id {
		return nil, fmt.Errorf("archive: %w: the package id is %q, SHA-256 of the payload is %s", ErrHashMismatch, id, got)
	}
	p, err := decodePayload(lf.PackageID(id), payload, opts, new(scratch))
	if err != nil {
		return nil, fmt.Errorf("archive: %w", in("ArchivePayload", err))
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
		switch f.Num {
		case 2:
			_, err = f.Delimited()
			major = 1
		case 3:
			minor, err = f.Text()
		case 4:
			lf2, err = f.Delimited()
			major = 2
		case 5:
			patch, err = f.Int32()
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

// DecodeArchives decodes dalfs as DecodeArchive does, several at once (up
// to GOMAXPROCS), reusing the decoding tables from one to the next as
// DecodeDar does. Package i or error i is that of dalfs[i].
func DecodeArchives(dalfs [][]byte, opts Options) ([]*lf.Package, []error) {
	out := make([]*lf.Package, len(dalfs))
	errs := make([]error, len(dalfs))
	var next atomic.Int64
	var wg sync.WaitGroup
	var panicked atomic.Pointer[any]
	for range min(runtime.GOMAXPROCS(0), len(dalfs)) {
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					panicked.CompareAndSwap(nil, &r)
				}
			}()
			st := getState()
			defer putState(st)
			for {
				i := int(next.Add(1) - 1)
				if i >= len(dalfs) {
					return
				}
				if out[i], errs[i] = decodeArchive(dalfs[i], opts, &st.sc); errs[i] != nil {
					errs[i] = fmt.Errorf("archive: %w", errs[i])
				}
			}
		})
	}
	wg.Wait()
	if r := panicked.Load(); r != nil {
		panic(*r)
	}
	return out, errs
}
