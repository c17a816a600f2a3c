package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/ledger-cli/ledger/node/ledger"
)

const partyColumns = `id, is_local, annotations, resource_version, identity_provider_id, external, signing_threshold`

func scanParty(row interface{ Scan(...any) error }) (ledger.Party, error) {
	var p ledger.Party
	var ann string
	if err := row.Scan(&p.ID, &p.IsLocal, &ann, &p.ResourceVersion, &p.IdentityProviderID,
		&p.External, &p.SigningThreshold); err != nil {
		return ledger.Party{}, err
	}
	m, err := decodeMap(ann)
	if err != nil {
		return ledger.Party{}, err
	}
	p.Annotations = m
	return p, nil
}

// AllocateParty stores a new party record (resource version 0), with its
// signing keys and topology when external. It fails with ErrAlreadyExists,
// ErrAnnotationsTooLarge, or ErrNotFound for an unknown GrantActAsTo user.
func (s *Store) AllocateParty(ctx context.Context, a ledger.PartyAllocation) (ledger.Party, error) {
	p := a.Party
	if p.ID == "" {
		return ledger.Party{}, fmt.Errorf("allocate party: %w: empty party id", ledger.ErrInvalidArgument)
	}
	for _, k := range a.SigningKeys {
		if k.Fingerprint == "" || len(k.PublicKey) == 0 {
			return ledger.Party{}, fmt.Errorf("allocate party %q: %w: signing key without fingerprint or public key", p.ID, ledger.ErrInvalidArgument)
		}
	}
	if AnnotationsSize(p.Annotations) > MaxAnnotationsSize {
		return ledger.Party{}, fmt.Errorf("allocate party %q: %w", p.ID, ledger.ErrAnnotationsTooLarge)
	}
	p.External = len(a.SigningKeys) > 0
	if p.External && p.SigningThreshold <= 0 {
		p.SigningThreshold = 1
	}
	if !p.External {
		p.SigningThreshold = 0
	}
	p.Annotations = mergeAnnotations(nil, p.Annotations)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO parties (`+partyColumns+`) VALUES (?, ?, ?, 0, ?, ?, ?)
			ON CONFLICT (id) DO NOTHING`,
			p.ID, boolInt(p.IsLocal), encodeMap(p.Annotations), p.IdentityProviderID, boolInt(p.External), p.SigningThreshold)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ledger.ErrAlreadyExists
		}
		for _, k := range a.SigningKeys {
			if _, err := tx.ExecContext(ctx, `INSERT INTO party_signing_keys (party, fingerprint, public_key)
				VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, p.ID, k.Fingerprint, k.PublicKey); err != nil {
				return err
			}
		}
		for i, t := range a.Topology {
			if _, err := tx.ExecContext(ctx, `INSERT INTO party_topology (party, seq, tx) VALUES (?, ?, ?)`,
				p.ID, i, t); err != nil {
				return err
			}
		}
		if a.GrantActAsTo != "" {
			if err := userExists(ctx, tx, a.GrantActAsTo); err != nil {
				return fmt.Errorf("user %q: %w", a.GrantActAsTo, err)
			}
			if _, err := s.grant(ctx, tx, a.GrantActAsTo, []ledger.Right{{Kind: ledger.CanActAs, Party: p.ID}}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return ledger.Party{}, fmt.Errorf("allocate party %q: %w", p.ID, err)
	}
	return p, nil
}

