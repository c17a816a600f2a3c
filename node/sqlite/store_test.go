package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/node/ledger"
)

// openTemp opens a store on a fresh file in the test's temp dir.
func openTemp(t testing.TB) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ledger.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

var testIdentity = ledger.Identity{
	ParticipantID:        "participant1::1220aa",
	NamespaceFingerprint: "1220aa",
	NamespaceKey:         []byte("seed"),
	SynchronizerID:       "global::1220bb",
}

func TestOpenSetsDurablePragmas(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	for _, tc := range []struct {
		pragma string
		want   string
	}{
		{"journal_mode", "wal"},
		{"synchronous", "2"}, // FULL
		{"foreign_keys", "1"},
		{"busy_timeout", "5000"},
		// A group commit's savepoint sub-journals stay in memory instead
		// of a temporary file created per batch (issue 22).
		{"temp_store", "2"}, // MEMORY
		// Checkpoints every 16 MiB of WAL, not SQLite's 4 MiB (issue 22).
		{"wal_autocheckpoint", "4000"},
	} {
		var got string
		if err := s.w.QueryRowContext(ctx, "PRAGMA "+tc.pragma).Scan(&got); err != nil {
			t.Fatalf("PRAGMA %s: %v", tc.pragma, err)
		}
		if got != tc.want {
			t.Errorf("PRAGMA %s = %q, want %q", tc.pragma, got, tc.want)
		}
	}
	// Readers must not be able to write.
	if _, err := s.r.ExecContext(ctx, `INSERT INTO users (id) VALUES ('x')`); err == nil {
		t.Error("a write through a reader connection succeeded; readers should be query-only")
	}
}

func TestOpenRejectsBadPaths(t *testing.T) {
	for _, path := range []string{"", "a?b.db", "a#b.db"} {
		if _, err := Open(path, Options{}); !errors.Is(err, ledger.ErrInvalidArgument) {
			t.Errorf("Open(%q) error = %v, want ErrInvalidArgument", path, err)
		}
	}
}

