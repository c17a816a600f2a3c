package node

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/upgrade"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/engine"
	"github.com/ledger-cli/ledger/node/ledger"
)

// PackageStore keeps uploaded packages and their vetting; node/sqlite
// implements it.
type PackageStore interface {
	// AddPackages stores the packages not stored yet and applies the
	// vetting changes, atomically; it returns the vetting serial after.
	AddPackages(ctx context.Context, pkgs []ledger.Package, changes []ledger.VettingChange) (serial int, err error)
	// UpdateVetting applies vetting changes (ledger.ErrConcurrentUpdate
	// when expectedSerial is set and differs).
	UpdateVetting(ctx context.Context, changes []ledger.VettingChange, expectedSerial *int) (serial int, err error)
	// Packages lists every stored package and its vetting, in upload order.
	Packages(ctx context.Context, withArchives bool) ([]ledger.Package, []ledger.Vetting, int, error)
	// PackageArchive returns a package's dalf (ledger.ErrNotFound).
	PackageArchive(ctx context.Context, id string) ([]byte, error)
}

// packageState is the node's uploaded packages, decoded, with their
// vetting. Uploads and vetting changes hold write (one at a time, store
// first, memory after); readers take the current snapshot.
type packageState struct {
	write sync.Mutex // serializes uploads and vetting changes

	mu     sync.RWMutex
	pkgs   map[string]*storedPackage // by id
	order  []string                  // ids in upload order
	serial int
	// generation counts the changes of pkgs and their vetting: an upload
	// checked on one generation is stored only if it is still current.
	generation int
	current    *engine.PackageSet
}

type storedPackage struct {
	pkg     *lf.Package
	info    ledger.Package // without the archive
	vetting ledger.Vetting
}

// loadPackages decodes every stored package; Open calls it.
func (n *Node) loadPackages(ctx context.Context) error {
	stored, vetting, serial, err := n.store.Packages(ctx, true)
	if err != nil {
		return err
	}
	st := &n.packages
	st.mu.Lock()
	defer st.mu.Unlock()
	st.pkgs = make(map[string]*storedPackage, len(stored))
	for i, p := range stored {
		pkg, err := archive.DecodeArchive(p.Archive, archive.Options{AllowDev: true})
		if err != nil {
			return fmt.Errorf("stored package %s: %w", p.ID, err)
		}
		p.Archive = nil
		st.pkgs[p.ID] = &storedPackage{pkg: pkg, info: p, vetting: vetting[i]}
		st.order = append(st.order, p.ID)
	}
	st.serial = serial
	st.current = st.snapshotLocked()
	return nil
}

// snapshotLocked builds the engine's view of the packages; mu is held.
func (st *packageState) snapshotLocked() *engine.PackageSet {
	pkgs := make([]*lf.Package, 0, len(st.pkgs))
	names := make(map[string]string, len(st.pkgs))
	var vetted []engine.VettedPackage
	for _, id := range st.order {
		sp := st.pkgs[id]
		pkgs = append(pkgs, sp.pkg)
		names[id] = sp.info.Name
		if sp.vetting.Vetted {
			vetted = append(vetted, engine.VettedPackage{ID: id, Name: sp.info.Name, Version: sp.info.Version,
				ValidFrom: sp.vetting.ValidFrom, ValidUntil: sp.vetting.ValidUntil})
		}
	}
	return engine.NewPackageSet(typed.NewEnv(pkgs...), names, vetted)
}

// Packages returns the uploaded packages now: their typed environment and
// the vetted versions of each package name.
func (n *Node) Packages() *engine.PackageSet {
	n.packages.mu.RLock()
	defer n.packages.mu.RUnlock()
	return n.packages.current
}

// darError is DAR_PARSE_ERROR for a DAR or dalf that does not decode or
// exceeds a limit of archive.Options (the limit named in the message and
// in the "limit" field), ZIP_BOMB for one that inflates like no real DAR.
// An ended request is its context's error.
func darError(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
		return err
	}
	var le *archive.LimitError
	if errors.As(err, &le) && errors.Is(err, archive.ErrZipBomb) {
		return ledgerapi.NewError(ledgerapi.CodeZipBomb, "Dar zip file seems to be a zip bomb.",
			map[string]string{"msg": err.Error(), "limit": le.Limit})
	}
	if errors.Is(err, archive.ErrInvalidDar) {
		return ledgerapi.NewError(ledgerapi.CodeInvalidDar, "Dar file is corrupt", map[string]string{"reason": err.Error()})
	}
	ctxFields := map[string]string{"reason": err.Error()}
	if le != nil {
		ctxFields["limit"] = le.Limit
	}
	return ledgerapi.NewError(ledgerapi.CodeDarParseError, "Failed to parse the dar file content: "+err.Error(), ctxFields)
}

