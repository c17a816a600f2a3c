package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	damlengine "github.com/ledger-cli/ledger/daml/engine"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/events"
	"github.com/ledger-cli/ledger/node/ledger"
)

// Commands on templates of uploaded packages run in the Daml-LF
// interpreter (package daml/interp): this file turns the engine's commands
// into the interpreter's, gives it the node's contracts, and turns the
// transaction it builds (package daml/tx) into what the node needs: the
// DamlTransaction a PreparedTransaction carries, the events it stores and
// serves, and the contracts it creates, archives and uses.

// damlRun is what interpreting a list of commands needs besides them.
type damlRun struct {
	set   *PackageSet
	actAs []string
	// visible refuses the stored contracts the submitters may not see
	// (prepare, submit).
	visible func(c *ledger.Contract) bool
	// disclosed are the request's disclosed contracts, authenticated, in
	// the order it gives them: a key lookup lists those with the key
	// first, and each is used as its blob describes it.
	disclosed *disclosedSet
	// submissionSeed derives the transaction seed, unless rootSeeds gives
	// the seeds of the root nodes (execute).
	submissionSeed  tx.Hash
	rootSeeds       []tx.Hash
	preparationTime time.Time
	ledgerTime      time.Time
	// inputs, when not nil, are the only contracts the commands may read
	// (execute: the input contracts of the prepared transaction, given to
	// the interpreter as disclosed contracts); the store is not asked.
	inputs []*ledger.Contract
	// preference is the package the commands use for each package name
	// (interp.Submission.PackagePreference).
	preference []lf.PackageID
	// noInputContracts: built.inputs stays empty (see runRequest).
	noInputContracts bool
}

var (
	valueIdentifier = damlengine.ValueIdentifier
	protoIdentifier = damlengine.ProtoIdentifier
	conOfIdentifier = damlengine.ConOf
)

// timestamp is t in the ledger's microseconds.
var timestamp = damlengine.Timestamp

// submissionSeed is a fresh submission seed.
func (e *Engine) submissionSeed() (tx.Hash, error) {
	var h tx.Hash
	b, err := e.random(len(h))
	if err != nil {
		return h, err
	}
	copy(h[:], b)
	return h, nil
}

// interpret runs the commands in the interpreter (damlengine.Submit) and
// returns the transaction they make. Interpretation failures are
// *interp.Error (see damlError); failures of the store are returned as they
// are.
func (e *Engine) interpret(ctx context.Context, cmds []interp.Command, run damlRun) (*built, error) {
	view, disclosed, err := e.viewFor(run)
	if err != nil {
		return nil, err
	}
	res, err := damlengine.Submit(ctx, &damlengine.Submission{
		Packages:        run.set,
		Preference:      run.preference,
		ActAs:           run.actAs,
		Commands:        cmds,
		Contracts:       view,
		Disclosed:       disclosed,
		PreparationTime: run.preparationTime,
		SubmissionSeed:  run.submissionSeed,
		ParticipantID:   e.cfg.ParticipantID,
		RootSeeds:       run.rootSeeds,
		LedgerTime:      run.ledgerTime,
		Limits:          e.cfg.Interpretation,
	})
	if err != nil {
		if view.err != nil {
			return nil, view.err
		}
		return nil, err
	}
	return e.builtOf(res, view.read, run.set, !run.noInputContracts)
}

// viewFor is the interpreter's ledger for a run and, re-interpreting, the
// input contracts it gives the interpreter as disclosed contracts, most
// recently created first.
func (e *Engine) viewFor(run damlRun) (*contractView, []*tx.Contract, error) {
	view := &contractView{e: e, set: run.set, visible: run.visible, disclosed: run.disclosed, read: map[value.ContractID]*ledger.Contract{}}
	if run.inputs == nil {
		return view, nil, nil
	}
	view.inputs = slices.Clone(run.inputs)
	keyOrder(view.inputs)
	disclosed := make([]*tx.Contract, 0, len(run.inputs))
	for _, c := range run.inputs {
		tc, err := view.typedContract(c)
		if err != nil {
			return nil, nil, err
		}
		view.read[tc.ID] = c
		disclosed = append(disclosed, tc)
	}
	return view, disclosed, nil
}

// contractView is the interpreter's ledger (an interp.KeyLedger): the
// node's active contracts the submitters may see, their arguments and keys
// read by their packages' types; or, re-interpreting, the input contracts
// alone.
type contractView struct {
	e         *Engine
	set       *PackageSet
	visible   func(c *ledger.Contract) bool
	disclosed *disclosedSet
	// inputs, when not nil, are all the contracts there are, most recently
	// created first; the interpreter has them as disclosed contracts.
	inputs []*ledger.Contract
	read   map[value.ContractID]*ledger.Contract
	// err is the first failure the interpreter could only report as an
	// internal error: the engine answers it instead.
	err error
}

