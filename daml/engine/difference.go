package engine

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ledger-cli/ledger/proto/damlpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Difference is the first place where a prepared transaction is not what
// its Daml code makes.
type Difference struct {
	// NodeID is the node's id, "" when the difference is not in a node
	// (roots, seeds, metadata).
	NodeID string
	// Node says what the node is, as the prepared transaction has it:
	// "create Splice.AmuletTransferInstruction:AmuletTransferInstruction",
	// "exercise Splice.AmuletRules:AmuletRules TransferPreapproval_Send".
	Node string
	// Kind is the node's kind: create, exercise, fetch, query_by_key or
	// rollback.
	Kind string
	// Field is the field of the node (or of the transaction or metadata)
	// that differs, by its protobuf name: "signatories", "argument",
	// "node_seeds", "metadata.min_ledger_effective_time".
	Field string
	// Path goes on inside the field, by record field labels inside values:
	// "argument.transfer.receiver", "node_seeds[3]", "signatories".
	Path string
	// Prepared and Reinterpreted are the two sides as short texts ("" when
	// a side has nothing there).
	Prepared, Reinterpreted string

	reason string
}

// Reason says the difference as the node's execute refusal does, after
// "the prepared transaction failed the model conformance check: ".
func (d *Difference) Reason() string {
	if d.Prepared == "" && d.Reinterpreted == "" {
		return d.reason
	}
	return d.reason + ": " + d.sides()
}

func (d *Difference) sides() string {
	return fmt.Sprintf("%s is %s in the transaction, %s when the Daml code runs", d.Path, orNothing(d.Prepared), orNothing(d.Reinterpreted))
}

