package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/ledger-cli/ledger/node/ledger"
)

// readStmts are the prepared statements of the read side, prepared on
// first use (preparing costs as much as reading a page).
type readStmts struct {
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

func (r *readStmts) get(ctx context.Context, db *sql.DB, query string) (*sql.Stmt, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if st := r.stmts[query]; st != nil {
		return st, nil
	}
	st, err := db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if r.stmts == nil {
		r.stmts = map[string]*sql.Stmt{}
	}
	r.stmts[query] = st
	return st, nil
}

func (r *readStmts) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, st := range r.stmts {
		_ = st.Close()
		delete(r.stmts, k)
	}
}

// contractColumns are the columns scanContract reads; create_argument is
// replaced by NULL where the caller does not need it.
const contractColumns = `id, contract_id, template_id, package_name, %s, argument_json, signatories,
	stakeholders, created_at, created_offset, archived_offset, node_id, workflow_id, key_hash, contract_key,
	created_json, key_json, salt`

// engineContractColumns are contractColumns with the create argument and
// NULL for the columns events alone show (Store.Contract).
const engineContractColumns = `id, contract_id, template_id, package_name, create_argument, NULL, signatories,
	stakeholders, created_at, created_offset, archived_offset, node_id, workflow_id, key_hash, contract_key,
	NULL, NULL, salt`

// encodedColumns are those of ACSQuery.Encoded, with and without
// ByTemplate.
const (
	encodedColumns           = `id, stakeholders, created_offset, created_json`
	encodedByTemplateColumns = `id, stakeholders, created_offset, created_json, template_id, package_name`
)

// contractScan holds the scan targets of a contract row, set up once per
// query. Columns that repeat from row to row in a big set (template,
// package, parties, workflow) are read as raw bytes and turned into strings
// only when they differ from the previous row's.
type contractScan struct {
	c                  ledger.Contract
	tmpl, pkg, wf      sql.RawBytes
	sigs, stks         sql.RawBytes
	created            int64
	archived           sql.NullInt64
	nodeID             int64
	last               [3]string // template, package, workflow of the previous row
	lastSigs, lastStks string
	sigsList, stksList []string
	dest               []any
	encoded, templates bool // encodedColumns, encodedByTemplateColumns
	// In encoded reads, created_json is read raw and copied into arena,
	// one buffer for a page of rows (as updateScan's events).
	createdRaw sql.RawBytes
	arena      []byte
}

// shared returns raw as a string, the previous one when the bytes are equal.
func shared(raw sql.RawBytes, last *string) string {
	if string(raw) != *last {
		*last = string(raw)
	}
	return *last
}

func (sc *contractScan) scan(row interface{ Scan(...any) error }) (ledger.Contract, error) {
	c := &sc.c
	switch {
	case sc.dest != nil:
	case sc.encoded:
		sc.dest = []any{&c.Seq, &sc.stks, &c.CreatedOffset, &sc.createdRaw}
		if sc.templates {
			sc.dest = append(sc.dest, &sc.tmpl, &sc.pkg)
		}
	default:
		sc.dest = []any{&c.Seq, &c.ContractID, &sc.tmpl, &sc.pkg, &c.Argument, &c.ArgumentJSON,
			&sc.sigs, &sc.stks, &sc.created, &c.CreatedOffset, &sc.archived, &sc.nodeID, &sc.wf, &c.KeyHash, &c.Key,
			&c.CreatedJSON, &c.KeyJSON, &c.Salt}
	}
	*c = ledger.Contract{}
	if err := row.Scan(sc.dest...); err != nil {
		return ledger.Contract{}, err
	}
	c.TemplateID = shared(sc.tmpl, &sc.last[0])
	c.PackageName = shared(sc.pkg, &sc.last[1])
	c.WorkflowID = shared(sc.wf, &sc.last[2])
	if sc.encoded {
		if sc.createdRaw != nil {
			c.CreatedJSON, sc.arena = arenaCopy(sc.arena, sc.createdRaw)
		}
		var err error
		if sc.stksList == nil || string(sc.stks) != sc.lastStks {
			sc.lastStks = string(sc.stks)
			if sc.stksList, err = decodeList(sc.lastStks); err != nil {
				return ledger.Contract{}, err
			}
		}
		c.Stakeholders = sc.stksList
		return *c, nil
	}
	c.CreatedAt = fromMicros(sc.created)
	c.ArchivedOffset = sc.archived.Int64
	c.NodeID = int32(sc.nodeID)
	// Most contracts of a big set share their parties: decode each list once.
	var err error
	if sc.sigsList == nil || string(sc.sigs) != sc.lastSigs {
		sc.lastSigs = string(sc.sigs)
		if sc.sigsList, err = decodeList(sc.lastSigs); err != nil {
			return ledger.Contract{}, err
		}
	}
	if sc.stksList == nil || string(sc.stks) != sc.lastStks {
		sc.lastStks = string(sc.stks)
		if sc.stksList, err = decodeList(sc.lastStks); err != nil {
			return ledger.Contract{}, err
		}
	}
	c.Signatories, c.Stakeholders = sc.sigsList, sc.stksList
	return *c, nil
}

