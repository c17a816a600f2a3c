package wallet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/engine"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"google.golang.org/protobuf/encoding/protowire"
)

// The Daml code a signer re-runs comes from two places: the packages the
// envelope carries (ledger prepare --with-packages fetched them from the
// node) and DAR files the signer holds. A package id is the SHA-256 of the
// package's payload, so a package is what its id says whoever handed it
// over; each is checked against its id before it is decoded.

// EnvelopePackage is a Daml package carried in an envelope: its id and its
// archive payload (a Daml-LF ArchivePayload, as GET /v2/packages/{id}
// returns it), base64 in JSON.
type EnvelopePackage struct {
	PackageID string `json:"packageId"`
	Payload   []byte `json:"payload"`
}

// MaxEnvelopePackages bounds the packages one envelope may carry; a Canton
// Coin transfer needs about 40.
const MaxEnvelopePackages = archive.DefaultMaxDalfs

// PayloadSuffix ends the name of a package payload file in a directory of
// DARs: PACKAGE_ID.payload, as ledger packages get writes it.
const PayloadSuffix = ".payload"

// NamedPackages are the ids of the packages a prepared transaction names —
// the template and interface of every node, the template of every input
// contract — sorted, each once.
func NamedPackages(pt *damlpb.PreparedTransaction) []string { return engine.PreparedPackageIDs(pt) }

// FetchPackages fetches, with get (GET /v2/packages/{id}), the packages
// pt names and every package they depend on, each checked against its id.
// get answers nil, nil for a package the node does not have (a template
// its generic contract model serves): those are returned as absent, and
// the signer will not find them either.
func FetchPackages(ctx context.Context, pt *damlpb.PreparedTransaction, get func(ctx context.Context, id string) ([]byte, error)) (pkgs []EnvelopePackage, absent []string, err error) {
	queue := NamedPackages(pt)
	seen := map[string]bool{}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		if seen[id] {
			continue
		}
		seen[id] = true
		if len(pkgs) == MaxEnvelopePackages {
			return nil, nil, fmt.Errorf("the transaction needs more than %d packages", MaxEnvelopePackages)
		}
		payload, err := get(ctx, id)
		if err != nil {
			return nil, nil, fmt.Errorf("package %s: %w", id, err)
		}
		if payload == nil {
			absent = append(absent, id)
			continue
		}
		p, err := decodePayload(id, payload)
		if err != nil {
			return nil, nil, err
		}
		pkgs = append(pkgs, EnvelopePackage{PackageID: id, Payload: payload})
		for _, dep := range p.DirectDeps {
			queue = append(queue, string(dep))
		}
	}
	slices.SortFunc(pkgs, func(a, b EnvelopePackage) int { return strings.Compare(a.PackageID, b.PackageID) })
	slices.Sort(absent)
	return pkgs, absent, nil
}

// archiveOptions are the limits packages are decoded with: daml/archive's
// defaults, Daml-LF 2.dev accepted as ledger serve accepts it (a package's
// id authenticates its code whatever its version).
// Values' bodies are decoded when the transaction's code first runs them
// (most of daml-stdlib never is); one that does not decode fails the
// re-interpretation then.
var archiveOptions = archive.Options{AllowDev: true, LazyValues: true}

// decodePayload decodes a package whole, checking all of it: its
// dependencies (DirectDeps) are then exactly those its code names.
func decodePayload(id string, payload []byte) (*lf.Package, error) {
	opts := archiveOptions
	opts.LazyValues = false
	p, err := archive.DecodePayload(id, payload, opts)
	if err != nil {
		return nil, fmt.Errorf("package %s: %w", id, err)
	}
	return p, nil
}

// Packages are the packages a signer re-interprets with, by id, and where
// each came from.
type Packages struct {
	byID map[lf.PackageID]*lf.Package
	from map[lf.PackageID]string
	// payloads are the envelope's packages not decoded yet, and dalfs the
	// DARs' (with the file each came from): only those a transaction needs
	// are decoded, each once however many DARs carry it.
	payloads map[lf.PackageID][]byte
	dalfs    map[lf.PackageID]dalf
	// set is the engine's package set of the packages setOf was last
	// asked for (setKey): its resolved code is kept between transactions.
	set    *engine.PackageSet
	setKey string
}

