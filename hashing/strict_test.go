package hashing

import (
	"bytes"
	"encoding/base64"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/proto/damlpb"
)

// loadVector decodes a derived vector's prepared transaction.
func loadVector(t testing.TB, name string) (*damlpb.PreparedTransaction, Scheme) {
	t.Helper()
	v := readProtoVector(t.(*testing.T), filepath.Join(vectorDir, "derived", name))
	raw, err := base64.StdEncoding.DecodeString(v.PreparedTransactionB64)
	if err != nil {
		t.Fatal(err)
	}
	var pt damlpb.PreparedTransaction
	if err := proto.Unmarshal(raw, &pt); err != nil {
		t.Fatal(err)
	}
	s, _ := ParseScheme(v.Scheme)
	return &pt, s
}

func firstCreate(pt *damlpb.PreparedTransaction) (string, *damlpb.Create) {
	for _, n := range pt.Transaction.Nodes {
		if c := n.GetV1().GetCreate(); c != nil {
			return n.NodeId, c
		}
	}
	return "", nil
}

func firstExercise(pt *damlpb.PreparedTransaction) (string, *damlpb.Exercise) {
	for _, n := range pt.Transaction.Nodes {
		if x := n.GetV1().GetExercise(); x != nil {
			return n.NodeId, x
		}
	}
	return "", nil
}

func dropSeed(pt *damlpb.PreparedTransaction, id string) {
	seeds := pt.Transaction.NodeSeeds[:0]
	for _, s := range pt.Transaction.NodeSeeds {
		if nodeIDText(s.NodeId) != id {
			seeds = append(seeds, s)
		}
	}
	pt.Transaction.NodeSeeds = seeds
}

