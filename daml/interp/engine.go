package interp

import (
	"context"
	"fmt"
	"strings"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/upgrade"
	"github.com/ledger-cli/ledger/daml/value"
)

// Engine interprets the commands and expressions of a set of packages. It
// is safe for concurrent use: each call runs its own machine, and the
// resolved code and top-level values are shared.
type Engine struct {
	pkgs   *resolve.Packages
	limits Limits
	// preferred is the package of each package name that commands and
	// interface fetches use by default: the highest version loaded.
	preferred map[string]lf.PackageID
}

// NewEngine returns an engine over pkgs with default limits for every
// evaluation (each call may override them).
func NewEngine(pkgs *resolve.Packages, limits Limits) *Engine {
	e := &Engine{pkgs: pkgs, limits: limits, preferred: map[string]lf.PackageID{}}
	for _, p := range pkgs.Packages() {
		cur := pkgs.Package(e.preferred[p.Name])
		if cur == nil || upgrade.CompareVersions(p.Version, cur.Version) > 0 ||
			upgrade.CompareVersions(p.Version, cur.Version) == 0 && p.ID < cur.ID {
			e.preferred[p.Name] = p.ID
		}
	}
	return e
}

// PreferredPackage returns the package a reference by package name
// ("#name:Module:Entity") resolves to when the submission states no
// preference: the highest version of the name among the engine's packages,
// as Canton picks among vetted packages.
func (e *Engine) PreferredPackage(name string) (lf.PackageID, bool) {
	id, ok := e.preferred[name]
	return id, ok
}

// Packages returns the engine's packages.
func (e *Engine) Packages() *resolve.Packages { return e.pkgs }

// Command is a command of a submission: *CreateCommand, *ExerciseCommand or
// *CreateAndExerciseCommand. Arguments are typed values (records of the
// template's and choice's argument types), as the typed JSON codec builds
// them.
type Command interface {
	// named is the template (or interface) the command names.
	named() *value.Identifier
	// renamed returns a copy naming id instead.
	renamed(id *value.Identifier) Command
}

// CreateCommand creates a contract of Template.
type CreateCommand struct {
	Template *value.Identifier
	Argument value.Value
}

// ExerciseCommand exercises Choice on the contract ContractID of Template.
// Template may name an interface, as the Ledger API's ExerciseCommand may:
// the choice is then the interface's, exercised on whatever template the
// contract has (Canton's ExerciseInterface command).
type ExerciseCommand struct {
	Template   *value.Identifier
	ContractID value.ContractID
	Choice     string
	Argument   value.Value
}

// CreateAndExerciseCommand creates a contract and exercises a choice on it:
// two root nodes.
type CreateAndExerciseCommand struct {
	Template       *value.Identifier
	CreateArgument value.Value
	Choice         string
	ChoiceArgument value.Value
}

// ExerciseByKeyCommand exercises Choice on the contract of Template whose
// key is Key (a value of the template's key type).
type ExerciseByKeyCommand struct {
	Template *value.Identifier
	Key      value.Value
	Choice   string
	Argument value.Value
}

// FetchByKeyCommand fetches the contract of Template with Key, as Canton's
// engine command FetchByKey: a fetch node by key, or CONTRACT_KEY_NOT_FOUND.
type FetchByKeyCommand struct {
	Template *value.Identifier
	Key      value.Value
}

// LookupByKeyCommand looks up the contract of Template with Key: a
// QueryByKey node, whether found or not. (Canton 3.5's engine has no such
// command; it is the lookup_by_key of Daml-LF 2.dev archives, run as a
// command.)
type LookupByKeyCommand struct {
	Template *value.Identifier
	Key      value.Value
}

func (c *CreateCommand) named() *value.Identifier            { return c.Template }
func (c *ExerciseCommand) named() *value.Identifier          { return c.Template }
func (c *CreateAndExerciseCommand) named() *value.Identifier { return c.Template }
func (c *ExerciseByKeyCommand) named() *value.Identifier     { return c.Template }
func (c *FetchByKeyCommand) named() *value.Identifier        { return c.Template }
func (c *LookupByKeyCommand) named() *value.Identifier       { return c.Template }

