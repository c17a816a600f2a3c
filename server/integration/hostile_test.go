package integration

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/daml/archive/archivetest"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/server/auth"
)

// Hostile DARs against a started node (issue "One Daml command must not
// take the node down", items 2 and 3). The DARs are made in the test from
// the real Ping DAR (archivetest).

// TestDoublingTypeOnNode: a Ping whose choice Respond takes a type that
// doubles forty times (GenMap t t, 82 interned types) uploads; a prepare and
// a submit exercising Respond answer at once — with the empty map it
// takes, with a short error for a wrong argument — and the node keeps
// serving; a second version of the package, whose record Doubling has a
// field of that type to compare, uploads at once, beside another upload.
func TestDoublingTypeOnNode(t *testing.T) {
	n := startCommandNode(t, auth.ModeNone, node.Config{})
	ping := archivetest.SharedDar(t, archivetest.PingDar)
	v1 := archivetest.Doubling(t, ping, 40, "3.5.0")
	n.ok("POST", "/v2/dars", "", v1, nil)
	tmpl := archivetest.MainPackageID(t, v1) + ":Canton.Internal.Ping:Ping"
	initiator := n.allocate("Initiator").Party
	responder := n.allocate("Responder").Party
	create := map[string]any{"CreateCommand": map[string]any{"templateId": tmpl,
		"createArguments": map[string]any{"id": "p1", "initiator": initiator, "responder": responder}}}
	cid := onlyCreated(t, n.tree("double-create", []string{initiator}, create))
	respond := func(arg any) map[string]any {
		return map[string]any{"ExerciseCommand": map[string]any{"templateId": tmpl, "contractId": cid, "choice": "Respond", "choiceArgument": arg}}
	}

	start := time.Now()
	r := n.call("POST", "/v2/interactive-submission/prepare", "", prepareBodyUser("double-prepare", responder, respond(map[string]any{"field": []any{}})))
	if r.status != http.StatusOK {
		t.Fatalf("prepare: %d %.300s", r.status, r.body)
	}
	bad := n.fail("POST", "/v2/commands/submit-and-wait-for-transaction-tree", "",
		commands("double-bad", []string{responder}, []map[string]any{respond(map[string]any{"field": map[string]any{"x": 1}})}, map[string]any{"userId": damlUser}),
		http.StatusBadRequest, "INVALID_ARGUMENT")
	if len(bad.Cause) > 4<<10 {
		t.Errorf("the error's cause is %d bytes", len(bad.Cause))
	}
	tree := n.tree("double-submit", []string{responder}, respond(map[string]any{"field": []any{}}))
	if len(tree.EventsByID) != 1 {
		t.Errorf("Respond: %d events", len(tree.EventsByID))
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("prepare, a refused and an accepted submit took %v", el)
	}
	n.ok("GET", "/v2/packages", "", nil, nil)

	// The second version beside another upload: both at once.
	v2 := archivetest.Doubling(t, ping, 40, "3.6.0")
	other := archivetest.SharedDar(t, "splice-util-0.1.4.dar")
	start = time.Now()
	var wg sync.WaitGroup
	for _, dar := range [][]byte{v2, other} {
		wg.Go(func() { n.ok("POST", "/v2/dars", "", dar, nil) })
	}
	wg.Wait()
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("uploading the second version and another DAR took %v", el)
	}
}

// TestHostileUploads: a zero bomb is ZIP_BOMB, a manifest over 1 MiB and
// a DAR over the total are DAR_PARSE_ERROR naming the limit, a manifest
// naming one dalf 100,000 times uploads at once, and twelve zero bombs at
// once are all answered (two served at a time, the others queued).
func TestHostileUploads(t *testing.T) {
	n := startCommandNode(t, auth.ModeNone, node.Config{})
	ping := archivetest.SharedDar(t, archivetest.PingDar)
	n.ok("POST", "/v2/dars", "", ping, nil) // Ping's dependencies, for the manifest cases

	bomb := archivetest.ZeroBomb(t, ping, 256<<20)
	e := n.fail("POST", "/v2/dars", "", bomb, http.StatusBadRequest, "ZIP_BOMB")
	if e.Context["limit"] != "MaxCompressionRatio" {
		t.Errorf("ZIP_BOMB's context %v", e.Context)
	}
	e = n.fail("POST", "/v2/dars", "", archivetest.RepeatedManifest(t, ping, 200_000), http.StatusBadRequest, "DAR_PARSE_ERROR")
	if e.Context["limit"] != "MaxManifestSize" {
		t.Errorf("DAR_PARSE_ERROR's context %v", e.Context)
	}
	start := time.Now()
	n.ok("POST", "/v2/dars", "", archivetest.RepeatedManifest(t, ping, 100_000), nil)
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("the manifest naming one dalf 100,000 times took %v", el)
	}

	var wg sync.WaitGroup
	codes := make([]string, 12)
	for i := range codes {
		wg.Go(func() {
			r := n.call("POST", "/v2/dars", "", bomb)
			if e, err := ledgerapi.DecodeError(r.body); err == nil {
				codes[i] = e.Code
			} else {
				codes[i] = fmt.Sprint(r.status)
			}
		})
	}
	wg.Wait()
	for i, c := range codes {
		if c != "ZIP_BOMB" {
			t.Errorf("upload %d: %s", i, c)
		}
	}
}

// TestUploadsQueued: with MaxConcurrentUploads uploads whose bodies have
// not all arrived, one more upload waits (its body unread) rather than
// being refused, and runs once one of them finishes; a client that gives
// up waiting leaves the queue.
func TestUploadsQueued(t *testing.T) {
	n := startCommandNode(t, auth.ModeNone, node.Config{})
	ping := archivetest.SharedDar(t, archivetest.PingDar)
	var (
		writers []*io.PipeWriter
		wg      sync.WaitGroup
		status  = make([]int, 2)
	)
	for i := range 2 {
		pr, pw := io.Pipe()
		writers = append(writers, pw)
		req, err := http.NewRequest("POST", n.url+"/v2/dars", pr)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/octet-stream")
		wg.Go(func() {
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				if i == 0 { // the second's body is cut short on purpose
					t.Errorf("slow upload %d: %v", i, err)
				}
				return
			}
			resp.Body.Close()
			status[i] = resp.StatusCode
		})
		if _, err := pw.Write(ping[:1000]); err != nil { // the client has begun sending
			t.Fatal(err)
		}
	}
	// Both slots are taken (a written first chunk says only that the client
	// sent it): a third upload waits until its client gives up.
	for deadline := time.Now().Add(30 * time.Second); n.run.Server.UploadsRunning() < 2; {
		if time.Now().After(deadline) {
			t.Fatalf("%d uploads hold a slot after 30 s, want 2", n.run.Server.UploadsRunning())
		}
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", n.url+"/v2/dars", bytes.NewReader(ping))
	req.Header.Set("Content-Type", "application/octet-stream")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("a third upload was answered %d while two held the slots", resp.StatusCode)
	}
	// One slow upload finishes: the next upload runs.
	if _, err := writers[0].Write(ping[1000:]); err != nil {
		t.Fatal(err)
	}
	writers[0].Close()
	n.ok("POST", "/v2/dars", "", ping, nil)
	writers[1].CloseWithError(io.ErrUnexpectedEOF)
	wg.Wait()
	if status[0] != http.StatusOK {
		t.Errorf("the first slow upload: %d", status[0])
	}
}
