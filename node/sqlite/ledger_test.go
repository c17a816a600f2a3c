package sqlite

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/node/ledger"
)

var updateSeq atomic.Int64

// accepted builds an accepted entry with a fresh update id.
func accepted(user, command string, actAs ...string) ledger.Entry {
	return ledger.Entry{
		UserID: user, CommandID: command, SubmissionID: "sub-" + command, ActAs: actAs,
		Transaction: &ledger.Transaction{
			UpdateID:    fmt.Sprintf("upd-%d", updateSeq.Add(1)),
			EffectiveAt: time.Date(2026, 7, 24, 12, 0, 0, 0, time.UTC),
			Events:      []byte(`{"events":[]}`),
		},
	}
}

func rejected(user, command string, actAs ...string) ledger.Entry {
	return ledger.Entry{UserID: user, CommandID: command, ActAs: actAs,
		Status: ledger.Status{Code: 6, Message: "DUPLICATE_COMMAND(10,x): dup", Details: []byte("d")}}
}

func withContracts(e ledger.Entry, created []string, archived ...string) ledger.Entry {
	for _, id := range created {
		e.Transaction.Created = append(e.Transaction.Created, ledger.Contract{
			ContractID: id, TemplateID: "pkg:Iou:Iou", PackageName: "iou", Argument: []byte("arg-" + id),
			Signatories: e.ActAs, Stakeholders: e.ActAs, CreatedAt: time.Date(2026, 7, 24, 12, 0, 0, 0, time.UTC),
		})
	}
	e.Transaction.Archived = archived
	return e
}

func TestCommitAppendsGapFree(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	if s.LedgerEnd() != 0 {
		t.Fatalf("empty ledger end = %d", s.LedgerEnd())
	}
	e := accepted("alice", "c1", "Alice", "Bob")
	e.TraceParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	e.PaidTrafficCost = 42
	c1, err := s.Commit(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := s.Commit(ctx, rejected("alice", "c2", "Alice"))
	if err != nil {
		t.Fatal(err)
	}
	if c1.Offset != 1 || c2.Offset != 2 || s.LedgerEnd() != 2 || !c2.RecordTime.After(c1.RecordTime) {
		t.Fatalf("offsets %d, %d, end %d, record times %v %v", c1.Offset, c2.Offset, s.LedgerEnd(), c1.RecordTime, c2.RecordTime)
	}
	comp, err := s.CompletionAt(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := ledger.Completion{Offset: 1, RecordTime: c1.RecordTime, UserID: "alice", CommandID: "c1", SubmissionID: "sub-c1",
		ActAs: []string{"Alice", "Bob"}, UpdateID: e.Transaction.UpdateID,
		// The duration asked for is reported as Canton's deduplicator
		// reports it: an offset (participant begin, no earlier acceptance).
		Dedup:       ledger.Dedup{Kind: ledger.DedupOffset, Offset: 0},
		TraceParent: e.TraceParent, PaidTrafficCost: 42}
	if !reflect.DeepEqual(comp, want) {
		t.Errorf("completion 1 = %+v\nwant %+v", comp, want)
	}
	rej, _ := s.CompletionAt(ctx, 2)
	if rej.UpdateID != "" || rej.Status.Code != 6 || string(rej.Status.Details) != "d" {
		t.Errorf("rejected completion = %+v", rej)
	}
	u, err := s.UpdateByID(ctx, e.Transaction.UpdateID)
	if err != nil {
		t.Fatal(err)
	}
	if u.Offset != 1 || u.CommandID != "c1" || string(u.Events) != `{"events":[]}` || !u.EffectiveAt.Equal(e.Transaction.EffectiveAt) || !u.RecordTime.Equal(c1.RecordTime) {
		t.Errorf("update = %+v", u)
	}
	ups, err := s.Updates(ctx, 0, 10)
	if err != nil || len(ups) != 1 {
		t.Errorf("Updates = %d (%v), want only the accepted one", len(ups), err)
	}
	if _, err := s.UpdateByID(ctx, "nope"); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("unknown update: %v", err)
	}
	if _, err := s.CompletionAt(ctx, 3); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("completion past the end: %v", err)
	}
	if st := s.Stats(); st.Commits != 2 || st.Batches != 2 || st.Failed != 0 {
		t.Errorf("stats = %+v", st)
	}
}