// dalf is a DAR's Archive of a package, not inflated yet.
type dalf struct {
	dalf archive.DarDalf
	from string
}

// setOf is the engine's package set of pkgs, the one built before when
// pkgs are the same packages.
func (ps *Packages) setOf(pkgs []*lf.Package) *engine.PackageSet {
	ids := make([]string, len(pkgs))
	for i, p := range pkgs {
		ids[i] = string(p.ID)
	}
	slices.Sort(ids)
	key := strings.Join(ids, ",")
	if ps.set == nil || ps.setKey != key {
		ps.set, ps.setKey = engine.PackageSetOf(pkgs...), key
	}
	return ps.set
}

// PackageError is a package that is not what its id says, or does not
// decode.
type PackageError struct {
	PackageID string
	From      string // "the envelope" or a file
	Err       error
}

func (e *PackageError) Error() string {
	return fmt.Sprintf("package %s in %s: %v", e.PackageID, e.From, e.Err)
}

func (e *PackageError) Unwrap() error { return e.Err }

const fromEnvelope = "the envelope"

// LoadPackages gathers the packages of env and of the DAR files at paths (a
// path may be a directory: its *.dar files and PACKAGE_ID.payload files
// are read, not its subdirectories). An envelope package whose payload
// does not hash to its id is refused (a *PackageError); so is a payload
// file that does not decode, and a DAR beyond daml/archive's limits. A
// DAR's package is decoded only when a transaction needs it (For), which
// refuses one that is not what its id says.
func LoadPackages(env *Envelope, paths []string) (*Packages, error) {
	ps := &Packages{byID: map[lf.PackageID]*lf.Package{}, from: map[lf.PackageID]string{}, payloads: map[lf.PackageID][]byte{},
		dalfs: map[lf.PackageID]dalf{}}
	if env.Info != nil {
		if n := len(env.Info.Packages); n > MaxEnvelopePackages {
			return nil, fmt.Errorf("the envelope carries %d packages, more than the limit of %d", n, MaxEnvelopePackages)
		}
		for _, p := range env.Info.Packages {
			sum := sha256.Sum256(p.Payload)
			if got := hex.EncodeToString(sum[:]); got != p.PackageID {
				return nil, &PackageError{PackageID: p.PackageID, From: fromEnvelope,
					Err: fmt.Errorf("%w: its payload's SHA-256 is %s", archive.ErrHashMismatch, got)}
			}
			ps.payloads[lf.PackageID(p.PackageID)] = p.Payload
		}
	}
	for _, path := range paths {
		if err := ps.loadPath(path); err != nil {
			return nil, err
		}
	}
	return ps, nil
}

func (ps *Packages) loadPath(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return ps.loadFile(path)
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	found := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".dar") && !strings.HasSuffix(name, PayloadSuffix) {
			continue
		}
		found++
		if err := ps.loadFile(filepath.Join(path, name)); err != nil {
			return err
		}
	}
	if found == 0 {
		return fmt.Errorf("%s holds no .dar or %s files", path, PayloadSuffix)
	}
	return nil
}

// loadFile reads a DAR, or a payload file named by its package id.
func (ps *Packages) loadFile(path string) error {
	if id, ok := strings.CutSuffix(filepath.Base(path), PayloadSuffix); ok {
		fi, err := os.Stat(path)
		if err != nil {
			return err
		}
		if fi.Size() > archive.DefaultMaxDalfSize {
			return fmt.Errorf("%s: %d bytes, more than a package may have (%d)", path, fi.Size(), archive.DefaultMaxDalfSize)
		}
		payload, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		p, err := archive.DecodePayload(id, payload, archiveOptions)
		if err != nil {
			return &PackageError{PackageID: id, From: path, Err: err}
		}
		ps.add(p, path)
		return nil
	}
	// Only the dalfs a transaction needs are inflated, when it needs them.
	dalfs, err := archive.OpenDarArchives(path, archiveOptions)
	if err != nil {
		return err
	}
	for id, d := range dalfs {
		if _, ok := ps.dalfs[id]; !ok {
			ps.dalfs[id] = dalf{dalf: d, from: path}
		}
	}
	return nil
}

