package ledgerapi

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// topologyFormat is an UpdateFormat asking for participant authorization
// events of parties (none: every party).
func topologyFormat(parties ...string) map[string]any {
	if parties == nil {
		parties = []string{}
	}
	return map[string]any{"includeTopologyEvents": map[string]any{
		"includeParticipantAuthorizationEvents": map[string]any{"parties": parties}}}
}

// authorizationOf is the test tool's participantAuthorizationTransaction:
// the first topology transaction after begin (up to end when > 0) whose
// ParticipantAuthorizationAdded names a party containing substring.
func (p *participant) authorizationOf(t *testing.T, substring string, begin, end int64) ledgerapi.JsTopologyTransaction {
	t.Helper()
	if end == 0 {
		end = p.ledgerEnd(t)
	}
	var els []struct {
		Update ledgerapi.JsUpdate `json:"update"`
	}
	p.ok(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", map[string]any{"beginExclusive": begin, "endInclusive": end,
		"updateFormat": topologyFormat()}, &els)
	for _, el := range els {
		if tt := el.Update.TopologyTransaction; tt != nil && strings.Contains(addedParty(t, *tt), substring) {
			return *tt
		}
	}
	t.Fatal("at least one transaction should have been found")
	return ledgerapi.JsTopologyTransaction{}
}

// addedParty is the party of a topology transaction's first
// ParticipantAuthorizationAdded event ("" when it has none).
func addedParty(t *testing.T, tt ledgerapi.JsTopologyTransaction) string {
	t.Helper()
	if len(tt.Events) == 0 {
		return ""
	}
	var ev map[string]struct {
		Value struct {
			PartyID string `json:"partyId"`
		} `json:"value"`
	}
	if err := json.Unmarshal(tt.Events[0].Event, &ev); err != nil {
		t.Fatalf("topology event %s: %v", tt.Events[0].Event, err)
	}
	return ev["ParticipantAuthorizationAdded"].Value.PartyID
}

// UpdateServiceQueryIT.scala's Topology cases, on a node recording
// topology events (`ledger serve`'s default).
func TestUpdateServiceQueryITTopology(t *testing.T) {
	p := startParticipant(t, node.Config{TopologyEvents: true})
	notFound := failure{code: "UPDATE_NOT_FOUND", cause: "Update not found, or not visible."}
	byOffset := func(off int64, parties ...string) map[string]any {
		return map[string]any{"offset": off, "updateFormat": topologyFormat(parties...)}
	}
	byID := func(id string, parties ...string) map[string]any {
		return map[string]any{"updateId": id, "updateFormat": topologyFormat(parties...)}
	}
	read := func(t *testing.T, path string, body map[string]any) string {
		t.Helper()
		var resp struct {
			Update json.RawMessage `json:"update"`
		}
		p.ok(t, "POST", path, body, &resp)
		return string(resp.Update)
	}
	sameByOffsetAndID := func(t *testing.T, name string, wildcard bool) {
		begin := p.ledgerEnd(t)
		party := p.allocate(t, name)
		tt := p.authorizationOf(t, name, begin, 0)
		var parties []string
		if !wildcard {
			parties = []string{party}
		}
		a := read(t, "/v2/updates/update-by-offset", byOffset(int64(tt.Offset), parties...))
		b := read(t, "/v2/updates/update-by-id", byID(tt.UpdateID, parties...))
		if a != b || !strings.Contains(a, "TopologyTransaction") {
			t.Errorf("The topology transactions fetched by identifier and by offset do not match\nby offset: %s\nby id:     %s", a, b)
		}
	}
	t.Run("TopologyTXByOffsetBasic", func(t *testing.T) { sameByOffsetAndID(t, "TopologyTXByOffsetBasic", false) })
	t.Run("TopologyTXPartyWildcard", func(t *testing.T) { sameByOffsetAndID(t, "TopologyTXPartyWildcard", true) })
	t.Run("TopologyTXInvisibleByIdOtherParty", func(t *testing.T) {
		intruder := p.allocate(t, "intruder")
		begin := p.ledgerEnd(t)
		p.allocate(t, "TopologyTXInvisibleByIdOtherParty")
		tt := p.authorizationOf(t, "TopologyTXInvisibleByIdOtherParty", begin, 0)
		p.mustFail(t, "POST", "/v2/updates/update-by-id", byID(tt.UpdateID, intruder), notFound)
	})
	t.Run("TopologyTXInvisibleById", func(t *testing.T) {
		p.mustFail(t, "POST", "/v2/updates/update-by-id", byID("1220"+strings.Repeat("a", 60)), notFound)
	})
	t.Run("TopologyTXInvisibleByOffsetOtherParty", func(t *testing.T) {
		intruder := p.allocate(t, "intruder")
		begin := p.ledgerEnd(t)
		p.allocate(t, "TopologyTXInvisibleByOffsetOtherParty")
		tt := p.authorizationOf(t, "TopologyTXInvisibleByOffsetOtherParty", begin, 0)
		p.mustFail(t, "POST", "/v2/updates/update-by-offset", byOffset(int64(tt.Offset), intruder), notFound)
	})
	t.Run("TopologyTXInvisibleByOffset", func(t *testing.T) {
		p.mustFail(t, "POST", "/v2/updates/update-by-offset", byOffset(4200*60), notFound)
	})
}