func TestMigrations(t *testing.T) {
	ctx := context.Background()
	t.Run("fresh", func(t *testing.T) {
		s, _ := openTemp(t)
		var v int
		if err := s.r.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		if v != SchemaVersion() {
			t.Errorf("schema version = %d, want %d", v, SchemaVersion())
		}
	})
	t.Run("reopen keeps data and version", func(t *testing.T) {
		s, path := openTemp(t)
		if _, err := s.CreateUser(ctx, ledger.User{ID: "alice"}, nil); err != nil {
			t.Fatal(err)
		}
		s.Close()
		s2, err := Open(path, Options{})
		if err != nil {
			t.Fatalf("reopen: %v", err)
		}
		defer s2.Close()
		if _, err := s2.User(ctx, "alice"); err != nil {
			t.Errorf("user after reopen: %v", err)
		}
		var rows int
		if err := s2.r.QueryRowContext(ctx, `SELECT count(*) FROM schema_version`).Scan(&rows); err != nil || rows != 1 {
			t.Errorf("schema_version rows = %d (%v), want 1", rows, err)
		}
	})
	t.Run("newer version refused", func(t *testing.T) {
		s, path := openTemp(t)
		if _, err := s.w.ExecContext(ctx, `UPDATE schema_version SET version = ?`, SchemaVersion()+1); err != nil {
			t.Fatal(err)
		}
		s.Close()
		_, err := Open(path, Options{})
		if !errors.Is(err, ErrSchemaTooNew) {
			t.Fatalf("Open of a newer database: error = %v, want ErrSchemaTooNew", err)
		}
		if !strings.Contains(err.Error(), "newer ledger build") {
			t.Errorf("error %q does not tell the user what to do", err)
		}
	})
	t.Run("failed migration leaves nothing behind", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "ledger.db")
		saved := migrations
		migrations = append(append([]string{}, saved...), `CREATE TABLE extra (x); THIS IS NOT SQL`)
		_, err := Open(path, Options{})
		migrations = saved
		if err == nil {
			t.Fatal("Open with a broken migration succeeded")
		}
		s, err := Open(path, Options{})
		if err != nil {
			t.Fatalf("reopen after failed migration: %v", err)
		}
		defer s.Close()
		var n int
		if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'extra'`).Scan(&n); err != nil || n != 0 {
			t.Errorf("table from the failed migration exists (n=%d, err=%v)", n, err)
		}
	})
}

func TestMemoryDatabasesAreSharedWithinAndPrivateAcross(t *testing.T) {
	ctx := context.Background()
	a, err := Open(":memory:", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(":memory:", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := a.CreateUser(ctx, ledger.User{ID: "alice"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := a.User(ctx, "alice"); err != nil {
		t.Errorf("read back on the same in-memory store: %v", err)
	}
	if _, err := b.User(ctx, "alice"); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("other in-memory store sees alice: err = %v", err)
	}
	if _, err := a.Commit(ctx, accepted("u", "c1", "Alice")); err != nil {
		t.Fatalf("commit on :memory:: %v", err)
	}
}

func TestIdentity(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t)
	if _, err := s.Identity(ctx); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("Identity before Init: %v, want ErrNotFound", err)
	}
	if _, _, err := s.Init(ctx, ledger.Identity{}); !errors.Is(err, ledger.ErrInvalidArgument) {
		t.Errorf("Init with empty identity: %v, want ErrInvalidArgument", err)
	}
	got, created, err := s.Init(ctx, testIdentity)
	if err != nil || !created {
		t.Fatalf("first Init: created=%v err=%v", created, err)
	}
	if got.ParticipantID != testIdentity.ParticipantID || got.MaxDeduplication != ledger.DefaultMaxDeduplication ||
		string(got.NamespaceKey) != "seed" || got.CreatedAt.IsZero() {
		t.Errorf("first Init returned %+v", got)
	}
	rights, err := s.UserRights(ctx, ledger.AdminUserID)
	if err != nil || len(rights) != 1 || rights[0] != (ledger.Right{Kind: ledger.ParticipantAdmin}) {
		t.Errorf("bootstrap admin rights = %v (%v), want [ParticipantAdmin]", rights, err)
	}
	// A later start keeps the first identity and does not recreate the admin.
	if err := s.DeleteUser(ctx, ledger.AdminUserID); err != nil {
		t.Fatal(err)
	}
	other := testIdentity
	other.ParticipantID = "participant2::1220cc"
	got, created, err = s.Init(ctx, other)
	if err != nil || created || got.ParticipantID != testIdentity.ParticipantID {
		t.Errorf("second Init: %+v created=%v err=%v; want the stored identity", got, created, err)
	}
	if _, err := s.User(ctx, ledger.AdminUserID); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("second Init recreated the admin user: %v", err)
	}
	if err := s.SetMaxDeduplication(ctx, time.Hour); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	got, err = s2.Identity(ctx)
	if err != nil || got.ParticipantID != testIdentity.ParticipantID || got.MaxDeduplication != time.Hour {
		t.Errorf("identity after reopen: %+v %v", got, err)
	}
	if d := time.Duration(s2.maxDedup.Load()); d != time.Hour {
		t.Errorf("max dedup loaded at open = %v, want 1h", d)
	}
}

// TestSchema8KeepsOldContracts opens a database written at schema version
// 7 (contracts with unsuffixed ids and no salt): the upgrade keeps its
// contracts readable with their ids as they were, and contracts committed
// after it keep their salt.
func TestSchema8KeepsOldContracts(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ledger.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (7)`); err != nil {
		t.Fatal(err)
	}
	for v := 0; v < 7; v++ {
		if _, err := db.Exec(migrations[v]); err != nil {
			t.Fatalf("schema step %d: %v", v+1, err)
		}
	}
	old := "00" + strings.Repeat("ab", 32)
	if _, err := db.Exec(`INSERT INTO contracts (contract_id, template_id, package_name, create_argument,
		signatories, stakeholders, created_at, created_offset) VALUES (?, 'pkg:Iou:Iou', 'iou', x'01', '["Alice"]', '["Alice"]', 1, 0)`, old); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("open a schema 7 database: %v", err)
	}
	defer s.Close()
	c, err := s.Contract(ctx, old)
	if err != nil {
		t.Fatalf("old contract after the upgrade: %v", err)
	}
	if c.ContractID != old || c.Salt != nil || string(c.Argument) != "\x01" {
		t.Errorf("old contract = %s salt %x argument %x, want its id, no salt and its argument", c.ContractID, c.Salt, c.Argument)
	}
	e := withContracts(accepted("u", "c1", "Alice"), []string{old[:66] + "ca12" + "1220" + strings.Repeat("cd", 32)})
	e.Transaction.Created[0].Salt = []byte(strings.Repeat("s", 32))
	if _, err := s.Commit(ctx, e); err != nil {
		t.Fatal(err)
	}
	n, err := s.Contract(ctx, e.Transaction.Created[0].ContractID)
	if err != nil {
		t.Fatal(err)
	}
	if string(n.Salt) != strings.Repeat("s", 32) {
		t.Errorf("salt of a new contract = %q, want it kept", n.Salt)
	}
}

