package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/ledger-cli/ledger/node/ledger"
)

// packagesSchema is migration 2: the packages of uploaded DARs (the dalf
// bytes, as uploaded) and their vetting state, whose changes the one-row
// package_vetting table counts as the topology serial.
const packagesSchema = `
CREATE TABLE packages (
	id          TEXT    PRIMARY KEY,
	name        TEXT    NOT NULL,
	version     TEXT    NOT NULL,
	lf_version  TEXT    NOT NULL,
	archive     BLOB    NOT NULL,
	uploaded_at INTEGER NOT NULL,
	vetted      INTEGER NOT NULL DEFAULT 0,
	valid_from  INTEGER,
	valid_until INTEGER
);

CREATE TABLE package_vetting (
	id     INTEGER PRIMARY KEY CHECK (id = 1),
	serial INTEGER NOT NULL
);
INSERT INTO package_vetting (id, serial) VALUES (1, 0);
`

// AddPackages stores the packages not stored yet and applies the vetting
// changes, in one transaction. It returns the vetting serial after the
// change: one more than before when changes is not empty.
func (s *Store) AddPackages(ctx context.Context, pkgs []ledger.Package, changes []ledger.VettingChange) (serial int, err error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("add packages: %w", err)
	}
	defer tx.Rollback()
	now := s.opts.Now().UnixMicro()
	stmt, err := tx.PrepareContext(ctx, `INSERT OR IGNORE INTO packages (id, name, version, lf_version, archive, uploaded_at) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return 0, fmt.Errorf("add packages: %w", err)
	}
	defer stmt.Close()
	for _, p := range pkgs {
		if _, err := stmt.ExecContext(ctx, p.ID, p.Name, p.Version, p.LanguageVersion, p.Archive, now); err != nil {
			return 0, fmt.Errorf("add package %s: %w", p.ID, err)
		}
	}
	serial, err = applyVetting(ctx, tx, changes, nil)
	if err != nil {
		return 0, fmt.Errorf("add packages: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("add packages: commit: %w", err)
	}
	return serial, nil
}

// UpdateVetting applies vetting changes to stored packages. With
// expectedSerial set, it fails with ledger.ErrConcurrentUpdate unless the
// serial is still that value. It returns the new serial.
func (s *Store) UpdateVetting(ctx context.Context, changes []ledger.VettingChange, expectedSerial *int) (int, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("update vetting: %w", err)
	}
	defer tx.Rollback()
	serial, err := applyVetting(ctx, tx, changes, expectedSerial)
	if err != nil {
		return 0, fmt.Errorf("update vetting: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("update vetting: commit: %w", err)
	}
	return serial, nil
}

func applyVetting(ctx context.Context, tx *sql.Tx, changes []ledger.VettingChange, expected *int) (int, error) {
	var serial int
	if err := tx.QueryRowContext(ctx, `SELECT serial FROM package_vetting WHERE id = 1`).Scan(&serial); err != nil {
		return 0, err
	}
	if expected != nil && *expected != serial {
		return 0, fmt.Errorf("%w: the vetting serial is %d, not %d", ledger.ErrConcurrentUpdate, serial, *expected)
	}
	if len(changes) == 0 {
		return serial, nil
	}
	for _, c := range changes {
		res, err := tx.ExecContext(ctx, `UPDATE packages SET vetted = ?, valid_from = ?, valid_until = ? WHERE id = ?`,
			c.Vetting.Vetted, optMicros(c.Vetting.ValidFrom), optMicros(c.Vetting.ValidUntil), c.PackageID)
		if err != nil {
			return 0, err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return 0, fmt.Errorf("package %s: %w", c.PackageID, ledger.ErrNotFound)
		}
	}
	serial++
	if _, err := tx.ExecContext(ctx, `UPDATE package_vetting SET serial = ? WHERE id = 1`, serial); err != nil {
		return 0, err
	}
	return serial, nil
}

// optMicros stores an optional time as microseconds, NULL when absent.
func optMicros(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixMicro()
}

func timeOf(n sql.NullInt64) *time.Time {
	if !n.Valid {
		return nil
	}
	t := time.UnixMicro(n.Int64).UTC()
	return &t
}

// Packages returns every stored package with its vetting, in upload order,
// and the vetting serial. withArchives also reads the dalf bytes.
func (s *Store) Packages(ctx context.Context, withArchives bool) ([]ledger.Package, []ledger.Vetting, int, error) {
	cols := `id, name, version, lf_version, uploaded_at, vetted, valid_from, valid_until`
	if withArchives {
		cols += `, archive`
	}
	rows, err := s.r.QueryContext(ctx, `SELECT `+cols+` FROM packages ORDER BY rowid`)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("list packages: %w", err)
	}
	defer rows.Close()
	var pkgs []ledger.Package
	var vetting []ledger.Vetting
	for rows.Next() {
		var p ledger.Package
		var v ledger.Vetting
		var uploaded int64
		var from, until sql.NullInt64
		dest := []any{&p.ID, &p.Name, &p.Version, &p.LanguageVersion, &uploaded, &v.Vetted, &from, &until}
		if withArchives {
			dest = append(dest, &p.Archive)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, nil, 0, fmt.Errorf("list packages: %w", err)
		}
		p.UploadedAt = time.UnixMicro(uploaded).UTC()
		v.ValidFrom, v.ValidUntil = timeOf(from), timeOf(until)
		pkgs = append(pkgs, p)
		vetting = append(vetting, v)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, 0, fmt.Errorf("list packages: %w", err)
	}
	var serial int
	if err := s.r.QueryRowContext(ctx, `SELECT serial FROM package_vetting WHERE id = 1`).Scan(&serial); err != nil {
		return nil, nil, 0, fmt.Errorf("list packages: %w", err)
	}
	return pkgs, vetting, serial, nil
}

// PackageArchive returns the dalf of a stored package, or
// ledger.ErrNotFound.
func (s *Store) PackageArchive(ctx context.Context, id string) ([]byte, error) {
	var b []byte
	err := s.r.QueryRowContext(ctx, `SELECT archive FROM packages WHERE id = ?`, id).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("package %s: %w", id, ledger.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("package %s: %w", id, err)
	}
	return b, nil
}
