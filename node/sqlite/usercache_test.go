package sqlite

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/ledger-cli/ledger/node/ledger"
)

// rightsOf returns UserAndRights' rights of id, failing the test on error.
func rightsOf(t *testing.T, s *Store, id string) []ledger.Right {
	t.Helper()
	_, rights, err := s.UserAndRights(context.Background(), id)
	if err != nil {
		t.Fatalf("UserAndRights(%s): %v", id, err)
	}
	return rights
}

// Every kind of write that changes a user or its rights is seen by the next
// read, though reads in between come from memory.
func TestUserAndRightsSeesEveryWrite(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	if _, err := s.CreateUser(ctx, ledger.User{ID: "u1"}, []ledger.Right{{Kind: ledger.CanReadAs, Party: "A::1"}}); err != nil {
		t.Fatal(err)
	}
	want := []ledger.Right{{Kind: ledger.CanReadAs, Party: "A::1"}}
	for range 3 { // the second and third reads are cached
		if got := rightsOf(t, s, "u1"); !slices.Equal(got, want) {
			t.Fatalf("rights %v, want %v", got, want)
		}
	}

	if _, err := s.GrantRights(ctx, "u1", []ledger.Right{{Kind: ledger.CanActAs, Party: "A::1"}}); err != nil {
		t.Fatal(err)
	}
	if got := rightsOf(t, s, "u1"); !slices.Contains(got, ledger.Right{Kind: ledger.CanActAs, Party: "A::1"}) {
		t.Fatalf("after a grant: %v", got)
	}

	if _, err := s.RevokeRights(ctx, "u1", []ledger.Right{{Kind: ledger.CanReadAs, Party: "A::1"}}); err != nil {
		t.Fatal(err)
	}
	if got := rightsOf(t, s, "u1"); slices.Contains(got, ledger.Right{Kind: ledger.CanReadAs, Party: "A::1"}) {
		t.Fatalf("after a revoke: %v", got)
	}

	if _, err := s.AllocateParty(ctx, ledger.PartyAllocation{Party: ledger.Party{ID: "B::1", IsLocal: true}, GrantActAsTo: "u1"}); err != nil {
		t.Fatal(err)
	}
	if got := rightsOf(t, s, "u1"); !slices.Contains(got, ledger.Right{Kind: ledger.CanActAs, Party: "B::1"}) {
		t.Fatalf("after allocating a party for the user: %v", got)
	}

	yes := true
	if _, err := s.UpdateUser(ctx, "u1", ledger.UserUpdate{IsDeactivated: &yes}); err != nil {
		t.Fatal(err)
	}
	if u, _, err := s.UserAndRights(ctx, "u1"); err != nil || !u.IsDeactivated {
		t.Fatalf("after deactivation: %+v, %v", u, err)
	}

	if err := s.DeleteUser(ctx, "u1"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.UserAndRights(ctx, "u1"); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("after deletion: %v, want ErrNotFound", err)
	}
}

// What UserAndRights returns belongs to the caller: changing it does not
// change what the next caller gets.
func TestUserAndRightsReturnsCopies(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	if _, err := s.CreateUser(ctx, ledger.User{ID: "u1", Annotations: map[string]string{"k": "v"}}, []ledger.Right{{Kind: ledger.CanReadAs, Party: "A::1"}}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		u, rights, err := s.UserAndRights(ctx, "u1")
		if err != nil {
			t.Fatal(err)
		}
		if u.Annotations["k"] != "v" || len(rights) != 1 || rights[0].Party != "A::1" {
			t.Fatalf("got %+v %v", u, rights)
		}
		u.Annotations["k"] = "changed"
		rights[0].Party = "changed"
	}
}

// Reads racing with grants never see a right after its revocation has
// returned. Run with -race.
func TestUserAndRightsUnderConcurrentWrites(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	if _, err := s.CreateUser(ctx, ledger.User{ID: "u1"}, nil); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, _, err := s.UserAndRights(ctx, "u1"); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for i := range 30 {
		r := ledger.Right{Kind: ledger.CanActAs, Party: fmt.Sprintf("P%d::1", i)}
		if _, err := s.GrantRights(ctx, "u1", []ledger.Right{r}); err != nil {
			t.Fatal(err)
		}
		if got := rightsOf(t, s, "u1"); !slices.Contains(got, r) {
			t.Fatalf("round %d: granted %v missing from %v", i, r, got)
		}
		if _, err := s.RevokeRights(ctx, "u1", []ledger.Right{r}); err != nil {
			t.Fatal(err)
		}
		if got := rightsOf(t, s, "u1"); slices.Contains(got, r) {
			t.Fatalf("round %d: revoked %v still in %v", i, r, got)
		}
	}
	close(stop)
	wg.Wait()
}