// UpdateServiceTopologyEventsIT.scala: a party allocation shows in the
// update stream as a topology transaction with its
// ParticipantAuthorizationAdded, whether the stream was open before the
// allocation (tailing) or read after it.
func TestUpdateServiceTopologyEventsIT(t *testing.T) {
	p := startParticipant(t, node.Config{TopologyEvents: true})
	check := func(t *testing.T, party string, tt ledgerapi.JsTopologyTransaction) {
		t.Helper()
		if len(tt.Events) == 0 {
			t.Fatal("expected to observe a topology event after party allocation")
		}
		if tt.Offset <= 0 {
			t.Error("expected to populate valid offset")
		}
		if tt.UpdateID == "" {
			t.Error("expected to populate valid update ID")
		}
		if tt.RecordTime.IsZero() {
			t.Error("expected to populate valid record time")
		}
		if tt.SynchronizerID == "" {
			t.Error("expected to populate valid synchronizer ID")
		}
		if got := addedParty(t, tt); got != party {
			t.Errorf("expected to observe topology event for %s but got %q", party, got)
		}
	}
	t.Run("USPartyEventsInUpdatesTailing", func(t *testing.T) {
		begin := p.ledgerEnd(t)
		// The stream is open (no end, the first update only) before the
		// allocation.
		out := make(chan []ledgerapi.JsGetUpdatesResponse, 1)
		go func() {
			var els []ledgerapi.JsGetUpdatesResponse
			a := p.do(t, "POST", "/v2/updates?stream_idle_timeout_ms=5000&limit=1", p.admin,
				map[string]any{"beginExclusive": begin, "updateFormat": topologyFormat()})
			_ = json.Unmarshal(a.body, &els)
			out <- els
		}()
		time.Sleep(50 * time.Millisecond)
		party := p.allocate(t, "USPartyEventsInUpdatesTailing")
		els := <-out
		if len(els) != 1 || els[0].Update.TopologyTransaction == nil {
			t.Fatalf("the stream's first update is not a topology transaction: %+v", els)
		}
		check(t, party, *els[0].Update.TopologyTransaction)
	})
	t.Run("USPartyEventsInUpdatesNotTailing", func(t *testing.T) {
		begin := p.ledgerEnd(t)
		party := p.allocate(t, "USPartyEventsInUpdatesNotTailing")
		end := p.ledgerEnd(t)
		check(t, party, p.authorizationOf(t, "USPartyEventsInUpdatesNotTailing", begin, end))
	})
}
