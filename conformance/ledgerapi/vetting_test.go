package ledgerapi

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/internal/dalfedit"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// postDar posts a DAR to path (with its query) as the admin.
func (p *participant) postDar(t *testing.T, path string, dar []byte) answer {
	t.Helper()
	req, err := http.NewRequest("POST", p.url+path, bytes.NewReader(dar))
	if err != nil {
		t.Fatal(err)
	}
	if p.admin != "" {
		req.Header.Set("Authorization", "Bearer "+p.admin)
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, b}
}

// vettingDars are the test tool's vetting DARs, made of real ones:
// vetting-main 1.0.0, 2.0.0 and an upgrade-incompatible 3.0.0 are Ping
// 3.4.0, 3.4.1 and 3.5.0 without its AbortPing choice; the split-lineage
// 2.0.0 is another Ping 3.4.1 (one more interned string: another package
// id); vetting-dep is Ping's dependency daml-stdlib (with the rest of the
// DAR's dependencies, its "DAR"); vetting-alt is the token standard's
// metadata package, which nothing here depends on.
type vettingDars struct {
	mainV1, mainV2, mainV3, splitV2, alt []byte
	mainV1ID, mainV2ID, mainV3ID, splitV2ID, altID,
	depID, depName, mainName string
	depAll  []string // every package of Ping's DAR but its main one
	altDeps []string // every package of vetting-alt's DAR but its main one
}

