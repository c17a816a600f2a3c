package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// Commands on templates of uploaded packages are typed: their arguments are
// read by the Daml-LF types of the package (package typed, as Canton's JSON
// API reads them) into values (command.createValue, command.choiceValue)
// that the interpreter runs (daml.go), and written into transactions as
// Canton's engine writes values (record, variant and enum ids, field labels,
// numerics at the scale of their type, no trailing None fields).

// templatesNotFound is Canton's error for a template or interface no
// uploaded package defines.
func templatesNotFound(id string) error {
	return ledgerapi.Errorf(ledgerapi.CodeTemplatesOrInterfacesNotFound, "Templates do not exist: [%s].", id)
}

// conOf returns the type constructor name of a parsed template id with the
// given package id.
func conOf(pkg string, t ledgerapi.TemplateID) lf.TypeConName {
	return lf.TypeConName{Package: lf.PackageID(pkg), Module: strings.Split(t.Module, "."), Name: strings.Split(t.Entity, ".")}
}

// resolveTyped resolves a command's template id against the uploaded
// packages: "#name:M:E" by the preferred vetted package of that name (one
// listed in preference, else the highest version), "pkg:M:E" when package
// pkg was uploaded. ok is false when neither applies; then the generic
// contract model serves the template (or, with StrictPackages, nothing
// does). The template must exist in the package, or, when iface is set, an
// interface of that name.
func (e *Engine) resolveTyped(t ledgerapi.TemplateID, preference []string, set *PackageSet, iface bool) (tmpl template, ok bool, err error) {
	if set == nil {
		return template{}, false, nil
	}
	pkgID := t.PackageID
	if t.ByName() {
		v, found := set.Preferred(t.PackageName, e.now(), preference)
		if !found {
			if set.HasName(t.PackageName) {
				// Uploaded but not vetted (or not valid now): Canton finds
				// no package to use, and so does the node.
				return template{}, false, strictRefusal(t, preference)
			}
			return template{}, false, nil
		}
		pkgID = v.ID
	}
	p := set.Env.Package(lf.PackageID(pkgID))
	if p == nil {
		return template{}, false, nil
	}
	con := conOf(pkgID, t)
	_, found := set.Env.Template(con)
	if !found && !(iface && set.Env.Interface(con) != nil) {
		return template{}, false, templatesNotFound(con.String())
	}
	return template{
		id:          &damlpb.Identifier{PackageId: pkgID, ModuleName: t.Module, EntityName: t.Entity},
		packageName: p.Name,
		con:         &con,
		isInterface: !found,
	}, true, nil
}

// strictRefusal is the error of a template whose package was never
// uploaded, on a node that refuses the generic model: Canton's
// TEMPLATES_OR_INTERFACES_NOT_FOUND for a package id, and its
// JSON_API_PACKAGE_SELECTION_FAILED for a package name.
func strictRefusal(t ledgerapi.TemplateID, preference []string) error {
	if t.ByName() {
		return ledgerapi.Errorf(ledgerapi.CodeJSONAPIPackageSelectionFailed,
			"No synchronizer satisfies the vetting requirements: no vetted package has package-name '%s' (Commands.packageIdSelectionPreferences=%v)", t.PackageName, preference)
	}
	return templatesNotFound(t.String())
}

// logModel says once per template which model serves it.
func (e *Engine) logModel(t template) {
	key := t.String()
	if _, seen := e.logged.LoadOrStore(key, true); seen {
		return
	}
	if t.con != nil {
		e.cfg.Logger.Info("template served by its package's Daml-LF types", "templateId", key, "packageName", t.packageName, "model", "typed")
		return
	}
	e.cfg.Logger.Info("template served by the generic contract model (its package was never uploaded)", "templateId", key, "model", "generic")
}

// typedError turns a typed decoding error into Canton's error: missing
// fields and values that do not fit their type are
// COMMAND_PREPROCESSING_FAILED, the rest INVALID_ARGUMENT.
func typedError(err error) error {
	var te *typed.Error
	if !errors.As(err, &te) {
		return err
	}
	switch te.Kind {
	case typed.ErrMissingFields, typed.ErrTypeMismatch, typed.ErrTooLarge:
		return preprocessingFailed("%s", te.Error())
	}
	return ledgerapi.InvalidArgument("%s", te.Error())
}

// decodeTyped reads a JSON argument of type typ as a Daml value. It is
// the interpreter's input; the transaction's protobuf form is written from
// what the interpreter makes of it (damlengine.EncodeTransaction), so the
// typed path makes no protobuf value here.
func decodeTyped(set *PackageSet, typ lf.Type, raw []byte, path string, budget *int) (value.Value, error) {
	plan, err := set.Env.Plan(typ)
	if err != nil {
		return nil, preprocessingFailed("%s: the type of this value cannot be read: %v", path, err)
	}
	v, err := plan.DecodeJSON(raw, typed.DecodeOptions{Path: path, Budget: budget})
	if err != nil {
		return nil, typedError(err)
	}
	return v, nil
}