// decodedDar is an uploaded DAR, decoded: its main package first, then
// the others in manifest order, each with its dalf.
type decodedDar struct {
	main  lf.PackageID
	pkgs  []*lf.Package
	dalfs map[lf.PackageID][]byte
}

// decodeDar reads a DAR as archive.DecodeDar does, with its limits,
// keeping each dalf's bytes for the store; it stops when ctx ends.
func decodeDar(ctx context.Context, dar []byte, allowDev bool) (*decodedDar, error) {
	d, err := archive.DecodeDarContext(ctx, dar, archive.Options{AllowDev: true, KeepArchives: true})
	if err != nil {
		return nil, darError(ctx, err)
	}
	for _, p := range d.Packages {
		if p.LanguageVersion.IsDev() && !allowDev {
			return nil, ledgerapi.NewError(ledgerapi.CodeAllowedLanguageVersions,
				fmt.Sprintf("Disallowed language version in package %s: Expected version range is [2.1, 2.2, 2.3] but got %s (start the node with --allow-lf-dev to accept it)", p.ID, p.LanguageVersion),
				map[string]string{"packageId": string(p.ID), "languageVersion": p.LanguageVersion.String()})
		}
	}
	return &decodedDar{main: d.Main, pkgs: d.Packages, dalfs: d.Archives}, nil
}

// UploadDar stores the packages of a DAR (POST /v2/dars and
// /v2/packages) and, when vet, vets them all. It refuses a DAR that does
// not decode (DAR_PARSE_ERROR), whose new packages do not type-check
// (DAR_VALIDATION_ERROR), holds Daml-LF 2.dev on a node without dev
// packages (ALLOWED_LANGUAGE_VERSIONS), lacks a dependency of its main
// package that the node does not have either (DAR_DEPENDENCIES_NOT_VALID),
// or, when it vets, a package that is not a valid upgrade of the vetted
// packages of its name (NOT_VALID_UPGRADE_PACKAGE, KNOWN_PACKAGE_VERSION).
// Uploading packages the node has is not an error. Its result is the main
// package id.
func (n *Node) UploadDar(ctx context.Context, dar []byte, vet bool) (string, error) {
	return n.uploadDar(ctx, dar, vet, false)
}

// ValidateDar checks a DAR as UploadDar does with vetting, and stores
// nothing (POST /v2/dars/validate).
func (n *Node) ValidateDar(ctx context.Context, dar []byte) (string, error) {
	return n.uploadDar(ctx, dar, true, true)
}

func (n *Node) uploadDar(ctx context.Context, dar []byte, vet, dryRun bool) (string, error) {
	d, err := decodeDar(ctx, dar, n.cfg.AllowDevPackages)
	if err != nil {
		return "", err
	}
	st := &n.packages
	// The checks run on a snapshot, without the write lock, so that a long
	// upgrade check holds up no other upload or vetting change; the write
	// lock is taken to store, and the checks run again on a new snapshot
	// if the packages changed meanwhile.
	for {
		up, err := n.planUpload(ctx, d, vet)
		if err != nil {
			return "", err
		}
		if dryRun || len(up.added) == 0 && len(up.changes) == 0 {
			return string(d.main), nil
		}
		st.write.Lock()
		if st.generation != up.generation {
			st.write.Unlock()
			continue
		}
		err = n.applyUpload(ctx, up)
		st.write.Unlock()
		if err != nil {
			return "", err
		}
		n.log.Info("DAR uploaded", "mainPackage", d.main, "packages", len(d.pkgs), "new", len(up.added), "vetted", len(up.changes))
		return string(d.main), nil
	}
}

// upload is what storing a DAR changes, planned on the packages of one
// generation.
type upload struct {
	generation int
	all        map[string]*lf.Package // the node's packages and the DAR's
	added      []ledger.Package
	changes    []ledger.VettingChange
}