func (v *contractView) LookupContract(ctx context.Context, id value.ContractID) (*tx.Contract, error) {
	if v.inputs != nil {
		return nil, nil
	}
	c, err := v.e.lookupContract(ctx, v.disclosed, string(id))
	if err != nil {
		v.err = err
		return nil, err
	}
	if c == nil || !c.Active() || v.visible != nil && !v.visible(c) {
		return nil, nil
	}
	tc, err := v.typedContract(c)
	if err != nil {
		v.err = err
		return nil, err
	}
	v.read[id] = c
	return tc, nil
}

// typedContract reads a stored contract as the interpreter needs it: its
// argument typed by its template. A contract of a package never uploaded
// keeps no argument (the interpreter refuses it before reading one: it is
// of another template or another package version).
func (v *contractView) typedContract(c *ledger.Contract) (*tx.Contract, error) {
	tid, err := parseIdentifier(c.TemplateID)
	if err != nil {
		return nil, fmt.Errorf("stored contract %s: %w", c.ContractID, err)
	}
	out := &tx.Contract{
		ID:           value.ContractID(c.ContractID),
		PackageName:  c.PackageName,
		TemplateID:   tid,
		Argument:     value.Unit{},
		Signatories:  c.Signatories,
		Stakeholders: c.Stakeholders,
		CreatedAt:    timestamp(c.CreatedAt),
	}
	plan, ok, err := typedPlan(v.set, tid, "")
	if !ok {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("stored contract %s: %w", c.ContractID, err)
	}
	pv, err := unmarshalProtoValue(c.Argument)
	if err != nil {
		return nil, fmt.Errorf("stored contract %s: %w", c.ContractID, err)
	}
	if out.Argument, err = plan.FromProto(pv); err != nil {
		return nil, ledgerapi.Errorf(ledgerapi.CodeDamlInterpretationError,
			"Interpretation error: Error: contract %s was created by the generic contract model before package %s was uploaded, and its argument is not a value of template %s: %v",
			c.ContractID, tid.PackageID, c.TemplateID, err).WithResource("CONTRACT_ID", c.ContractID)
	}
	k, err := contractKey(c)
	if err != nil || k == nil {
		return out, err
	}
	if out.Key, err = typedKey(v.set, conOfIdentifier(out.TemplateID), k); err != nil {
		return nil, fmt.Errorf("stored contract %s: %w", c.ContractID, err)
	}
	return out, nil
}

