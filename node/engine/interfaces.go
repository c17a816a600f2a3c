package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	damlengine "github.com/ledger-cli/ledger/daml/engine"
	"slices"
	"strings"
	"sync"

	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// Interface views on the read side (which interfaces and templates a filter
// names is the package set's: daml/engine), as Canton's participant answers interface
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
func InterfaceView(ctx context.Context, s *PackageSet, templateID string, argument json.RawMessage, iface, synchronizerID string, memo *ViewPackages) (ledgerapi.InterfaceView, error) {
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
		return viewPackage(s, tmpl, iface, synchronizerID)
	}
	name, ok := s.Name(string(tmpl.Package))
	if !ok {
		name = string(tmpl.Package)
	}
	key := iface.String() + " " + name + " " + damlengine.Qualified(tmpl)
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.chosen[key]; ok {
		return c.pkg, c.err
	}
	pkg, err := viewPackage(s, tmpl, iface, synchronizerID)
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
func viewPackage(s *PackageSet, tmpl, iface lf.TypeConName, synchronizerID string) (string, *ledgerapi.JsCantonError) {
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
	for _, id := range s.PackagesNamed(name) {
		if implements(id) {
			withInstance = append(withInstance, id)
		}
	}
	return "", ledgerapi.Errorf(ledgerapi.CodeNoVettedInterfaceImplementationPackage,
		"No vetted package for rendering the interface view for package-name '%s'. Reason: No synchronizer satisfies the vetting requirements. "+
			"Discarded synchronizers: %s: No vetted package candidate satisfies the package-id filter "+
			"'Package-ids with interface instances for the requested interface'=%s -> [%s].\nCandidates: [%s]",
		name, synchronizerID, name, strings.Join(withInstance, ", "), strings.Join(candidates, ", "))
}