// planUpload checks a DAR against the node's packages now (dependencies,
// and with vet the upgrade lineages of its package names) and returns what
// storing it adds and vets.
func (n *Node) planUpload(ctx context.Context, d *decodedDar, vet bool) (*upload, error) {
	st := &n.packages
	st.mu.RLock()
	known := func(id lf.PackageID) bool { _, ok := st.pkgs[string(id)]; return ok }
	if err := checkDependencies(d, known); err != nil {
		st.mu.RUnlock()
		return nil, err
	}
	up := &upload{generation: st.generation, all: make(map[string]*lf.Package, len(st.pkgs)+len(d.pkgs))}
	vetted := map[string]bool{}
	for id, sp := range st.pkgs {
		up.all[id] = sp.pkg
		vetted[id] = sp.vetting.Vetted
	}
	st.mu.RUnlock()
	for _, p := range d.pkgs {
		if _, ok := up.all[string(p.ID)]; ok {
			continue
		}
		up.all[string(p.ID)] = p
		up.added = append(up.added, ledger.Package{ID: string(p.ID), Name: p.Name, Version: p.Version,
			LanguageVersion: p.LanguageVersion.String(), Archive: d.dalfs[p.ID]})
	}
	if err := validateAdded(ctx, up.added, up.all); err != nil {
		return nil, err
	}
	if vet {
		var names []string
		for _, p := range d.pkgs {
			names = append(names, p.Name)
			if !vetted[string(p.ID)] {
				vetted[string(p.ID)] = true
				up.changes = append(up.changes, ledger.VettingChange{PackageID: string(p.ID), Vetting: ledger.Vetting{Vetted: true}})
			}
		}
		if err := checkLineages(ctx, names, up.all, vetted); err != nil {
			return nil, err
		}
	}
	return up, nil
}