// TestArgumentInCreatedStoredOnce: a contract whose created event encoded
// ahead holds its JSON argument is stored without argument_json and reads
// back with the created event whole; one without the flag, or with the
// flag but no created event, keeps its argument as it was given.
func TestArgumentInCreatedStoredOnce(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	ids := []string{"00" + strings.Repeat("a1", 32), "00" + strings.Repeat("b2", 32), "00" + strings.Repeat("c3", 32)}
	e := withContracts(accepted("u", "c1", "Alice"), ids)
	for i := range e.Transaction.Created {
		c := &e.Transaction.Created[i]
		c.ArgumentJSON = []byte(`{"owner":"Alice"}`)
		c.CreatedJSON = []byte("1created " + c.ContractID)
	}
	e.Transaction.Created[0].ArgumentInCreated = true
	e.Transaction.Created[2].ArgumentInCreated, e.Transaction.Created[2].CreatedJSON = true, nil
	if _, err := s.Commit(ctx, e); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"", `{"owner":"Alice"}`, `{"owner":"Alice"}`} {
		var stored []byte
		if err := s.r.QueryRowContext(ctx, `SELECT argument_json FROM contracts WHERE contract_id = ?`, ids[i]).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		c, err := s.ContractByID(ctx, ids[i])
		if err != nil {
			t.Fatal(err)
		}
		if string(stored) != want || string(c.ArgumentJSON) != want || (stored == nil) != (want == "") || c.ArgumentInCreated {
			t.Errorf("contract %d: argument_json %q, read back %q (flag %v), want %q", i, stored, c.ArgumentJSON, c.ArgumentInCreated, want)
		}
		if wantCreated := string(e.Transaction.Created[i].CreatedJSON); string(c.CreatedJSON) != wantCreated {
			t.Errorf("contract %d: created_json %q, want %q", i, c.CreatedJSON, wantCreated)
		}
	}
}

// TestSchema10KeepsStoredArguments opens a database written at schema
// version 9, whose contracts all keep argument_json: the upgrade leaves
// them as they are, and a build at version 9 refuses the upgraded file.
func TestSchema10KeepsStoredArguments(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ledger.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (9)`); err != nil {
		t.Fatal(err)
	}
	for v := 0; v < 9; v++ {
		if _, err := db.Exec(migrations[v]); err != nil {
			t.Fatalf("schema step %d: %v", v+1, err)
		}
	}
	id := "00" + strings.Repeat("ab", 32)
	if _, err := db.Exec(`INSERT INTO contracts (contract_id, template_id, package_name, create_argument,
		signatories, stakeholders, created_at, created_offset, argument_json, created_json)
		VALUES (?, 'pkg:Iou:Iou', 'iou', x'01', '["Alice"]', '["Alice"]', 1, 0, '{"owner":"Alice"}', '1ahead')`, id); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("open a schema 9 database: %v", err)
	}
	c, err := s.ContractByID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if string(c.ArgumentJSON) != `{"owner":"Alice"}` || string(c.CreatedJSON) != "1ahead" {
		t.Errorf("contract after the upgrade: argument %q, created %q; want both as stored", c.ArgumentJSON, c.CreatedJSON)
	}
	s.Close()
	saved := migrations
	migrations = migrations[:9]
	_, err = Open(path, Options{})
	migrations = saved
	if !errors.Is(err, ErrSchemaTooNew) {
		t.Errorf("a schema 9 build opened the upgraded database: %v", err)
	}
}
