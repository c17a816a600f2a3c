package node_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/node/local"
)

// The node's tests run against the real store, without HTTP: every call
// takes a context and plain values, as the HTTP layer makes them.

func open(t *testing.T, cfg local.Config) *node.Node {
	t.Helper()
	if cfg.DBPath == "" {
		cfg.DBPath = filepath.Join(t.TempDir(), "ledger.db")
	}
	n, err := local.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := n.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return n
}

// code is the Canton error id of err ("" when it has none).
func code(err error) string {
	var e *ledgerapi.JsCantonError
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func createIou(commandID, owner string) ledgerapi.Commands {
	user := "alice"
	return ledgerapi.Commands{CommandID: commandID, ActAs: []string{owner}, UserID: &user,
		Commands: []ledgerapi.Command{{Create: &ledgerapi.CreateCommand{TemplateID: "#iou:Iou:Iou",
			CreateArguments: []byte(`{"owner":"` + owner + `","amount":"1.0"}`)}}}}
}

func TestSubmitCommitsAndDeduplicates(t *testing.T) {
	ctx := context.Background()
	n := open(t, local.Config{})
	alice, err := n.AllocateParty(ctx, "Alice", nil, "", "")
	if err != nil {
		t.Fatal(err)
	}
	const trace = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	first, err := n.Submit(ctx, createIou("c-1", alice.ID), "alice", trace)
	if err != nil || first.Rejection != nil {
		t.Fatalf("submit: %v, %v", err, first)
	}
	if first.At.Offset != 1 || n.LedgerEnd() != 1 || !strings.HasPrefix(first.UpdateID(), "1220") {
		t.Errorf("committed at %+v, ledger end %d, update %q", first.At, n.LedgerEnd(), first.UpdateID())
	}
	tree := first.Tree()
	if tree.UpdateID != first.UpdateID() || int64(tree.Offset) != 1 || tree.TraceContext == nil || *tree.TraceContext.Traceparent != trace {
		t.Errorf("tree %+v", tree)
	}
	tx := first.Transaction(ledgerapi.TransactionShapeACSDelta, first.ActAs())
	if len(tx.Events) != 1 || tx.PaidTrafficCost <= 0 {
		t.Errorf("transaction %+v", tx)
	}

	// The same change again, inside the default window: a rejected
	// completion naming the first acceptance.
	again, err := n.Submit(ctx, createIou("c-1", alice.ID), "alice", "")
	if err != nil {
		t.Fatal(err)
	}
	if again.Rejection == nil || again.Rejection.Code != ledgerapi.CodeDuplicateCommand.ID || again.At.Offset != 2 {
		t.Fatalf("resubmission: %+v", again)
	}
	if off := again.Rejection.Context["completion_offset"]; off != "1" {
		t.Errorf("completion_offset %q, want 1", off)
	}

	fw, err := n.FollowCompletions("alice", []string{alice.ID}, 0)
	if err != nil {
		t.Fatal(err)
	}
	cs, _, err := fw.Next(ctx, 10)
	if err != nil || len(cs) != 2 {
		t.Fatalf("completions %+v, %v", cs, err)
	}
	ok := fw.Completion(&cs[0])
	if !ok.Succeeded() || ok.UpdateID != first.UpdateID() || ok.SynchronizerTime.SynchronizerID != n.Identity().SynchronizerID ||
		ok.TraceContext == nil || ok.DeduplicationPeriod.Offset == nil || *ok.DeduplicationPeriod.Offset != 0 {
		t.Errorf("first completion %+v (want deduplication offset 0: no earlier acceptance)", ok)
	}
	// A duplicate reports the period up to just before the acceptance it
	// collides with (offset 1), as Canton does.
	if dup := fw.Completion(&cs[1]); dup.Succeeded() || ledgerapi.ErrorFromStatus(dup.Status).Code != ledgerapi.CodeDuplicateCommand.ID ||
		dup.DeduplicationPeriod.Offset == nil || *dup.DeduplicationPeriod.Offset != 0 {
		t.Errorf("second completion %+v", dup)
	}
	if more, changed, err := fw.Next(ctx, 10); err != nil || len(more) != 0 || changed == nil {
		t.Errorf("after the end: %v, %v", more, err)
	}
}

func TestFollowCompletionsChecksTheBegin(t *testing.T) {
	n := open(t, local.Config{})
	if _, err := n.FollowCompletions("alice", []string{"A::1220aa"}, -1); code(err) != ledgerapi.CodeNegativeOffset.ID {
		t.Errorf("negative begin: %v", err)
	}
	if _, err := n.FollowCompletions("alice", []string{"A::1220aa"}, 1); code(err) != ledgerapi.CodeOffsetAfterLedgerEnd.ID {
		t.Errorf("begin after the ledger end: %v", err)
	}
	if _, err := n.FollowCompletions("alice", []string{"A::1220aa"}, 0); err != nil {
		t.Errorf("begin at the ledger end: %v", err)
	}
}

func TestStreamsAreCountedAndStopped(t *testing.T) {
	n := open(t, local.Config{Node: node.Config{MaxStreams: 1}})
	release, err := n.AcquireStream("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.AcquireStream(""); code(err) != ledgerapi.CodeMaximumNumberOfStreams.ID {
		t.Errorf("second stream: %v", err)
	}
	release()
	release, err = n.AcquireStream("")
	if err != nil {
		t.Fatalf("after a release: %v", err)
	}
	stopped := make(chan struct{})
	go func() { n.StopStreams(); close(stopped) }()
	select {
	case <-n.Stopping():
	case <-time.After(5 * time.Second):
		t.Fatal("Stopping not closed")
	}
	select {
	case <-stopped:
		t.Fatal("StopStreams returned before the open stream ended")
	case <-time.After(20 * time.Millisecond):
	}
	release()
	<-stopped
	if _, err := n.AcquireStream(""); code(err) != ledgerapi.CodeServiceNotRunning.ID {
		t.Errorf("stream after stop: %v", err)
	}
}

// TestStoreErrorsBecomeCantonErrors: the node answers what the store
// refuses with Canton's error ids.
func TestStoreErrorsBecomeCantonErrors(t *testing.T) {
	ctx := context.Background()
	n := open(t, local.Config{})
	if _, err := n.User(ctx, "nobody"); code(err) != ledgerapi.CodeUserNotFound.ID {
		t.Errorf("unknown user: %v", err)
	}
	if _, _, err := n.UserAndRights(ctx, "nobody"); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("unknown user for authentication: %v", err)
	}
	if _, err := n.CreateUser(ctx, ledger.User{ID: ledger.AdminUserID}, nil); code(err) != ledgerapi.CodeUserAlreadyExists.ID {
		t.Errorf("existing user: %v", err)
	}
	if err := n.DeleteUser(ctx, "nobody"); code(err) != ledgerapi.CodeUserNotFound.ID {
		t.Errorf("delete unknown user: %v", err)
	}
	if _, err := n.AllocateParty(ctx, "Bob", nil, "", "nobody"); code(err) != ledgerapi.CodeUserNotFound.ID {
		t.Errorf("allocate for an unknown user: %v", err)
	}
	bob, err := n.AllocateParty(ctx, "Bob", nil, "", "")
	if err != nil || bob.ID != "Bob::"+n.Identity().NamespaceFingerprint {
		t.Fatalf("allocate: %+v, %v", bob, err)
	}
	if _, err := n.AllocateParty(ctx, "Bob", nil, "", ""); code(err) != ledgerapi.CodeInvalidArgument.ID {
		t.Errorf("allocate twice: %v", err)
	}
	stale := int64(7)
	if _, err := n.UpdatePartyAnnotations(ctx, bob.ID, &stale, map[string]string{"k": "v"}); code(err) != ledgerapi.CodeConcurrentPartyDetailsUpdate.ID {
		t.Errorf("stale resource version: %v", err)
	}
	if _, err := n.Party(ctx, "Ghost::1220aa"); code(err) != ledgerapi.CodePartyNotFound.ID {
		t.Errorf("unknown party: %v", err)
	}
	if perm, hosted, err := n.HostingPermission(ctx, bob.ID); err != nil || !hosted || perm != ledgerapi.ParticipantPermissionSubmission {
		t.Errorf("hosting of a local party: %v %v %v", perm, hosted, err)
	}
	if _, hosted, err := n.HostingPermission(ctx, "Ghost::1220aa"); err != nil || hosted {
		t.Errorf("hosting of an unknown party: %v %v", hosted, err)
	}
}

