package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	damlengine "github.com/ledger-cli/ledger/daml/engine"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/node/events"
	"github.com/ledger-cli/ledger/node/generic"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// seedSource gives the 32-byte seed of a node.
type seedSource func(nodeID int32) ([]byte, error)

// built is a transaction assembled from commands, in the engine's model:
// a daml/tx transaction and its values. It becomes a prepared transaction
// (encodeTransaction, encodeInputs) or stored contracts (accept) only at
// those edges.
type built struct {
	tx *tx.Transaction
	// inputs are the pre-existing contracts a prepared transaction lists
	// as its input contracts, sorted by contract id.
	inputs  []*ledger.Contract
	nodes   []events.Node     // pre-order, index = node id
	created []ledger.Contract // CreatedAt and Argument left zero (accept sets them)
	// args are the create arguments of created (typed for interpreted
	// transactions, untyped for the generic model), and pos where each
	// create sits in the transaction's root views.
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
	// e is the engine whose contracts the builder reads (set by build).
	e *Engine
}

// encodeTransaction is b's transaction as a prepared transaction carries
// it: the interpreter's values as Canton writes typed values, the generic
// model's as they are.
func (b *built) encodeTransaction() (*damlpb.DamlTransaction, error) {
	if b.interpreted {
		return damlengine.EncodeTransaction(b.tx)
	}
	return damlengine.EncodeUntypedTransaction(b.tx)
}

// encodeInputs are b's input contracts as a prepared transaction's
// metadata lists them.
func (e *Engine) encodeInputs(b *built) ([]*damlpb.Metadata_InputContract, error) {
	if len(b.inputs) == 0 {
		return nil, nil
	}
	out := make([]*damlpb.Metadata_InputContract, len(b.inputs))
	for i, c := range b.inputs {
		ic, err := e.inputContract(c)
		if err != nil {
			return nil, err
		}
		out[i] = ic
	}
	return out, nil
}

// storedArgument is the store's encoding of created contract i's argument.
func (b *built) storedArgument(v value.Value) ([]byte, error) {
	if b.interpreted {
		return MarshalTypedValue(v)
	}
	return MarshalValue(v)
}

// createNodeOf rebuilds the create node of a stored contract. As Canton
// encodes an input contract (SerializationVersion.assign), its lf_version is
// "2" with its key when it has one, "2.1" otherwise.
func createNodeOf(c *ledger.Contract) (*damlpb.Create, error) {
	tid, err := parseIdentifier(c.TemplateID)
	if err != nil {
		return nil, fmt.Errorf("stored contract %s: %w", c.ContractID, err)
	}
	arg, err := unmarshalProtoValue(c.Argument)
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
		TemplateId:   protoIdentifier(tid),
		Argument:     arg,
		Signatories:  c.Signatories,
		Stakeholders: c.Stakeholders,
	}, nil
}

// build assembles the transaction of commands of the generic contract model
// (generic.Build) with the node's contracts and rendering of arguments.
func (e *Engine) build(ctx context.Context, cmds []generic.Command, actAs []string, seed seedSource, opt buildOptions) (*built, error) {
	opt.e = e
	t, err := generic.Build(ctx, cmds, actAs, seed, &opt, generic.Options{
		Visible: opt.visible, Inactive: opt.inactive, Nonconsuming: e.nonconsuming,
	})
	if err != nil {
		return nil, err
	}
	b := &built{tx: t.Tx, inputs: t.Inputs, nodes: t.Nodes, created: t.Created, archived: t.Archived, used: t.Used,
		pos: make([]createPos, len(t.Created)), args: make([]value.Value, len(t.Created))}
	for i, c := range t.Created {
		b.pos[i] = createPos{root: int(c.NodeID)} // every node is a root
		create, ok := t.Tx.Nodes[c.NodeID].(*tx.Create)
		if !ok {
			return nil, fmt.Errorf("created contract %s: node %d is not a create node", c.ContractID, c.NodeID)
		}
		b.args[i] = create.Argument
	}
	return b, nil
}

// Contract and ArgumentJSON are what the generic model's builder reads of
// the node (generic.Ledger).

func (o *buildOptions) Contract(ctx context.Context, id string) (*ledger.Contract, error) {
	return o.e.lookupContract(ctx, o.disclosed, id)
}

func (o *buildOptions) ArgumentJSON(tmplID *value.Identifier, choice string, arg value.Value) (json.RawMessage, error) {
	return ArgumentJSON(o.packages, tmplID, choice, arg)
}

func sortedSet(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
