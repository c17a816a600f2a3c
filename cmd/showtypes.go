package cmd

// ledger show --dar: the arguments of a transaction's nodes with their
// Daml types beside their values.

import (
	"encoding/base64"
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/display"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"github.com/ledger-cli/ledger/wallet"
)

// typedArguments reads the create and exercise arguments of env's
// transaction by the types of pkgs (those the Daml code was re-run with);
// nodes on other templates are left out.
func typedArguments(env *wallet.Envelope, pkgs []*lf.Package) ([]display.TypedArgument, error) {
	tenv := typed.NewEnv(pkgs...)
	raw, err := base64.StdEncoding.DecodeString(env.PreparedTransaction)
	if err != nil {
		return nil, fmt.Errorf("preparedTransaction: %w", err)
	}
	var pt damlpb.PreparedTransaction
	if err := proto.Unmarshal(raw, &pt); err != nil {
		return nil, fmt.Errorf("preparedTransaction: %w", err)
	}
	var out []display.TypedArgument
	for _, n := range pt.GetTransaction().GetNodes() {
		var a display.TypedArgument
		var id *damlpb.Identifier
		var arg *damlpb.Value
		switch {
		case n.GetV1().GetCreate() != nil:
			c := n.GetV1().GetCreate()
			a, id, arg = display.TypedArgument{Kind: "create"}, c.GetTemplateId(), c.GetArgument()
		case n.GetV1().GetExercise() != nil:
			x := n.GetV1().GetExercise()
			a, id, arg = display.TypedArgument{Kind: "exercise", Choice: x.GetChoiceId()}, x.GetTemplateId(), x.GetChosenValue()
			if x.GetInterfaceId() != nil {
				id = x.GetInterfaceId()
			}
		default:
			continue
		}
		con := lf.TypeConName{Package: lf.PackageID(id.GetPackageId()), Module: strings.Split(id.GetModuleName(), "."), Name: strings.Split(id.GetEntityName(), ".")}
		if tenv.Package(con.Package) == nil {
			continue
		}
		a.NodeID, a.Template = n.GetNodeId(), id.GetModuleName()+":"+id.GetEntityName()
		var typ lf.Type = lf.TCon{Con: con}
		if a.Choice != "" {
			c, ok := tenv.Choice(con, a.Choice)
			if !ok {
				a.Problem = "the package has no choice " + a.Choice + " on " + a.Template
				out = append(out, a)
				continue
			}
			typ = c.ArgType
		}
		a.Type = typ.String()
		a.Fields, a.Problem = typedFields(tenv, typ, arg)
		out = append(out, a)
	}
	return out, nil
}

// typedFields reads arg by typ and lists a record's fields with their
// types and JSON values (a value of another type is one unnamed field).
func typedFields(tenv *typed.Env, typ lf.Type, arg *damlpb.Value) ([]display.TypedField, string) {
	p, err := tenv.Plan(typ)
	if err != nil {
		return nil, err.Error()
	}
	v, err := p.FromProto(arg)
	if err != nil {
		return nil, err.Error()
	}
	r, ok := v.(*value.Record)
	if !ok {
		js, err := p.EncodeJSON(v)
		if err != nil {
			return nil, err.Error()
		}
		return []display.TypedField{{Name: "value", Type: typ.String(), Value: string(js)}}, ""
	}
	fields := make([]display.TypedField, len(r.Fields))
	for i, f := range r.Fields {
		fp := p.Fields[i]
		js, err := fp.Plan.EncodeJSON(f.Value)
		if err != nil {
			return nil, err.Error()
		}
		fields[i] = display.TypedField{Name: f.Label, Type: fp.Plan.Type.String(), Value: string(js)}
	}
	return fields, ""
}