func orNothing(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

// String says the difference as a custodian reads it: "node 17, create
// Splice.AmuletTransferInstruction:AmuletTransferInstruction:
// argument.transfer.receiver is … in the transaction, … when the Daml
// code runs".
func (d *Difference) String() string {
	if d.Prepared == "" && d.Reinterpreted == "" {
		if d.NodeID != "" {
			return fmt.Sprintf("node %s, %s: %s", d.NodeID, d.Node, d.reason)
		}
		return d.reason
	}
	if d.NodeID != "" {
		return fmt.Sprintf("node %s, %s: %s", d.NodeID, d.Node, d.sides())
	}
	return d.sides()
}

// TransactionDifference names the first place where a prepared
// transaction differs from the one re-interpretation makes, nil when none:
// version, roots, then node by node in node id order, field by field (a
// node added or dropped is first seen in its parent's children), then the
// node count and the node seeds.
func TransactionDifference(prepared, reinterpreted *damlpb.DamlTransaction) *Difference {
	got, want := prepared, reinterpreted
	if want.GetVersion() != got.GetVersion() {
		return &Difference{Field: "version", Path: "version", Prepared: got.GetVersion(), Reinterpreted: want.GetVersion(),
			reason: fmt.Sprintf("its version is %q; re-interpreting its root commands gives %q", got.GetVersion(), want.GetVersion())}
	}
	if !slices.Equal(want.GetRoots(), got.GetRoots()) {
		return &Difference{Field: "roots", Path: "roots", Prepared: fmt.Sprint(got.GetRoots()), Reinterpreted: fmt.Sprint(want.GetRoots()),
			reason: fmt.Sprintf("its roots are %v; re-interpreting its root commands gives %v", got.GetRoots(), want.GetRoots())}
	}
	gotNodes := make(map[string]*damlpb.Node, len(got.GetNodes()))
	for _, n := range got.GetNodes() {
		gotNodes[n.GetNodeId()] = n.GetV1()
	}
	// Node by node first: a node added or dropped shows in its parent's
	// children, which names the place; the counts only say how many.
	for _, n := range want.GetNodes() {
		g, ok := gotNodes[n.GetNodeId()]
		if !ok {
			return &Difference{NodeID: n.GetNodeId(), Node: describe(n.GetV1()), Kind: kindOf(n.GetV1()), Field: "node_id", Path: "node_id",
				reason: fmt.Sprintf("it has no node %s", n.GetNodeId())}
		}
		if d := NodeDifference(g, n.GetV1()); d != nil {
			d.NodeID = n.GetNodeId()
			d.reason = fmt.Sprintf("node %s %s", n.GetNodeId(), d.reason)
			return d
		}
	}
	if len(want.GetNodes()) != len(got.GetNodes()) {
		wantIDs := make(map[string]bool, len(want.GetNodes()))
		for _, n := range want.GetNodes() {
			wantIDs[n.GetNodeId()] = true
		}
		for _, n := range got.GetNodes() {
			if !wantIDs[n.GetNodeId()] {
				return &Difference{NodeID: n.GetNodeId(), Node: describe(n.GetV1()), Kind: kindOf(n.GetV1()), Field: "node_id", Path: "node_id",
					reason: fmt.Sprintf("it has a node %s, which re-interpreting its root commands does not make", n.GetNodeId())}
			}
		}
		return &Difference{Field: "nodes", Path: "nodes", Prepared: fmt.Sprintf("%d nodes", len(got.GetNodes())), Reinterpreted: fmt.Sprintf("%d nodes", len(want.GetNodes())),
			reason: fmt.Sprintf("it has %d nodes; re-interpreting its root commands gives %d", len(got.GetNodes()), len(want.GetNodes()))}
	}
	wantSeeds, gotSeeds := sortedSeeds(want.GetNodeSeeds()), sortedSeeds(got.GetNodeSeeds())
	if len(wantSeeds) != len(gotSeeds) {
		return &Difference{Field: "node_seeds", Path: "node_seeds", Prepared: fmt.Sprintf("%d seeds", len(gotSeeds)), Reinterpreted: fmt.Sprintf("%d seeds", len(wantSeeds)),
			reason: fmt.Sprintf("it has %d node seeds; re-interpreting its root commands gives %d", len(gotSeeds), len(wantSeeds))}
	}
	for i := range wantSeeds {
		if !proto.Equal(wantSeeds[i], gotSeeds[i]) {
			return &Difference{Field: "node_seeds", Path: fmt.Sprintf("node_seeds[%d]", i),
				Prepared: seedText(gotSeeds[i]), Reinterpreted: seedText(wantSeeds[i]),
				reason: fmt.Sprintf("the seed of node %d is not the one re-interpreting its root commands derives", gotSeeds[i].GetNodeId())}
		}
	}
	return nil
}

func seedText(s *damlpb.DamlTransaction_NodeSeed) string {
	return fmt.Sprintf("node %d: %s", s.GetNodeId(), shortHex(s.GetSeed()))
}

func shortHex(b []byte) string {
	s := fmt.Sprintf("%x", b)
	if len(s) > 16 {
		return s[:16] + "…"
	}
	return s
}

func sortedSeeds(s []*damlpb.DamlTransaction_NodeSeed) []*damlpb.DamlTransaction_NodeSeed {
	out := append([]*damlpb.DamlTransaction_NodeSeed(nil), s...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].GetNodeId() < out[j].GetNodeId() })
	return out
}

// NodeDifference names the first field in which a prepared node differs
// from the re-interpreted one, nil when none. NodeID is left to the caller.
func NodeDifference(prepared, reinterpreted *damlpb.Node) *Difference {
	if proto.Equal(prepared, reinterpreted) {
		return nil
	}
	d := &Difference{Node: describe(prepared), Kind: kindOf(prepared)}
	w, g := reinterpreted.ProtoReflect(), prepared.ProtoReflect()
	oneof := w.Descriptor().Oneofs().ByName("node_type")
	wf, gf := w.WhichOneof(oneof), g.WhichOneof(oneof)
	if wf == nil || gf == nil || wf.Name() != gf.Name() {
		d.Field, d.Path = "node_type", "node_type"
		d.Prepared, d.Reinterpreted = kindOf(prepared), kindOf(reinterpreted)
		d.reason = "is not the kind of node re-interpreting its root commands makes there"
		return d
	}
	wm, gm := w.Get(wf).Message(), g.Get(gf).Message()
	fields := wm.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		f := fields.Get(i)
		if fieldEqual(gm, wm, f) {
			continue
		}
		d.Field = string(f.Name())
		d.reason = fmt.Sprintf("(%s) differs in %s from what re-interpreting its root commands makes", wf.Name(), f.Name())
		d.Path, d.Prepared, d.Reinterpreted = fieldDifference(gm, wm, f)
		return d
	}
	d.Field, d.Path = string(wf.Name()), string(wf.Name())
	d.reason = fmt.Sprintf("(%s) differs from what re-interpreting its root commands makes", wf.Name())
	return d
}

