package script

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ledger-cli/ledger/daml/engine"
	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/value"
)

// lowLevel is the daml-script module that defines Script, ScriptF, Question
// and dangerousCast.
const lowLevel = "Daml.Script.Internal.LowLevel"

// Default bounds of one script run.
const (
	// DefaultMaxCommands bounds the commands one script performs.
	DefaultMaxCommands = 100_000
	// DefaultMaxSteps bounds the interpreter steps of one script, summed
	// over all its evaluations (each of which the interpreter's own step
	// limit also bounds).
	DefaultMaxSteps = 2_000_000_000
	// maxCatchDepth bounds the nesting of try blocks (Catch, TryCommands):
	// each runs its body on the Go stack.
	maxCatchDepth = 256
	// maxTraceLines bounds the trace kept per script; later lines are
	// counted, not kept.
	maxTraceLines = 10_000
)

// Runner runs the scripts of a set of packages. It is safe for concurrent
// use: each Run has its own state.
type Runner struct {
	pkgs    *resolve.Packages
	lfPkgs  map[lf.PackageID]*lf.Package
	set     *engine.PackageSet
	engine  *interp.Engine
	limits  interp.Limits
	main    lf.PackageID
	script  *lf.Package // daml-script
	version string      // daml-script's version, for messages
	types   *typeIndex
}

// New returns a runner over pkgs (a DAR's packages: the main one, the
// daml-script package its scripts use and every dependency). main is the
// package whose scripts Scripts lists.
func New(pkgs []*lf.Package, main lf.PackageID, limits interp.Limits) (*Runner, error) {
	r := &Runner{lfPkgs: map[lf.PackageID]*lf.Package{}, main: main, limits: limits}
	patched := make([]*lf.Package, 0, len(pkgs))
	for _, p := range pkgs {
		if p.Module(lowLevel) != nil && p.Module(lowLevel).Value("dangerousCast") != nil {
			p = withIdentityCast(p)
			if r.script == nil {
				r.script, r.version = p, p.Version
			}
		}
		patched = append(patched, p)
		r.lfPkgs[p.ID] = p
	}
	if r.script == nil {
		return nil, errors.New("the packages hold no daml-script package (module Daml.Script.Internal.LowLevel): build the DAR with daml-script as a dependency")
	}
	if r.lfPkgs[main] == nil {
		return nil, fmt.Errorf("main package %s is not among the packages", main)
	}
	// One interpreter evaluates the scripts and, through daml/engine, the
	// in-memory ledger's submissions: its resolved code is shared.
	r.set = engine.PackageSetOf(patched...)
	r.engine = r.set.Interpreter()
	r.pkgs = r.engine.Packages()
	types, err := newTypeIndex(patched, r.script)
	if err != nil {
		return nil, err
	}
	r.types = types
	return r, nil
}

// Engine returns the interpreter the runner evaluates with.
func (r *Runner) Engine() *interp.Engine { return r.engine }

// Packages returns the runner's packages (every one vetted) as daml/engine
// holds them: a Ledger that interprets submissions in process submits
// through engine.Submit with them, on the same interpreter.
func (r *Runner) Packages() *engine.PackageSet { return r.set }

// Limits returns the interpreter limits the runner was made with.
func (r *Runner) Limits() interp.Limits { return r.limits }

// StateMode is the contract state rule of rollbacks in Daml's IDE ledger
// (daml test) for the runner's daml-script version: daml-script before
// 3.5 comes with an SDK whose IDE ledger always undoes what a caught
// exception's try block did (interp.StateNoKey, as Canton 3.4); from 3.5
// on the IDE ledger's default protocol version is 35 (Runner.scala,
// IdeLedgerProtocolVersion.latest), which refuses an effectful rollback
// (interp.StateNUCK, as a Canton 3.5 node).
func (r *Runner) StateMode() interp.StateMode {
	if versionBefore(r.version, 3, 5) {
		return interp.StateNoKey
	}
	return interp.StateNUCK
}

// versionBefore reports whether a package version "major.minor…" is before
// major.minor; a version that does not start with two numbers is not.
func versionBefore(v string, major, minor int) bool {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, err1 := strconv.Atoi(parts[0])
	mi, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return false
	}
	return ma < major || ma == major && mi < minor
}

