package generic

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/node/events"
	"github.com/ledger-cli/ledger/node/ledger"
)

// LFVersion is the Daml-LF serialization version of every node of the
// model and of its transactions: "2.1", which both hashing schemes accept
// and which carries no contract keys.
const LFVersion = "2.1"

// Kind is the kind of a command.
type Kind int

// The commands of the model.
const (
	Create Kind = iota + 1
	Exercise
	CreateAndExercise
)

// Command is a validated command of the model, its arguments the values
// the model writes into its transactions.
type Command struct {
	Kind           Kind
	Template       Template // Create, CreateAndExercise
	TemplateRef    string   // Exercise: the template id as the command wrote it
	ContractID     string   // Exercise
	Choice         string
	CreateArgument value.Value
	ChoiceArgument value.Value
}

// Ledger is what the builder reads beside the commands.
type Ledger interface {
	// Contract is the contract a command exercises, nil when there is
	// none (a disclosed contract's authenticated copy before the store's).
	Contract(ctx context.Context, id string) (*ledger.Contract, error)
	// ArgumentJSON renders a create argument (choice "") or a choice
	// argument as events show it.
	ArgumentJSON(tmplID *value.Identifier, choice string, arg value.Value) (json.RawMessage, error)
}

// Options say how the builder treats existing contracts.
type Options struct {
	// Visible, when set, refuses contracts the submitters may not see.
	Visible func(c *ledger.Contract) bool
	// Inactive makes the error for an unknown or archived contract.
	Inactive func(contractID string) error
	// Nonconsuming are the choices that do not archive (Archive always
	// does).
	Nonconsuming map[string]bool
}

// Transaction is the transaction the commands make.
type Transaction struct {
	Tx *tx.Transaction
	// Inputs are the pre-existing contracts it exercises, sorted by
	// contract id.
	Inputs []*ledger.Contract
	Nodes  []events.Node // pre-order, index = node id
	// Created are the contracts it creates, CreatedAt and Argument left
	// zero: create i is root Created[i].NodeID, whose node holds its
	// argument (the store's encoding of it is the node's to make).
	Created []ledger.Contract
	// Archived are the contracts it archives; Used the pre-existing
	// contracts it exercises without archiving them.
	Archived []string
	Used     []string
}

// ModelError is a command that breaks the contract model; callers wrap it
// in the error id of their endpoint.
type ModelError struct{ Msg string }

func (e *ModelError) Error() string { return e.Msg }

func modelErrorf(format string, args ...any) error {
	return &ModelError{Msg: fmt.Sprintf(format, args...)}
}

// Build assembles the transaction the commands make: for each command in
// order a create node, an exercise node, or both (createAndExercise), all of
// them roots, numbered from 0 in pre-order. actAs must be sorted and unique;
// seed gives the 32-byte seed of a node.
func Build(ctx context.Context, cmds []Command, actAs []string, seed func(nodeID int32) ([]byte, error), l Ledger, opt Options) (Transaction, error) {
	// b stays on the stack: Build returns a copy.
	b := &Transaction{Tx: &tx.Transaction{Version: LFVersion}}
	local := map[string]*ledger.Contract{} // created in this transaction
	consumed := map[string]bool{}
	inputs := map[string]*ledger.Contract{}
	usedSet := map[string]bool{}
	for _, cmd := range cmds {
		switch cmd.Kind {
		case Create:
			if _, err := b.create(cmd.Template, cmd.CreateArgument, actAs, seed, local, l); err != nil {
				return Transaction{}, err
			}
		case CreateAndExercise:
			cid, err := b.create(cmd.Template, cmd.CreateArgument, actAs, seed, local, l)
			if err != nil {
				return Transaction{}, err
			}
			if err := b.exercise(ctx, local[cid], cmd.Template.String(), cmd, actAs, seed, consumed, inputs, usedSet, true, l, opt); err != nil {
				return Transaction{}, err
			}
		case Exercise:
			c, isLocal := local[cmd.ContractID]
			if !isLocal {
				stored, err := l.Contract(ctx, cmd.ContractID)
				if err != nil {
					return Transaction{}, err
				}
				if stored == nil || !stored.Active() {
					return Transaction{}, opt.Inactive(cmd.ContractID)
				}
				if opt.Visible != nil && !opt.Visible(stored) {
					return Transaction{}, opt.Inactive(cmd.ContractID)
				}
				c = stored
			}
			if consumed[cmd.ContractID] {
				return Transaction{}, opt.Inactive(cmd.ContractID)
			}
			if !MatchesTemplate(cmd.TemplateRef, c) {
				return Transaction{}, &WrongTemplateError{ContractID: cmd.ContractID, Want: cmd.TemplateRef, Have: c.TemplateID}
			}
			if err := b.exercise(ctx, c, cmd.TemplateRef, cmd, actAs, seed, consumed, inputs, usedSet, isLocal, l, opt); err != nil {
				return Transaction{}, err
			}
		default:
			return Transaction{}, modelErrorf("unknown command kind %d", cmd.Kind)
		}
	}
	for i := range b.Nodes {
		n := &b.Nodes[i]
		if n.Kind == events.KindCreate && consumed[n.ContractID] {
			n.Transient = true
		}
		if n.Kind == events.KindExercise && n.Consuming && local[n.ContractID] != nil {
			n.Transient = true
		}
	}
	ids := make([]string, 0, len(inputs))
	for id := range inputs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		b.Inputs = append(b.Inputs, inputs[id])
	}
	for id := range usedSet {
		if !consumed[id] {
			b.Used = append(b.Used, id)
		}
	}
	sort.Strings(b.Used)
	return *b, nil
}