// ActiveContracts returns the contracts active at q.At in creation order
// after q.AfterSeq, at most q.Limit of them. Contracts share their party
// slices: callers must not modify them. withArgument also reads the binary
// create argument (for created event blobs).
func (s *Store) ActiveContracts(ctx context.Context, q ledger.ACSQuery, withArgument bool) ([]ledger.Contract, error) {
	arg := "NULL"
	if withArgument {
		arg = "create_argument"
	}
	columns := fmt.Sprintf(contractColumns, arg)
	switch {
	case q.Encoded && q.ByTemplate:
		columns = encodedByTemplateColumns
	case q.Encoded:
		columns = encodedColumns
	}
	query := `SELECT ` + columns + ` FROM contracts
		WHERE id > ? AND created_offset <= ? AND (archived_offset IS NULL OR archived_offset > ?)`
	args := []any{q.AfterSeq, q.At, q.At}
	if len(q.TemplateIDs) > 0 {
		query += ` AND template_id IN (?` + strings.Repeat(`, ?`, len(q.TemplateIDs)-1) + `)`
		for _, t := range q.TemplateIDs {
			args = append(args, t)
		}
	}
	query += ` ORDER BY id LIMIT ?`
	args = append(args, pageSize(q.Limit))
	st, err := s.reads.get(ctx, s.r, query)
	if err != nil {
		return nil, fmt.Errorf("read active contracts: %w", err)
	}
	sc := contractScan{encoded: q.Encoded, templates: q.ByTemplate}
	out, err := collect(ctx, st, args, min(pageSize(q.Limit), 1000), sc.scan)
	if err != nil {
		return nil, fmt.Errorf("read active contracts: %w", err)
	}
	return out, nil
}

// collect runs a prepared query and scans every row with scan.
func collect[T any](ctx context.Context, st *sql.Stmt, args []any, capacity int, scan func(interface{ Scan(...any) error }) (T, error)) ([]T, error) {
	rows, err := st.QueryContext(ctx, args...)
	return scanAll(rows, err, capacity, scan)
}

// scanAll scans every row of a query's result with scan, and closes it.
func scanAll[T any](rows *sql.Rows, err error, capacity int, scan func(interface{ Scan(...any) error }) (T, error)) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]T, 0, capacity)
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// ContractByID returns a contract, active or archived, with its create
// argument, or ErrNotFound.
func (s *Store) ContractByID(ctx context.Context, contractID string) (ledger.Contract, error) {
	var sc contractScan
	return queryOne(ctx, s, `SELECT `+fmt.Sprintf(contractColumns, "create_argument")+
		` FROM contracts WHERE contract_id = ?`, []any{contractID}, sc.scan, "contract "+contractID)
}

// ContractWithDiscriminator returns a contract, active or archived, whose
// id starts with the V1 version byte and this discriminator (64 hex
// characters) — the contract, suffixed or not, that a local id names — or
// ErrNotFound.
func (s *Store) ContractWithDiscriminator(ctx context.Context, discriminator string) (ledger.Contract, error) {
	var sc contractScan
	lo := "00" + discriminator
	return queryOne(ctx, s, `SELECT `+fmt.Sprintf(contractColumns, "create_argument")+
		` FROM contracts WHERE contract_id >= ? AND contract_id < ? ORDER BY contract_id LIMIT 1`,
		[]any{lo, lo + "g"}, sc.scan, "contract "+lo)
}

