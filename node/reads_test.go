package node_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/archive/archivetest"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/node/local"
)

// readLedger is a small ledger for the read tests: Alice creates an Iou
// (offset 1) and a Note with Bob as observer (2), then archives the Iou (3).
type readLedger struct {
	n          *node.Node
	alice, bob string
	iou, note  string
	ids        []string // update ids by offset-1
}

func newReadLedger(t *testing.T) *readLedger {
	t.Helper()
	ctx := context.Background()
	l := &readLedger{n: open(t, local.Config{})}
	a, err := l.n.AllocateParty(ctx, "Alice", nil, "", "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := l.n.AllocateParty(ctx, "Bob", nil, "", "")
	if err != nil {
		t.Fatal(err)
	}
	l.alice, l.bob = a.ID, b.ID
	submit := func(cmds ledgerapi.Commands) *node.Receipt {
		t.Helper()
		r, err := l.n.Submit(ctx, cmds, "alice", "")
		if err != nil || r.Rejection != nil {
			t.Fatalf("submit %s: %v %v", cmds.CommandID, err, r)
		}
		l.ids = append(l.ids, r.UpdateID())
		return r
	}
	first := submit(createIou("c-1", l.alice))
	l.iou = first.Transaction(ledgerapi.TransactionShapeACSDelta, nil).Events[0].Created.ContractID
	user := "alice"
	note := submit(ledgerapi.Commands{CommandID: "c-2", ActAs: []string{l.alice}, UserID: &user,
		Commands: []ledgerapi.Command{{Create: &ledgerapi.CreateCommand{TemplateID: "#iou:Iou:Note",
			CreateArguments: []byte(`{"owner":"` + l.alice + `","reader":"` + l.bob + `"}`)}}}})
	l.note = note.Transaction(ledgerapi.TransactionShapeACSDelta, nil).Events[0].Created.ContractID
	submit(ledgerapi.Commands{CommandID: "c-3", ActAs: []string{l.alice}, UserID: &user,
		Commands: []ledgerapi.Command{{Exercise: &ledgerapi.ExerciseCommand{TemplateID: "#iou:Iou:Iou",
			ContractID: l.iou, Choice: "Archive", ChoiceArgument: []byte(`{}`)}}}})
	return l
}

func (l *readLedger) acs(t *testing.T, f *node.EventFilter, at int64) []node.ActiveContract {
	t.Helper()
	r, err := l.n.ReadActiveContracts(f, at, 0)
	if err != nil {
		t.Fatalf("active contracts at %d: %v", at, err)
	}
	var out []node.ActiveContract
	for {
		cs, err := r.Next(context.Background(), 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) == 0 {
			return out
		}
		out = append(out, cs...)
	}
}

func ids(cs []node.ActiveContract) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Event.ContractID)
	}
	return out
}

