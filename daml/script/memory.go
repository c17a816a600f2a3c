package script

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ledger-cli/ledger/daml/engine"
	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// MemoryLedger is a ledger in memory for running scripts under test, as
// Daml's `daml test` runs them on its IDE ledger: one participant, static
// time starting at the epoch (1970-01-01T00:00:00Z), submissions
// interpreted by daml/engine (engine.Submit) with the runner's packages and
// committed at once. It is safe for concurrent use, but a script uses one
// of its own.
type MemoryLedger struct {
	pkgs        *engine.PackageSet
	limits      interp.Limits
	mode        interp.StateMode
	participant string
	namespace   string

	mu        sync.Mutex
	time      value.Timestamp
	submitted uint64
	active    map[value.ContractID]*tx.Contract
	order     []value.ContractID // creation order, archived ones included
	parties   []string
	known     map[string]bool
	users     map[string]*memUser
	userOrder []string
	// memory is the bytes of values the committed submissions built
	// (interp's Result.Memory): more than the ledger keeps, a bound on it.
	memory int64
	// unvetted holds the packages a script unvetted.
	unvetted map[PackageRef]bool
	// maxContracts and maxBytes are MaxMemoryContracts and MaxMemoryBytes
	// (tests lower them).
	maxContracts int
	maxBytes     int64
}

type memUser struct {
	user   User
	rights []UserRight
}

// MaxMemoryContracts bounds the contracts a MemoryLedger keeps (active and
// archived): a script that creates more fails instead of exhausting memory.
const MaxMemoryContracts = 1_000_000

// MaxMemoryBytes bounds the bytes of values the submissions to one
// MemoryLedger may build in all (the interpreter's own count, Result.Memory,
// which is more than the ledger keeps of them): a script that creates
// contracts without end fails at this bound.
const MaxMemoryBytes = 2 << 30

// NewMemoryLedger returns an empty ledger for the scripts of r: its
// submissions run with r's packages and limits, and with the rollback rule
// of Daml's IDE ledger for r's daml-script version (Runner.StateMode;
// SetStateMode changes it).
func NewMemoryLedger(r *Runner) *MemoryLedger {
	ns := sha256.Sum256([]byte("ledger test participant"))
	return &MemoryLedger{
		pkgs:         r.Packages(),
		limits:       r.Limits(),
		mode:         r.StateMode(),
		participant:  "participant::1220" + hex.EncodeToString(ns[:]),
		namespace:    "1220" + hex.EncodeToString(ns[:]),
		active:       map[value.ContractID]*tx.Contract{},
		known:        map[string]bool{},
		users:        map[string]*memUser{},
		unvetted:     map[PackageRef]bool{},
		maxContracts: MaxMemoryContracts,
		maxBytes:     MaxMemoryBytes,
	}
}

// SetStateMode sets the contract state rule of rollbacks the ledger's
// submissions use: interp.StateNUCK is Canton 3.5's (an effectful rollback
// fails with DAML_EFFECTFUL_ROLLBACK_ERROR), interp.StateNoKey is 3.4's.
func (l *MemoryLedger) SetStateMode(m interp.StateMode) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.mode = m
}

// view is the ledger as one submission sees it: the active contracts
// visible to its parties.
type view struct {
	l       *MemoryLedger
	parties map[string]bool
}

func (v *view) visible(c *tx.Contract) bool {
	for _, s := range c.Stakeholders {
		if v.parties[s] {
			return true
		}
	}
	return false
}

func (v *view) LookupContract(_ context.Context, id value.ContractID) (*tx.Contract, error) {
	c := v.l.active[id]
	if c == nil || !v.visible(c) {
		return nil, nil
	}
	return c, nil
}

func (v *view) LookupKey(_ context.Context, key *tx.GlobalKey, n int) ([]*tx.Contract, error) {
	var out []*tx.Contract
	for _, id := range v.l.order {
		c := v.l.active[id]
		if c == nil || c.Key == nil || c.Key.Hash != key.Hash || !v.visible(c) {
			continue
		}
		out = append(out, c)
		if len(out) >= n {
			break
		}
	}
	return out, nil
}

