package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/ledger-cli/ledger/node/ledger"
)

const userColumns = `id, primary_party, is_deactivated, annotations, resource_version, identity_provider_id, primary_party_authentication`

func scanUser(row interface{ Scan(...any) error }) (ledger.User, error) {
	var u ledger.User
	var ann string
	if err := row.Scan(&u.ID, &u.PrimaryParty, &u.IsDeactivated, &ann, &u.ResourceVersion, &u.IdentityProviderID, &u.PrimaryPartyAuthentication); err != nil {
		return ledger.User{}, err
	}
	m, err := decodeMap(ann)
	if err != nil {
		return ledger.User{}, err
	}
	u.Annotations = m
	return u, nil
}

// CreateUser stores a new user (resource version 0) with rights. It fails
// with ErrAlreadyExists, ErrAnnotationsTooLarge or ErrTooManyRights.
func (s *Store) CreateUser(ctx context.Context, u ledger.User, rights []ledger.Right) (ledger.User, error) {
	if u.ID == "" {
		return ledger.User{}, fmt.Errorf("create user: %w: empty user id", ledger.ErrInvalidArgument)
	}
	for _, r := range rights {
		if err := r.Validate(); err != nil {
			return ledger.User{}, fmt.Errorf("create user %q: %w", u.ID, err)
		}
	}
	if AnnotationsSize(u.Annotations) > MaxAnnotationsSize {
		return ledger.User{}, fmt.Errorf("create user %q: %w", u.ID, ledger.ErrAnnotationsTooLarge)
	}
	ann := mergeAnnotations(nil, u.Annotations)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO users (`+userColumns+`) VALUES (?, ?, ?, ?, 0, ?, ?)
			ON CONFLICT (id) DO NOTHING`,
			u.ID, u.PrimaryParty, boolInt(u.IsDeactivated), encodeMap(ann), u.IdentityProviderID, boolInt(u.PrimaryPartyAuthentication))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ledger.ErrAlreadyExists
		}
		_, err = s.grant(ctx, tx, u.ID, rights)
		return err
	})
	if err != nil {
		return ledger.User{}, fmt.Errorf("create user %q: %w", u.ID, err)
	}
	return s.User(ctx, u.ID)
}

// User returns one user, or ErrNotFound.
func (s *Store) User(ctx context.Context, id string) (ledger.User, error) {
	u, err := scanUser(s.r.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return ledger.User{}, fmt.Errorf("user %q: %w", id, ledger.ErrNotFound)
	}
	if err != nil {
		return ledger.User{}, fmt.Errorf("read user %q: %w", id, err)
	}
	return u, nil
}

// ListUsers returns a page of users in id order and the token of the next
// page ("" on the last page).
func (s *Store) ListUsers(ctx context.Context, q ledger.UserQuery) (users []ledger.User, next string, err error) {
	limit := pageSize(q.Limit)
	query := `SELECT ` + userColumns + ` FROM users WHERE id > ?`
	args := []any{q.After}
	if q.IdentityProviderID != nil {
		query += ` AND identity_provider_id = ?`
		args = append(args, *q.IdentityProviderID)
	}
	query += ` ORDER BY id LIMIT ?`
	args = append(args, limit+1)
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, "", fmt.Errorf("list users: %w", err)
	}
	defer rows.Close()
	users = []ledger.User{}
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, "", fmt.Errorf("list users: %w", err)
		}
		users = append(users, u)
	}
	if err := rows.Err(); err != nil {
		return nil, "", fmt.Errorf("list users: %w", err)
	}
	if len(users) > limit {
		users = users[:limit]
		next = users[limit-1].ID
	}
	return users, next, nil
}

// UpdateUser applies upd atomically and bumps the resource version (also
// when nothing changes). It fails with ErrNotFound, ErrConcurrentUpdate or
// ErrAnnotationsTooLarge.
func (s *Store) UpdateUser(ctx context.Context, id string, upd ledger.UserUpdate) (ledger.User, error) {
	var out ledger.User
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		u, err := scanUser(tx.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return ledger.ErrNotFound
		}
		if err != nil {
			return err
		}
		if upd.ExpectedVersion != nil && *upd.ExpectedVersion != u.ResourceVersion {
			return ledger.ErrConcurrentUpdate
		}
		if upd.PrimaryParty != nil {
			u.PrimaryParty = *upd.PrimaryParty
		}
		if upd.IsDeactivated != nil {
			u.IsDeactivated = *upd.IsDeactivated
		}
		if upd.IdentityProviderID != nil {
			u.IdentityProviderID = *upd.IdentityProviderID
		}
		if upd.PrimaryPartyAuthentication != nil {
			u.PrimaryPartyAuthentication = *upd.PrimaryPartyAuthentication
		}
		if upd.ReplaceAnnotations {
			u.Annotations = mergeAnnotations(nil, upd.Annotations)
		} else if upd.Annotations != nil {
			u.Annotations = mergeAnnotations(u.Annotations, upd.Annotations)
		}
		if AnnotationsSize(u.Annotations) > MaxAnnotationsSize {
			return ledger.ErrAnnotationsTooLarge
		}
		u.ResourceVersion++
		if _, err := tx.ExecContext(ctx, `UPDATE users SET primary_party = ?, is_deactivated = ?,
			annotations = ?, resource_version = ?, identity_provider_id = ?, primary_party_authentication = ? WHERE id = ?`,
			u.PrimaryParty, boolInt(u.IsDeactivated), encodeMap(u.Annotations), u.ResourceVersion,
			u.IdentityProviderID, boolInt(u.PrimaryPartyAuthentication), id); err != nil {
			return err
		}
		out = u
		return nil
	})
	if err != nil {
		return ledger.User{}, fmt.Errorf("update user %q: %w", id, err)
	}
	return out, nil
}

// DeleteUser removes a user and its rights, or fails with ErrNotFound.
func (s *Store) DeleteUser(ctx context.Context, id string) error {
	defer s.users.invalidate()
	res, err := s.w.ExecContext(ctx, `DELETE FROM users WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("delete user %q: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("delete user %q: %w", id, ledger.ErrNotFound)
	}
	return nil
}

