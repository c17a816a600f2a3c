package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/ledger-cli/ledger/node/ledger"
)

// Stats returns the commit counters. Commits/Batches is commits per fsync.
func (s *Store) Stats() ledger.CommitStats {
	return ledger.CommitStats{Commits: s.commits.Load(), Failed: s.failed.Load(), Batches: s.batches.Load()}
}

// LedgerEnd is the offset of the last durable entry (0 when empty).
func (s *Store) LedgerEnd() int64 { return s.end.Load() }

// Head is the ledger end with the record time of the last entry, published
// together (both zero on an empty ledger).
func (s *Store) Head() ledger.Committed {
	if h := s.head.Load(); h != nil {
		return *h
	}
	return ledger.Committed{}
}

// Changed returns a channel that is closed when the ledger end next moves.
// Take the channel before reading LedgerEnd so no commit slips between them.
// Close does not close it; WaitPast also returns when the store closes.
func (s *Store) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// WaitPast blocks until the ledger end is past offset, the context ends or
// the store closes, and returns the ledger end.
func (s *Store) WaitPast(ctx context.Context, offset int64) (int64, error) {
	for {
		ch := s.Changed()
		if end := s.LedgerEnd(); end > offset {
			return end, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return s.LedgerEnd(), ctx.Err()
		case <-s.quit:
			return s.LedgerEnd(), ledger.ErrClosed
		}
	}
}

