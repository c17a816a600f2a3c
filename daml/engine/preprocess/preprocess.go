// Package preprocess reads JSON Ledger API commands by the Daml-LF types of
// their packages into the interpreter's commands, as Canton's
// CommandPreprocessor does in front of its engine: a template id
// ("pkg:M:E", or "#name:M:E" by the preferred vetted package of that name)
// resolves to a template (or, exercising, an interface) of a package of the
// set; create and choice arguments and contract keys are read by their types
// as Canton's JSON API reads them (package daml/typed). A template or
// choice the package lacks, and an argument that does not fit its type, get
// Canton's errors with the field path (*ledgerapi.JsCantonError), the
// answers of the node, which reads typed commands with this package.
//
// It stands beside daml/engine, not in it: daml/engine reads no wire type,
// so the offline signer's core needs nothing of the JSON API, while the
// command as the JSON API writes it is what the node's pipeline and the
// client's type check (cmd/typecheck) both read; ledgerapi stands on
// nothing of the node, so neither does this package.
//
// Commands on templates of packages the set lacks are not read here: the
// node serves them with its generic contract model (or refuses them).
package preprocess

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ledger-cli/ledger/daml/engine"
	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// DefaultMaxValueNodes bounds how many values (records, fields' values, list
// and map elements, scalars) the JSON arguments of one request may hold in
// total. Each costs a few hundred bytes once converted, so without a bound a
// body of a few MiB of "[0,0,0,…]" would take hundreds of MiB and seconds
// of CPU. Canton has no such count; its bound is the message size.
const DefaultMaxValueNodes = 100_000

// Template is a command's template (or interface) in a package of the set.
type Template struct {
	// ID is the template id in package-id form.
	ID  value.Identifier
	Con lf.TypeConName
	// PackageName is the name of the template's package.
	PackageName string
	// Interface is set when the id names an interface (an exercise by
	// interface).
	Interface bool
}

// String prints pkg:Module:Entity.
func (t Template) String() string {
	return t.ID.PackageID + ":" + t.ID.ModuleName + ":" + t.ID.EntityName
}

// Command is a command read by the types of its package.
type Command struct {
	// TemplateID is the template id as the command wrote it, parsed; of a
	// command that is not typed, it is all Command holds.
	TemplateID ledgerapi.TemplateID
	Template   Template
	// Daml is the interpreter's command.
	Daml interp.Command
}

// Reader reads the commands of one request.
type Reader struct {
	Packages *engine.PackageSet
	// Preference is the request's packageIdSelectionPreference.
	Preference []string
	// Now is the time at which a package name resolves (vetting).
	Now time.Time
	// Budget is the count of values the request's arguments may still
	// hold, shared by its commands (see DefaultMaxValueNodes).
	Budget *int
}

