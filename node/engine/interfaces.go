package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// Interfaces on the read side, as Canton's participant answers interface
// filters (PackageMetadata, IndexServiceImpl and EventProjectionProperties
// in community/ledger/ledger-api-core):
//
//   - An interface named "#name:Module:Entity" is every uploaded package of
//     that name that defines the interface (PackageMetadata.resolveTypeConRef);
//     "pkg:Module:Entity" is that interface of package pkg.
//   - The templates an interface selects are those of every uploaded
//     package that implement it directly (an interface instance in the
//     template), each with all its versions: every template of the same
//     package name and qualified name (interfacesImplementedByWithUpgrades),
//     since a contract of any version may be viewed through the version
//     that implements it.
//   - A view is computed with the implementation of the highest vetted
//     package of the contract's package name that implements the interface
//     directly (Canton's InterfaceViewPackageUpgrade, which asks the package
//     preference for the vetting valid at the end of time: a vetting with
//     an end date does not count); none is NO_VETTED_INTERFACE_IMPLEMENTATION_PACKAGE.

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
				key := name + ":" + qualified(i.Name)
				x.byName[key] = append(x.byName[key], id)
			}
			for _, t := range p.Templates() {
				key := name + ":" + qualified(t.Name)
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
			x.implementors[iface] = sortedSet(set)
		}
		for k := range x.byName {
			slices.Sort(x.byName[k])
		}
		s.ifaces = x
	})
	return s.ifaces
}

// packageName is the name the node knows package p by.
func (s *PackageSet) packageName(p *lf.Package) string {
	if n, ok := s.names[string(p.ID)]; ok {
		return n
	}
	return p.Name
}

func qualified(n lf.TypeConName) string { return n.Module.String() + ":" + n.Name.String() }

