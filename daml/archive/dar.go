package archive

import (
	"archive/zip"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ledger-cli/ledger/daml/lf"
)

// Dar is a decoded DAR: its manifest, its main package and every package it
// carries, the main one first, then the others in the manifest's order.
type Dar struct {
	Manifest Manifest
	Main     lf.PackageID
	Packages []*lf.Package
	// Archives are the dalfs' bytes by package id, with
	// Options.KeepArchives.
	Archives map[lf.PackageID][]byte
}

// Package returns the package with the given id, or nil.
func (d *Dar) Package(id lf.PackageID) *lf.Package {
	for _, p := range d.Packages {
		if p.ID == id {
			return p
		}
	}
	return nil
}

// MainPackage returns the DAR's main package.
func (d *Dar) MainPackage() *lf.Package { return d.Package(d.Main) }

// Manifest is what DecodeDar reads from META-INF/MANIFEST.MF.
type Manifest struct {
	// MainDalf is the zip path of the main dalf.
	MainDalf string
	// Dalfs are the zip paths of every dalf, each once: the main one
	// first, then the others in manifest order.
	Dalfs []string
	// Attributes are all main-section attributes, continuation lines joined.
	Attributes map[string]string
}

const manifestPath = "META-INF/MANIFEST.MF"

// ReadDarFile reads and decodes the DAR at path.
func ReadDarFile(path string, opts Options) (*Dar, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	d, err := decodeDar(context.Background(), b, opts)
	if err != nil {
		return nil, fmt.Errorf("archive: %s: %w", path, err)
	}
	return d, nil
}

// DecodeDar decodes a DAR: a zip whose META-INF/MANIFEST.MF names the main
// dalf (Main-Dalf) and every dalf (Dalfs), in Format daml-lf. Every dalf is
// decoded with DecodeArchive's rules. A package that appears twice is kept
// once.
//
// Before inflating anything it refuses, with a *LimitError, a DAR whose
// manifest, dalfs or total exceed the limits of Options, or one of whose
// entries inflates more than any real DAR's (ErrZipBomb).
func DecodeDar(dar []byte, opts Options) (*Dar, error) {
	return DecodeDarContext(context.Background(), dar, opts)
}

// DecodeDarContext is DecodeDar that stops when ctx ends, between dalfs,
// with ctx's error.
func DecodeDarContext(ctx context.Context, dar []byte, opts Options) (*Dar, error) {
	d, err := decodeDar(ctx, dar, opts)
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	return d, nil
}

func decodeDar(ctx context.Context, dar []byte, opts Options) (*Dar, error) {
	return decodeDarWorkers(ctx, dar, opts, runtime.GOMAXPROCS(0))
}

// checkEntry refuses an entry larger than max or that inflates more than
// the ratio allows.
func checkEntry(f *zip.File, limit string, maxSize, ratio int64) error {
	if f.UncompressedSize64 > uint64(maxSize) {
		return &LimitError{Limit: limit, Entry: f.Name, Value: int64(min(f.UncompressedSize64, 1<<62)), Max: maxSize}
	}
	if f.UncompressedSize64 > ratioFloor && f.UncompressedSize64/max(f.CompressedSize64, 1) > uint64(ratio) {
		return &LimitError{Limit: "MaxCompressionRatio", Entry: f.Name, Value: int64(f.UncompressedSize64 / max(f.CompressedSize64, 1)), Max: ratio}
	}
	return nil
}

