package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/ledger-cli/ledger/node/ledger"
)

// Init persists want as the node's identity if the node has none yet and
// then also creates the bootstrap user AdminUserID with ParticipantAdmin;
// created reports whether that happened. On a node that already has an
// identity it returns the stored one and ignores want.
func (s *Store) Init(ctx context.Context, want ledger.Identity) (got ledger.Identity, created bool, err error) {
	if want.ParticipantID == "" || want.NamespaceFingerprint == "" || want.SynchronizerID == "" {
		return ledger.Identity{}, false, fmt.Errorf("init node identity: %w: participant id, namespace fingerprint and synchronizer id are required", ledger.ErrInvalidArgument)
	}
	if want.MaxDeduplication <= 0 {
		want.MaxDeduplication = ledger.DefaultMaxDeduplication
	}
	want.CreatedAt = s.opts.Now().UTC().Truncate(time.Microsecond)
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO node
			(id, participant_id, namespace_fingerprint, namespace_key, synchronizer_id, max_dedup_ns, created_at)
			VALUES (1, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
			want.ParticipantID, want.NamespaceFingerprint, want.NamespaceKey, want.SynchronizerID,
			int64(want.MaxDeduplication), micros(want.CreatedAt))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		created = true
		if _, err := tx.ExecContext(ctx, `INSERT INTO users (id) VALUES (?) ON CONFLICT (id) DO NOTHING`, ledger.AdminUserID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO user_rights (user_id, kind, party) VALUES (?, ?, '')
			ON CONFLICT DO NOTHING`, ledger.AdminUserID, ledger.ParticipantAdmin)
		return err
	})
	if err != nil {
		return ledger.Identity{}, false, fmt.Errorf("init node identity: %w", err)
	}
	got, err = s.Identity(ctx)
	if err != nil {
		return ledger.Identity{}, false, err
	}
	s.maxDedup.Store(int64(got.MaxDeduplication))
	return got, created, nil
}

// Identity returns the node's identity, or ErrNotFound before Init.
func (s *Store) Identity(ctx context.Context) (ledger.Identity, error) {
	var id ledger.Identity
	var dedup, created int64
	err := s.r.QueryRowContext(ctx, `SELECT participant_id, namespace_fingerprint, namespace_key,
		synchronizer_id, max_dedup_ns, created_at FROM node WHERE id = 1`).
		Scan(&id.ParticipantID, &id.NamespaceFingerprint, &id.NamespaceKey, &id.SynchronizerID, &dedup, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return ledger.Identity{}, fmt.Errorf("node identity: %w (the node was not initialised)", ledger.ErrNotFound)
	}
	if err != nil {
		return ledger.Identity{}, fmt.Errorf("read node identity: %w", err)
	}
	id.MaxDeduplication = time.Duration(dedup)
	id.CreatedAt = fromMicros(created)
	return id, nil
}

// SetMaxDeduplication changes the node's persisted maximum deduplication
// duration (for a configuration change at start).
func (s *Store) SetMaxDeduplication(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("set max deduplication duration: %w: %v is not positive", ledger.ErrInvalidArgument, d)
	}
	res, err := s.w.ExecContext(ctx, `UPDATE node SET max_dedup_ns = ? WHERE id = 1`, int64(d))
	if err != nil {
		return fmt.Errorf("set max deduplication duration: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("set max deduplication duration: node identity: %w", ledger.ErrNotFound)
	}
	s.maxDedup.Store(int64(d))
	return nil
}