// ScriptVersion returns the version of the daml-script package.
func (r *Runner) ScriptVersion() string { return r.version }

// withIdentityCast returns p with daml-script's dangerousCast defined as the
// identity (/\a b. \x -> x), as Daml's runner replaces it.
func withIdentityCast(p *lf.Package) *lf.Package {
	mods := make([]*lf.Module, len(p.Modules))
	for i, m := range p.Modules {
		if m.Name.String() != lowLevel {
			mods[i] = m
			continue
		}
		vals := make([]*lf.Value, len(m.Values))
		for j, v := range m.Values {
			if v.Name.String() == "dangerousCast" {
				params := []lf.TypeVar{{Name: "a", Kind: lf.KStar{}}, {Name: "b", Kind: lf.KStar{}}}
				if ta, ok := v.Body.(*lf.ETyAbs); ok && len(ta.Params) == 2 {
					params = ta.Params
				}
				c := *v
				c.Body = &lf.ETyAbs{Params: params, Body: &lf.EAbs{
					Params: []lf.Binder{{Name: "x", Type: lf.TVar{Name: params[0].Name}}},
					Body:   &lf.EVar{Name: "x"},
				}}
				v = &c
			}
			vals[j] = v
		}
		c := *m
		c.Values = vals
		nm, _ := lf.NewModule(c)
		mods[i] = nm
	}
	c := *p
	c.Modules = mods
	return lf.NewPackage(c)
}