func newVettingDars(t *testing.T) vettingDars {
	t.Helper()
	edit := func(f func(p *dalfedit.Package) error) []byte {
		out, err := dalfedit.EditMainDalf(pingDar(t), f)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	d := vettingDars{
		mainV1: pingDar(t),
		mainV2: edit(func(p *dalfedit.Package) error { return p.SetVersion("3.4.1") }),
		mainV3: edit(func(p *dalfedit.Package) error {
			if err := p.SetVersion("3.5.0"); err != nil {
				return err
			}
			if err := p.DropChoice("Canton.Internal.Ping", "Ping", "AbortPing"); err != nil {
				return err
			}
			// and the HasExercise instance that names it
			return p.DropValue("Canton.Internal.Ping", "$$fHasExercisePingAbortPing$u0028$u0029")
		}),
		splitV2: edit(func(p *dalfedit.Package) error {
			p.String("another lineage")
			return p.SetVersion("3.4.1")
		}),
		alt:      sharedDar(t, "splice-api-token-metadata-v1-1.0.0.dar"),
		mainName: "canton-builtin-admin-workflow-ping",
		depName:  "daml-stdlib",
	}
	d.mainV1ID, d.mainV2ID, d.mainV3ID = mainPackage(t, d.mainV1), mainPackage(t, d.mainV2), mainPackage(t, d.mainV3)
	d.splitV2ID, d.altID = mainPackage(t, d.splitV2), mainPackage(t, d.alt)
	dar, err := archive.DecodeDar(d.mainV1, archive.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range dar.Packages {
		if pkg.ID == dar.Main {
			continue
		}
		d.depAll = append(d.depAll, string(pkg.ID))
		if pkg.Name == d.depName {
			d.depID = string(pkg.ID)
		}
	}
	alt, err := archive.DecodeDar(d.alt, archive.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range alt.Packages {
		if pkg.ID != alt.Main {
			d.altDeps = append(d.altDeps, string(pkg.ID))
		}
	}
	if d.depID == "" {
		t.Fatalf("Ping's DAR has no %s", d.depName)
	}
	return d
}

// VettingIT.scala, on one participant and one synchronizer: the cases
// that need two participants or two synchronizers
// (PVListVettedPackagesMultiSynchronizer, PVListVettedPackagesPagination,
// PVListVettedPackagesAsymmetricSynchronizer) are not ported. Each case
// starts a node of its own, as the Scala cases run one at a time and
// unvet everything after them.
func TestVettingIT(t *testing.T) {
	d := newVettingDars(t)
	type node_ struct {
		*participant
		participantID, sync string
	}
	// start is a node in the state Canton's participant starts in: it has
	// a vetting state (Canton vets its admin workflows and their
	// dependencies at startup; here vetting-alt's dependencies, which the
	// assertions do not name), and vetting-alt uploaded but not vetted.
	start := func(t *testing.T) node_ {
		p := startParticipant(t, node.Config{})
		var pid ledgerapi.GetParticipantIDResponse
		p.ok(t, "GET", "/v2/parties/participant-id", nil, &pid)
		n := node_{p, pid.ParticipantID, p.synchronizer(t)}
		if a := n.postDar(t, "/v2/dars?vetAllPackages=false", d.alt); a.status != 200 {
			t.Fatalf("upload vetting-alt: %d %s", a.status, a.body)
		}
		var r ledgerapi.UpdateVettedPackagesResponse
		changes := []ledgerapi.VettedPackagesChange{{Vet: &ledgerapi.VetPackages{}}}
		for _, id := range d.altDeps {
			changes[0].Vet.Packages = append(changes[0].Vet.Packages, ledgerapi.VettedPackagesRef{PackageID: id})
		}
		n.ok(t, "POST", "/v2/package-vetting/update", ledgerapi.UpdateVettedPackagesRequest{Changes: changes, SynchronizerID: n.sync}, &r)
		return n
	}
	// uploaded are the DARs uploaded without vetting: uploading one again
	// changes nothing, so it is skipped.
	uploaded := map[*byte]bool{}
	upload := func(t *testing.T, n node_, dar []byte, vet bool) {
		t.Helper()
		if !vet && uploaded[&dar[0]] {
			return
		}
		uploaded[&dar[0]] = true
		q := "/v2/dars?vetAllPackages=false"
		if vet {
			q = "/v2/dars"
		}
		if a := n.postDar(t, q, dar); a.status != 200 {
			t.Fatalf("upload: %d %s", a.status, a.body)
		}
	}
	list := func(t *testing.T, n node_, ids, prefixes []string) ledgerapi.ListVettedPackagesResponse {
		t.Helper()
		var r ledgerapi.ListVettedPackagesResponse
		n.ok(t, "POST", "/v2/package-vetting/list", ledgerapi.ListVettedPackagesRequest{
			PackageMetadataFilter: &ledgerapi.PackageMetadataFilter{PackageIDs: ids, PackageNamePrefixes: prefixes},
			TopologyStateFilter:   &ledgerapi.TopologyStateFilter{ParticipantIDs: []string{n.participantID}, SynchronizerIDs: []string{n.sync}},
		}, &r)
		return r
	}
	// has is the test tool's assertVettedPackagesHasPkgIds.
	has := func(t *testing.T, what string, n node_, vp ledgerapi.VettedPackages, in, out []string) {
		t.Helper()
		var ids []string
		for _, p := range vp.Packages {
			ids = append(ids, p.PackageID)
		}
		for _, id := range in {
			if !slices.Contains(ids, id) {
				t.Errorf("%s: %s is not vetted", what, id)
			}
		}
		for _, id := range out {
			if slices.Contains(ids, id) {
				t.Errorf("%s: %s is vetted", what, id)
			}
		}
		if vp.SynchronizerID != n.sync || vp.ParticipantID != n.participantID {
			t.Errorf("%s: vetted on %s by %s, want %s by %s", what, vp.SynchronizerID, vp.ParticipantID, n.sync, n.participantID)
		}
	}
	listHas := func(t *testing.T, what string, n node_, r ledgerapi.ListVettedPackagesResponse, in, out []string) {
		t.Helper()
		if len(r.VettedPackages) != 1 {
			t.Fatalf("%s: %d vetting states, want 1", what, len(r.VettedPackages))
		}
		has(t, what, n, r.VettedPackages[0], in, out)
	}
	allVersions := func(t *testing.T, what string, n node_, r ledgerapi.ListVettedPackagesResponse) {
		t.Helper()
		listHas(t, what, n, r, []string{d.depID, d.mainV2ID, d.mainV1ID}, []string{d.altID})
	}
	v2 := func(t *testing.T, what string, n node_, r ledgerapi.ListVettedPackagesResponse) {
		t.Helper()
		listHas(t, what, n, r, []string{d.depID, d.mainV2ID}, []string{d.altID, d.mainV1ID})
	}
	dep := func(t *testing.T, what string, n node_, r ledgerapi.ListVettedPackagesResponse) {
		t.Helper()
		listHas(t, what, n, r, []string{d.depID}, []string{d.mainV2ID, d.altID})
	}
	nothing := func(t *testing.T, what string, n node_, r ledgerapi.ListVettedPackagesResponse) {
		t.Helper()
		listHas(t, what, n, r, nil, []string{d.depID, d.mainV1ID, d.mainV2ID, d.altID})
	}
	type ref = ledgerapi.VettedPackagesRef
	refs := func(ids ...string) []ref {
		out := make([]ref, len(ids))
		for i, id := range ids {
			out[i] = ref{PackageID: id}
		}
		return out
	}
	vet := func(rs []ref, from, until *ledgerapi.Timestamp) ledgerapi.VettedPackagesChange {
		return ledgerapi.VettedPackagesChange{Vet: &ledgerapi.VetPackages{Packages: rs, NewValidFromInclusive: from, NewValidUntilExclusive: until}}
	}
	unvet := func(rs []ref) ledgerapi.VettedPackagesChange {
		return ledgerapi.VettedPackagesChange{Unvet: &ledgerapi.UnvetPackages{Packages: rs}}
	}
	request := func(n node_, changes ...ledgerapi.VettedPackagesChange) ledgerapi.UpdateVettedPackagesRequest {
		return ledgerapi.UpdateVettedPackagesRequest{Changes: changes, SynchronizerID: n.sync}
	}
	update := func(t *testing.T, n node_, req ledgerapi.UpdateVettedPackagesRequest) ledgerapi.UpdateVettedPackagesResponse {
		t.Helper()
		var r ledgerapi.UpdateVettedPackagesResponse
		n.ok(t, "POST", "/v2/package-vetting/update", req, &r)
		return r
	}
	updateFails := func(t *testing.T, n node_, req ledgerapi.UpdateVettedPackagesRequest, code string) {
		t.Helper()
		n.mustFail(t, "POST", "/v2/package-vetting/update", req, failure{code: code})
	}
	// changed is assertUpdateResponseChangedPkgIds.
	changed := func(t *testing.T, what string, n node_, r ledgerapi.UpdateVettedPackagesResponse, in, out []string) {
		t.Helper()
		if r.PastVettedPackages == nil {
			t.Fatalf("%s: no past vetted packages", what)
		}
		has(t, what+" (past)", n, *r.PastVettedPackages, out, in)
		has(t, what+" (new)", n, r.NewVettedPackages, in, out)
	}
	vetAllInDep := func(t *testing.T, n node_) ledgerapi.UpdateVettedPackagesResponse {
		t.Helper()
		return update(t, n, request(n, vet(refs(d.depAll...), nil, nil)))
	}
	// unvetAll is the Scala unvetAllDARMains.
	unvetAll := func(t *testing.T, n node_) {
		t.Helper()
		update(t, n, request(n, unvet(refs(d.depID, d.mainV1ID, d.mainV2ID, d.altID, d.splitV2ID, d.mainV3ID))))
	}
	// One node for the suite, as the Scala cases share their participant
	// and run one at a time, each unvetting every DAR's main package after
	// it (here: before it too, as the test tool's updateTest does).
	shared := start(t)
	run := func(name string, act func(t *testing.T, n node_)) {
		t.Run(name, func(t *testing.T) {
			unvetAll(t, shared)
			act(t, shared)
			unvetAll(t, shared)
		})
	}
	// updateTest is the Scala updateTest: the DARs uploaded, nothing vetted.
	updateTest := func(name string, act func(t *testing.T, n node_)) {
		run(name, func(t *testing.T, n node_) {
			for _, dar := range [][]byte{d.mainV1, d.mainV2} {
				upload(t, n, dar, false)
			}
			unvetAll(t, n)
			act(t, n)
		})
	}

	run("PVListVettedPackagesBasic", func(t *testing.T, n node_) {
		upload(t, n, d.mainV1, true)
		upload(t, n, d.mainV2, true)
		upload(t, n, d.alt, false)
		allVersions(t, "all", n, list(t, n, nil, nil))
		dep(t, "dep name", n, list(t, n, nil, []string{d.depName}))
		allVersions(t, "both names", n, list(t, n, nil, []string{d.depName, d.mainName}))
		dep(t, "dep id", n, list(t, n, []string{d.depID}, nil))
		v2(t, "both ids", n, list(t, n, []string{d.depID, d.mainV2ID}, nil))
		dep(t, "dep id and name", n, list(t, n, []string{d.depID}, []string{d.depName}))
		allVersions(t, "both ids and names", n, list(t, n, []string{d.depID, d.mainV2ID}, []string{d.depName, d.mainName}))
		allVersions(t, "disjoint id and name", n, list(t, n, []string{d.depID}, []string{d.mainName}))
	})

	run("PVUploadDarFileBasic", func(t *testing.T, n node_) {
		upload(t, n, d.mainV2, true)
		upload(t, n, d.alt, false)
		v2(t, "all", n, list(t, n, nil, nil))
	})

	updateTest("PVUpdateVetDepThenV2Succeeds", func(t *testing.T, n node_) {
		vetDep := vetAllInDep(t, n)
		vetMain := update(t, n, request(n, vet(refs(d.mainV2ID), nil, nil)))
		v2(t, "all", n, list(t, n, nil, nil))
		changed(t, "vet dep", n, vetDep, []string{d.depID}, nil)
		changed(t, "vet main", n, vetMain, []string{d.mainV2ID}, nil)
	})

	updateTest("PVUpdateUnvetV2Succeeds", func(t *testing.T, n node_) {
		update(t, n, request(n, vet(refs(append([]string{d.mainV2ID}, d.depAll...)...), nil, nil)))
		unvetMain := update(t, n, request(n, unvet(refs(d.mainV2ID))))
		dep(t, "all", n, list(t, n, nil, nil))
		changed(t, "unvet main", n, unvetMain, nil, []string{d.mainV2ID})
	})

	updateTest("PVUpdateVetTwoPackagesAtATimeSucceeds", func(t *testing.T, n node_) {
		vetBoth := update(t, n, request(n, vet(refs(append([]string{d.mainV2ID}, d.depAll...)...), nil, nil)))
		v2(t, "all", n, list(t, n, nil, nil))
		changed(t, "vet both", n, vetBoth, []string{d.depID, d.mainV2ID}, nil)
	})

	updateTest("PVUpdateVetMultipleByNameFails", func(t *testing.T, n node_) {
		vetAllInDep(t, n)
		updateFails(t, n, request(n, vet([]ref{{PackageName: d.mainName}}, nil, nil)), "AMBIGUOUS_VETTING_REFERENCE")
	})

	updateTest("PVUpdateVetNonexistentNameFails", func(t *testing.T, n node_) {
		vetAllInDep(t, n)
		updateFails(t, n, request(n, vet([]ref{{PackageName: "nonexistent-name"}}, nil, nil)), "UNRESOLVED_VETTING_REFERENCE")
	})

	updateTest("PVUpdateVetByNameAndVersion", func(t *testing.T, n node_) {
		vetAllInDep(t, n)
		vetMain := update(t, n, request(n, vet([]ref{{PackageName: d.mainName, PackageVersion: "3.4.1"}}, nil, nil)))
		v2(t, "all", n, list(t, n, nil, nil))
		changed(t, "vet main", n, vetMain, []string{d.mainV2ID}, nil)
	})

	updateTest("PVUpdateVetByNameAndNonexistentVersion", func(t *testing.T, n node_) {
		vetAllInDep(t, n)
		updateFails(t, n, request(n, vet([]ref{{PackageName: d.mainName, PackageVersion: "4.0.0"}}, nil, nil)), "UNRESOLVED_VETTING_REFERENCE")
	})

	updateTest("PVUpdateVetByIdAndNameAndVersion", func(t *testing.T, n node_) {
		vetAllInDep(t, n)
		vetMain := update(t, n, request(n, vet([]ref{{PackageID: d.mainV2ID, PackageName: d.mainName, PackageVersion: "3.4.1"}}, nil, nil)))
		v2(t, "all", n, list(t, n, nil, nil))
		changed(t, "vet main", n, vetMain, []string{d.mainV2ID}, nil)
	})

	updateTest("PVUpdateVetByIdWithWrongName", func(t *testing.T, n node_) {
		vetAllInDep(t, n)
		updateFails(t, n, request(n, vet([]ref{{PackageID: d.mainV2ID, PackageName: "nonexistent-name", PackageVersion: "3.4.1"}}, nil, nil)), "UNRESOLVED_VETTING_REFERENCE")
	})

	updateTest("PVUpdateVetByIdWithWrongVersion", func(t *testing.T, n node_) {
		vetAllInDep(t, n)
		updateFails(t, n, request(n, vet([]ref{{PackageID: d.mainV2ID, PackageName: d.mainName, PackageVersion: "4.0.0"}}, nil, nil)), "UNRESOLVED_VETTING_REFERENCE")
	})

	serial := func(s int32) *ledgerapi.PriorTopologySerial { return &ledgerapi.PriorTopologySerial{Prior: &s} }
	updateTest("PVUpdateVetWithSerial", func(t *testing.T, n node_) {
		prior0 := list(t, n, nil, nil).VettedPackages[0].TopologySerial
		req := request(n, vet(refs(d.depAll...), nil, nil))
		req.ExpectedTopologySerial = serial(int32(prior0))
		r1 := update(t, n, req)
		if r1.PastVettedPackages == nil || r1.PastVettedPackages.TopologySerial != prior0 || r1.NewVettedPackages.TopologySerial == prior0 {
			t.Fatalf("serials after the first change: %+v", r1)
		}
		prior1 := r1.NewVettedPackages.TopologySerial
		req = request(n, vet(refs(d.mainV2ID), nil, nil))
		req.ExpectedTopologySerial = serial(int32(prior1))
		r2 := update(t, n, req)
		if r2.PastVettedPackages == nil || r2.PastVettedPackages.TopologySerial != prior1 || r2.NewVettedPackages.TopologySerial == prior1 {
			t.Errorf("serials after the second change: past %v new %d, want past %d", r2.PastVettedPackages, r2.NewVettedPackages.TopologySerial, prior1)
		}
	})

	for _, c := range []struct {
		name   string
		dryRun bool
	}{{"PVUpdateVetWithWrongSerial", false}, {"PVDryRunWithWrongSerial", true}} {
		updateTest(c.name, func(t *testing.T, n node_) {
			r1 := vetAllInDep(t, n)
			if r1.NewVettedPackages.TopologySerial == 1 {
				t.Fatal("the serial after a change is still 1")
			}
			req := request(n, vet(refs(d.mainV2ID), nil, nil))
			req.DryRun, req.ExpectedTopologySerial = c.dryRun, serial(1)
			updateFails(t, n, req, "TOPOLOGY_SERIAL_MISMATCH")
		})
	}

	run("PVListVettedPackagesNothingVetted", func(t *testing.T, n node_) {
		upload(t, n, d.mainV2, false)
		upload(t, n, d.alt, false)
		nothing(t, "all", n, list(t, n, nil, nil))
	})

	run("PVDryRun", func(t *testing.T, n node_) {
		upload(t, n, d.mainV2, false)
		upload(t, n, d.alt, false)
		req := request(n, vet(refs(d.altID), nil, nil))
		req.DryRun = true
		r := update(t, n, req)
		if r.PastVettedPackages == nil {
			t.Fatal("no past vetted packages")
		}
		has(t, "past", n, *r.PastVettedPackages, nil, []string{d.depID, d.mainV2ID, d.altID})
		has(t, "new", n, r.NewVettedPackages, []string{d.altID}, []string{d.depID, d.mainV2ID})
		nothing(t, "after the dry run", n, list(t, n, nil, nil))
	})

	run("PVWritingAndOverwritingBounds", func(t *testing.T, n node_) {
		upload(t, n, d.mainV1, false)
		upload(t, n, d.mainV2, false)
		upload(t, n, d.alt, false)
		vetAllInDep(t, n)
		at := func(s int64) *ledgerapi.Timestamp { ts := ledgerapi.NewTimestamp(time.Unix(s, 0).UTC()); return &ts }
		update(t, n, request(n, vet(refs(d.mainV2ID), at(0), at(1))))
		bounds := func(what, id string, from, until int64) {
			t.Helper()
			r := list(t, n, nil, nil)
			for _, p := range r.VettedPackages[0].Packages {
				if p.PackageID != id {
					continue
				}
				if p.ValidFromInclusive == nil || p.ValidUntilExclusive == nil || p.ValidFromInclusive.Unix() != from || p.ValidUntilExclusive.Unix() != until {
					t.Errorf("%s: %s vetted from %v until %v, want %d to %d", what, id, p.ValidFromInclusive, p.ValidUntilExclusive, from, until)
				}
				return
			}
			t.Errorf("%s: %s not vetted", what, id)
		}
		bounds("first bounds", d.mainV2ID, 0, 1)
		update(t, n, request(n, vet(refs(d.mainV2ID, d.altID), at(2), at(3))))
		bounds("second bounds", d.mainV2ID, 2, 3)
		bounds("second bounds", d.altID, 2, 3)
	})

	run("PVValidateDarCheckUpgradeInvariants", func(t *testing.T, n node_) {
		upload(t, n, d.mainV2, true)
		for _, c := range []struct {
			dar  []byte
			code string
		}{{d.splitV2, "KNOWN_PACKAGE_VERSION"}, {d.mainV3, "NOT_VALID_UPGRADE_PACKAGE"}} {
			a := n.postDar(t, "/v2/dars/validate?synchronizerId="+n.sync, c.dar)
			e, err := ledgerapi.DecodeError(a.body)
			if a.status == 200 || err != nil || e.Code != c.code {
				t.Errorf("validate: %d %s, want %s", a.status, a.body, c.code)
			}
		}
	})

	// Canton 3.5 on protocol version 35 runs this case and drops
	// PVCheckUnvettedPackagesExceptWithForceFlag (the protocol-34 rule):
	// a package is vetted without its dependencies, or while they are
	// unvetted, with no force flag, dry run or not.
	run("PVUnvettedDependenciesSupported", func(t *testing.T, n node_) {
		upload(t, n, d.mainV2, false)
		mainOnly := func(dryRun bool) ledgerapi.UpdateVettedPackagesRequest {
			r := request(n, vet(refs(d.mainV2ID), nil, nil))
			r.DryRun = dryRun
			return r
		}
		update(t, n, mainOnly(true))
		vetted := update(t, n, mainOnly(false))
		has(t, "main without its dependencies", n, vetted.NewVettedPackages, []string{d.mainV2ID}, nil)
		update(t, n, request(n, unvet(refs(d.mainV2ID))))
		vetAllInDep(t, n)
		whileUnvetting := func(dryRun bool) ledgerapi.UpdateVettedPackagesRequest {
			r := request(n, vet(refs(d.mainV2ID), nil, nil), unvet(refs(d.depID)))
			r.DryRun = dryRun
			return r
		}
		update(t, n, whileUnvetting(true))
		update(t, n, whileUnvetting(false))
		update(t, n, request(n, unvet(refs(d.mainV2ID))))
	})

	run("PVCheckUpgradeInvariantsExceptWithForceFlag", func(t *testing.T, n node_) {
		upload(t, n, d.mainV2, false)
		upload(t, n, d.mainV3, false)
		upload(t, n, d.splitV2, false)
		vetAllInDep(t, n)
		force := []string{"UPDATE_VETTED_PACKAGES_FORCE_FLAG_ALLOW_VET_INCOMPATIBLE_UPGRADES"}
		both := func(ids []string, dryRun bool, flags []string) ledgerapi.UpdateVettedPackagesRequest {
			r := request(n, vet(refs(ids...), nil, nil))
			r.DryRun, r.UpdateVettedPackagesForceFlags = dryRun, flags
			return r
		}
		incompatible := []string{d.mainV2ID, d.mainV3ID}
		updateFails(t, n, both(incompatible, true, nil), "NOT_VALID_UPGRADE_PACKAGE")
		updateFails(t, n, both(incompatible, false, nil), "NOT_VALID_UPGRADE_PACKAGE")
		update(t, n, both(incompatible, true, force))
		update(t, n, both(incompatible, false, force))
		sameVersion := []string{d.mainV2ID, d.splitV2ID}
		updateFails(t, n, both(sameVersion, true, nil), "KNOWN_PACKAGE_VERSION")
		updateFails(t, n, both(sameVersion, false, nil), "KNOWN_PACKAGE_VERSION")
		update(t, n, both(sameVersion, true, force))
		update(t, n, both(sameVersion, false, force))
	})

	run("PVUnvetPackageWithActiveContracts", func(t *testing.T, n node_) {
		upload(t, n, d.mainV1, false)
		upload(t, n, d.mainV2, false)
		vetMain := update(t, n, request(n, vet(refs(append([]string{d.mainV1ID}, d.depAll...)...), nil, nil)))
		party := n.allocate(t, "party")
		n.create(t, party, d.mainV1ID+":Canton.Internal.Ping:Ping", pingArgs(party, party))
		unvetMain := update(t, n, request(n, unvet(refs(d.mainV1ID))))
		has(t, "vet main", n, vetMain.NewVettedPackages, []string{d.mainV1ID}, nil)
		has(t, "unvet main", n, unvetMain.NewVettedPackages, nil, []string{d.mainV1ID})
	})
}
