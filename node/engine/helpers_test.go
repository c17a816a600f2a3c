package engine

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/signer"
)

const testSynchronizer = "local::1220aaaabbbbccccddddeeeeffff0000111122223333444455556666777788889999"

// fakeLedger is an in-memory ContractReader and PartyDirectory that applies
// outcomes the way the store commits them.
type fakeLedger struct {
	mu        sync.Mutex
	contracts map[string]*ledger.Contract
	parties   map[string]bool
	keys      map[string][]ed25519.PublicKey
	offset    int64
}

func newFakeLedger() *fakeLedger {
	return &fakeLedger{contracts: map[string]*ledger.Contract{}, parties: map[string]bool{}, keys: map[string][]ed25519.PublicKey{}}
}

func (l *fakeLedger) LookupContract(_ context.Context, id string) (*ledger.Contract, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c, ok := l.contracts[id]
	if !ok {
		return nil, nil
	}
	cp := *c
	return &cp, nil
}

func (l *fakeLedger) LookupDiscriminator(_ context.Context, discriminator string) (*ledger.Contract, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for id, c := range l.contracts {
		if len(id) >= 66 && id[2:66] == discriminator {
			cp := *c
			return &cp, nil
		}
	}
	return nil, nil
}

func (l *fakeLedger) ActiveContractsByKey(_ context.Context, keyHash []byte, before int64, limit int) ([]ledger.Contract, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []ledger.Contract
	for _, c := range l.contracts {
		if c.Active() && string(c.KeyHash) == string(keyHash) && (before <= 0 || c.Seq < before) {
			out = append(out, *c)
		}
	}
	slices.SortFunc(out, func(a, b ledger.Contract) int { return int(b.Seq - a.Seq) })
	return out[:min(len(out), limit)], nil
}

func (l *fakeLedger) IsKnownParty(_ context.Context, p string) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.parties[p], nil
}

func (l *fakeLedger) lookupKeys(_ context.Context, p string) ([]ed25519.PublicKey, int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.keys[p], 1, nil
}

// commit applies an accepted outcome and returns where it landed.
func (l *fakeLedger) commit(t testing.TB, o *Outcome, at time.Time) ledger.Committed {
	t.Helper()
	if o.Rejection != nil || o.Transaction == nil {
		t.Fatalf("commit of a rejected outcome: %v", o.Rejection)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, id := range append(append([]string{}, o.Transaction.Inputs...), o.Transaction.Archived...) {
		if c := l.contracts[id]; c != nil && !c.Active() {
			t.Fatalf("commit uses archived contract %s", id)
		}
	}
	l.offset++
	for _, c := range o.Transaction.Created {
		cp := c
		cp.CreatedOffset = l.offset
		cp.Seq = int64(len(l.contracts) + 1)
		l.contracts[c.ContractID] = &cp
	}
	for _, id := range o.Transaction.Archived {
		l.contracts[id].ArchivedOffset = l.offset
	}
	return ledger.Committed{Offset: l.offset, RecordTime: at}
}

// party registers a local party.
func (l *fakeLedger) party(hint string) string {
	p := hint + "::1220" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	l.parties[p] = true
	return p
}

// externalParty registers an external party whose namespace and signing key
// is key.
func (l *fakeLedger) externalParty(hint string, key *signer.Key) string {
	p := hint + "::" + key.Fingerprint()
	l.parties[p] = true
	l.keys[p] = append(l.keys[p], ed25519.PublicKey(key.Public().Raw()))
	return p
}

// detRand is a deterministic byte stream for reproducible tests.
type detRand struct {
	mu  sync.Mutex
	ctr uint64
	buf []byte
}

func (r *detRand) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for n < len(p) {
		if len(r.buf) == 0 {
			var b [8]byte
			binary.BigEndian.PutUint64(b[:], r.ctr)
			r.ctr++
			sum := sha256.Sum256(b[:])
			r.buf = sum[:]
		}
		c := copy(p[n:], r.buf)
		r.buf = r.buf[c:]
		n += c
	}
	return n, nil
}