// applyUpload stores a planned upload and makes it the node's packages;
// write is held.
func (n *Node) applyUpload(ctx context.Context, up *upload) error {
	st := &n.packages
	serial, err := n.store.AddPackages(ctx, up.added, up.changes)
	if err != nil {
		return err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	now := n.now().UTC()
	for _, a := range up.added {
		a.Archive, a.UploadedAt = nil, now
		st.pkgs[a.ID] = &storedPackage{pkg: up.all[a.ID], info: a}
		st.order = append(st.order, a.ID)
	}
	for _, c := range up.changes {
		st.pkgs[c.PackageID].vetting = c.Vetting
	}
	st.serial = serial
	st.generation++
	st.current = st.snapshotLocked()
	return nil
}

// checkDependencies requires every package the DAR's main package depends
// on, directly or not, to be in the DAR or on the node. (Canton also
// refuses packages of the DAR that the main package does not need; that
// check needs the list of Daml's stable packages and is not made.)
func checkDependencies(d *decodedDar, known func(lf.PackageID) bool) error {
	inDar := make(map[lf.PackageID]*lf.Package, len(d.pkgs))
	for _, p := range d.pkgs {
		inDar[p.ID] = p
	}
	missing := map[lf.PackageID]bool{}
	seen := map[lf.PackageID]bool{d.main: true}
	queue := []lf.PackageID{d.main}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		p := inDar[id]
		if p == nil {
			continue
		}
		for _, dep := range p.DirectDeps {
			if seen[dep] {
				continue
			}
			seen[dep] = true
			if inDar[dep] == nil && !known(dep) {
				missing[dep] = true
				continue
			}
			queue = append(queue, dep)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	ids := make([]string, 0, len(missing))
	for id := range missing {
		ids = append(ids, string(id))
	}
	sort.Strings(ids)
	return ledgerapi.NewError(ledgerapi.CodeDarDependenciesNotValid,
		"The set of packages in the dar is not self-consistent and is missing dependencies or has extra dependencies",
		map[string]string{"mainPackageId": string(d.main), "missingDependencies": "Set(" + strings.Join(ids, ", ") + ")", "extraDependencies": "Set()"})
}

func pkgLabel(p *lf.Package) string { return fmt.Sprintf("%s (%s v%s)", p.ID, p.Name, p.Version) }

// checkLineages checks, for each package name, that its vetted packages
// ordered by version each upgrade the one before, as Canton does when
// vetting: two packages of one name and version are KNOWN_PACKAGE_VERSION,
// a package that is not a valid upgrade NOT_VALID_UPGRADE_PACKAGE.
func checkLineages(ctx context.Context, names []string, all map[string]*lf.Package, vetted map[string]bool) error {
	want := map[string]bool{}
	for _, nm := range names {
		want[nm] = true
	}
	lineages := map[string][]*lf.Package{}
	for id, p := range all {
		if vetted[id] && want[p.Name] && upgrade.SupportsUpgrades(p) {
			lineages[p.Name] = append(lineages[p.Name], p)
		}
	}
	pkgOf := func(id lf.PackageID) *lf.Package { return all[string(id)] }
	sorted := make([]string, 0, len(lineages))
	for nm := range lineages {
		sorted = append(sorted, nm)
	}
	sort.Strings(sorted)
	for _, nm := range sorted {
		l := lineages[nm]
		slices.SortFunc(l, func(a, b *lf.Package) int {
			if c := upgrade.CompareVersions(a.Version, b.Version); c != 0 {
				return c
			}
			return strings.Compare(string(a.ID), string(b.ID))
		})
		for i := 1; i < len(l); i++ {
			past, present := l[i-1], l[i]
			if upgrade.CompareVersions(past.Version, present.Version) == 0 {
				return ledgerapi.Errorf(ledgerapi.CodeKnownPackageVersion,
					"Tried to vet two packages with the same name and version: %s and %s.", pkgLabel(past), pkgLabel(present))
			}
			if err := upgrade.CheckWithContext(ctx, past, present, pkgOf); err != nil {
				if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
					return err
				}
				return ledgerapi.Errorf(ledgerapi.CodeNotValidUpgradePackage,
					"Upgrade checks indicate that %s cannot be an upgrade of %s. Reason: %v", pkgLabel(present), pkgLabel(past), err)
			}
		}
	}
	return nil
}

// ListPackages returns the ids of every uploaded package, in upload order.
func (n *Node) ListPackages() []string {
	n.packages.mu.RLock()
	defer n.packages.mu.RUnlock()
	return slices.Clone(n.packages.order)
}

// PackagePayload returns the archive payload of an uploaded package, whose
// SHA-256 is its id (PACKAGE_NOT_FOUND).
func (n *Node) PackagePayload(ctx context.Context, id string) ([]byte, error) {
	dalf, err := n.store.PackageArchive(ctx, id)
	if errors.Is(err, ledger.ErrNotFound) {
		return nil, ledgerapi.NewError(ledgerapi.CodePackageNotFound, "Could not find package.", nil).WithResource("PACKAGE", id)
	}
	if err != nil {
		return nil, err
	}
	_, payload, err := archive.ArchivePayload(dalf)
	return payload, err
}

// PackageStatus is PACKAGE_STATUS_REGISTERED for an uploaded package,
// PACKAGE_STATUS_UNSPECIFIED otherwise.
func (n *Node) PackageStatus(id string) string {
	n.packages.mu.RLock()
	defer n.packages.mu.RUnlock()
	if _, ok := n.packages.pkgs[id]; ok {
		return ledgerapi.PackageStatusRegistered
	}
	return ledgerapi.PackageStatusUnspecified
}

// vettedPackages renders the vetted packages matching keep as the node's
// one VettedPackages entry; mu is held.
func (n *Node) vettedPackagesLocked(keep func(sp *storedPackage) bool, vetting func(id string) ledger.Vetting, serial int) ledgerapi.VettedPackages {
	st := &n.packages
	out := ledgerapi.VettedPackages{
		ParticipantID:  n.identity.ParticipantID,
		SynchronizerID: n.identity.SynchronizerID,
		TopologySerial: ledgerapi.Int32(serial),
		Packages:       ledgerapi.List[ledgerapi.VettedPackage]{},
	}
	for _, id := range st.order {
		sp := st.pkgs[id]
		v := vetting(id)
		if !v.Vetted || !keep(sp) {
			continue
		}
		vp := ledgerapi.VettedPackage{PackageID: id, PackageName: sp.info.Name, PackageVersion: sp.info.Version}
		if v.ValidFrom != nil {
			vp.ValidFromInclusive = ledgerapi.TimestampPtr(*v.ValidFrom)
		}
		if v.ValidUntil != nil {
			vp.ValidUntilExclusive = ledgerapi.TimestampPtr(*v.ValidUntil)
		}
		out.Packages = append(out.Packages, vp)
	}
	slices.SortFunc(out.Packages, func(a, b ledgerapi.VettedPackage) int {
		if c := strings.Compare(a.PackageName, b.PackageName); c != 0 {
			return c
		}
		if c := upgrade.CompareVersions(a.PackageVersion, b.PackageVersion); c != 0 {
			return c
		}
		return strings.Compare(a.PackageID, b.PackageID)
	})
	return out
}

// ListVettedPackages answers POST /v2/package-vetting/list: the node's
// vetted packages that match the filters, as one VettedPackages entry (or
// none). Paging is not needed: there is one entry at most.
func (n *Node) ListVettedPackages(req ledgerapi.ListVettedPackagesRequest) (ledgerapi.ListVettedPackagesResponse, error) {
	resp := ledgerapi.ListVettedPackagesResponse{VettedPackages: ledgerapi.List[ledgerapi.VettedPackages]{}}
	if req.PageSize < 0 {
		return resp, ledgerapi.InvalidField("page_size", "Page size must be non-negative")
	}
	if f := req.TopologyStateFilter; f != nil {
		if len(f.ParticipantIDs) > 0 && !slices.ContainsFunc(f.ParticipantIDs, n.IsParticipant) ||
			len(f.SynchronizerIDs) > 0 && !slices.Contains(f.SynchronizerIDs, n.identity.SynchronizerID) {
			return resp, nil
		}
	}
	keep := func(sp *storedPackage) bool { return true }
	if f := req.PackageMetadataFilter; f != nil && (len(f.PackageIDs) > 0 || len(f.PackageNamePrefixes) > 0) {
		keep = func(sp *storedPackage) bool {
			if slices.Contains(f.PackageIDs, sp.info.ID) {
				return true
			}
			for _, p := range f.PackageNamePrefixes {
				if strings.HasPrefix(sp.info.Name, p) {
					return true
				}
			}
			return false
		}
	}
	n.packages.mu.RLock()
	defer n.packages.mu.RUnlock()
	vp := n.vettedPackagesLocked(keep, n.vettingLocked, n.packages.serial)
	if len(vp.Packages) > 0 {
		resp.VettedPackages = append(resp.VettedPackages, vp)
	}
	return resp, nil
}

func (n *Node) vettingLocked(id string) ledger.Vetting { return n.packages.pkgs[id].vetting }

// matchRef lists the stored packages a vetting reference matches; mu is held.
func (n *Node) matchRefLocked(r ledgerapi.VettedPackagesRef) []string {
	var out []string
	for _, id := range n.packages.order {
		sp := n.packages.pkgs[id]
		if (r.PackageID == "" || r.PackageID == id) && (r.PackageName == "" || r.PackageName == sp.info.Name) &&
			(r.PackageVersion == "" || r.PackageVersion == sp.info.Version) {
			out = append(out, id)
		}
	}
	return out
}

func refString(r ledgerapi.VettedPackagesRef) string {
	return fmt.Sprintf("VettedPackagesRef(packageId = %q, packageName = %q, packageVersion = %q)", r.PackageID, r.PackageName, r.PackageVersion)
}

// UpdateVettedPackages applies vetting changes in order (POST
// /v2/package-vetting/update): Vet sets the bounds of the one package each
// reference matches, Unvet removes every package a reference matches. The
// result must not vet a package that does not upgrade the vetted one before
// it (NOT_VALID_UPGRADE_PACKAGE), unless the request's force flags allow it.
// A vetted package's dependencies may stay unvetted: from protocol version
// 35, the version this node runs, Canton supports unvetting dependencies
// (its conformance run on 35 drops the TOPOLOGY_DEPENDENCIES_NOT_VETTED
// case, VettingIT PVCheckUnvettedPackagesExceptWithForceFlag), so
// UPDATE_VETTED_PACKAGES_FORCE_FLAG_ALLOW_UNVETTED_DEPENDENCIES changes
// nothing. dryRun computes the answer without applying it.
func (n *Node) UpdateVettedPackages(ctx context.Context, req ledgerapi.UpdateVettedPackagesRequest) (ledgerapi.UpdateVettedPackagesResponse, error) {
	var resp ledgerapi.UpdateVettedPackagesResponse
	if len(req.Changes) == 0 {
		return resp, ledgerapi.MissingField("changes")
	}
	if s := req.SynchronizerID; s != "" && s != n.identity.SynchronizerID {
		return resp, ledgerapi.InvalidField("synchronizer_id", fmt.Sprintf("this participant is connected to synchronizer %s only", n.identity.SynchronizerID))
	}
	force := map[string]bool{}
	for _, f := range req.UpdateVettedPackagesForceFlags {
		force[f] = true
	}
	// As an upload, the change is checked without the write lock and
	// checked again if the packages changed before it could be stored.
	for {
		resp, retry, err := n.updateVetting(ctx, req, force)
		if !retry {
			return resp, err
		}
	}
}

// updateVetting plans, checks and (unless a dry run) applies a vetting
// change on the packages now; retry is set when they changed before it
// could be stored.
func (n *Node) updateVetting(ctx context.Context, req ledgerapi.UpdateVettedPackagesRequest, force map[string]bool) (resp ledgerapi.UpdateVettedPackagesResponse, retry bool, _ error) {
	st := &n.packages
	st.mu.RLock()
	serial, generation := st.serial, st.generation
	next := make(map[string]ledger.Vetting, len(st.pkgs))
	before := make(map[string]ledger.Vetting, len(st.pkgs))
	for id, sp := range st.pkgs {
		next[id] = sp.vetting
		before[id] = sp.vetting
	}
	var errOut error
	for _, c := range req.Changes {
		switch {
		case c.Vet != nil:
			for _, r := range c.Vet.Packages {
				ids := n.matchRefLocked(r)
				switch {
				case r.PackageID == "" && r.PackageName == "":
					errOut = ledgerapi.InvalidArgument("a vetted package reference needs a package id or a package name")
				case len(ids) == 0:
					errOut = ledgerapi.Errorf(ledgerapi.CodeUnresolvedVettingReference,
						"The vetted package reference %s does not match any package in the package store. Reason: no package matches", refString(r))
				case len(ids) > 1:
					errOut = ledgerapi.Errorf(ledgerapi.CodeAmbiguousVettingReference,
						"The package reference %s matches multiple packages: %s", refString(r), strings.Join(ids, ", "))
				default:
					v := ledger.Vetting{Vetted: true}
					if t := c.Vet.NewValidFromInclusive; t != nil {
						tt := t.Time.UTC()
						v.ValidFrom = &tt
					}
					if t := c.Vet.NewValidUntilExclusive; t != nil {
						tt := t.Time.UTC()
						v.ValidUntil = &tt
					}
					next[ids[0]] = v
				}
			}
		case c.Unvet != nil:
			for _, r := range c.Unvet.Packages {
				// A reference that matches nothing unvets nothing: Canton is
				// lenient here (PackageService.resolveTargetVettingReferences),
				// so that a script may unvet a package "just in case".
				ids := n.matchRefLocked(r)
				if r.PackageID == "" && r.PackageName == "" {
					errOut = ledgerapi.InvalidArgument("a vetted package reference needs a package id or a package name")
				}
				for _, id := range ids {
					next[id] = ledger.Vetting{}
				}
			}
		default:
			errOut = ledgerapi.MissingField("operation")
		}
		if errOut != nil {
			break
		}
	}
	all := make(map[string]*lf.Package, len(st.pkgs))
	for id, sp := range st.pkgs {
		all[id] = sp.pkg
	}
	past := n.vettedPackagesLocked(func(*storedPackage) bool { return true }, n.vettingLocked, serial)
	st.mu.RUnlock()
	if errOut != nil {
		return resp, false, errOut
	}
	if p := req.ExpectedTopologySerial; p != nil {
		var want *int
		if p.Prior != nil {
			w := int(*p.Prior)
			want = &w
		} else if p.NoPrior {
			w := 0
			want = &w
		}
		if want != nil && *want != serial {
			return resp, false, ledgerapi.Errorf(ledgerapi.CodeTopologySerialMismatch,
				"The provided serial Some(%d) did not match the expected serial Some(%d).", *want, serial)
		}
	}
	var changes []ledger.VettingChange
	vettedNow := map[string]bool{}
	var names []string
	for id, v := range next {
		vettedNow[id] = v.Vetted
		old := before[id]
		if !sameVetting(old, v) {
			changes = append(changes, ledger.VettingChange{PackageID: id, Vetting: v})
			names = append(names, all[id].Name)
		}
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].PackageID < changes[j].PackageID })
	if !force[ledgerapi.ForceAllowVetIncompatibleUpgrades] {
		if err := checkLineages(ctx, names, all, vettedNow); err != nil {
			return resp, false, err
		}
	}
	newSerial := serial
	if len(changes) > 0 {
		newSerial = serial + 1
	}
	if !req.DryRun && len(changes) > 0 {
		st.write.Lock()
		defer st.write.Unlock()
		if st.generation != generation {
			return resp, true, nil
		}
		s, err := n.store.UpdateVetting(ctx, changes, &serial)
		if errors.Is(err, ledger.ErrConcurrentUpdate) {
			return resp, false, ledgerapi.Errorf(ledgerapi.CodeTopologySerialMismatch, "The vetting state changed concurrently; retry")
		}
		if err != nil {
			return resp, false, err
		}
		newSerial = s
		st.mu.Lock()
		for _, c := range changes {
			st.pkgs[c.PackageID].vetting = c.Vetting
		}
		st.serial = s
		st.generation++
		st.current = st.snapshotLocked()
		st.mu.Unlock()
	}
	st.mu.RLock()
	resp.NewVettedPackages = n.vettedPackagesLocked(func(*storedPackage) bool { return true },
		func(id string) ledger.Vetting { return next[id] }, newSerial)
	st.mu.RUnlock()
	if serial > 0 {
		resp.PastVettedPackages = &past
	}
	return resp, false, nil
}

