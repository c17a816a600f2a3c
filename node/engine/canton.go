package engine

import (
	"bytes"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/ledger-cli/ledger/daml/contract"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/node/ledger"
)

// Canton's contract ids at commit.
//
// A transaction is built and prepared with local ids (no suffix). When it
// is accepted, each contract it creates gets Canton's suffixed id
// (daml/contract, docs/contract-ids.md): ca12 for contracts of uploaded
// packages, whose typed argument the TypedNormalForm hash needs, and ca11
// (UpgradeFriendly, hashed as stored) for contracts of the generic model,
// which has no types to translate a disclosed contract's argument by. The
// salt of each create comes from a fresh 16-byte seed per transaction
// (Config.Rand), the create's root view and its index there, the
// transaction's UUID, the synchronizer id and mediator group 0. Every
// local id in what the transaction records — later create arguments,
// choice arguments and results, events, archives — is rewritten to the
// suffixed id.

// createPos is where a create sits in Canton's views of its transaction:
// its root action, and its index among the creates of that root in
// pre-order (rolled-back creates counted).
type createPos struct{ root, index int }

// suffixCreated gives the contracts b creates their suffixed ids and salts
// and rewrites the local ids in b. createdAt is the ledger effective time;
// txUUID the prepared transaction's UUID ("" for a fresh one).
func (e *Engine) suffixCreated(b *built, createdAt time.Time, txUUID string) error {
	if len(b.created) == 0 {
		return nil
	}
	seed, err := e.random(16)
	if err != nil {
		return err
	}
	if txUUID == "" {
		u, err := uuid.NewRandomFromReader(e.cfg.Rand)
		if err != nil {
			return err
		}
		txUUID = u.String()
	}
	version := contract.V11
	if b.interpreted {
		version = contract.V12
	}
	positions := contract.RootViewPositions(max(len(b.tx.Roots), 1))
	s := contract.NewSuffixer(version, nil)
	ids := make(map[string]string, len(b.created))
	viewSalt, viewRoot := contract.Salt{}, -1
	for i := range b.created {
		c := &b.created[i]
		if i >= len(b.args) || i >= len(b.pos) {
			return fmt.Errorf("create %s: no argument or position", c.ContractID)
		}
		arg, pos := b.args[i], b.pos[i]
		// The argument with the ids of the contracts created before it
		// suffixed: what is stored, and what a typed contract is hashed by.
		rewritten, _ := rewriteValueIDs(arg, ids, 0)
		cc, err := cantonContract(c, createdAt, rewritten)
		if err != nil {
			return err
		}
		if pos.root >= len(positions) {
			return fmt.Errorf("create %s: root view %d of %d", c.ContractID, pos.root, len(positions))
		}
		if pos.root != viewRoot { // creates come root by root
			viewSalt, viewRoot = contract.ViewParticipantDataSalt(seed, pos.root), pos.root
		}
		salt := contract.ContractSaltV1(contract.SaltInput{
			ViewParticipantDataSalt: viewSalt,
			CreateIndex:             pos.index,
			ViewPosition:            positions[pos.root],
			TransactionUUID:         txUUID,
			SynchronizerID:          e.cfg.SynchronizerID,
		})
		var suffixed value.ContractID
		if b.interpreted {
			// Suffixer.Suffix for a typed argument, without the copies
			// of the argument it makes to rewrite and normalize it,
			// which only the stored value needs here.
			if suffixed, err = suffixTyped(cc, salt); err != nil {
				return fmt.Errorf("suffix contract %s: %w", c.ContractID, err)
			}
		} else {
			// The suffixer rewrites the ids it suffixed itself.
			cc.Argument = arg
			out, err := s.Suffix(cc, salt)
			if err != nil {
				return fmt.Errorf("suffix contract %s: %w", c.ContractID, err)
			}
			suffixed = out.ID
		}
		if c.Argument, err = b.storedArgument(rewritten); err != nil {
			return fmt.Errorf("contract %s: %w", c.ContractID, err)
		}
		c.ArgumentJSON = rewriteJSON(c.ArgumentJSON, ids)
		ids[c.ContractID] = string(suffixed)
		c.ContractID = string(suffixed)
		c.Salt = append([]byte(nil), salt[:]...)
	}
	for i, id := range b.archived {
		if s, ok := ids[id]; ok {
			b.archived[i] = s
		}
	}
	for i := range b.nodes {
		n := &b.nodes[i]
		if s, ok := ids[n.ContractID]; ok {
			n.ContractID = s
		}
		n.Argument = rewriteJSON(n.Argument, ids)
		n.Result = rewriteJSON(n.Result, ids)
	}
	return nil
}

