package node

import (
	"context"
	"errors"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
)

// userError is Canton's error for what the store answered about user id
// (nil for nil).
func userError(id string, err error) error {
	switch {
	case errors.Is(err, ledger.ErrNotFound):
		return ledgerapi.Errorf(ledgerapi.CodeUserNotFound, "User not found: %s", id).WithResource("USER", id)
	case errors.Is(err, ledger.ErrAlreadyExists):
		return ledgerapi.Errorf(ledgerapi.CodeUserAlreadyExists, "User already exists: %s", id).WithResource("USER", id)
	case errors.Is(err, ledger.ErrConcurrentUpdate):
		return ledgerapi.Errorf(ledgerapi.CodeConcurrentUserUpdate,
			"Update operation for user id '%s' failed due to a concurrent update to the same user", id).WithResource("USER", id)
	case errors.Is(err, ledger.ErrAnnotationsTooLarge):
		return ledgerapi.Errorf(ledgerapi.CodeMaxUserAnnotationsSize,
			"Maximum annotations size for user '%s' has been exceeded", id).WithResource("USER", id)
	case errors.Is(err, ledger.ErrTooManyRights):
		return ledgerapi.Errorf(ledgerapi.CodeTooManyUserRights,
			"Too many user rights for user '%s': at most %d are allowed", id, MaxRightsPerUser).WithResource("USER", id)
	}
	return err
}

// User returns user id (USER_NOT_FOUND).
func (n *Node) User(ctx context.Context, id string) (ledger.User, error) {
	u, err := n.store.User(ctx, id)
	return u, userError(id, err)
}

// UserAndRights returns user id and its rights for authenticating a
// request. Unlike the other user methods it answers an unknown user with
// ledger.ErrNotFound, which the caller reports in its own terms.
func (n *Node) UserAndRights(ctx context.Context, id string) (ledger.User, []ledger.Right, error) {
	return n.store.UserAndRights(ctx, id)
}

// ListUsers returns a page of users in id order and the id to continue
// after ("" on the last page).
func (n *Node) ListUsers(ctx context.Context, q ledger.UserQuery) ([]ledger.User, string, error) {
	return n.store.ListUsers(ctx, q)
}

// CreateUser creates user u with rights (USER_ALREADY_EXISTS,
// MAX_USER_ANNOTATIONS_SIZE_EXCEEDED, TOO_MANY_USER_RIGHTS).
//
// A user id taken by a user of another identity provider is
// PERMISSION_DENIED rather than USER_ALREADY_EXISTS, as Canton's user store
// answers (PersistentUserManagementStore.withoutUser), so that an
// identity-provider admin learns nothing of other providers' users.
func (n *Node) CreateUser(ctx context.Context, u ledger.User, rights []ledger.Right) (ledger.User, error) {
	created, err := n.store.CreateUser(ctx, u, rights)
	if errors.Is(err, ledger.ErrAlreadyExists) {
		if existing, lerr := n.store.User(ctx, u.ID); lerr == nil && existing.IdentityProviderID != u.IdentityProviderID {
			return ledger.User{}, ofAnotherProvider(u.ID)
		}
	}
	return created, userError(u.ID, err)
}

// UpdateUser applies upd to user id (USER_NOT_FOUND,
// CONCURRENT_USER_UPDATE_DETECTED, MAX_USER_ANNOTATIONS_SIZE_EXCEEDED).
func (n *Node) UpdateUser(ctx context.Context, id string, upd ledger.UserUpdate) (ledger.User, error) {
	u, err := n.store.UpdateUser(ctx, id, upd)
	return u, userError(id, err)
}

// DeleteUser deletes user id and its rights (USER_NOT_FOUND).
func (n *Node) DeleteUser(ctx context.Context, id string) error {
	return userError(id, n.store.DeleteUser(ctx, id))
}

// UserRights lists the rights of user id (USER_NOT_FOUND).
func (n *Node) UserRights(ctx context.Context, id string) ([]ledger.Right, error) {
	rights, err := n.store.UserRights(ctx, id)
	return rights, userError(id, err)
}

// GrantRights grants rights to user id and returns those it did not have
// (USER_NOT_FOUND, TOO_MANY_USER_RIGHTS).
func (n *Node) GrantRights(ctx context.Context, id string, rights []ledger.Right) ([]ledger.Right, error) {
	granted, err := n.store.GrantRights(ctx, id, rights)
	return granted, userError(id, err)
}

// RevokeRights revokes rights from user id and returns those it had
// (USER_NOT_FOUND).
func (n *Node) RevokeRights(ctx context.Context, id string, rights []ledger.Right) ([]ledger.Right, error) {
	revoked, err := n.store.RevokeRights(ctx, id, rights)
	return revoked, userError(id, err)
}
