package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/ledger-cli/ledger/node/ledger"
)

// DefaultPruneBatch is how many offsets one prune transaction removes. A
// batch holds the writer for a few milliseconds, so commits waiting behind
// it are delayed by no more than that.
const DefaultPruneBatch = 1000

// PrunedUpTo is the offset the ledger is pruned up to, inclusive (0: never
// pruned).
func (s *Store) PrunedUpTo() int64 { return s.pruned.Load() }

// Prune removes what the ledger holds at or below upTo except the contracts
// still active: completions, transactions (with their events) and archived
// contracts. It first records upTo as the pruning offset, so reads below it
// are refused from then on, then deletes in batches of batch offsets (0 =
// DefaultPruneBatch), each its own short transaction, so commits go on
// between them. A crash in between leaves rows below the pruning offset
// that a later Prune removes; every batch is atomic, and active contracts
// are never deleted. progress, if not nil, is called after each batch.
// upTo must not be after the ledger end; at or below the current pruning
// offset there is nothing to do.
func (s *Store) Prune(ctx context.Context, upTo int64, batch int, progress func(ledger.PruneProgress)) error {
	if !s.pruneMu.TryLock() {
		return ledger.ErrPruneInProgress
	}
	defer s.pruneMu.Unlock()
	if batch <= 0 {
		batch = DefaultPruneBatch
	}
	if end := s.LedgerEnd(); upTo > end || upTo <= 0 {
		return fmt.Errorf("%w: prune up to offset %d: the ledger end is %d", ledger.ErrInvalidArgument, upTo, end)
	}
	if upTo > s.pruned.Load() {
		if _, err := s.w.ExecContext(ctx, `INSERT INTO pruning (id, pruned_up_to) VALUES (1, ?)
			ON CONFLICT (id) DO UPDATE SET pruned_up_to = max(pruned_up_to, excluded.pruned_up_to)`, upTo); err != nil {
			return fmt.Errorf("record pruning offset %d: %w", upTo, err)
		}
		s.pruned.Store(upTo)
	}
	var lowest int64
	if err := s.r.QueryRowContext(ctx, `SELECT coalesce(min(ledger_offset), 0) FROM completions`).Scan(&lowest); err != nil {
		return fmt.Errorf("prune: %w", err)
	}
	var p ledger.PruneProgress
	for lo := max(lowest-1, 0); lo < upTo; lo += int64(batch) {
		hi := min(lo+int64(batch), upTo)
		entries, contracts, err := s.pruneBatch(ctx, lo, hi)
		if err != nil {
			return fmt.Errorf("prune offsets %d to %d: %w", lo+1, hi, err)
		}
		p.UpTo, p.Entries, p.Contracts = hi, p.Entries+entries, p.Contracts+contracts
		if progress != nil {
			progress(p)
		}
		// Let a commit that waited for the writer go first.
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
	return nil
}

// pruneBatch deletes the entries at offsets (lo, hi] and the contracts
// archived there, in one transaction.
func (s *Store) pruneBatch(ctx context.Context, lo, hi int64) (entries, contracts int64, err error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return 0, 0, err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `DELETE FROM contracts WHERE archived_offset > ? AND archived_offset <= ?`, lo, hi)
	if err != nil {
		return 0, 0, err
	}
	contracts, _ = res.RowsAffected()
	if _, err := tx.ExecContext(ctx, `DELETE FROM transactions WHERE ledger_offset > ? AND ledger_offset <= ?`, lo, hi); err != nil {
		return 0, 0, err
	}
	res, err = tx.ExecContext(ctx, `DELETE FROM completions WHERE ledger_offset > ? AND ledger_offset <= ?`, lo, hi)
	if err != nil {
		return 0, 0, err
	}
	entries, _ = res.RowsAffected()
	return entries, contracts, tx.Commit()
}

// OffsetBefore is the last offset whose record time is before t (0: none).
func (s *Store) OffsetBefore(ctx context.Context, t time.Time) (int64, error) {
	var off sql.NullInt64
	err := s.r.QueryRowContext(ctx, `SELECT max(ledger_offset) FROM completions WHERE record_time < ?`, micros(t)).Scan(&off)
	return off.Int64, err
}