// localIDLen is the length of a local contract id: "00" and a 32-byte
// discriminator in hex.
const localIDLen = 66

// rewriteJSON replaces the local ids in Daml-LF JSON, where a contract id
// is a JSON string of its own, in one pass: each string of a local id's
// length starting "00" is looked up in ids.
func rewriteJSON(js []byte, ids map[string]string) []byte {
	var out []byte
	done := 0
	for i := 0; ; {
		j := bytes.Index(js[i:], []byte(`"00`))
		if j < 0 {
			break
		}
		at := i + j + 1 // the id's first byte
		end := at + localIDLen
		if end < len(js) && js[end] == '"' {
			if s, ok := ids[string(js[at:end])]; ok {
				if out == nil {
					out = make([]byte, 0, len(js)+len(js)/4)
				}
				out = append(out, js[done:at]...)
				out = append(out, s...)
				done = end
				i = end + 1
				continue
			}
		}
		i = at
	}
	if out == nil {
		return js
	}
	return append(out, js[done:]...)
}

// suffixTyped returns the suffixed id of a contract whose argument is
// typed (as the interpreter builds it) and has no local ids: ca12, the
// TypedNormalForm hash of the argument (what contract.Suffixer computes).
func suffixTyped(c *contract.Contract, salt contract.Salt) (value.ContractID, error) {
	id, err := contract.ParseID(c.ID)
	if err != nil {
		return "", err
	}
	if !id.IsLocal() {
		return "", fmt.Errorf("contract %s already has a suffix", c.ID)
	}
	h, err := contract.HashTyped(c.PackageName, c.TemplateID.ModuleName, c.TemplateID.EntityName, c.Argument)
	if err != nil {
		return "", fmt.Errorf("hashing: %w", err)
	}
	return id.Suffixed(contract.V12, contract.ComputeUnicum(salt, c.CreatedAt, c.Metadata(), h)).ContractID(), nil
}

