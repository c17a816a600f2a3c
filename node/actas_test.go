package node

import (
	"slices"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/proto/damlpb"
)

// actAsSeeds are prepared transactions whose act_as the engine's full
// decoding and preparedActAs must read alike: one metadata field, a
// second one that adds a party, and bytes that are no message.
func actAsSeeds(t testing.TB) [][]byte {
	pt := &damlpb.PreparedTransaction{
		Transaction: &damlpb.DamlTransaction{Version: "2.1", Roots: []string{"0"}},
		Metadata: &damlpb.Metadata{
			SubmitterInfo:  &damlpb.Metadata_SubmitterInfo{ActAs: []string{"alice::1220", "bob::1220"}, CommandId: "c"},
			SynchronizerId: "sync::1220",
		},
	}
	one, err := proto.MarshalOptions{Deterministic: true}.Marshal(pt)
	if err != nil {
		t.Fatal(err)
	}
	si := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), "victim::1220")
	md := protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), si)
	extra := protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), md)
	return [][]byte{one, append(slices.Clone(extra), one...), append(slices.Clone(one), extra...), []byte("garbage"), one[:len(one)-1]}
}

// checkActAs fails when the engine's decoding of b succeeds and reads
// other act_as parties than preparedActAs.
func checkActAs(t testing.TB, b []byte) {
	full := &damlpb.PreparedTransaction{}
	if proto.Unmarshal(b, full) != nil {
		return // the engine refuses the bytes itself
	}
	if want, got := full.GetMetadata().GetSubmitterInfo().GetActAs(), preparedActAs(b); !slices.Equal(got, want) {
		t.Fatalf("preparedActAs = %q, the engine reads %q", got, want)
	}
}

// preparedActAs reads the parties the engine acts for, including those of
// a metadata field given twice, which protobuf merges.
func TestPreparedActAs(t *testing.T) {
	seeds := actAsSeeds(t)
	for _, b := range seeds {
		checkActAs(t, b)
	}
	if got := preparedActAs(seeds[1]); !slices.Equal(got, []string{"victim::1220", "alice::1220", "bob::1220"}) {
		t.Fatalf("with a metadata field before the real one: %q", got)
	}
	if got := preparedActAs(seeds[3]); got != nil {
		t.Fatalf("garbage acts as %q", got)
	}
}

func FuzzPreparedActAs(f *testing.F) {
	for _, b := range actAsSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkActAs(t, b) })
}