// queryOne reads the one row of a query with scan: ErrNotFound when there
// is none. It reads through Rows, not Row, because the scans read raw
// bytes, which only Rows allows. The query is prepared once per store: the
// interpreter reads every input contract through it, and parsing the SQL
// each time cost more than the read.
func queryOne[T any](ctx context.Context, s *Store, query string, args []any, scan func(interface{ Scan(...any) error }) (T, error), what string) (T, error) {
	var zero T
	st, err := s.reads.get(ctx, s.r, query)
	if err != nil {
		return zero, fmt.Errorf("read %s: %w", what, err)
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return zero, fmt.Errorf("read %s: %w", what, err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return zero, fmt.Errorf("read %s: %w", what, err)
		}
		return zero, fmt.Errorf("%s: %w", what, ledger.ErrNotFound)
	}
	v, err := scan(rows)
	if err != nil {
		return zero, fmt.Errorf("read %s: %w", what, err)
	}
	return v, nil
}

const updateRangeColumns = `t.ledger_offset, t.record_time, t.update_id, t.command_id, t.workflow_id,
	t.user_id, t.submission_id, t.act_as, t.effective_time, t.events, c.trace_parent, c.paid_traffic_cost`

// updateViewColumns are those of UpdateQuery.ForView.
const updateViewColumns = `t.ledger_offset, t.record_time, t.act_as, t.events, c.trace_parent, c.paid_traffic_cost`

// updateScan holds the scan targets of an update row. The events are read
// as raw bytes and copied into arena, one buffer for a whole page of rows,
// instead of one allocation (and database/sql's second copy) per row.
type updateScan struct {
	u      ledger.Update
	rt, et int64
	actAs  string
	events sql.RawBytes
	arena  []byte
	dest   []any
	view   bool // updateViewColumns
	// rawActAs and the last list decoded: in view reads, updates in a row
	// from the same submitters share their act-as list.
	rawActAs   sql.RawBytes
	lastActAs  string
	lastParsed []string
}

// arenaSize is the buffer a page of events is copied into.
const arenaSize = 256 << 10

// arenaCopy copies raw to the end of arena (a new one when it is full) and
// returns the copy, capped, and the arena.
func arenaCopy(arena, raw []byte) ([]byte, []byte) {
	if len(arena)+len(raw) > cap(arena) {
		arena = make([]byte, 0, max(arenaSize, len(raw)))
	}
	start := len(arena)
	arena = append(arena, raw...)
	return arena[start:len(arena):len(arena)], arena
}

func (sc *updateScan) scan(row interface{ Scan(...any) error }) (ledger.Update, error) {
	u := &sc.u
	switch {
	case sc.dest != nil:
	case sc.view:
		sc.dest = []any{&u.Offset, &sc.rt, &sc.rawActAs, &sc.events, &u.TraceParent, &u.PaidTrafficCost}
	default:
		sc.dest = []any{&u.Offset, &sc.rt, &u.UpdateID, &u.CommandID, &u.WorkflowID, &u.UserID,
			&u.SubmissionID, &sc.actAs, &sc.et, &sc.events, &u.TraceParent, &u.PaidTrafficCost}
	}
	*u = ledger.Update{}
	if err := row.Scan(sc.dest...); err != nil {
		return ledger.Update{}, err
	}
	if sc.events != nil {
		u.Events, sc.arena = arenaCopy(sc.arena, sc.events)
	}
	u.RecordTime = fromMicros(sc.rt)
	var err error
	if sc.view {
		if sc.lastParsed == nil || string(sc.rawActAs) != sc.lastActAs {
			sc.lastActAs = string(sc.rawActAs)
			if sc.lastParsed, err = decodeList(sc.lastActAs); err != nil {
				return ledger.Update{}, err
			}
		}
		u.ActAs = sc.lastParsed
		return *u, nil
	}
	u.EffectiveAt = fromMicros(sc.et)
	u.ActAs, err = decodeList(sc.actAs)
	return *u, err
}

