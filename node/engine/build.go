package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/node/events"
	"github.com/ledger-cli/ledger/node/generic"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"google.golang.org/protobuf/proto"
)

type commandKind int

const (
	cmdCreate commandKind = iota + 1
	cmdExercise
	cmdCreateAndExercise
)

// command is a validated command of the generic contract model, its
// arguments the protobuf values the model writes into its transactions (a
// typed command is the interpreter's, read by daml/engine/preprocess).
type command struct {
	kind       commandKind
	tmpl       generic.Template // create, createAndExercise
	tmplRef    string           // exercise: the template id as the command wrote it
	contractID string           // exercise
	choice     string
	createArg  *damlpb.Value
	choiceArg  *damlpb.Value
}

// seedSource gives the 32-byte seed of a node.
type seedSource func(nodeID int32) ([]byte, error)

// built is a transaction assembled from commands.
type built struct {
	tx      *damlpb.DamlTransaction
	inputs  []*damlpb.Metadata_InputContract // sorted by contract id
	nodes   []events.Node                    // pre-order, index = node id
	created []ledger.Contract                // CreatedAt left zero
	// args are the typed create arguments of created (interpreted
	// transactions; nil for the generic model), and pos where each create
	// sits in the transaction's root views (nil: create i is root i).
	args     []value.Value
	pos      []createPos
	archived []string
	used     []string // pre-existing contracts exercised without archiving
	// minLedgerTime and maxLedgerTime are the ledger-time bounds the
	// interpreted transaction depends on (µs; nil when unconstrained).
	minLedgerTime, maxLedgerTime *uint64
	// interpreted is set when the interpreter made the transaction.
	interpreted bool
}

// buildOptions say how the builder treats existing contracts.
type buildOptions struct {
	// visible, when set, refuses contracts the submitters may not see.
	visible func(c *ledger.Contract) bool
	// inactive makes the error for an unknown or archived contract.
	inactive func(contractID string) error
	// packages are the uploaded packages, which type the arguments of their
	// templates in events (nil: none).
	packages *PackageSet
	// disclosed are the request's authenticated disclosed contracts, used
	// instead of the store's copies (nil: none).
	disclosed *disclosedSet
}

// errModel is a command that breaks the contract model; callers wrap it in
// the error id of their endpoint.
type errModel struct{ msg string }

func (e *errModel) Error() string { return e.msg }

func modelErrorf(format string, args ...any) error {
	return &errModel{msg: fmt.Sprintf(format, args...)}
}

// build assembles the transaction the commands make: for each command in
// order a create node, an exercise node, or both (createAndExercise), all of
// them roots, numbered from 0 in pre-order. actAs must be sorted and unique.
func (e *Engine) build(ctx context.Context, cmds []command, actAs []string, seed seedSource, opt buildOptions) (*built, error) {
	b := &built{tx: &damlpb.DamlTransaction{Version: LFVersion}}
	local := map[string]*ledger.Contract{} // created in this transaction
	consumed := map[string]bool{}
	inputs := map[string]*damlpb.Metadata_InputContract{}
	usedSet := map[string]bool{}
	for _, cmd := range cmds {
		switch cmd.kind {
		case cmdCreate:
			if _, err := b.create(cmd.tmpl, cmd.createArg, actAs, seed, local, opt.packages); err != nil {
				return nil, err
			}
		case cmdCreateAndExercise:
			cid, err := b.create(cmd.tmpl, cmd.createArg, actAs, seed, local, opt.packages)
			if err != nil {
				return nil, err
			}
			if err := e.exercise(ctx, b, local[cid], identifierString(cmd.tmpl.ID), cmd, actAs, seed, consumed, inputs, usedSet, true, opt); err != nil {
				return nil, err
			}
		case cmdExercise:
			c, isLocal := local[cmd.contractID]
			if !isLocal {
				stored, err := e.lookupContract(ctx, opt.disclosed, cmd.contractID)
				if err != nil {
					return nil, err
				}
				if stored == nil || !stored.Active() {
					return nil, opt.inactive(cmd.contractID)
				}
				if opt.visible != nil && !opt.visible(stored) {
					return nil, opt.inactive(cmd.contractID)
				}
				c = stored
			}
			if consumed[cmd.contractID] {
				return nil, opt.inactive(cmd.contractID)
			}
			if !generic.MatchesTemplate(cmd.tmplRef, c) {
				return nil, &errWrongTemplate{contractID: cmd.contractID, want: cmd.tmplRef, have: c.TemplateID}
			}
			if err := e.exercise(ctx, b, c, cmd.tmplRef, cmd, actAs, seed, consumed, inputs, usedSet, isLocal, opt); err != nil {
				return nil, err
			}
		default:
			return nil, modelErrorf("unknown command kind %d", cmd.kind)
		}
	}
	for i := range b.nodes {
		n := &b.nodes[i]
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
		b.inputs = append(b.inputs, inputs[id])
	}
	for id := range usedSet {
		if !consumed[id] {
			b.used = append(b.used, id)
		}
	}
	sort.Strings(b.used)
	return b, nil
}

