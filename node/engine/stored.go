package engine

import (
	"fmt"

	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"google.golang.org/protobuf/proto"
)

// The store's encoding of a contract's argument (Contract.Argument): a
// Daml-LF transaction Value (damlpb.Value) in deterministic binary
// protobuf, as a prepared transaction's create node carries it. Inside
// the node an argument is a value.Value; it becomes bytes here, when a
// transaction is accepted, and is read back here. The generic model's
// arguments are written as they are (every record field kept), the
// interpreter's as Canton writes typed values (trailing None fields left
// out, typed.ToProto).

// MarshalValue encodes a value as the store keeps it, every record field
// as the value holds it (the generic model's arguments, and any value
// read back with UnmarshalValue).
func MarshalValue(v value.Value) ([]byte, error) {
	pv, err := typed.ToProtoAsIs(v)
	if err != nil {
		return nil, err
	}
	return marshalProtoValue(pv)
}

// MarshalTypedValue encodes a typed value (the interpreter's, or an
// authenticated contract's) as the store keeps it: as Canton writes it,
// trailing None fields left out.
func MarshalTypedValue(v value.Value) ([]byte, error) {
	pv, err := typed.ToProto(v)
	if err != nil {
		return nil, err
	}
	return marshalProtoValue(pv)
}

// UnmarshalValue decodes Contract.Argument, without its type: records
// keep their labels and every field stored (typed.FromProtoAsIs).
func UnmarshalValue(b []byte) (value.Value, error) {
	pv, err := unmarshalProtoValue(b)
	if err != nil {
		return nil, err
	}
	return typed.FromProtoAsIs(pv)
}

func marshalProtoValue(pv *damlpb.Value) ([]byte, error) {
	return proto.MarshalOptions{Deterministic: true}.Marshal(pv)
}

// unmarshalProtoValue decodes Contract.Argument into the form a prepared
// transaction carries, for the edges that copy it there (an input
// contract's create node) or read it by a type (typed.Plan.FromProto).
func unmarshalProtoValue(b []byte) (*damlpb.Value, error) {
	v := &damlpb.Value{}
	if err := proto.Unmarshal(b, v); err != nil {
		return nil, fmt.Errorf("create argument does not decode: %w", err)
	}
	return v, nil
}