func fieldEqual(a, b protoreflect.Message, f protoreflect.FieldDescriptor) bool {
	if a.Has(f) != b.Has(f) {
		return false
	}
	if !a.Has(f) {
		return true
	}
	x, y := a.Get(f), b.Get(f)
	switch {
	case f.IsList():
		if x.List().Len() != y.List().Len() {
			return false
		}
		for i := 0; i < x.List().Len(); i++ {
			if !singularEqual(f, x.List().Get(i), y.List().Get(i)) {
				return false
			}
		}
		return true
	case f.IsMap():
		// No node field is a map; compare the whole messages.
		return proto.Equal(a.Interface(), b.Interface())
	}
	return singularEqual(f, x, y)
}

func singularEqual(f protoreflect.FieldDescriptor, x, y protoreflect.Value) bool {
	if f.Kind() == protoreflect.MessageKind || f.Kind() == protoreflect.GroupKind {
		return proto.Equal(x.Message().Interface(), y.Message().Interface())
	}
	return x.Equal(y)
}

// fieldDifference gives the path and both sides of a field that differs,
// going into values by their record labels.
func fieldDifference(prepared, reinterpreted protoreflect.Message, f protoreflect.FieldDescriptor) (path, got, want string) {
	name := string(f.Name())
	if !prepared.Has(f) || !reinterpreted.Has(f) || f.Kind() != protoreflect.MessageKind && !f.IsList() {
		return name, fieldText(prepared, f), fieldText(reinterpreted, f)
	}
	if f.Kind() == protoreflect.MessageKind && !f.IsList() {
		switch x := prepared.Get(f).Message().Interface().(type) {
		case *damlpb.Value:
			return valueDifference(name, x, reinterpreted.Get(f).Message().Interface().(*damlpb.Value))
		case *damlpb.GlobalKeyWithMaintainers:
			y := reinterpreted.Get(f).Message().Interface().(*damlpb.GlobalKeyWithMaintainers)
			if !slices.Equal(x.GetMaintainers(), y.GetMaintainers()) {
				return name + ".maintainers", listText(x.GetMaintainers()), listText(y.GetMaintainers())
			}
			if !proto.Equal(x.GetKey().GetKey(), y.GetKey().GetKey()) {
				return valueDifference(name, x.GetKey().GetKey(), y.GetKey().GetKey())
			}
			return name, "hash " + shortHex(x.GetKey().GetHash()), "hash " + shortHex(y.GetKey().GetHash())
		}
	}
	if f.IsList() {
		a, b := prepared.Get(f).List(), reinterpreted.Get(f).List()
		if a.Len() == b.Len() && f.Kind() != protoreflect.MessageKind {
			for i := 0; i < a.Len(); i++ {
				if !a.Get(i).Equal(b.Get(i)) {
					return fmt.Sprintf("%s[%d]", name, i), fmt.Sprint(a.Get(i).Interface()), fmt.Sprint(b.Get(i).Interface())
				}
			}
		}
	}
	return name, fieldText(prepared, f), fieldText(reinterpreted, f)
}

// fieldText is a field's value as a short text.
func fieldText(m protoreflect.Message, f protoreflect.FieldDescriptor) string {
	if !m.Has(f) && (f.IsList() || f.Kind() == protoreflect.MessageKind) {
		return ""
	}
	v := m.Get(f)
	if f.IsList() {
		l := v.List()
		items := make([]string, l.Len())
		for i := range items {
			items[i] = singularText(f, l.Get(i))
		}
		return listText(items)
	}
	return singularText(f, v)
}

func singularText(f protoreflect.FieldDescriptor, v protoreflect.Value) string {
	if f.Kind() != protoreflect.MessageKind {
		return fmt.Sprint(v.Interface())
	}
	switch x := v.Message().Interface().(type) {
	case *damlpb.Identifier:
		return identifierText(x)
	case *damlpb.Value:
		return ValueText(x)
	}
	return clip(fmt.Sprint(v.Message().Interface()), maxText)
}

