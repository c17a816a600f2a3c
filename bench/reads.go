package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// The acs and updates scenarios read: one operation is one client reading
// a party's whole active contract set (at the ledger end) or replaying its
// update stream (from the beginning to the ledger end seen at setup), each
// over the node's websocket, decoding every element into the ledgerapi
// types. --concurrency clients read at once; the summary counts the
// elements and their rate across all clients.

// readEnd is the offset the updates scenario replays up to.
func (r *runner) readEnd(ctx context.Context) (int64, error) {
	end, err := r.c.LedgerEnd(ctx)
	if err != nil {
		return 0, fmt.Errorf("setup: ledger end: %w", err)
	}
	if end == 0 {
		return 0, errors.New("setup: the ledger is empty: seed some contracts with --seed N")
	}
	return end, nil
}

func (r *runner) wildcard() ledgerapi.EventFormat {
	return ledgerapi.EventFormat{FiltersByParty: ledgerapi.Map[ledgerapi.Filters]{r.local[0]: {}}, Verbose: true}
}

// acsOp reads the active contract set of the first party.
func (r *runner) acsOp(ctx context.Context, w int, seq int64) (int, error) {
	end, err := r.c.LedgerEnd(ctx)
	if err != nil {
		return 0, err
	}
	ef := r.wildcard()
	s, err := r.c.OpenStream(ctx, "/v2/state/active-contracts", ledgerapi.GetActiveContractsRequest{ActiveAtOffset: ledgerapi.Int64(end), EventFormat: &ef})
	if err != nil {
		return 0, err
	}
	defer s.Close()
	n := 0
	for {
		var el ledgerapi.JsGetActiveContractsResponse
		err := s.Next(ctx, &el)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

// updatesOp replays the first party's updates up to the ledger end seen
// at setup.
func (r *runner) updatesOp(ctx context.Context, w int, seq int64) (int, error) {
	end := ledgerapi.Int64(r.end)
	req := ledgerapi.GetUpdatesRequest{EndInclusive: &end, UpdateFormat: &ledgerapi.UpdateFormat{IncludeTransactions: &ledgerapi.TransactionFormat{
		EventFormat: r.wildcard(), TransactionShape: ledgerapi.TransactionShapeACSDelta}}}
	s, err := r.c.OpenStream(ctx, "/v2/updates", req)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	n := 0
	for {
		var el ledgerapi.JsGetUpdatesResponse
		err := s.Next(ctx, &el)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if el.Update.Transaction != nil {
			n++
		}
	}
}

// readElements moves the element count of the acs and updates scenarios
// from the completions fields, where the recorders count items, to their
// own.
func (s *Summary) readElements() {
	switch s.Scenario {
	case ScenarioACS:
		s.Contracts, s.ContractsPerSecond = s.Completions, s.CompletionsPerSecond
	case ScenarioUpdates:
		s.Updates, s.UpdatesPerSecond = s.Completions, s.CompletionsPerSecond
	default:
		return
	}
	s.Completions, s.CompletionsPerSecond = 0, 0
}

// writeRead adds the element counts of the acs and updates scenarios.
func (s *Summary) writeRead(b *strings.Builder) {
	switch {
	case s.Contracts > 0:
		fmt.Fprintf(b, "contracts    %d read and decoded, %.0f contracts/s (all clients)\n", s.Contracts, s.ContractsPerSecond)
	case s.Updates > 0:
		fmt.Fprintf(b, "updates      %d read and decoded, %.0f updates/s (all clients)\n", s.Updates, s.UpdatesPerSecond)
	}
}