func TestActiveContractsAtOffsets(t *testing.T) {
	l := newReadLedger(t)
	all := l.n.LedgerEnd()
	for _, tc := range []struct {
		name   string
		filter *node.EventFilter
		at     int64
		want   []string
	}{
		{"alice at the end", node.WildcardFilter(l.alice), all, []string{l.note}},
		{"alice before the archive", node.WildcardFilter(l.alice), 2, []string{l.iou, l.note}},
		{"alice at 1", node.WildcardFilter(l.alice), 1, []string{l.iou}},
		{"at 0 the set is empty", node.WildcardFilter(l.alice), 0, nil},
		{"bob sees the note he observes", node.WildcardFilter(l.bob), 2, []string{l.note}},
		{"any party", &node.EventFilter{AnyParty: &node.TemplateSet{Wildcard: true}}, 2, []string{l.iou, l.note}},
		{"template by package name", &node.EventFilter{ByParty: map[string]*node.TemplateSet{
			l.alice: {Templates: map[string]bool{"#iou:Iou:Note": false}}}}, 2, []string{l.note}},
		{"another template", &node.EventFilter{ByParty: map[string]*node.TemplateSet{
			l.alice: {Templates: map[string]bool{"#iou:Iou:Other": false}}}}, 2, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ids(l.acs(t, tc.filter, tc.at))
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
	// The created event is the one the creating transaction carried.
	cs := l.acs(t, node.WildcardFilter(l.bob), 2)
	ev := cs[0].Event
	if int64(ev.Offset) != 2 || ev.NodeID != 0 || len(ev.WitnessParties) != 1 || ev.WitnessParties[0] != l.bob ||
		len(ev.Observers) != 1 || ev.Observers[0] != l.bob || !ev.ACSDelta || len(ev.CreatedEventBlob) != 0 {
		t.Errorf("created event %+v", ev)
	}
	if _, err := l.n.ReadActiveContracts(node.WildcardFilter(l.alice), all+1, 0); code(err) != "OFFSET_AFTER_LEDGER_END" {
		t.Errorf("after the end: %v", err)
	}
	blob := &node.EventFilter{ByParty: map[string]*node.TemplateSet{l.alice: {Wildcard: true, WildcardBlob: true}}}
	if cs := l.acs(t, blob, all); len(cs) != 1 || len(cs[0].Event.CreatedEventBlob) == 0 {
		t.Errorf("no blob: %+v", cs)
	}
}

func readAll(t *testing.T, r *node.UpdateReader) []node.Update {
	t.Helper()
	var out []node.Update
	for {
		us, _, done, err := r.Next(context.Background(), 2)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, us...)
		if done || len(us) == 0 {
			return out
		}
	}
}

func TestUpdatesShapesAndOrder(t *testing.T) {
	l := newReadLedger(t)
	delta := &node.UpdateFormat{Transactions: node.WildcardFilter(l.alice), Shape: ledgerapi.TransactionShapeACSDelta}
	r, err := l.n.ReadUpdates(delta, 0, 3, false)
	if err != nil {
		t.Fatal(err)
	}
	us := readAll(t, r)
	if len(us) != 3 || us[0].Offset != 1 || us[2].Offset != 3 {
		t.Fatalf("updates %+v", us)
	}
	arch := us[2].Transaction.Events
	if len(arch) != 1 || arch[0].Archived == nil || arch[0].Archived.ContractID != l.iou || us[2].Transaction.CommandID != "c-3" {
		t.Errorf("archive in ACS delta: %+v", us[2].Transaction)
	}
	effects := &node.UpdateFormat{Transactions: node.WildcardFilter(l.alice), Shape: ledgerapi.TransactionShapeLedgerEffects}
	r, _ = l.n.ReadUpdates(effects, 2, 3, true)
	us = readAll(t, r)
	if len(us) != 1 || us[0].Transaction.Events[0].Exercised == nil || us[0].Transaction.Events[0].Exercised.Choice != "Archive" {
		t.Errorf("ledger effects, descending from 3 to 2: %+v", us)
	}
	r, _ = l.n.ReadUpdates(delta, 0, 3, true)
	if us = readAll(t, r); len(us) != 3 || us[0].Offset != 3 || us[2].Offset != 1 {
		t.Errorf("descending: %+v", us)
	}
	// Bob sees only the note, without its command id.
	bob := &node.UpdateFormat{Transactions: node.WildcardFilter(l.bob), Shape: ledgerapi.TransactionShapeACSDelta}
	r, _ = l.n.ReadUpdates(bob, 0, 0, false)
	us = readAll(t, r)
	if len(us) != 1 || us[0].Offset != 2 || us[0].Transaction.CommandID != "" {
		t.Errorf("bob's updates %+v", us)
	}
	u, err := l.n.UpdateByID(context.Background(), l.ids[1], &node.UpdateFormat{Transactions: node.WildcardFilter(l.alice), Trees: true})
	if err != nil || u.Tree == nil || len(u.Tree.EventsByID) != 1 || int64(u.Tree.Offset) != 2 {
		t.Errorf("tree by id: %+v %v", u, err)
	}
	if _, err := l.n.UpdateByOffset(context.Background(), 1, bob); code(err) != "UPDATE_NOT_FOUND" {
		t.Errorf("bob's view of offset 1: %v", err)
	}
	if _, err := l.n.ReadUpdates(delta, 4, 0, false); code(err) != "OFFSET_AFTER_LEDGER_END" {
		t.Errorf("begin after the end: %v", err)
	}
}

func TestEventsByContractIDAndContractByID(t *testing.T) {
	l := newReadLedger(t)
	ctx := context.Background()
	ev, err := l.n.EventsByContractID(ctx, l.iou, node.WildcardFilter(l.alice))
	if err != nil || ev.Created == nil || ev.Archived == nil || int64(ev.Archived.Offset) != 3 || ev.Archived.NodeID != 0 {
		t.Fatalf("events of the iou: %+v %v", ev, err)
	}
	if _, err := l.n.EventsByContractID(ctx, l.iou, node.WildcardFilter(l.bob)); code(err) != "CONTRACT_EVENTS_NOT_FOUND" {
		t.Errorf("bob's view of the iou: %v", err)
	}
	c, err := l.n.ContractByID(ctx, l.note, []string{l.bob})
	if err != nil || c.ContractID != l.note || len(c.WitnessParties) != 1 || c.Offset != 1 || len(c.CreatedEventBlob) == 0 {
		t.Errorf("contract by id: %+v %v", c, err)
	}
}

func TestPruneKeepsActiveContracts(t *testing.T) {
	l := newReadLedger(t)
	ctx := context.Background()
	// Canton prunes only below the ledger end: one more transaction first.
	user := "alice"
	if r, err := l.n.Submit(ctx, ledgerapi.Commands{CommandID: "c-4", ActAs: []string{l.alice}, UserID: &user,
		Commands: []ledgerapi.Command{{Create: &ledgerapi.CreateCommand{TemplateID: "#iou:Iou:Note",
			CreateArguments: []byte(`{"owner":"` + l.alice + `","reader":"` + l.bob + `"}`)}}}}, "alice", ""); err != nil || r.Rejection != nil {
		t.Fatalf("submit c-4: %v %v", err, r)
	}
	if err := l.n.Prune(ctx, 4, nil); code(err) != "OFFSET_OUT_OF_RANGE" {
		t.Errorf("prune at the ledger end: %v", err)
	}
	var batches []ledger.PruneProgress
	if err := l.n.Prune(ctx, 3, func(p ledger.PruneProgress) { batches = append(batches, p) }); err != nil {
		t.Fatal(err)
	}
	if l.n.PrunedUpTo() != 3 || len(batches) == 0 || batches[len(batches)-1].Contracts != 1 {
		t.Errorf("pruned up to %d, batches %+v", l.n.PrunedUpTo(), batches)
	}
	if got := ids(l.acs(t, node.WildcardFilter(l.alice), 3)); len(got) != 1 || got[0] != l.note {
		t.Errorf("after pruning the active set is %v", got)
	}
	if _, err := l.n.ReadActiveContracts(node.WildcardFilter(l.alice), 2, 0); code(err) != "PARTICIPANT_PRUNED_DATA_ACCESSED" {
		t.Errorf("ACS below the pruning offset: %v", err)
	}
	delta := &node.UpdateFormat{Transactions: node.WildcardFilter(l.alice), Shape: ledgerapi.TransactionShapeACSDelta}
	if _, err := l.n.ReadUpdates(delta, 1, 0, false); code(err) != "PARTICIPANT_PRUNED_DATA_ACCESSED" {
		t.Errorf("updates from below: %v", err)
	}
	if _, err := l.n.ReadUpdates(delta, 3, 0, false); err != nil {
		t.Errorf("updates from the pruning offset: %v", err)
	}
	if _, err := l.n.UpdateByOffset(ctx, 2, delta); code(err) != "UPDATE_NOT_FOUND" {
		t.Errorf("update at a pruned offset: %v", err)
	}
	if _, err := l.n.FollowCompletions("alice", []string{l.alice}, 0); code(err) != "PARTICIPANT_PRUNED_DATA_ACCESSED" {
		t.Errorf("completions from 0: %v", err)
	}
	if _, err := l.n.EventsByContractID(ctx, l.iou, node.WildcardFilter(l.alice)); code(err) != "CONTRACT_EVENTS_NOT_FOUND" {
		t.Errorf("events of a pruned contract: %v", err)
	}
	ev, err := l.n.EventsByContractID(ctx, l.note, node.WildcardFilter(l.alice))
	if err != nil || ev.Created == nil || int64(ev.Created.Offset) != 2 {
		t.Errorf("events of an active contract created before the pruning offset: %+v %v", ev, err)
	} else if want := `{"owner":"` + l.alice + `","reader":"` + l.bob + `"}`; string(ev.Created.CreateArgument) != want {
		// Stored without argument_json, read from its created event.
		t.Errorf("argument of the note after pruning its transaction: %s, want %s", ev.Created.CreateArgument, want)
	}
	// A new commit after pruning continues the offsets.
	if r, err := l.n.Submit(ctx, createIou("c-5", l.alice), "alice", ""); err != nil || r.At.Offset != 5 {
		t.Errorf("commit after pruning: %+v %v", r, err)
	}
	if err := l.n.Prune(ctx, 9, nil); code(err) != "OFFSET_OUT_OF_RANGE" {
		t.Errorf("prune after the end: %v", err)
	}
}

func TestContractByIDNotVisible(t *testing.T) {
	l := newReadLedger(t)
	if _, err := l.n.ContractByID(context.Background(), l.iou, []string{l.bob}); code(err) != "CONTRACT_PAYLOAD_NOT_FOUND" {
		t.Errorf("bob's view of the iou: %v", err)
	}
}

// TestNonHexContractIDsNotFound: a contract id that is not lower-case hex
// names no contract (ids are compared as written); the reads answer for it
// as for any absent contract, the iou's own id in upper case too.
func TestNonHexContractIDsNotFound(t *testing.T) {
	l := newReadLedger(t)
	ctx := context.Background()
	for _, id := range []string{strings.ToUpper(l.iou), l.iou + "0", "not-a-contract-id", "#1:0"} {
		if _, err := l.n.ContractByID(ctx, id, []string{l.alice}); code(err) != "CONTRACT_PAYLOAD_NOT_FOUND" {
			t.Errorf("contract %q: %v", id, err)
		}
		if _, err := l.n.EventsByContractID(ctx, id, node.WildcardFilter(l.alice)); code(err) != "CONTRACT_EVENTS_NOT_FOUND" {
			t.Errorf("events of %q: %v", id, err)
		}
	}
	if _, err := l.n.ContractByID(ctx, l.iou, []string{l.alice}); err != nil {
		t.Errorf("the iou by its id: %v", err)
	}
}

func TestTopologyEventsOfPartyAllocations(t *testing.T) {
	ctx := context.Background()
	n := open(t, local.Config{Node: node.Config{TopologyEvents: true}})
	alice, err := n.AllocateParty(ctx, "Alice", nil, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.AllocateParty(ctx, "Bob", nil, "", ""); err != nil {
		t.Fatal(err)
	}
	r, err := n.Submit(ctx, createIou("c-1", alice.ID), "alice", "")
	if err != nil || r.Rejection != nil || r.At.Offset != 3 {
		t.Fatalf("the create after two allocations: %+v %v", r, err)
	}
	read := func(f *node.UpdateFormat, desc bool) []int64 {
		t.Helper()
		ur, err := n.ReadUpdates(f, 0, 3, desc)
		if err != nil {
			t.Fatal(err)
		}
		var offs []int64
		for {
			us, _, done, err := ur.Next(ctx, 1) // one at a time: the window is cut after each
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range us {
				if u.Topology != nil && (len(u.Topology.Events) != 1 || !strings.Contains(string(u.Topology.Events[0].Event), "ParticipantAuthorizationAdded")) {
					t.Errorf("topology update %+v", u.Topology)
				}
				offs = append(offs, u.Offset)
			}
			if done || len(us) == 0 {
				return offs
			}
		}
	}
	tx := node.WildcardFilter(alice.ID)
	for _, c := range []struct {
		name string
		f    *node.UpdateFormat
		desc bool
		want []int64
	}{
		{"every party's topology", &node.UpdateFormat{Transactions: tx, TopologyParties: map[string]bool{}}, false, []int64{1, 2, 3}},
		{"descending", &node.UpdateFormat{Transactions: tx, TopologyParties: map[string]bool{}}, true, []int64{3, 2, 1}},
		{"alice's topology", &node.UpdateFormat{Transactions: tx, TopologyParties: map[string]bool{alice.ID: true}}, false, []int64{1, 3}},
		{"no topology", &node.UpdateFormat{Transactions: tx}, false, []int64{3}},
		{"topology only", &node.UpdateFormat{TopologyParties: map[string]bool{}}, false, []int64{1, 2}},
	} {
		if got := read(c.f, c.desc); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: offsets %v, want %v", c.name, got, c.want)
		}
	}
	u, err := n.UpdateByOffset(ctx, 1, &node.UpdateFormat{TopologyParties: map[string]bool{}})
	if err != nil || u.Topology == nil || int64(u.Topology.Offset) != 1 {
		t.Errorf("update at offset 1: %+v %v", u, err)
	}
	if _, err := n.UpdateByOffset(ctx, 1, &node.UpdateFormat{Transactions: tx}); code(err) != "UPDATE_NOT_FOUND" {
		t.Errorf("offset 1 without topology: %v", err)
	}
	if u, err := n.UpdateByID(ctx, u.Topology.UpdateID, &node.UpdateFormat{TopologyParties: map[string]bool{alice.ID: true}}); err != nil || u.Offset != 1 {
		t.Errorf("topology update by id: %+v %v", u, err)
	}
	// Completions skip the topology offsets.
	f, err := n.FollowCompletions("alice", []string{alice.ID}, 0)
	if err != nil {
		t.Fatal(err)
	}
	cs, _, err := f.Next(ctx, 10)
	if err != nil || len(cs) != 1 || cs[0].Offset != 3 {
		t.Errorf("completions %+v %v", cs, err)
	}
	// Pruning removes them with the rest; the ledger end stays.
	if err := n.Prune(ctx, 2, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := n.UpdateByOffset(ctx, 1, &node.UpdateFormat{TopologyParties: map[string]bool{}}); code(err) != "UPDATE_NOT_FOUND" {
		t.Errorf("a pruned topology update: %v", err)
	}
	if n.LedgerEnd() != 3 {
		t.Errorf("ledger end %d after pruning", n.LedgerEnd())
	}
}

// TestActiveContractsEncodedAhead: a reader that prefers contracts encoded
// ahead gets, spliced, exactly the bytes of the created events it would
// get whole, also from a database where some contracts were stored without
// their encoding (before schema version 6) or with an older one.
func TestActiveContractsEncodedAhead(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "ledger.db")
	n := open(t, local.Config{DBPath: db})
	alice, err := n.AllocateParty(ctx, "Alice", nil, "", "")
	if err != nil {
		t.Fatal(err)
	}
	bob, err := n.AllocateParty(ctx, "Bob", nil, "", "")
	if err != nil {
		t.Fatal(err)
	}
	user, wf := "alice", "wf #1"
	for i := range 9 {
		cmd := createIou(fmt.Sprintf("c-%d", i), alice.ID)
		if i%2 == 1 {
			cmd = ledgerapi.Commands{CommandID: fmt.Sprintf("c-%d", i), ActAs: []string{alice.ID}, UserID: &user,
				WorkflowID: &wf, Commands: []ledgerapi.Command{{Create: &ledgerapi.CreateCommand{TemplateID: "#iou:Iou:Note",
					CreateArguments: []byte(`{"owner":"` + alice.ID + `","reader":"` + bob.ID + `"}`)}}}}
		}
		if r, err := n.Submit(ctx, cmd, "alice", ""); err != nil || r.Rejection != nil {
			t.Fatalf("submit %d: %v %v", i, err, r)
		}
	}
	end := n.LedgerEnd()
	// Contracts 2, 3 and 7 lose their encoding, 5 has one of another format.
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`UPDATE contracts SET created_json = NULL WHERE id IN (2, 3, 7)`,
		`UPDATE contracts SET created_json = X'30' || substr(created_json, 2) WHERE id = 5`} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()

	read := func(f *node.EventFilter, encoded bool, page int) (out []string, spliced int) {
		r, err := n.ReadActiveContracts(f, end, 0)
		if err != nil {
			t.Fatal(err)
		}
		if encoded {
			r.PreferEncoded()
		}
		for {
			cs, err := r.Next(ctx, page)
			if err != nil {
				t.Fatal(err)
			}
			if len(cs) == 0 {
				return out, spliced
			}
			for _, c := range cs {
				var b []byte
				if c.Encoded != nil {
					var ok bool
					if b, ok = ledgerapi.AppendActiveContractParts(nil, c.Offset, c.Encoded, c.Witnesses, "sync", "tok"); !ok {
						t.Fatalf("contract %d: malformed encoding", c.Seq)
					}
					spliced++
				} else if b, err = ledgerapi.AppendActiveContract(nil, c.WorkflowID, &c.Event, "sync", "tok"); err != nil {
					t.Fatal(err)
				}
				out = append(out, string(b))
			}
		}
	}
	for _, f := range []*node.EventFilter{
		node.WildcardFilter(alice.ID), node.WildcardFilter(bob.ID), node.WildcardFilter(alice.ID, bob.ID),
		{AnyParty: &node.TemplateSet{Wildcard: true}},
		{ByParty: map[string]*node.TemplateSet{alice.ID: {Templates: map[string]bool{"#iou:Iou:Note": false}}}},
	} {
		want, _ := read(f, false, 500)
		if len(want) == 0 {
			t.Fatalf("filter %+v reads nothing", f)
		}
		for _, page := range []int{1, 2, 3, 500} {
			got, spliced := read(f, true, page)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("filter %+v, page %d: spliced\n%s\nwant\n%s", f, page, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if spliced == 0 || spliced == len(got) {
				t.Errorf("filter %+v, page %d: %d of %d spliced, want some", f, page, spliced, len(got))
			}
		}
	}
	// A filter asking for blobs reads contracts whole.
	blob := &node.EventFilter{ByParty: map[string]*node.TemplateSet{alice.ID: {Wildcard: true, WildcardBlob: true}}}
	if _, spliced := read(blob, true, 500); spliced != 0 {
		t.Errorf("%d contracts spliced for a reader of blobs", spliced)
	}
}

// TestDescendingReadEndsAtOffsetZero: a descending read that walks down
// one update at a time past everything its party sees ends at offset 0; it
// once read offset 0 as "to the ledger end" and started over from the top.
func TestDescendingReadEndsAtOffsetZero(t *testing.T) {
	l := newReadLedger(t)
	bob := &node.UpdateFormat{Transactions: node.WildcardFilter(l.bob), Shape: ledgerapi.TransactionShapeACSDelta}
	r, err := l.n.ReadUpdates(bob, 0, 3, true)
	if err != nil {
		t.Fatal(err)
	}
	var offsets []int64
	for range 10 {
		us, _, done, err := r.Next(context.Background(), 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range us {
			offsets = append(offsets, u.Offset)
		}
		if done {
			break
		}
	}
	if len(offsets) != 1 || offsets[0] != 2 {
		t.Errorf("bob's updates, descending one at a time: offsets %v, want [2]", offsets)
	}
}

func ping(commandID, id, initiator, responder string) ledgerapi.Commands {
	user := "alice"
	raw, _ := json.Marshal(map[string]string{"id": id, "initiator": initiator, "responder": responder})
	return ledgerapi.Commands{CommandID: commandID, ActAs: []string{initiator}, UserID: &user,
		Commands: []ledgerapi.Command{{Create: &ledgerapi.CreateCommand{
			TemplateID: "#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping", CreateArguments: raw}}}}
}

// TestArgumentReadFromCreatedJSON: contracts committed without their JSON
// argument in the store (read from their created event encoded ahead: a
// Ping of the real DAR and the generic model's) answer every read byte for
// byte as when the store keeps it, as databases written before schema
// version 10 do.
func TestArgumentReadFromCreatedJSON(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "ledger.db")
	n := open(t, local.Config{DBPath: db})
	if _, err := n.UploadDar(ctx, archivetest.SharedDar(t, archivetest.PingDar), true); err != nil {
		t.Fatal(err)
	}
	alice, err := n.AllocateParty(ctx, "Alice", nil, "", "")
	if err != nil {
		t.Fatal(err)
	}
	bob, err := n.AllocateParty(ctx, "Bob", nil, "", "")
	if err != nil {
		t.Fatal(err)
	}
	user := "alice"
	var ids []string
	args := map[string][]byte{} // contract id → its argument as the transaction shows it
	for i, cmd := range []ledgerapi.Commands{
		createIou("c-iou", alice.ID),
		{CommandID: "c-note", ActAs: []string{alice.ID}, UserID: &user, Commands: []ledgerapi.Command{{Create: &ledgerapi.CreateCommand{
			TemplateID: "#iou:Iou:Note", CreateArguments: []byte(`{"owner":"` + alice.ID + `","reader":"` + bob.ID + `"}`)}}}},
		ping("c-ping", "ping 1", alice.ID, bob.ID),
		// encoding/json shows this argument escaped: the store keeps it.
		ping("c-ping-escaped", `ping <1> \"é\"`, alice.ID, bob.ID),
	} {
		r, err := n.Submit(ctx, cmd, "alice", "")
		if err != nil || r.Rejection != nil {
			t.Fatalf("submit %d: %v %v", i, err, r)
		}
		c := r.Transaction(ledgerapi.TransactionShapeACSDelta, nil).Events[0].Created
		ids, args[c.ContractID] = append(ids, c.ContractID), c.CreateArgument
	}
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var kept string
	if err := raw.QueryRow(`SELECT group_concat(argument_json) FROM contracts`).Scan(&kept); err != nil || !strings.HasPrefix(kept, `{"id":"ping <1>`) {
		t.Fatalf("contracts keep argument_json %s (%v), want only the escaped Ping's: the created event holds the others", kept, err)
	}

	end := n.LedgerEnd()
	both := node.WildcardFilter(alice.ID, bob.ID)
	blobs := &node.EventFilter{ByParty: map[string]*node.TemplateSet{alice.ID: {Wildcard: true, WildcardBlob: true}}}
	answers := func() string {
		var out []string
		add := func(v any, err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, string(b))
		}
		for _, id := range ids {
			add(n.EventsByContractID(ctx, id, both))
			add(n.ContractByID(ctx, id, []string{bob.ID, alice.ID}))
		}
		for _, f := range []*node.EventFilter{both, blobs} {
			for _, encoded := range []bool{false, true} {
				r, err := n.ReadActiveContracts(f, end, 0)
				if err != nil {
					t.Fatal(err)
				}
				if encoded {
					r.PreferEncoded()
				}
				cs, err := r.Next(ctx, 100)
				if err != nil || len(cs) != len(args) {
					t.Fatalf("active contracts: %d, %v; want %d", len(cs), err, len(args))
				}
				for _, c := range cs {
					if c.Encoded != nil {
						b, _ := ledgerapi.AppendActiveContractParts(nil, c.Offset, c.Encoded, c.Witnesses, "sync", "tok")
						out = append(out, string(b))
						continue
					}
					b, err := ledgerapi.AppendActiveContract(nil, c.WorkflowID, &c.Event, "sync", "tok")
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, string(b))
				}
			}
		}
		return strings.Join(out, "\n")
	}
	got := answers()
	for id, arg := range args {
		shown, _ := json.Marshal(json.RawMessage(arg))
		if !strings.Contains(got, string(shown)) {
			t.Errorf("the answers do not show %s's argument %s", id, arg)
		}
		if _, err := raw.Exec(`UPDATE contracts SET argument_json = ? WHERE contract_id = ?`, []byte(arg), id); err != nil {
			t.Fatal(err)
		}
	}
	if want := answers(); got != want {
		t.Errorf("answers with the argument read from the created event:\n%s\nwith it stored:\n%s", got, want)
	}
}