// builtOf turns an interpreted transaction into the node's records. read
// holds the stored contracts the interpretation read. The nodes under a
// rollback node are in the transaction but have no effect: they create and
// archive nothing and make no event, as Canton's indexer skips them.
// withInputs lists the contracts read as the input contracts of a
// prepared transaction.
func (e *Engine) builtOf(res *damlengine.Result, read map[value.ContractID]*ledger.Contract, set *PackageSet, withInputs bool) (*built, error) {
	t := res.Transaction
	b := &built{tx: t, interpreted: true}
	if lo := res.TimeBounds.Min; lo != nil {
		v := uint64(*lo)
		b.minLedgerTime = &v
	}
	if hi := res.TimeBounds.Max; hi != nil {
		v := uint64(*hi)
		b.maxLedgerTime = &v
	}
	plans := damlengine.NewPlans(set)
	consumed := map[value.ContractID]bool{}
	local := map[value.ContractID]bool{}
	last := lastDescendants(t)
	witnesses := make([][]string, len(t.Nodes))
	rolledBack := make([]bool, len(t.Nodes))
	// The walk is pre-order: a root's descendants come before the next
	// root, so the current root and its count of creates suffice.
	root, createsInRoot := -1, 0
	b.nodes = make([]events.Node, 0, len(t.Nodes))
	var walkErr error
	t.Walk(func(id tx.NodeID, n tx.Node, parent tx.NodeID) {
		if walkErr != nil {
			return
		}
		var inherited []string
		if parent < 0 {
			root, createsInRoot = root+1, 0
		} else {
			inherited = witnesses[parent]
			_, underRollback := t.Nodes[parent].(*tx.Rollback)
			rolledBack[id] = rolledBack[parent] || underRollback
		}
		ev, err := eventOf(id, n, inherited, last[id], plans)
		if err != nil {
			walkErr = fmt.Errorf("node %d: %w", id, err)
			return
		}
		witnesses[id] = ev.Witnesses
		pos := createPos{root: root}
		if _, ok := n.(*tx.Create); ok {
			pos.index = createsInRoot
			createsInRoot++
		}
		if rolledBack[id] {
			return
		}
		switch x := n.(type) {
		case *tx.Create:
			k, err := damlengine.EncodeKey(x.Key)
			if err != nil {
				walkErr = fmt.Errorf("node %d: %w", id, err)
				return
			}
			keyHash, key, err := storedKey(k)
			if err != nil {
				walkErr = err
				return
			}
			local[x.ContractID] = true
			b.created = append(b.created, ledger.Contract{
				ContractID:   string(x.ContractID),
				TemplateID:   x.TemplateID.String(),
				PackageName:  x.PackageName,
				Signatories:  x.Signatories,
				Stakeholders: x.Stakeholders,
				KeyHash:      keyHash,
				Key:          key,
				NodeID:       ev.NodeID,
				ArgumentJSON: ev.Argument,
				KeyJSON:      ev.ContractKey,
			})
			b.args = append(b.args, x.Argument)
			b.pos = append(b.pos, pos)
		case *tx.Exercise:
			if x.Consuming {
				consumed[x.ContractID] = true
				b.archived = append(b.archived, string(x.ContractID))
			}
		}
		if ev.Kind != "" {
			b.nodes = append(b.nodes, ev)
		}
	})
	if walkErr != nil {
		return nil, walkErr
	}
	for i := range b.nodes {
		n := &b.nodes[i]
		cid := value.ContractID(n.ContractID)
		if n.Kind == events.KindCreate && consumed[cid] || n.Kind == events.KindExercise && n.Consuming && local[cid] {
			n.Transient = true
		}
	}
	for _, c := range res.Inputs {
		stored := read[c.ID]
		if stored == nil {
			return nil, fmt.Errorf("the interpreter read contract %s, which the node did not give it", c.ID)
		}
		if withInputs {
			b.inputs = append(b.inputs, stored)
		}
		if !consumed[c.ID] {
			b.used = append(b.used, string(c.ID))
		}
	}
	sort.Slice(b.inputs, func(i, j int) bool { return b.inputs[i].ContractID < b.inputs[j].ContractID })
	sort.Strings(b.used)
	return b, nil
}

// lastDescendants gives each node the id of the last node of its subtree
// (itself for a leaf), as Canton's lastDescendantNodeId: it counts fetch
// and query nodes but not rollback nodes or what they hold, which make no
// events (TransactionTraversalUtils). Node ids are pre-order, so it is the
// last descendant of the last child that is not a rollback.
func lastDescendants(t *tx.Transaction) []int32 {
	last := make([]int32, len(t.Nodes))
	for id := len(t.Nodes) - 1; id >= 0; id-- {
		last[id] = int32(id)
		x, ok := t.Nodes[id].(*tx.Exercise)
		if !ok {
			continue
		}
		for i := len(x.Children) - 1; i >= 0; i-- {
			if _, rb := t.Nodes[x.Children[i]].(*tx.Rollback); !rb {
				last[id] = last[x.Children[i]]
				break
			}
		}
	}
	return last
}