// decodeDarWorkers decodes a DAR with up to workers dalfs decoded at once.
// The outcome does not depend on workers: the packages are in manifest
// order and the error is that of the first dalf in manifest order that
// fails, as when they are decoded one after the other.
func decodeDarWorkers(ctx context.Context, dar []byte, opts Options, workers int) (*Dar, error) {
	m, files, err := openDar(dar, opts)
	if err != nil {
		return nil, err
	}
	maxSize := opts.limit(opts.MaxDalfSize, DefaultMaxDalfSize)
	packages := make([]*lf.Package, len(m.Dalfs))
	errs := make([]error, len(m.Dalfs))
	var archives [][]byte
	if opts.KeepArchives {
		archives = make([][]byte, len(m.Dalfs))
	}
	// decode decodes dalf i into packages[i] or errs[i], reading it into
	// buf when buf is large enough and using sc's tables, and returns the
	// buffer it used and whether it failed. A decoded package holds no
	// reference to the bytes it was decoded from nor to the tables, so one
	// buffer and one scratch serve every dalf a goroutine decodes.
	decode := func(i int, buf []byte, sc *scratch) ([]byte, bool) {
		name := m.Dalfs[i]
		if err := ctx.Err(); err != nil {
			errs[i] = err
			return buf, true
		}
		f, ok := files[name]
		if !ok {
			errs[i] = fmt.Errorf("manifest names dalf %q, which the DAR does not contain", name)
			return buf, true
		}
		if opts.LazyValues {
			buf = nil // the package keeps its bytes
		}
		b, err := readZipFile(f, maxSize, buf)
		if err != nil {
			errs[i] = fmt.Errorf("dalf %q: %w", name, err)
			return buf, true
		}
		if packages[i], err = decodeArchive(b, opts, sc); err != nil {
			errs[i] = fmt.Errorf("dalf %q: %w", name, err)
			return b, true
		}
		if opts.KeepArchives {
			archives[i] = bytes.Clone(b)
		}
		return b, false
	}
	if workers = min(workers, len(m.Dalfs)); workers <= 1 {
		st := getState()
		defer putState(st)
		for i := range m.Dalfs {
			var failed bool
			if st.buf, failed = decode(i, st.buf, &st.sc); failed {
				return nil, errs[i]
			}
		}
	} else {
		decodeParallel(m.Dalfs, files, workers, decode)
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
	}
	d := &Dar{Manifest: m}
	seen := make(map[lf.PackageID]bool, len(m.Dalfs))
	for i, p := range packages {
		if m.Dalfs[i] == m.MainDalf {
			d.Main = p.ID
		}
		if !seen[p.ID] {
			seen[p.ID] = true
			d.Packages = append(d.Packages, p)
			if opts.KeepArchives {
				if d.Archives == nil {
					d.Archives = make(map[lf.PackageID][]byte, len(m.Dalfs))
				}
				d.Archives[p.ID] = archives[i]
			}
		}
	}
	return d, nil
}

// invalidDar is ErrInvalidDar with the reason the DAR's structure is
// wrong; its text is the reason's.
type invalidDar struct{ reason error }

func (e invalidDar) Error() string   { return e.reason.Error() }
func (e invalidDar) Unwrap() []error { return []error{e.reason, ErrInvalidDar} }

// openDar opens a DAR's zip directory and reads its manifest, refusing,
// before any dalf is inflated, a DAR that exceeds the limits of opts.
func openDar(dar []byte, opts Options) (Manifest, map[string]*zip.File, error) {
	zr, err := zip.NewReader(bytes.NewReader(dar), int64(len(dar)))
	if err != nil {
		return Manifest{}, nil, invalidDar{fmt.Errorf("DAR is not a zip file: %w", err)}
	}
	files := make(map[string]*zip.File, len(zr.File))
	for _, f := range zr.File {
		files[f.Name] = f
	}
	mf, ok := files[manifestPath]
	if !ok {
		return Manifest{}, nil, invalidDar{fmt.Errorf("DAR has no %s", manifestPath)}
	}
	ratio := opts.limit(opts.MaxCompressionRatio, DefaultMaxCompressionRatio)
	maxManifest := opts.limit(opts.MaxManifestSize, DefaultMaxManifestSize)
	if err := checkEntry(mf, "MaxManifestSize", maxManifest, ratio); err != nil {
		return Manifest{}, nil, err
	}
	text, err := readZipFile(mf, maxManifest, nil)
	if err != nil {
		return Manifest{}, nil, fmt.Errorf("%s: %w", manifestPath, err)
	}
	m, err := ParseManifest(text)
	if err != nil {
		return Manifest{}, nil, invalidDar{fmt.Errorf("%s: %w", manifestPath, err)}
	}
	if maxDalfs := int(opts.limit(int64(opts.MaxDalfs), DefaultMaxDalfs)); len(m.Dalfs) > maxDalfs {
		return Manifest{}, nil, &LimitError{Limit: "MaxDalfs", Value: int64(len(m.Dalfs)), Max: int64(maxDalfs)}
	}
	maxSize := opts.limit(opts.MaxDalfSize, DefaultMaxDalfSize)
	maxTotal := opts.limit(opts.MaxDarSize, DefaultMaxDarSize)
	total := mf.UncompressedSize64
	for _, name := range m.Dalfs {
		f, ok := files[name]
		if !ok {
			continue // reported in manifest order by the reader
		}
		if err := checkEntry(f, "MaxDalfSize", maxSize, ratio); err != nil {
			return Manifest{}, nil, err
		}
		if total += f.UncompressedSize64; total > uint64(maxTotal) {
			return Manifest{}, nil, &LimitError{Limit: "MaxDarSize", Value: int64(min(total, 1<<62)), Max: maxTotal}
		}
	}
	return m, files, nil
}

