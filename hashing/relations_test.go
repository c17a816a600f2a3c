package hashing

import (
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/proto/damlpb"
)

func sumOf(t *testing.T, pt *damlpb.PreparedTransaction, s Scheme) [32]byte {
	t.Helper()
	b, err := proto.Marshal(pt)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Sum(b, s)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// TestRelations pins what must and must not change the hash.
func TestRelations(t *testing.T) {
	type relation struct {
		name   string
		vector string
		scheme Scheme
		mutate func(pt *damlpb.PreparedTransaction)
		same   bool
	}
	rels := []relation{
		// Not hashed: must not change the hash.
		{"nodes listed in another order", "rich_v2.json", V2, func(pt *damlpb.PreparedTransaction) {
			n := pt.Transaction.Nodes
			for i, j := 0, len(n)-1; i < j; i, j = i+1, j-1 {
				n[i], n[j] = n[j], n[i]
			}
		}, true},
		{"node seeds in another order", "rich_v2.json", V2, func(pt *damlpb.PreparedTransaction) {
			s := pt.Transaction.NodeSeeds
			s[0], s[len(s)-1] = s[len(s)-1], s[0]
		}, true},
		{"event blob changed", "rich_v2.json", V2, func(pt *damlpb.PreparedTransaction) {
			pt.Metadata.InputContracts[0].EventBlob = []byte("something else")
		}, true},
		{"global key mapping added", "rich_v3.json", V3, func(pt *damlpb.PreparedTransaction) {
			pt.Metadata.GlobalKeyMapping = append(pt.Metadata.GlobalKeyMapping, &damlpb.Metadata_GlobalKeyMappingEntry{Value: vInt(3)})
		}, true},
		{"max record time under V2", "rich_v2.json", V2, func(pt *damlpb.PreparedTransaction) {
			v := pt.Metadata.GetMaxRecordTime() + 1_000_000
			pt.Metadata.MaxRecordTime = &v
		}, true},
		{"seed of a fetch node", "scala_v2_equivalent.json", V2, func(pt *damlpb.PreparedTransaction) {
			pt.Transaction.NodeSeeds = append(pt.Transaction.NodeSeeds, &damlpb.DamlTransaction_NodeSeed{NodeId: 2, Seed: make([]byte, 32)})
		}, true},
		{"unknown field", "rich_v2.json", V2, func(pt *damlpb.PreparedTransaction) {
			var unknown []byte
			unknown = protowire.AppendTag(unknown, 99, protowire.BytesType)
			unknown = protowire.AppendBytes(unknown, []byte("future"))
			pt.Metadata.ProtoReflect().SetUnknown(unknown)
		}, true},

		// Hashed: must change the hash.
		{"max record time under V3", "rich_v3.json", V3, func(pt *damlpb.PreparedTransaction) {
			v := pt.Metadata.GetMaxRecordTime() + 1
			pt.Metadata.MaxRecordTime = &v
		}, false},
		{"max record time removed under V3", "rich_v3.json", V3, func(pt *damlpb.PreparedTransaction) {
			pt.Metadata.MaxRecordTime = nil
		}, false},
		{"preparation time", "rich_v2.json", V2, func(pt *damlpb.PreparedTransaction) { pt.Metadata.PreparationTime++ }, false},
		{"mediator group", "rich_v2.json", V2, func(pt *damlpb.PreparedTransaction) { pt.Metadata.MediatorGroup++ }, false},
		{"created at of an input contract", "rich_v2.json", V2, func(pt *damlpb.PreparedTransaction) {
			pt.Metadata.InputContracts[0].CreatedAt++
		}, false},
		{"command id", "rich_v2.json", V2, func(pt *damlpb.PreparedTransaction) { pt.Metadata.SubmitterInfo.CommandId += "x" }, false},
		{"min ledger time set", "rich_v2.json", V2, func(pt *damlpb.PreparedTransaction) {
			v := uint64(0)
			pt.Metadata.MinLedgerEffectiveTime = &v
		}, false},
		{"roots order", "scala_v2_equivalent.json", V2, func(pt *damlpb.PreparedTransaction) {
			r := pt.Transaction.Roots
			r[0], r[1] = r[1], r[0]
		}, false},
		{"empty optional vs absent interface", "rich_v2.json", V2, func(pt *damlpb.PreparedTransaction) {
			for _, n := range pt.Transaction.Nodes {
				if x := n.GetV1().GetExercise(); x != nil && x.InterfaceId == nil {
					x.InterfaceId = &damlpb.Identifier{PackageId: "p", ModuleName: "M", EntityName: "E"}
					return
				}
			}
			t.Fatal("no exercise without interface")
		}, false},
		{"int64 beyond 2^53 by one", "rich_v2.json", V2, func(pt *damlpb.PreparedTransaction) {
			_, x := firstExercise(pt)
			x.ChosenValue = vInt(1<<53 + 1)
		}, false},
	}
	for _, r := range rels {
		t.Run(r.name, func(t *testing.T) {
			base, _ := loadVector(t, r.vector)
			before := sumOf(t, base, r.scheme)
			mutated, _ := loadVector(t, r.vector)
			r.mutate(mutated)
			after := sumOf(t, mutated, r.scheme)
			if (before == after) != r.same {
				t.Fatalf("same hash = %v, want %v", before == after, r.same)
			}
		})
	}
}

// TestV2DiffersFromV3 checks that a key-free transaction hashes differently
// under the two schemes (the node prefix, metadata prefix and scheme byte
// all differ), and that int64 values beyond 2^53 keep their exact value.
func TestV2DiffersFromV3(t *testing.T) {
	pt, _ := loadVector(t, "rich_v2.json")
	if sumOf(t, pt, V2) == sumOf(t, pt, V3) {
		t.Fatal("V2 and V3 agree on a key-free transaction")
	}
	a, b := 1<<53+1, 1<<53
	_, x := firstExercise(pt)
	x.ChosenValue = vInt(int64(a))
	ha := sumOf(t, pt, V2)
	x.ChosenValue = vInt(int64(b))
	if ha == sumOf(t, pt, V2) {
		t.Fatal("2^53 and 2^53+1 hash the same: precision lost")
	}
}

// TestRecordIDAfterFields checks that a record whose record_id is written
// after its fields (legal protobuf, though no encoder does it) encodes as the
// canonical order does.
func TestRecordIDAfterFields(t *testing.T) {
	canonical, _ := proto.Marshal(vRecord(defRef("M", "R"), "a", vInt(1), "b", vText("x")))
	// Value{record(14): Record{...}}: move field 1 of the Record to the end.
	var rec []byte
	r := reader{canonical}
	f, _, _ := r.next()
	rec = f.Bytes
	var id, rest []byte
	rr := reader{rec}
	for {
		g, ok, _ := rr.next()
		if !ok {
			break
		}
		one := protowire.AppendBytes(protowire.AppendTag(nil, g.Num, protowire.BytesType), g.Bytes)
		if g.Num == 1 {
			id = one
		} else {
			rest = append(rest, one...)
		}
	}
	reordered := protowire.AppendBytes(protowire.AppendTag(nil, 14, protowire.BytesType), append(rest, id...))
	want, err := encodeValue(canonical)
	if err != nil {
		t.Fatal(err)
	}
	got, err := encodeValue(reordered)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("reordered record encodes as %x, want %x", got, want)
	}
	// And with tracing: the trace holds the same bytes.
	e := &encoder{trace: &Trace{}}
	if err := e.value(reordered, 0); err != nil || string(e.trace.Preimage()) != string(want) {
		t.Fatalf("traced: %v, %x", err, e.trace.Preimage())
	}
}
