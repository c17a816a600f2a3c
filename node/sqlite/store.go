// Package sqlite is the node's store on SQLite: one file (or an in-memory
// database for tests) holding the node's identity, users and rights, party
// records, and the ledger itself. It implements the node.Store interface
// with the records of package ledger; it knows SQL and nothing about HTTP or
// JSON wire types.
//
// The ledger is an append-only log of entries at gap-free offsets. Accepted
// entries also archive and create contracts and record the command's change
// ID for deduplication; all of that happens in the same SQLite transaction
// as the append, so a crash never leaves half an entry behind.
//
// Durability: the database runs in WAL mode with synchronous=FULL, so Commit
// and every other write return only after SQLite has fsynced. To reach
// thousands of durable commits per second, Commit hands its entry to a single
// committer goroutine that writes every entry waiting at that moment in one
// SQLite transaction (one fsync) and then answers each caller with its own
// result (group commit).
//
// Errors are the sentinel values of package ledger (ledger.ErrNotFound,
// ledger.ErrAlreadyExists, ledger.ErrConcurrentUpdate, …), to test with
// errors.Is; ledger.DuplicateCommandError and ledger.ContractNotActiveError
// carry details for errors.As. ErrSchemaTooNew is the store's own.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/ledger-cli/ledger/node/ledger"
)

// ErrSchemaTooNew: the database was written by a newer ledger build.
var ErrSchemaTooNew = errors.New("database schema is newer than this build supports")

// Options tune a Store. The zero value is usable.
type Options struct {
	// BusyTimeout is how long a connection waits for a lock held by another
	// process before failing (default 5s).
	BusyTimeout time.Duration
	// ReadConns is the number of reader connections for a file database
	// (default 4). An in-memory database uses one connection for everything.
	ReadConns int
	// MaxBatch caps how many entries one group commit writes (default 512).
	MaxBatch int
	// MaxRightsPerUser caps the rights of one user (default 1000, as Canton).
	MaxRightsPerUser int
	// Now is the clock for record times (default time.Now).
	Now func() time.Time
}

func (o *Options) setDefaults() {
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = 5 * time.Second
	}
	if o.ReadConns <= 0 {
		o.ReadConns = 4
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = 512
	}
	if o.MaxRightsPerUser <= 0 {
		o.MaxRightsPerUser = 1000
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Store is the node's database. Its methods are safe for concurrent use.
type Store struct {
	path string
	opts Options
	w    *sql.DB // the one writer connection
	r    *sql.DB // readers (the same pool as w for :memory:)

	end     atomic.Int64                     // ledger end, published after each durable batch
	head    atomic.Pointer[ledger.Committed] // the ledger end and its record time, likewise
	mu      sync.Mutex                       // guards changed
	changed chan struct{}

	maxDedup atomic.Int64 // nanoseconds; the node's maximum deduplication duration

	queue     chan *pending
	quit      chan struct{}
	done      chan struct{}
	closeOnce sync.Once

	commits, failed, batches atomic.Int64

	lastRecord int64 // µs; owned by the committer goroutine

	// completionStmts are the prepared completion reads, without and with
	// the user filter (preparing costs as much as reading a page of 200).
	completionStmtsMu sync.Mutex
	completionStmts   [2]*sql.Stmt

	users userCache // callers' users and rights, between writes

	reads   readStmts    // the read side's prepared statements
	pruned  atomic.Int64 // the offset the ledger is pruned up to (inclusive)
	pruneMu sync.Mutex   // one prune at a time
}

// Open opens (creating if needed) the database at path, or a private
// in-memory database when path is ":memory:", and applies pending schema
// migrations. It fails with ErrSchemaTooNew when the file was written by a
// newer build.
func Open(path string, opts Options) (*Store, error) {
	opts.setDefaults()
	if path == "" {
		return nil, fmt.Errorf("open database: %w: empty path (give a file name or :memory:)", ledger.ErrInvalidArgument)
	}
	memory := path == ":memory:"
	if !memory && strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("open database %q: %w: the path must not contain '?' or '#'", path, ledger.ErrInvalidArgument)
	}
	if !memory {
		if err := makePrivate(path); err != nil {
			return nil, fmt.Errorf("open database %q: %w", path, err)
		}
	}
	pragmas := fmt.Sprintf("_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)&_pragma=synchronous(FULL)",
		opts.BusyTimeout.Milliseconds())
	// The writer begins IMMEDIATE so a second process writing the same file
	// waits on the busy timeout instead of failing on lock upgrade. It keeps
	// its temporary files in memory: above all the sub-journal of the
	// savepoint each entry of a group commit runs under, which SQLite
	// otherwise spills to a new temporary file once it passes 64 KiB — an
	// open, writes and an unlink per batch, more often since contract ids
	// grew to 138 characters (issue 22). It holds the pages one entry (or
	// one pruning batch) changes, and is emptied when the entry is done.
	// It checkpoints the WAL into the database file every 4000 pages
	// (16 MiB) instead of SQLite's 1000: the pages every commit rewrites
	// (the last leaf of each table, the index pages above it) are copied
	// back once per checkpoint, not once per 4 MiB, which cut bench ping's
	// write bytes per op by 9 % (issue 22). The -wal file grows to that
	// size and stays there.
	wdsn := path + "?" + pragmas + "&_pragma=journal_mode(WAL)&_pragma=temp_store(MEMORY)" +
		"&_pragma=wal_autocheckpoint(4000)&_txlock=immediate"
	w, err := sql.Open("sqlite", wdsn)
	if err != nil {
		return nil, fmt.Errorf("open database %q: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxIdleTime(0)
	w.SetConnMaxLifetime(0)

	s := &Store{
		path:    path,
		opts:    opts,
		w:       w,
		r:       w,
		changed: make(chan struct{}),
		queue:   make(chan *pending),
		quit:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	s.maxDedup.Store(int64(ledger.DefaultMaxDeduplication))
	ctx := context.Background()
	if err := migrate(ctx, w); err != nil {
		w.Close()
		return nil, fmt.Errorf("open database %q: %w", path, err)
	}
	if !memory {
		r, err := sql.Open("sqlite", path+"?"+pragmas+"&_pragma=query_only(1)")
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("open database %q: %w", path, err)
		}
		r.SetMaxOpenConns(opts.ReadConns)
		r.SetMaxIdleConns(opts.ReadConns)
		s.r = r
	}
	if err := s.load(ctx); err != nil {
		s.closeDBs()
		return nil, fmt.Errorf("open database %q: %w", path, err)
	}
	go s.run()
	return s, nil
}

// makePrivate creates the database file with mode 0600 before SQLite opens
// it (SQLite would create it 0644): it holds the node's namespace key in
// clear. SQLite gives the -wal and -shm files the mode of the database
// file. A file (or a -wal or -shm left behind) that group or others may
// read is narrowed to 0600.
func makePrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if fi.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(p, fi.Mode().Perm()&0o700); err != nil {
				return fmt.Errorf("narrow the permissions of %s to the owner: %w", p, err)
			}
		}
	}
	return nil
}