// ReadDarArchives reads the dalfs of the DAR at path, within the limits of
// opts as DecodeDar, without decoding them: each Archive's bytes by the
// package id its hash field states. DecodeArchive checks that id against
// the payload when the package is decoded, so a caller may decode only
// the packages it needs, each once however many DARs carry it.
func ReadDarArchives(path string, opts Options) (map[lf.PackageID][]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	out, err := readDarArchives(b, opts)
	if err != nil {
		return nil, fmt.Errorf("archive: %s: %w", path, err)
	}
	return out, nil
}

func readDarArchives(dar []byte, opts Options) (map[lf.PackageID][]byte, error) {
	dalfs, err := openDarArchives(dar, opts)
	if err != nil {
		return nil, err
	}
	out := make(map[lf.PackageID][]byte, len(dalfs))
	for id, d := range dalfs {
		if out[id], err = d.Read(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// DarDalf is a dalf of a DAR, not inflated yet: the Archive of the package
// its zip name ends with.
type DarDalf struct {
	Name string
	id   lf.PackageID
	f    *zip.File
	max  int64
	b    []byte // when read already
}

// Read inflates the dalf (within the limit it was opened with) and refuses
// it when its hash field states another package id than its name.
// DecodeArchive checks that id against the payload.
func (d DarDalf) Read() ([]byte, error) {
	b := d.b
	if b == nil {
		var err error
		if b, err = readZipFile(d.f, d.max, nil); err != nil {
			return nil, fmt.Errorf("dalf %q: %w", d.Name, err)
		}
	}
	id, err := archiveHash(b)
	if err != nil {
		return nil, fmt.Errorf("dalf %q: %w", d.Name, err)
	}
	if id != d.id {
		return nil, fmt.Errorf("dalf %q: %w: its name says package %s, its hash field %s", d.Name, ErrHashMismatch, d.id, id)
	}
	return b, nil
}

// OpenDarArchives opens the DAR at path within the limits of opts, as
// DecodeDar, and returns its dalfs by package id without inflating those
// whose zip name ends with it ("name-version-ID.dalf", as the Daml
// compiler names every dalf): a caller that needs a few packages of a
// large DAR inflates only those (DarDalf.Read). A dalf named otherwise is
// read at once to learn its id from its hash field. A dalf whose name and
// content disagree, or whose bytes do not inflate to what its header
// declares, is refused when it is read, not before.
func OpenDarArchives(path string, opts Options) (map[lf.PackageID]DarDalf, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	out, err := openDarArchives(b, opts)
	if err != nil {
		return nil, fmt.Errorf("archive: %s: %w", path, err)
	}
	return out, nil
}

func openDarArchives(dar []byte, opts Options) (map[lf.PackageID]DarDalf, error) {
	m, files, err := openDar(dar, opts)
	if err != nil {
		return nil, err
	}
	maxSize := opts.limit(opts.MaxDalfSize, DefaultMaxDalfSize)
	out := make(map[lf.PackageID]DarDalf, len(m.Dalfs))
	for _, name := range m.Dalfs {
		f, ok := files[name]
		if !ok {
			return nil, fmt.Errorf("manifest names dalf %q, which the DAR does not contain", name)
		}
		d := DarDalf{Name: name, f: f, max: maxSize}
		if id, ok := idInDalfName(name); ok {
			d.id = id
		} else {
			if d.b, err = readZipFile(f, maxSize, nil); err != nil {
				return nil, fmt.Errorf("dalf %q: %w", name, err)
			}
			if d.id, err = archiveHash(d.b); err != nil {
				return nil, fmt.Errorf("dalf %q: %w", name, err)
			}
		}
		out[d.id] = d
	}
	return out, nil
}

// idInDalfName is the package id a dalf's zip name ends with: 64 lower-case
// hex digits between a '-' and ".dalf".
func idInDalfName(name string) (lf.PackageID, bool) {
	base, ok := strings.CutSuffix(name, ".dalf")
	if !ok || len(base) < 65 || base[len(base)-65] != '-' {
		return "", false
	}
	id := base[len(base)-64:]
	if !lf.IsHashPackageID(id) {
		return "", false
	}
	return lf.PackageID(id), true
}

// archiveHash is the hash field of an Archive: the package id it states.
func archiveHash(b []byte) (lf.PackageID, error) {
	var hash string
	for len(b) > 0 {
		f, rest, err := nextField(b)
		if err != nil {
			return "", in("Archive", err)
		}
		b = rest
		if f.Num == 4 {
			if hash, err = f.Text(); err != nil {
				return "", in("Archive", err)
			}
		}
	}
	if hash == "" {
		return "", in("Archive", errors.New("no hash field"))
	}
	return lf.PackageID(hash), nil
}

// decodeParallel calls decode for each dalf on workers goroutines, the
// largest dalfs first so that the last to finish are small. Once a dalf
// has failed, those after it in manifest order are skipped: the first
// failure in manifest order is the one reported. A panic in decode is
// raised again in the caller's goroutine, where it would have happened
// without the workers (and where a server's handler can recover it).
func decodeParallel(dalfs []string, files map[string]*zip.File, workers int, decode func(i int, buf []byte, sc *scratch) ([]byte, bool)) {
	order := make([]int, len(dalfs))
	size := make([]uint64, len(dalfs))
	for i, name := range dalfs {
		order[i] = i
		if f, ok := files[name]; ok {
			size[i] = f.UncompressedSize64
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(size[b], size[a]) })
	var (
		next      atomic.Int64
		firstFail atomic.Int64 // the lowest index of a failed dalf, or len(dalfs)
		wg        sync.WaitGroup
		panicked  atomic.Pointer[any]
	)
	firstFail.Store(int64(len(dalfs)))
	for range workers {
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					panicked.CompareAndSwap(nil, &r)
					firstFail.Store(-1) // stop the others
				}
			}()
			st := getState()
			defer putState(st)
			for {
				j := int(next.Add(1) - 1)
				if j >= len(order) {
					return
				}
				i := order[j]
				if int64(i) > firstFail.Load() {
					continue
				}
				var failed bool
				if st.buf, failed = decode(i, st.buf, &st.sc); failed {
					lower(&firstFail, int64(i))
				}
			}
		})
	}
	wg.Wait()
	if r := panicked.Load(); r != nil {
		panic(*r)
	}
}