func (s *Store) publish(end int64) {
	s.head.Store(&ledger.Committed{Offset: end, RecordTime: fromMicros(s.lastRecord)})
	s.end.Store(end)
	s.mu.Lock()
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

type pending struct {
	e   ledger.Entry
	res ledger.Committed
	err error
	ok  chan struct{}
}

// Commit appends e durably and returns its offset and record time. For an
// accepted transaction it atomically checks deduplication (failing with a
// *DuplicateCommandError when an accepted command of the same change lies
// in the window, also against concurrent Commits), checks that inputs and
// archived contracts are active (*ContractNotActiveError), checks
// MaxRecordTime, then writes the transaction, its completion, its contracts
// and the change's dedup record. A rejection only writes its completion.
// Nothing is written when it fails, with two exceptions where the outcome
// is unknown: ctx ending while the entry waits for its batch, and an error
// from SQLite's commit itself (e.g. a failed fsync).
func (s *Store) Commit(ctx context.Context, e ledger.Entry) (ledger.Committed, error) {
	if err := validateEntry(&e); err != nil {
		return ledger.Committed{}, fmt.Errorf("commit command %q: %w", e.CommandID, err)
	}
	select {
	case <-s.quit:
		return ledger.Committed{}, ledger.ErrClosed
	default:
	}
	p := &pending{e: e, ok: make(chan struct{})}
	select {
	case s.queue <- p:
	case <-ctx.Done():
		return ledger.Committed{}, ctx.Err()
	case <-s.quit:
		return ledger.Committed{}, ledger.ErrClosed
	}
	select {
	case <-p.ok:
		if p.err != nil {
			return ledger.Committed{}, fmt.Errorf("commit command %q: %w", e.CommandID, p.err)
		}
		return p.res, nil
	case <-ctx.Done():
		return ledger.Committed{}, ctx.Err()
	}
}

func validateEntry(e *ledger.Entry) error {
	if t := e.Topology; t != nil {
		if t.UpdateID == "" || t.Party == "" || e.Transaction != nil {
			return fmt.Errorf("%w: a topology entry needs an update id and a party, and no transaction", ledger.ErrInvalidArgument)
		}
		return nil
	}
	switch {
	case e.UserID == "":
		return fmt.Errorf("%w: empty user id", ledger.ErrInvalidArgument)
	case e.CommandID == "":
		return fmt.Errorf("%w: empty command id", ledger.ErrInvalidArgument)
	case len(e.ActAs) == 0:
		return fmt.Errorf("%w: empty act-as", ledger.ErrInvalidArgument)
	case e.Dedup.Kind < ledger.DedupDefault || e.Dedup.Kind > ledger.DedupOffset:
		return fmt.Errorf("%w: unknown deduplication kind %d", ledger.ErrInvalidArgument, e.Dedup.Kind)
	case e.Transaction == nil && e.Status.Code == 0:
		return fmt.Errorf("%w: a rejection needs a non-zero status code", ledger.ErrInvalidArgument)
	case e.Transaction != nil && e.Status.Code != 0:
		return fmt.Errorf("%w: an accepted transaction needs status code 0", ledger.ErrInvalidArgument)
	}
	if t := e.Transaction; t != nil {
		if t.UpdateID == "" {
			return fmt.Errorf("%w: empty update id", ledger.ErrInvalidArgument)
		}
		for _, c := range t.Created {
			if c.ContractID == "" || c.TemplateID == "" {
				return fmt.Errorf("%w: created contract without contract id or template id", ledger.ErrInvalidArgument)
			}
		}
	}
	return nil
}

// run is the committer: it takes every Commit waiting, writes them in one
// SQLite transaction and answers each.
func (s *Store) run() {
	defer close(s.done)
	batch := make([]*pending, 0, s.opts.MaxBatch)
	quiet := time.NewTimer(time.Hour)
	quiet.Stop()
	var lastCommit time.Duration // how long the previous batch took, fsync included
	for {
		batch = batch[:0]
		select {
		case p := <-s.queue:
			batch = append(batch, p)
		case <-s.quit:
			return
		}
		batch = s.drain(batch)
		batch = s.gather(batch, quiet, lastCommit)
		start := time.Now()
		s.commitBatch(batch)
		lastCommit = time.Since(start)
		for _, p := range batch {
			if p.err != nil {
				s.failed.Add(1)
			}
			close(p.ok)
		}
	}
}

// drain appends every Commit that is waiting right now.
func (s *Store) drain(batch []*pending) []*pending {
	for len(batch) < s.opts.MaxBatch {
		select {
		case p := <-s.queue:
			batch = append(batch, p)
		default:
			return batch
		}
	}
	return batch
}

// gather waits a little for more Commits while they keep arriving. Callers
// released by the previous batch come back within microseconds; without
// this wait they would miss the batch that starts as they return and form a
// second group that alternates with the first, halving commits per fsync.
// The wait ends after a short quiet spell and never exceeds a quarter of
// the last commit's duration, so a fast disk or a lone caller loses nothing.
func (s *Store) gather(batch []*pending, quiet *time.Timer, lastCommit time.Duration) []*pending {
	limit := min(lastCommit/4, 2*time.Millisecond)
	spell := min(limit, 200*time.Microsecond)
	if spell < 20*time.Microsecond {
		return batch
	}
	deadline := time.Now().Add(limit)
	for len(batch) < s.opts.MaxBatch && time.Now().Before(deadline) {
		quiet.Reset(spell)
		select {
		case p := <-s.queue:
			quiet.Stop()
			batch = s.drain(append(batch, p))
		case <-quiet.C:
			return batch
		}
	}
	return batch
}

// batchStmts are the statements of one group commit, prepared once per batch.
type batchStmts struct {
	dedupGet, contractGet, insCompletion, insTransaction, insContract, archive, dedupPut *sql.Stmt
}

func (b *batchStmts) close() {
	for _, st := range []*sql.Stmt{b.dedupGet, b.contractGet, b.insCompletion, b.insTransaction, b.insContract, b.archive, b.dedupPut} {
		if st != nil {
			st.Close()
		}
	}
}

func prepareBatch(ctx context.Context, tx *sql.Tx) (*batchStmts, error) {
	b := &batchStmts{}
	for _, x := range []struct {
		st  **sql.Stmt
		sql string
	}{
		{&b.dedupGet, `SELECT ledger_offset, submission_id, record_time FROM dedup WHERE change_id = ?`},
		{&b.contractGet, `SELECT archived_offset FROM contracts WHERE contract_id = ?`},
		{&b.insCompletion, `INSERT INTO completions (ledger_offset, record_time, user_id, command_id,
			submission_id, act_as, update_id, status_code, status_message, status_details, dedup_kind,
			dedup_value, trace_parent, paid_traffic_cost) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&b.insTransaction, `INSERT INTO transactions (ledger_offset, update_id, command_id, workflow_id,
			user_id, submission_id, act_as, record_time, effective_time, events)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&b.insContract, `INSERT INTO contracts (contract_id, template_id, package_name, create_argument,
			signatories, stakeholders, created_at, created_offset, archived_offset, node_id, argument_json,
			workflow_id, key_hash, contract_key, created_json, key_json, salt)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`},
		{&b.archive, `UPDATE contracts SET archived_offset = ? WHERE contract_id = ? AND archived_offset IS NULL`},
		{&b.dedupPut, `INSERT INTO dedup (change_id, ledger_offset, submission_id, record_time) VALUES (?, ?, ?, ?)
			ON CONFLICT (change_id) DO UPDATE SET ledger_offset = excluded.ledger_offset,
			submission_id = excluded.submission_id, record_time = excluded.record_time`},
	} {
		st, err := tx.PrepareContext(ctx, x.sql)
		if err != nil {
			b.close()
			return nil, err
		}
		*x.st = st
	}
	return b, nil
}

// commitBatch writes batch in one transaction, setting each pending's result.
func (s *Store) commitBatch(batch []*pending) {
	ctx := context.Background()
	fail := func(err error) {
		for _, p := range batch {
			if p.err == nil {
				p.err = err
			}
		}
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		fail(fmt.Errorf("begin: %w", err))
		return
	}
	defer tx.Rollback()
	st, err := prepareBatch(ctx, tx)
	if err != nil {
		fail(fmt.Errorf("prepare: %w", err))
		return
	}
	defer st.close()

	end := s.end.Load()
	last := s.lastRecord
	n := 0
	for _, p := range batch {
		rt := max(micros(s.opts.Now()), last+1)
		if err := s.apply(ctx, tx, st, &p.e, end+1, rt); err != nil {
			var broken *brokenBatchError
			if errors.As(err, &broken) {
				for _, q := range batch {
					q.err = err // nothing of this batch may be committed
				}
				return
			}
			p.err = err
			continue
		}
		end++
		last = rt
		p.res = ledger.Committed{Offset: end, RecordTime: fromMicros(rt)}
		n++
	}
	if n == 0 {
		return
	}
	if err := tx.Commit(); err != nil {
		// The outcome is unknown to the callers (an fsync error may follow a
		// write that reached the disk); re-read where the ledger really ends.
		fail(fmt.Errorf("commit: %w", err))
		if err := s.load(ctx); err == nil {
			s.publish(s.end.Load())
		}
		return
	}
	s.lastRecord = last
	s.commits.Add(int64(n))
	s.batches.Add(1)
	s.publish(end)
}

// apply checks and writes one entry inside the batch transaction. Checks
// come first, so a failing entry normally writes nothing; a savepoint undoes
// the writes when a later statement fails anyway.
func (s *Store) apply(ctx context.Context, tx *sql.Tx, st *batchStmts, e *ledger.Entry, offset, rt int64) error {
	if te := e.Topology; te != nil {
		if _, err := tx.ExecContext(ctx, `INSERT INTO topology_events (ledger_offset, update_id, record_time, party,
			participant_id, permission) VALUES (?, ?, ?, ?, ?, ?)`, offset, te.UpdateID, rt, te.Party, te.ParticipantID, te.Permission); err != nil {
			return &brokenBatchError{fmt.Errorf("write topology event: %w", err)}
		}
		return nil
	}
	dedup := e.Dedup.Resolve(time.Duration(s.maxDedup.Load()))
	var change ledger.ChangeID
	t := e.Transaction
	if t != nil {
		if !t.MaxRecordTime.IsZero() && rt > micros(t.MaxRecordTime) {
			return fmt.Errorf("%w: record time %s, max record time %s", ledger.ErrMaxRecordTimeExceeded,
				fromMicros(rt).Format(time.RFC3339Nano), t.MaxRecordTime.UTC().Format(time.RFC3339Nano))
		}
		change = ledger.ChangeIDOf(e.UserID, e.ActAs, e.CommandID)
		var err error
		if dedup, err = checkDedup(ctx, st, change, dedup, rt, s.PrunedUpTo()); err != nil {
			return err
		}
		for _, id := range t.Inputs {
			if err := checkActive(ctx, st, id); err != nil {
				return err
			}
		}
		for _, id := range t.Archived {
			if creates(t, id) {
				continue
			}
			if err := checkActive(ctx, st, id); err != nil {
				return err
			}
		}
	}

	if _, err := tx.ExecContext(ctx, `SAVEPOINT entry`); err != nil {
		return &brokenBatchError{err}
	}
	if err := s.write(ctx, st, e, t, change, dedup, offset, rt); err != nil {
		if _, rerr := tx.ExecContext(ctx, `ROLLBACK TO entry`); rerr != nil {
			return &brokenBatchError{errors.Join(err, rerr)}
		}
		if _, rerr := tx.ExecContext(ctx, `RELEASE entry`); rerr != nil {
			return &brokenBatchError{errors.Join(err, rerr)}
		}
		return err
	}
	if _, err := tx.ExecContext(ctx, `RELEASE entry`); err != nil {
		return &brokenBatchError{err}
	}
	return nil
}

// brokenBatchError: a savepoint could not be set or undone, so the batch
// transaction may hold part of a failed entry and must not be committed.
type brokenBatchError struct{ err error }

func (e *brokenBatchError) Error() string { return "group commit aborted: " + e.err.Error() }
func (e *brokenBatchError) Unwrap() error { return e.err }

func (s *Store) write(ctx context.Context, st *batchStmts, e *ledger.Entry, t *ledger.Transaction, change ledger.ChangeID, dedup ledger.Dedup, offset, rt int64) error {
	actAs := encodeList(e.ActAs)
	dedupValue := dedup.Offset
	if dedup.Kind == ledger.DedupDuration {
		dedupValue = int64(dedup.Duration)
	}
	updateID := ""
	if t != nil {
		updateID = t.UpdateID
	}
	if _, err := st.insCompletion.ExecContext(ctx, offset, rt, e.UserID, e.CommandID, e.SubmissionID, actAs,
		updateID, e.Status.Code, e.Status.Message, e.Status.Details, int(dedup.Kind), dedupValue,
		e.TraceParent, e.PaidTrafficCost); err != nil {
		return fmt.Errorf("write completion: %w", err)
	}
	if t == nil {
		return nil
	}
	if _, err := st.insTransaction.ExecContext(ctx, offset, t.UpdateID, e.CommandID, t.WorkflowID, e.UserID,
		e.SubmissionID, actAs, rt, micros(t.EffectiveAt), t.Events); err != nil {
		return fmt.Errorf("write transaction %s: %w", t.UpdateID, err)
	}
	for _, c := range t.Created {
		var archived any
		if slices.Contains(t.Archived, c.ContractID) {
			archived = offset
		}
		if _, err := st.insContract.ExecContext(ctx, c.ContractID, c.TemplateID, c.PackageName, c.Argument,
			encodeList(c.Signatories), encodeList(c.Stakeholders), micros(c.CreatedAt), offset, archived,
			c.NodeID, argumentJSONColumn(&c), t.WorkflowID, nullBytes(c.KeyHash), nullBytes(c.Key), nullBytes(c.CreatedJSON),
			nullBytes(c.KeyJSON), nullBytes(c.Salt)); err != nil {
			return fmt.Errorf("write contract %s: %w", c.ContractID, err)
		}
	}
	for _, id := range t.Archived {
		if creates(t, id) {
			continue
		}
		res, err := st.archive.ExecContext(ctx, offset, id)
		if err != nil {
			return fmt.Errorf("archive contract %s: %w", id, err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return &ledger.ContractNotActiveError{ContractID: id} // archived twice in one transaction
		}
	}
	if _, err := st.dedupPut.ExecContext(ctx, change[:], offset, e.SubmissionID, rt); err != nil {
		return fmt.Errorf("write deduplication record: %w", err)
	}
	return nil
}

// checkDedup checks an accepted transaction of change, recorded at rt,
// against its deduplication period d and returns the period its completion
// reports. Whether d is an offset or a duration, that is an offset, as
// Canton's CommandDeduplicator reports it: the offset of the change's latest
// acceptance, else the pruning offset pruned, else 0 (participant begin).
// Canton does not check an offset against the ledger end: one beyond it
// deduplicates nothing, and is reported as such.
func checkDedup(ctx context.Context, st *batchStmts, change ledger.ChangeID, d ledger.Dedup, rt, pruned int64) (ledger.Dedup, error) {
	var off, at int64
	var sub string
	err := st.dedupGet.QueryRowContext(ctx, change[:]).Scan(&off, &sub, &at)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		// Nothing accepted since the pruning offset: an offset before it
		// asks about history the node no longer has.
		if d.Kind == ledger.DedupOffset && d.Offset < pruned {
			return d, &ledger.DedupPeriodTooEarlyError{EarliestOffset: pruned}
		}
		off = pruned
	case err != nil:
		return d, fmt.Errorf("read deduplication record: %w", err)
	case d.Covers(off, fromMicros(at), fromMicros(rt)):
		return d, &ledger.DuplicateCommandError{CompletionOffset: off, SubmissionID: sub}
	}
	return ledger.Dedup{Kind: ledger.DedupOffset, Offset: off}, nil
}

func checkActive(ctx context.Context, st *batchStmts, id string) error {
	var archived sql.NullInt64
	err := st.contractGet.QueryRowContext(ctx, id).Scan(&archived)
	if errors.Is(err, sql.ErrNoRows) {
		return &ledger.ContractNotActiveError{ContractID: id}
	}
	if err != nil {
		return fmt.Errorf("read contract %s: %w", id, err)
	}
	if archived.Valid {
		return &ledger.ContractNotActiveError{ContractID: id, ArchivedOffset: archived.Int64}
	}
	return nil
}

const completionColumns = `ledger_offset, record_time, user_id, command_id, submission_id, act_as, update_id,
	status_code, status_message, status_details, dedup_kind, dedup_value, trace_parent, paid_traffic_cost`

func scanCompletion(row interface{ Scan(...any) error }) (ledger.Completion, error) {
	var sc completionScan
	return sc.scan(row)
}

// completionScan holds the scan targets of a completion row, so that a
// query reading thousands of rows sets them up once.
type completionScan struct {
	c              ledger.Completion
	rt, dedupValue int64
	actAs          string
	kind           int
	dest           []any
}

func (sc *completionScan) scan(row interface{ Scan(...any) error }) (ledger.Completion, error) {
	c := &sc.c
	if sc.dest == nil {
		sc.dest = []any{&c.Offset, &sc.rt, &c.UserID, &c.CommandID, &c.SubmissionID, &sc.actAs, &c.UpdateID,
			&c.Status.Code, &c.Status.Message, &c.Status.Details, &sc.kind, &sc.dedupValue, &c.TraceParent,
			&c.PaidTrafficCost}
	}
	*c = ledger.Completion{}
	if err := row.Scan(sc.dest...); err != nil {
		return ledger.Completion{}, err
	}
	c.RecordTime = fromMicros(sc.rt)
	c.Dedup.Kind = ledger.DedupKind(sc.kind)
	if c.Dedup.Kind == ledger.DedupDuration {
		c.Dedup.Duration = time.Duration(sc.dedupValue)
	} else {
		c.Dedup.Offset = sc.dedupValue
	}
	var err error
	c.ActAs, err = decodeList(sc.actAs)
	return *c, err
}

// Completions returns completions after q.After in offset order that match
// the user and party filters, at most q.Limit of them. It reads what is
// durable now; use WaitPast or Changed to wait for more.
func (s *Store) Completions(ctx context.Context, q ledger.CompletionQuery) ([]ledger.Completion, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 1000
	}
	const chunk = 1000
	out := make([]ledger.Completion, 0, min(limit, chunk))
	after := q.After
	stmt, err := s.completionStmt(ctx, q.UserID != "")
	if err != nil {
		return nil, fmt.Errorf("read completions: %w", err)
	}
	for len(out) < limit {
		args := []any{after, chunk}
		if q.UserID != "" {
			args = []any{after, q.UserID, chunk}
		}
		got, last, err := s.queryCompletions(ctx, stmt, args, q.Parties, limit-len(out), &out)
		if err != nil {
			return nil, fmt.Errorf("read completions: %w", err)
		}
		if got < chunk {
			break
		}
		after = last
	}
	return out, nil
}

