package script

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// perform runs one command of a script and returns its answer.
func (st *run) perform(q *questionValue) (value.Value, error) {
	ix := st.r.types
	p := q.payload
	switch q.name {
	case "Submit":
		return st.submit(p)
	case "QueryACS":
		return st.queryACS(p)
	case "QueryContractId":
		return st.queryContractID(p)
	case "QueryInterface":
		return st.queryInterface(p)
	case "QueryInterfaceContractId":
		return st.queryInterfaceContractID(p)
	case "QueryContractKey":
		return st.queryContractKey(p)
	case "AllocateParty":
		hint, err := partyIDHint(text(field(p, "idHint")), text(field(p, "requestedName")))
		if err != nil {
			return nil, &Failure{Kind: "command", Command: q.name, Message: err.Error()}
		}
		party, err := st.ledger.AllocateParty(st.ctx, hint)
		if err != nil {
			return nil, st.commandError(q.name, err)
		}
		return value.Party(party), nil
	case "ListKnownParties":
		ps, err := st.ledger.ListKnownParties(st.ctx)
		if err != nil {
			return nil, st.commandError(q.name, err)
		}
		out := make([]value.Value, len(ps))
		for i, d := range ps {
			out[i] = ix.record("Daml.Script.Internal.Questions.PartyManagement:PartyDetails", value.Party(d.Party), value.Bool(d.IsLocal))
		}
		return value.NewList(out...), nil
	case "GetTime":
		t, err := st.ledger.Time(st.ctx)
		if err != nil {
			return nil, st.commandError(q.name, err)
		}
		return t, nil
	case "SetTime":
		t, ok := field(p, "time").(value.Timestamp)
		if !ok {
			return nil, st.malformed(q)
		}
		if err := st.ledger.SetTime(st.ctx, t); err != nil {
			return nil, st.commandError(q.name, err)
		}
		return value.Unit{}, nil
	case "Sleep":
		// A ledger of scripts under test (static time) does not sleep:
		// it would only slow them down. A node's ledger sleeps.
		if s, ok := st.ledger.(Sleeper); ok {
			us, _ := field(field(p, "duration"), "microseconds").(value.Int64)
			if err := s.Sleep(st.ctx, time.Duration(us)*time.Microsecond); err != nil {
				return nil, st.commandError(q.name, err)
			}
		}
		return value.Unit{}, nil
	case "Throw":
		exc, ok := field(p, "exc").(*value.Any)
		if !ok {
			return nil, st.malformed(q)
		}
		return nil, &thrownError{exc: exc}
	case "Catch":
		return st.catch(q)
	case "TryCommands":
		return st.tryCommands(q)
	case "ListAllPackages", "ListVettedPackages", "VetPackages", "UnvetPackages", "VetDar", "UnvetDar":
		return st.packageCommand(q)
	case "ValidateUserId", "CreateUser", "GetUser", "DeleteUser", "ListAllUsers",
		"GrantUserRights", "RevokeUserRights", "ListUserRights":
		return st.userCommand(q)
	}
	return nil, &Failure{Kind: "command", Command: q.name, Message: fmt.Sprintf(
		"unknown daml-script command %s (version %d) of daml-script %s: this runner does not perform it", q.name, q.version, st.r.version)}
}

// partyIDHint is the id hint of allocateParty as Daml's runner makes it:
// the hint given, or the requested name (else "party") with 8 random hex
// digits, so that a name allocates a new party each time.
func partyIDHint(hint, name string) (string, error) {
	switch {
	case hint != "" && name != "" && hint != name:
		return "", fmt.Errorf("requested name '%s' cannot be different from id hint '%s'", name, hint)
	case hint != "":
		return hint, nil
	case name == "":
		name = "party"
	}
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return name + "-" + hex.EncodeToString(b[:]), nil
}

func (st *run) malformed(q *questionValue) error {
	p := "<none>"
	if q.payload != nil {
		p = q.payload.String()
	}
	if len(p) > 1024 {
		p = p[:1024] + "…"
	}
	return &Failure{Kind: "internal", Command: q.name, Message: fmt.Sprintf("malformed payload of daml-script command %s (daml-script %s): %s", q.name, st.r.version, p)}
}

// commandError is a command the ledger could not perform.
func (st *run) commandError(name string, err error) error {
	var f *Failure
	if errors.As(err, &f) {
		return f
	}
	return &Failure{Kind: "command", Command: name, Message: err.Error(), Err: err}
}