// load reads the ledger end, last record time and dedup limit into memory.
func (s *Store) load(ctx context.Context) error {
	var end, last sql.NullInt64
	if err := s.w.QueryRowContext(ctx,
		`SELECT max(ledger_offset), max(record_time) FROM completions`).Scan(&end, &last); err != nil {
		return fmt.Errorf("read ledger end: %w", err)
	}
	var pruned, topoEnd, topoLast sql.NullInt64
	if err := s.w.QueryRowContext(ctx, `SELECT max(pruned_up_to) FROM pruning`).Scan(&pruned); err != nil {
		return fmt.Errorf("read pruning offset: %w", err)
	}
	if err := s.w.QueryRowContext(ctx, `SELECT max(ledger_offset), max(record_time) FROM topology_events`).Scan(&topoEnd, &topoLast); err != nil {
		return fmt.Errorf("read topology events: %w", err)
	}
	s.pruned.Store(pruned.Int64)
	// Topology events have offsets too; a prune of everything leaves no
	// entry, and the ledger end stays.
	s.end.Store(max(end.Int64, topoEnd.Int64, pruned.Int64))
	s.lastRecord = max(last.Int64, topoLast.Int64)
	var rt time.Time
	if s.lastRecord > 0 {
		rt = fromMicros(s.lastRecord)
	}
	s.head.Store(&ledger.Committed{Offset: s.end.Load(), RecordTime: rt})
	var d int64
	err := s.w.QueryRowContext(ctx, `SELECT max_dedup_ns FROM node WHERE id = 1`).Scan(&d)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return fmt.Errorf("read node identity: %w", err)
	default:
		s.maxDedup.Store(d)
	}
	return nil
}

// String is the database's path (":memory:" for an in-memory one).
func (s *Store) String() string { return s.path }

// Close waits for the commit in progress, then closes the database. Commits
// still waiting get ErrClosed.
func (s *Store) Close() error {
	var err error
	s.closeOnce.Do(func() {
		close(s.quit)
		<-s.done
		err = s.closeDBs()
	})
	return err
}

func (s *Store) closeDBs() error {
	s.completionStmtsMu.Lock()
	for i, st := range s.completionStmts {
		if st != nil {
			_ = st.Close()
			s.completionStmts[i] = nil
		}
	}
	s.completionStmtsMu.Unlock()
	s.reads.close()
	var errR error
	if s.r != s.w {
		errR = s.r.Close()
	}
	return errors.Join(s.w.Close(), errR)
}
