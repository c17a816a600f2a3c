package sqlite

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/ledger-cli/ledger/node/ledger"
)

func TestAllocateParties(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	if _, err := s.CreateUser(ctx, ledger.User{ID: "alice"}, nil); err != nil {
		t.Fatal(err)
	}
	local, err := s.AllocateParty(ctx, ledger.PartyAllocation{
		Party:        ledger.Party{ID: "Alice::1220aa", IsLocal: true, Annotations: map[string]string{"k": "v"}},
		GrantActAsTo: "alice",
	})
	if err != nil {
		t.Fatal(err)
	}
	if local.External || local.SigningThreshold != 0 || local.ResourceVersion != 0 {
		t.Errorf("local party = %+v", local)
	}
	key := ledger.SigningKey{Fingerprint: "1220ee", PublicKey: make([]byte, 32)}
	ext, err := s.AllocateParty(ctx, ledger.PartyAllocation{
		Party:       ledger.Party{ID: "Ext::1220ee", IsLocal: true},
		SigningKeys: []ledger.SigningKey{key},
		Topology:    [][]byte{[]byte("ns"), []byte("p2k"), []byte("p2p")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !ext.External || ext.SigningThreshold != 1 {
		t.Errorf("external party = %+v, want External with threshold 1", ext)
	}

	got, err := s.Party(ctx, "Alice::1220aa")
	if err != nil || !reflect.DeepEqual(got, local) {
		t.Errorf("Party = %+v (%v), want %+v", got, err, local)
	}
	keys, err := s.SigningKeys(ctx, "Ext::1220ee")
	if err != nil || !reflect.DeepEqual(keys, []ledger.SigningKey{key}) {
		t.Errorf("SigningKeys = %v (%v)", keys, err)
	}
	if keys, err := s.SigningKeys(ctx, "Alice::1220aa"); err != nil || len(keys) != 0 {
		t.Errorf("local party keys = %v (%v), want none", keys, err)
	}
	topo, err := s.Topology(ctx, "Ext::1220ee")
	if err != nil || len(topo) != 3 || string(topo[2]) != "p2p" {
		t.Errorf("Topology = %q (%v)", topo, err)
	}
	rights, _ := s.UserRights(ctx, "alice")
	if !reflect.DeepEqual(rights, []ledger.Right{{Kind: ledger.CanActAs, Party: "Alice::1220aa"}}) {
		t.Errorf("alice's rights after allocation = %v", rights)
	}

	for _, tc := range []struct {
		name string
		a    ledger.PartyAllocation
		want error
	}{
		{"duplicate", ledger.PartyAllocation{Party: ledger.Party{ID: "Alice::1220aa"}}, ledger.ErrAlreadyExists},
		{"empty id", ledger.PartyAllocation{}, ledger.ErrInvalidArgument},
		{"key without bytes", ledger.PartyAllocation{Party: ledger.Party{ID: "X::1"}, SigningKeys: []ledger.SigningKey{{Fingerprint: "f"}}}, ledger.ErrInvalidArgument},
		{"unknown grantee", ledger.PartyAllocation{Party: ledger.Party{ID: "Y::1"}, GrantActAsTo: "nobody"}, ledger.ErrNotFound},
		{"annotations too large", ledger.PartyAllocation{Party: ledger.Party{ID: "Z::1", Annotations: map[string]string{"k": strings.Repeat("v", MaxAnnotationsSize)}}}, ledger.ErrAnnotationsTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := s.AllocateParty(ctx, tc.a); !errors.Is(err, tc.want) {
				t.Errorf("AllocateParty error = %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := s.Party(ctx, "Y::1"); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("failed allocation left party Y::1: %v", err)
	}
	for _, f := range []func() error{
		func() error { _, err := s.Party(ctx, "nobody"); return err },
		func() error { _, err := s.SigningKeys(ctx, "nobody"); return err },
		func() error { _, err := s.Topology(ctx, "nobody"); return err },
	} {
		if err := f(); !errors.Is(err, ledger.ErrNotFound) {
			t.Errorf("lookup of unknown party: %v, want ErrNotFound", err)
		}
	}
	many, err := s.Parties(ctx, []string{"Ext::1220ee", "nobody", "Alice::1220aa"})
	if err != nil || len(many) != 2 || many[0].ID != "Alice::1220aa" || many[1].ID != "Ext::1220ee" {
		t.Errorf("Parties = %+v (%v)", many, err)
	}
}

func TestListPartiesPrefixAndPages(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	ids := []string{"Alice::1", "Alice2::1", "Alicf::1", "Bob::1", "Al::1", "Alice3::1"}
	for _, id := range ids {
		if _, err := s.AllocateParty(ctx, ledger.PartyAllocation{Party: ledger.Party{ID: id, IsLocal: true}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		prefix string
		limit  int
		want   []string // every page concatenated
		pages  int
	}{
		{"", 2, []string{"Al::1", "Alice2::1", "Alice3::1", "Alice::1", "Alicf::1", "Bob::1"}, 3},
		{"Alice", 2, []string{"Alice2::1", "Alice3::1", "Alice::1"}, 2},
		{"Alice", 10, []string{"Alice2::1", "Alice3::1", "Alice::1"}, 1},
		{"B", 1, []string{"Bob::1"}, 1},
		{"Carol", 5, []string{}, 1},
	} {
		t.Run(fmt.Sprintf("%q/%d", tc.prefix, tc.limit), func(t *testing.T) {
			got := []string{}
			token, pages := "", 0
			for {
				ps, next, err := s.ListParties(ctx, ledger.PartyQuery{After: token, Limit: tc.limit, Prefix: tc.prefix})
				if err != nil {
					t.Fatal(err)
				}
				pages++
				for _, p := range ps {
					got = append(got, p.ID)
				}
				if next == "" {
					break
				}
				token = next
			}
			if !reflect.DeepEqual(got, tc.want) || pages != tc.pages {
				t.Errorf("got %v in %d pages, want %v in %d", got, pages, tc.want, tc.pages)
			}
		})
	}
}

func TestUpdatePartyAnnotations(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	if _, err := s.AllocateParty(ctx, ledger.PartyAllocation{Party: ledger.Party{ID: "P::1", IsLocal: true, Annotations: map[string]string{"a": "1", "b": "2"}}}); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name     string
		expected *int64
		change   map[string]string
		wantAnn  map[string]string
		wantVer  int64
		err      error
	}{
		{"merge, delete by empty", ptr[int64](0), map[string]string{"a": "", "c": "3"}, map[string]string{"b": "2", "c": "3"}, 1, nil},
		{"stale version", ptr[int64](0), map[string]string{"d": "4"}, nil, 0, ledger.ErrConcurrentUpdate},
		{"no version check", nil, map[string]string{"b": "22"}, map[string]string{"b": "22", "c": "3"}, 2, nil},
		{"no-op bumps version", ptr[int64](2), nil, map[string]string{"b": "22", "c": "3"}, 3, nil},
		{"delete of missing key is fine", ptr[int64](3), map[string]string{"zz": ""}, map[string]string{"b": "22", "c": "3"}, 4, nil},
		{"over the limit after merge", nil, map[string]string{"big": strings.Repeat("x", MaxAnnotationsSize-7)}, nil, 0, ledger.ErrAnnotationsTooLarge},
		{"at the limit after merge", nil, map[string]string{"big": strings.Repeat("x", MaxAnnotationsSize-8)}, nil, 5, nil},
		{"deleting makes room", nil, map[string]string{"b": "", "c": "", "big": "", "d": "4"}, map[string]string{"d": "4"}, 6, nil},
	}
	for _, st := range steps {
		p, err := s.UpdatePartyAnnotations(ctx, "P::1", st.expected, st.change)
		if !errors.Is(err, st.err) {
			t.Fatalf("%s: error = %v, want %v", st.name, err, st.err)
		}
		if err != nil {
			continue
		}
		if p.ResourceVersion != st.wantVer || (st.wantAnn != nil && !reflect.DeepEqual(p.Annotations, st.wantAnn)) {
			t.Errorf("%s: got version %d annotations %v, want %d %v", st.name, p.ResourceVersion, p.Annotations, st.wantVer, st.wantAnn)
		}
		stored, _ := s.Party(ctx, "P::1")
		if !reflect.DeepEqual(stored, p) {
			t.Errorf("%s: stored %+v differs from returned %+v", st.name, stored, p)
		}
	}
	if _, err := s.UpdatePartyAnnotations(ctx, "nobody", nil, nil); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("update unknown party: %v", err)
	}
}

// Fifty callers holding the same resource version: exactly one wins, and
// the stored annotations hold exactly the winner's change.
func TestUpdatePartyAnnotationsConcurrentCAS(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	start, err := s.AllocateParty(ctx, ledger.PartyAllocation{Party: ledger.Party{ID: "P::1", IsLocal: true, Annotations: map[string]string{"base": "x"}}})
	if err != nil {
		t.Fatal(err)
	}
	const n = 50
	var wg sync.WaitGroup
	errs := make([]error, n)
	results := make([]ledger.Party, n)
	gate := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			results[i], errs[i] = s.UpdatePartyAnnotations(ctx, "P::1", ptr(start.ResourceVersion),
				map[string]string{fmt.Sprintf("writer%d", i): "won", "base": ""})
		}()
	}
	close(gate)
	wg.Wait()
	winner, conflicts := -1, 0
	for i, err := range errs {
		switch {
		case err == nil:
			if winner >= 0 {
				t.Errorf("writers %d and %d both succeeded", winner, i)
			}
			winner = i
		case errors.Is(err, ledger.ErrConcurrentUpdate):
			conflicts++
		default:
			t.Errorf("writer %d: unexpected error %v", i, err)
		}
	}
	if winner < 0 || conflicts != n-1 {
		t.Fatalf("winner %d, %d conflicts; want exactly one winner and %d conflicts", winner, conflicts, n-1)
	}
	stored, err := s.Party(ctx, "P::1")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{fmt.Sprintf("writer%d", winner): "won"}
	if !reflect.DeepEqual(stored.Annotations, want) || stored.ResourceVersion != start.ResourceVersion+1 {
		t.Errorf("stored %v version %d; want %v version %d", stored.Annotations, stored.ResourceVersion, want, start.ResourceVersion+1)
	}
	if !reflect.DeepEqual(results[winner], stored) {
		t.Errorf("winner was told %+v, stored is %+v", results[winner], stored)
	}
}