type errWrongTemplate struct{ contractID, want, have string }

func (e *errWrongTemplate) Error() string {
	return fmt.Sprintf("contract %s is of template %s, not %s (interface choices are not supported by this node)", e.contractID, e.have, e.want)
}

func (b *built) nextID() int32 { return int32(len(b.nodes)) }

func (b *built) addNode(id int32, n *damlpb.Node, seed []byte) {
	sid := strconv.Itoa(int(id))
	b.tx.Roots = append(b.tx.Roots, sid)
	b.tx.Nodes = append(b.tx.Nodes, &damlpb.DamlTransaction_Node{
		NodeId:        sid,
		VersionedNode: &damlpb.DamlTransaction_Node_V1{V1: n},
	})
	b.tx.NodeSeeds = append(b.tx.NodeSeeds, &damlpb.DamlTransaction_NodeSeed{NodeId: id, Seed: seed})
}

// create adds a create node and returns the new contract id.
func (b *built) create(t generic.Template, arg *damlpb.Value, actAs []string, seed seedSource, local map[string]*ledger.Contract, pkgs *PackageSet) (string, error) {
	if _, ok := arg.GetSum().(*damlpb.Value_Record); !ok {
		return "", modelErrorf("the create argument of %s must be a record (a JSON object)", t)
	}
	id := b.nextID()
	s, err := seed(id)
	if err != nil {
		return "", err
	}
	cid := generic.ContractIDFromSeed(s)
	if local[cid] != nil {
		return "", modelErrorf("node %d repeats contract id %s", id, cid)
	}
	signatories := append([]string(nil), actAs...)
	set := map[string]bool{}
	for _, p := range actAs {
		set[p] = true
	}
	generic.PartiesIn(arg, set)
	stakeholders := sortedSet(set)
	node := &damlpb.Node{NodeType: &damlpb.Node_Create{Create: &damlpb.Create{
		LfVersion:    LFVersion,
		ContractId:   cid,
		PackageName:  t.PackageName,
		TemplateId:   t.ID,
		Argument:     arg,
		Signatories:  signatories,
		Stakeholders: stakeholders,
	}}}
	b.addNode(id, node, s)
	argBytes, err := MarshalValue(arg)
	if err != nil {
		return "", err
	}
	argJSON, err := ArgumentJSON(pkgs, t.ID, "", arg)
	if err != nil {
		return "", modelErrorf("create argument: %v", err)
	}
	c := ledger.Contract{
		ContractID:   cid,
		TemplateID:   t.String(),
		PackageName:  t.PackageName,
		Argument:     argBytes,
		Signatories:  signatories,
		Stakeholders: stakeholders,
		NodeID:       id,
		ArgumentJSON: argJSON,
	}
	local[cid] = &c
	b.created = append(b.created, c)
	b.pos = append(b.pos, createPos{root: int(id)}) // every node is a root
	b.nodes = append(b.nodes, events.Node{
		NodeID: id, Kind: events.KindCreate, ContractID: cid, TemplateID: c.TemplateID,
		PackageName: t.PackageName, Argument: argJSON,
		Signatories: signatories, Stakeholders: stakeholders,
	})
	return cid, nil
}