// completionStmt returns the prepared read of completions after an offset
// (args: offset, [user,] limit), preparing it on first use.
func (s *Store) completionStmt(ctx context.Context, byUser bool) (*sql.Stmt, error) {
	i, filter := 0, ``
	if byUser {
		i, filter = 1, ` AND user_id = ?`
	}
	s.completionStmtsMu.Lock()
	defer s.completionStmtsMu.Unlock()
	if s.completionStmts[i] == nil {
		st, err := s.r.PrepareContext(ctx, `SELECT `+completionColumns+` FROM completions WHERE ledger_offset > ?`+filter+
			` ORDER BY ledger_offset LIMIT ?`)
		if err != nil {
			return nil, err
		}
		s.completionStmts[i] = st
	}
	return s.completionStmts[i], nil
}

// queryCompletions appends matching rows to out (at most room of them) and
// reports how many rows it scanned and the last offset scanned.
func (s *Store) queryCompletions(ctx context.Context, stmt *sql.Stmt, args []any, parties []string, room int, out *[]ledger.Completion) (scanned int, last int64, err error) {
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return 0, 0, err
	}
	defer rows.Close()
	var sc completionScan
	for rows.Next() {
		c, err := sc.scan(rows)
		if err != nil {
			return 0, 0, err
		}
		scanned++
		last = c.Offset
		if len(parties) > 0 && !slices.ContainsFunc(c.ActAs, func(p string) bool { return slices.Contains(parties, p) }) {
			continue
		}
		*out = append(*out, c)
		if room--; room == 0 {
			break // the caller's loop ends: out is full
		}
	}
	return scanned, last, rows.Err()
}

