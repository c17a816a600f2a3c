package engine

import (
	"errors"
	"fmt"
	"time"

	"github.com/ledger-cli/ledger/daml/contract"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"google.golang.org/protobuf/proto"
)

// InputContractError says why an input contract of a prepared transaction
// cannot be used.
type InputContractError struct {
	ContractID string
	Reason     string
}

func (e *InputContractError) Error() string {
	return fmt.Sprintf("input contract %s: %s", e.ContractID, e.Reason)
}

// InputContracts is the contract source of a prepared transaction built
// from its metadata alone, offline: each input contract's event blob
// decodes (Canton's FatContractInstance), is the contract its id names
// (contract.Authenticate: ca10, ca11 and ca12 suffixes, the argument
// typed by its creating package when set holds it), was created when the
// entry says, and the create node beside it is the blob's contract as a
// prepared transaction writes it. The contracts come back typed by their
// packages (a contract of a package set does not hold keeps no argument:
// the interpreter refuses to use it), in the metadata's order. The error
// is an *InputContractError naming the first contract that fails.
func InputContracts(md *damlpb.Metadata, set *PackageSet) ([]*tx.Contract, error) {
	out := make([]*tx.Contract, 0, len(md.GetInputContracts()))
	seen := map[string]bool{}
	for _, ic := range md.GetInputContracts() {
		c, err := InputContract(ic, set)
		if err != nil {
			return nil, err
		}
		if seen[string(c.ID)] {
			return nil, &InputContractError{ContractID: string(c.ID), Reason: "it is listed twice"}
		}
		seen[string(c.ID)] = true
		out = append(out, c)
	}
	return out, nil
}

// InputContract authenticates one input contract entry (see
// InputContracts).
func InputContract(ic *damlpb.Metadata_InputContract, set *PackageSet) (*tx.Contract, error) {
	cid := ic.GetV1().GetContractId()
	fail := func(format string, args ...any) error {
		return &InputContractError{ContractID: cid, Reason: fmt.Sprintf(format, args...)}
	}
	c, err := contract.DecodeBlob(ic.GetEventBlob())
	if err != nil {
		return nil, fail("its event blob does not decode: %v", err)
	}
	if string(c.ID) != cid {
		return nil, fail("its event blob holds contract %s", c.ID)
	}
	types := typesFor(set, c)
	if err := contract.Authenticate(c, types, ""); err != nil {
		var ae *contract.AuthenticationError
		if errors.As(err, &ae) {
			return nil, fail("it does not authenticate against its contract id: %s", ae.Reason)
		}
		return nil, fail("it does not authenticate against its contract id: %v", err)
	}
	if ic.GetCreatedAt() != uint64(c.CreatedAt) {
		return nil, fail("created_at is %s; its event blob says %s", timeText(timeOf(value.Timestamp(ic.GetCreatedAt()))), timeText(timeOf(c.CreatedAt)))
	}
	out, arg, err := contractOf(c, types, set)
	if err != nil {
		return nil, fail("%v", err)
	}
	want, err := createOf(out, arg)
	if err != nil {
		return nil, fail("%v", err)
	}
	got := ic.GetV1()
	if types == nil {
		// Untyped, the blob's argument has no labels or type ids to compare.
		got = proto.Clone(got).(*damlpb.Create)
		stripTypes(got.GetArgument())
		if k := got.GetKey().GetKey(); k != nil {
			stripTypes(k.GetKey())
		}
	}
	if !proto.Equal(got, want) {
		d := NodeDifference(&damlpb.Node{NodeType: &damlpb.Node_Create{Create: got}}, &damlpb.Node{NodeType: &damlpb.Node_Create{Create: want}})
		return nil, fail("its create node is not the contract of its event blob: %s is %s beside the blob, %s in it", d.Path, orNothing(d.Prepared), orNothing(d.Reinterpreted))
	}
	if types == nil {
		out.Key = nil
	}
	return out, nil
}

