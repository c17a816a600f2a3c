package cmdutil

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// TestPartyHintsHostileNode: a node that ignores filter-party and pages
// without end is read for a bounded number of pages, and the hint is
// refused saying why; a full party id asks the node nothing.
func TestPartyHintsHostileNode(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := requests.Add(1)
		var page ledgerapi.ListPartiesResponse
		for i := range hintPageSize {
			page.PartyDetails = append(page.PartyDetails, ledgerapi.PartyDetails{Party: fmt.Sprintf("p%d-%d::1220ab", n, i), IsLocal: true})
		}
		page.NextPageToken = fmt.Sprintf("t%d", n)
		_ = json.NewEncoder(w).Encode(page)
	}))
	defer srv.Close()
	cl, err := client.New(client.Config{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	var note bytes.Buffer
	start := time.Now()
	_, err = ResolvePartyHints(context.Background(), cl, "--act-as", []string{"alice"}, &note)
	if err == nil || ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "among the first 5000 parties the node lists") {
		t.Errorf("err %v (exit %d)", err, ExitCode(err))
	}
	if got := requests.Load(); got != maxHintPages {
		t.Errorf("%d requests, want %d", got, maxHintPages)
	}
	t.Logf("refused after %d pages in %v", requests.Load(), time.Since(start))

	requests.Store(0)
	got, err := ResolvePartyHints(context.Background(), cl, "--act-as", []string{"alice::1220ab", "bob::1220cd"}, &note)
	if err != nil || requests.Load() != 0 || len(got) != 2 || got[0] != "alice::1220ab" || note.Len() != 0 {
		t.Errorf("full ids: %v %v, %d requests, note %q", got, err, requests.Load(), note.String())
	}
}