func sameVetting(a, b ledger.Vetting) bool {
	eq := func(x, y *time.Time) bool { return x == nil && y == nil || x != nil && y != nil && x.Equal(*y) }
	return a.Vetted == b.Vetted && eq(a.ValidFrom, b.ValidFrom) && eq(a.ValidUntil, b.ValidUntil)
}

// PreferredPackages answers POST
// /v2/interactive-submission/preferred-packages: for each requirement, the
// highest version of the package name vetted at vettingValidAt (now when
// unset) by this participant, which must host every party of it
// (NO_PREFERRED_PACKAGES_FOUND otherwise).
func (n *Node) PreferredPackages(ctx context.Context, req ledgerapi.GetPreferredPackagesRequest) (ledgerapi.GetPreferredPackagesResponse, error) {
	resp := ledgerapi.GetPreferredPackagesResponse{SynchronizerID: n.identity.SynchronizerID, PackageReferences: ledgerapi.List[ledgerapi.PackageReference]{}}
	if err := n.checkPreferenceRequest(ctx, req.PackageVettingRequirements, req.SynchronizerID); err != nil {
		return resp, err
	}
	at := n.now()
	if req.VettingValidAt != nil {
		at = req.VettingValidAt.Time
	}
	set := n.Packages()
	for _, r := range req.PackageVettingRequirements {
		v, ok := set.Preferred(r.PackageName, at, nil)
		if !ok {
			return resp, noPreference(n.identity.SynchronizerID, fmt.Sprintf("No package with package-name '%s' is consistently vetted by all hosting participants of party %s.", r.PackageName, r.Parties[0]))
		}
		resp.PackageReferences = append(resp.PackageReferences, ledgerapi.PackageReference{PackageID: v.ID, PackageName: v.Name, PackageVersion: v.Version})
	}
	return resp, nil
}