// Command reads command c at path (commands[i]). known is false when its
// template (or interface) is of no package of the set; then nothing but
// the template id's syntax was checked, and cmd holds the parsed id.
func (r *Reader) Command(c ledgerapi.Command, path string) (cmd Command, known bool, err error) {
	var tmplID string
	iface := false
	switch {
	case c.Create != nil:
		tmplID = c.Create.TemplateID
	case c.Exercise != nil:
		tmplID, iface = c.Exercise.TemplateID, true
	case c.CreateAndExercise != nil:
		tmplID = c.CreateAndExercise.TemplateID
	case c.ExerciseByKey != nil:
		tmplID = c.ExerciseByKey.TemplateID
	default:
		return Command{}, false, ledgerapi.MissingCommandField("command")
	}
	tid, err := ParseTemplateField(tmplID)
	if err != nil {
		return Command{}, false, err
	}
	cmd.TemplateID = tid
	t, known, err := r.Template(tid, iface)
	if err != nil {
		return Command{}, false, err
	}
	if !known {
		return cmd, false, nil
	}
	cmd.Template = t
	idOf := t.ID
	id := &idOf
	switch {
	case c.Create != nil:
		arg, err := r.createArgument(t, c.Create.CreateArguments, path+".CreateCommand.createArguments")
		if err != nil {
			return Command{}, false, err
		}
		cmd.Daml = &interp.CreateCommand{Template: id, Argument: arg}
	case c.Exercise != nil:
		x := c.Exercise
		if x.ContractID == "" {
			return Command{}, false, ledgerapi.MissingCommandField("contract_id")
		}
		if err := ValidateContractID(x.ContractID); err != nil {
			return Command{}, false, ledgerapi.InvalidCommandField("contract_id", "%v", err)
		}
		if typed.IsLocalV1ContractID(x.ContractID) {
			return Command{}, false, ledgerapi.PreprocessingFailed("%s", typed.IllegalContractIDMessage(x.ContractID))
		}
		if err := ChoiceField(x.Choice); err != nil {
			return Command{}, false, err
		}
		arg, err := r.choiceArgument(t, x.Choice, x.ChoiceArgument, path+".ExerciseCommand.choiceArgument")
		if err != nil {
			return Command{}, false, err
		}
		cmd.Daml = &interp.ExerciseCommand{Template: id, ContractID: value.ContractID(x.ContractID), Choice: x.Choice, Argument: arg}
	case c.CreateAndExercise != nil:
		x := c.CreateAndExercise
		createArg, err := r.createArgument(t, x.CreateArguments, path+".CreateAndExerciseCommand.createArguments")
		if err != nil {
			return Command{}, false, err
		}
		if err := ChoiceField(x.Choice); err != nil {
			return Command{}, false, err
		}
		choiceArg, err := r.choiceArgument(t, x.Choice, x.ChoiceArgument, path+".CreateAndExerciseCommand.choiceArgument")
		if err != nil {
			return Command{}, false, err
		}
		cmd.Daml = &interp.CreateAndExerciseCommand{Template: id, CreateArgument: createArg, Choice: x.Choice, ChoiceArgument: choiceArg}
	case c.ExerciseByKey != nil:
		x := c.ExerciseByKey
		if err := ChoiceField(x.Choice); err != nil {
			return Command{}, false, err
		}
		key, err := r.ContractKey(t, x.ContractKey, path+".ExerciseByKeyCommand.contractKey")
		if err != nil {
			return Command{}, false, err
		}
		arg, err := r.choiceArgument(t, x.Choice, x.ChoiceArgument, path+".ExerciseByKeyCommand.choiceArgument")
		if err != nil {
			return Command{}, false, err
		}
		cmd.Daml = &interp.ExerciseByKeyCommand{Template: id, Key: key, Choice: x.Choice, Argument: arg}
	}
	return cmd, true, nil
}

// ParseTemplateField reads a command's template_id field.
func ParseTemplateField(s string) (ledgerapi.TemplateID, error) {
	if s == "" {
		return ledgerapi.TemplateID{}, ledgerapi.MissingCommandField("template_id")
	}
	tid, err := ledgerapi.ParseTemplateID(s)
	if err != nil {
		return ledgerapi.TemplateID{}, ledgerapi.InvalidCommandField("template_id", "%s", reason(err))
	}
	if !tid.ByName() && !lf.IsHashPackageID(tid.PackageID) {
		// A package's name without '#' would otherwise be taken for the id
		// of a package never uploaded and served by the generic model.
		return ledgerapi.TemplateID{}, ledgerapi.InvalidCommandField("template_id",
			"the package reference %q is neither a package id (64 lower-case hex digits) nor a package name (#%s)", tid.PackageID, tid.PackageID)
	}
	return tid, nil
}

// reason is the reason of a field error without the field's name.
func reason(err error) string {
	var fe *ledgerapi.FieldError
	if errors.As(err, &fe) {
		return fe.Reason
	}
	return err.Error()
}

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

// Template resolves a command's template id against the packages:
// "#name:M:E" by the preferred vetted package of that name (one listed in
// the preference, else the highest version), "pkg:M:E" when package pkg is
// in the set. typed is false when neither applies; then the generic
// contract model serves the template (or, on a strict node, nothing does).
// The template must exist in the package, or, when iface is set, an
// interface of that name.
func (r *Reader) Template(t ledgerapi.TemplateID, iface bool) (tmpl Template, typed bool, err error) {
	set := r.Packages
	if set == nil {
		return Template{}, false, nil
	}
	pkgID := t.PackageID
	if t.ByName() {
		v, found := set.Preferred(t.PackageName, r.Now, r.Preference)
		if !found {
			if set.HasName(t.PackageName) {
				// Uploaded but not vetted (or not valid now): Canton finds
				// no package to use, and so does the node.
				return Template{}, false, StrictRefusal(t, r.Preference)
			}
			return Template{}, false, nil
		}
		pkgID = v.ID
	}
	p := set.Env.Package(lf.PackageID(pkgID))
	if p == nil {
		return Template{}, false, nil
	}
	con := conOf(pkgID, t)
	_, found := set.Env.Template(con)
	if !found && !(iface && set.Env.Interface(con) != nil) {
		return Template{}, false, templatesNotFound(con.String())
	}
	return Template{
		ID:          value.Identifier{PackageID: pkgID, ModuleName: t.Module, EntityName: t.Entity},
		Con:         con,
		PackageName: p.Name,
		Interface:   !found,
	}, true, nil
}

