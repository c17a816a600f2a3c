package node

import (
	"context"
	"errors"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/topology"
)

func partyNotFound(party string) error {
	return ledgerapi.Errorf(ledgerapi.CodePartyNotFound, "Party not found: %s", party).WithResource("PARTY", party)
}

// partyError is Canton's error for what the store answered about party
// (nil for nil). userID names the user an allocation grants CanActAs to.
func partyError(party, userID string, err error) error {
	switch {
	case errors.Is(err, ledger.ErrAlreadyExists):
		return ledgerapi.InvalidArgument("Party already exists: party %s is already allocated on this node", party).WithResource("PARTY", party)
	case errors.Is(err, ledger.ErrNotFound) && userID != "":
		return userError(userID, err)
	case errors.Is(err, ledger.ErrNotFound):
		return partyNotFound(party)
	case errors.Is(err, ledger.ErrConcurrentUpdate):
		return ledgerapi.Errorf(ledgerapi.CodeConcurrentPartyDetailsUpdate,
			"Update operation for party '%s' failed due to a concurrent update to the same party", party).
			WithResource("PARTY", party)
	case errors.Is(err, ledger.ErrAnnotationsTooLarge):
		return ledgerapi.Errorf(ledgerapi.CodeMaxPartyDetailsAnnotationsSize,
			"Maximum annotations size for party '%s' has been exceeded", party).WithResource("PARTY", party)
	}
	return err
}

// Party returns the record of party (PARTY_NOT_FOUND).
func (n *Node) Party(ctx context.Context, party string) (ledger.Party, error) {
	p, err := n.store.Party(ctx, party)
	return p, partyError(party, "", err)
}

// Parties returns the records of the parties among ids this node knows, in
// id order.
func (n *Node) Parties(ctx context.Context, ids []string) ([]ledger.Party, error) {
	return n.store.Parties(ctx, ids)
}

// ListParties returns a page of parties in id order and the id to continue
// after ("" on the last page).
func (n *Node) ListParties(ctx context.Context, q ledger.PartyQuery) ([]ledger.Party, string, error) {
	return n.store.ListParties(ctx, q)
}

// HostingPermission says whether this node hosts party and with which
// permission: an external party confirms, a local one submits.
func (n *Node) HostingPermission(ctx context.Context, party string) (ledgerapi.ParticipantPermission, bool, error) {
	p, err := n.store.Party(ctx, party)
	if errors.Is(err, ledger.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	if p.External {
		return ledgerapi.ParticipantPermissionConfirmation, true, nil
	}
	return ledgerapi.ParticipantPermissionSubmission, true, nil
}

// AllocateParty allocates the local party hint::<the node's namespace> with
// annotations in identity provider idp, and grants CanActAs on it to user
// grantActAsTo when that is set (USER_NOT_FOUND when the user is unknown).
// An existing party is INVALID_ARGUMENT, as Canton answers it.
func (n *Node) AllocateParty(ctx context.Context, hint string, annotations map[string]string, idp, grantActAsTo string) (ledger.Party, error) {
	id := ledgerapi.JoinParty(hint, n.identity.NamespaceFingerprint)
	if err := n.partyNotInOtherProvider(ctx, id, idp); err != nil {
		return ledger.Party{}, err
	}
	p, err := n.store.AllocateParty(ctx, ledger.PartyAllocation{
		Party:        ledger.Party{ID: id, IsLocal: true, Annotations: annotations, IdentityProviderID: idp},
		GrantActAsTo: grantActAsTo,
	})
	if err != nil {
		return p, partyError(id, grantActAsTo, err)
	}
	return p, n.recordPartyTopology(ctx, id, ledgerapi.ParticipantPermissionSubmission)
}

// UpdatePartyAnnotations merges change into the annotations of party, when
// expectedVersion is set only if it is the stored resource version
// (PARTY_NOT_FOUND, CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED,
// MAX_PARTY_DETAILS_ANNOTATIONS_SIZE_EXCEEDED).
func (n *Node) UpdatePartyAnnotations(ctx context.Context, party string, expectedVersion *int64, change map[string]string) (ledger.Party, error) {
	p, err := n.store.UpdatePartyAnnotations(ctx, party, expectedVersion, change)
	return p, partyError(party, "", err)
}

// GenerateExternalParty makes the onboarding transactions of an external
// party hosted on this node, on this node's synchronizer unless req names
// one. A request the topology rules refuse is INVALID_ARGUMENT.
func (n *Node) GenerateExternalParty(req topology.OnboardingRequest) (*topology.Onboarding, error) {
	req.ParticipantUID = n.identity.ParticipantID
	if req.SynchronizerID == "" {
		req.SynchronizerID = n.identity.SynchronizerID
	}
	ob, err := topology.GenerateExternalParty(req)
	if err != nil {
		return nil, ledgerapi.InvalidArgument("%s", err.Error())
	}
	return ob, nil
}

// partyNotInOtherProvider refuses to allocate a party that exists in
// another identity provider than idp with PERMISSION_DENIED, as Canton's
// verifyPartyIsNonExistentOrInIdp does, so that an identity provider's
// admin learns nothing of other providers' parties; one of idp itself is
// left to the allocation, which answers that it exists.
func (n *Node) partyNotInOtherProvider(ctx context.Context, id, idp string) error {
	p, err := n.store.Party(ctx, id)
	switch {
	case errors.Is(err, ledger.ErrNotFound):
		return nil
	case err != nil:
		return err
	case p.IdentityProviderID != idp:
		return ledgerapi.Errorf(ledgerapi.CodePermissionDenied,
			"Party %s belongs to an identity provider that differs from the one specified in the request", id)
	}
	return nil
}

// AllocateExternalParty verifies the signed onboarding transactions of an
// external party to be hosted on this node (topology.VerifyAllocation;
// INVALID_ARGUMENT when they do not verify) and records the party with its
// signing keys, which execute checks later, in identity provider idp,
// granting CanActAs on it to user grantActAsTo when that is set.
func (n *Node) AllocateExternalParty(ctx context.Context, ar topology.AllocationRequest, idp, grantActAsTo string) (string, error) {
	ar.ParticipantUID = n.identity.ParticipantID
	ext, err := topology.VerifyAllocation(ar)
	if err != nil {
		if errors.Is(err, topology.ErrBadSignature) {
			return "", ledgerapi.InvalidArgument("The onboarding transactions are not properly signed: %s", err.Error())
		}
		return "", ledgerapi.InvalidArgument("Invalid onboarding transactions: %s", err.Error())
	}
	keys := make([]ledger.SigningKey, 0, len(ext.SigningKeys))
	for _, k := range ext.SigningKeys {
		keys = append(keys, ledger.SigningKey{Fingerprint: k.Fingerprint, PublicKey: k.Ed25519})
	}
	txs := make([][]byte, 0, len(ar.Transactions))
	for _, tx := range ar.Transactions {
		txs = append(txs, tx.Transaction)
	}
	if err := n.partyNotInOtherProvider(ctx, ext.PartyID, idp); err != nil {
		return "", err
	}
	_, err = n.store.AllocateParty(ctx, ledger.PartyAllocation{
		Party: ledger.Party{ID: ext.PartyID, IsLocal: true, IdentityProviderID: idp,
			SigningThreshold: int(ext.SigningThreshold)},
		SigningKeys:  keys,
		Topology:     txs,
		GrantActAsTo: grantActAsTo,
	})
	if err != nil {
		return "", partyError(ext.PartyID, grantActAsTo, err)
	}
	return ext.PartyID, n.recordPartyTopology(ctx, ext.PartyID, ledgerapi.ParticipantPermissionConfirmation)
}