// checkPreferenceRequest checks a preference request in Canton's order
// (GetPreferredPackagesRequestValidator, then PackagePreferenceBackend):
// the requirements' package names and parties as Daml-LF strings, the
// synchronizer id as a unique identifier, every package name uploaded
// (PACKAGE_NAMES_NOT_FOUND), the synchronizer the node's
// (INVALID_PRESCRIBED_SYNCHRONIZER_ID) and every party hosted here
// (UNKNOWN_INFORMEES).
func (n *Node) checkPreferenceRequest(ctx context.Context, reqs []ledgerapi.PackageVettingRequirement, sync string) error {
	if len(reqs) == 0 {
		return ledgerapi.MissingField("package_vetting_requirements/packageVettingRequirements")
	}
	for _, r := range reqs {
		if r.PackageName == "" {
			return ledgerapi.MissingField("package_name/packageName")
		}
		if why := ledgerapi.DamlLFPackageNameReason(r.PackageName); why != "" {
			return ledgerapi.InvalidField("package_name/packageName", why)
		}
		if len(r.Parties) == 0 {
			return ledgerapi.MissingField("parties")
		}
		for _, p := range r.Parties {
			if why := ledgerapi.DamlLFPartyReason(p); why != "" {
				return ledgerapi.InvalidArgument("%s", why)
			}
		}
	}
	if err := n.checkPreferenceSynchronizer(sync); err != nil {
		return err
	}
	set := n.Packages()
	var unknownNames []string
	for _, r := range reqs {
		if !set.HasName(r.PackageName) && !slices.Contains(unknownNames, r.PackageName) {
			unknownNames = append(unknownNames, r.PackageName)
		}
	}
	if len(unknownNames) > 0 {
		return ledgerapi.Errorf(ledgerapi.CodePackageNamesNotFound,
			"The following package names do not match upgradable packages uploaded on this participant: [%s].", strings.Join(unknownNames, ", "))
	}
	var unknown []string
	for _, r := range reqs {
		for _, p := range r.Parties {
			known, err := n.parties.IsKnownParty(ctx, p)
			if err != nil {
				return err
			}
			if !known && !slices.Contains(unknown, p) {
				unknown = append(unknown, p)
			}
		}
	}
	if len(unknown) > 0 {
		return ledgerapi.NewError(engine.CodeUnknownInformees,
			"The participant is not connected to any synchronizer where the given informees are known.",
			map[string]string{"unknownInformees": strings.Join(unknown, ",")})
	}
	return nil
}

