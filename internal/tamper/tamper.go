// Package tamper makes, for tests, what a dishonest preparing participant
// could hand a signer: a prepared transaction changed after the Daml code
// ran, with its hash recomputed so that a hash check alone passes. Each
// variant says where a re-interpretation must find the change.
package tamper

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/daml/contract"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// Other is the party a tampered transaction pays instead of the one the
// command named.
const Other = "ldg::1220abababababababababababababababababababababababababababababababab"

// Variant is one tampered transaction.
type Variant struct {
	// Name says what was changed, as a test case name.
	Name string
	// Node is the id of the node where the difference is, "" when it is
	// not in a node (an input contract, the ledger-time bounds).
	Node string
	// Words are what a refusal must say to locate it (a field path, a
	// contract id, "ledger time").
	Words []string
	// Prepared is the tampered transaction.
	Prepared *damlpb.PreparedTransaction
}

// Golden returns the tampered variants of the LedgerHQ Canton Coin
// transfer (vectors.LedgerHQTransfer): the receiver of the transfer
// instruction created at node 17, the amount of the sender's change at
// node 16, a create added under the root, the fetch at node 1 dropped, the
// content of an input contract's blob, and a wider ledger-time window.
func Golden(pt *damlpb.PreparedTransaction) ([]Variant, error) {
	type change struct {
		name, node string
		words      []string
		apply      func(*damlpb.PreparedTransaction) error
	}
	changes := []change{
		{"receiver", "17", []string{"transfer.receiver", Other}, changeReceiver},
		{"amount", "16", []string{"amount.initialAmount"}, changeAmount},
		{"added create", "0", []string{"children"}, addCreate},
		{"dropped fetch", "0", []string{"children"}, dropFetch},
		{"input blob", "", []string{"input contract"}, changeInputBlob},
		{"wider ledger time", "", []string{"ledger"}, widenLedgerTime},
	}
	out := make([]Variant, 0, len(changes))
	for _, c := range changes {
		v := proto.Clone(pt).(*damlpb.PreparedTransaction)
		if err := c.apply(v); err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		out = append(out, Variant{Name: c.name, Node: c.node, Words: c.words, Prepared: v})
	}
	return out, nil
}

// PrepareResponse is the JSON of a prepare response carrying pt, its hash
// under scheme recomputed here: what a node that lies about the
// transaction, not about the hash, answers.
func PrepareResponse(pt *damlpb.PreparedTransaction, scheme hashing.Scheme) ([]byte, error) {
	raw, err := proto.MarshalOptions{Deterministic: true}.Marshal(pt)
	if err != nil {
		return nil, err
	}
	sum, err := hashing.Sum(raw, scheme)
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]string{
		"preparedTransaction":     base64.StdEncoding.EncodeToString(raw),
		"preparedTransactionHash": base64.StdEncoding.EncodeToString(sum[:]),
		"hashingSchemeVersion":    scheme.String(),
	})
}

// node returns the node with id, or nil.
func node(pt *damlpb.PreparedTransaction, id string) *damlpb.Node {
	for _, n := range pt.GetTransaction().GetNodes() {
		if n.GetNodeId() == id {
			return n.GetV1()
		}
	}
	return nil
}

// field follows record labels from v.
func field(v *damlpb.Value, labels ...string) (*damlpb.Value, error) {
	for _, l := range labels {
		r := v.GetRecord()
		if r == nil {
			return nil, fmt.Errorf("%s: not a record", l)
		}
		i := slices.IndexFunc(r.GetFields(), func(f *damlpb.RecordField) bool { return f.GetLabel() == l })
		if i < 0 {
			return nil, fmt.Errorf("no field %s", l)
		}
		v = r.GetFields()[i].GetValue()
	}
	return v, nil
}

// changeReceiver pays Other instead of the receiver the command named: the
// transfer instruction's receiver and its stakeholders, sorted.
func changeReceiver(pt *damlpb.PreparedTransaction) error {
	c := node(pt, "17").GetCreate()
	if c == nil {
		return fmt.Errorf("node 17 is not a create")
	}
	r, err := field(c.GetArgument(), "transfer", "receiver")
	if err != nil {
		return err
	}
	old := r.GetParty()
	r.Sum = &damlpb.Value_Party{Party: Other}
	i := slices.Index(c.Stakeholders, old)
	if i < 0 {
		return fmt.Errorf("the receiver %s is no stakeholder", old)
	}
	c.Stakeholders[i] = Other
	slices.Sort(c.Stakeholders)
	return nil
}