// TestOpenKeepsTheIdentity: a node created once keeps its identity and
// maximum deduplication duration across opens, and refuses other names.
func TestOpenKeepsTheIdentity(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ledger.db")
	ctx := context.Background()
	n, err := local.Open(ctx, local.Config{DBPath: db, Node: node.Config{ParticipantID: "p1", MaxDeduplication: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	id := n.Identity()
	if !n.Created() || !strings.HasPrefix(id.ParticipantID, "p1::1220") || id.MaxDeduplication != time.Hour || n.Database() != db ||
		!n.IsParticipant(id.ParticipantID) || !n.IsParticipant("PAR::"+id.ParticipantID) || n.IsParticipant("p2::1220aa") {
		t.Errorf("new node: created %v, identity %+v, database %q", n.Created(), id, n.Database())
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	n, err = local.Open(ctx, local.Config{DBPath: db})
	if err != nil {
		t.Fatal(err)
	}
	if n.Created() || n.Identity().ParticipantID != id.ParticipantID || n.Identity().MaxDeduplication != time.Hour {
		t.Errorf("reopened: created %v, identity %+v", n.Created(), n.Identity())
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := local.Open(ctx, local.Config{DBPath: db, Node: node.Config{ParticipantID: "p2"}}); err == nil ||
		!strings.Contains(err.Error(), `created as participant "p1"`) {
		t.Errorf("open as another participant: %v", err)
	}
}
