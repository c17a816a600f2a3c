package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/ledger-cli/ledger/node/ledger"
)

// DefaultPruneBatch is how many offsets one prune transaction removes, and
// pruneContractBatch how many archived contracts: a batch holds the writer
// for a few milliseconds, so commits waiting behind it are delayed by no
// more than that, however many contracts an offset archived.
const (
	DefaultPruneBatch  = 250
	pruneContractBatch = 500
)

// PrunedUpTo is the offset the ledger is pruned up to, inclusive (0: never
// pruned).
func (s *Store) PrunedUpTo() int64 { return s.pruned.Load() }

// Prune removes what the ledger holds at or below upTo except the contracts
// still active: completions, transactions (with their events) and archived
// contracts. It first records upTo as the pruning offset, so reads below it
// are refused from then on, then deletes the archived contracts at most
// pruneContractBatch at a time and the entries in batches of batch offsets
// (0 = DefaultPruneBatch), each its own short transaction, so commits go on
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
	var p ledger.PruneProgress
	pause := func() error { // let a commit that waited for the writer go first
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
			return nil
		}
	}
	// First the archived contracts, a bounded number at a time.
	for {
		res, err := s.w.ExecContext(ctx, `DELETE FROM contracts WHERE id IN
			(SELECT id FROM contracts WHERE archived_offset <= ? LIMIT ?)`, upTo, pruneContractBatch)
		if err != nil {
			return fmt.Errorf("prune archived contracts: %w", err)
		}
		n, _ := res.RowsAffected()
		p.Contracts += n
		if n < pruneContractBatch {
			break
		}
		if progress != nil {
			progress(p)
		}
		if err := pause(); err != nil {
			return err
		}
	}
	// Then the completions and transactions, a range of offsets at a time.
	var lowest int64
	if err := s.r.QueryRowContext(ctx, `SELECT coalesce(min(o), 0) FROM (SELECT min(ledger_offset) AS o FROM completions
		UNION ALL SELECT min(ledger_offset) FROM topology_events)`).Scan(&lowest); err != nil {
		return fmt.Errorf("prune: %w", err)
	}
	for lo := max(lowest-1, 0); lo < upTo; lo += int64(batch) {
		hi := min(lo+int64(batch), upTo)
		entries, err := s.pruneEntries(ctx, lo, hi)
		if err != nil {
			return fmt.Errorf("prune offsets %d to %d: %w", lo+1, hi, err)
		}
		p.UpTo, p.Entries = hi, p.Entries+entries
		if progress != nil {
			progress(p)
		}
		if err := pause(); err != nil {
			return err
		}
	}
	p.UpTo = upTo
	if progress != nil {
		progress(p)
	}
	return nil
}

// pruneEntries deletes the completions and transactions at offsets
// (lo, hi] in one transaction.
func (s *Store) pruneEntries(ctx context.Context, lo, hi int64) (int64, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM transactions WHERE ledger_offset > ? AND ledger_offset <= ?`, lo, hi); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM topology_events WHERE ledger_offset > ? AND ledger_offset <= ?`, lo, hi); err != nil {
		return 0, err
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM completions WHERE ledger_offset > ? AND ledger_offset <= ?`, lo, hi)
	if err != nil {
		return 0, err
	}
	entries, _ := res.RowsAffected()
	return entries, tx.Commit()
}

// OffsetBefore is the last offset whose record time is before t (0: none).
func (s *Store) OffsetBefore(ctx context.Context, t time.Time) (int64, error) {
	var off sql.NullInt64
	err := s.r.QueryRowContext(ctx, `SELECT max(ledger_offset) FROM completions WHERE record_time < ?`, micros(t)).Scan(&off)
	return off.Int64, err
}