// Submit interprets the commands and commits their transaction.
func (l *MemoryLedger) Submit(ctx context.Context, s *Submission) (*tx.Transaction, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range append(slices.Clone(s.ActAs), s.ReadAs...) {
		if !l.known[p] {
			return nil, fmt.Errorf("party %s is not allocated on this ledger: allocate it with allocateParty first", p)
		}
	}
	v := &view{l: l, parties: map[string]bool{}}
	for _, p := range s.ActAs {
		v.parties[p] = true
	}
	for _, p := range s.ReadAs {
		v.parties[p] = true
	}
	cmds := slices.Clone(s.Commands)
	var preferred map[string]lf.PackageID
	for i, c := range cmds {
		if i >= len(s.ByName) || !s.ByName[i] {
			continue
		}
		if preferred == nil {
			preferred = l.preferredPackages(s.PackagePreference)
		}
		var err error
		if cmds[i], err = l.byName(c, preferred); err != nil {
			return nil, err
		}
	}
	for _, c := range cmds {
		if id := commandTemplate(c); id != nil {
			if p := l.pkgs.Env.Package(lf.PackageID(id.PackageID)); p != nil && l.unvetted[PackageRef{p.Name, p.Version}] {
				return nil, &SubmitFailure{ID: "PACKAGE_SELECTION_FAILED", Message: fmt.Sprintf("package %s-%s of %s is not vetted", p.Name, p.Version, id)}
			}
		}
	}
	var disclosed []*tx.Contract
	for _, d := range s.Disclosed {
		if c := l.active[d.ContractID]; c != nil {
			disclosed = append(disclosed, c)
		}
	}
	l.submitted++
	var seed tx.Hash
	binary.BigEndian.PutUint64(seed[:], l.submitted)
	seed = sha256.Sum256(seed[:])
	res, err := engine.Submit(ctx, &engine.Submission{
		Packages:        l.pkgs,
		Preference:      s.PackagePreference,
		ActAs:           s.ActAs,
		Commands:        cmds,
		Contracts:       v,
		Disclosed:       disclosed,
		PreparationTime: time.UnixMicro(int64(l.time)).UTC(),
		SubmissionSeed:  seed,
		ParticipantID:   l.participant,
		LedgerTime:      time.UnixMicro(int64(l.time)).UTC(),
		Limits:          l.limits,
		StateMode:       l.mode,
	})
	if err != nil {
		return nil, err
	}
	t := res.Transaction
	if len(l.order)+len(t.Nodes) > l.maxContracts {
		return nil, fmt.Errorf("the script created more than %d contracts, the bound of the in-memory ledger", l.maxContracts)
	}
	if l.memory+res.Memory > l.maxBytes {
		return nil, fmt.Errorf("the script's submissions built more than %d bytes of values, the bound of the in-memory ledger", l.maxBytes)
	}
	l.memory += res.Memory
	l.commit(t, t.Roots)
	return t, nil
}

// commit applies the effects of nodes, skipping rolled-back ones.
func (l *MemoryLedger) commit(t *tx.Transaction, ids []tx.NodeID) {
	for _, id := range ids {
		switch n := t.Nodes[id].(type) {
		case *tx.Create:
			l.active[n.ContractID] = &tx.Contract{
				ID: n.ContractID, PackageName: n.PackageName, TemplateID: n.TemplateID, Argument: n.Argument,
				Signatories: n.Signatories, Stakeholders: n.Stakeholders, Key: n.Key, CreatedAt: l.time,
			}
			l.order = append(l.order, n.ContractID)
		case *tx.Exercise:
			if n.Consuming {
				delete(l.active, n.ContractID)
			}
			l.commit(t, n.Children)
		}
	}
}

// ActiveContracts returns the active contracts of templates visible to
// parties, in creation order.
func (l *MemoryLedger) ActiveContracts(_ context.Context, parties []string, templates []*value.Identifier) ([]*tx.Contract, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	v := &view{l: l, parties: map[string]bool{}}
	for _, p := range parties {
		v.parties[p] = true
	}
	var out []*tx.Contract
	for _, id := range l.order {
		c := l.active[id]
		if c == nil || !v.visible(c) {
			continue
		}
		if templates != nil && !slices.ContainsFunc(templates, func(t *value.Identifier) bool { return *t == *c.TemplateID }) {
			continue
		}
		out = append(out, c)
	}
	return out, nil
}

// AllocateParty allocates "hint::namespace" ("party-N" without a hint); a
// party that exists already is refused, as Canton refuses it.
func (l *MemoryLedger) AllocateParty(_ context.Context, hint string) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.parties) >= MaxMemoryContracts {
		return "", fmt.Errorf("more than %d parties allocated", MaxMemoryContracts)
	}
	if hint == "" {
		hint = fmt.Sprintf("party-%d", len(l.parties)+1)
	}
	p := hint + "::" + l.namespace
	if l.known[p] {
		return "", fmt.Errorf("party %s already exists: allocate it once, or give another hint", p)
	}
	l.known[p] = true
	l.parties = append(l.parties, p)
	return p, nil
}

// ListKnownParties lists the allocated parties, in allocation order.
func (l *MemoryLedger) ListKnownParties(context.Context) ([]PartyDetails, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]PartyDetails, len(l.parties))
	for i, p := range l.parties {
		out[i] = PartyDetails{Party: p, IsLocal: true}
	}
	return out, nil
}

