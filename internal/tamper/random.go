package tamper

import (
	"fmt"
	"math/rand/v2"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/ledger-cli/ledger/proto/damlpb"
)

// Random changes one field of one node of pt, picked with rng, and says
// which: any field of any node kind — ids, parties, flags, versions,
// children, and one leaf of a value (a numeric, a party, a text, an int64,
// a time, a contract id, a constructor). It returns "" when the node it
// picked has no field it can change (the caller picks again).
func Random(rng *rand.Rand, pt *damlpb.PreparedTransaction) string {
	nodes := pt.GetTransaction().GetNodes()
	if len(nodes) == 0 {
		return ""
	}
	n := nodes[rng.IntN(len(nodes))]
	m := n.GetV1().ProtoReflect()
	kind := m.WhichOneof(m.Descriptor().Oneofs().ByName("node_type"))
	if kind == nil {
		return ""
	}
	msg := m.Mutable(kind).Message()
	var set []protoreflect.FieldDescriptor
	msg.Range(func(f protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		set = append(set, f)
		return true
	})
	if len(set) == 0 {
		return ""
	}
	f := set[rng.IntN(len(set))]
	what := change(rng, msg, f)
	if what == "" {
		return ""
	}
	return fmt.Sprintf("node %s %s.%s: %s", n.GetNodeId(), kind.Name(), f.Name(), what)
}

// change changes field f of msg.
func change(rng *rand.Rand, msg protoreflect.Message, f protoreflect.FieldDescriptor) string {
	switch {
	case f.IsList() && f.Kind() == protoreflect.StringKind:
		l := msg.Mutable(f).List()
		if l.Len() == 0 {
			return ""
		}
		i := rng.IntN(l.Len())
		switch rng.IntN(3) {
		case 0:
			// Drop the element.
			out := msg.NewField(f).List()
			for j := 0; j < l.Len(); j++ {
				if j != i {
					out.Append(l.Get(j))
				}
			}
			msg.Set(f, protoreflect.ValueOfList(out))
			return fmt.Sprintf("dropped [%d]", i)
		case 1:
			l.Append(protoreflect.ValueOfString(Other))
			return "added " + Other
		}
		l.Set(i, protoreflect.ValueOfString(otherText(l.Get(i).String())))
		return fmt.Sprintf("changed [%d]", i)
	case f.IsList():
		return ""
	case f.Kind() == protoreflect.StringKind:
		msg.Set(f, protoreflect.ValueOfString(otherText(msg.Get(f).String())))
		return "changed"
	case f.Kind() == protoreflect.BoolKind:
		msg.Set(f, protoreflect.ValueOfBool(!msg.Get(f).Bool()))
		return "flipped"
	case f.Kind() == protoreflect.MessageKind:
		switch x := msg.Mutable(f).Message().Interface().(type) {
		case *damlpb.Identifier:
			switch rng.IntN(3) {
			case 0:
				x.PackageId = otherText(x.PackageId)
			case 1:
				x.ModuleName = otherText(x.ModuleName)
			default:
				x.EntityName = otherText(x.EntityName)
			}
			return "changed identifier"
		case *damlpb.Value:
			return changeValue(rng, x)
		case *damlpb.GlobalKeyWithMaintainers:
			if len(x.Maintainers) > 0 && rng.IntN(2) == 0 {
				x.Maintainers[0] = otherText(x.Maintainers[0])
				return "changed a maintainer"
			}
			if x.GetKey() != nil {
				return "key: " + changeValue(rng, x.GetKey().GetKey())
			}
		}
	}
	return ""
}

// changeValue changes one leaf of v, picked at random among all of them.
func changeValue(rng *rand.Rand, v *damlpb.Value) string {
	var leaves []*damlpb.Value
	var walk func(*damlpb.Value)
	walk = func(v *damlpb.Value) {
		switch x := v.GetSum().(type) {
		case *damlpb.Value_Record:
			for _, f := range x.Record.GetFields() {
				walk(f.GetValue())
			}
		case *damlpb.Value_Variant:
			leaves = append(leaves, v)
			walk(x.Variant.GetValue())
		case *damlpb.Value_Optional:
			if x.Optional.GetValue() != nil {
				walk(x.Optional.GetValue())
			}
		case *damlpb.Value_List:
			for _, e := range x.List.GetElements() {
				walk(e)
			}
		case *damlpb.Value_TextMap:
			for _, e := range x.TextMap.GetEntries() {
				walk(e.GetValue())
			}
		case *damlpb.Value_GenMap:
			for _, e := range x.GenMap.GetEntries() {
				walk(e.GetKey())
				walk(e.GetValue())
			}
		case *damlpb.Value_Unit, nil:
		default:
			leaves = append(leaves, v)
		}
	}
	walk(v)
	if len(leaves) == 0 {
		return ""
	}
	leaf := leaves[rng.IntN(len(leaves))]
	before := proto.Clone(leaf)
	switch x := leaf.GetSum().(type) {
	case *damlpb.Value_Bool:
		x.Bool = !x.Bool
	case *damlpb.Value_Int64:
		x.Int64++
	case *damlpb.Value_Date:
		x.Date++
	case *damlpb.Value_Timestamp:
		x.Timestamp++
	case *damlpb.Value_Numeric:
		x.Numeric = otherText(x.Numeric) // the last digit: same scale
	case *damlpb.Value_Party:
		x.Party = Other
	case *damlpb.Value_Text:
		x.Text += "!"
	case *damlpb.Value_ContractId:
		x.ContractId = otherText(x.ContractId)
	case *damlpb.Value_Variant:
		x.Variant.Constructor = otherText(x.Variant.Constructor)
	case *damlpb.Value_Enum:
		x.Enum.Constructor = otherText(x.Enum.Constructor)
	}
	return fmt.Sprintf("value %v became %v", before, leaf)
}

// otherText is s with its last character changed (hex stays hex).
func otherText(s string) string {
	if s == "" {
		return "x"
	}
	last := s[len(s)-1]
	switch {
	case last == '0':
		last = '1'
	case last >= '1' && last <= '9' || last >= 'a' && last <= 'f':
		last = '0'
	default:
		last = 'x'
	}
	return s[:len(s)-1] + string(last)
}