// CompletionAt returns the completion at an offset, or ErrNotFound.
func (s *Store) CompletionAt(ctx context.Context, offset int64) (ledger.Completion, error) {
	c, err := scanCompletion(s.r.QueryRowContext(ctx,
		`SELECT `+completionColumns+` FROM completions WHERE ledger_offset = ?`, offset))
	if errors.Is(err, sql.ErrNoRows) {
		return ledger.Completion{}, fmt.Errorf("completion at offset %d: %w", offset, ledger.ErrNotFound)
	}
	if err != nil {
		return ledger.Completion{}, fmt.Errorf("read completion at offset %d: %w", offset, err)
	}
	return c, nil
}

// UpdateByID returns the accepted transaction with this update id, or
// ErrNotFound (see UpdateWithID).
func (s *Store) UpdateByID(ctx context.Context, updateID string) (ledger.Update, error) {
	return s.UpdateWithID(ctx, updateID)
}

// Updates returns accepted transactions after an offset, in offset order,
// at most limit (default 1000) of them (see UpdateRange).
func (s *Store) Updates(ctx context.Context, after int64, limit int) ([]ledger.Update, error) {
	return s.UpdateRange(ctx, ledger.UpdateQuery{After: after, Limit: limit})
}

// Contract returns a contract, active or archived, or ErrNotFound, as the
// engine reads its inputs: ContractByID without what only events show
// (ArgumentJSON, CreatedJSON, KeyJSON are nil). Every command reads each
// contract it uses through here, and those columns are the row's largest,
// copied out for nothing.
func (s *Store) Contract(ctx context.Context, contractID string) (ledger.Contract, error) {
	var sc contractScan
	return queryOne(ctx, s, `SELECT `+engineContractColumns+` FROM contracts WHERE contract_id = ?`,
		[]any{contractID}, sc.scan, "contract "+contractID)
}