// Scripts returns the scripts of the main package: its top-level values of
// type Script a (no arguments), sorted by module and name.
func (r *Runner) Scripts() []lf.ValueName {
	var out []lf.ValueName
	p := r.lfPkgs[r.main]
	for _, m := range p.Modules {
		for _, v := range m.Values {
			// Names starting with $ are the compiler's (damlc's
			// specialisations, $$sc_…), never a user's script.
			if !strings.HasPrefix(v.Name.String(), "$") && r.isScriptType(v.Type) {
				out = append(out, lf.ValueName{Package: p.ID, Module: m.Name, Name: v.Name})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Module.String()+":"+out[i].Name.String(), out[j].Module.String()+":"+out[j].Name.String()
		return a < b
	})
	return out
}

func (r *Runner) isScriptType(t lf.Type) bool {
	app, ok := t.(lf.TApp)
	if !ok {
		return false
	}
	con, ok := app.Fun.(lf.TCon)
	if !ok {
		return false
	}
	p := r.lfPkgs[con.Con.Package]
	return p != nil && p.Module(lowLevel) != nil && con.Con.Module.String() == lowLevel && con.Con.Name.String() == "Script"
}

// Signature is the type of a script: the type of its argument (nil for a
// script without one) and of its result.
type Signature struct {
	Input, Result lf.Type
}

// signature reads Script a, or i -> Script a.
func (r *Runner) signature(t lf.Type) (Signature, bool) {
	if r.isScriptType(t) {
		return Signature{Result: t.(lf.TApp).Arg}, true
	}
	head, args := lf.SplitApp(t)
	if b, ok := head.(lf.TBuiltin); ok && b.Builtin == lf.BuiltinArrow && len(args) == 2 && r.isScriptType(args[1]) {
		return Signature{Input: args[0], Result: args[1].(lf.TApp).Arg}, true
	}
	return Signature{}, false
}

// LookupSignature finds the script "Module:name" of the main package, which
// may take one argument (i -> Script a, as daml script --input-file runs).
func (r *Runner) LookupSignature(name string) (lf.ValueName, Signature, error) {
	n, err := r.lookupValue(name)
	if err != nil {
		return n, Signature{}, err
	}
	v := r.lfPkgs[n.Package].Module(n.Module.String()).Value(n.Name.String())
	sig, ok := r.signature(v.Type)
	if !ok {
		return n, sig, fmt.Errorf("script %q has type %s, not Script a or a function of one argument to Script a", name, v.Type)
	}
	return n, sig, nil
}

// Lookup finds the script "Module:name" of the main package.
func (r *Runner) Lookup(name string) (lf.ValueName, error) {
	n, sig, err := r.LookupSignature(name)
	if err == nil && sig.Input != nil {
		return n, fmt.Errorf("script %q takes an argument: it is not Script a", name)
	}
	return n, err
}

func (r *Runner) lookupValue(name string) (lf.ValueName, error) {
	i := strings.LastIndex(name, ":")
	if i <= 0 || i == len(name)-1 {
		return lf.ValueName{}, fmt.Errorf("script %q: want Module:name, e.g. Main:test", name)
	}
	p := r.lfPkgs[r.main]
	mod, def := name[:i], name[i+1:]
	m := p.Module(mod)
	if m == nil {
		return lf.ValueName{}, fmt.Errorf("script %q: the main package %s has no module %s", name, p.Name, mod)
	}
	v := m.Value(def)
	if v == nil {
		return lf.ValueName{}, fmt.Errorf("script %q: module %s has no top-level value %s", name, mod, def)
	}
	return lf.ValueName{Package: p.ID, Module: m.Name, Name: v.Name}, nil
}

// Options are the bounds and hooks of one run.
type Options struct {
	// MaxCommands bounds the commands the script performs; 0 means
	// DefaultMaxCommands.
	MaxCommands int
	// MaxSteps bounds the interpreter steps of the whole script; 0 means
	// DefaultMaxSteps.
	MaxSteps int64
	// Input is the argument of a script that takes one (i -> Script a),
	// nil for a script that takes none.
	Input value.Value
}

// Result is a finished run.
type Result struct {
	// Value is the script's result.
	Value value.Value
	// Commands is how many commands it performed, Steps how many
	// interpreter steps it took.
	Commands int
	Steps    int64
	// Trace holds the script's debug and trace messages, in order, up to
	// maxTraceLines; TraceDropped counts those after.
	Trace        []TraceLine
	TraceDropped int
}

// TraceLine is one message of debug or trace.
type TraceLine struct {
	Message  string
	Location *lf.Location
}

func (t TraceLine) String() string {
	if t.Location == nil {
		return t.Message
	}
	return "[" + t.Location.String() + "]: " + t.Message
}

// run is the state of one script run.
type run struct {
	r        *Runner
	ctx      context.Context
	ledger   Ledger
	opts     Options
	res      *Result
	limits   interp.Limits
	depth    int
	location *lf.Location // of the command being performed
}

// Run runs the script name against ledger. A script that fails returns a
// *Failure (with the partial Result: its trace).
func (r *Runner) Run(ctx context.Context, name lf.ValueName, ledger Ledger, opts Options) (*Result, error) {
	if opts.MaxCommands <= 0 {
		opts.MaxCommands = DefaultMaxCommands
	}
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	st := &run{r: r, ctx: ctx, ledger: ledger, opts: opts, res: &Result{}, limits: r.limits}
	st.limits.Trace = func(msg string, loc *lf.Location) {
		if len(st.res.Trace) >= maxTraceLines {
			st.res.TraceDropped++
			return
		}
		st.res.Trace = append(st.res.Trace, TraceLine{Message: msg, Location: loc})
	}
	var args []value.Value
	if opts.Input != nil {
		args = []value.Value{opts.Input}
	}
	v, steps, err := r.engine.Eval(ctx, name, args, st.limits)
	st.res.Steps += steps
	if err != nil {
		return st.res, st.failure(err)
	}
	out, err := st.runScript(v)
	if err != nil {
		return st.res, st.failure(err)
	}
	st.res.Value = out
	return st.res, nil
}

// apply applies a function value of the script, counting its steps.
func (st *run) apply(f value.Value, args ...value.Value) (value.Value, error) {
	if st.res.Steps >= st.opts.MaxSteps {
		return nil, &Failure{Kind: "limit", Message: fmt.Sprintf("the script took more than %d interpreter steps", st.opts.MaxSteps)}
	}
	v, steps, err := st.r.engine.Apply(st.ctx, f, args, st.limits)
	st.res.Steps += steps
	return v, err
}

// runScript runs a Script value to its result.
func (st *run) runScript(s value.Value) (value.Value, error) {
	rec, ok := s.(*value.Record)
	if !ok || len(rec.Fields) < 1 {
		return nil, fmt.Errorf("internal: a script evaluated to %s, not a Script record", s)
	}
	free, err := st.apply(rec.Fields[0].Value, value.Unit{})
	if err != nil {
		return nil, err
	}
	for {
		v, ok := free.(*value.Variant)
		if !ok {
			return nil, fmt.Errorf("internal: a script step evaluated to %s, not Free", free)
		}
		if v.Constructor == "Pure" {
			t, ok := v.Value.(*value.Record)
			if !ok || len(t.Fields) != 2 {
				return nil, fmt.Errorf("internal: a script ended with %s, not a pair", v.Value)
			}
			return t.Fields[0].Value, nil
		}
		q, err := question(v.Value)
		if err != nil {
			return nil, err
		}
		if st.res.Commands >= st.opts.MaxCommands {
			return nil, &Failure{Kind: "limit", Message: fmt.Sprintf("the script performed more than %d commands", st.opts.MaxCommands)}
		}
		st.res.Commands++
		if err := st.ctx.Err(); err != nil {
			return nil, err
		}
		st.location = q.location
		answer, err := st.performSafely(q)
		if err != nil {
			if f, ok := err.(*Failure); ok && f.Location == nil {
				f.Location = q.location
				if f.Command == "" {
					f.Command = q.name
				}
			}
			return nil, err
		}
		free, err = st.apply(q.cont, answer)
		if err != nil {
			return nil, err
		}
	}
}

// performSafely performs a command, turning a panic — a daml-script
// package that lacks a data type an answer is built of, which only a
// hand-made DAR can cause — into a failure naming the command.
func (st *run) performSafely(q *questionValue) (answer value.Value, err error) {
	defer func() {
		if p := recover(); p != nil {
			answer, err = nil, &Failure{Kind: "internal", Command: q.name, Message: fmt.Sprintf(
				"cannot perform daml-script command %s (version %d) of daml-script %s: %v", q.name, q.version, st.r.version, p)}
		}
	}()
	return st.perform(q)
}

// questionValue is a command of a script: Question's fields.
type questionValue struct {
	name     string
	version  int64
	payload  value.Value
	location *lf.Location
	cont     value.Value
}

// question reads the ScriptF (a newtype of Question) under a Free.
func question(v value.Value) (*questionValue, error) {
	sf, ok := v.(*value.Record)
	if !ok || len(sf.Fields) != 1 {
		return nil, fmt.Errorf("internal: Free holds %s, not ScriptF", v)
	}
	q, ok := sf.Fields[0].Value.(*value.Record)
	if !ok || len(q.Fields) != 5 {
		return nil, fmt.Errorf("internal: ScriptF holds %s, not Question", sf.Fields[0].Value)
	}
	name, _ := q.Field("commandName").(value.Text)
	version, _ := q.Field("commandVersion").(value.Int64)
	out := &questionValue{name: string(name), version: int64(version), payload: q.Field("payload"), cont: q.Field("continue")}
	if out.payload == nil || out.cont == nil {
		return nil, fmt.Errorf("internal: malformed Question %s", q)
	}
	if locs, ok := q.Field("locations").(*value.List); ok && locs.Len() > 0 {
		first, _, _ := locs.Uncons()
		out.location = srcLoc(first)
	}
	return out, nil
}

// srcLoc reads a (Text, SrcLoc) pair of a call stack.
func srcLoc(v value.Value) *lf.Location {
	pair, ok := v.(*value.Record)
	if !ok || len(pair.Fields) != 2 {
		return nil
	}
	loc, ok := pair.Fields[1].Value.(*value.Record)
	if !ok {
		return nil
	}
	text := func(l string) string { t, _ := loc.Field(l).(value.Text); return string(t) }
	// SrcLoc lines and columns are 0-based, as lf.Location's.
	num := func(l string) int32 { n, _ := loc.Field(l).(value.Int64); return int32(n) }
	fn, _ := pair.Fields[0].Value.(value.Text)
	return &lf.Location{
		Package:    lf.PackageID(text("srcLocPackage")),
		Module:     lf.SplitDotted(text("srcLocModule")),
		Definition: string(fn),
		Start:      lf.Position{Line: num("srcLocStartLine"), Col: num("srcLocStartCol")},
		End:        lf.Position{Line: num("srcLocEndLine"), Col: num("srcLocEndCol")},
	}
}