// Party returns one party record, or ErrNotFound.
func (s *Store) Party(ctx context.Context, id string) (ledger.Party, error) {
	p, err := scanParty(s.r.QueryRowContext(ctx, `SELECT `+partyColumns+` FROM parties WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return ledger.Party{}, fmt.Errorf("party %q: %w", id, ledger.ErrNotFound)
	}
	if err != nil {
		return ledger.Party{}, fmt.Errorf("read party %q: %w", id, err)
	}
	return p, nil
}

// Parties returns the records of those ids that exist, in id order; unknown
// ids are skipped (the caller compares lengths to find them).
func (s *Store) Parties(ctx context.Context, ids []string) ([]ledger.Party, error) {
	out := []ledger.Party{}
	const chunk = 500
	for start := 0; start < len(ids); start += chunk {
		part := ids[start:min(start+chunk, len(ids))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		query := `SELECT ` + partyColumns + ` FROM parties WHERE id IN (?` +
			strings.Repeat(", ?", len(part)-1) + `) ORDER BY id`
		got, err := s.queryParties(ctx, query, args...)
		if err != nil {
			return nil, fmt.Errorf("read parties: %w", err)
		}
		out = append(out, got...)
	}
	return out, nil
}

// ListParties returns a page of parties in id order and the token of the
// next page ("" on the last page).
func (s *Store) ListParties(ctx context.Context, q ledger.PartyQuery) (parties []ledger.Party, next string, err error) {
	limit := pageSize(q.Limit)
	query := `SELECT ` + partyColumns + ` FROM parties WHERE id > ?`
	args := []any{q.After}
	if q.Prefix != "" {
		query += ` AND id >= ?`
		args = append(args, q.Prefix)
		if end := prefixEnd(q.Prefix); end != "" {
			query += ` AND id < ?`
			args = append(args, end)
		}
	}
	if q.IdentityProviderID != nil {
		query += ` AND identity_provider_id = ?`
		args = append(args, *q.IdentityProviderID)
	}
	query += ` ORDER BY id LIMIT ?`
	args = append(args, limit+1)
	parties, err = s.queryParties(ctx, query, args...)
	if err != nil {
		return nil, "", fmt.Errorf("list parties: %w", err)
	}
	if len(parties) > limit {
		parties = parties[:limit]
		next = parties[limit-1].ID
	}
	return parties, next, nil
}

func (s *Store) queryParties(ctx context.Context, query string, args ...any) ([]ledger.Party, error) {
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	parties := []ledger.Party{}
	for rows.Next() {
		p, err := scanParty(rows)
		if err != nil {
			return nil, err
		}
		parties = append(parties, p)
	}
	return parties, rows.Err()
}

// SigningKeys returns an external party's signing keys (empty for a local
// party), or ErrNotFound for an unknown party.
func (s *Store) SigningKeys(ctx context.Context, party string) ([]ledger.SigningKey, error) {
	keys := []ledger.SigningKey{}
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		if err := partyExists(ctx, tx, party); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT fingerprint, public_key FROM party_signing_keys
			WHERE party = ? ORDER BY fingerprint`, party)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k ledger.SigningKey
			if err := rows.Scan(&k.Fingerprint, &k.PublicKey); err != nil {
				return err
			}
			keys = append(keys, k)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("signing keys of party %q: %w", party, err)
	}
	return keys, nil
}

// Topology returns the topology transactions stored at allocation, in
// order, or ErrNotFound for an unknown party.
func (s *Store) Topology(ctx context.Context, party string) ([][]byte, error) {
	txs := [][]byte{}
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		if err := partyExists(ctx, tx, party); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT tx FROM party_topology WHERE party = ? ORDER BY seq`, party)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var b []byte
			if err := rows.Scan(&b); err != nil {
				return err
			}
			txs = append(txs, b)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("topology of party %q: %w", party, err)
	}
	return txs, nil
}

func partyExists(ctx context.Context, tx *sql.Tx, party string) error {
	return rowExists(ctx, tx, `SELECT 1 FROM parties WHERE id = ?`, party)
}

// UpdatePartyAnnotations merges change into the party's annotations ("" deletes
// a key) and bumps the resource version, also when nothing changes. When
// expectedVersion is set it must equal the stored version. The check, the
// merge and the size check after the merge are one transaction, so among
// concurrent callers holding the same version exactly one succeeds. It fails
// with ErrNotFound, ErrConcurrentUpdate or ErrAnnotationsTooLarge.
func (s *Store) UpdatePartyAnnotations(ctx context.Context, party string, expectedVersion *int64, change map[string]string) (ledger.Party, error) {
	var out ledger.Party
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		p, err := scanParty(tx.QueryRowContext(ctx, `SELECT `+partyColumns+` FROM parties WHERE id = ?`, party))
		if errors.Is(err, sql.ErrNoRows) {
			return ledger.ErrNotFound
		}
		if err != nil {
			return err
		}
		if expectedVersion != nil && *expectedVersion != p.ResourceVersion {
			return ledger.ErrConcurrentUpdate
		}
		p.Annotations = mergeAnnotations(p.Annotations, change)
		if AnnotationsSize(p.Annotations) > MaxAnnotationsSize {
			return ledger.ErrAnnotationsTooLarge
		}
		p.ResourceVersion++
		if _, err := tx.ExecContext(ctx, `UPDATE parties SET annotations = ?, resource_version = ? WHERE id = ?`,
			encodeMap(p.Annotations), p.ResourceVersion, party); err != nil {
			return err
		}
		out = p
		return nil
	})
	if err != nil {
		return ledger.Party{}, fmt.Errorf("update party %q: %w", party, err)
	}
	return out, nil
}