// nested runs a script value inside a try block (Catch, TryCommands).
func (st *run) nested(s value.Value) (value.Value, error) {
	if st.depth >= maxCatchDepth {
		return nil, &Failure{Kind: "limit", Message: fmt.Sprintf("try blocks nested deeper than %d", maxCatchDepth)}
	}
	st.depth++
	defer func() { st.depth-- }()
	return st.runScript(s)
}

// catch is try/catch in Script: run act (), and answer Right of its result
// or Left of the Daml exception it raised.
func (st *run) catch(q *questionValue) (value.Value, error) {
	act := field(q.payload, "act")
	if act == nil {
		return nil, st.malformed(q)
	}
	s, err := st.apply(act, value.Unit{})
	var out value.Value
	if err == nil {
		out, err = st.nested(s)
	}
	if err == nil {
		return st.r.types.right(out), nil
	}
	if exc := exceptionOf(err); exc != nil {
		return st.r.types.left(exc), nil
	}
	return nil, err
}

// exceptionOf returns the Daml exception an error carries, if any.
//
// Only an exception of the script itself counts: thrown (Throw) or raised
// while evaluating it. A command that failed — a submission whose Daml code
// raised one included — is a *Failure, which try/catch does not handle, as
// in Daml's runner (tryCommands and trySubmit do).
func exceptionOf(err error) *value.Any {
	switch e := err.(type) {
	case *thrownError:
		return e.exc
	case *interp.Error:
		return e.Exception
	}
	return nil
}

// tryCommands runs a script and answers Left (command, error class,
// message) when one of its commands failed.
func (st *run) tryCommands(q *questionValue) (value.Value, error) {
	act := field(q.payload, "act")
	if act == nil {
		return nil, st.malformed(q)
	}
	out, err := st.nested(act)
	if err == nil {
		return st.r.types.right(out), nil
	}
	var f *Failure
	if errors.As(err, &f) && f.Command != "" && f.Kind != "limit" && f.Kind != "internal" {
		class := f.Kind
		var ie *interp.Error
		if errors.As(f.Err, &ie) {
			class = ie.ID
		}
		return st.r.types.left(st.r.types.triple(value.Text(f.Command), value.Text(class), value.Text(f.Message))), nil
	}
	return nil, err
}