func noPreference(sync, reason string) error {
	return ledgerapi.Errorf(ledgerapi.CodeNoPreferredPackagesFound,
		"Failed to compute package preferences. Reason: No synchronizer satisfies the vetting requirements. Discarded synchronizers: %s: %s", sync, reason)
}

// checkPreferenceSynchronizer reads a prescribed synchronizer as Canton's
// FieldValidator.optionalSynchronizerId (a unique identifier, or
// INVALID_FIELD), then as routing does (this node's, or
// INVALID_PRESCRIBED_SYNCHRONIZER_ID).
func (n *Node) checkPreferenceSynchronizer(s string) error {
	const field = "synchronizer_id/synchronizerId"
	if s == "" || s == n.identity.SynchronizerID {
		return nil
	}
	switch pos := strings.Index(s, "::"); {
	case pos < 0:
		return ledgerapi.InvalidField(field, fmt.Sprintf("Invalid unique identifier `%s` with missing namespace.", s))
	case pos == 0:
		return ledgerapi.InvalidField(field, fmt.Sprintf("Invalid unique identifier `%s` with empty identifier.", s))
	}
	return ledgerapi.NewError(engine.CodeInvalidPrescribedSynchronizerID,
		fmt.Sprintf("Cannot submit transaction to prescribed synchronizer `%s` because: cannot resolve %s to a physical synchronizer id", s, s),
		map[string]string{"synchronizer_id": s})
}

// PreferredPackageVersion answers GET
// /v2/interactive-submission/preferred-package-version: the preferred
// package of a name for parties, or nil when there is none.
func (n *Node) PreferredPackageVersion(ctx context.Context, packageName string, parties []string, validAt *time.Time, synchronizerID string) (ledgerapi.GetPreferredPackageVersionResponse, error) {
	var resp ledgerapi.GetPreferredPackageVersionResponse
	// Canton asks the same question as preferred-packages with one
	// requirement, and answers no preference where that finds none.
	reqs := []ledgerapi.PackageVettingRequirement{{Parties: parties, PackageName: packageName}}
	if err := n.checkPreferenceRequest(ctx, reqs, synchronizerID); err != nil {
		return resp, err
	}
	at := n.now()
	if validAt != nil {
		at = *validAt
	}
	v, ok := n.Packages().Preferred(packageName, at, nil)
	if !ok {
		return resp, nil
	}
	resp.PackagePreference = &ledgerapi.PackagePreference{
		PackageReference: ledgerapi.PackageReference{PackageID: v.ID, PackageName: v.Name, PackageVersion: v.Version},
		SynchronizerID:   n.identity.SynchronizerID,
	}
	return resp, nil
}