func (c CreateCommand) renamed(id *value.Identifier) Command            { c.Template = id; return &c }
func (c ExerciseCommand) renamed(id *value.Identifier) Command          { c.Template = id; return &c }
func (c CreateAndExerciseCommand) renamed(id *value.Identifier) Command { c.Template = id; return &c }
func (c ExerciseByKeyCommand) renamed(id *value.Identifier) Command     { c.Template = id; return &c }
func (c FetchByKeyCommand) renamed(id *value.Identifier) Command        { c.Template = id; return &c }
func (c LookupByKeyCommand) renamed(id *value.Identifier) Command       { c.Template = id; return &c }

// Submission is what interpreting a list of commands needs.
type Submission struct {
	Commands []Command
	// ActAs are the submitting parties: the authorizers of the root nodes.
	ActAs []string
	// SubmissionSeed, ParticipantID and PreparationTime derive the
	// transaction seed, hence every node seed and contract id.
	SubmissionSeed  tx.Hash
	ParticipantID   string
	PreparationTime value.Timestamp
	// RootSeeds, when set, give the seeds of the root nodes instead
	// (reinterpreting a transaction whose seeds are known): the seeds of
	// the root action nodes in order, where the nodes under a root
	// rollback node count as roots (a rollback is not an action and has no
	// seed) and a root fetch or query takes an index without a seed.
	RootSeeds []tx.Hash
	// LedgerTime is what get_time returns.
	LedgerTime value.Timestamp
	// Disclosed are contracts given with the commands; they are used before
	// asking the ledger.
	Disclosed []*tx.Contract
	// Limits override the engine's for this submission.
	Limits Limits
	// StateMode is how rollbacks treat the contract state: Canton 3.5's
	// (the default) or 3.4's.
	StateMode StateMode
	// PackagePreference names, for some package names, the version to use
	// (Canton's package_id_selection_preference): for commands whose
	// template or interface is named by package name ("#name"), and for
	// contracts used through an interface, which run with the preferred
	// version of their package. Other names use PreferredPackage.
	PackagePreference []lf.PackageID
}

// Result is an interpreted submission.
type Result struct {
	Transaction *tx.Transaction
	// Inputs are the contracts the transaction read from the ledger or the
	// disclosed contracts, in the order first read.
	Inputs []*tx.Contract
	// DependsOnTime is set when the commands read the ledger time;
	// TimeBounds then says for which ledger times the transaction holds: the
	// min and max ledger effective times of a prepared transaction's
	// metadata, each nil when unconstrained.
	DependsOnTime bool
	TimeBounds    tx.TimeBounds
	// Steps is the number of machine steps taken.
	Steps int64
	// Memory is the bytes of values built (see Limits.Memory).
	Memory int64
}

func (e *Engine) limitsFor(l Limits) Limits {
	if l.Steps == 0 {
		l.Steps = e.limits.Steps
	}
	if l.Depth == 0 {
		l.Depth = e.limits.Depth
	}
	if l.Memory == 0 {
		l.Memory = e.limits.Memory
	}
	if l.Lane == nil {
		l.Lane = e.limits.Lane
	}
	if l.Trace == nil {
		l.Trace = e.limits.Trace
	}
	l.plain = l.plain || e.limits.plain
	return l
}

// Submit interprets the commands of a submission as Canton's engine does
// and returns the transaction they make. Errors are *Error.
func (e *Engine) Submit(ctx context.Context, s *Submission, ledger Ledger) (*Result, error) {
	m := newMachine(ctx, e.pkgs, e.limitsFor(s.Limits))
	defer m.leaveLane()
	u := &updateState{
		ledger:          ledger,
		ctx:             ctx,
		committers:      sortedSet(append([]string(nil), s.ActAs...)),
		preparationTime: s.PreparationTime,
		ledgerTime:      s.LedgerTime,
		minTime:         value.MinTimestamp,
		maxTime:         value.MaxTimestamp,
		mode:            s.StateMode,
	}
	u.root = txContext{kind: ctxRoot, authorizers: u.committers}
	u.top = &u.root
	if s.RootSeeds != nil {
		u.rootSeeds = s.RootSeeds
	} else {
		seed := tx.DeriveTransactionSeed(s.SubmissionSeed, s.ParticipantID, s.PreparationTime)
		u.txSeed = &seed
	}
	if len(s.Disclosed) > 0 {
		u.disclosed = make(map[value.ContractID]*tx.Contract, len(s.Disclosed))
		for _, c := range s.Disclosed {
			u.disclosed[c.ID] = c
		}
	}
	if len(s.PackagePreference) > 0 {
		u.preferred = make(map[string]lf.PackageID, len(s.PackagePreference))
		for _, id := range s.PackagePreference {
			if p := e.pkgs.Package(id); p != nil {
				u.preferred[p.Name] = id
			}
		}
	}
	u.engine = e
	m.upd = u
	for i, cmd := range s.Commands {
		if err := e.runCommand(m, cmd); err != nil {
			if ie, ok := err.(*Error); ok {
				if ie.kind == errCommand {
					ie.Cause = fmt.Sprintf("command %d: %s", i, ie.Cause)
				} else if u.command != nil {
					ie.CommandTrace = commandTrace(u.command)
				}
			}
			return nil, err
		}
	}
	res := &Result{
		Transaction:   u.finish(),
		Inputs:        u.inputs,
		DependsOnTime: u.dependsOnTime,
		Steps:         m.steps,
		Memory:        m.mem,
	}
	// As Canton's LedgerTimeBoundaries: a bound at the end of the time
	// range is no constraint.
	if lo := u.minTime; lo != value.MinTimestamp {
		res.TimeBounds.Min = &lo
	}
	if hi := u.maxTime; hi != value.MaxTimestamp {
		res.TimeBounds.Max = &hi
	}
	return res, nil
}

