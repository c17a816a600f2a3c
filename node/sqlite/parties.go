package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// Party is the node's record of a party.
type Party struct {
	ID                 string
	IsLocal            bool
	Annotations        map[string]string // never nil when read
	ResourceVersion    int64             // bumped by every UpdatePartyAnnotations
	IdentityProviderID string
	// External parties sign their own transactions with SigningKeys.
	External         bool
	SigningThreshold int // signatures an external party's transaction needs
}

// SigningKey is a public key an external party signs with.
type SigningKey struct {
	Fingerprint string // e.g. "1220…"
	PublicKey   []byte // raw 32-byte ed25519 public key
}

// PartyAllocation is what AllocateParty stores.
type PartyAllocation struct {
	Party Party
	// SigningKeys (external parties only; their presence makes the party external).
	SigningKeys []SigningKey
	// Topology holds the onboarding topology transactions, in order, as bytes.
	Topology [][]byte
	// GrantActAsTo, when set, names a user that gets CanActAs on the new
	// party in the same transaction (ErrNotFound when the user is unknown).
	GrantActAsTo string
}

// PartyQuery selects a page of parties in id order.
type PartyQuery struct {
	After  string // page token: the last id of the previous page ("" = first page)
	Limit  int    // page size (default 1000)
	Prefix string // keep only ids starting with Prefix
	// IdentityProviderID, when set, keeps only parties of that identity provider.
	IdentityProviderID *string
}

const partyColumns = `id, is_local, annotations, resource_version, identity_provider_id, external, signing_threshold`

func scanParty(row interface{ Scan(...any) error }) (Party, error) {
	var p Party
	var ann string
	if err := row.Scan(&p.ID, &p.IsLocal, &ann, &p.ResourceVersion, &p.IdentityProviderID,
		&p.External, &p.SigningThreshold); err != nil {
		return Party{}, err
	}
	m, err := decodeMap(ann)
	if err != nil {
		return Party{}, err
	}
	p.Annotations = m
	return p, nil
}

// AllocateParty stores a new party record (resource version 0), with its
// signing keys and topology when external. It fails with ErrAlreadyExists,
// ErrAnnotationsTooLarge, or ErrNotFound for an unknown GrantActAsTo user.
func (s *Store) AllocateParty(ctx context.Context, a PartyAllocation) (Party, error) {
	p := a.Party
	if p.ID == "" {
		return Party{}, fmt.Errorf("allocate party: %w: empty party id", ErrInvalidArgument)
	}
	for _, k := range a.SigningKeys {
		if k.Fingerprint == "" || len(k.PublicKey) == 0 {
			return Party{}, fmt.Errorf("allocate party %q: %w: signing key without fingerprint or public key", p.ID, ErrInvalidArgument)
		}
	}
	if AnnotationsSize(p.Annotations) > MaxAnnotationsSize {
		return Party{}, fmt.Errorf("allocate party %q: %w", p.ID, ErrAnnotationsTooLarge)
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
			return ErrAlreadyExists
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
			if _, err := s.grant(ctx, tx, a.GrantActAsTo, []Right{{Kind: CanActAs, Party: p.ID}}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return Party{}, fmt.Errorf("allocate party %q: %w", p.ID, err)
	}
	return p, nil
}

// Party returns one party record, or ErrNotFound.
func (s *Store) Party(ctx context.Context, id string) (Party, error) {
	p, err := scanParty(s.r.QueryRowContext(ctx, `SELECT `+partyColumns+` FROM parties WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Party{}, fmt.Errorf("party %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return Party{}, fmt.Errorf("read party %q: %w", id, err)
	}
	return p, nil
}

// Parties returns the records of those ids that exist, in id order; unknown
// ids are skipped (the caller compares lengths to find them).
func (s *Store) Parties(ctx context.Context, ids []string) ([]Party, error) {
	out := []Party{}
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
func (s *Store) ListParties(ctx context.Context, q PartyQuery) (parties []Party, next string, err error) {
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

func (s *Store) queryParties(ctx context.Context, query string, args ...any) ([]Party, error) {
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	parties := []Party{}
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
func (s *Store) SigningKeys(ctx context.Context, party string) ([]SigningKey, error) {
	keys := []SigningKey{}
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
			var k SigningKey
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
func (s *Store) UpdatePartyAnnotations(ctx context.Context, party string, expectedVersion *int64, change map[string]string) (Party, error) {
	var out Party
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		p, err := scanParty(tx.QueryRowContext(ctx, `SELECT `+partyColumns+` FROM parties WHERE id = ?`, party))
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if expectedVersion != nil && *expectedVersion != p.ResourceVersion {
			return ErrConcurrentUpdate
		}
		p.Annotations = mergeAnnotations(p.Annotations, change)
		if AnnotationsSize(p.Annotations) > MaxAnnotationsSize {
			return ErrAnnotationsTooLarge
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
		return Party{}, fmt.Errorf("update party %q: %w", party, err)
	}
	return out, nil
}
