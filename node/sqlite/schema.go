package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// migrations[i] takes the schema from version i to version i+1. Append only:
// a released migration is never edited, because databases in the field
// already ran it.
var migrations = []string{
	// 1: identity, users, parties, the ledger.
	`
CREATE TABLE node (
	id                    INTEGER PRIMARY KEY CHECK (id = 1),
	participant_id        TEXT    NOT NULL,
	namespace_fingerprint TEXT    NOT NULL,
	namespace_key         BLOB,
	synchronizer_id       TEXT    NOT NULL,
	max_dedup_ns          INTEGER NOT NULL,
	created_at            INTEGER NOT NULL
);

CREATE TABLE users (
	id                   TEXT    PRIMARY KEY,
	primary_party        TEXT    NOT NULL DEFAULT '',
	is_deactivated       INTEGER NOT NULL DEFAULT 0,
	annotations          TEXT    NOT NULL DEFAULT '{}',
	resource_version     INTEGER NOT NULL DEFAULT 0,
	identity_provider_id TEXT    NOT NULL DEFAULT ''
) WITHOUT ROWID;

CREATE TABLE user_rights (
	user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	kind    TEXT NOT NULL,
	party   TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (user_id, kind, party)
) WITHOUT ROWID;

CREATE TABLE parties (
	id                   TEXT    PRIMARY KEY,
	is_local             INTEGER NOT NULL,
	annotations          TEXT    NOT NULL DEFAULT '{}',
	resource_version     INTEGER NOT NULL DEFAULT 0,
	identity_provider_id TEXT    NOT NULL DEFAULT '',
	external             INTEGER NOT NULL DEFAULT 0,
	signing_threshold    INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;

CREATE TABLE party_signing_keys (
	party       TEXT NOT NULL REFERENCES parties(id) ON DELETE CASCADE,
	fingerprint TEXT NOT NULL,
	public_key  BLOB NOT NULL,
	PRIMARY KEY (party, fingerprint)
) WITHOUT ROWID;

CREATE TABLE party_topology (
	party TEXT    NOT NULL REFERENCES parties(id) ON DELETE CASCADE,
	seq   INTEGER NOT NULL,
	tx    BLOB    NOT NULL,
	PRIMARY KEY (party, seq)
) WITHOUT ROWID;

-- One row per ledger offset: the completion of an accepted or rejected command.
CREATE TABLE completions (
	ledger_offset     INTEGER PRIMARY KEY,
	record_time       INTEGER NOT NULL,
	user_id           TEXT    NOT NULL,
	command_id        TEXT    NOT NULL,
	submission_id     TEXT    NOT NULL,
	act_as            TEXT    NOT NULL,
	update_id         TEXT    NOT NULL,
	status_code       INTEGER NOT NULL,
	status_message    TEXT    NOT NULL,
	status_details    BLOB,
	dedup_kind        INTEGER NOT NULL,
	dedup_value       INTEGER NOT NULL,
	trace_parent      TEXT    NOT NULL,
	paid_traffic_cost INTEGER NOT NULL
);

-- Accepted transactions, at the offset of their completion.
CREATE TABLE transactions (
	ledger_offset  INTEGER PRIMARY KEY,
	update_id      TEXT    NOT NULL UNIQUE,
	command_id     TEXT    NOT NULL,
	workflow_id    TEXT    NOT NULL,
	user_id        TEXT    NOT NULL,
	submission_id  TEXT    NOT NULL,
	act_as         TEXT    NOT NULL,
	record_time    INTEGER NOT NULL,
	effective_time INTEGER NOT NULL,
	events         BLOB
);

CREATE TABLE contracts (
	id              INTEGER PRIMARY KEY,
	contract_id     TEXT    NOT NULL UNIQUE,
	template_id     TEXT    NOT NULL,
	package_name    TEXT    NOT NULL,
	create_argument BLOB,
	signatories     TEXT    NOT NULL,
	stakeholders    TEXT    NOT NULL,
	created_at      INTEGER NOT NULL,
	created_offset  INTEGER NOT NULL,
	archived_offset INTEGER
);

-- The latest accepted command per change ID (sha256 of user, act_as set, command id).
CREATE TABLE dedup (
	change_id     BLOB    PRIMARY KEY,
	ledger_offset INTEGER NOT NULL,
	submission_id TEXT    NOT NULL,
	record_time   INTEGER NOT NULL
) WITHOUT ROWID;
`,
	// 2: uploaded Daml-LF packages and their vetting (packages.go).
	packagesSchema,
	// 3: the read side. Contracts carry what the active contract set shows
	// (node id, JSON argument, workflow id) so that it is served from this
	// table alone, also after their creating transaction is pruned; pruning
	// finds archived contracts by archive offset and records how far it went.
	// Identity providers (/v2/idps) get their table.
	`
ALTER TABLE contracts ADD COLUMN node_id       INTEGER NOT NULL DEFAULT 0;
ALTER TABLE contracts ADD COLUMN argument_json BLOB;
ALTER TABLE contracts ADD COLUMN workflow_id   TEXT    NOT NULL DEFAULT '';
CREATE INDEX contracts_archived ON contracts (archived_offset) WHERE archived_offset IS NOT NULL;

CREATE TABLE pruning (
	id           INTEGER PRIMARY KEY CHECK (id = 1),
	pruned_up_to INTEGER NOT NULL
);

CREATE TABLE identity_providers (
	id             TEXT    PRIMARY KEY,
	issuer         TEXT    NOT NULL UNIQUE,
	jwks_url       TEXT    NOT NULL,
	audience       TEXT    NOT NULL DEFAULT '',
	is_deactivated INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
`,
	// 4: topology changes (a party allocated), each at an offset of its own
	// with no completion.
	`
CREATE TABLE topology_events (
	ledger_offset  INTEGER PRIMARY KEY,
	update_id      TEXT    NOT NULL,
	record_time    INTEGER NOT NULL,
	party          TEXT    NOT NULL,
	participant_id TEXT    NOT NULL,
	permission     TEXT    NOT NULL
);
`,
	// 5: contract keys (Daml-LF 2.3, Canton 3.5). A keyed contract keeps its
	// key's hash, by which an index finds the active contracts with a key
	// most recent first, and the key with its maintainers (the engine's
	// encoding).
	`
ALTER TABLE contracts ADD COLUMN key_hash     BLOB;
ALTER TABLE contracts ADD COLUMN contract_key BLOB;
CREATE INDEX contracts_active_key ON contracts (key_hash, id)
	WHERE key_hash IS NOT NULL AND archived_offset IS NULL;
`,
	// 6: a contract's created event encoded ahead by the node
	// (ledger.Contract.CreatedJSON), from which the active contract set is
	// served reading few columns.
	`
ALTER TABLE contracts ADD COLUMN created_json BLOB;
`,
	// 7: a keyed contract's key as events show it (ledger.Contract.KeyJSON).
	`
ALTER TABLE contracts ADD COLUMN key_json BLOB;
`,
	// 8: Canton's contract ids. A contract the node commits from this
	// version on has a suffixed id (ca12, or ca11 for the generic model)
	// and keeps the salt its unicum was made with
	// (ledger.Contract.Salt), from which its createdEventBlob carries
	// Canton's authentication data. Contracts stored before keep their
	// unsuffixed ids and have no salt.
	`
ALTER TABLE contracts ADD COLUMN salt BLOB;
`,
	// 9: a user's primaryPartyAuthentication (Canton 3.5).
	`
ALTER TABLE users ADD COLUMN primary_party_authentication INTEGER NOT NULL DEFAULT 0;
`,
	// 10: a contract whose created event encoded ahead holds its JSON
	// argument (ledger.Contract.ArgumentInCreated) is stored without
	// argument_json, read from created_json instead. The tables do not
	// change and rows stored before keep their argument_json; the step is
	// there so that a build that would not know where to find the
	// argument refuses the database.
	`
SELECT 1;
`,
}

// SchemaVersion is the schema version this build writes.
func SchemaVersion() int { return len(migrations) }

// migrate brings the database to SchemaVersion in one transaction.
func migrate(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate schema: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx,
		`CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("migrate schema: %w", err)
	}
	var have int
	err = tx.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&have)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (0)`); err != nil {
			return fmt.Errorf("migrate schema: %w", err)
		}
	case err != nil:
		return fmt.Errorf("migrate schema: read version: %w", err)
	}
	if have > len(migrations) {
		return fmt.Errorf("%w: the database has schema version %d, this build knows up to %d; run a newer ledger build",
			ErrSchemaTooNew, have, len(migrations))
	}
	if have == len(migrations) {
		return nil
	}
	for v := have; v < len(migrations); v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return fmt.Errorf("migrate schema to version %d: %w", v+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE schema_version SET version = ?`, len(migrations)); err != nil {
		return fmt.Errorf("migrate schema: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate schema: commit: %w", err)
	}
	return nil
}