// txVersion is the highest version of the nodes: "2" if any has a key.
func txVersion(nodes []tx.Node) string {
	for _, n := range nodes {
		switch x := n.(type) {
		case *tx.Create:
			if x.Version == tx.VersionWithKey {
				return tx.VersionWithKey
			}
		case *tx.Exercise:
			if x.Version == tx.VersionWithKey {
				return tx.VersionWithKey
			}
		case *tx.Fetch:
			if x.Version == tx.VersionWithKey {
				return tx.VersionWithKey
			}
		case *tx.QueryByKey:
			return tx.VersionWithKey
		}
	}
	return tx.VersionNoKey
}

func (e *Engine) template(m *Machine, id *value.Identifier) (*resolve.TemplateRef, error) {
	ref, err := e.pkgs.TemplateRefByID(id)
	if err == nil {
		_, err = ref.Get()
	}
	if err != nil {
		return nil, m.newError(errCommand, fmt.Sprintf("unknown template %s: %v", id, err))
	}
	return ref, nil
}

// checkArgument checks that a command's argument is a record of the
// expected type; the typed JSON codec has checked the rest.
func (e *Engine) checkArgument(m *Machine, what string, v value.Value, want *value.Identifier) error {
	r, ok := v.(*value.Record)
	if !ok || r.TypeCon == nil || r.TypeCon.ModuleName != want.ModuleName || r.TypeCon.EntityName != want.EntityName {
		return m.newError(errCommand, fmt.Sprintf("%s must be a record of type %s, not %s", what, want, v))
	}
	return nil
}

