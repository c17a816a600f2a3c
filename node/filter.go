package node

import (
	"slices"
	"strings"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/engine"
	"github.com/ledger-cli/ledger/node/events"
)

// TemplateSet is the template part of one party's filter (a Filters of an
// eventFormat): every template (wildcard), the listed templates and the
// templates implementing the listed interfaces, and whether created events
// carry their blob and interface views.
type TemplateSet struct {
	Wildcard     bool
	WildcardBlob bool
	// Templates holds template ids as the request gave them, in package id
	// form "pkg:Module:Entity" or package name form "#name:Module:Entity";
	// the value says whether to include the created event blob.
	Templates map[string]bool
	// Interfaces are the interface filters, as the request gave them.
	Interfaces []InterfaceFilter

	// implementors maps the template ids (package id form) the interface
	// filters select to what their events show; EventFilter.resolve sets it.
	implementors map[string]projection
}

// InterfaceFilter selects the contracts of every template implementing an
// interface.
type InterfaceFilter struct {
	// InterfaceID is "#name:Module:Entity" (every uploaded package of that
	// name defining the interface) or "pkg:Module:Entity".
	InterfaceID string
	// View asks for the interface view in created events (and for the
	// interface in implementedInterfaces of archived and consuming
	// exercised events); Blob for the created event blob.
	View, Blob bool
}

// projection is what the events of a template an interface filter selects
// show beyond the template's own fields (Canton's
// EventProjectionProperties.Projection).
type projection struct {
	views []string // interface ids (package id form) whose view is asked, sorted
	blob  bool
}

// matches reports whether the set holds the template; blob whether its
// created events carry their blob.
func (t *TemplateSet) matches(templateID, packageName string) (ok, blob bool) {
	if t == nil {
		return false, false
	}
	if t.Wildcard {
		ok, blob = true, t.WildcardBlob
	}
	if p, hit := t.implementors[templateID]; hit {
		ok, blob = true, blob || p.blob
	}
	if len(t.Templates) == 0 {
		return ok, blob
	}
	if b, hit := t.Templates[templateID]; hit {
		return true, blob || b
	}
	if _, qualified, found := strings.Cut(templateID, ":"); found {
		if b, hit := t.Templates["#"+packageName+":"+qualified]; hit {
			return true, blob || b
		}
	}
	return ok, blob
}

// EventFilter is an eventFormat as the node applies it: per party, and for
// any party, which templates are read. The caller has checked the parties'
// form and the reader's rights.
type EventFilter struct {
	ByParty  map[string]*TemplateSet
	AnyParty *TemplateSet // nil unless filtersForAnyParty was given
	Verbose  bool

	// packages is the package set the interface filters were resolved
	// with (nil: not yet, or there are none).
	packages *engine.PackageSet
	// viewPackages are the implementation packages chosen for views during
	// the read.
	viewPackages engine.ViewPackages
}

// WildcardFilter reads every template of parties.
func WildcardFilter(parties ...string) *EventFilter {
	f := &EventFilter{ByParty: map[string]*TemplateSet{}}
	for _, p := range parties {
		f.ByParty[p] = &TemplateSet{Wildcard: true}
	}
	return f
}

// Match is the filter for the engine's event views.
func (f *EventFilter) Match() events.Match {
	return func(party, templateID, packageName string) bool {
		ok, _ := f.matches(party, templateID, packageName)
		return ok
	}
}

func (f *EventFilter) matches(party, templateID, packageName string) (ok, blob bool) {
	if f.AnyParty != nil {
		ok, blob = f.AnyParty.matches(templateID, packageName)
	}
	if t := f.ByParty[party]; t != nil {
		o, b := t.matches(templateID, packageName)
		ok, blob = ok || o, blob || b
	}
	return ok, blob
}

// byTemplate reports whether what the filter reads depends on the
// template: some party's set is not a plain wildcard.
func (f *EventFilter) byTemplate() bool {
	plain := func(t *TemplateSet) bool {
		return t == nil || t.Wildcard && len(t.Templates) == 0 && len(t.Interfaces) == 0
	}
	if !plain(f.AnyParty) {
		return true
	}
	for _, t := range f.ByParty {
		if !plain(t) {
			return true
		}
	}
	return false
}

// readsAny reports whether the filter reads as any party.
func (f *EventFilter) readsAny() bool { return f.AnyParty != nil }

// sees reports whether the reader is one of parties (any party does): a
// reader who submitted a transaction sees its command id.
func (f *EventFilter) sees(parties []string) bool {
	if f.readsAny() {
		return true
	}
	for _, p := range parties {
		if f.ByParty[p] != nil {
			return true
		}
	}
	return false
}

