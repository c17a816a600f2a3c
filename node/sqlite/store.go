// Package store is the storage layer of `ledger serve`: one SQLite file (or an
// in-memory database for tests) holding the node's identity, users and rights,
// party records, and the ledger itself.
//
// The ledger is an append-only log of entries at gap-free offsets 1, 2, 3, …
// (the ledger end is 0 while it is empty). Every entry is one command outcome:
// an accepted transaction together with its completion, or a rejected
// completion alone. Accepted entries also archive and create contracts and
// record the command's change ID for deduplication; all of that happens in
// the same SQLite transaction as the append, so a crash never leaves half an
// entry behind.
//
// Durability: the database runs in WAL mode with synchronous=FULL, so Commit
// and every other write return only after SQLite has fsynced. To reach
// thousands of durable commits per second, Commit hands its entry to a single
// committer goroutine that writes every entry waiting at that moment in one
// SQLite transaction (one fsync) and then answers each caller with its own
// result (group commit).
//
// The store knows SQL and nothing about HTTP or JSON wire types: transaction
// events and create arguments are opaque byte slices chosen by the engine.
// Errors the server maps to Canton error ids are sentinel values (ErrNotFound,
// ErrAlreadyExists, ErrConcurrentUpdate, ErrDuplicateCommand, …) to test with
// errors.Is; DuplicateCommandError and ContractNotActiveError carry details
// for errors.As.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// Errors returned by the store. Test for them with errors.Is.
var (
	// ErrNotFound: the user, party, contract, update or identity does not exist.
	ErrNotFound = errors.New("not found")
	// ErrAlreadyExists: a user or party with this id already exists.
	ErrAlreadyExists = errors.New("already exists")
	// ErrConcurrentUpdate: the expected resource version differs from the stored one.
	ErrConcurrentUpdate = errors.New("resource version mismatch: concurrent update")
	// ErrAnnotationsTooLarge: annotations exceed MaxAnnotationsSize after the change.
	ErrAnnotationsTooLarge = errors.New("annotations exceed the size limit")
	// ErrTooManyRights: granting would give the user more than Options.MaxRightsPerUser rights.
	ErrTooManyRights = errors.New("too many user rights")
	// ErrDuplicateCommand: an accepted command with the same change ID lies
	// within the deduplication window. The error is a *DuplicateCommandError.
	ErrDuplicateCommand = errors.New("duplicate command")
	// ErrContractNotActive: an input or archived contract is unknown or already
	// archived. The error is a *ContractNotActiveError.
	ErrContractNotActive = errors.New("contract not active")
	// ErrMaxRecordTimeExceeded: the record time the entry would get is after
	// its transaction's MaxRecordTime; nothing was written.
	ErrMaxRecordTimeExceeded = errors.New("record time after max record time")
	// ErrInvalidArgument: the caller passed a malformed value (a bug in the caller).
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrSchemaTooNew: the database was written by a newer ledger build.
	ErrSchemaTooNew = errors.New("database schema is newer than this build supports")
	// ErrClosed: the store has been closed.
	ErrClosed = errors.New("store is closed")
)

// DuplicateCommandError reports the earlier accepted command of the same change.
type DuplicateCommandError struct {
	CompletionOffset int64  // offset of the earlier accepted command
	SubmissionID     string // its submission id
}

func (e *DuplicateCommandError) Error() string {
	return fmt.Sprintf("duplicate command: the change was accepted at offset %d (submission %q)",
		e.CompletionOffset, e.SubmissionID)
}

// Is makes errors.Is(err, ErrDuplicateCommand) true.
func (e *DuplicateCommandError) Is(target error) bool { return target == ErrDuplicateCommand }

// ContractNotActiveError names the contract that is unknown or archived.
type ContractNotActiveError struct {
	ContractID     string
	ArchivedOffset int64 // 0 when the contract is unknown
}

func (e *ContractNotActiveError) Error() string {
	if e.ArchivedOffset == 0 {
		return fmt.Sprintf("contract %s not found", e.ContractID)
	}
	return fmt.Sprintf("contract %s was archived at offset %d", e.ContractID, e.ArchivedOffset)
}

// Is makes errors.Is(err, ErrContractNotActive) true.
func (e *ContractNotActiveError) Is(target error) bool { return target == ErrContractNotActive }

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
	opts Options
	w    *sql.DB // the one writer connection
	r    *sql.DB // readers (the same pool as w for :memory:)

	end     atomic.Int64 // ledger end, published after each durable batch
	mu      sync.Mutex   // guards changed
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
}

// Open opens (creating if needed) the database at path, or a private
// in-memory database when path is ":memory:", and applies pending schema
// migrations. It fails with ErrSchemaTooNew when the file was written by a
// newer build.
func Open(path string, opts Options) (*Store, error) {
	opts.setDefaults()
	if path == "" {
		return nil, fmt.Errorf("open database: %w: empty path (give a file name or :memory:)", ErrInvalidArgument)
	}
	memory := path == ":memory:"
	if !memory && strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("open database %q: %w: the path must not contain '?' or '#'", path, ErrInvalidArgument)
	}
	pragmas := fmt.Sprintf("_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)&_pragma=synchronous(FULL)",
		opts.BusyTimeout.Milliseconds())
	// The writer begins IMMEDIATE so a second process writing the same file
	// waits on the busy timeout instead of failing on lock upgrade.
	wdsn := path + "?" + pragmas + "&_pragma=journal_mode(WAL)&_txlock=immediate"
	w, err := sql.Open("sqlite", wdsn)
	if err != nil {
		return nil, fmt.Errorf("open database %q: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxIdleTime(0)
	w.SetConnMaxLifetime(0)

	s := &Store{
		opts:    opts,
		w:       w,
		r:       w,
		changed: make(chan struct{}),
		queue:   make(chan *pending),
		quit:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	s.maxDedup.Store(int64(DefaultMaxDeduplication))
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

// load reads the ledger end, last record time and dedup limit into memory.
func (s *Store) load(ctx context.Context) error {
	var end, last sql.NullInt64
	if err := s.w.QueryRowContext(ctx,
		`SELECT max(ledger_offset), max(record_time) FROM completions`).Scan(&end, &last); err != nil {
		return fmt.Errorf("read ledger end: %w", err)
	}
	s.end.Store(end.Int64)
	s.lastRecord = last.Int64
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
	var errR error
	if s.r != s.w {
		errR = s.r.Close()
	}
	return errors.Join(s.w.Close(), errR)
}
