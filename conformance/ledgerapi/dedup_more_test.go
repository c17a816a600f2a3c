package ledgerapi

import (
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// dedupClient submits one command id through the command submission
// service (async, the completion read back) or the command service
// (submit-and-wait), as CommandDeduplicationIT.scala's helpers do. Its
// methods answer errors rather than failing the test, so that they run
// in goroutines.
type dedupClient struct {
	p      *participant
	t      *testing.T
	party  string
	cmdID  string
	dedup  map[string]any // the deduplicationPeriod, nil for the default
	create map[string]any
}

func (c dedupClient) body(subID string, dedup map[string]any) map[string]any {
	body := c.p.jsCommands([]string{c.party}, c.create)
	body["commandId"], body["submissionId"] = c.cmdID, subID
	if dedup != nil {
		body["deduplicationPeriod"] = dedup
	}
	return body
}

// completion finds the completion of submission subID after begin.
func (c dedupClient) completion(subID string, begin int64) (ledgerapi.Completion, error) {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		var els []ledgerapi.CompletionStreamResponse
		a := c.p.do(c.t, "POST", "/v2/commands/completions?stream_idle_timeout_ms=100", c.p.admin,
			map[string]any{"userId": c.p.user, "parties": []string{c.party}, "beginExclusive": begin})
		if err := json.Unmarshal(a.body, &els); err != nil {
			return ledgerapi.Completion{}, fmt.Errorf("completions: %d %s", a.status, a.body)
		}
		for _, el := range els {
			if x := el.Completion; x != nil && x.SubmissionID == subID {
				return *x, nil
			}
		}
	}
	return ledgerapi.Completion{}, fmt.Errorf("no completion of submission %s of %s", subID, c.cmdID)
}

// submit submits as subID (sync: submit-and-wait) and answers the
// completion, or for a refused request its error.
func (c dedupClient) submit(sync bool, subID string, dedup map[string]any) (ledgerapi.Completion, *ledgerapi.JsCantonError, error) {
	if dedup == nil {
		dedup = c.dedup
	}
	path := "/v2/commands/async/submit"
	if sync {
		path = "/v2/commands/submit-and-wait"
	}
	begin := c.p.ledgerEnd(c.t)
	a := c.p.do(c.t, "POST", path, c.p.admin, c.body(subID, dedup))
	if a.status != 200 {
		e, err := ledgerapi.DecodeError(a.body)
		if err != nil {
			return ledgerapi.Completion{}, nil, fmt.Errorf("%s: %d %s", path, a.status, a.body)
		}
		return ledgerapi.Completion{}, e, nil
	}
	if sync {
		begin = 0
	}
	comp, err := c.completion(subID, begin)
	return comp, nil, err
}

// accepted submits and wants an accepted completion.
func (c dedupClient) accepted(sync bool, subID string, dedup map[string]any) (ledgerapi.Completion, error) {
	comp, e, err := c.submit(sync, subID, dedup)
	switch {
	case err != nil:
		return comp, err
	case e != nil:
		return comp, fmt.Errorf("submission %s refused: %s", subID, e.Error())
	case !comp.Succeeded():
		return comp, fmt.Errorf("submission %s not accepted: %+v", subID, comp.Status)
	}
	return comp, nil
}

// deduplicated submits and wants the duplicate refused: DUPLICATE_COMMAND
// naming the accepted submission and its offset (submit-and-wait), or
// an ALREADY_EXISTS completion. It answers the completion (async only).
func (c dedupClient) deduplicated(sync bool, subID string, dedup map[string]any, accepted ledgerapi.Completion) (*ledgerapi.Completion, error) {
	comp, e, err := c.submit(sync, subID, dedup)
	if err != nil {
		return nil, err
	}
	if sync {
		if e == nil {
			return nil, fmt.Errorf("Request was accepted but we were expecting it to fail with a duplicate error")
		}
		if e.Code != "DUPLICATE_COMMAND" {
			return nil, fmt.Errorf("error %s, want DUPLICATE_COMMAND", e.Error())
		}
		if v, ok := e.Context["existing_submission_id"]; ok && v != accepted.SubmissionID {
			return nil, fmt.Errorf("submission ID mismatch: %s, want %s", v, accepted.SubmissionID)
		}
		if v, ok := e.Context["completion_offset"]; ok && v != strconv.FormatInt(int64(accepted.Offset), 10) {
			return nil, fmt.Errorf("completion offset mismatch: %s, want %d", v, accepted.Offset)
		}
		return nil, nil
	}
	if comp.Succeeded() || comp.Status.Code != 6 {
		return nil, fmt.Errorf("Expecting completion with status code ALREADY_EXISTS but completion has status %+v", comp.Status)
	}
	return &comp, nil
}