// exercise adds an exercise node on contract c (no children, unit result).
func (e *Engine) exercise(ctx context.Context, b *built, c *ledger.Contract, tmplRef string, cmd command, actAs []string, seed seedSource,
	consumed map[string]bool, inputs map[string]*damlpb.Metadata_InputContract, used map[string]bool, isLocal bool, opt buildOptions) error {
	if consumed[c.ContractID] {
		return opt.inactive(c.ContractID)
	}
	tid, err := parseIdentifier(c.TemplateID)
	if err != nil {
		return fmt.Errorf("stored contract %s: %w", c.ContractID, err)
	}
	id := b.nextID()
	s, err := seed(id)
	if err != nil {
		return err
	}
	consuming := !e.nonconsuming[cmd.choice]
	acting := append([]string(nil), actAs...)
	result := generic.Unit()
	node := &damlpb.Node{NodeType: &damlpb.Node_Exercise{Exercise: &damlpb.Exercise{
		LfVersion:       LFVersion,
		ContractId:      c.ContractID,
		PackageName:     c.PackageName,
		TemplateId:      tid,
		Signatories:     c.Signatories,
		Stakeholders:    c.Stakeholders,
		ActingParties:   acting,
		ChoiceId:        cmd.choice,
		ChosenValue:     cmd.choiceArg,
		Consuming:       consuming,
		ExerciseResult:  result,
		Children:        nil,
		ChoiceObservers: nil,
	}}}
	b.addNode(id, node, s)
	argJSON, err := ArgumentJSON(opt.packages, tid, cmd.choice, cmd.choiceArg)
	if err != nil {
		return modelErrorf("choice argument: %v", err)
	}
	b.nodes = append(b.nodes, events.Node{
		NodeID: id, Kind: events.KindExercise, ContractID: c.ContractID, TemplateID: c.TemplateID,
		PackageName: c.PackageName, Argument: argJSON,
		Signatories: c.Signatories, Stakeholders: c.Stakeholders,
		Choice: cmd.choice, ActingParties: acting, Consuming: consuming,
		Result: json.RawMessage("{}"), LastDescendant: id,
	})
	if consuming {
		consumed[c.ContractID] = true
		b.archived = append(b.archived, c.ContractID)
	}
	if !isLocal {
		used[c.ContractID] = true
		if inputs[c.ContractID] == nil {
			ic, err := e.inputContract(c)
			if err != nil {
				return err
			}
			inputs[c.ContractID] = ic
		}
	}
	return nil
}

// createNodeOf rebuilds the create node of a stored contract. As Canton
// encodes an input contract (SerializationVersion.assign), its lf_version is
// "2" with its key when it has one, "2.1" otherwise.
func createNodeOf(c *ledger.Contract) (*damlpb.Create, error) {
	tid, err := parseIdentifier(c.TemplateID)
	if err != nil {
		return nil, fmt.Errorf("stored contract %s: %w", c.ContractID, err)
	}
	arg, err := UnmarshalValue(c.Argument)
	if err != nil {
		return nil, fmt.Errorf("stored contract %s: %w", c.ContractID, err)
	}
	key, err := contractKey(c)
	if err != nil {
		return nil, err
	}
	version := LFVersion
	if key != nil {
		version = tx.VersionWithKey
	}
	return &damlpb.Create{
		Key:          key,
		LfVersion:    version,
		ContractId:   c.ContractID,
		PackageName:  c.PackageName,
		TemplateId:   tid,
		Argument:     arg,
		Signatories:  c.Signatories,
		Stakeholders: c.Stakeholders,
	}, nil
}

// MarshalValue encodes a Daml value as deterministic binary protobuf, the
// form Contract.Argument holds.
func MarshalValue(v *damlpb.Value) ([]byte, error) {
	return proto.MarshalOptions{Deterministic: true}.Marshal(v)
}

// UnmarshalValue decodes Contract.Argument.
func UnmarshalValue(b []byte) (*damlpb.Value, error) {
	v := &damlpb.Value{}
	if err := proto.Unmarshal(b, v); err != nil {
		return nil, fmt.Errorf("create argument does not decode: %w", err)
	}
	return v, nil
}

func sortedSet(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