// rewriteValueIDs returns v with the local ids in ids replaced, keeping
// type constructors, labels, ranks and map order, and whether it replaced
// any: a value without them is returned as it is, uncopied.
func rewriteValueIDs(v value.Value, ids map[string]string, depth int) (value.Value, bool) {
	if len(ids) == 0 || depth > typed.MaxNesting+1 {
		return v, false
	}
	depth++
	switch x := v.(type) {
	case value.ContractID:
		if s, ok := ids[string(x)]; ok {
			return value.ContractID(s), true
		}
	case value.Optional:
		if x.Value != nil {
			if inner, ok := rewriteValueIDs(x.Value, ids, depth); ok {
				return value.Some(inner), true
			}
		}
	case *value.List:
		var out []value.Value
		i := 0
		for el := range x.All() {
			nv, ok := rewriteValueIDs(el, ids, depth)
			if ok && out == nil {
				out = make([]value.Value, 0, x.Len())
				for prev := range x.All() {
					if len(out) == i {
						break
					}
					out = append(out, prev)
				}
			}
			if out != nil {
				out = append(out, nv)
			}
			i++
		}
		if out != nil {
			return value.NewList(out...), true
		}
	case *value.TextMap:
		entries := x.Entries()
		var out []value.TextMapEntry
		for i, en := range entries {
			nv, ok := rewriteValueIDs(en.Value, ids, depth)
			if ok && out == nil {
				out = append(make([]value.TextMapEntry, 0, len(entries)), entries[:i]...)
			}
			if out != nil {
				out = append(out, value.TextMapEntry{Key: en.Key, Value: nv})
			}
		}
		if out != nil {
			m, _ := value.NewTextMap(out) // the keys are unchanged
			return m, true
		}
	case *value.GenMap:
		// A local id and its suffixed id share the discriminator, so
		// rewriting keys keeps their order.
		entries := x.Entries()
		var out []value.GenMapEntry
		for i, en := range entries {
			nk, okK := rewriteValueIDs(en.Key, ids, depth)
			nv, okV := rewriteValueIDs(en.Value, ids, depth)
			if (okK || okV) && out == nil {
				out = append(make([]value.GenMapEntry, 0, len(entries)), entries[:i]...)
			}
			if out != nil {
				out = append(out, value.GenMapEntry{Key: nk, Value: nv})
			}
		}
		if out != nil {
			return value.GenMapInOrder(out), true
		}
	case *value.Record:
		var out []value.Field
		for i, f := range x.Fields {
			nv, ok := rewriteValueIDs(f.Value, ids, depth)
			if ok && out == nil {
				out = append(make([]value.Field, 0, len(x.Fields)), x.Fields[:i]...)
			}
			if out != nil {
				out = append(out, value.Field{Label: f.Label, Value: nv})
			}
		}
		if out != nil {
			return &value.Record{TypeCon: x.TypeCon, Fields: out}, true
		}
	case *value.Variant:
		if inner, ok := rewriteValueIDs(x.Value, ids, depth); ok {
			return &value.Variant{TypeCon: x.TypeCon, Constructor: x.Constructor, Rank: x.Rank, Value: inner}, true
		}
	}
	return v, false
}

// cantonContractOf returns a stored contract as Canton's
// FatContractInstance holds it: its argument and key as stored (untyped),
// its salt's authentication data (none for contracts stored before
// schema version 8). createdAt overrides c.CreatedAt when not zero.
func cantonContractOf(c *ledger.Contract, createdAt time.Time) (*contract.Contract, error) {
	arg, err := UnmarshalValue(c.Argument)
	if err != nil {
		return nil, fmt.Errorf("stored contract %s: argument: %w", c.ContractID, err)
	}
	return cantonContract(c, createdAt, arg)
}

// cantonContract is cantonContractOf with the argument arg.
func cantonContract(c *ledger.Contract, createdAt time.Time, arg value.Value) (*contract.Contract, error) {
	tid, err := parseIdentifier(c.TemplateID)
	if err != nil {
		return nil, fmt.Errorf("stored contract %s: %w", c.ContractID, err)
	}
	if createdAt.IsZero() {
		createdAt = c.CreatedAt
	}
	out := &contract.Contract{
		Version:      contract.SerializationV1,
		ID:           value.ContractID(c.ContractID),
		PackageName:  c.PackageName,
		TemplateID:   *tid,
		Argument:     arg,
		Signatories:  c.Signatories,
		Stakeholders: c.Stakeholders,
		CreatedAt:    timestamp(createdAt),
	}
	if len(c.Salt) == len(contract.Salt{}) {
		out.AuthenticationData = contract.AuthenticationDataV1(contract.Salt(c.Salt))
	}
	k, err := contractKey(c)
	if err != nil {
		return nil, err
	}
	if k != nil {
		kv, err := typed.FromProtoAsIs(k.GetKey().GetKey())
		if err != nil {
			return nil, fmt.Errorf("stored contract %s: key: %w", c.ContractID, err)
		}
		out.Version = contract.SerializationV2
		out.Key = &contract.Key{Value: kv, Maintainers: k.GetMaintainers()}
		copy(out.Key.Hash[:], k.GetKey().GetHash())
	}
	return out, nil
}