// StrictRefusal is the error of a template whose package was never
// uploaded, on a node that refuses the generic model: Canton's
// TEMPLATES_OR_INTERFACES_NOT_FOUND for a package id, and its
// JSON_API_PACKAGE_SELECTION_FAILED for a package name.
func StrictRefusal(t ledgerapi.TemplateID, preference []string) error {
	if t.ByName() {
		return ledgerapi.Errorf(ledgerapi.CodeJSONAPIPackageSelectionFailed,
			"No synchronizer satisfies the vetting requirements: no vetted package has package-name '%s' (Commands.packageIdSelectionPreferences=%v)", t.PackageName, preference)
	}
	return templatesNotFound(t.String())
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
	case typed.ErrMissingFields, typed.ErrTypeMismatch, typed.ErrTooLarge, typed.ErrIllegalContractID:
		return ledgerapi.PreprocessingFailed("%s", te.Error())
	}
	return ledgerapi.InvalidArgument("%s", te.Error())
}

// decode reads a JSON argument of type typ as a Daml value, the
// interpreter's input.
func (r *Reader) decode(typ lf.Type, raw []byte, path string) (value.Value, error) {
	plan, err := r.Packages.Env.Plan(typ)
	if err != nil {
		return nil, ledgerapi.PreprocessingFailed("%s: the type of this value cannot be read: %v", path, err)
	}
	v, err := plan.DecodeJSON(raw, typed.DecodeOptions{Path: path, Budget: r.Budget, RefuseLocalIDs: true})
	if err != nil {
		return nil, typedError(err)
	}
	return v, nil
}

// createArgument reads the create argument of a template.
func (r *Reader) createArgument(t Template, raw []byte, path string) (value.Value, error) {
	if isNullJSON(raw) {
		return nil, ledgerapi.MissingCommandField("create_arguments")
	}
	return r.decode(lf.TCon{Con: t.Con}, raw, path)
}

// choiceArgument reads the argument of a choice of a template or
// interface; null reads as {} (Canton's nullToEmpty). An unknown choice is
// Canton's INVALID_ARGUMENT "Invalid template:… or choice:…".
func (r *Reader) choiceArgument(t Template, choice string, raw []byte, path string) (value.Value, error) {
	c, ok := r.Packages.Env.Choice(t.Con, choice)
	if !ok {
		e := ledgerapi.InvalidArgument("Invalid template:%s or choice:%s", t.Con, choice)
		if names := choicesOf(r.Packages, t.Con); names != "" {
			e.Context["choices"] = names
		}
		return nil, e
	}
	if isNullJSON(raw) {
		raw = []byte("{}")
	}
	return r.decode(c.ArgType, raw, path)
}

// ContractKey reads a contract key of template t by the template's key
// type. A template without a key is Canton's lookup error.
func (r *Reader) ContractKey(t Template, raw []byte, path string) (value.Value, error) {
	if isNullJSON(raw) {
		return nil, ledgerapi.MissingCommandField("contract_key")
	}
	sig, _ := r.Packages.Env.Template(t.Con)
	if sig.Key == nil {
		return nil, ledgerapi.PreprocessingFailed("unknown template without contract key %s.", t.Con)
	}
	return r.decode(sig.Key, raw, path)
}

// choicesOf lists the choices of template or interface n, for the context
// of an unknown choice's error: Canton's cause stops at the name, and a
// list saves the caller a guess.
func choicesOf(set *engine.PackageSet, n lf.TypeConName) string {
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

// Check reads cmds as a node holding exactly the packages of set would,
// without a ledger: template ids, choices and arguments by the Daml-LF
// types. It returns the error the node would answer (a
// *ledgerapi.JsCantonError), so that a client can refuse a command before
// sending it, with the node's message. Commands on templates of other
// packages are left to the node (its generic contract model checks no
// types).
func Check(set *engine.PackageSet, cmds []ledgerapi.Command, preference []string) error {
	if len(cmds) == 0 {
		return ledgerapi.MissingCommandField("commands")
	}
	budget := DefaultMaxValueNodes
	r := Reader{Packages: set, Preference: preference, Now: time.Now(), Budget: &budget}
	for i, c := range cmds {
		if _, _, err := r.Command(c, fmt.Sprintf("commands[%d]", i)); err != nil {
			return err
		}
	}
	return nil
}
