package ledgerapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// GetCompletionsIT.scala: 3.5's GetCompletions (POST
// /v2/commands/command-completions, the list form), whose parties may be
// empty (every party) and whose user is the caller's. The Scala reads for
// 2 s ("within"); the list form here ends after 100 ms without a new
// completion.
func TestGetCompletionsIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	// submit submits a Dummy's create as actAs asynchronously and answers
	// its command id.
	submit := func(t *testing.T, actAs ...string) string {
		t.Helper()
		body := p.jsCommands(actAs, createCmd(dummy, map[string]any{"operator": actAs[0]}))
		p.ok(t, "POST", "/v2/commands/async/submit", body, nil)
		return body["commandId"].(string)
	}
	// completions reads GetCompletions after begin for parties, until idle
	// for 100 ms or limit completions (limit 0: no limit).
	completions := func(t *testing.T, begin int64, limit int, parties ...string) []ledgerapi.Completion {
		t.Helper()
		if parties == nil {
			parties = []string{}
		}
		q := "/v2/commands/command-completions?stream_idle_timeout_ms=100"
		if limit > 0 {
			q += fmt.Sprintf("&limit=%d", limit)
		}
		var els []ledgerapi.CompletionStreamResponse
		p.ok(t, "POST", q, map[string]any{"parties": parties, "beginExclusive": begin}, &els)
		var out []ledgerapi.Completion
		for _, el := range els {
			if el.Completion != nil {
				out = append(out, *el.Completion)
			}
		}
		return out
	}
	// find is the test tool's findCompletion: the completion of commandID.
	find := func(t *testing.T, begin int64, commandID string, parties ...string) ledgerapi.Completion {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			for _, c := range completions(t, begin, 0, parties...) {
				if c.CommandID == commandID {
					return c
				}
			}
		}
		t.Fatalf("Expected a completion for %s", commandID)
		return ledgerapi.Completion{}
	}
	actAs := func(c ledgerapi.Completion) []string {
		s := slices.Clone([]string(c.ActAs))
		slices.Sort(s)
		return s
	}
	sorted := func(ps ...string) []string {
		s := slices.Clone(ps)
		slices.Sort(s)
		return s
	}

	t.Run("GCSingleParty", func(t *testing.T) {
		alice := p.allocate(t, "alice")
		begin := p.ledgerEnd(t)
		cmd := submit(t, alice)
		c := find(t, begin, cmd, alice)
		if !slices.Equal(actAs(c), []string{alice}) {
			t.Errorf("Single-party GetCompletions should preserve the submitting party: %v", c.ActAs)
		}
	})

	t.Run("GCMultiParty", func(t *testing.T) {
		alice, bob := p.allocate(t, "alice"), p.allocate(t, "bob")
		a, b, ab := submit(t, alice), submit(t, bob), submit(t, alice, bob)
		if c := find(t, 0, a, alice, bob); !slices.Equal(actAs(c), []string{alice}) {
			t.Errorf("Single-party completion for alice should keep alice as act_as: %v", c.ActAs)
		}
		if c := find(t, 0, b, alice, bob); !slices.Equal(actAs(c), []string{bob}) {
			t.Errorf("Single-party completion for bob should keep bob as act_as: %v", c.ActAs)
		}
		if c := find(t, 0, ab, alice, bob); !slices.Equal(actAs(c), sorted(alice, bob)) {
			t.Errorf("Multi-party completion should contain both act_as parties: %v", c.ActAs)
		}
	})

	t.Run("GCWildcardParties", func(t *testing.T) {
		alice, bob := p.allocate(t, "alice"), p.allocate(t, "bob")
		begin := p.ledgerEnd(t)
		want := []string{submit(t, alice), submit(t, bob), submit(t, alice, bob)}
		find(t, begin, want[2], alice, bob)
		byCommand := func(cs []ledgerapi.Completion) map[string][]string {
			out := map[string][]string{}
			for _, c := range cs {
				if slices.Contains(want, c.CommandID) {
					out[c.CommandID] = actAs(c)
				}
			}
			return out
		}
		explicit, wildcard := byCommand(completions(t, begin, 0, alice, bob)), byCommand(completions(t, begin, 0))
		e, _ := json.Marshal(explicit)
		w, _ := json.Marshal(wildcard)
		if len(explicit) != 3 || string(e) != string(w) {
			t.Errorf("Explicit multi-party and wildcard GetCompletions should expose the same act_as parties:\nexplicit %s\nwildcard %s", e, w)
		}
	})

	t.Run("GCBeginExclusive", func(t *testing.T) {
		alice := p.allocate(t, "alice")
		start := p.ledgerEnd(t)
		first := submit(t, alice)
		firstCompletion := find(t, start, first, alice)
		second := submit(t, alice)
		find(t, int64(firstCompletion.Offset), second, alice)
		var ids []string
		for _, c := range completions(t, int64(firstCompletion.Offset), 0, alice) {
			ids = append(ids, c.CommandID)
		}
		if slices.Contains(ids, first) {
			t.Error("GetCompletions should not return completions at or before begin_exclusive")
		}
		if !slices.Contains(ids, second) {
			t.Error("GetCompletions should return completions after begin_exclusive")
		}
	})

	t.Run("GCTailing", func(t *testing.T) {
		alice := p.allocate(t, "alice")
		for range 14 {
			p.create(t, alice, dummy, map[string]any{"operator": alice})
		}
		out := make(chan int, 1)
		go func() {
			var els []ledgerapi.CompletionStreamResponse
			a := p.do(t, "POST", "/v2/commands/command-completions?stream_idle_timeout_ms=5000&limit=15", p.admin,
				map[string]any{"parties": []string{alice}, "beginExclusive": 0})
			_ = json.Unmarshal(a.body, &els)
			n := 0
			for _, el := range els {
				if el.Completion != nil {
					n++
				}
			}
			out <- n
		}()
		time.Sleep(50 * time.Millisecond) // the stream is open before the last submission
		p.create(t, alice, dummy, map[string]any{"operator": alice})
		if n := <-out; n != 15 {
			t.Errorf("15 completions should have been received but %d were instead", n)
		}
	})
}
