package engine

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/upgrade"
)

// PackageSet is a set of packages at one moment, immutable: the typed
// environment of every package (a node's uploaded packages, a signer's
// DARs), their names, and the vetted ones, by which a package name resolves
// to a package id. A node makes a new one whenever an upload or a vetting
// change is committed.
type PackageSet struct {
	// Env holds every uploaded package (vetted or not).
	Env    *typed.Env
	names  map[string]string
	byName map[string][]VettedPackage // highest version first

	interpOnce sync.Once
	interp     *interp.Engine

	ifaceOnce sync.Once
	ifaces    *interfaceIndex
}

// VettedPackage is a vetted package with its name, version and validity.
type VettedPackage struct {
	ID, Name, Version     string
	ValidFrom, ValidUntil *time.Time
}

// ValidAt reports whether the vetting holds at t.
func (v VettedPackage) ValidAt(t time.Time) bool {
	return (v.ValidFrom == nil || !t.Before(*v.ValidFrom)) && (v.ValidUntil == nil || t.Before(*v.ValidUntil))
}

// NewPackageSet returns the set of env's packages, named by names (package
// id → package name), of which vetted are vetted.
func NewPackageSet(env *typed.Env, names map[string]string, vetted []VettedPackage) *PackageSet {
	s := &PackageSet{Env: env, names: names, byName: map[string][]VettedPackage{}}
	for _, v := range vetted {
		s.byName[v.Name] = append(s.byName[v.Name], v)
	}
	for _, vs := range s.byName {
		slices.SortFunc(vs, func(a, b VettedPackage) int {
			if c := upgrade.CompareVersions(b.Version, a.Version); c != 0 {
				return c
			}
			return strings.Compare(b.ID, a.ID)
		})
	}
	return s
}

// Interpreter returns the Daml-LF interpreter over every uploaded package,
// built on first use and shared by every command that uses this set (its
// resolved code and top-level values are cached in it).
func (s *PackageSet) Interpreter() *interp.Engine {
	s.interpOnce.Do(func() {
		s.interp = interp.NewEngine(resolve.NewPackages(s.Env.Packages()...), interp.Limits{})
	})
	return s.interp
}

// Name returns the package name of an uploaded package.
func (s *PackageSet) Name(id string) (string, bool) {
	if s == nil {
		return "", false
	}
	n, ok := s.names[id]
	return n, ok
}

// Preferred returns the package a package name resolves to at t, as
// Canton's package selection does for one participant: among the vetted
// packages of that name valid at t, the one listed in preference if any,
// else the highest version.
func (s *PackageSet) Preferred(name string, at time.Time, preference []string) (VettedPackage, bool) {
	if s == nil {
		return VettedPackage{}, false
	}
	var best *VettedPackage
	for i, v := range s.byName[name] {
		if !v.ValidAt(at) {
			continue
		}
		if slices.Contains(preference, v.ID) {
			return v, true
		}
		if best == nil {
			best = &s.byName[name][i]
		}
	}
	if best == nil {
		return VettedPackage{}, false
	}
	return *best, true
}

// HasName reports whether an uploaded package, vetted or not, has this
// package name.
func (s *PackageSet) HasName(name string) bool {
	if s == nil {
		return false
	}
	for _, n := range s.names {
		if n == name {
			return true
		}
	}
	return false
}

// Vetted returns the vetted packages of a name, highest version first.
func (s *PackageSet) Vetted(name string) []VettedPackage {
	if s == nil {
		return nil
	}
	return s.byName[name]
}

// Preference is the package each package name resolves to for a command
// (interp.Submission.PackagePreference), as Canton's package selection on
// one participant: for each name, the package of that name in fixed if any
// (execute: the packages the prepared transaction names), else the vetted
// package valid at t that request (packageIdSelectionPreference) lists,
// else the highest vetted version valid at t.
func (s *PackageSet) Preference(at time.Time, request []string, fixed []lf.PackageID) []lf.PackageID {
	if s == nil {
		return nil
	}
	out := make([]lf.PackageID, 0, len(s.byName)+len(fixed))
	named := map[string]bool{}
	for _, id := range fixed {
		if n, ok := s.names[string(id)]; ok {
			named[n] = true
			out = append(out, id)
		}
	}
	for name := range s.byName {
		if named[name] {
			continue
		}
		if v, ok := s.Preferred(name, at, request); ok {
			out = append(out, lf.PackageID(v.ID))
		}
	}
	return out
}

// PackagesNamed returns the ids of the packages, vetted or not, of a
// package name, sorted.
func (s *PackageSet) PackagesNamed(name string) []string {
	if s == nil {
		return nil
	}
	var out []string
	for id, n := range s.names {
		if n == name {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// PackageSetOf returns the set of pkgs, every one of them uploaded and
// vetted: what a node holding exactly these packages would use, and what an
// offline signer uses with the packages of its DARs.
func PackageSetOf(pkgs ...*lf.Package) *PackageSet {
	names := make(map[string]string, len(pkgs))
	var vetted []VettedPackage
	for _, p := range pkgs {
		if _, dup := names[string(p.ID)]; dup {
			continue
		}
		names[string(p.ID)] = p.Name
		vetted = append(vetted, VettedPackage{ID: string(p.ID), Name: p.Name, Version: p.Version})
	}
	return NewPackageSet(typed.NewEnv(pkgs...), names, vetted)
}