// templatePushdown returns the template ids a store query may be limited to:
// every id in package id form, those of the interface filters' templates
// included, when no filter is a wildcard and none names a template by
// package name; otherwise nil (read all, match here). The interface
// filters must be resolved.
func (f *EventFilter) templatePushdown() []string {
	set := map[string]bool{}
	add := func(t *TemplateSet) bool {
		if t == nil {
			return true
		}
		if t.Wildcard || len(t.Templates) == 0 && len(t.Interfaces) == 0 {
			return false
		}
		for id := range t.Templates {
			if strings.HasPrefix(id, "#") {
				return false
			}
			set[id] = true
		}
		for id := range t.implementors {
			set[id] = true
		}
		return true
	}
	if !add(f.AnyParty) {
		return nil
	}
	for _, t := range f.ByParty {
		if !add(t) {
			return nil
		}
	}
	if len(set) == 0 { // the filters select no template: an empty list would read all
		return nil
	}
	out := make([]string, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	return out
}

// sets calls fn with every template set of the filter.
func (f *EventFilter) sets(fn func(t *TemplateSet)) {
	if f.AnyParty != nil {
		fn(f.AnyParty)
	}
	for _, t := range f.ByParty {
		fn(t)
	}
}

// hasInterfaces reports whether any filter names an interface.
func (f *EventFilter) hasInterfaces() bool {
	has := false
	f.sets(func(t *TemplateSet) { has = has || len(t.Interfaces) > 0 })
	return has
}

// ResolveFilter checks a filter's interface filters against the uploaded
// packages, with the errors a read answers for an unknown interface.
func (n *Node) ResolveFilter(f *EventFilter) error {
	return f.resolve(n.Packages(), n.cfg.StrictPackages)
}

// ResolveUpdateFormat is ResolveFilter for the filters of an update format.
func (n *Node) ResolveUpdateFormat(f *UpdateFormat) error {
	return f.resolve(n.Packages(), n.cfg.StrictPackages)
}

// resolve finds the templates of the interface filters in the package set
// set, once per set: a stream resolves again when packages are uploaded
// meanwhile, as Canton recomputes its filter when the package metadata
// changes. An interface no uploaded package defines is, as Canton's
// IndexServiceImpl.checkUnknownIdentifiers answers it, PACKAGE_NAMES_NOT_FOUND
// when no package has the name, NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME
// when none of the name's packages defines it, and for the package id form
// (which Canton 3.5 refuses with INVALID_FIELD, while this node accepts it
// as it does for template filters) TEMPLATES_OR_INTERFACES_NOT_FOUND, as
// Canton 3.3 answered it. On an error the filter is left as it was.
func (f *EventFilter) resolve(set *engine.PackageSet, strict bool) error {
	if f.packages == set && set != nil {
		return nil
	}
	if err := f.checkTemplates(set, strict); err != nil {
		return err
	}
	if !f.hasInterfaces() {
		f.packages = set
		return nil
	}
	var unknownNames, noInterface, unknownIDs []string
	resolved := map[*TemplateSet]map[string]projection{}
	f.sets(func(t *TemplateSet) {
		if len(t.Interfaces) == 0 {
			return
		}
		impl := map[string]projection{}
		for _, i := range t.Interfaces {
			id, err := ledgerapi.ParseTemplateID(i.InterfaceID)
			if err != nil {
				unknownIDs = append(unknownIDs, i.InterfaceID)
				continue
			}
			ifaces, knownName := set.ResolveInterface(id.PackageName, id.PackageID, id.Module+":"+id.Entity)
			switch {
			case len(ifaces) > 0:
			case id.PackageName == "":
				unknownIDs = append(unknownIDs, i.InterfaceID)
			case !knownName:
				unknownNames = append(unknownNames, id.PackageName)
			default:
				noInterface = append(noInterface, "("+id.PackageName+","+id.Module+":"+id.Entity+")")
			}
			for _, iface := range ifaces {
				for _, tmpl := range set.Implementors(iface) {
					p := impl[tmpl]
					if i.View && !slices.Contains(p.views, iface) {
						p.views = append(p.views, iface)
						slices.Sort(p.views)
					}
					p.blob = p.blob || i.Blob
					impl[tmpl] = p
				}
			}
		}
		resolved[t] = impl
	})
	list := func(xs []string) string {
		slices.Sort(xs)
		return "[" + strings.Join(slices.Compact(xs), ", ") + "]"
	}
	switch {
	case len(unknownNames) > 0:
		return ledgerapi.Errorf(ledgerapi.CodePackageNamesNotFound,
			"The following package names do not match upgradable packages uploaded on this participant: %s.", list(unknownNames))
	case len(noInterface) > 0:
		return ledgerapi.Errorf(ledgerapi.CodeNoInterfaceForPackageNameAndQualifiedName,
			"The following package-name/interface qualified-name pairs do not reference any interface-id uploaded on this participant: %s.", list(noInterface))
	case len(unknownIDs) > 0:
		return ledgerapi.Errorf(ledgerapi.CodeTemplatesOrInterfacesNotFound, "Interfaces do not exist: %s.", list(unknownIDs))
	}
	for t, impl := range resolved {
		t.implementors = impl
	}
	f.packages = set
	return nil
}

// checkTemplates refuses a template filter "#name:Module:Entity" whose
// package name is uploaded but none of whose packages defines the template:
// Canton's NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME
// (IndexServiceImpl.checkUnknownIdentifiers). A package name never
// uploaded stays accepted, for the generic model's templates, unless the
// node is strict about packages (--strict-packages: no generic model); then
// it is Canton's PACKAGE_NAMES_NOT_FOUND.
func (f *EventFilter) checkTemplates(set *engine.PackageSet, strict bool) error {
	var missing, unknownNames []string
	f.sets(func(t *TemplateSet) {
		for tmpl := range t.Templates {
			id, err := ledgerapi.ParseTemplateID(tmpl)
			if err != nil || id.PackageName == "" {
				continue
			}
			if !set.HasName(id.PackageName) {
				if strict {
					unknownNames = append(unknownNames, id.PackageName)
				}
				continue
			}
			if !set.HasTemplate(id.PackageName, id.Module, id.Entity) {
				missing = append(missing, "("+id.PackageName+","+id.Module+":"+id.Entity+")")
			}
		}
	})
	if len(unknownNames) > 0 {
		slices.Sort(unknownNames)
		return ledgerapi.Errorf(ledgerapi.CodePackageNamesNotFound,
			"The following package names do not match upgradable packages uploaded on this participant: [%s].",
			strings.Join(slices.Compact(unknownNames), ", "))
	}
	if len(missing) == 0 {
		return nil
	}
	slices.Sort(missing)
	return ledgerapi.Errorf(ledgerapi.CodeNoTemplatesForPackageNameAndQualifiedName,
		"The following package-name/template qualified-name pairs do not reference any template-id uploaded on this participant: [%s].",
		strings.Join(slices.Compact(missing), ", "))
}

// interfaces returns the interfaces whose views a created event of
// templateID witnessed by witnesses shows, and which an archived or
// consuming exercised event lists as implementedInterfaces: those of the
// interface filters with includeInterfaceView of the witnesses and of
// filtersForAnyParty that select the template (Canton's
// EventProjectionProperties.render), sorted. Nil when there are none.
func (f *EventFilter) interfaces(witnesses []string, templateID string) []string {
	var out []string
	add := func(t *TemplateSet) {
		if t == nil {
			return
		}
		for _, id := range t.implementors[templateID].views {
			if !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	add(f.AnyParty)
	for _, w := range witnesses {
		add(f.ByParty[w])
	}
	slices.Sort(out)
	return out
}

// blobFor reports whether a created event of the template witnessed by
// witnesses carries its blob: a filter of filtersForAnyParty or of one of
// the witnesses selects the template and asks for it.
func (f *EventFilter) blobFor(witnesses []string, templateID, packageName string) bool {
	if f.AnyParty != nil {
		if _, b := f.AnyParty.matches(templateID, packageName); b {
			return true
		}
	}
	for _, w := range witnesses {
		if _, b := f.ByParty[w].matches(templateID, packageName); b {
			return true
		}
	}
	return false
}

// wantsViews reports whether any interface filter asks for views.
func (f *EventFilter) wantsViews() bool {
	want := false
	f.sets(func(t *TemplateSet) {
		for _, i := range t.Interfaces {
			want = want || i.View
		}
	})
	return want
}

// resolve resolves the interface filters of the format's transactions and
// reassignments.
func (f *UpdateFormat) resolve(set *engine.PackageSet, strict bool) error {
	if f == nil {
		return nil
	}
	for _, ef := range []*EventFilter{f.Transactions, f.Reassignments} {
		if ef != nil {
			if err := ef.resolve(set, strict); err != nil {
				return err
			}
		}
	}
	return nil
}
