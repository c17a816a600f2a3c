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
	"github.com/ledger-cli/ledger/proto/damlpb"
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
	positions := contract.RootViewPositions(max(len(b.tx.GetRoots()), 1))
	s := contract.NewSuffixer(version, nil)
	ids := make(map[string]string, len(b.created))
	viewSalt, viewRoot := contract.Salt{}, -1
	for i := range b.created {
		c := &b.created[i]
		var typedArg value.Value
		if i < len(b.args) {
			typedArg = b.args[i]
		}
		cc, err := cantonContract(c, createdAt, typedArg == nil)
		if err != nil {
			return err
		}
		if typedArg != nil {
			cc.Argument = typedArg
		}
		pos := createPos{root: i}
		if i < len(b.pos) {
			pos = b.pos[i]
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
		hasLocal := containsLocalID(c.Argument, ids)
		var suffixed value.ContractID
		if typedArg != nil {
			// Suffixer.Suffix for a typed argument, without the copies
			// of the argument it makes to rewrite and normalize it,
			// which only the stored value needs here.
			if hasLocal {
				cc.Argument = rewriteValueIDs(typedArg, ids, 0)
			}
			if suffixed, err = suffixTyped(cc, salt); err != nil {
				return fmt.Errorf("suffix contract %s: %w", c.ContractID, err)
			}
		} else {
			out, err := s.Suffix(cc, salt)
			if err != nil {
				return fmt.Errorf("suffix contract %s: %w", c.ContractID, err)
			}
			suffixed = out.ID
		}
		if hasLocal {
			if c.Argument, err = rewriteStoredValue(c.Argument, ids); err != nil {
				return err
			}
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

// containsLocalID reports whether a stored value may hold one of the local
// ids (its bytes hold the id's text).
func containsLocalID(b []byte, ids map[string]string) bool {
	for local := range ids {
		if bytes.Contains(b, []byte(local)) {
			return true
		}
	}
	return false
}

// rewriteValueIDs returns v with the local ids in ids replaced, keeping
// type constructors, labels, ranks and map order.
func rewriteValueIDs(v value.Value, ids map[string]string, depth int) value.Value {
	if depth > typed.MaxNesting+1 {
		return v
	}
	depth++
	switch x := v.(type) {
	case value.ContractID:
		if s, ok := ids[string(x)]; ok {
			return value.ContractID(s)
		}
	case value.Optional:
		if x.Value != nil {
			return value.Some(rewriteValueIDs(x.Value, ids, depth))
		}
	case *value.List:
		out := make([]value.Value, 0, x.Len())
		for el := range x.All() {
			out = append(out, rewriteValueIDs(el, ids, depth))
		}
		return value.NewList(out...)
	case *value.TextMap:
		out := make([]value.TextMapEntry, 0, x.Len())
		for _, en := range x.Entries() {
			out = append(out, value.TextMapEntry{Key: en.Key, Value: rewriteValueIDs(en.Value, ids, depth)})
		}
		m, _ := value.NewTextMap(out) // the keys are unchanged
		return m
	case *value.GenMap:
		// A local id and its suffixed id share the discriminator, so
		// rewriting keys keeps their order.
		out := make([]value.GenMapEntry, 0, x.Len())
		for _, en := range x.Entries() {
			out = append(out, value.GenMapEntry{Key: rewriteValueIDs(en.Key, ids, depth), Value: rewriteValueIDs(en.Value, ids, depth)})
		}
		return value.GenMapInOrder(out)
	case *value.Record:
		out := make([]value.Field, len(x.Fields))
		for i, f := range x.Fields {
			out[i] = value.Field{Label: f.Label, Value: rewriteValueIDs(f.Value, ids, depth)}
		}
		return &value.Record{TypeCon: x.TypeCon, Fields: out}
	case *value.Variant:
		return &value.Variant{TypeCon: x.TypeCon, Constructor: x.Constructor, Rank: x.Rank, Value: rewriteValueIDs(x.Value, ids, depth)}
	}
	return v
}

// rewriteStoredValue replaces the local ids in a stored value (the
// engine's encoding, MarshalValue).
func rewriteStoredValue(b []byte, ids map[string]string) ([]byte, error) {
	if !containsLocalID(b, ids) {
		return b, nil
	}
	v, err := UnmarshalValue(b)
	if err != nil {
		return nil, err
	}
	rewriteProtoIDs(v, ids, 0)
	return MarshalValue(v)
}

func rewriteProtoIDs(v *damlpb.Value, ids map[string]string, depth int) {
	if v == nil || depth > typed.MaxNesting+1 {
		return
	}
	depth++
	switch x := v.GetSum().(type) {
	case *damlpb.Value_ContractId:
		if s, ok := ids[x.ContractId]; ok {
			x.ContractId = s
		}
	case *damlpb.Value_Optional:
		rewriteProtoIDs(x.Optional.GetValue(), ids, depth)
	case *damlpb.Value_List:
		for _, el := range x.List.GetElements() {
			rewriteProtoIDs(el, ids, depth)
		}
	case *damlpb.Value_TextMap:
		for _, en := range x.TextMap.GetEntries() {
			rewriteProtoIDs(en.GetValue(), ids, depth)
		}
	case *damlpb.Value_GenMap:
		for _, en := range x.GenMap.GetEntries() {
			rewriteProtoIDs(en.GetKey(), ids, depth)
			rewriteProtoIDs(en.GetValue(), ids, depth)
		}
	case *damlpb.Value_Record:
		for _, f := range x.Record.GetFields() {
			rewriteProtoIDs(f.GetValue(), ids, depth)
		}
	case *damlpb.Value_Variant:
		rewriteProtoIDs(x.Variant.GetValue(), ids, depth)
	}
}

// cantonContractOf returns a stored contract as Canton's
// FatContractInstance holds it: its argument and key as stored (untyped),
// its salt's authentication data (none for contracts stored before
// schema version 8). createdAt overrides c.CreatedAt when not zero.
func cantonContractOf(c *ledger.Contract, createdAt time.Time) (*contract.Contract, error) {
	return cantonContract(c, createdAt, true)
}

// cantonContract is cantonContractOf, the argument left nil unless withArg.
func cantonContract(c *ledger.Contract, createdAt time.Time, withArg bool) (*contract.Contract, error) {
	tid, err := parseIdentifier(c.TemplateID)
	if err != nil {
		return nil, fmt.Errorf("stored contract %s: %w", c.ContractID, err)
	}
	var arg value.Value
	if withArg {
		pv, err := UnmarshalValue(c.Argument)
		if err != nil {
			return nil, fmt.Errorf("stored contract %s: %w", c.ContractID, err)
		}
		if arg, err = untypedValue(pv, 0); err != nil {
			return nil, fmt.Errorf("stored contract %s: argument: %w", c.ContractID, err)
		}
	}
	if createdAt.IsZero() {
		createdAt = c.CreatedAt
	}
	out := &contract.Contract{
		Version:      contract.SerializationV1,
		ID:           value.ContractID(c.ContractID),
		PackageName:  c.PackageName,
		TemplateID:   *valueIdentifier(tid),
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
		kv, err := untypedValue(k.GetKey().GetKey(), 0)
		if err != nil {
			return nil, fmt.Errorf("stored contract %s: key: %w", c.ContractID, err)
		}
		out.Version = contract.SerializationV2
		out.Key = &contract.Key{Value: kv, Maintainers: k.GetMaintainers()}
		copy(out.Key.Hash[:], k.GetKey().GetHash())
	}
	return out, nil
}

// untypedValue reads a stored value as Canton stores it: records keep
// their fields in order (labels kept, which the blob leaves out), variants
// and enums their constructors, generic maps their order.
func untypedValue(v *damlpb.Value, depth int) (value.Value, error) {
	if depth > typed.MaxNesting {
		return nil, fmt.Errorf("the value nests deeper than %d", typed.MaxNesting)
	}
	depth++
	switch x := v.GetSum().(type) {
	case *damlpb.Value_Unit:
		return value.Unit{}, nil
	case *damlpb.Value_Bool:
		return value.Bool(x.Bool), nil
	case *damlpb.Value_Int64:
		return value.Int64(x.Int64), nil
	case *damlpb.Value_Numeric:
		return value.ParseNumeric(x.Numeric)
	case *damlpb.Value_Text:
		return value.Text(x.Text), nil
	case *damlpb.Value_Party:
		return value.Party(x.Party), nil
	case *damlpb.Value_ContractId:
		return value.ContractID(x.ContractId), nil
	case *damlpb.Value_Timestamp:
		return value.Timestamp(x.Timestamp), nil
	case *damlpb.Value_Date:
		return value.Date(x.Date), nil
	case *damlpb.Value_Optional:
		if x.Optional.GetValue() == nil {
			return value.Optional{}, nil
		}
		inner, err := untypedValue(x.Optional.GetValue(), depth)
		if err != nil {
			return nil, err
		}
		return value.Some(inner), nil
	case *damlpb.Value_List:
		out := make([]value.Value, len(x.List.GetElements()))
		for i, el := range x.List.GetElements() {
			var err error
			if out[i], err = untypedValue(el, depth); err != nil {
				return nil, err
			}
		}
		return value.NewList(out...), nil
	case *damlpb.Value_TextMap:
		out := make([]value.TextMapEntry, len(x.TextMap.GetEntries()))
		for i, en := range x.TextMap.GetEntries() {
			ev, err := untypedValue(en.GetValue(), depth)
			if err != nil {
				return nil, err
			}
			out[i] = value.TextMapEntry{Key: en.GetKey(), Value: ev}
		}
		return value.NewTextMap(out)
	case *damlpb.Value_GenMap:
		out := make([]value.GenMapEntry, len(x.GenMap.GetEntries()))
		for i, en := range x.GenMap.GetEntries() {
			k, err := untypedValue(en.GetKey(), depth)
			if err != nil {
				return nil, err
			}
			ev, err := untypedValue(en.GetValue(), depth)
			if err != nil {
				return nil, err
			}
			out[i] = value.GenMapEntry{Key: k, Value: ev}
		}
		return value.GenMapInOrder(out), nil
	case *damlpb.Value_Record:
		out := make([]value.Field, len(x.Record.GetFields()))
		for i, f := range x.Record.GetFields() {
			fv, err := untypedValue(f.GetValue(), depth)
			if err != nil {
				return nil, err
			}
			out[i] = value.Field{Label: f.GetLabel(), Value: fv}
		}
		return &value.Record{TypeCon: valueIdentifierOrNil(x.Record.GetRecordId()), Fields: out}, nil
	case *damlpb.Value_Variant:
		inner, err := untypedValue(x.Variant.GetValue(), depth)
		if err != nil {
			return nil, err
		}
		return &value.Variant{Constructor: x.Variant.GetConstructor(), Value: inner}, nil
	case *damlpb.Value_Enum:
		return &value.Enum{Constructor: x.Enum.GetConstructor()}, nil
	}
	return nil, fmt.Errorf("a value of kind %T is not serializable", v.GetSum())
}

func valueIdentifierOrNil(id *damlpb.Identifier) *value.Identifier {
	if id == nil {
		return nil
	}
	return valueIdentifier(id)
}
