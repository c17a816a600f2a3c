package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// User is a Ledger API user.
type User struct {
	ID                 string
	PrimaryParty       string
	IsDeactivated      bool
	Annotations        map[string]string // never nil when read
	ResourceVersion    int64             // bumped by every UpdateUser
	IdentityProviderID string            // "" = the default identity provider
}

// RightKind is a kind of user right, spelled as the JSON variant names it.
type RightKind string

// The user right kinds.
const (
	CanActAs              RightKind = "CanActAs"
	CanReadAs             RightKind = "CanReadAs"
	CanExecuteAs          RightKind = "CanExecuteAs"
	ParticipantAdmin      RightKind = "ParticipantAdmin"
	IdentityProviderAdmin RightKind = "IdentityProviderAdmin"
	CanReadAsAnyParty     RightKind = "CanReadAsAnyParty"
	CanExecuteAsAnyParty  RightKind = "CanExecuteAsAnyParty"
)

// HasParty reports whether rights of this kind name a party.
func (k RightKind) HasParty() bool {
	return k == CanActAs || k == CanReadAs || k == CanExecuteAs
}

func (k RightKind) known() bool {
	switch k {
	case CanActAs, CanReadAs, CanExecuteAs, ParticipantAdmin, IdentityProviderAdmin,
		CanReadAsAnyParty, CanExecuteAsAnyParty:
		return true
	}
	return false
}

// Right is one user right; Party is set exactly for the party kinds.
type Right struct {
	Kind  RightKind
	Party string
}

func (r Right) validate() error {
	switch {
	case !r.Kind.known():
		return fmt.Errorf("%w: unknown right kind %q", ErrInvalidArgument, r.Kind)
	case r.Kind.HasParty() && r.Party == "":
		return fmt.Errorf("%w: right %s needs a party", ErrInvalidArgument, r.Kind)
	case !r.Kind.HasParty() && r.Party != "":
		return fmt.Errorf("%w: right %s takes no party", ErrInvalidArgument, r.Kind)
	}
	return nil
}

// UserUpdate lists the changes UpdateUser makes; nil fields stay unchanged.
type UserUpdate struct {
	// ExpectedVersion, when set, must equal the stored resource version.
	ExpectedVersion *int64
	PrimaryParty    *string
	IsDeactivated   *bool
	// Annotations are merged into the stored ones ("" deletes a key), or
	// replace them when ReplaceAnnotations is set. nil leaves them alone.
	Annotations        map[string]string
	ReplaceAnnotations bool
	IdentityProviderID *string
}

// UserQuery selects a page of users in id order.
type UserQuery struct {
	After string // page token: the last id of the previous page ("" = first page)
	Limit int    // page size (default 1000)
	// IdentityProviderID, when set, keeps only users of that identity provider.
	IdentityProviderID *string
}

const userColumns = `id, primary_party, is_deactivated, annotations, resource_version, identity_provider_id`

func scanUser(row interface{ Scan(...any) error }) (User, error) {
	var u User
	var ann string
	if err := row.Scan(&u.ID, &u.PrimaryParty, &u.IsDeactivated, &ann, &u.ResourceVersion, &u.IdentityProviderID); err != nil {
		return User{}, err
	}
	m, err := decodeMap(ann)
	if err != nil {
		return User{}, err
	}
	u.Annotations = m
	return u, nil
}