func (e *Engine) runCommand(m *Machine, cmd Command) error {
	cmd, err := e.resolveCommand(m, cmd)
	if err != nil {
		return err
	}
	m.upd.command = cmd
	switch c := cmd.(type) {
	case *CreateCommand:
		ref, err := e.template(m, c.Template)
		if err != nil {
			return err
		}
		if err := e.checkArgument(m, "the create argument", c.Argument, c.Template); err != nil {
			return err
		}
		_, err = m.runApply(&Function{op: &resolve.Create{Template: ref}, arity: 2}, []value.Value{c.Argument, token})
		return err
	case *ExerciseCommand:
		if e.isInterface(c.Template) {
			iref, err := e.pkgs.InterfaceRefByID(c.Template)
			if err != nil {
				return m.newError(errCommand, fmt.Sprintf("unknown interface %s: %v", c.Template, err))
			}
			i, err := iref.Get()
			if err != nil {
				return m.newError(errCommand, fmt.Sprintf("unknown interface %s: %v", c.Template, err))
			}
			if i.Choice(c.Choice) == nil {
				return m.newError(errCommand, fmt.Sprintf("interface %s has no choice %s", c.Template, c.Choice))
			}
			_, err = m.runApply(&Function{op: &resolve.ExerciseInterface{Interface: iref, Choice: c.Choice}, arity: 3},
				[]value.Value{c.ContractID, c.Argument, token})
			return err
		}
		ref, err := e.template(m, c.Template)
		if err != nil {
			return err
		}
		t, _ := ref.Get()
		ch := t.Choice(c.Choice)
		if ch == nil {
			return m.newError(errCommand, fmt.Sprintf("template %s has no choice %s", c.Template, c.Choice))
		}
		_, err = m.runApply(&Function{op: &resolve.Exercise{Template: ref, Choice: c.Choice}, arity: 3},
			[]value.Value{c.ContractID, c.Argument, token})
		return err
	case *CreateAndExerciseCommand:
		ref, err := e.template(m, c.Template)
		if err != nil {
			return err
		}
		if err := e.checkArgument(m, "the create argument", c.CreateArgument, c.Template); err != nil {
			return err
		}
		t, _ := ref.Get()
		if t.Choice(c.Choice) == nil {
			return m.newError(errCommand, fmt.Sprintf("template %s has no choice %s", c.Template, c.Choice))
		}
		cid, err := m.runApply(&Function{op: &resolve.Create{Template: ref}, arity: 2}, []value.Value{c.CreateArgument, token})
		if err != nil {
			return err
		}
		_, err = m.runApply(&Function{op: &resolve.Exercise{Template: ref, Choice: c.Choice}, arity: 3},
			[]value.Value{cid, c.ChoiceArgument, token})
		return err
	case *ExerciseByKeyCommand:
		ref, err := e.keyedTemplate(m, c.Template)
		if err != nil {
			return err
		}
		if t, _ := ref.Get(); t.Choice(c.Choice) == nil {
			return m.newError(errCommand, fmt.Sprintf("template %s has no choice %s", c.Template, c.Choice))
		}
		_, err = m.runApply(&Function{op: &resolve.ExerciseByKey{Template: ref, Choice: c.Choice}, arity: 3},
			[]value.Value{c.Key, c.Argument, token})
		return err
	case *FetchByKeyCommand:
		ref, err := e.keyedTemplate(m, c.Template)
		if err != nil {
			return err
		}
		_, err = m.runApply(&Function{op: &resolve.FetchByKey{Template: ref}, arity: 2}, []value.Value{c.Key, token})
		return err
	case *LookupByKeyCommand:
		ref, err := e.keyedTemplate(m, c.Template)
		if err != nil {
			return err
		}
		_, err = m.runApply(&Function{op: &resolve.LookupByKey{Template: ref}, arity: 2}, []value.Value{c.Key, token})
		return err
	}
	return m.newError(errCommand, fmt.Sprintf("unknown command %T", cmd))
}

// resolveCommand returns cmd with a template or interface named by
// package name ("#name:Module:Entity") resolved to a package id.
func (e *Engine) resolveCommand(m *Machine, cmd Command) (Command, error) {
	id := cmd.named()
	if id == nil || !strings.HasPrefix(id.PackageID, "#") {
		return cmd, nil
	}
	id, err := e.resolveRef(m, id)
	if err != nil {
		return nil, err
	}
	return cmd.renamed(id), nil
}

// keyedTemplate returns the template of a by-key command, which must have a
// key.
func (e *Engine) keyedTemplate(m *Machine, id *value.Identifier) (*resolve.TemplateRef, error) {
	ref, err := e.template(m, id)
	if err != nil {
		return nil, err
	}
	if t, _ := ref.Get(); t.Key == nil {
		return nil, m.newError(errCommand, fmt.Sprintf("template %s has no contract key", id))
	}
	return ref, nil
}

// isInterface reports whether id names an interface of a loaded package.
func (e *Engine) isInterface(id *value.Identifier) bool {
	pkg := e.pkgs.Package(lf.PackageID(id.PackageID))
	if pkg == nil {
		return false
	}
	m := pkg.Module(id.ModuleName)
	return m != nil && m.Interface(id.EntityName) != nil
}