// UserRights returns a user's rights ordered by kind and party, or ErrNotFound.
func (s *Store) UserRights(ctx context.Context, id string) ([]ledger.Right, error) {
	var rights []ledger.Right
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		var err error
		rights, err = userRights(ctx, tx, id)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("user rights of %q: %w", id, err)
	}
	return rights, nil
}

func userRights(ctx context.Context, tx *sql.Tx, id string) ([]ledger.Right, error) {
	if err := userExists(ctx, tx, id); err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT kind, party FROM user_rights WHERE user_id = ? ORDER BY kind, party`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	rights := []ledger.Right{}
	for rows.Next() {
		var r ledger.Right
		if err := rows.Scan(&r.Kind, &r.Party); err != nil {
			return nil, err
		}
		rights = append(rights, r)
	}
	return rights, rows.Err()
}

func userExists(ctx context.Context, tx *sql.Tx, id string) error {
	return rowExists(ctx, tx, `SELECT 1 FROM users WHERE id = ?`, id)
}

// rowExists runs a one-row probe query and maps "no row" to ErrNotFound.
func rowExists(ctx context.Context, tx *sql.Tx, query string, args ...any) error {
	var one int
	err := tx.QueryRowContext(ctx, query, args...).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return ledger.ErrNotFound
	}
	return err
}

// GrantRights adds rights to a user and returns those it did not have yet,
// in request order. It fails with ErrNotFound or ErrTooManyRights.
func (s *Store) GrantRights(ctx context.Context, id string, rights []ledger.Right) ([]ledger.Right, error) {
	for _, r := range rights {
		if err := r.Validate(); err != nil {
			return nil, fmt.Errorf("grant rights to %q: %w", id, err)
		}
	}
	var granted []ledger.Right
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := userExists(ctx, tx, id); err != nil {
			return err
		}
		var err error
		granted, err = s.grant(ctx, tx, id, rights)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("grant rights to %q: %w", id, err)
	}
	return granted, nil
}

func (s *Store) grant(ctx context.Context, tx *sql.Tx, id string, rights []ledger.Right) ([]ledger.Right, error) {
	granted := []ledger.Right{}
	for _, r := range rights {
		res, err := tx.ExecContext(ctx, `INSERT INTO user_rights (user_id, kind, party) VALUES (?, ?, ?)
			ON CONFLICT DO NOTHING`, id, r.Kind, r.Party)
		if err != nil {
			return nil, err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			granted = append(granted, r)
		}
	}
	if len(granted) > 0 {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM user_rights WHERE user_id = ?`, id).Scan(&n); err != nil {
			return nil, err
		}
		if n > s.opts.MaxRightsPerUser {
			return nil, fmt.Errorf("%w: %d rights, at most %d allowed", ledger.ErrTooManyRights, n, s.opts.MaxRightsPerUser)
		}
	}
	return granted, nil
}

// RevokeRights removes rights from a user and returns those it had, in
// request order. It fails with ErrNotFound.
func (s *Store) RevokeRights(ctx context.Context, id string, rights []ledger.Right) ([]ledger.Right, error) {
	for _, r := range rights {
		if err := r.Validate(); err != nil {
			return nil, fmt.Errorf("revoke rights from %q: %w", id, err)
		}
	}
	revoked := []ledger.Right{}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := userExists(ctx, tx, id); err != nil {
			return err
		}
		for _, r := range rights {
			res, err := tx.ExecContext(ctx, `DELETE FROM user_rights WHERE user_id = ? AND kind = ? AND party = ?`,
				id, r.Kind, r.Party)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n > 0 {
				revoked = append(revoked, r)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("revoke rights from %q: %w", id, err)
	}
	return revoked, nil
}
