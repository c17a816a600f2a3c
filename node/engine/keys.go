package engine

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"google.golang.org/protobuf/proto"
)

// Contract keys (Daml-LF 2.3, Canton 3.5). A keyed contract is stored with
// its key's hash, by which the store finds the active contracts with a key
// (ActiveContractsByKey), and its key with the maintainers as the
// GlobalKeyWithMaintainers of a PreparedTransaction in binary protobuf: the
// key field of its create node, which its input contract entry repeats.
// The interpreter asks for contracts by key through contractView.LookupKey,
// which answers as Canton's participant does: the disclosed contracts with
// the key first, in the order the request gives them, then the store's
// active contracts with the key that the submitters see, most recently
// created first. Re-interpreting a prepared transaction (execute), the
// ledger is its input contracts alone, in the store's order.

// storedKey is what the store keeps of a key: its hash and its encoding.
func storedKey(k *damlpb.GlobalKeyWithMaintainers) (hash, key []byte, err error) {
	if k == nil {
		return nil, nil, nil
	}
	key, err = proto.MarshalOptions{Deterministic: true}.Marshal(k)
	if err != nil {
		return nil, nil, err
	}
	return k.GetKey().GetHash(), key, nil
}

// contractKey reads the key a stored contract keeps, nil when it has none.
func contractKey(c *ledger.Contract) (*damlpb.GlobalKeyWithMaintainers, error) {
	if len(c.Key) == 0 {
		return nil, nil
	}
	k := &damlpb.GlobalKeyWithMaintainers{}
	if err := proto.Unmarshal(c.Key, k); err != nil {
		return nil, fmt.Errorf("stored contract %s: the key does not decode: %w", c.ContractID, err)
	}
	return k, nil
}

// typedKey reads a stored key as the interpreter needs it: the key value
// typed by the key type of template tmpl.
func typedKey(set *PackageSet, tmpl lf.TypeConName, k *damlpb.GlobalKeyWithMaintainers) (*tx.KeyWithMaintainers, error) {
	sig, ok := set.Env.Template(tmpl)
	if !ok || sig.Key == nil {
		return nil, fmt.Errorf("template %s has no key", tmpl)
	}
	plan, err := set.Env.Plan(sig.Key)
	if err != nil {
		return nil, fmt.Errorf("the key type of %s: %w", tmpl, err)
	}
	v, err := plan.FromProto(k.GetKey().GetKey())
	if err != nil {
		return nil, fmt.Errorf("the key is not a value of the key type of %s: %w", tmpl, err)
	}
	h := k.GetKey().GetHash()
	if len(h) != len(tx.Hash{}) {
		return nil, fmt.Errorf("the key hash has %d bytes", len(h))
	}
	return &tx.KeyWithMaintainers{
		GlobalKey: tx.GlobalKey{
			TemplateID:  valueIdentifier(k.GetKey().GetTemplateId()),
			PackageName: k.GetKey().GetPackageName(),
			Key:         v,
			Hash:        tx.Hash(h),
		},
		Maintainers: k.GetMaintainers(),
	}, nil
}

// keyPageSize is how many contracts a key lookup reads from the store at a
// time beyond those asked for, to make up for the ones the submitters may
// not see.
const keyPageSize = 16

// LookupKey implements interp.KeyLedger.
func (v *contractView) LookupKey(ctx context.Context, key *tx.GlobalKey, n int) ([]*tx.Contract, error) {
	var out []*tx.Contract
	found := map[string]bool{}
	add := func(c *ledger.Contract) error {
		tc, err := v.typedContract(c)
		if err != nil {
			v.err = err
			return err
		}
		v.read[tc.ID] = c
		found[c.ContractID] = true
		out = append(out, tc)
		return nil
	}
	if v.inputs != nil {
		for _, c := range v.inputs {
			if len(out) == n {
				break
			}
			if c.Active() && bytes.Equal(c.KeyHash, key.Hash[:]) {
				if err := add(c); err != nil {
					return nil, err
				}
			}
		}
		return out, nil
	}
	for _, id := range v.disclosed.IDs() {
		if len(out) == n {
			return out, nil
		}
		c, err := v.e.lookupContract(ctx, v.disclosed, id)
		if err != nil {
			v.err = err
			return nil, err
		}
		if c != nil && c.Active() && !found[id] && bytes.Equal(c.KeyHash, key.Hash[:]) {
			if err := add(c); err != nil {
				return nil, err
			}
		}
	}
	var before int64
	for len(out) < n {
		ask := n - len(out) + keyPageSize
		page, err := v.e.contracts.ActiveContractsByKey(ctx, key.Hash[:], before, ask)
		if err != nil {
			v.err = err
			return nil, err
		}
		for i := range page {
			c := &page[i]
			before = c.Seq
			if len(out) == n || found[c.ContractID] || v.visible != nil && !v.visible(c) {
				continue
			}
			if err := add(c); err != nil {
				return nil, err
			}
		}
		if len(page) < ask {
			break
		}
	}
	return out, nil
}

// keyOrder sorts contracts as the store answers a key lookup: most recently
// created first.
func keyOrder(cs []*ledger.Contract) {
	slices.SortStableFunc(cs, func(a, b *ledger.Contract) int {
		switch {
		case a.Seq > b.Seq:
			return -1
		case a.Seq < b.Seq:
			return 1
		}
		return 0
	})
}

// unhashable is Canton's refusal of a transaction the scheme cannot hash:
// V2 hashes nodes of serialization version "2.1" only, and every node of a
// keyed template has version "2" (TransactionHash.UnsupportedSerializationVersion,
// Canton 3.5's wording). It returns "" when the scheme can hash every node.
func unhashable(scheme hashing.Scheme, t *damlpb.DamlTransaction) string {
	if scheme != hashing.V2 {
		return ""
	}
	for _, n := range t.GetNodes() {
		if nodeLFVersion(n.GetV1()) == tx.VersionWithKey {
			return "Cannot hash node with LF serialization version V2 using hashing scheme V2. Does the transaction use contract keys? Please using hashing scheme V3 or higher."
		}
	}
	return ""
}

// nodeLFVersion is a node's lf_version ("" for a rollback node).
func nodeLFVersion(n *damlpb.Node) string {
	switch x := n.GetNodeType().(type) {
	case *damlpb.Node_Create:
		return x.Create.GetLfVersion()
	case *damlpb.Node_Exercise:
		return x.Exercise.GetLfVersion()
	case *damlpb.Node_Fetch:
		return x.Fetch.GetLfVersion()
	case *damlpb.Node_QueryByKey:
		return x.QueryByKey.GetLfVersion()
	}
	return ""
}