func TestCommitValidates(t *testing.T) {
	s, _ := openTemp(t)
	bad := func(f func(*ledger.Entry)) ledger.Entry { e := accepted("u", "c", "A"); f(&e); return e }
	for _, tc := range []struct {
		name string
		e    ledger.Entry
	}{
		{"no user", bad(func(e *ledger.Entry) { e.UserID = "" })},
		{"no command", bad(func(e *ledger.Entry) { e.CommandID = "" })},
		{"no act-as", bad(func(e *ledger.Entry) { e.ActAs = nil })},
		{"no update id", bad(func(e *ledger.Entry) { e.Transaction.UpdateID = "" })},
		{"status on a transaction", bad(func(e *ledger.Entry) { e.Status.Code = 3 })},
		{"rejection without status", bad(func(e *ledger.Entry) { e.Transaction = nil })},
		{"bad dedup kind", bad(func(e *ledger.Entry) { e.Dedup.Kind = 7 })},
		{"contract without id", withContracts(accepted("u", "c", "A"), []string{""})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := s.Commit(context.Background(), tc.e); !errors.Is(err, ledger.ErrInvalidArgument) {
				t.Errorf("error = %v, want ErrInvalidArgument", err)
			}
		})
	}
	if s.LedgerEnd() != 0 {
		t.Errorf("invalid entries moved the ledger end to %d", s.LedgerEnd())
	}
}