// ResolveInterface returns the interface ids (package id form) an interface
// filter's id names: for a package name, those of every uploaded package of
// that name defining the interface; for a package id, that interface if the
// package defines it. knownName reports, for a package name, whether any
// uploaded package has it.
func (s *PackageSet) ResolveInterface(id ledgerapi.TemplateID) (ids []string, knownName bool) {
	if s == nil {
		return nil, false
	}
	x := s.interfaces()
	if id.PackageName != "" {
		return x.byName[id.PackageName+":"+id.Module+":"+id.Entity], s.HasName(id.PackageName)
	}
	full := id.PackageID + ":" + id.Module + ":" + id.Entity
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

// InterfaceView computes the view of a contract — its template (package id
// form) and create argument as events show it (Daml-LF JSON) — through
// iface, as Canton's LfValueTranslation fills CreatedEvent.interface_views:
// the view by the interface's view type with viewStatus OK and the
// implementation package that computed it; or, when no vetted package
// implements the interface for the contract's package name, or the view
// fails, no value and the error's status (the error a command would get:
// an unhandled exception is DAML_FAILURE, a user abort
// INTERPRETATION_USER_ERROR, an argument that is not a value of the
// template COMMAND_PREPROCESSING_FAILED). synchronizerID names the
// synchronizer in the vetting failure's text. memo, when not nil, keeps the
// implementation package chosen per interface and package name, failures
// included, for the read it belongs to: Canton memoizes the choice for the
// lifetime of a stream or query, so vetting changes while it runs do not
// change it. The error result is for internal failures only.
func (s *PackageSet) InterfaceView(ctx context.Context, templateID string, argument json.RawMessage, iface, synchronizerID string, memo *ViewPackages) (ledgerapi.InterfaceView, error) {
	out := ledgerapi.InterfaceView{InterfaceID: iface}
	if s == nil {
		return out, fmt.Errorf("interface view of %s through %s: no packages", templateID, iface)
	}
	fail := func(e *ledgerapi.JsCantonError) (ledgerapi.InterfaceView, error) {
		out.ViewStatus = *e.Status()
		return out, nil
	}
	tmpl, err := typed.ParseTypeConName(templateID)
	if err != nil {
		return out, fmt.Errorf("template of an interface view: %w", err)
	}
	icon, err := typed.ParseTypeConName(iface)
	if err != nil {
		return out, fmt.Errorf("interface of an interface view: %w", err)
	}
	impl, verr := memo.choose(s, tmpl, icon, synchronizerID)
	if verr != nil {
		return fail(verr)
	}
	out.ImplementationPackageID = &impl
	// The argument is read by its own template's type, the contract's
	// package being uploaded; else (a contract of the generic model whose
	// package was uploaded since) by the implementation's.
	own := tmpl
	if _, ok := s.Env.Template(own); !ok {
		own.Package = lf.PackageID(impl)
	}
	plan, err := s.Env.Plan(lf.TCon{Con: own})
	if err != nil {
		return out, fmt.Errorf("the type of %s: %w", own, err)
	}
	arg, err := plan.DecodeJSON(argument, typed.DecodeOptions{Path: "createArgument"})
	if err != nil {
		return fail(ledgerapi.NewError(ledgerapi.CodeCommandPreprocessingFailed,
			fmt.Sprintf("the argument of the contract is not a value of template %s: %v", own, err), nil))
	}
	implID := &value.Identifier{PackageID: impl, ModuleName: tmpl.Module.String(), EntityName: tmpl.Name.String()}
	ifaceID := &value.Identifier{PackageID: string(icon.Package), ModuleName: icon.Module.String(), EntityName: icon.Name.String()}
	v, err := s.Interpreter().InterfaceView(ctx, implID, arg, ifaceID, interp.Limits{})
	if err != nil {
		var ie *interp.Error
		if !errors.As(err, &ie) {
			return out, err
		}
		je, ok := damlError(err).(*ledgerapi.JsCantonError)
		if !ok {
			return out, fmt.Errorf("interface view of %s through %s: %w", templateID, iface, err)
		}
		return fail(je)
	}
	i := s.Env.Interface(icon)
	if i == nil {
		return out, fmt.Errorf("interface %s is not uploaded", iface)
	}
	vplan, err := s.Env.Plan(i.View)
	if err != nil {
		return out, fmt.Errorf("the view type of %s: %w", iface, err)
	}
	js, err := vplan.EncodeJSON(v)
	if err != nil {
		return out, fmt.Errorf("the view of %s through %s: %w", templateID, iface, err)
	}
	out.ViewStatus = *ledgerapi.StatusOK()
	out.ViewValue = js
	return out, nil
}

// ViewPackages remembers the implementation packages chosen for the
// interface views of one read. The zero value is ready to use; it is safe
// for concurrent use.
type ViewPackages struct {
	mu     sync.Mutex
	chosen map[string]viewChoice // by interface id and package name
}

type viewChoice struct {
	pkg string
	err *ledgerapi.JsCantonError
}

func (m *ViewPackages) choose(s *PackageSet, tmpl, iface lf.TypeConName, synchronizerID string) (string, *ledgerapi.JsCantonError) {
	if m == nil {
		return s.viewPackage(tmpl, iface, synchronizerID)
	}
	name, ok := s.Name(string(tmpl.Package))
	if !ok {
		name = string(tmpl.Package)
	}
	key := iface.String() + " " + name + " " + qualified(tmpl)
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.chosen[key]; ok {
		return c.pkg, c.err
	}
	pkg, err := s.viewPackage(tmpl, iface, synchronizerID)
	if m.chosen == nil {
		m.chosen = map[string]viewChoice{}
	}
	m.chosen[key] = viewChoice{pkg, err}
	return pkg, err
}

// viewPackage chooses the package whose implementation computes the view
// of a contract of template tmpl through iface: the highest version of the
// template's package name vetted without end date whose template implements
// iface directly.
func (s *PackageSet) viewPackage(tmpl, iface lf.TypeConName, synchronizerID string) (string, *ledgerapi.JsCantonError) {
	name, ok := s.Name(string(tmpl.Package))
	if !ok {
		name = string(tmpl.Package)
	}
	implements := func(id string) bool {
		p := s.Env.Package(lf.PackageID(id))
		if p == nil {
			return false
		}
		t, ok := p.Template(tmpl.Module.String(), tmpl.Name.String())
		return ok && slices.ContainsFunc(t.Implements, iface.Equal)
	}
	var candidates []string
	for _, v := range s.Vetted(name) {
		if v.ValidUntil != nil {
			continue
		}
		if implements(v.ID) {
			return v.ID, nil
		}
		candidates = append(candidates, v.ID)
	}
	var withInstance []string
	for id, n := range s.names {
		if n == name && implements(id) {
			withInstance = append(withInstance, id)
		}
	}
	slices.Sort(withInstance)
	return "", ledgerapi.Errorf(ledgerapi.CodeNoVettedInterfaceImplementationPackage,
		"No vetted package for rendering the interface view for package-name '%s'. Reason: No synchronizer satisfies the vetting requirements. "+
			"Discarded synchronizers: %s: No vetted package candidate satisfies the package-id filter "+
			"'Package-ids with interface instances for the requested interface'=%s -> [%s].\nCandidates: [%s]",
		name, synchronizerID, name, strings.Join(withInstance, ", "), strings.Join(candidates, ", "))
}