// changeAmount gives the sender's change at node 16 one more coin.
func changeAmount(pt *damlpb.PreparedTransaction) error {
	c := node(pt, "16").GetCreate()
	a, err := field(c.GetArgument(), "amount", "initialAmount")
	if err != nil {
		return err
	}
	if a.GetNumeric() == "" {
		return fmt.Errorf("amount.initialAmount is not a numeric")
	}
	a.Sum = &damlpb.Value_Numeric{Numeric: "99.0000000000"}
	return nil
}

// addCreate adds, as the root's last child, one more Amulet like the
// sender's change at node 16, owned by Other, with a seed of its own.
func addCreate(pt *damlpb.PreparedTransaction) error {
	t := pt.GetTransaction()
	src := node(pt, "16").GetCreate()
	if src == nil {
		return fmt.Errorf("node 16 is not a create")
	}
	c := proto.Clone(src).(*damlpb.Create)
	owner, err := field(c.GetArgument(), "owner")
	if err != nil {
		return err
	}
	old := owner.GetParty()
	owner.Sum = &damlpb.Value_Party{Party: Other}
	for _, set := range []*[]string{&c.Signatories, &c.Stakeholders} {
		*set = slices.DeleteFunc(*set, func(p string) bool { return p == old })
		*set = append(*set, Other)
		slices.Sort(*set)
	}
	var disc [32]byte
	disc[0] = 0xab
	c.ContractId = string(contract.LocalID(disc).ContractID())
	id := strconv.Itoa(len(t.GetNodes()))
	t.Nodes = append(t.Nodes, &damlpb.DamlTransaction_Node{NodeId: id, VersionedNode: &damlpb.DamlTransaction_Node_V1{V1: &damlpb.Node{NodeType: &damlpb.Node_Create{Create: c}}}})
	root := node(pt, t.GetRoots()[0]).GetExercise()
	root.Children = append(root.Children, id)
	seed := make([]byte, 32)
	seed[0] = 0xab
	t.NodeSeeds = append(t.NodeSeeds, &damlpb.DamlTransaction_NodeSeed{NodeId: int32(len(t.GetNodes()) - 1), Seed: seed})
	return nil
}

// dropFetch removes the fetch at node 1, the root's first child.
func dropFetch(pt *damlpb.PreparedTransaction) error {
	t := pt.GetTransaction()
	if node(pt, "1").GetFetch() == nil {
		return fmt.Errorf("node 1 is not a fetch")
	}
	root := node(pt, t.GetRoots()[0]).GetExercise()
	root.Children = slices.DeleteFunc(root.Children, func(c string) bool { return c == "1" })
	t.Nodes = slices.DeleteFunc(t.Nodes, func(n *damlpb.DamlTransaction_Node) bool { return n.GetNodeId() == "1" })
	return nil
}

// changeInputBlob gives the first Amulet among the input contracts ten
// times its amount, in its blob and in the create beside it alike, so
// that only its contract id, which no longer recomputes, tells.
func changeInputBlob(pt *damlpb.PreparedTransaction) error {
	for _, ic := range pt.GetMetadata().GetInputContracts() {
		create := ic.GetV1()
		if create.GetTemplateId().GetEntityName() != "Amulet" {
			continue
		}
		a, err := field(create.GetArgument(), "amount", "initialAmount")
		if err != nil {
			return err
		}
		const more = "990.0000000000"
		a.Sum = &damlpb.Value_Numeric{Numeric: more}
		c, err := contract.DecodeBlob(ic.GetEventBlob())
		if err != nil {
			return err
		}
		// The blob's records carry no labels: amount is the third field of
		// Amulet, initialAmount the first of ExpiringAmount.
		amount, ok := c.Argument.(*value.Record).Fields[2].Value.(*value.Record)
		if !ok {
			return fmt.Errorf("the blob's Amulet has no amount record")
		}
		n, err := value.ParseNumeric(more)
		if err != nil {
			return err
		}
		amount.Fields[0].Value = n
		if ic.EventBlob, err = contract.EncodeBlob(c); err != nil {
			return err
		}
		return nil
	}
	return fmt.Errorf("no Amulet among the input contracts")
}

// widenLedgerTime lets the transaction execute a day after the Daml
// code's time checks allow.
func widenLedgerTime(pt *damlpb.PreparedTransaction) error {
	md := pt.GetMetadata()
	if md.MaxLedgerEffectiveTime == nil {
		return fmt.Errorf("no max_ledger_effective_time")
	}
	later := *md.MaxLedgerEffectiveTime + 24*3600*1_000_000
	md.MaxLedgerEffectiveTime = &later
	return nil
}