// ActiveContractsByKey returns up to limit active contracts whose key has
// the hash keyHash, most recently created first — the order in which
// Canton's participant answers a key lookup (its event sequential id,
// descending) — among those created before position before (Contract.Seq;
// 0 for no bound), so that a caller pages on with the last one's Seq.
func (s *Store) ActiveContractsByKey(ctx context.Context, keyHash []byte, before int64, limit int) ([]ledger.Contract, error) {
	if before <= 0 {
		before = math.MaxInt64
	}
	st, err := s.reads.get(ctx, s.r, `SELECT `+fmt.Sprintf(contractColumns, "create_argument")+` FROM contracts
		WHERE key_hash = ? AND archived_offset IS NULL AND id < ? ORDER BY id DESC LIMIT ?`)
	if err != nil {
		return nil, fmt.Errorf("read contracts by key: %w", err)
	}
	var sc contractScan
	out, err := collect(ctx, st, []any{keyHash, before, pageSize(limit)}, min(pageSize(limit), 16), sc.scan)
	if err != nil {
		return nil, fmt.Errorf("read contracts by key: %w", err)
	}
	return out, nil
}

// argumentJSONColumn is what the contracts table keeps of c.ArgumentJSON:
// nothing when c.CreatedJSON holds it (a Ping's row then fits twice in a
// page, and a commit writes half the pages of contracts).
func argumentJSONColumn(c *ledger.Contract) any {
	if c.ArgumentInCreated && len(c.CreatedJSON) > 0 {
		return nil
	}
	return c.ArgumentJSON
}

// nullBytes stores an empty byte slice as NULL.
func nullBytes(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}

// creates reports whether t itself creates contract id.
func creates(t *ledger.Transaction, id string) bool {
	return slices.ContainsFunc(t.Created, func(c ledger.Contract) bool { return c.ContractID == id })
}