func TestDeduplication(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func(d time.Duration) { mu.Lock(); clock = clock.Add(d); mu.Unlock() }
	s, err := Open(t.TempDir()+"/ledger.db", Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, _, err := s.Init(ctx, ledger.Identity{ParticipantID: "p::1", NamespaceFingerprint: "1", SynchronizerID: "s::1",
		MaxDeduplication: time.Hour}); err != nil {
		t.Fatal(err)
	}
	commit := func(e ledger.Entry, d ledger.Dedup) (ledger.Committed, error) { e.Dedup = d; return s.Commit(ctx, e) }

	first, err := commit(accepted("alice", "cmd", "A", "B"), ledger.Dedup{})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name    string
		advance time.Duration
		e       ledger.Entry
		dedup   ledger.Dedup
		dup     bool
	}{
		{"same change, act-as reordered, default window", 0, accepted("alice", "cmd", "B", "A", "A"), ledger.Dedup{}, true},
		{"other user", 0, accepted("bob", "cmd", "A", "B"), ledger.Dedup{}, false},
		{"other act-as set", 0, accepted("alice", "cmd", "A"), ledger.Dedup{}, false},
		{"duration window covers it", 10 * time.Minute, accepted("alice", "cmd", "A", "B"), ledger.Dedup{Kind: ledger.DedupDuration, Duration: 11 * time.Minute}, true},
		{"duration window too short", 0, accepted("alice", "cmd", "A", "B"), ledger.Dedup{Kind: ledger.DedupDuration, Duration: 9 * time.Minute}, false},
		// The acceptance just above is now the latest for this change.
		{"offset window before it", 0, accepted("alice", "cmd", "A", "B"), ledger.Dedup{Kind: ledger.DedupOffset, Offset: 0}, true},
		{"offset window after it", 0, accepted("alice", "cmd", "A", "B"), ledger.Dedup{Kind: ledger.DedupOffset, Offset: 99}, false},
		{"zero duration never deduplicates", 0, accepted("alice", "cmd", "A", "B"), ledger.Dedup{Kind: ledger.DedupDuration}, false},
		{"default window expired", 61 * time.Minute, accepted("alice", "cmd", "A", "B"), ledger.Dedup{}, false},
	}
	for _, st := range steps {
		advance(st.advance)
		_, err := commit(st.e, st.dedup)
		var dup *ledger.DuplicateCommandError
		if st.dup != errors.As(err, &dup) || (!st.dup && err != nil) {
			t.Fatalf("%s: error = %v, want duplicate=%v", st.name, err, st.dup)
		}
		if st.dup && !errors.Is(err, ledger.ErrDuplicateCommand) {
			t.Errorf("%s: errors.Is(err, ErrDuplicateCommand) is false", st.name)
		}
	}
	// The first duplicate names the first acceptance.
	_, err = commit(accepted("carol", "x", "C"), ledger.Dedup{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = commit(accepted("carol", "x", "C"), ledger.Dedup{})
	var dup *ledger.DuplicateCommandError
	if !errors.As(err, &dup) || dup.SubmissionID != "sub-x" || dup.CompletionOffset != s.LedgerEnd() {
		t.Errorf("duplicate error = %#v, want offset %d submission sub-x", err, s.LedgerEnd())
	}
	_ = first
	// Rejections do not count: a rejected command may be resubmitted.
	if _, err := s.Commit(ctx, rejected("dave", "r", "D")); err != nil {
		t.Fatal(err)
	}
	if _, err := commit(accepted("dave", "r", "D"), ledger.Dedup{}); err != nil {
		t.Errorf("resubmission after a rejection: %v", err)
	}
	// Duplicates consume no offset and leave the ledger gap-free.
	checkGapFree(t, s)
}

// checkGapFree asserts offsets 1..end all hold a completion and that every
// accepted completion has its transaction.
func checkGapFree(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	var n, lo, hi, txs, orphans int64
	if err := s.r.QueryRowContext(ctx, `SELECT count(*), coalesce(min(ledger_offset),0), coalesce(max(ledger_offset),0) FROM completions`).Scan(&n, &lo, &hi); err != nil {
		t.Fatal(err)
	}
	if n != s.LedgerEnd() || hi != n || (n > 0 && lo != 1) {
		t.Errorf("completions: %d rows spanning %d..%d, ledger end %d; want gap-free 1..end", n, lo, hi, s.LedgerEnd())
	}
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM completions c WHERE c.update_id <> ''
		AND NOT EXISTS (SELECT 1 FROM transactions t WHERE t.ledger_offset = c.ledger_offset AND t.update_id = c.update_id)`).Scan(&orphans); err != nil {
		t.Fatal(err)
	}
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM transactions`).Scan(&txs); err != nil {
		t.Fatal(err)
	}
	if orphans != 0 {
		t.Errorf("%d accepted completions without their transaction", orphans)
	}
}

// Many callers submit the same change at once: exactly one is accepted.
func TestConcurrentDuplicatesExactlyOneAccepted(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	const n = 64
	var wg sync.WaitGroup
	errs := make([]error, n)
	gate := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := accepted("alice", "same", "A")
			e.SubmissionID = fmt.Sprintf("sub-%d", i)
			<-gate
			_, errs[i] = s.Commit(ctx, e)
		}()
	}
	close(gate)
	wg.Wait()
	ok, dups := 0, 0
	for i, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, ledger.ErrDuplicateCommand):
			dups++
		default:
			t.Errorf("caller %d: %v", i, err)
		}
	}
	if ok != 1 || dups != n-1 || s.LedgerEnd() != 1 {
		t.Errorf("%d accepted, %d duplicates, ledger end %d; want 1, %d, 1", ok, dups, s.LedgerEnd(), n-1)
	}
	if st := s.Stats(); st.Failed != n-1 {
		t.Errorf("stats.Failed = %d, want %d", st.Failed, n-1)
	}
}

func TestConcurrentCommitsGapFree(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	const workers, each = 32, 20
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[int64]string{}
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				var e ledger.Entry
				if i%5 == 4 {
					e = rejected("u", fmt.Sprintf("w%d-%d", w, i), "A")
				} else {
					e = accepted("u", fmt.Sprintf("w%d-%d", w, i), "A")
				}
				c, err := s.Commit(ctx, e)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if prev, dup := seen[c.Offset]; dup {
					t.Errorf("offset %d given to %s and %s", c.Offset, prev, e.CommandID)
				}
				seen[c.Offset] = e.CommandID
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != workers*each || s.LedgerEnd() != workers*each {
		t.Fatalf("%d distinct offsets, ledger end %d; want %d", len(seen), s.LedgerEnd(), workers*each)
	}
	for off := int64(1); off <= workers*each; off++ {
		if _, ok := seen[off]; !ok {
			t.Errorf("offset %d was never returned", off)
		}
	}
	checkGapFree(t, s)
	st := s.Stats()
	t.Logf("%d commits in %d batches (%.1f per fsync)", st.Commits, st.Batches, float64(st.Commits)/float64(st.Batches))
}