// TestStrictRejects checks that each input the participant would reject or
// hash differently is refused with an error naming the node and field.
func TestStrictRejects(t *testing.T) {
	cases := []struct {
		name   string
		vector string
		scheme Scheme // 0 = the vector's
		mutate func(pt *damlpb.PreparedTransaction) (wantNode string)
		want   string // substring of the error
	}{
		{"unset value", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			id, c := firstCreate(pt)
			c.Argument = &damlpb.Value{}
			return id
		}, "create.argument: Value has no variant set"},
		{"missing create argument", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			id, c := firstCreate(pt)
			c.Argument = nil
			return id
		}, "argument is missing"},
		{"non-hex contract id", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			id, c := firstCreate(pt)
			c.ContractId = "00zz"
			return id
		}, "create.contract_id: contract id \"00zz\" is not lower-case hex"},
		{"odd-length contract id", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			id, c := firstCreate(pt)
			c.ContractId = "00a"
			return id
		}, "odd number of hex digits"},
		{"upper-case contract id", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			id, c := firstCreate(pt)
			c.ContractId = strings.ToUpper(c.ContractId)
			return id
		}, "not lower-case hex"},
		{"contract id value", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			id, x := firstExercise(pt)
			x.ChosenValue = vCid("xyz0")
			return id
		}, "exercise.chosen_value.contract_id"},
		{"numeric exponent", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			id, x := firstExercise(pt)
			x.ChosenValue = vRecord(nil, "amount", vNum("1e5"))
			return id
		}, "chosen_value.record.fields[0].value.numeric: numeric \"1e5\" is not canonical"},
		{"numeric leading zero", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			id, x := firstExercise(pt)
			x.ChosenValue = vNum("01.5")
			return id
		}, "not canonical"},
		{"numeric without point", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			id, x := firstExercise(pt)
			x.ChosenValue = vNum("15")
			return id
		}, "not canonical"},
		{"numeric plus sign", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			id, x := firstExercise(pt)
			x.ChosenValue = vNum("+1.5")
			return id
		}, "not canonical"},
		{"numeric negative zero", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			id, x := firstExercise(pt)
			x.ChosenValue = vNum("-0.00")
			return id
		}, "negative zero"},
		{"numeric scale 38", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			id, x := firstExercise(pt)
			x.ChosenValue = vNum("0." + strings.Repeat("1", 38))
			return id
		}, "scale 38"},
		{"numeric precision 39", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			id, x := firstExercise(pt)
			x.ChosenValue = vNum(strings.Repeat("9", 29) + "." + strings.Repeat("9", 10))
			return id
		}, "precision"},
		{"missing create seed", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			id, _ := firstCreate(pt)
			dropSeed(pt, id)
			return id
		}, "create node has no seed"},
		{"missing exercise seed", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			id, _ := firstExercise(pt)
			dropSeed(pt, id)
			return id
		}, "exercise node has no seed"},
		{"short seed", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			s := pt.Transaction.NodeSeeds[0]
			s.Seed = s.Seed[:31]
			return nodeIDText(s.NodeId)
		}, "seed has 31 bytes"},
		{"dangling root", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			pt.Transaction.Roots = append(pt.Transaction.Roots, "999")
			return "999"
		}, "referenced but not in transaction.nodes"},
		{"dangling child", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			_, x := firstExercise(pt)
			x.Children = append(x.Children, "777")
			return "777"
		}, "referenced but not in transaction.nodes"},
		{"non-canonical node id", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			pt.Transaction.Roots[0] = "0" + pt.Transaction.Roots[0]
			return ""
		}, "not a canonical non-negative decimal"},
		{"orphan node", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			_, c := firstCreate(pt)
			pt.Transaction.Nodes = append(pt.Transaction.Nodes, &damlpb.DamlTransaction_Node{NodeId: "555",
				VersionedNode: &damlpb.DamlTransaction_Node_V1{V1: &damlpb.Node{NodeType: &damlpb.Node_Create{Create: c}}}})
			return "555"
		}, "not reachable from any root"},
		{"cycle", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			id, x := firstExercise(pt)
			x.Children = append(x.Children, id)
			return id
		}, "cycle"},
		{"duplicate node id", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			pt.Transaction.Nodes = append(pt.Transaction.Nodes, pt.Transaction.Nodes[0])
			return pt.Transaction.Nodes[0].NodeId
		}, "used by more than one node"},
		{"lf 2 under V2", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			id, c := firstCreate(pt)
			c.LfVersion = "2"
			return id
		}, "cannot hash a node with lf_version \"2\" using hashing scheme v2"},
		{"unknown lf version", "rich_v3.json", 0, func(pt *damlpb.PreparedTransaction) string {
			id, c := firstCreate(pt)
			c.LfVersion = "dev"
			return id
		}, "lf_version \"dev\" is not a Daml-LF serialization version"},
		{"key on a 2.1 node", "rich_v3.json", 0, func(pt *damlpb.PreparedTransaction) string {
			for _, n := range pt.Transaction.Nodes {
				if c := n.GetV1().GetCreate(); c != nil && c.LfVersion == "2.1" {
					c.Key = &damlpb.GlobalKeyWithMaintainers{}
					return n.NodeId
				}
			}
			t.Fatal("no 2.1 create in rich_v3")
			return ""
		}, "cannot carry a contract key"},
		{"query by key under V2", "rich_v3.json", V2, func(pt *damlpb.PreparedTransaction) string {
			for _, n := range pt.Transaction.Nodes {
				if v1 := n.GetV1(); v1 != nil {
					if c := v1.GetCreate(); c != nil {
						c.LfVersion, c.Key = "2.1", nil
					}
					if x := v1.GetExercise(); x != nil {
						x.LfVersion, x.Key, x.ByKey = "2.1", nil, false
					}
					if f := v1.GetFetch(); f != nil {
						f.LfVersion, f.Key, f.ByKey = "2.1", nil, false
					}
				}
			}
			pt.Transaction.Version = "2.1"
			for _, n := range pt.Transaction.Nodes {
				if n.GetV1().GetQueryByKey() != nil {
					return n.NodeId
				}
			}
			return ""
		}, "query-by-key nodes exist only in hashing scheme V3"},
		{"external call results", "rich_v3.json", 0, func(pt *damlpb.PreparedTransaction) string {
			id, x := firstExercise(pt)
			x.ExternalCallResults = []*damlpb.ExternalCallResult{{ExtensionId: "x"}}
			return id
		}, "only hashed by the development scheme V4"},
		{"unsorted signatories", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			id, c := firstCreate(pt)
			c.Signatories = []string{"zed::1220", "alice::1220"}
			return id
		}, "create.signatories: \"alice::1220\" comes after \"zed::1220\""},
		{"duplicate stakeholder", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			id, c := firstCreate(pt)
			c.Stakeholders = []string{"alice::1220", "alice::1220"}
			return id
		}, "listed twice"},
		{"unsorted act_as", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			pt.Metadata.SubmitterInfo.ActAs = []string{"b::1", "a::1"}
			return ""
		}, "metadata.submitter_info.act_as"},
		{"empty act_as", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			pt.Metadata.SubmitterInfo.ActAs = nil
			return ""
		}, "act_as is empty"},
		{"unsorted text map", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			id, x := firstExercise(pt)
			x.ChosenValue = &damlpb.Value{Sum: &damlpb.Value_TextMap{TextMap: &damlpb.TextMap{Entries: []*damlpb.TextMap_Entry{
				{Key: "b", Value: vInt(1)}, {Key: "a", Value: vInt(2)}}}}}
			return id
		}, "text_map.entries[1]: key \"a\" is not after \"b\""},
		{"unsorted input contracts", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			ic := pt.Metadata.InputContracts
			ic[0], ic[1] = ic[1], ic[0]
			return ""
		}, "metadata.input_contracts[1]"},
		{"upper-case uuid", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			pt.Metadata.TransactionUuid = strings.ToUpper(pt.Metadata.TransactionUuid)
			return ""
		}, "metadata.transaction_uuid"},
		{"no synchronizer", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			pt.Metadata.SynchronizerId = ""
			return ""
		}, "synchronizer_id is empty"},
		{"no metadata", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			pt.Metadata = nil
			return ""
		}, "no metadata"},
		{"empty module name", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			id, c := firstCreate(pt)
			c.TemplateId.ModuleName = "A..B"
			return id
		}, "create.template_id.module_name: name \"A..B\" has an empty segment"},
		{"variant without value", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			id, x := firstExercise(pt)
			x.ChosenValue = &damlpb.Value{Sum: &damlpb.Value_Variant{Variant: &damlpb.Variant{Constructor: "Some"}}}
			return id
		}, "variant \"Some\" has no value"},
		{"value nesting", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			id, x := firstExercise(pt)
			v := vInt(1)
			for i := 0; i < MaxValueNesting+1; i++ {
				v = vList(v)
			}
			x.ChosenValue = v
			return id
		}, "nesting exceeds"},
		{"invalid UTF-8 text", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			id, x := firstExercise(pt)
			x.ChosenValue = vRecord(nil, "memo", vText("ok"))
			return id
		}, "chosen_value.record.fields[0].value.text: string \"\\xff\\xfe\" is not valid UTF-8"},
		{"input contract key under V2", "rich_v2.json", 0, func(pt *damlpb.PreparedTransaction) string {
			pt.Metadata.InputContracts[0].GetV1().LfVersion = "2"
			return ""
		}, "metadata.input_contracts[0].v1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pt, scheme := loadVector(t, tc.vector)
			if tc.scheme != 0 {
				scheme = tc.scheme
			}
			node := tc.mutate(pt)
			b, err := proto.Marshal(pt)
			if err != nil {
				t.Fatal(err)
			}
			// protobuf-go refuses to write invalid UTF-8, so the test writes
			// "ok" and turns it into ff fe afterwards, keeping its length.
			b = bytes.Replace(b, []byte("\x02ok"), []byte("\x02\xff\xfe"), 1)
			_, err = Sum(b, scheme)
			if err == nil {
				t.Fatalf("accepted; want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
			var he *Error
			if !errors.As(err, &he) {
				t.Fatalf("error %T is not a *hashing.Error", err)
			}
			if node != "" && he.Node != node {
				t.Errorf("error names node %q, want %q (%v)", he.Node, node, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

// TestMalformedBytes covers wire-level damage: every truncation of a real
// transaction, doubled fields, wrong wire types, unsupported schemes.
func TestMalformedBytes(t *testing.T) {
	pt, scheme := loadVector(t, "rich_v2.json")
	good, _ := proto.Marshal(pt)
	for cut := 0; cut < len(good); cut += 1 + cut/64 {
		if _, err := Sum(good[:cut], scheme); err == nil {
			t.Fatalf("truncated to %d of %d bytes: accepted", cut, len(good))
		}
	}
	// A second transaction field must not be merged silently.
	doubled := protowire.AppendTag(append([]byte(nil), good...), 1, protowire.BytesType)
	doubled = protowire.AppendBytes(doubled, nil)
	if _, err := Sum(doubled, scheme); err == nil || !strings.Contains(err.Error(), "appears more than once") {
		t.Errorf("doubled transaction field: %v", err)
	}
	// transaction as a varint.
	wrongType := protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 5)
	if _, err := Sum(wrongType, scheme); err == nil || !errors.Is(err, ErrMalformed) {
		t.Errorf("wrong wire type: %v", err)
	}
	for _, s := range []Scheme{0, 1, 4, 99} {
		if _, err := Sum(good, s); err == nil || !strings.Contains(err.Error(), "not supported") {
			t.Errorf("scheme %d: %v", s, err)
		}
	}
	if _, err := Sum(nil, V2); err == nil {
		t.Error("empty input accepted")
	}
}

// TestIgnoredMessagesMustParse checks that embedded messages which are not
// hashed must still be valid protobuf, as the participant decodes them.
func TestIgnoredMessagesMustParse(t *testing.T) {
	pt, scheme := loadVector(t, "rich_v2.json")
	good, _ := proto.Marshal(pt)
	// Metadata (field 2) gets a global_key_mapping entry (field 8) with a truncated varint.
	badEntry := protowire.AppendBytes(protowire.AppendTag(nil, 8, protowire.BytesType), []byte{0x08, 0x80})
	var meta []byte
	r := reader{good}
	var out []byte
	for {
		f, ok, err := r.next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if f.Num == 2 {
			meta = append(append([]byte(nil), f.Bytes...), badEntry...)
			out = protowire.AppendBytes(protowire.AppendTag(out, 2, protowire.BytesType), meta)
			continue
		}
		out = protowire.AppendBytes(protowire.AppendTag(out, f.Num, protowire.BytesType), f.Bytes)
	}
	if _, err := Sum(out, scheme); err == nil || !strings.Contains(err.Error(), "global_key_mapping") {
		t.Errorf("malformed global_key_mapping: %v", err)
	}
	// A unit value whose Empty message is garbage.
	unit := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), []byte{0x30})
	if _, err := encodeValue(unit); err == nil {
		t.Error("malformed unit accepted")
	}
}