type fixture struct {
	t      testing.TB
	ledger *fakeLedger
	eng    *Engine
	now    time.Time
	alice  string // external, signs with aliceKey
	bob    string // local
	aliceK *signer.Key
	otherK *signer.Key
	// commands counts the submissions of submit, naming their commands.
	commands int
}

var testNow = time.Date(2026, 7, 24, 12, 0, 0, 123456000, time.UTC)

func newFixture(t testing.TB, mutate ...func(*Config)) *fixture {
	t.Helper()
	l := newFakeLedger()
	seed := sha256.Sum256([]byte("alice"))
	ak, err := signer.FromSeed(seed[:])
	if err != nil {
		t.Fatal(err)
	}
	seed = sha256.Sum256([]byte("mallory"))
	ok, err := signer.FromSeed(seed[:])
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, ledger: l, now: testNow, aliceK: ak, otherK: ok}
	f.alice = l.externalParty("alice", ak)
	f.bob = l.party("bob")
	cfg := Config{
		SynchronizerID:      testSynchronizer,
		NonconsumingChoices: []string{"Observe"},
		Now:                 func() time.Time { return f.now },
		Rand:                &detRand{},
	}
	for _, m := range mutate {
		m(&cfg)
	}
	eng, err := New(cfg, l, l)
	if err != nil {
		t.Fatal(err)
	}
	f.eng = eng
	return f
}

func createCmd(tmpl, args string) ledgerapi.Command {
	return ledgerapi.Command{Create: &ledgerapi.CreateCommand{TemplateID: tmpl, CreateArguments: []byte(args)}}
}

func exerciseCmd(tmpl, cid, choice, arg string) ledgerapi.Command {
	return ledgerapi.Command{Exercise: &ledgerapi.ExerciseCommand{TemplateID: tmpl, ContractID: cid, Choice: choice, ChoiceArgument: []byte(arg)}}
}

// prepareReq is a valid prepare request for one command acting as party.
func prepareReq(party string, cmd ledgerapi.Command) ledgerapi.PrepareSubmissionRequest {
	return ledgerapi.PrepareSubmissionRequest{
		CommandID: "cmd-1",
		Commands:  []ledgerapi.Command{cmd},
		ActAs:     []string{party},
	}
}

// executeReq signs a prepared transaction with key for party.
func executeReq(p *Prepared, party string, key *signer.Key) ledgerapi.ExecuteSubmissionRequest {
	req := ledgerapi.ExecuteSubmissionRequest{
		PreparedTransaction:  p.Bytes,
		SubmissionID:         "sub-1",
		HashingSchemeVersion: p.Response().HashingSchemeVersion,
	}
	if key != nil {
		s := key.SignHash(p.Hash)
		req.PartySignatures.Add(party, ledgerapi.Signature{
			Format:               ledgerapi.SignatureFormat(s.Format),
			Signature:            s.Signature,
			SignedBy:             s.SignedBy,
			SigningAlgorithmSpec: ledgerapi.SigningAlgorithmSpec(s.SigningAlgorithmSpec),
		})
	}
	return req
}

// errorID returns the Canton error id of err, or "" when err is nil or not
// a Canton error.
func errorID(err error) string {
	var je *ledgerapi.JsCantonError
	if errors.As(err, &je) {
		return je.Code
	}
	if err != nil {
		return "non-canton: " + err.Error()
	}
	return ""
}

// createContract prepares, signs and executes a create for alice and
// commits it, returning the contract id.
func (f *fixture) createContract(tmpl, args string) string {
	f.t.Helper()
	p, err := f.eng.Prepare(context.Background(), prepareReq(f.alice, createCmd(tmpl, args)), "user1")
	if err != nil {
		f.t.Fatalf("prepare: %v", err)
	}
	o, err := f.eng.Execute(context.Background(), executeReq(p, f.alice, f.aliceK), "user1", f.ledger.lookupKeys)
	if err != nil {
		f.t.Fatalf("execute: %v", err)
	}
	f.ledger.commit(f.t, o, f.now)
	return o.Transaction.Created[0].ContractID
}