// Time returns the ledger's static time.
func (l *MemoryLedger) Time(context.Context) (value.Timestamp, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.time, nil
}

// SetTime sets the static time; it may not go back.
func (l *MemoryLedger) SetTime(_ context.Context, t value.Timestamp) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t < l.time {
		return fmt.Errorf("cannot set the time back to %s: the ledger's time is %s", t, l.time)
	}
	l.time = t
	return nil
}

// CreateUser creates a user.
func (l *MemoryLedger) CreateUser(_ context.Context, u User, rights []UserRight) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.users[u.ID] != nil {
		return ErrUserExists
	}
	if len(l.users) >= MaxMemoryContracts {
		return fmt.Errorf("more than %d users", MaxMemoryContracts)
	}
	l.users[u.ID] = &memUser{user: u, rights: dedupRights(nil, rights)}
	l.userOrder = append(l.userOrder, u.ID)
	return nil
}

// GetUser returns a user.
func (l *MemoryLedger) GetUser(_ context.Context, id string) (User, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	u := l.users[id]
	if u == nil {
		return User{}, ErrUserNotFound
	}
	return u.user, nil
}

// DeleteUser deletes a user.
func (l *MemoryLedger) DeleteUser(_ context.Context, id string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.users[id] == nil {
		return ErrUserNotFound
	}
	delete(l.users, id)
	l.userOrder = slices.DeleteFunc(l.userOrder, func(s string) bool { return s == id })
	return nil
}

// ListUsers lists the users by id.
func (l *MemoryLedger) ListUsers(context.Context) ([]User, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ids := slices.Clone(l.userOrder)
	sort.Strings(ids)
	out := make([]User, len(ids))
	for i, id := range ids {
		out[i] = l.users[id].user
	}
	return out, nil
}

// GrantUserRights adds rights and returns those newly granted.
func (l *MemoryLedger) GrantUserRights(_ context.Context, id string, rights []UserRight) ([]UserRight, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	u := l.users[id]
	if u == nil {
		return nil, ErrUserNotFound
	}
	var added []UserRight
	for _, r := range rights {
		if !slices.Contains(u.rights, r) && !slices.Contains(added, r) {
			added = append(added, r)
		}
	}
	u.rights = append(u.rights, added...)
	return added, nil
}

// RevokeUserRights removes rights and returns those it removed.
func (l *MemoryLedger) RevokeUserRights(_ context.Context, id string, rights []UserRight) ([]UserRight, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	u := l.users[id]
	if u == nil {
		return nil, ErrUserNotFound
	}
	var removed []UserRight
	u.rights = slices.DeleteFunc(u.rights, func(r UserRight) bool {
		if slices.Contains(rights, r) {
			removed = append(removed, r)
			return true
		}
		return false
	})
	return removed, nil
}

// ListUserRights returns a user's rights.
func (l *MemoryLedger) ListUserRights(_ context.Context, id string) ([]UserRight, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	u := l.users[id]
	if u == nil {
		return nil, ErrUserNotFound
	}
	return slices.Clone(u.rights), nil
}

func dedupRights(have, add []UserRight) []UserRight {
	for _, r := range add {
		if !slices.Contains(have, r) {
			have = append(have, r)
		}
	}
	return have
}

// commandTemplate is the template or interface a command names.
func commandTemplate(c interp.Command) *value.Identifier {
	switch x := c.(type) {
	case *interp.CreateCommand:
		return x.Template
	case *interp.ExerciseCommand:
		return x.Template
	case *interp.CreateAndExerciseCommand:
		return x.Template
	case *interp.ExerciseByKeyCommand:
		return x.Template
	}
	return nil
}

// ListPackages lists the packages the ledger has (those of the runner's
// DAR), all vetted unless a script unvetted them.
func (l *MemoryLedger) ListPackages(_ context.Context, vetted bool) ([]PackageRef, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	seen := map[PackageRef]bool{}
	var out []PackageRef
	for _, p := range l.pkgs.Env.Packages() {
		r := PackageRef{Name: p.Name, Version: p.Version}
		if seen[r] || vetted && l.unvetted[r] {
			continue
		}
		seen[r] = true
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b PackageRef) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Version, b.Version)
	})
	return out, nil
}

// SetVetting vets or unvets packages the ledger has.
func (l *MemoryLedger) SetVetting(ctx context.Context, pkgs []PackageRef, vet bool) error {
	all, _ := l.ListPackages(ctx, false)
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range pkgs {
		if !slices.Contains(all, p) {
			return fmt.Errorf("the ledger has no package %s-%s", p.Name, p.Version)
		}
		if vet {
			delete(l.unvetted, p)
		} else {
			l.unvetted[p] = true
		}
	}
	return nil
}
