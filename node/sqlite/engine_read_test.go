package sqlite

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/node/ledger"
)

// TestContractLeavesEventJSON: the engine's read of a contract (Contract)
// carries everything ContractByID does but the JSON only events show,
// which it leaves out rather than copy on every input a command reads.
func TestContractLeavesEventJSON(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	e := withContracts(accepted("u", "create", "A"), []string{"00aa"})
	c := &e.Transaction.Created[0]
	c.ArgumentJSON = []byte(`{"owner":"A"}`)
	c.CreatedJSON = []byte(`{"createdEvent":{}}`)
	c.KeyHash, c.Key, c.KeyJSON = []byte{1, 2}, []byte("key"), []byte(`"k"`)
	c.Salt = make([]byte, 32)
	c.Salt[0] = 7
	if _, err := s.Commit(ctx, e); err != nil {
		t.Fatal(err)
	}
	full, err := s.ContractByID(ctx, "00aa")
	if err != nil {
		t.Fatal(err)
	}
	if full.ArgumentJSON == nil || full.CreatedJSON == nil || full.KeyJSON == nil {
		t.Fatalf("ContractByID left out event JSON: %+v", full)
	}
	got, err := s.Contract(ctx, "00aa")
	if err != nil {
		t.Fatal(err)
	}
	if got.ArgumentJSON != nil || got.CreatedJSON != nil || got.KeyJSON != nil {
		t.Errorf("Contract read event JSON: argument %q created %q key %q", got.ArgumentJSON, got.CreatedJSON, got.KeyJSON)
	}
	full.ArgumentJSON, full.CreatedJSON, full.KeyJSON = nil, nil, nil
	if !reflect.DeepEqual(got, full) {
		t.Errorf("Contract = %+v\nwant ContractByID's %+v", got, full)
	}
}

// BenchmarkContractRead reads one contract shaped like a token holding
// (a 138-character id, about 1 KiB of argument JSON, 2 KiB of created
// event) as the engine does (Contract) and as events do (ContractByID).
func BenchmarkContractRead(b *testing.B) {
	ctx := context.Background()
	s, _ := openTemp(b)
	id := "00" + strings.Repeat("ab", 32) + "ca12" + "1220" + strings.Repeat("cd", 32)
	e := withContracts(accepted("u", "create", "A"), []string{id})
	c := &e.Transaction.Created[0]
	c.Argument = bytes.Repeat([]byte{1}, 600)
	c.ArgumentJSON = bytes.Repeat([]byte("x"), 1024)
	c.CreatedJSON = bytes.Repeat([]byte("y"), 2048)
	c.Salt = make([]byte, 32)
	if _, err := s.Commit(ctx, e); err != nil {
		b.Fatal(err)
	}
	for _, r := range []struct {
		name string
		read func(context.Context, string) (ledger.Contract, error)
	}{{"engine", s.Contract}, {"events", s.ContractByID}} {
		b.Run(r.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.read(ctx, id); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