// CreateUser stores a new user (resource version 0) with rights. It fails
// with ErrAlreadyExists, ErrAnnotationsTooLarge or ErrTooManyRights.
func (s *Store) CreateUser(ctx context.Context, u User, rights []Right) (User, error) {
	if u.ID == "" {
		return User{}, fmt.Errorf("create user: %w: empty user id", ErrInvalidArgument)
	}
	for _, r := range rights {
		if err := r.validate(); err != nil {
			return User{}, fmt.Errorf("create user %q: %w", u.ID, err)
		}
	}
	if AnnotationsSize(u.Annotations) > MaxAnnotationsSize {
		return User{}, fmt.Errorf("create user %q: %w", u.ID, ErrAnnotationsTooLarge)
	}
	ann := mergeAnnotations(nil, u.Annotations)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO users (`+userColumns+`) VALUES (?, ?, ?, ?, 0, ?)
			ON CONFLICT (id) DO NOTHING`,
			u.ID, u.PrimaryParty, boolInt(u.IsDeactivated), encodeMap(ann), u.IdentityProviderID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrAlreadyExists
		}
		_, err = s.grant(ctx, tx, u.ID, rights)
		return err
	})
	if err != nil {
		return User{}, fmt.Errorf("create user %q: %w", u.ID, err)
	}
	return s.User(ctx, u.ID)
}

// User returns one user, or ErrNotFound.
func (s *Store) User(ctx context.Context, id string) (User, error) {
	u, err := scanUser(s.r.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, fmt.Errorf("user %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return User{}, fmt.Errorf("read user %q: %w", id, err)
	}
	return u, nil
}

// ListUsers returns a page of users in id order and the token of the next
// page ("" on the last page).
func (s *Store) ListUsers(ctx context.Context, q UserQuery) (users []User, next string, err error) {
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
	users = []User{}
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
func (s *Store) UpdateUser(ctx context.Context, id string, upd UserUpdate) (User, error) {
	var out User
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		u, err := scanUser(tx.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if upd.ExpectedVersion != nil && *upd.ExpectedVersion != u.ResourceVersion {
			return ErrConcurrentUpdate
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
		if upd.ReplaceAnnotations {
			u.Annotations = mergeAnnotations(nil, upd.Annotations)
		} else if upd.Annotations != nil {
			u.Annotations = mergeAnnotations(u.Annotations, upd.Annotations)
		}
		if AnnotationsSize(u.Annotations) > MaxAnnotationsSize {
			return ErrAnnotationsTooLarge
		}
		u.ResourceVersion++
		if _, err := tx.ExecContext(ctx, `UPDATE users SET primary_party = ?, is_deactivated = ?,
			annotations = ?, resource_version = ?, identity_provider_id = ? WHERE id = ?`,
			u.PrimaryParty, boolInt(u.IsDeactivated), encodeMap(u.Annotations), u.ResourceVersion,
			u.IdentityProviderID, id); err != nil {
			return err
		}
		out = u
		return nil
	})
	if err != nil {
		return User{}, fmt.Errorf("update user %q: %w", id, err)
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
		return fmt.Errorf("delete user %q: %w", id, ErrNotFound)
	}
	return nil
}

// UserRights returns a user's rights ordered by kind and party, or ErrNotFound.
func (s *Store) UserRights(ctx context.Context, id string) ([]Right, error) {
	var rights []Right
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

func userRights(ctx context.Context, tx *sql.Tx, id string) ([]Right, error) {
	if err := userExists(ctx, tx, id); err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT kind, party FROM user_rights WHERE user_id = ? ORDER BY kind, party`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	rights := []Right{}
	for rows.Next() {
		var r Right
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
		return ErrNotFound
	}
	return err
}

// GrantRights adds rights to a user and returns those it did not have yet,
// in request order. It fails with ErrNotFound or ErrTooManyRights.
func (s *Store) GrantRights(ctx context.Context, id string, rights []Right) ([]Right, error) {
	for _, r := range rights {
		if err := r.validate(); err != nil {
			return nil, fmt.Errorf("grant rights to %q: %w", id, err)
		}
	}
	var granted []Right
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

func (s *Store) grant(ctx context.Context, tx *sql.Tx, id string, rights []Right) ([]Right, error) {
	granted := []Right{}
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
			return nil, fmt.Errorf("%w: %d rights, at most %d allowed", ErrTooManyRights, n, s.opts.MaxRightsPerUser)
		}
	}
	return granted, nil
}

// RevokeRights removes rights from a user and returns those it had, in
// request order. It fails with ErrNotFound.
func (s *Store) RevokeRights(ctx context.Context, id string, rights []Right) ([]Right, error) {
	for _, r := range rights {
		if err := r.validate(); err != nil {
			return nil, fmt.Errorf("revoke rights from %q: %w", id, err)
		}
	}
	revoked := []Right{}
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
