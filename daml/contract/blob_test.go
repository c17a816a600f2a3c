package contract

import (
	"bytes"
	"runtime"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/ledger-cli/ledger/daml/value"
)

// field appends a length-delimited field.
func field(b []byte, num protowire.Number, v []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), v)
}

func varintField(b []byte, num protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), v)
}

// blobParts builds a blob from a payload made of the given extra fields
// after a valid contract id, package name and template id.
func blobParts(version string, arg []byte, rest ...[]byte) []byte {
	cid := append([]byte{0}, bytes.Repeat([]byte{7}, 32)...)
	var p []byte
	p = field(p, fContractID, cid)
	p = field(p, fPackageName, []byte("pkg-name"))
	var id []byte
	id = field(id, 1, []byte("pkgid"))
	id = field(id, 2, []byte("Mod"))
	id = field(id, 3, []byte("T"))
	p = field(p, fTemplateID, id)
	p = field(p, fCreateArg, arg)
	for _, r := range rest {
		p = append(p, r...)
	}
	var out []byte
	out = field(out, fVersionedVersion, []byte(version))
	return field(out, fVersionedPayload, p)
}

func sigs(ps ...string) []byte {
	var b []byte
	for _, p := range ps {
		b = field(b, fNonMaintainerSigs, []byte(p))
	}
	return b
}

func observers(ps ...string) []byte {
	var b []byte
	for _, p := range ps {
		b = field(b, fNonSigStakeholders, []byte(p))
	}
	return b
}

func unitValue() []byte { return field(nil, fUnit, nil) }

func recordOf(fields ...[]byte) []byte {
	var r []byte
	for _, f := range fields {
		r = field(r, 1, field(nil, 1, f))
	}
	return field(nil, fRecord, r)
}

func nestedLists(n int) []byte {
	v := unitValue()
	for i := 0; i < n; i++ {
		v = field(nil, fList, field(nil, 1, v))
	}
	return v
}

// keyOf is a contract_key_with_maintainers field: key (), the maintainers,
// a 32-byte hash.
func keyOf(maintainers ...string) []byte {
	k := field(nil, 1, unitValue())
	for _, m := range maintainers {
		k = field(k, 2, []byte(m))
	}
	k = field(k, 3, make([]byte, 32))
	return field(nil, fKeyWithMaintainers, k)
}