// The rest of CommandDeduplicationIT.scala, on the generic model's Dummy
// and DummyWithAnnotation; deduplication durations of 1 s.
func TestCommandDeduplicationITMore(t *testing.T) {
	p := startParticipant(t, node.Config{})
	oneSecond := map[string]any{"DeduplicationDuration": map[string]any{"value": map[string]any{"seconds": 1}}}
	client := func(t *testing.T, party, cmdID string, dedup map[string]any) dedupClient {
		return dedupClient{p: p, t: t, party: party, cmdID: cmdID, dedup: dedup,
			create: createCmd(dummy, map[string]any{"operator": party})}
	}
	must := func(t *testing.T, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	acs := func(t *testing.T, party string, want int) {
		t.Helper()
		if n := len(p.activeContracts(t, party)); n != want {
			t.Errorf("Expected %d active contracts for %s but found %d active contracts", want, party, n)
		}
	}

	t.Run("SimpleDeduplicationCommandClient", func(t *testing.T) {
		party := p.allocate(t, "party")
		c := client(t, party, p.next("cmd"), map[string]any{"DeduplicationDuration": map[string]any{"value": map[string]any{"seconds": 2}}})
		first, err := c.accepted(true, p.next("sub"), nil)
		must(t, err)
		_, err = c.deduplicated(true, p.next("sub"), nil, first)
		must(t, err)
		acs(t, party, 1)
	})

	for _, s := range []struct {
		name string
		sync bool
	}{{"DeduplicateSubmitterBasic", false}, {"DeduplicateSubmitterCommandClient", true}} {
		t.Run(s.name, func(t *testing.T) {
			alice, bob := p.allocate(t, "alice"), p.allocate(t, "bob")
			cmdID := p.next("cmd")
			for _, party := range []string{alice, bob} {
				c := client(t, party, cmdID, nil)
				first, err := c.accepted(s.sync, p.next("sub"), nil)
				must(t, err)
				_, err = c.deduplicated(s.sync, p.next("sub"), nil, first)
				must(t, err)
			}
			acs(t, alice, 1)
			acs(t, bob, 1)
		})
	}

	t.Run("DeduplicateUsingOffsets", func(t *testing.T) {
		party := p.allocate(t, "party")
		annotated := func(annotation string) map[string]any {
			return createCmd("#model-tests:Test:DummyWithAnnotation", map[string]any{"operator": party, "annotation": annotation})
		}
		dummyClient := dedupClient{p: p, t: t, party: party, cmdID: p.next("cmd"), create: annotated("Dummy command to generate a completion offset")}
		before, err := dummyClient.accepted(false, p.next("sub"), nil)
		must(t, err)
		c := dedupClient{p: p, t: t, party: party, cmdID: p.next("cmd"), create: annotated("Duplicate command")}
		first, err := c.accepted(false, p.next("sub"), nil)
		must(t, err)
		dup, err := c.deduplicated(false, p.next("sub"), map[string]any{"DeduplicationOffset": map[string]any{"value": int64(before.Offset)}}, first)
		must(t, err)
		second, err := c.accepted(false, p.next("sub"), map[string]any{"DeduplicationOffset": map[string]any{"value": int64(dup.Offset)}})
		must(t, err)
		// assertDeduplicationOffset: the deduplication offset a completion
		// reports is not more recent than the completion it covers.
		for _, pair := range [][2]ledgerapi.Completion{{first, *dup}, {*dup, second}} {
			reported := pair[1].DeduplicationPeriod.Offset
			if reported == nil {
				t.Errorf("completion at %d reports no deduplication offset: %+v", pair[1].Offset, pair[1].DeduplicationPeriod)
				continue
			}
			if *reported > int64(pair[0].Offset) {
				t.Errorf("The reported deduplication offset %d was more recent than the requested deduplication offset %d.", *reported, pair[0].Offset)
			}
		}
	})

	t.Run("DeduplicationMixedClients", func(t *testing.T) {
		// Every combination of the command service (true) and the command
		// submission service (false) for the four calls, on 16 parties at once.
		var wg sync.WaitGroup
		errs := make([]error, 16)
		parties := make([]string, 16)
		for i := range parties {
			parties[i] = p.allocate(t, "party")
		}
		for i := range 16 {
			calls := [4]bool{i&8 != 0, i&4 != 0, i&2 != 0, i&1 != 0}
			wg.Go(func() {
				errs[i] = func() error {
					c := client(t, parties[i], p.next("cmd"), oneSecond)
					first, err := c.accepted(calls[0], p.next("sub"), nil)
					if err != nil {
						return err
					}
					if _, err := c.deduplicated(calls[1], p.next("sub"), nil, first); err != nil {
						return err
					}
					var again ledgerapi.Completion
					deadline := time.Now().Add(time.Second + 10*time.Second)
					for {
						if again, err = c.accepted(calls[2], p.next("sub"), nil); err == nil {
							break
						}
						if time.Now().After(deadline) {
							return fmt.Errorf("Deduplication period expires and request is accepted: %v", err)
						}
						time.Sleep(200 * time.Millisecond)
					}
					if _, err := c.deduplicated(calls[3], p.next("sub"), nil, again); err != nil {
						return err
					}
					return nil
				}()
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("calls %04b: %v", i, err)
			}
		}
		for _, party := range parties {
			acs(t, party, 2)
		}
	})
}