// typedCreateArgument reads the create argument of a typed template.
func typedCreateArgument(set *PackageSet, t template, raw []byte, path string, budget *int) (value.Value, error) {
	if isNullJSON(raw) {
		return nil, missingField("create_arguments")
	}
	return decodeTyped(set, lf.TCon{Con: *t.con}, raw, path, budget)
}

// typedChoiceArgument reads the argument of a choice of a typed template
// or interface; null reads as {} (Canton's nullToEmpty). An unknown choice
// is Canton's INVALID_ARGUMENT "Invalid template:… or choice:…".
func typedChoiceArgument(set *PackageSet, t template, choice string, raw []byte, path string, budget *int) (value.Value, error) {
	c, ok := set.Env.Choice(*t.con, choice)
	if !ok {
		e := ledgerapi.InvalidArgument("Invalid template:%s or choice:%s", t.con, choice)
		if names := choicesOf(set, *t.con); names != "" {
			e.Context["choices"] = names
		}
		return nil, e
	}
	if isNullJSON(raw) {
		raw = []byte("{}")
	}
	return decodeTyped(set, c.ArgType, raw, path, budget)
}

// choicesOf lists the choices of template or interface n, for the context
// of an unknown choice's error: Canton's cause stops at the name, and a
// list saves the caller a guess.
func choicesOf(set *PackageSet, n lf.TypeConName) string {
	var names []string
	if ts, ok := set.Env.Template(n); ok {
		for _, c := range ts.Choices {
			names = append(names, c.Name)
		}
	} else if i := set.Env.Interface(n); i != nil {
		for _, c := range i.Choices {
			names = append(names, c.Name)
		}
	}
	return strings.Join(names, ", ")
}

func isNullJSON(raw []byte) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null"
}

// typedPlan finds the type of a create argument (choice "") or of a choice
// argument of template tmplID in the uploaded packages; ok is false when
// the package was never uploaded.
func typedPlan(set *PackageSet, tmplID *damlpb.Identifier, choice string) (*typed.Plan, bool, error) {
	if set == nil || set.Env.Package(lf.PackageID(tmplID.GetPackageId())) == nil {
		return nil, false, nil
	}
	con := lf.TypeConName{Package: lf.PackageID(tmplID.GetPackageId()),
		Module: strings.Split(tmplID.GetModuleName(), "."), Name: strings.Split(tmplID.GetEntityName(), ".")}
	var typ lf.Type = lf.TCon{Con: con}
	if choice != "" {
		c, ok := set.Env.Choice(con, choice)
		if !ok {
			return nil, true, fmt.Errorf("%s has no choice %s", con, choice)
		}
		typ = c.ArgType
	}
	p, err := set.Env.Plan(typ)
	return p, true, err
}

// ArgumentJSON renders a create argument (choice "") or a choice argument
// of template tmplID as the JSON API's events show it: by its type when the
// template's package is in set, else by the generic rule (ValueToJSON).
// Whoever renders stored contracts (active contracts, updates) should use
// it with the node's current PackageSet.
func ArgumentJSON(set *PackageSet, tmplID *damlpb.Identifier, choice string, arg *damlpb.Value) (json.RawMessage, error) {
	plan, ok, err := typedPlan(set, tmplID, choice)
	if !ok {
		return ValueToJSON(arg)
	}
	if err != nil {
		return nil, err
	}
	v, err := plan.FromProto(arg)
	if err != nil {
		return nil, err
	}
	return plan.EncodeJSON(v)
}

// canonicalArgument checks a value of a prepared transaction against its
// type and returns it as prepare writes it, so that execute refuses a value
// prepare would not have made. Values of packages never uploaded are
// returned as they are.
func canonicalArgument(set *PackageSet, tmplID *damlpb.Identifier, choice string, arg *damlpb.Value) (*damlpb.Value, error) {
	plan, ok, err := typedPlan(set, tmplID, choice)
	if !ok {
		return arg, nil
	}
	if err != nil {
		return nil, err
	}
	v, err := plan.FromProto(arg)
	if err != nil {
		return nil, err
	}
	return typed.ToProto(v)
}

// CheckCommands reads the commands as a node holding exactly the packages
// of set would, without a ledger: template ids, choices and arguments, by
// the Daml-LF types for templates of those packages and by the generic rule
// otherwise. It returns the error the node would answer (a
// *ledgerapi.JsCantonError), so that a client can refuse a command before
// sending it, with the node's message.
func CheckCommands(set *PackageSet, cmds []ledgerapi.Command, preference []string) error {
	e := &Engine{cfg: Config{
		Now:              time.Now,
		Logger:           slog.New(slog.DiscardHandler),
		Packages:         func() *PackageSet { return set },
		MaxValueNodes:    DefaultMaxValueNodes,
		PackageNames:     map[string]string{},
		SynchronizerID:   "check::check",
		MaxDeduplication: time.Hour,
	}, parties: noParties{}}
	_, err := e.parseCommands(context.Background(), cmds, preference)
	return err
}

// noParties knows no party: without a ledger, the generic rule reads every
// string as text.
type noParties struct{}

func (noParties) IsKnownParty(context.Context, string) (bool, error) { return false, nil }