// TestDecodeBlobRefuses feeds hostile blobs, each named by why it must be
// refused, and checks the error says so. Canton's TransactionCoderSpec
// (community/daml-lf/transaction-tests/src/test/scala/com/digitalasset/daml/lf/transaction/TransactionCoderSpec.scala)
// has no byte vectors, only properties; its refusals of a FatContractInstance
// (unknown fields, trailing data, key without maintainers, no signatory,
// non-maintainer signatories or non-signatory stakeholders holding a
// maintainer, unsorted or repeated parties) are among these cases.
func TestDecodeBlobRefuses(t *testing.T) {
	good := blobParts("2.1", recordOf(unitValue()), sigs("alice"))
	if _, err := DecodeBlob(good); err != nil {
		t.Fatalf("the valid base blob: %v", err)
	}
	ts := func(us int64) []byte {
		return protowire.AppendFixed64(protowire.AppendTag(nil, fCreatedAt, protowire.Fixed64Type), uint64(us))
	}
	for _, tc := range []struct {
		name string
		blob []byte
		want string
	}{
		{"fail_unknown_versioned_field", append(bytes.Clone(good), varintField(nil, 3, 1)...), "Versioned: unknown field 3"},
		{"fail_unknown_payload_field", blobParts("2.1", recordOf(unitValue()), sigs("alice"), varintField(nil, 10, 1)), "FatContractInstance: unknown field 10"},
		{"fail_unknown_value_field", blobParts("2.1", varintField(recordOf(unitValue()), 17, 1), sigs("alice")), "unknown field 17"},
		{"fail_wrong_wire_type", blobParts("2.1", varintField(nil, fText, 1), sigs("alice")), "unknown field 8 (wire type 0)"},
		{"fail_version", blobParts("2.2", recordOf(unitValue()), sigs("alice")), `unsupported serialization version "2.2"`},
		{"fail_no_signatory", blobParts("2.1", recordOf(unitValue())), "maintainers or non_maintainer_signatories should be non empty"},
		{"fail_unsorted_signatories", blobParts("2.1", recordOf(unitValue()), sigs("bob", "alice")), "not strictly sorted"},
		{"fail_duplicate_signatory", blobParts("2.1", recordOf(unitValue()), sigs("alice", "alice")), "not strictly sorted"},
		{"fail_signatory_and_observer", blobParts("2.1", recordOf(unitValue()), sigs("alice"), observers("alice")), "declared as signatory and nonSignatoryStakeholder"},
		{"fail_bad_party", blobParts("2.1", recordOf(unitValue()), sigs("al/ice")), "invalid party"},
		{"fail_created_at_range", blobParts("2.1", recordOf(unitValue()), sigs("alice"), ts(int64(value.MaxTimestamp)+1)), "out of bound Timestamp"},
		{"fail_nesting_101", blobParts("2.1", nestedLists(101), sigs("alice")), "exceeds maximum nesting level of 100"},
		{"fail_text_nul", blobParts("2.1", field(nil, fText, []byte("a\x00b")), sigs("alice")), "null character"},
		{"fail_text_utf8", blobParts("2.1", field(nil, fText, []byte{0xff}), sigs("alice")), "not valid UTF-8"},
		{"fail_value_not_set", blobParts("2.1", recordOf(nil), sigs("alice")), "Value not set"},
		{"fail_two_sum_members", blobParts("2.1", append(unitValue(), varintField(nil, fBool, 1)...), sigs("alice")), "more than one member"},
		{"fail_bool_2", blobParts("2.1", varintField(nil, fBool, 2), sigs("alice")), "neither 0 nor 1"},
		{"fail_duplicate_field", append(bytes.Clone(good[:0]), field(field(nil, 1, []byte("2.1")), 1, []byte("2.1"))...), "given twice"},
		{"fail_text_map_duplicate_key", blobParts("2.1", field(nil, fTextMap, append(
			field(nil, 1, append(field(nil, 1, []byte("k")), field(nil, 2, unitValue())...)),
			field(nil, 1, append(field(nil, 1, []byte("k")), field(nil, 2, unitValue())...))...)), sigs("alice")), "duplicate key"},
		{"fail_bad_numeric", blobParts("2.1", field(nil, fNumeric, []byte("1e5")), sigs("alice")), "error decoding numeric"},
		{"fail_bad_contract_id", blobParts("2.1", field(nil, fContractIDV, []byte{2, 3}), sigs("alice")), "error decoding contractId"},
		{"fail_bad_constructor", blobParts("2.1", field(nil, fEnum, field(nil, 1, []byte("1x"))), sigs("alice")), "invalid name"},
		{"fail_date_range", blobParts("2.1", varintField(nil, fDate, uint64(int64(value.MaxDate)+1)), sigs("alice")), "error decoding date"},
		{"fail_key_in_v1", blobParts("2.1", recordOf(unitValue()), sigs("alice"), field(nil, fKeyWithMaintainers, nil)), "needs serialization version 2"},
		{"fail_key_without_maintainers", blobParts("2", recordOf(unitValue()), sigs("alice"), field(nil, fKeyWithMaintainers, append(field(nil, 1, unitValue()), field(nil, 3, make([]byte, 32))...))), "key without maintainers"},
		{"fail_trailing_data", append(bytes.Clone(good), 0), "malformed protobuf"},
		{"fail_maintainer_also_non_maintainer_signatory", blobParts("2", recordOf(unitValue()), sigs("alice", "m"), keyOf("m")), "declared as maintainer and nonMaintainerSignatory"},
		{"fail_maintainer_also_observer", blobParts("2", recordOf(unitValue()), sigs("alice"), observers("m"), keyOf("m")), "declared as signatory and nonSignatoryStakeholder"},
		{"fail_truncated", good[:len(good)-3], "malformed protobuf"},
		{"fail_empty", nil, "unsupported serialization version"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeBlob(tc.blob)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
		})
	}
	if c, err := DecodeBlob(blobParts("2", recordOf(unitValue()), keyOf("m"))); err != nil || c.Signatories[0] != "m" {
		t.Errorf("a contract signed by its key's maintainer only: %v", err)
	}
	if _, err := DecodeBlob(blobParts("2.1", nestedLists(100), sigs("alice"))); err != nil {
		t.Errorf("a value nested 100 levels below its top: %v", err)
	}
}