func (ps *Packages) add(p *lf.Package, from string) {
	if _, ok := ps.byID[p.ID]; !ok {
		ps.byID[p.ID] = p
		ps.from[p.ID] = from
	}
}

// lookup returns the packages ids, nil for each that was not given,
// decoding those not decoded yet, several at once.
func (ps *Packages) lookup(ids []lf.PackageID) ([]*lf.Package, error) {
	out := make([]*lf.Package, len(ids))
	var pending []int
	var dalfs [][]byte
	var from []string
	for i, id := range ids {
		if p := ps.byID[id]; p != nil {
			out[i] = p
			continue
		}
		// The signer's own files first: the review names them as the source.
		if d, ok := ps.dalfs[id]; ok {
			delete(ps.dalfs, id)
			// Reading checks the id the dalf's name states against its
			// hash field, decoding that against the payload.
			b, err := d.dalf.Read()
			if err != nil {
				return nil, &PackageError{PackageID: string(id), From: d.from, Err: err}
			}
			pending, dalfs, from = append(pending, i), append(dalfs, b), append(from, d.from)
			continue
		}
		if payload, ok := ps.payloads[id]; ok {
			delete(ps.payloads, id)
			// As an Archive, whose decoding checks the payload against id.
			b := protowire.AppendTag(nil, 3, protowire.BytesType)
			b = protowire.AppendBytes(b, payload)
			b = protowire.AppendTag(b, 4, protowire.BytesType)
			pending, dalfs, from = append(pending, i), append(dalfs, protowire.AppendString(b, string(id))), append(from, fromEnvelope)
		}
	}
	pkgs, errs := archive.DecodeArchives(dalfs, archiveOptions)
	for j, i := range pending {
		if errs[j] != nil {
			return nil, &PackageError{PackageID: string(ids[i]), From: from[j], Err: errs[j]}
		}
		ps.add(pkgs[j], from[j])
		out[i] = pkgs[j]
	}
	return out, nil
}

// Empty reports whether there are no packages at all.
func (ps *Packages) Empty() bool {
	return len(ps.byID) == 0 && len(ps.payloads) == 0 && len(ps.dalfs) == 0
}

// MissingPackagesError names the packages a transaction needs that were
// not given: to re-run its Daml code, every package it names and every
// package those depend on is needed.
type MissingPackagesError struct {
	IDs []string
}

func (e *MissingPackagesError) Error() string {
	return fmt.Sprintf("the Daml code of the transaction cannot be re-run: %d package(s) it needs are missing: %s",
		len(e.IDs), strings.Join(e.IDs, ", "))
}

// ErrNoPackages: re-interpretation was required and no package was given.
var ErrNoPackages = errors.New("no Daml packages to re-run the transaction's code with")

// For returns the packages pt needs — those it names and their
// dependencies, each decoded once — or a *MissingPackagesError naming
// every one of them that was not given, or a *PackageError.
func (ps *Packages) For(pt *damlpb.PreparedTransaction) ([]*lf.Package, error) {
	level := NamedPackages(pt)
	seen := map[string]bool{}
	var out []*lf.Package
	var missing []string
	// Level by level of the dependency graph, each level decoded at once.
	for len(level) > 0 {
		var ids []lf.PackageID
		for _, id := range level {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, lf.PackageID(id))
			}
		}
		pkgs, err := ps.lookup(ids)
		if err != nil {
			return nil, err
		}
		level = nil
		for i, p := range pkgs {
			if p == nil {
				missing = append(missing, string(ids[i]))
				continue
			}
			out = append(out, p)
			for _, dep := range p.DirectDeps {
				level = append(level, string(dep))
			}
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, &MissingPackagesError{IDs: missing}
	}
	return out, nil
}

// From says where package id came from: "the envelope" or a file.
func (ps *Packages) From(id lf.PackageID) string { return ps.from[id] }