// contractOf is an authenticated contract as the interpreter reads it:
// typed by its creating package when types holds it; arg is its argument
// as a prepared transaction writes it (untyped otherwise).
func contractOf(c *contract.Contract, types *typed.Env, set *PackageSet) (out *tx.Contract, arg value.Value, err error) {
	out = &tx.Contract{
		ID:           c.ID,
		PackageName:  c.PackageName,
		TemplateID:   &value.Identifier{PackageID: c.TemplateID.PackageID, ModuleName: c.TemplateID.ModuleName, EntityName: c.TemplateID.EntityName},
		Argument:     value.Unit{},
		Signatories:  c.Signatories,
		Stakeholders: c.Stakeholders,
		CreatedAt:    c.CreatedAt,
	}
	arg = c.Argument
	if types != nil {
		if arg, err = contract.Translate(types, ConOf(out.TemplateID), c.Argument); err != nil {
			return nil, nil, fmt.Errorf("its argument is not a value of template %s: %v", out.TemplateID, err)
		}
		out.Argument = arg
	}
	if c.Key != nil {
		key := c.Key.Value
		if types != nil {
			plan, err := NewPlans(set).Key(out.TemplateID)
			if err != nil {
				return nil, nil, err
			}
			if key, err = contract.TranslateByPlan(plan, c.Key.Value); err != nil {
				return nil, nil, fmt.Errorf("its key is not a value of the key type of %s: %v", out.TemplateID, err)
			}
		}
		out.Key = &tx.KeyWithMaintainers{
			GlobalKey:   tx.GlobalKey{TemplateID: out.TemplateID, PackageName: c.PackageName, Key: key, Hash: tx.Hash(c.Key.Hash)},
			Maintainers: c.Key.Maintainers,
		}
	}
	return out, arg, nil
}

// typesFor is set's types when they hold c's creating package, else nil.
func typesFor(set *PackageSet, c *contract.Contract) *typed.Env {
	if set != nil && set.Env != nil && set.Env.Package(lf.PackageID(c.TemplateID.PackageID)) != nil {
		return set.Env
	}
	return nil
}

// InputContractOf is the metadata entry of a contract a transaction reads,
// as a prepared transaction carries it: its create node (the argument
// typed by its creating package when set holds it), its creation time and
// its event blob.
func InputContractOf(c *contract.Contract, set *PackageSet) (*damlpb.Metadata_InputContract, error) {
	tc, arg, err := contractOf(c, typesFor(set, c), set)
	if err != nil {
		return nil, fmt.Errorf("contract %s: %w", c.ID, err)
	}
	create, err := createOf(tc, arg)
	if err != nil {
		return nil, fmt.Errorf("contract %s: %w", c.ID, err)
	}
	blob, err := contract.EncodeBlob(c)
	if err != nil {
		return nil, fmt.Errorf("contract %s: %w", c.ID, err)
	}
	return &damlpb.Metadata_InputContract{
		Contract:  &damlpb.Metadata_InputContract_V1{V1: create},
		CreatedAt: uint64(c.CreatedAt),
		EventBlob: blob,
	}, nil
}

// stripTypes removes the labels and type ids of a value, in place.
func stripTypes(v *damlpb.Value) {
	switch x := v.GetSum().(type) {
	case *damlpb.Value_Record:
		x.Record.RecordId = nil
		for _, f := range x.Record.GetFields() {
			f.Label = ""
			stripTypes(f.GetValue())
		}
	case *damlpb.Value_Variant:
		x.Variant.VariantId = nil
		stripTypes(x.Variant.GetValue())
	case *damlpb.Value_Enum:
		x.Enum.EnumId = nil
	case *damlpb.Value_Optional:
		stripTypes(x.Optional.GetValue())
	case *damlpb.Value_List:
		for _, e := range x.List.GetElements() {
			stripTypes(e)
		}
	case *damlpb.Value_TextMap:
		for _, e := range x.TextMap.GetEntries() {
			stripTypes(e.GetValue())
		}
	case *damlpb.Value_GenMap:
		for _, e := range x.GenMap.GetEntries() {
			stripTypes(e.GetKey())
			stripTypes(e.GetValue())
		}
	}
}

// createOf is the create node of an input contract as a prepared
// transaction's metadata writes it.
func createOf(c *tx.Contract, arg value.Value) (*damlpb.Create, error) {
	pv, err := typed.ToProto(arg)
	if err != nil {
		return nil, err
	}
	key, err := EncodeKey(c.Key)
	if err != nil {
		return nil, err
	}
	version := tx.VersionNoKey
	if c.Key != nil {
		version = tx.VersionWithKey
	}
	return &damlpb.Create{
		LfVersion:    version,
		ContractId:   string(c.ID),
		PackageName:  c.PackageName,
		TemplateId:   ProtoIdentifier(c.TemplateID),
		Argument:     pv,
		Signatories:  c.Signatories,
		Stakeholders: c.Stakeholders,
		Key:          key,
	}, nil
}

func timeOf(t value.Timestamp) time.Time { return time.UnixMicro(int64(t)) }
