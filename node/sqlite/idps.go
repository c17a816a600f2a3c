package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/ledger-cli/ledger/node/ledger"
)

const idpColumns = `id, issuer, jwks_url, audience, is_deactivated`

func scanIDP(row interface{ Scan(...any) error }) (ledger.IdentityProvider, error) {
	var p ledger.IdentityProvider
	err := row.Scan(&p.ID, &p.Issuer, &p.JwksURL, &p.Audience, &p.IsDeactivated)
	return p, err
}

// idpError maps SQLite's uniqueness failures to the ledger's errors.
func idpError(id string, err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "identity_providers.issuer"):
		return fmt.Errorf("identity provider %q: %w", id, ledger.ErrIssuerTaken)
	case strings.Contains(msg, "UNIQUE") || strings.Contains(msg, "PRIMARY KEY"):
		return fmt.Errorf("identity provider %q: %w", id, ledger.ErrAlreadyExists)
	}
	return fmt.Errorf("identity provider %q: %w", id, err)
}

// CreateIdentityProvider records p (ErrAlreadyExists, ErrIssuerTaken).
// A taken id is reported before a taken issuer.
func (s *Store) CreateIdentityProvider(ctx context.Context, p ledger.IdentityProvider) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var one int
	err = tx.QueryRowContext(ctx, `SELECT 1 FROM identity_providers WHERE id = ?`, p.ID).Scan(&one)
	if err == nil {
		return fmt.Errorf("identity provider %q: %w", p.ID, ledger.ErrAlreadyExists)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO identity_providers (`+idpColumns+`) VALUES (?, ?, ?, ?, ?)`,
		p.ID, p.Issuer, p.JwksURL, p.Audience, boolInt(p.IsDeactivated)); err != nil {
		return idpError(p.ID, err)
	}
	return tx.Commit()
}

// IdentityProvider returns the provider id, or ErrNotFound.
func (s *Store) IdentityProvider(ctx context.Context, id string) (ledger.IdentityProvider, error) {
	p, err := scanIDP(s.r.QueryRowContext(ctx, `SELECT `+idpColumns+` FROM identity_providers WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return p, fmt.Errorf("identity provider %q: %w", id, ledger.ErrNotFound)
	}
	return p, err
}

// ListIdentityProviders returns every provider in id order.
func (s *Store) ListIdentityProviders(ctx context.Context) ([]ledger.IdentityProvider, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+idpColumns+` FROM identity_providers ORDER BY id`)
	return scanAll(rows, err, 0, scanIDP)
}

// UpdateIdentityProvider applies upd to provider id and returns it
// (ErrNotFound, ErrIssuerTaken).
func (s *Store) UpdateIdentityProvider(ctx context.Context, id string, upd ledger.IdentityProviderUpdate) (ledger.IdentityProvider, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return ledger.IdentityProvider{}, err
	}
	defer tx.Rollback()
	p, err := scanIDP(tx.QueryRowContext(ctx, `SELECT `+idpColumns+` FROM identity_providers WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return p, fmt.Errorf("identity provider %q: %w", id, ledger.ErrNotFound)
	}
	if err != nil {
		return p, err
	}
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&p.Issuer, upd.Issuer)
	set(&p.JwksURL, upd.JwksURL)
	set(&p.Audience, upd.Audience)
	if upd.IsDeactivated != nil {
		p.IsDeactivated = *upd.IsDeactivated
	}
	if _, err := tx.ExecContext(ctx, `UPDATE identity_providers SET issuer = ?, jwks_url = ?, audience = ?,
		is_deactivated = ? WHERE id = ?`, p.Issuer, p.JwksURL, p.Audience, boolInt(p.IsDeactivated), id); err != nil {
		return p, idpError(id, err)
	}
	return p, tx.Commit()
}

// DeleteIdentityProvider removes provider id (ErrNotFound).
func (s *Store) DeleteIdentityProvider(ctx context.Context, id string) error {
	res, err := s.w.ExecContext(ctx, `DELETE FROM identity_providers WHERE id = ?`, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("identity provider %q: %w", id, ledger.ErrNotFound)
	}
	return nil
}