func listText(items []string) string {
	return clip("["+strings.Join(items, ", ")+"]", 4*maxText)
}

func identifierText(id *damlpb.Identifier) string {
	return id.GetPackageId() + ":" + id.GetModuleName() + ":" + id.GetEntityName()
}

// kindOf is a node's kind: create, exercise, fetch, query_by_key, rollback.
func kindOf(n *damlpb.Node) string {
	m := n.ProtoReflect()
	if f := m.WhichOneof(m.Descriptor().Oneofs().ByName("node_type")); f != nil {
		return string(f.Name())
	}
	return "empty node"
}

// describe says what a node is: its kind, template and choice.
func describe(n *damlpb.Node) string {
	qualified := func(id *damlpb.Identifier) string { return id.GetModuleName() + ":" + id.GetEntityName() }
	switch x := n.GetNodeType().(type) {
	case *damlpb.Node_Create:
		return "create " + qualified(x.Create.GetTemplateId())
	case *damlpb.Node_Exercise:
		s := "exercise " + qualified(x.Exercise.GetTemplateId()) + " " + x.Exercise.GetChoiceId()
		if i := x.Exercise.GetInterfaceId(); i != nil {
			s += " (through " + qualified(i) + ")"
		}
		return s
	case *damlpb.Node_Fetch:
		return "fetch " + qualified(x.Fetch.GetTemplateId())
	case *damlpb.Node_QueryByKey:
		return "query by key " + qualified(x.QueryByKey.GetTemplateId())
	case *damlpb.Node_Rollback:
		return "rollback"
	}
	return "empty node"
}

// valueDifference finds where two values first differ, by record field
// labels ([i] for list elements and unlabelled fields, [key] for text map
// entries, .Constructor into a variant).
func valueDifference(path string, a, b *damlpb.Value) (string, string, string) {
	if proto.Equal(a, b) {
		return path, ValueText(a), ValueText(b)
	}
	switch x := a.GetSum().(type) {
	case *damlpb.Value_Record:
		y := b.GetRecord()
		if y == nil || len(x.Record.GetFields()) != len(y.GetFields()) || !proto.Equal(x.Record.GetRecordId(), y.GetRecordId()) {
			break
		}
		for i, fa := range x.Record.GetFields() {
			fb := y.GetFields()[i]
			if proto.Equal(fa, fb) {
				continue
			}
			label := fa.GetLabel()
			if label == "" {
				label = "[" + strconv.Itoa(i) + "]"
			}
			if fa.GetLabel() != fb.GetLabel() {
				return joinPath(path, "["+strconv.Itoa(i)+"]"), "label " + strconv.Quote(fa.GetLabel()), "label " + strconv.Quote(fb.GetLabel())
			}
			return valueDifference(joinPath(path, label), fa.GetValue(), fb.GetValue())
		}
	case *damlpb.Value_Variant:
		y := b.GetVariant()
		if y == nil || y.GetConstructor() != x.Variant.GetConstructor() || !proto.Equal(x.Variant.GetVariantId(), y.GetVariantId()) {
			break
		}
		return valueDifference(joinPath(path, x.Variant.GetConstructor()), x.Variant.GetValue(), y.GetValue())
	case *damlpb.Value_Optional:
		y := b.GetOptional()
		if y == nil || x.Optional.GetValue() == nil || y.GetValue() == nil {
			break
		}
		return valueDifference(path, x.Optional.GetValue(), y.GetValue())
	case *damlpb.Value_List:
		y := b.GetList()
		if y == nil || len(x.List.GetElements()) != len(y.GetElements()) {
			break
		}
		for i, ea := range x.List.GetElements() {
			if !proto.Equal(ea, y.GetElements()[i]) {
				return valueDifference(path+"["+strconv.Itoa(i)+"]", ea, y.GetElements()[i])
			}
		}
	case *damlpb.Value_TextMap:
		y := b.GetTextMap()
		if y == nil || len(x.TextMap.GetEntries()) != len(y.GetEntries()) {
			break
		}
		for i, ea := range x.TextMap.GetEntries() {
			eb := y.GetEntries()[i]
			if ea.GetKey() == eb.GetKey() && !proto.Equal(ea.GetValue(), eb.GetValue()) {
				return valueDifference(path+"["+strconv.Quote(ea.GetKey())+"]", ea.GetValue(), eb.GetValue())
			}
		}
	case *damlpb.Value_GenMap:
		y := b.GetGenMap()
		if y == nil || len(x.GenMap.GetEntries()) != len(y.GetEntries()) {
			break
		}
		for i, ea := range x.GenMap.GetEntries() {
			eb := y.GetEntries()[i]
			if proto.Equal(ea.GetKey(), eb.GetKey()) && !proto.Equal(ea.GetValue(), eb.GetValue()) {
				return valueDifference(path+"["+ValueText(ea.GetKey())+"]", ea.GetValue(), eb.GetValue())
			}
		}
	}
	return path, ValueText(a), ValueText(b)
}