// TestBlobRoundTrip encodes a contract holding every kind of value and a
// key, and reads it back.
func TestBlobRoundTrip(t *testing.T) {
	tm, _ := value.NewTextMap([]value.TextMapEntry{{Key: "a", Value: value.Int64(-5)}, {Key: "", Value: value.Unit{}}})
	arg := &value.Record{Fields: []value.Field{
		{Value: value.Unit{}}, {Value: value.Bool(false)}, {Value: value.Int64(-1)}, {Value: value.Date(-3)},
		{Value: value.Timestamp(-1)}, {Value: value.Party("p")}, {Value: value.Text("")},
		{Value: value.ContractID("00" + strings.Repeat("ab", 32) + "ca12" + "1220" + strings.Repeat("cd", 32))},
		{Value: value.None}, {Value: value.Some(value.None)}, {Value: value.NewList()}, {Value: tm},
		{Value: value.GenMapInOrder([]value.GenMapEntry{{Key: &value.Enum{Constructor: "B"}, Value: value.Text("x")}, {Key: &value.Enum{Constructor: "A"}, Value: value.Text("y")}})},
		{Value: &value.Variant{Constructor: "V", Value: &value.Record{}}},
	}}
	arg.Fields = append(arg.Fields, value.Field{Value: num(t, "-0.0000000001")})
	c := &Contract{Version: SerializationV2, ID: value.ContractID("00" + strings.Repeat("11", 32)), PackageName: "p-n",
		TemplateID: value.Identifier{PackageID: "pkg", ModuleName: "A.B", EntityName: "C.D"}, Argument: arg,
		Signatories: []string{"m", "s"}, Stakeholders: []string{"m", "o", "s"}, CreatedAt: 0,
		Key:                &Key{Value: value.Text("k"), Maintainers: []string{"m"}, Hash: [32]byte{1}},
		AuthenticationData: AuthenticationDataV1(Salt{2})}
	b, err := EncodeBlob(c)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeBlob(b)
	if err != nil {
		t.Fatal(err)
	}
	again, err := EncodeBlob(back)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, again) {
		t.Errorf("round trip changed the blob")
	}
	if eq, err := value.Equal(Normalize(back.Argument), Normalize(arg)); !eq || err != nil {
		t.Errorf("argument %s, want %s (%v)", back.Argument, arg, err)
	}
	if back.Key == nil || back.Key.Maintainers[0] != "m" || back.Key.Hash != c.Key.Hash || back.CreatedAt != 0 {
		t.Errorf("key or time lost: %+v", back)
	}
	g := back.Argument.(*value.Record).Fields[12].Value.(*value.GenMap)
	if g.Entries()[0].Key.(*value.Enum).Constructor != "B" {
		t.Errorf("generic map order not kept: %s", g)
	}
}

// TestDecodeMemoryBound decodes blobs made to cost the most memory per
// byte — a record of ~170k unit fields, a list of ~260k units, a text map of
// ~65k entries, each about 1 MiB — and checks that decoding allocates at most
// 8 bytes per input byte: slices are sized once by counting the fields
// (before, a record of units allocated 28 bytes per byte in growing
// slices).
func TestDecodeMemoryBound(t *testing.T) {
	const size = 1 << 20
	shapes := map[string]func() []byte{
		"record": func() []byte {
			f := field(nil, 1, field(nil, 1, unitValue()))
			return field(nil, fRecord, bytes.Repeat(f, size/len(f)))
		},
		"list": func() []byte {
			f := field(nil, 1, unitValue())
			return field(nil, fList, bytes.Repeat(f, size/len(f)))
		},
		"textmap": func() []byte {
			var r []byte
			for i := 0; len(r) < size; i++ {
				k := []byte{byte('a' + i%26), byte('a' + i/26%26), byte('a' + i/676%26), byte('a' + i/17576%26)}
				r = field(r, 1, append(field(nil, 1, k), field(nil, 2, unitValue())...))
			}
			return field(nil, fTextMap, r)
		},
	}
	for name, shape := range shapes {
		blob := blobParts("2.1", shape(), sigs("alice"))
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if _, err := DecodeBlob(blob); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		runtime.ReadMemStats(&after)
		if per := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(blob)); per > 8 {
			t.Errorf("%s: %.1f bytes allocated per input byte", name, per)
		}
	}
}

// TestNilValuesRefused checks that a contract built by a caller with a
// missing value is refused, not a panic, by every function that walks it.
func TestNilValuesRefused(t *testing.T) {
	_, env := pingTypes(t)
	c := pingContract(t, "nil", 9)
	c.Argument = &value.Record{Fields: []value.Field{{Label: "id", Value: nil}}}
	if _, err := EncodeBlob(c); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("encode: %v", err)
	}
	for _, m := range []Method{Legacy, UpgradeFriendly} {
		if _, err := HashUntyped(m, c.PackageName, c.TemplateID, c.Argument); err == nil {
			t.Errorf("%s hash of a nil field", m)
		}
	}
	if _, err := HashTyped(c.PackageName, "M", "T", value.NewList(nil)); err == nil {
		t.Error("typed hash of a nil element")
	}
	if _, err := ContractHash(c, TypedNormalForm, env, ""); err == nil || !strings.Contains(err.Error(), "got none") {
		t.Errorf("translation of a nil field: %v", err)
	}
	if _, err := NewSuffixer(V11, nil).Suffix(c, Salt{}); err == nil {
		t.Error("suffixing a contract with a nil field")
	}
}

// TestEncodeBlobRefuses checks that EncodeBlob refuses contracts whose blob
// could not be read back: no signatory, a maintainer who does not sign.
func TestEncodeBlobRefuses(t *testing.T) {
	c := pingContract(t, "enc", 4)
	c.Signatories = nil
	if _, err := EncodeBlob(c); err == nil || !strings.Contains(err.Error(), "no signatory") {
		t.Errorf("no signatory: %v", err)
	}
	c = pingContract(t, "enc", 4)
	c.Version = SerializationV2
	c.Key = &Key{Value: value.Unit{}, Maintainers: []string{"bob::1220"}}
	if _, err := EncodeBlob(c); err == nil || !strings.Contains(err.Error(), "not a signatory") {
		t.Errorf("maintainer not signing: %v", err)
	}
}