// submit performs the Submit command (submit, submitMulti, trySubmit,
// concurrently, …). Daml's runner starts all its submissions at once
// (ScriptF's Submit: Future.traverse) and answers in their order; its IDE
// ledger performs them one at a time, in order. So here: on a ledger in
// process, in order; on a ConcurrentLedger (a node), all at once — at most
// maxConcurrentSubmissions in flight — with the answers, and the first
// failure, in their order.
func (st *run) submit(p value.Value) (value.Value, error) {
	subs := list(field(p, "submissions"))
	if cl, ok := st.ledger.(ConcurrentLedger); ok && cl.SubmitsConcurrently() && len(subs) > 1 {
		return st.submitConcurrently(subs)
	}
	out := make([]value.Value, 0, len(subs))
	for _, s := range subs {
		v, err := st.submitOne(s)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return value.NewList(out...), nil
}

// ConcurrentLedger is a Ledger to which a script's concurrent submissions
// (concurrently) are sent at once, as Daml's runner sends them to a node.
type ConcurrentLedger interface {
	SubmitsConcurrently() bool
}

// maxConcurrentSubmissions bounds the submissions of one Submit command in
// flight at once on a ConcurrentLedger.
const maxConcurrentSubmissions = 16

func (st *run) submitConcurrently(subs []value.Value) (value.Value, error) {
	type pending struct {
		sub       *Submission
		behaviour string
		loc       *lf.Location
		t         *tx.Transaction
		err       error
	}
	ps := make([]pending, len(subs))
	for i, s := range subs {
		sub, behaviour, err := st.readSubmission(s)
		if err != nil {
			return nil, err
		}
		ps[i] = pending{sub: sub, behaviour: behaviour, loc: optionalLoc(field(s, "sLocation"))}
	}
	sem := make(chan struct{}, maxConcurrentSubmissions)
	var wg sync.WaitGroup
	for i := range ps {
		wg.Add(1)
		sem <- struct{}{}
		go func(p *pending) {
			defer func() { <-sem; wg.Done() }()
			p.t, p.err = st.ledger.Submit(st.ctx, p.sub)
		}(&ps[i])
	}
	wg.Wait()
	out := make([]value.Value, 0, len(ps))
	for _, p := range ps {
		if p.loc != nil {
			st.location = p.loc
		}
		v, err := st.answer(p.sub, p.behaviour, p.t, p.err)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return value.NewList(out...), nil
}

// submitOne performs one submission and answers Either SubmitError
// ([CommandResult], TransactionTree), failing the script when it had to
// succeed and failed, or had to fail and succeeded.
func (st *run) submitOne(s value.Value) (value.Value, error) {
	sub, behaviour, err := st.readSubmission(s)
	if err != nil {
		return nil, err
	}
	if loc := optionalLoc(field(s, "sLocation")); loc != nil {
		st.location = loc
	}
	t, err := st.ledger.Submit(st.ctx, sub)
	return st.answer(sub, behaviour, t, err)
}

// answer is the answer to a submission the ledger performed, t, or failed,
// err.
func (st *run) answer(sub *Submission, behaviour string, t *tx.Transaction, err error) (value.Value, error) {
	ix := st.r.types
	if err != nil {
		var ie *interp.Error
		if !errors.As(err, &ie) && !errors.As(err, new(*SubmitFailure)) {
			return nil, st.commandError("Submit", err)
		}
		if behaviour == "MustSucceed" {
			f := st.failure(err)
			f.Command = "Submit"
			f.Location = st.location
			if f.Kind == "error" || f.Kind == "internal" {
				f.Kind = "submit"
			}
			return nil, f
		}
		return ix.left(st.submitError(err)), nil
	}
	if behaviour == "MustFail" {
		return nil, &Failure{Kind: "submit", Command: "Submit", Location: st.location,
			Message: "Expected submit to fail but it succeeded"}
	}
	if t, err = st.asWritten(sub.Commands, t); err != nil {
		return nil, err
	}
	results, err := st.commandResults(sub.Commands, t)
	if err != nil {
		return nil, err
	}
	tree := ix.record("Daml.Script.Internal.Questions.TransactionTree:TransactionTree", value.NewList(st.treeEvents(t, t.Roots)...))
	return ix.right(ix.pair(value.NewList(results...), tree)), nil
}

func optionalLoc(v value.Value) *lf.Location {
	o, ok := v.(value.Optional)
	if !ok || o.Value == nil {
		return nil
	}
	return srcLoc(o.Value)
}

// readSubmission reads a Submission record.
func (st *run) readSubmission(s value.Value) (*Submission, string, error) {
	bad := func(what string, err error) error {
		return &Failure{Kind: "internal", Command: "Submit", Message: fmt.Sprintf("submission's %s: %v", what, err)}
	}
	sub := &Submission{}
	actAs := field(s, "sActAs") // NonEmpty Party: { hd, tl }
	hd, ok := field(actAs, "hd").(value.Party)
	if !ok {
		return nil, "", bad("actAs", fmt.Errorf("expected a non-empty list of parties, got %v", actAs))
	}
	tl, err := parties(field(actAs, "tl"))
	if err != nil {
		return nil, "", bad("actAs", err)
	}
	sub.ActAs = append([]string{string(hd)}, tl...)
	if sub.ReadAs, err = parties(field(s, "sReadAs")); err != nil {
		return nil, "", bad("readAs", err)
	}
	for _, d := range list(field(s, "sDisclosures")) {
		id, err := identifierOf(field(d, "templateId"))
		if err != nil {
			return nil, "", bad("disclosures", err)
		}
		cid, _ := field(d, "contractId").(value.ContractID)
		sub.Disclosed = append(sub.Disclosed, Disclosure{TemplateID: id, ContractID: cid, Blob: text(field(d, "blob"))})
	}
	if o, ok := field(s, "sPackagePreference").(value.Optional); ok && o.Value != nil {
		for _, id := range list(o.Value) {
			sub.PackagePreference = append(sub.PackagePreference, lf.PackageID(text(field(id, "unpack"))))
		}
	}
	behaviour := "MustSucceed"
	if e, ok := field(s, "sErrorBehaviour").(*value.Enum); ok {
		behaviour = e.Constructor
	}
	for _, c := range list(field(s, "sCommands")) {
		cmd, err := st.command(field(c, "command"))
		if err != nil {
			return nil, "", bad("commands", err)
		}
		sub.Commands = append(sub.Commands, cmd)
		// A daml-script without the field names every package exactly.
		explicit, ok := field(c, "explicitPackageId").(value.Bool)
		sub.ByName = append(sub.ByName, ok && !bool(explicit))
	}
	return sub, behaviour, nil
}

// command reads a daml-script Command as an interpreter command.
func (st *run) command(v value.Value) (interp.Command, error) {
	c, ok := v.(*value.Variant)
	if !ok {
		return nil, fmt.Errorf("expected a Command, got %s", v)
	}
	switch c.Constructor {
	case "Create":
		id, arg, err := unAny(field(c.Value, "argC"))
		if err != nil {
			return nil, err
		}
		return &interp.CreateCommand{Template: id, Argument: arg}, nil
	case "Exercise":
		tmpl, err := identifierOf(field(c.Value, "tplId"))
		if err != nil {
			return nil, err
		}
		choice, arg, err := unAny(field(c.Value, "argE"))
		if err != nil {
			return nil, err
		}
		cid, ok := field(c.Value, "cId").(value.ContractID)
		if !ok {
			return nil, fmt.Errorf("expected a contract id, got %s", field(c.Value, "cId"))
		}
		return &interp.ExerciseCommand{Template: tmpl, ContractID: cid, Choice: choice.EntityName, Argument: arg}, nil
	case "ExerciseByKey":
		tmpl, err := identifierOf(field(c.Value, "tplId"))
		if err != nil {
			return nil, err
		}
		_, key, err := unAny(field(c.Value, "keyE"))
		if err != nil && key == nil {
			return nil, err
		}
		choice, arg, err := unAny(field(c.Value, "argE"))
		if err != nil {
			return nil, err
		}
		return &interp.ExerciseByKeyCommand{Template: tmpl, Key: key, Choice: choice.EntityName, Argument: arg}, nil
	case "CreateAndExercise":
		id, arg, err := unAny(field(c.Value, "tplArgCE"))
		if err != nil {
			return nil, err
		}
		choice, carg, err := unAny(field(c.Value, "choiceArgCE"))
		if err != nil {
			return nil, err
		}
		return &interp.CreateAndExerciseCommand{Template: id, CreateArgument: arg, Choice: choice.EntityName, ChoiceArgument: carg}, nil
	}
	return nil, fmt.Errorf("unknown Command constructor %s", c.Constructor)
}

// commandResults are the CommandResult of each command: the root nodes in
// order, one per command and two for create-and-exercise.
func (st *run) commandResults(cmds []interp.Command, t *tx.Transaction) ([]value.Value, error) {
	ix := st.r.types
	const cr = "Daml.Script.Internal.Questions.Commands:CommandResult"
	var out []value.Value
	roots := t.Roots
	next := func() (tx.Node, error) {
		if len(roots) == 0 {
			return nil, errors.New("internal: the transaction has fewer root nodes than commands")
		}
		n := t.Nodes[roots[0]]
		roots = roots[1:]
		return n, nil
	}
	result := func() error {
		n, err := next()
		if err != nil {
			return err
		}
		switch x := n.(type) {
		case *tx.Create:
			out = append(out, ix.variant(cr, "CreateResult", x.ContractID))
		case *tx.Exercise:
			out = append(out, ix.variant(cr, "ExerciseResult", x.Result))
		default:
			return fmt.Errorf("internal: root node %T for a command", n)
		}
		return nil
	}
	for _, c := range cmds {
		n := 1
		if _, ok := c.(*interp.CreateAndExerciseCommand); ok {
			n = 2
		}
		for range n {
			if err := result(); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// treeEvents converts nodes to TreeEvents: creates and exercises (fetches,
// key queries and rolled-back nodes are not in a transaction tree).
func (st *run) treeEvents(t *tx.Transaction, ids []tx.NodeID) []value.Value {
	ix := st.r.types
	const tt = "Daml.Script.Internal.Questions.TransactionTree:"
	var out []value.Value
	for _, id := range ids {
		switch n := t.Nodes[id].(type) {
		case *tx.Create:
			acid := ix.record("Daml.Script.Internal.Questions.Util:AnyContractId", ix.typeRep(n.TemplateID), n.ContractID)
			c := ix.record(tt+"Created", acid, ix.anyTemplate(n.TemplateID, n.Argument))
			out = append(out, ix.variant(tt+"TreeEvent", "CreatedEvent", c))
		case *tx.Exercise:
			on := n.TemplateID
			if n.InterfaceID != nil {
				on = n.InterfaceID
			}
			acid := ix.record("Daml.Script.Internal.Questions.Util:AnyContractId", ix.typeRep(n.TemplateID), n.ContractID)
			arg := ix.record("DA.Internal.Any:AnyChoice", &value.Any{Type: st.choiceArgType(on, n.Choice, n.ChosenValue), Value: n.ChosenValue}, ix.typeRep(on))
			e := ix.record(tt+"Exercised", acid, value.Text(n.Choice), arg, value.NewList(st.treeEvents(t, n.Children)...))
			out = append(out, ix.variant(tt+"TreeEvent", "ExercisedEvent", e))
		}
	}
	return out
}

// choiceArgType is the type of a choice's argument: its record's type
// constructor (as Daml writes choices), else the declared type.
func (st *run) choiceArgType(on *value.Identifier, choice string, arg value.Value) lf.Type {
	if r, ok := arg.(*value.Record); ok && r.TypeCon != nil {
		return tcon(r.TypeCon)
	}
	if p := st.r.lfPkgs[lf.PackageID(on.PackageID)]; p != nil {
		if m := p.Module(on.ModuleName); m != nil {
			if t := m.Template(on.EntityName); t != nil {
				if c := t.Choice(choice); c != nil {
					return c.ArgBinder.Type
				}
			}
			if i := m.Interface(on.EntityName); i != nil {
				if c := i.Choice(choice); c != nil {
					return c.ArgBinder.Type
				}
			}
		}
	}
	return lf.TBuiltin{Builtin: lf.BuiltinUnit}
}

// SubmitFailure is a failed submission a Ledger reports without an
// *interp.Error (a ledger over the JSON API): Canton's error id and
// message.
type SubmitFailure struct {
	ID      string
	Message string
}

func (e *SubmitFailure) Error() string { return e.ID + ": " + e.Message }

var contractIDPattern = regexp.MustCompile(`\b00[0-9a-f]{64,}\b`)

// submitError builds the SubmitError value of a failed submission, as
// Daml's runner does for the errors it knows; others are UnknownError.
func (st *run) submitError(err error) value.Value {
	ix := st.r.types
	const se = "Daml.Script.Internal.Questions.Submit.Error:SubmitError"
	con := func(name string, fields ...value.Value) value.Value {
		if len(fields) == 0 {
			return ix.variant(se, name, value.Unit{})
		}
		return ix.variant(se, name, ix.record(se+"."+name, fields...))
	}
	id, msg := "", err.Error()
	var exc *value.Any
	var ie *interp.Error
	var sf *SubmitFailure
	switch {
	case errors.As(err, &ie):
		id, msg, exc = ie.ID, ie.Cause, ie.Exception
	case errors.As(err, &sf):
		id, msg = sf.ID, sf.Message
	}
	switch {
	case exc != nil:
		return con("UnhandledException", value.Optional{Value: exc})
	case id == "DAML_FAILURE" && strings.Contains(msg, "UNHANDLED_EXCEPTION/"):
		// Over the JSON API the exception's value is not known, only its
		// message.
		return con("UnhandledException", value.Optional{})
	case id == "CONTRACT_NOT_FOUND" || id == "CONTRACT_NOT_ACTIVE":
		ids := contractIDPattern.FindAllString(msg, -1)
		if len(ids) > 0 {
			var tl []value.Value
			for _, c := range ids[1:] {
				tl = append(tl, value.Text(c))
			}
			ne := &value.Record{TypeCon: nil, Fields: []value.Field{{Label: "hd", Value: value.Text(ids[0])}, {Label: "tl", Value: value.NewList(tl...)}}}
			if d, ok := ix.byName["DA.NonEmpty.Types:NonEmpty"]; ok {
				ne.TypeCon = d.id
			}
			return con("ContractNotFound", ne, value.Optional{})
		}
	case id == "DAML_AUTHORIZATION_ERROR":
		return con("AuthorizationError", value.Text(msg))
	case id == "TEMPLATE_PRECONDITION_VIOLATED":
		return con("TemplatePreconditionViolated")
	case id == "INTERPRETATION_USER_ERROR":
		return con("UserError", value.Text(strings.TrimPrefix(msg, "Interpretation error: Error: User abort: ")))
	case id == "NON_COMPARABLE_VALUES":
		return con("NonComparableValues")
	}
	return con("UnknownError", value.Text(msg))
}
