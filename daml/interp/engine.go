package interp

import (
	"context"
	"fmt"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// Engine interprets the commands and expressions of a set of packages. It
// is safe for concurrent use: each call runs its own machine, and the
// resolved code and top-level values are shared.
type Engine struct {
	pkgs   *resolve.Packages
	limits Limits
}

// NewEngine returns an engine over pkgs with default limits for every
// evaluation (each call may override them).
func NewEngine(pkgs *resolve.Packages, limits Limits) *Engine {
	return &Engine{pkgs: pkgs, limits: limits}
}

// Packages returns the engine's packages.
func (e *Engine) Packages() *resolve.Packages { return e.pkgs }

// Command is a command of a submission: *CreateCommand, *ExerciseCommand or
// *CreateAndExerciseCommand. Arguments are typed values (records of the
// template's and choice's argument types), as the typed JSON codec builds
// them.
type Command interface{ isCommand() }

// CreateCommand creates a contract of Template.
type CreateCommand struct {
	Template *value.Identifier
	Argument value.Value
}

// ExerciseCommand exercises Choice on the contract ContractID of Template.
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

func (*CreateCommand) isCommand()            {}
func (*ExerciseCommand) isCommand()          {}
func (*CreateAndExerciseCommand) isCommand() {}

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
	// (reinterpreting a transaction whose seeds are known).
	RootSeeds []tx.Hash
	// LedgerTime is what get_time returns.
	LedgerTime value.Timestamp
	// Disclosed are contracts given with the commands; they are used before
	// asking the ledger.
	Disclosed []*tx.Contract
	// Limits override the engine's for this submission.
	Limits Limits
}

// Result is an interpreted submission.
type Result struct {
	Transaction *tx.Transaction
	// Inputs are the contracts the transaction read from the ledger or the
	// disclosed contracts, in the order first read.
	Inputs []*tx.Contract
	// DependsOnTime is set when the commands read the ledger time;
	// TimeBounds then says for which ledger times the transaction holds.
	DependsOnTime bool
	TimeBounds    tx.TimeBounds
	// Steps is the number of machine steps taken.
	Steps int64
}

func (e *Engine) limitsFor(l Limits) Limits {
	if l.Steps == 0 {
		l.Steps = e.limits.Steps
	}
	if l.Depth == 0 {
		l.Depth = e.limits.Depth
	}
	l.plain = l.plain || e.limits.plain
	return l
}

// Submit interprets the commands of a submission as Canton's engine does
// and returns the transaction they make. Errors are *Error.
func (e *Engine) Submit(ctx context.Context, s *Submission, ledger Ledger) (*Result, error) {
	m := newMachine(ctx, e.pkgs, e.limitsFor(s.Limits))
	u := &updateState{
		ledger:          ledger,
		ctx:             ctx,
		committers:      sortedSet(append([]string(nil), s.ActAs...)),
		preparationTime: s.PreparationTime,
		ledgerTime:      s.LedgerTime,
		minTime:         value.MinTimestamp,
		maxTime:         value.MaxTimestamp,
	}
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
	m.upd = u
	for i, cmd := range s.Commands {
		if err := e.runCommand(m, cmd); err != nil {
			if ie, ok := err.(*Error); ok && ie.kind == errCommand {
				ie.Cause = fmt.Sprintf("command %d: %s", i, ie.Cause)
			}
			return nil, err
		}
	}
	res := &Result{
		Transaction:   &tx.Transaction{Version: txVersion(u.nodes), Roots: u.roots, Nodes: u.nodes, Seeds: u.seeds},
		Inputs:        u.inputs,
		DependsOnTime: u.dependsOnTime,
		Steps:         m.steps,
	}
	if u.dependsOnTime {
		lo, hi := u.minTime, u.maxTime
		res.TimeBounds = tx.TimeBounds{Min: &lo, Max: &hi}
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
	}
	return m.newError(errCommand, fmt.Sprintf("unknown command %T", cmd))
}

// Eval evaluates the top-level value name and, when args are given,
// applies it to them. Updates are not run; ledger-only builtins behave as
// in Daml Script (CONTRACT_ID_TO_TEXT gives the id). Errors are *Error.
func (e *Engine) Eval(ctx context.Context, name lf.ValueName, args []value.Value, limits Limits) (value.Value, int64, error) {
	m := newMachine(ctx, e.pkgs, e.limitsFor(limits))
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

// EvalLambda evaluates a resolved closed expression (tests, fuzzing).
func (e *Engine) EvalLambda(ctx context.Context, lam *resolve.Lambda, limits Limits) (value.Value, int64, error) {
	m := newMachine(ctx, e.pkgs, e.limitsFor(limits))
	v, err := m.run(lam, nil, nil)
	return v, m.steps, err
}