func joinPath(path, label string) string {
	if path == "" || strings.HasPrefix(label, "[") {
		return path + label
	}
	return path + "." + label
}

// maxText bounds the text of one value in a difference.
const maxText = 120

// ValueText renders a value briefly: scalars as they read, composite
// values up to maxText characters.
func ValueText(v *damlpb.Value) string {
	var b strings.Builder
	writeValue(&b, v, 0)
	return clip(b.String(), maxText)
}

func writeValue(b *strings.Builder, v *damlpb.Value, depth int) {
	if b.Len() > maxText || depth > 8 {
		b.WriteString("…")
		return
	}
	switch x := v.GetSum().(type) {
	case nil:
		b.WriteString("nothing")
	case *damlpb.Value_Unit:
		b.WriteString("()")
	case *damlpb.Value_Bool:
		b.WriteString(strconv.FormatBool(x.Bool))
	case *damlpb.Value_Int64:
		b.WriteString(strconv.FormatInt(x.Int64, 10))
	case *damlpb.Value_Date:
		b.WriteString(time.Unix(int64(x.Date)*86400, 0).UTC().Format("2006-01-02"))
	case *damlpb.Value_Timestamp:
		b.WriteString(timeText(time.UnixMicro(x.Timestamp)))
	case *damlpb.Value_Numeric:
		b.WriteString(x.Numeric)
	case *damlpb.Value_Party:
		b.WriteString(x.Party)
	case *damlpb.Value_Text:
		b.WriteString(strconv.Quote(x.Text))
	case *damlpb.Value_ContractId:
		b.WriteString(x.ContractId)
	case *damlpb.Value_Optional:
		if x.Optional.GetValue() == nil {
			b.WriteString("None")
			return
		}
		b.WriteString("Some ")
		writeValue(b, x.Optional.GetValue(), depth+1)
	case *damlpb.Value_List:
		b.WriteString("[")
		for i, e := range x.List.GetElements() {
			if i > 0 {
				b.WriteString(", ")
			}
			writeValue(b, e, depth+1)
		}
		b.WriteString("]")
	case *damlpb.Value_TextMap:
		b.WriteString("{")
		for i, e := range x.TextMap.GetEntries() {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(e.GetKey()) + ": ")
			writeValue(b, e.GetValue(), depth+1)
		}
		b.WriteString("}")
	case *damlpb.Value_GenMap:
		b.WriteString("{")
		for i, e := range x.GenMap.GetEntries() {
			if i > 0 {
				b.WriteString(", ")
			}
			writeValue(b, e.GetKey(), depth+1)
			b.WriteString(": ")
			writeValue(b, e.GetValue(), depth+1)
		}
		b.WriteString("}")
	case *damlpb.Value_Record:
		b.WriteString("{")
		for i, f := range x.Record.GetFields() {
			if i > 0 {
				b.WriteString(", ")
			}
			if f.GetLabel() != "" {
				b.WriteString(f.GetLabel() + " = ")
			}
			writeValue(b, f.GetValue(), depth+1)
		}
		b.WriteString("}")
	case *damlpb.Value_Variant:
		b.WriteString(x.Variant.GetConstructor() + " ")
		writeValue(b, x.Variant.GetValue(), depth+1)
	case *damlpb.Value_Enum:
		b.WriteString(x.Enum.GetConstructor())
	}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// Cut on a rune boundary.
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
