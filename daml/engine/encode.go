package engine

import (
	"fmt"

	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// Canton's interactive submission carries a transaction as a
// DamlTransaction: the nodes in pre-order, which is node id order, each
// with its id in decimal; values with their record, variant and enum ids and
// field labels (Canton enriches them), trailing None fields left out; party
// sets sorted; each node's serialization version; keys with their hash and
// maintainers; the seeds of the action nodes that have one.

// EncodeTransaction writes t as a prepared transaction carries it.
func EncodeTransaction(t *tx.Transaction) (*damlpb.DamlTransaction, error) {
	return encodeTransaction(t, typed.ToProto)
}

// EncodeUntypedTransaction writes t as EncodeTransaction does, but its
// values as they are (typed.ToProtoAsIs: every record field kept): the
// transactions of the node's generic contract model, whose values have no
// types to say which fields are optional.
func EncodeUntypedTransaction(t *tx.Transaction) (*damlpb.DamlTransaction, error) {
	return encodeTransaction(t, typed.ToProtoAsIs)
}

// valueEncoding writes a value into a transaction.
type valueEncoding func(value.Value) (*damlpb.Value, error)

func encodeTransaction(t *tx.Transaction, enc valueEncoding) (*damlpb.DamlTransaction, error) {
	out := &damlpb.DamlTransaction{Version: t.Version, Nodes: make([]*damlpb.DamlTransaction_Node, 0, len(t.Nodes))}
	for _, r := range t.Roots {
		out.Roots = append(out.Roots, r.String())
	}
	for _, s := range t.Seeds {
		out.NodeSeeds = append(out.NodeSeeds, &damlpb.DamlTransaction_NodeSeed{NodeId: int32(s.Node), Seed: append([]byte(nil), s.Seed[:]...)})
	}
	var err error
	t.Walk(func(id tx.NodeID, n tx.Node, _ tx.NodeID) {
		if err != nil {
			return
		}
		var pn *damlpb.Node
		if pn, err = encodeNode(n, enc); err != nil {
			err = fmt.Errorf("node %d: %w", id, err)
			return
		}
		out.Nodes = append(out.Nodes, &damlpb.DamlTransaction_Node{NodeId: id.String(), VersionedNode: &damlpb.DamlTransaction_Node_V1{V1: pn}})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// EncodeNode writes one node as a prepared transaction carries it: values
// with their type ids and labels, parties as sorted sets, keys with their
// hash and maintainers, the interface of an exercise or fetch through one.
// An exercise a rollback cut short has no result.
func EncodeNode(n tx.Node) (*damlpb.Node, error) {
	return encodeNode(n, typed.ToProto)
}

func encodeNode(n tx.Node, enc valueEncoding) (*damlpb.Node, error) {
	switch x := n.(type) {
	case *tx.Create:
		arg, err := enc(x.Argument)
		if err != nil {
			return nil, err
		}
		key, err := EncodeKey(x.Key)
		if err != nil {
			return nil, err
		}
		return &damlpb.Node{NodeType: &damlpb.Node_Create{Create: &damlpb.Create{
			LfVersion:    x.Version,
			ContractId:   string(x.ContractID),
			PackageName:  x.PackageName,
			TemplateId:   ProtoIdentifier(x.TemplateID),
			Argument:     arg,
			Signatories:  x.Signatories,
			Stakeholders: x.Stakeholders,
			Key:          key,
		}}}, nil
	case *tx.Exercise:
		arg, err := enc(x.ChosenValue)
		if err != nil {
			return nil, err
		}
		var result *damlpb.Value
		if x.Result != nil {
			if result, err = enc(x.Result); err != nil {
				return nil, err
			}
		}
		key, err := EncodeKey(x.Key)
		if err != nil {
			return nil, err
		}
		return &damlpb.Node{NodeType: &damlpb.Node_Exercise{Exercise: &damlpb.Exercise{
			LfVersion:       x.Version,
			ContractId:      string(x.ContractID),
			PackageName:     x.PackageName,
			TemplateId:      ProtoIdentifier(x.TemplateID),
			Signatories:     x.Signatories,
			Stakeholders:    x.Stakeholders,
			ActingParties:   x.ActingParties,
			InterfaceId:     optionalIdentifier(x.InterfaceID),
			ChoiceId:        x.Choice,
			ChosenValue:     arg,
			Consuming:       x.Consuming,
			Children:        nodeIDs(x.Children),
			ExerciseResult:  result,
			ChoiceObservers: x.ChoiceObservers,
			Key:             key,
			ByKey:           x.ByKey,
		}}}, nil
	case *tx.Fetch:
		key, err := EncodeKey(x.Key)
		if err != nil {
			return nil, err
		}
		return &damlpb.Node{NodeType: &damlpb.Node_Fetch{Fetch: &damlpb.Fetch{
			LfVersion:     x.Version,
			ContractId:    string(x.ContractID),
			PackageName:   x.PackageName,
			TemplateId:    ProtoIdentifier(x.TemplateID),
			Signatories:   x.Signatories,
			Stakeholders:  x.Stakeholders,
			ActingParties: x.ActingParties,
			InterfaceId:   optionalIdentifier(x.InterfaceID),
			Key:           key,
			ByKey:         x.ByKey,
		}}}, nil
	case *tx.QueryByKey:
		key, err := EncodeKey(x.Key)
		if err != nil {
			return nil, err
		}
		result := make([]string, len(x.Result))
		for i, c := range x.Result {
			result[i] = string(c)
		}
		return &damlpb.Node{NodeType: &damlpb.Node_QueryByKey{QueryByKey: &damlpb.QueryByKey{
			LfVersion:   x.Version,
			PackageName: x.PackageName,
			TemplateId:  ProtoIdentifier(x.TemplateID),
			Exhaustive:  x.Exhaustive,
			Key:         key,
			Result:      result,
		}}}, nil
	case *tx.Rollback:
		return &damlpb.Node{NodeType: &damlpb.Node_Rollback{Rollback: &damlpb.Rollback{Children: nodeIDs(x.Children)}}}, nil
	}
	return nil, fmt.Errorf("%T nodes are not supported", n)
}

func nodeIDs(ids []tx.NodeID) []string {
	out := make([]string, len(ids))
	for i, c := range ids {
		out[i] = c.String()
	}
	return out
}

// EncodeKey writes a key as a prepared transaction does: the key value with
// its type ids and labels, the hash, the maintainers sorted (nil for none).
func EncodeKey(k *tx.KeyWithMaintainers) (*damlpb.GlobalKeyWithMaintainers, error) {
	if k == nil {
		return nil, nil
	}
	v, err := typed.ToProto(k.Key)
	if err != nil {
		return nil, fmt.Errorf("contract key: %w", err)
	}
	return &damlpb.GlobalKeyWithMaintainers{
		Key: &damlpb.GlobalKey{
			TemplateId:  ProtoIdentifier(k.TemplateID),
			PackageName: k.PackageName,
			Key:         v,
			Hash:        append([]byte(nil), k.Hash[:]...),
		},
		Maintainers: k.Maintainers,
	}, nil
}

// ProtoIdentifier is id as a prepared transaction writes it.
func ProtoIdentifier(id *value.Identifier) *damlpb.Identifier {
	return &damlpb.Identifier{PackageId: id.PackageID, ModuleName: id.ModuleName, EntityName: id.EntityName}
}

// ValueIdentifier is a prepared transaction's identifier as the
// interpreter's.
func ValueIdentifier(id *damlpb.Identifier) *value.Identifier {
	return &value.Identifier{PackageID: id.GetPackageId(), ModuleName: id.GetModuleName(), EntityName: id.GetEntityName()}
}

func optionalIdentifier(id *value.Identifier) *damlpb.Identifier {
	if id == nil {
		return nil
	}
	return ProtoIdentifier(id)
}