// eventOf is an interpreted node as the node's events record it, its
// values the JSON API's (the prepared transaction's encoding of it is
// damlengine.EncodeNode's). inherited are the witnesses of its parent: a
// node is seen by its informees and by whoever sees its parent (Canton's
// BlindingTransaction). Fetch, query-by-key and rollback nodes make no
// event (ev.Kind is empty).
func eventOf(id tx.NodeID, n tx.Node, inherited []string, last int32, plans *damlengine.Plans) (events.Node, error) {
	switch x := n.(type) {
	case *tx.Create:
		js, err := jsonOf(plans.Argument(x.TemplateID))(x.Argument)
		if err != nil {
			return events.Node{}, err
		}
		keyJSON, err := keyJSON(plans, x.Key)
		if err != nil {
			return events.Node{}, err
		}
		ev := events.Node{
			NodeID: int32(id), Kind: events.KindCreate, ContractID: string(x.ContractID), TemplateID: x.TemplateID.String(),
			PackageName: x.PackageName, Argument: js, Signatories: x.Signatories, Stakeholders: x.Stakeholders,
			ContractKey: keyJSON, Witnesses: partyUnion(inherited, x.Stakeholders),
		}
		if x.Key != nil {
			ev.KeyHash = append([]byte(nil), x.Key.Hash[:]...)
		}
		return ev, nil
	case *tx.Exercise:
		// The choice is the interface's when exercised through one.
		owner := x.TemplateID
		if x.InterfaceID != nil {
			owner = x.InterfaceID
		}
		argJSON, err := jsonOf(plans.ChoiceArgument(owner, x.Choice))(x.ChosenValue)
		if err != nil {
			return events.Node{}, err
		}
		// An exercise a rollback cut short has no result; it makes no
		// event either.
		var resultJSON json.RawMessage
		if x.Result != nil {
			if resultJSON, err = jsonOf(plans.ChoiceResult(owner, x.Choice))(x.Result); err != nil {
				return events.Node{}, err
			}
		}
		if _, err := keyJSON(plans, x.Key); err != nil {
			return events.Node{}, err
		}
		parties := x.Signatories
		if x.Consuming {
			parties = x.Stakeholders
		}
		return events.Node{
			NodeID: int32(id), Kind: events.KindExercise, ContractID: string(x.ContractID), TemplateID: x.TemplateID.String(),
			InterfaceID: identifierText(x.InterfaceID), PackageName: x.PackageName, Argument: argJSON,
			Signatories: x.Signatories, Stakeholders: x.Stakeholders,
			Choice: x.Choice, ActingParties: x.ActingParties, Consuming: x.Consuming, Result: resultJSON,
			LastDescendant: last, Witnesses: partyUnion(inherited, parties, x.ActingParties, x.ChoiceObservers),
		}, nil
	case *tx.Fetch:
		if _, err := keyJSON(plans, x.Key); err != nil {
			return events.Node{}, err
		}
		return events.Node{Witnesses: partyUnion(inherited, x.Signatories, x.ActingParties)}, nil
	case *tx.QueryByKey:
		if _, err := keyJSON(plans, x.Key); err != nil {
			return events.Node{}, err
		}
		return events.Node{Witnesses: partyUnion(inherited, x.Key.Maintainers)}, nil
	case *tx.Rollback:
		return events.Node{Witnesses: inherited}, nil
	}
	return events.Node{}, fmt.Errorf("%T nodes are not supported", n)
}

// jsonOf returns the events' JSON writer of a codec (or its error).
func jsonOf(plan *typed.Plan, err error) func(value.Value) (json.RawMessage, error) {
	return func(v value.Value) (json.RawMessage, error) {
		if err != nil {
			return nil, err
		}
		return plan.EncodeJSON(v)
	}
}

// keyJSON is a contract key's value as the events' JSON (nil for none).
func keyJSON(plans *damlengine.Plans, k *tx.KeyWithMaintainers) (json.RawMessage, error) {
	if k == nil {
		return nil, nil
	}
	return jsonOf(plans.Key(k.TemplateID))(k.Key)
}

func identifierText(id *value.Identifier) string {
	if id == nil {
		return ""
	}
	return id.String()
}

// partyUnion is the union of sets of parties, sorted.
func partyUnion(sets ...[]string) []string {
	m := map[string]bool{}
	for _, set := range sets {
		for _, p := range set {
			m[p] = true
		}
	}
	return sortedSet(m)
}

// damlError turns an interpretation failure into Canton's error: the id,
// category and cause the interpreter gives, the error's metadata (error_id
// of DAML_FAILURE) in the context, and where it happened — template,
// choice, Daml location — in the context too, since Canton's cause does not
// always say; DAML_FAILURE's context has the exercise trace
// (exercise_trace). Internal failures stay Go errors, which the server logs and
// answers as LEDGER_API_INTERNAL_ERROR without their text.
func damlError(err error) error {
	var ie *interp.Error
	if !errors.As(err, &ie) {
		return err
	}
	if ie.ID == ledgerapi.CodeLedgerAPIInternalError.ID {
		return fmt.Errorf("interpretation: %s", ie.Error())
	}
	ctx := make(map[string]string, len(ie.Metadata)+3)
	for k, v := range ie.Metadata {
		ctx[k] = v
	}
	if ie.Template != "" {
		ctx["template"] = ie.Template
	}
	if ie.Choice != "" {
		ctx["choice"] = ie.Choice
	}
	if ie.Location != nil {
		ctx["location"] = ie.Location.String()
	}
	// As Canton's FailureStatus: the exercise trace goes last, so no
	// metadata of the Daml code's overrides it; other ids carry none.
	if ie.ID == "DAML_FAILURE" {
		if trace := ie.TransactionTrace(); trace != "" {
			ctx["exercise_trace"] = trace
		}
	}
	e := ledgerapi.NewError(ledgerapi.ErrorCode{ID: ie.ID, Category: ie.Category}, ie.Cause, ctx)
	if cid, ok := strings.CutPrefix(ie.Cause, "Contract could not be found with id "); ok {
		e = e.WithResource("CONTRACT_ID", cid)
	}
	return e
}