// InterfaceView computes the view of a contract — its template and
// argument — through an interface, as Canton's Engine.computeInterfaceView
// does for the Ledger API's interface filters (includeInterfaceView): by
// pure evaluation of the template's interface instance. The argument may
// be a record of another version of the template (the contract was created
// with another package of the same name): it is converted first, a value
// that does not convert being INTERPRETATION_UPGRADE_ERROR_TRANSLATION_FAILED.
// A template that
// does not implement the interface is COMMAND_PREPROCESSING_FAILED; a view
// that fails is the interpretation error (an unhandled exception is
// DAML_FAILURE). Errors are *Error.
func (e *Engine) InterfaceView(ctx context.Context, template *value.Identifier, argument value.Value, iface *value.Identifier, limits Limits) (value.Value, error) {
	m := newMachine(ctx, e.pkgs, e.limitsFor(limits))
	defer m.leaveLane()
	t, err := e.pkgs.TemplateByID(template)
	if err != nil {
		return nil, m.newError(errCommand, fmt.Sprintf("unknown template %s: %v", template, err))
	}
	if !e.isInterface(iface) {
		return nil, m.newError(errCommand, fmt.Sprintf("unknown interface %s", iface))
	}
	ii := t.Implements(lf.TypeConName{Package: lf.PackageID(iface.PackageID), Module: lf.SplitDotted(iface.ModuleName), Name: lf.SplitDotted(iface.EntityName)})
	if ii == nil {
		return nil, m.newError(errCommand, fmt.Sprintf("template %s does not implement interface %s", template, iface))
	}
	if err := e.checkArgument(m, "the contract argument", argument, template); err != nil {
		return nil, err
	}
	if src := argument.(*value.Record).TypeCon; src.PackageID != template.PackageID {
		// A contract of another version of the template: its argument is
		// converted to this version's type first, as Canton's engine
		// translates the contract argument for computeInterfaceView.
		v, ok := m.importArg("", src, t, argument)
		if !ok {
			return nil, m.err
		}
		argument = v
	}
	lam := &resolve.Lambda{Def: "view", Arity: 1, Slots: 1, Body: &resolve.Call{Op: &viewOp{ii: ii}, Args: []resolve.Expr{&resolve.Local{Slot: 0}}}}
	return m.run(lam, nil, []value.Value{argument})
}

// viewOp computes a view through an interface instance (InterfaceView).
type viewOp struct{ ii *resolve.InterfaceInstance }

func (*viewOp) Arity() int     { return 1 }
func (*viewOp) String() string { return "view" }

// Eval evaluates the top-level value name and, when args are given,
// applies it to them. Updates are not run; ledger-only builtins behave as
// in Daml Script (CONTRACT_ID_TO_TEXT gives the id). Errors are *Error.
func (e *Engine) Eval(ctx context.Context, name lf.ValueName, args []value.Value, limits Limits) (value.Value, int64, error) {
	m := newMachine(ctx, e.pkgs, e.limitsFor(limits))
	defer m.leaveLane()
	d, err := e.pkgs.Value(name)
	if err != nil {
		return nil, 0, m.newError(errCommand, err.Error())
	}
	lam := &resolve.Lambda{Def: "eval", Body: &resolve.TopRef{Def: d}}
	v, err := m.run(lam, nil, nil)
	if err != nil {
		return nil, m.steps, err
	}
	if len(args) > 0 {
		v, err = m.runApply(v, args)
		if err != nil {
			return nil, m.steps, err
		}
	}
	return v, m.steps, nil
}

// Apply applies the function value f (a closure or partially applied
// builtin an earlier evaluation returned) to args as a pure evaluation,
// with its own step budget. Daml Script's runner uses it to step a
// script: apply a continuation to a command's answer, to the next command.
// Errors are *Error.
func (e *Engine) Apply(ctx context.Context, f value.Value, args []value.Value, limits Limits) (value.Value, int64, error) {
	m := newMachine(ctx, e.pkgs, e.limitsFor(limits))
	defer m.leaveLane()
	if _, ok := f.(*Function); !ok {
		return nil, 0, m.newError(errCommand, fmt.Sprintf("cannot apply %s: not a function", f))
	}
	v, err := m.runApply(f, args)
	return v, m.steps, err
}

// ExceptionMessage computes the message of an exception (an AnyException,
// as Error.Exception holds), as Daml's message function does.
func (e *Engine) ExceptionMessage(ctx context.Context, exc *value.Any, limits Limits) (string, error) {
	m := newMachine(ctx, e.pkgs, e.limitsFor(limits))
	defer m.leaveLane()
	f := &Function{op: &resolve.Builtin{Fn: lf.BuiltinAnyExceptionMessage}, arity: 1}
	v, err := m.runApply(f, []value.Value{exc})
	if err != nil {
		return "", err
	}
	t, ok := v.(value.Text)
	if !ok {
		return "", m.newError(errInternal, "an exception message is not text: "+v.String())
	}
	return string(t), nil
}

// EvalLambda evaluates a resolved closed expression (tests, fuzzing).
func (e *Engine) EvalLambda(ctx context.Context, lam *resolve.Lambda, limits Limits) (value.Value, int64, error) {
	m := newMachine(ctx, e.pkgs, e.limitsFor(limits))
	defer m.leaveLane()
	v, err := m.run(lam, nil, nil)
	return v, m.steps, err
}