// WrongTemplateError is an exercise naming a template other than the
// contract's.
type WrongTemplateError struct{ ContractID, Want, Have string }

func (e *WrongTemplateError) Error() string {
	// Canton's (speedy's) words, then why the generic model cannot do better.
	return fmt.Sprintf("Update failed due to wrongly typed contract id %s\nExpected contract of type %s but got %s (the generic model serves no interface choices)", e.ContractID, e.Want, e.Have)
}

func (b *Transaction) nextID() int32 { return int32(len(b.Nodes)) }

func (b *Transaction) addNode(id int32, n tx.Node, seed []byte) error {
	if len(seed) != len(tx.Hash{}) {
		return fmt.Errorf("node %d: a seed has %d bytes, not %d", id, len(seed), len(tx.Hash{}))
	}
	b.Tx.Roots = append(b.Tx.Roots, tx.NodeID(id))
	b.Tx.Nodes = append(b.Tx.Nodes, n)
	b.Tx.Seeds = append(b.Tx.Seeds, tx.NodeSeed{Node: tx.NodeID(id), Seed: tx.Hash(seed)})
	return nil
}

// create adds a create node and returns the new contract id.
func (b *Transaction) create(t Template, arg value.Value, actAs []string, seed func(int32) ([]byte, error), local map[string]*ledger.Contract, l Ledger) (string, error) {
	if _, ok := arg.(*value.Record); !ok {
		return "", modelErrorf("the create argument of %s must be a record (a JSON object)", t)
	}
	id := b.nextID()
	s, err := seed(id)
	if err != nil {
		return "", err
	}
	cid := ContractIDFromSeed(s)
	if local[cid] != nil {
		return "", modelErrorf("node %d repeats contract id %s", id, cid)
	}
	signatories := append([]string(nil), actAs...)
	set := map[string]bool{}
	for _, p := range actAs {
		set[p] = true
	}
	PartiesIn(arg, set)
	stakeholders := sortedSet(set)
	node := &tx.Create{
		Version:      LFVersion,
		ContractID:   value.ContractID(cid),
		PackageName:  t.PackageName,
		TemplateID:   t.ID,
		Argument:     arg,
		Signatories:  signatories,
		Stakeholders: stakeholders,
	}
	if err := b.addNode(id, node, s); err != nil {
		return "", err
	}
	argJSON, err := l.ArgumentJSON(t.ID, "", arg)
	if err != nil {
		return "", modelErrorf("create argument: %v", err)
	}
	c := ledger.Contract{
		ContractID:   cid,
		TemplateID:   t.String(),
		PackageName:  t.PackageName,
		Signatories:  signatories,
		Stakeholders: stakeholders,
		NodeID:       id,
		ArgumentJSON: argJSON,
	}
	local[cid] = &c
	b.Created = append(b.Created, c)
	b.Nodes = append(b.Nodes, events.Node{
		NodeID: id, Kind: events.KindCreate, ContractID: cid, TemplateID: c.TemplateID,
		PackageName: t.PackageName, Argument: argJSON,
		Signatories: signatories, Stakeholders: stakeholders,
	})
	return cid, nil
}

// exercise adds an exercise node on contract c (no children, unit result).
func (b *Transaction) exercise(ctx context.Context, c *ledger.Contract, tmplRef string, cmd Command, actAs []string, seed func(int32) ([]byte, error),
	consumed map[string]bool, inputs map[string]*ledger.Contract, used map[string]bool, isLocal bool, l Ledger, opt Options) error {
	if consumed[c.ContractID] {
		return opt.Inactive(c.ContractID)
	}
	tid, err := ParseIdentifier(c.TemplateID)
	if err != nil {
		return fmt.Errorf("stored contract %s: %w", c.ContractID, err)
	}
	id := b.nextID()
	s, err := seed(id)
	if err != nil {
		return err
	}
	consuming := !opt.Nonconsuming[cmd.Choice]
	acting := append([]string(nil), actAs...)
	node := &tx.Exercise{
		Version:       LFVersion,
		ContractID:    value.ContractID(c.ContractID),
		PackageName:   c.PackageName,
		TemplateID:    tid,
		Signatories:   c.Signatories,
		Stakeholders:  c.Stakeholders,
		ActingParties: acting,
		Choice:        cmd.Choice,
		ChosenValue:   cmd.ChoiceArgument,
		Consuming:     consuming,
		Result:        Unit(),
	}
	if err := b.addNode(id, node, s); err != nil {
		return err
	}
	argJSON, err := l.ArgumentJSON(tid, cmd.Choice, cmd.ChoiceArgument)
	if err != nil {
		return modelErrorf("choice argument: %v", err)
	}
	b.Nodes = append(b.Nodes, events.Node{
		NodeID: id, Kind: events.KindExercise, ContractID: c.ContractID, TemplateID: c.TemplateID,
		PackageName: c.PackageName, Argument: argJSON,
		Signatories: c.Signatories, Stakeholders: c.Stakeholders,
		Choice: cmd.Choice, ActingParties: acting, Consuming: consuming,
		Result: json.RawMessage("{}"), LastDescendant: id,
	})
	if consuming {
		consumed[c.ContractID] = true
		b.Archived = append(b.Archived, c.ContractID)
	}
	if !isLocal {
		used[c.ContractID] = true
		inputs[c.ContractID] = c
	}
	return nil
}

func sortedSet(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