func TestContracts(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	c1, err := s.Commit(ctx, withContracts(accepted("u", "create", "A"), []string{"00aa", "00bb"}))
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Contract(ctx, "00aa")
	if err != nil {
		t.Fatal(err)
	}
	want := ledger.Contract{ContractID: "00aa", TemplateID: "pkg:Iou:Iou", PackageName: "iou", Argument: []byte("arg-00aa"),
		Signatories: []string{"A"}, Stakeholders: []string{"A"}, CreatedAt: time.Date(2026, 7, 24, 12, 0, 0, 0, time.UTC),
		CreatedOffset: c1.Offset, Seq: 1}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("contract = %+v\nwant %+v", got, want)
	}

	// Exercise 00aa consuming, creating 00cc; 00dd is created and archived at once.
	e := withContracts(accepted("u", "exercise", "A"), []string{"00cc", "00dd"}, "00aa", "00dd")
	e.Transaction.Inputs = []string{"00bb"}
	c2, err := s.Commit(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	for id, wantArchived := range map[string]int64{"00aa": c2.Offset, "00bb": 0, "00cc": 0, "00dd": c2.Offset} {
		c, err := s.Contract(ctx, id)
		if err != nil || c.ArchivedOffset != wantArchived {
			t.Errorf("contract %s archived at %d (%v), want %d", id, c.ArchivedOffset, err, wantArchived)
		}
	}

	end := s.LedgerEnd()
	for _, tc := range []struct {
		name     string
		e        ledger.Entry
		id       string
		archived int64
	}{
		{"archive an archived contract", withContracts(accepted("u", "x1", "A"), nil, "00aa"), "00aa", c2.Offset},
		{"archive an unknown contract", withContracts(accepted("u", "x2", "A"), nil, "00ff"), "00ff", 0},
		{"input archived", func() ledger.Entry { e := accepted("u", "x3", "A"); e.Transaction.Inputs = []string{"00dd"}; return e }(), "00dd", c2.Offset},
		{"archive twice in one transaction", withContracts(accepted("u", "x4", "A"), nil, "00cc", "00cc"), "00cc", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Commit(ctx, tc.e)
			var na *ledger.ContractNotActiveError
			if !errors.As(err, &na) || na.ContractID != tc.id || na.ArchivedOffset != tc.archived || !errors.Is(err, ledger.ErrContractNotActive) {
				t.Errorf("error = %v, want contract %s not active (archived at %d)", err, tc.id, tc.archived)
			}
		})
	}
	if s.LedgerEnd() != end {
		t.Errorf("failed commits moved the ledger end from %d to %d", end, s.LedgerEnd())
	}
	if c, _ := s.Contract(ctx, "00cc"); c.ArchivedOffset != 0 {
		t.Errorf("a failed commit archived 00cc (savepoint not rolled back)")
	}
	// A failing entry does not release its dedup slot or contracts: resubmitting works.
	if _, err := s.Commit(ctx, withContracts(accepted("u", "x4", "A"), nil, "00cc")); err != nil {
		t.Errorf("retry of x4 with a valid archive: %v", err)
	}
	if _, err := s.Contract(ctx, "nope"); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("unknown contract: %v", err)
	}
	checkGapFree(t, s)
}

