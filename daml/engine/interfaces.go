package engine

import (
	"slices"

	"github.com/ledger-cli/ledger/daml/lf"
)

// Interfaces as Canton's participant resolves them for interface filters
// (PackageMetadata in community/ledger/ledger-api-core):
//
//   - An interface named by package name is every package of that name that
//     defines the interface (PackageMetadata.resolveTypeConRef); named by
//     package id, it is that interface of that package.
//   - The templates an interface selects are those of every package that
//     implement it directly (an interface instance in the template), each
//     with all its versions: every template of the same package name and
//     qualified name (interfacesImplementedByWithUpgrades), since a contract
//     of any version may be viewed through the version that implements it.

// interfaceIndex is what interface filters need of a package set, built
// once per set.
type interfaceIndex struct {
	// byName maps "name:Module:Entity" to the interface ids of that
	// package name (package id form), sorted.
	byName map[string][]string
	// known holds every interface id.
	known map[string]bool
	// implementors maps an interface id to the template ids (package id
	// form) of the templates implementing it, with all their versions,
	// sorted.
	implementors map[string][]string
}

func (s *PackageSet) interfaces() *interfaceIndex {
	s.ifaceOnce.Do(func() {
		x := &interfaceIndex{byName: map[string][]string{}, known: map[string]bool{}, implementors: map[string][]string{}}
		if s.Env == nil {
			s.ifaces = x
			return
		}
		versions := map[string][]string{} // "name:Module:Entity" of a template → its template ids
		direct := map[string][]string{}   // interface id → "name:Module:Entity" of its implementors
		for _, p := range s.Env.Packages() {
			name := s.packageName(p)
			for _, i := range p.Interfaces() {
				id := i.Name.String()
				x.known[id] = true
				key := name + ":" + Qualified(i.Name)
				x.byName[key] = append(x.byName[key], id)
			}
			for _, t := range p.Templates() {
				key := name + ":" + Qualified(t.Name)
				versions[key] = append(versions[key], t.Name.String())
				for _, i := range t.Implements {
					direct[i.String()] = append(direct[i.String()], key)
				}
			}
		}
		for iface, keys := range direct {
			set := map[string]bool{}
			for _, k := range keys {
				for _, id := range versions[k] {
					set[id] = true
				}
			}
			ids := make([]string, 0, len(set))
			for id := range set {
				ids = append(ids, id)
			}
			slices.Sort(ids)
			x.implementors[iface] = ids
		}
		for k := range x.byName {
			slices.Sort(x.byName[k])
		}
		s.ifaces = x
	})
	return s.ifaces
}

// packageName is the name the set knows package p by.
func (s *PackageSet) packageName(p *lf.Package) string {
	if n, ok := s.names[string(p.ID)]; ok {
		return n
	}
	return p.Name
}

// Qualified is "Module:Entity" of a type constructor name.
func Qualified(n lf.TypeConName) string { return n.Module.String() + ":" + n.Name.String() }

// ResolveInterface returns the interface ids (package id form) an interface
// named "Module:Entity" in a package is: with packageName set, those of
// every package of that name defining the interface; else that interface of
// package packageID if it defines it. knownName reports, for a package
// name, whether any package has it.
func (s *PackageSet) ResolveInterface(packageName, packageID, qualified string) (ids []string, knownName bool) {
	if s == nil {
		return nil, false
	}
	x := s.interfaces()
	if packageName != "" {
		return x.byName[packageName+":"+qualified], s.HasName(packageName)
	}
	full := packageID + ":" + qualified
	if x.known[full] {
		return []string{full}, true
	}
	return nil, true
}

// HasTemplate reports whether an uploaded package named name defines the
// template module:entity.
func (s *PackageSet) HasTemplate(name, module, entity string) bool {
	if s == nil || s.Env == nil {
		return false
	}
	for _, p := range s.Env.Packages() {
		if s.packageName(p) == name {
			if _, ok := p.Template(module, entity); ok {
				return true
			}
		}
	}
	return false
}

// Implementors returns the template ids (package id form) of the templates
// an interface filter on iface selects: those implementing it and every
// other version of them. The slice is shared: do not change it.
func (s *PackageSet) Implementors(iface string) []string {
	if s == nil {
		return nil
	}
	return s.interfaces().implementors[iface]
}
