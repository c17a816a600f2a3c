package sqlite

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/node/ledger"
)

func ptr[T any](v T) *T { return &v }

func TestCreateAndGetUser(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	u, err := s.CreateUser(ctx, ledger.User{ID: "alice", PrimaryParty: "Alice::1220", IdentityProviderID: "idp1",
		Annotations: map[string]string{"example.com/team": "payments"}},
		[]ledger.Right{{Kind: ledger.CanActAs, Party: "Alice::1220"}, {Kind: ledger.CanReadAsAnyParty}, {Kind: ledger.CanActAs, Party: "Alice::1220"}})
	if err != nil {
		t.Fatal(err)
	}
	want := ledger.User{ID: "alice", PrimaryParty: "Alice::1220", IdentityProviderID: "idp1",
		Annotations: map[string]string{"example.com/team": "payments"}}
	if !reflect.DeepEqual(u, want) {
		t.Errorf("CreateUser = %+v, want %+v", u, want)
	}
	rights, err := s.UserRights(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	wantRights := []ledger.Right{{Kind: ledger.CanActAs, Party: "Alice::1220"}, {Kind: ledger.CanReadAsAnyParty}}
	if !reflect.DeepEqual(rights, wantRights) {
		t.Errorf("rights = %v, want %v", rights, wantRights)
	}

	for _, tc := range []struct {
		name   string
		user   ledger.User
		rights []ledger.Right
		want   error
	}{
		{"duplicate id", ledger.User{ID: "alice"}, nil, ledger.ErrAlreadyExists},
		{"empty id", ledger.User{}, nil, ledger.ErrInvalidArgument},
		{"unknown right kind", ledger.User{ID: "bob"}, []ledger.Right{{Kind: "CanFly"}}, ledger.ErrInvalidArgument},
		{"party right without party", ledger.User{ID: "bob"}, []ledger.Right{{Kind: ledger.CanReadAs}}, ledger.ErrInvalidArgument},
		{"admin right with party", ledger.User{ID: "bob"}, []ledger.Right{{Kind: ledger.ParticipantAdmin, Party: "x"}}, ledger.ErrInvalidArgument},
		{"annotations too large", ledger.User{ID: "bob", Annotations: map[string]string{"k": strings.Repeat("v", MaxAnnotationsSize)}}, nil, ledger.ErrAnnotationsTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := s.CreateUser(ctx, tc.user, tc.rights); !errors.Is(err, tc.want) {
				t.Errorf("CreateUser error = %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := s.User(ctx, "bob"); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("failed creations left user bob behind: %v", err)
	}
	if _, err := s.UserRights(ctx, "bob"); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("UserRights(unknown) = %v, want ErrNotFound", err)
	}
}

func TestListUsersPages(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	for i := range 7 {
		idp := ""
		if i%2 == 1 {
			idp = "odd"
		}
		if _, err := s.CreateUser(ctx, ledger.User{ID: fmt.Sprintf("user%d", i), IdentityProviderID: idp}, nil); err != nil {
			t.Fatal(err)
		}
	}
	var ids []string
	token, pages := "", 0
	for {
		users, next, err := s.ListUsers(ctx, ledger.UserQuery{After: token, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, u := range users {
			ids = append(ids, u.ID)
		}
		if next == "" {
			break
		}
		token = next
	}
	if pages != 3 || len(ids) != 7 || ids[0] != "user0" || ids[6] != "user6" {
		t.Errorf("paged %d pages: %v", pages, ids)
	}
	users, next, err := s.ListUsers(ctx, ledger.UserQuery{IdentityProviderID: ptr("odd")})
	if err != nil || next != "" || len(users) != 3 {
		t.Errorf("IDP filter: %d users, next %q, err %v; want 3 users", len(users), next, err)
	}
	// An exact fit leaves no next page.
	if _, next, _ := s.ListUsers(ctx, ledger.UserQuery{Limit: 7}); next != "" {
		t.Errorf("a page holding every user has next token %q", next)
	}
}

func TestUpdateUser(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	if _, err := s.CreateUser(ctx, ledger.User{ID: "alice", Annotations: map[string]string{"a": "1", "b": "2"}}, nil); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name string
		upd  ledger.UserUpdate
		want ledger.User
		err  error
	}{
		{"merge and delete annotations", ledger.UserUpdate{ExpectedVersion: ptr[int64](0), Annotations: map[string]string{"a": "", "c": "3"}},
			ledger.User{ID: "alice", Annotations: map[string]string{"b": "2", "c": "3"}, ResourceVersion: 1}, nil},
		{"stale version", ledger.UserUpdate{ExpectedVersion: ptr[int64](0), PrimaryParty: ptr("P")}, ledger.User{}, ledger.ErrConcurrentUpdate},
		{"primary party and deactivate without version", ledger.UserUpdate{PrimaryParty: ptr("P"), IsDeactivated: ptr(true)},
			ledger.User{ID: "alice", PrimaryParty: "P", IsDeactivated: true, Annotations: map[string]string{"b": "2", "c": "3"}, ResourceVersion: 2}, nil},
		{"replace annotations, move idp", ledger.UserUpdate{ReplaceAnnotations: true, Annotations: map[string]string{"z": "9"}, IdentityProviderID: ptr("idp")},
			ledger.User{ID: "alice", PrimaryParty: "P", IsDeactivated: true, Annotations: map[string]string{"z": "9"}, ResourceVersion: 3, IdentityProviderID: "idp"}, nil},
		{"no-op still bumps", ledger.UserUpdate{ExpectedVersion: ptr[int64](3)},
			ledger.User{ID: "alice", PrimaryParty: "P", IsDeactivated: true, Annotations: map[string]string{"z": "9"}, ResourceVersion: 4, IdentityProviderID: "idp"}, nil},
		{"too large after merge", ledger.UserUpdate{Annotations: map[string]string{"big": strings.Repeat("x", MaxAnnotationsSize-4)}}, ledger.User{}, ledger.ErrAnnotationsTooLarge},
	}
	for _, st := range steps {
		got, err := s.UpdateUser(ctx, "alice", st.upd)
		if !errors.Is(err, st.err) {
			t.Fatalf("%s: error = %v, want %v", st.name, err, st.err)
		}
		if err == nil && !reflect.DeepEqual(got, st.want) {
			t.Errorf("%s: got %+v, want %+v", st.name, got, st.want)
		}
	}
	stored, _ := s.User(ctx, "alice")
	if stored.ResourceVersion != 4 {
		t.Errorf("failed updates changed the version: %d", stored.ResourceVersion)
	}
	if _, err := s.UpdateUser(ctx, "nobody", ledger.UserUpdate{}); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("update unknown user: %v", err)
	}
}

func TestRightsGrantRevokeDelete(t *testing.T) {
	ctx := context.Background()
	path := t.TempDir() + "/ledger.db"
	s, err := Open(path, Options{MaxRightsPerUser: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CreateUser(ctx, ledger.User{ID: "alice"}, []ledger.Right{{Kind: ledger.CanReadAs, Party: "A"}}); err != nil {
		t.Fatal(err)
	}
	granted, err := s.GrantRights(ctx, "alice", []ledger.Right{{Kind: ledger.CanReadAs, Party: "A"}, {Kind: ledger.CanActAs, Party: "A"}, {Kind: ledger.ParticipantAdmin}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []ledger.Right{{Kind: ledger.CanActAs, Party: "A"}, {Kind: ledger.ParticipantAdmin}}; !reflect.DeepEqual(granted, want) {
		t.Errorf("newly granted = %v, want %v", granted, want)
	}
	if _, err := s.GrantRights(ctx, "alice", []ledger.Right{{Kind: ledger.CanExecuteAs, Party: "A"}}); !errors.Is(err, ledger.ErrTooManyRights) {
		t.Errorf("fourth right: %v, want ErrTooManyRights", err)
	}
	if _, err := s.GrantRights(ctx, "nobody", []ledger.Right{{Kind: ledger.ParticipantAdmin}}); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("grant to unknown user: %v", err)
	}
	revoked, err := s.RevokeRights(ctx, "alice", []ledger.Right{{Kind: ledger.ParticipantAdmin}, {Kind: ledger.CanExecuteAsAnyParty}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []ledger.Right{{Kind: ledger.ParticipantAdmin}}; !reflect.DeepEqual(revoked, want) {
		t.Errorf("newly revoked = %v, want %v", revoked, want)
	}
	if _, err := s.RevokeRights(ctx, "nobody", nil); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("revoke from unknown user: %v", err)
	}
	if err := s.DeleteUser(ctx, "alice"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteUser(ctx, "alice"); !errors.Is(err, ledger.ErrNotFound) {
		t.Errorf("second delete: %v", err)
	}
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM user_rights WHERE user_id = 'alice'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("rights left after delete: %d (%v)", n, err)
	}
	// A re-created user starts without the old rights.
	if _, err := s.CreateUser(ctx, ledger.User{ID: "alice"}, nil); err != nil {
		t.Fatal(err)
	}
	if rights, _ := s.UserRights(ctx, "alice"); len(rights) != 0 {
		t.Errorf("re-created user has rights %v", rights)
	}
}

// TestPrimaryPartyAuthentication: the flag is stored on create, changed by
// an update that names it and kept by one that does not.
func TestPrimaryPartyAuthentication(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	u, err := s.CreateUser(ctx, ledger.User{ID: "bob", PrimaryParty: "Bob::1220", PrimaryPartyAuthentication: true}, nil)
	if err != nil || !u.PrimaryPartyAuthentication {
		t.Fatalf("CreateUser = %+v, %v", u, err)
	}
	party := "Bob2::1220"
	if u, err = s.UpdateUser(ctx, "bob", ledger.UserUpdate{PrimaryParty: &party}); err != nil || !u.PrimaryPartyAuthentication {
		t.Errorf("an update that does not name it: %+v, %v", u, err)
	}
	off := false
	if u, err = s.UpdateUser(ctx, "bob", ledger.UserUpdate{PrimaryPartyAuthentication: &off}); err != nil || u.PrimaryPartyAuthentication {
		t.Errorf("an update that clears it: %+v, %v", u, err)
	}
	if u, err = s.User(ctx, "bob"); err != nil || u.PrimaryPartyAuthentication || u.PrimaryParty != party {
		t.Errorf("read back: %+v, %v", u, err)
	}
}