// Contracts with a key are found by its hash while active, most recent
// first, a page at a time.
func TestActiveContractsByKey(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	keyed := func(e ledger.Entry, hash string) ledger.Entry {
		for i := range e.Transaction.Created {
			e.Transaction.Created[i].KeyHash = []byte(hash)
			e.Transaction.Created[i].Key = []byte("key-" + hash)
		}
		return e
	}
	for _, e := range []ledger.Entry{
		keyed(withContracts(accepted("u", "k1", "A"), []string{"00a1", "00a2"}), "ka"),
		keyed(withContracts(accepted("u", "k2", "A"), []string{"00b1"}), "kb"),
		keyed(withContracts(accepted("u", "k3", "A"), []string{"00a3"}), "ka"),
		withContracts(accepted("u", "k4", "A"), []string{"00c1"}),
		keyed(withContracts(accepted("u", "k5", "A"), nil, "00a2"), "ka"),
	} {
		if _, err := s.Commit(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(cs []ledger.Contract) string {
		var out []string
		for _, c := range cs {
			out = append(out, c.ContractID)
		}
		return fmt.Sprint(out)
	}
	all, err := s.ActiveContractsByKey(ctx, []byte("ka"), 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(all); got != "[00a3 00a1]" {
		t.Fatalf("active contracts with key ka: %s", got)
	}
	if string(all[0].KeyHash) != "ka" || string(all[0].Key) != "key-ka" {
		t.Errorf("key of 00a3: %q %q", all[0].KeyHash, all[0].Key)
	}
	page, err := s.ActiveContractsByKey(ctx, []byte("ka"), 0, 1)
	if err != nil || ids(page) != "[00a3]" {
		t.Fatalf("first page: %s %v", ids(page), err)
	}
	page, err = s.ActiveContractsByKey(ctx, []byte("ka"), page[0].Seq, 1)
	if err != nil || ids(page) != "[00a1]" {
		t.Fatalf("second page: %s %v", ids(page), err)
	}
	if none, err := s.ActiveContractsByKey(ctx, []byte("kz"), 0, 10); err != nil || len(none) != 0 {
		t.Errorf("unknown key: %s %v", ids(none), err)
	}
	if c, _ := s.Contract(ctx, "00c1"); c.KeyHash != nil || c.Key != nil {
		t.Errorf("a contract without key reads back %q %q", c.KeyHash, c.Key)
	}
}

// Two concurrent consumers of one contract: exactly one wins.
func TestConcurrentDoubleSpend(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	if _, err := s.Commit(ctx, withContracts(accepted("u", "create", "A"), []string{"00aa"})); err != nil {
		t.Fatal(err)
	}
	const n = 16
	var wg sync.WaitGroup
	var ok, notActive atomic.Int32
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Commit(ctx, withContracts(accepted("u", fmt.Sprintf("spend%d", i), "A"), nil, "00aa"))
			switch {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, ledger.ErrContractNotActive):
				notActive.Add(1)
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if ok.Load() != 1 || notActive.Load() != n-1 {
		t.Errorf("%d spends succeeded, %d refused; want 1 and %d", ok.Load(), notActive.Load(), n-1)
	}
}

func TestMaxRecordTime(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	s, err := Open(t.TempDir()+"/ledger.db", Options{Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	late := accepted("u", "late", "A")
	late.Transaction.MaxRecordTime = clock.Add(-time.Second)
	if _, err := s.Commit(ctx, late); !errors.Is(err, ledger.ErrMaxRecordTimeExceeded) {
		t.Errorf("late commit: %v, want ErrMaxRecordTimeExceeded", err)
	}
	inTime := accepted("u", "ok", "A")
	inTime.Transaction.MaxRecordTime = clock.Add(time.Second)
	if _, err := s.Commit(ctx, inTime); err != nil {
		t.Errorf("in-time commit: %v", err)
	}
}

func TestCompletionsFilter(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	entries := []ledger.Entry{
		accepted("alice", "1", "A"),
		accepted("bob", "2", "B"),
		rejected("alice", "3", "A", "B"),
		accepted("alice", "4", "C"),
		accepted("bob", "5", "A"),
	}
	for _, e := range entries {
		if _, err := s.Commit(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		q    ledger.CompletionQuery
		want []int64
	}{
		{"everything", ledger.CompletionQuery{}, []int64{1, 2, 3, 4, 5}},
		{"user", ledger.CompletionQuery{UserID: "alice"}, []int64{1, 3, 4}},
		{"party any-of", ledger.CompletionQuery{Parties: []string{"B", "C"}}, []int64{2, 3, 4}},
		{"user and party", ledger.CompletionQuery{UserID: "alice", Parties: []string{"A"}}, []int64{1, 3}},
		{"after", ledger.CompletionQuery{After: 3}, []int64{4, 5}},
		{"limit", ledger.CompletionQuery{Parties: []string{"A"}, Limit: 2}, []int64{1, 3}},
		{"at the end", ledger.CompletionQuery{After: 5}, []int64{}},
		{"nobody", ledger.CompletionQuery{UserID: "carol"}, []int64{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Completions(ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			offs := []int64{}
			for _, c := range got {
				offs = append(offs, c.Offset)
			}
			if !reflect.DeepEqual(offs, tc.want) {
				t.Errorf("offsets %v, want %v", offs, tc.want)
			}
		})
	}
}

// Filtering across more rows than one read chunk keeps order and limit.
func TestCompletionsAcrossChunks(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	var wg sync.WaitGroup
	for w := range 25 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				user := "other"
				if i%10 == 0 {
					user = "rare"
				}
				if _, err := s.Commit(ctx, rejected(user, fmt.Sprintf("%d-%d", w, i), "A")); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	got, err := s.Completions(ctx, ledger.CompletionQuery{UserID: "rare", Limit: 10000})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 250 {
		t.Fatalf("%d completions for the rare user, want 250", len(got))
	}
	got, err = s.Completions(ctx, ledger.CompletionQuery{Parties: []string{"A"}, Limit: 1500})
	if err != nil || len(got) != 1500 || got[1499].Offset != 1500 {
		t.Fatalf("limit 1500 over 2500: %d rows, err %v", len(got), err)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Offset != got[i-1].Offset+1 {
			t.Fatalf("offsets out of order at %d: %d after %d", i, got[i].Offset, got[i-1].Offset)
		}
	}
}

func TestWaitPastAndChanged(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	ch := s.Changed()
	done := make(chan int64)
	go func() {
		end, err := s.WaitPast(ctx, 0)
		if err != nil {
			t.Error(err)
		}
		done <- end
	}()
	if _, err := s.Commit(ctx, accepted("u", "1", "A")); err != nil {
		t.Fatal(err)
	}
	if end := <-done; end != 1 {
		t.Errorf("WaitPast returned %d, want 1", end)
	}
	<-ch // closed by the commit; a missed notification would hang the test
	if end, err := s.WaitPast(ctx, 0); end != 1 || err != nil {
		t.Errorf("WaitPast below the end = %d, %v", end, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.WaitPast(cctx, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("WaitPast with a cancelled context: %v", err)
	}
	go func() { s.Close() }()
	if _, err := s.WaitPast(ctx, 1); !errors.Is(err, ledger.ErrClosed) {
		t.Errorf("WaitPast on close: %v", err)
	}
	if _, err := s.Commit(ctx, accepted("u", "2", "A")); !errors.Is(err, ledger.ErrClosed) {
		t.Errorf("Commit after close: %v", err)
	}
}

// TestUpdateRangeForView: the narrow read of the update stream gives the
// fields a view needs exactly as the full read does, in both orders.
func TestUpdateRangeForView(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	for i := range 5 {
		e := accepted("u", fmt.Sprintf("c%d", i), "A", "B")
		e.TraceParent, e.PaidTrafficCost = fmt.Sprintf("00-%032x-%016x-01", i+1, i+1), int64(100*i)
		if _, err := s.Commit(ctx, e); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Commit(ctx, rejected("u", fmt.Sprintf("r%d", i), "A")); err != nil {
			t.Fatal(err)
		}
	}
	for _, desc := range []bool{false, true} {
		q := ledger.UpdateQuery{After: 1, Through: 9, Descending: desc, Limit: 3}
		full, err := s.UpdateRange(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		q.ForView = true
		view, err := s.UpdateRange(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(full) != 3 || len(view) != len(full) {
			t.Fatalf("descending %v: %d and %d updates, want 3", desc, len(full), len(view))
		}
		for i, f := range full {
			want := ledger.Update{Offset: f.Offset, RecordTime: f.RecordTime, ActAs: f.ActAs, Events: f.Events,
				TraceParent: f.TraceParent, PaidTrafficCost: f.PaidTrafficCost}
			if !reflect.DeepEqual(view[i], want) || f.UpdateID == "" || f.TraceParent == "" {
				t.Errorf("descending %v, update %d: view read %+v\nwant %+v (full %+v)", desc, i, view[i], want, f)
			}
		}
	}
}