// UpdateRange returns the accepted transactions in (q.After, q.Through] in
// offset order (descending when asked), at most q.Limit of them, with the
// trace parent and traffic cost of their completions (only some fields
// with q.ForView).
func (s *Store) UpdateRange(ctx context.Context, q ledger.UpdateQuery) ([]ledger.Update, error) {
	through := q.Through
	if through <= 0 {
		through = math.MaxInt64
	}
	order := "ASC"
	if q.Descending {
		order = "DESC"
	}
	columns := updateRangeColumns
	if q.ForView {
		columns = updateViewColumns
	}
	st, err := s.reads.get(ctx, s.r, `SELECT `+columns+` FROM transactions t
		JOIN completions c ON c.ledger_offset = t.ledger_offset
		WHERE t.ledger_offset > ? AND t.ledger_offset <= ? ORDER BY t.ledger_offset `+order+` LIMIT ?`)
	if err != nil {
		return nil, fmt.Errorf("read updates: %w", err)
	}
	sc := updateScan{view: q.ForView}
	out, err := collect(ctx, st, []any{q.After, through, pageSize(q.Limit)}, min(pageSize(q.Limit), 1000), sc.scan)
	if err != nil {
		return nil, fmt.Errorf("read updates: %w", err)
	}
	return out, nil
}

// UpdateAt returns the accepted transaction at offset, or ErrNotFound (also
// for a rejection's offset).
func (s *Store) UpdateAt(ctx context.Context, offset int64) (ledger.Update, error) {
	return s.oneUpdate(ctx, `t.ledger_offset = ?`, offset, fmt.Sprintf("update at offset %d", offset))
}

// UpdateWithID returns the accepted transaction with this update id, with
// its completion's trace parent and traffic cost, or ErrNotFound.
func (s *Store) UpdateWithID(ctx context.Context, updateID string) (ledger.Update, error) {
	return s.oneUpdate(ctx, `t.update_id = ?`, updateID, fmt.Sprintf("update %q", updateID))
}

func (s *Store) oneUpdate(ctx context.Context, where string, arg any, what string) (ledger.Update, error) {
	var sc updateScan
	return queryOne(ctx, s, `SELECT `+updateRangeColumns+` FROM transactions t
		JOIN completions c ON c.ledger_offset = t.ledger_offset WHERE `+where, []any{arg}, sc.scan, what)
}

// TopologyRange returns the topology events in (q.After, q.Through] in
// offset order (descending when asked), at most q.Limit of them.
func (s *Store) TopologyRange(ctx context.Context, q ledger.UpdateQuery) ([]ledger.TopologyEvent, error) {
	through := q.Through
	if through <= 0 {
		through = math.MaxInt64
	}
	order := "ASC"
	if q.Descending {
		order = "DESC"
	}
	st, err := s.reads.get(ctx, s.r, `SELECT `+topologyColumns+` FROM topology_events
		WHERE ledger_offset > ? AND ledger_offset <= ? ORDER BY ledger_offset `+order+` LIMIT ?`)
	if err != nil {
		return nil, fmt.Errorf("read topology events: %w", err)
	}
	out, err := collect(ctx, st, []any{q.After, through, pageSize(q.Limit)}, 0, scanTopology)
	if err != nil {
		return nil, fmt.Errorf("read topology events: %w", err)
	}
	return out, nil
}

const topologyColumns = `ledger_offset, update_id, record_time, party, participant_id, permission`

func scanTopology(row interface{ Scan(...any) error }) (ledger.TopologyEvent, error) {
	var te ledger.TopologyEvent
	var rt int64
	err := row.Scan(&te.Offset, &te.UpdateID, &rt, &te.Party, &te.ParticipantID, &te.Permission)
	te.RecordTime = fromMicros(rt)
	return te, err
}

// TopologyEventAt returns the topology event at offset, or ErrNotFound.
func (s *Store) TopologyEventAt(ctx context.Context, offset int64) (ledger.TopologyEvent, error) {
	return s.oneTopology(ctx, `ledger_offset = ?`, offset, fmt.Sprintf("topology event at offset %d", offset))
}

// TopologyEventWithID returns the topology event with this update id, or
// ErrNotFound.
func (s *Store) TopologyEventWithID(ctx context.Context, updateID string) (ledger.TopologyEvent, error) {
	return s.oneTopology(ctx, `update_id = ?`, updateID, fmt.Sprintf("topology event %q", updateID))
}

func (s *Store) oneTopology(ctx context.Context, where string, arg any, what string) (ledger.TopologyEvent, error) {
	return queryOne(ctx, s, `SELECT `+topologyColumns+` FROM topology_events WHERE `+where, []any{arg}, scanTopology, what)
}
