package script

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// concurrentLedger is a MemoryLedger that says it takes submissions at
// once, as a node does, and holds each submission until two are in flight.
type concurrentLedger struct {
	*MemoryLedger
	mu       sync.Mutex
	inFlight int
	most     int
	both     chan struct{}
}

func (l *concurrentLedger) SubmitsConcurrently() bool { return true }

func (l *concurrentLedger) Submit(ctx context.Context, s *Submission) (*tx.Transaction, error) {
	l.mu.Lock()
	l.inFlight++
	l.most = max(l.most, l.inFlight)
	if l.inFlight == 2 {
		close(l.both)
	}
	l.mu.Unlock()
	select {
	case <-l.both:
	case <-time.After(2 * time.Second):
	}
	defer func() { l.mu.Lock(); l.inFlight--; l.mu.Unlock() }()
	return l.MemoryLedger.Submit(ctx, s)
}

// The submissions of one Submit command (concurrently) go to a node's
// ledger at once, as Daml's runner sends them, and are answered in their
// order; the in-memory ledger performs them in order, as the IDE ledger.
func TestConcurrentSubmissions(t *testing.T) {
	dar := sharedDar(t, "splice-wallet-test-0.1.8.dar")
	r := newRunner(t, dar)
	ctx := context.Background()
	mem := NewMemoryLedger(r)
	dso, err := mem.AllocateParty(ctx, "dso")
	if err != nil {
		t.Fatal(err)
	}
	var tmpl *value.Identifier
	for _, p := range dar.Packages {
		if p.Name == "splice-amulet" {
			tmpl = &value.Identifier{PackageID: string(p.ID), ModuleName: "Splice.Amulet", EntityName: "FeaturedAppRight"}
		}
	}
	submission := func(provider string) value.Value {
		arg := decodeArg(t, r, tmpl, fmt.Sprintf(`{"dso": %q, "provider": %q}`, dso, provider))
		create := &value.Variant{Constructor: "Create", Value: &value.Record{Fields: []value.Field{{Label: "argC", Value: r.types.anyTemplate(tmpl, arg)}}}}
		return &value.Record{Fields: []value.Field{
			{Label: "sActAs", Value: &value.Record{Fields: []value.Field{{Label: "hd", Value: value.Party(dso)}, {Label: "tl", Value: value.NewList()}}}},
			{Label: "sReadAs", Value: value.NewList()},
			{Label: "sDisclosures", Value: value.NewList()},
			{Label: "sPackagePreference", Value: value.Optional{}},
			{Label: "sErrorBehaviour", Value: &value.Enum{Constructor: "MustSucceed"}},
			{Label: "sCommands", Value: value.NewList(&value.Record{Fields: []value.Field{
				{Label: "command", Value: create}, {Label: "explicitPackageId", Value: value.Bool(false)}}})},
			{Label: "sLocation", Value: value.Optional{}},
		}}
	}
	payload := &value.Record{Fields: []value.Field{{Label: "submissions", Value: value.NewList(submission(dso), submission(dso))}}}
	created := func(v value.Value) []value.ContractID {
		var out []value.ContractID
		for _, answer := range list(v) {
			results := answer.(*value.Variant).Value.(*value.Record).Fields[0].Value
			out = append(out, list(results)[0].(*value.Variant).Value.(value.ContractID))
		}
		return out
	}

	cl := &concurrentLedger{MemoryLedger: mem, both: make(chan struct{})}
	st := &run{r: r, ctx: ctx, ledger: cl, res: &Result{}, limits: r.limits}
	v, err := st.submit(payload)
	if err != nil {
		t.Fatal(err)
	}
	if cl.most != 2 {
		t.Errorf("at most %d submissions in flight on a node's ledger, want 2", cl.most)
	}
	if ids := created(v); len(ids) != 2 || ids[0] == ids[1] || mem.active[ids[0]] == nil || mem.active[ids[1]] == nil {
		t.Errorf("answers %v", ids)
	}

	st = &run{r: r, ctx: ctx, ledger: mem, res: &Result{}, limits: r.limits}
	v, err = st.submit(payload)
	if err != nil {
		t.Fatal(err)
	}
	ids := created(v)
	if len(ids) != 2 || mem.order[len(mem.order)-2] != ids[0] || mem.order[len(mem.order)-1] != ids[1] {
		t.Errorf("in-memory answers %v, not in the order performed", ids)
	}
}