// decodeState is what a goroutine of DecodeDar reuses from dalf to dalf:
// the buffer a dalf is read into and the decoding tables. Between calls
// they wait in statePool, emptied of references to decoded packages, so
// that DARs decoded one after another (an upload of several) do not
// allocate them again; the pool lets the garbage collector have them when
// they go unused.
type decodeState struct {
	buf []byte
	sc  scratch
}

var statePool = sync.Pool{New: func() any { return new(decodeState) }}

// maxPooledBuffer bounds the buffer kept for the next DAR.
const maxPooledBuffer = 16 << 20

func getState() *decodeState { return statePool.Get().(*decodeState) }

func putState(st *decodeState) {
	if cap(st.buf) > maxPooledBuffer {
		st.buf = nil
	}
	st.sc.release()
	statePool.Put(st)
}

// lower sets a to v if v is lower.
func lower(a *atomic.Int64, v int64) {
	for old := a.Load(); v < old; old = a.Load() {
		if a.CompareAndSwap(old, v) {
			return
		}
	}
}

// readZipFile reads a zip entry of at most max bytes uncompressed, into buf
// when it is large enough.
func readZipFile(f *zip.File, max int64, buf []byte) ([]byte, error) {
	if f.UncompressedSize64 > uint64(max) {
		return nil, fmt.Errorf("%d bytes uncompressed, more than the limit of %d", f.UncompressedSize64, max)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	// The zip reader checks that the entry has the size its header
	// declares, so the buffer is allocated once, at that size.
	b := buf[:0]
	if uint64(cap(b)) < f.UncompressedSize64 {
		b = make([]byte, f.UncompressedSize64)
	}
	b = b[:f.UncompressedSize64]
	if _, err := io.ReadFull(rc, b); err != nil {
		return nil, err
	}
	var one [1]byte
	if n, err := rc.Read(one[:]); n > 0 || err != io.EOF {
		if err == nil || err == io.EOF {
			err = fmt.Errorf("more bytes than the %d its header declares", len(b))
		}
		return nil, err
	}
	return b, nil
}

// ParseManifest parses a DAR manifest: a Java manifest whose main section
// (up to the first empty line) holds "Name: value" lines, a line that
// starts with one space continuing the previous one. Lines end in CRLF, LF
// or CR. It requires Main-Dalf, Dalfs (comma-separated, each trimmed; the
// main dalf is among them, or is added first) and Format: daml-lf.
func ParseManifest(b []byte) (Manifest, error) {
	m := Manifest{Attributes: map[string]string{}}
	text := strings.ReplaceAll(strings.ReplaceAll(string(b), "\r\n", "\n"), "\r", "\n")
	var (
		name  string
		value strings.Builder
	)
	flush := func() {
		if name != "" {
			m.Attributes[name] = value.String()
		}
		value.Reset()
	}
	for i, line := range strings.Split(text, "\n") {
		if line == "" {
			if i == 0 {
				return m, errors.New("manifest starts with an empty line")
			}
			break // end of the main section
		}
		if line[0] == ' ' {
			if name == "" {
				return m, fmt.Errorf("line %d: continuation line with nothing to continue", i+1)
			}
			value.WriteString(line[1:])
			continue
		}
		flush()
		n, v, ok := strings.Cut(line, ": ")
		if !ok || n == "" {
			return m, fmt.Errorf("line %d: %q is not \"Name: value\"", i+1, line)
		}
		name = n
		value.WriteString(v)
	}
	flush()
	if f := strings.TrimSpace(m.Attributes["Format"]); f != "daml-lf" {
		if f == "" {
			return m, errors.New("no Format attribute (want daml-lf)")
		}
		return m, fmt.Errorf("format %q is not daml-lf", f)
	}
	m.MainDalf = strings.TrimSpace(m.Attributes["Main-Dalf"])
	if m.MainDalf == "" {
		return m, errors.New("no Main-Dalf attribute")
	}
	all, ok := m.Attributes["Dalfs"]
	if !ok {
		return m, errors.New("no Dalfs attribute")
	}
	// A dalf named twice is read once: a manifest naming one dalf 200,000
	// times would otherwise have it decoded 200,000 times.
	m.Dalfs = []string{m.MainDalf}
	named := map[string]bool{m.MainDalf: true}
	for _, d := range strings.Split(all, ",") {
		if d = strings.TrimSpace(d); d != "" && !named[d] {
			named[d] = true
			m.Dalfs = append(m.Dalfs, d)
		}
	}
	return m, nil
}
