package ledgerapi

import (
	"encoding/json"
	"fmt"
)

// The read side of /v2: the active contract set, the update stream and its
// lookups, the events of a contract, pruning offsets and identity
// providers.

// TransactionFilter is the deprecated per-party filter (before eventFormat).
type TransactionFilter struct {
	FiltersByParty     Map[Filters] `json:"filtersByParty"`
	FiltersForAnyParty *Filters     `json:"filtersForAnyParty"`
}

// GetActiveContractsRequest is the body of /v2/state/active-contracts (list
// and websocket). Filter and Verbose are the deprecated form of EventFormat.
type GetActiveContractsRequest struct {
	Filter                  *TransactionFilter `json:"filter,omitempty"`
	Verbose                 bool               `json:"verbose"`
	ActiveAtOffset          Int64              `json:"activeAtOffset"`
	EventFormat             *EventFormat       `json:"eventFormat"`
	StreamContinuationToken string             `json:"streamContinuationToken,omitempty"`
}

// GetActiveContractsPageRequest is the body of /v2/state/active-contracts-page.
type GetActiveContractsPageRequest struct {
	ActiveAtOffset *Int64       `json:"activeAtOffset"`
	EventFormat    *EventFormat `json:"eventFormat"`
	MaxPageSize    *Int32       `json:"maxPageSize"`
	PageToken      string       `json:"pageToken"`
}

// JsActiveContract is an active contract of the snapshot.
type JsActiveContract struct {
	CreatedEvent        CreatedEvent `json:"createdEvent"`
	SynchronizerID      string       `json:"synchronizerId"`
	ReassignmentCounter Int64        `json:"reassignmentCounter"`
}

// JsContractEntry is one entry of the snapshot; a one-synchronizer node
// only has active contracts. Wire (no wrapper): {"JsActiveContract":{...}}
// | {"JsEmpty":{}} (incomplete (un)assignments are decoded as empty).
type JsContractEntry struct {
	ActiveContract *JsActiveContract
}

var contractEntryArms = []string{"JsActiveContract", "JsEmpty", "JsIncompleteAssigned", "JsIncompleteUnassigned"}

func (e JsContractEntry) MarshalJSON() ([]byte, error) {
	if e.ActiveContract == nil {
		return []byte(`{"JsEmpty":{}}`), nil
	}
	return encodeArm("JsActiveContract", e.ActiveContract)
}

func (e *JsContractEntry) UnmarshalJSON(b []byte) error {
	*e = JsContractEntry{}
	arm, body, err := decodeOneof(b, "contractEntry", contractEntryArms)
	if err != nil || arm != "JsActiveContract" {
		return err
	}
	e.ActiveContract = new(JsActiveContract)
	if err := json.Unmarshal(body, e.ActiveContract); err != nil {
		return fmt.Errorf("contractEntry.JsActiveContract: %w", unwrapJSONError(err))
	}
	return nil
}

// JsGetActiveContractsResponse is one element of the snapshot.
type JsGetActiveContractsResponse struct {
	WorkflowID              string          `json:"workflowId"`
	ContractEntry           JsContractEntry `json:"contractEntry"`
	StreamContinuationToken string          `json:"streamContinuationToken"`
}

// JsGetActiveContractsPageResponse is one page of the snapshot;
// NextPageToken is "" on the last page.
type JsGetActiveContractsPageResponse struct {
	ActiveContracts List[JsGetActiveContractsResponse] `json:"activeContracts"`
	ActiveAtOffset  Int64                              `json:"activeAtOffset"`
	NextPageToken   string                             `json:"nextPageToken"`
}

// TopologyFormat asks for topology events of some parties.
type TopologyFormat struct {
	IncludeParticipantAuthorizationEvents *ParticipantAuthorizationTopologyFormat `json:"includeParticipantAuthorizationEvents"`
}

// ParticipantAuthorizationTopologyFormat lists the parties whose
// authorization changes are wanted (empty: all).
type ParticipantAuthorizationTopologyFormat struct {
	Parties List[string] `json:"parties"`
}

// UpdateFormat selects the kinds of update a read returns.
type UpdateFormat struct {
	IncludeTransactions   *TransactionFormat `json:"includeTransactions"`
	IncludeReassignments  *EventFormat       `json:"includeReassignments"`
	IncludeTopologyEvents *TopologyFormat    `json:"includeTopologyEvents"`
}

// GetUpdatesRequest is the body of /v2/updates (and of the deprecated
// flats and trees, which take Filter and Verbose instead of UpdateFormat).
type GetUpdatesRequest struct {
	BeginExclusive  Int64              `json:"beginExclusive"`
	EndInclusive    *Int64             `json:"endInclusive"`
	Filter          *TransactionFilter `json:"filter,omitempty"`
	Verbose         bool               `json:"verbose"`
	UpdateFormat    *UpdateFormat      `json:"updateFormat"`
	DescendingOrder bool               `json:"descendingOrder"`
}

// GetUpdatesPageRequest is the body of /v2/updates/get-updates-page.
type GetUpdatesPageRequest struct {
	BeginOffsetExclusive *Int64        `json:"beginOffsetExclusive"`
	EndOffsetInclusive   *Int64        `json:"endOffsetInclusive"`
	MaxPageSize          *Int32        `json:"maxPageSize"`
	UpdateFormat         *UpdateFormat `json:"updateFormat"`
	DescendingOrder      bool          `json:"descendingOrder"`
	PageToken            string        `json:"pageToken"`
}

// JsUpdate is the update oneof of the update stream; exactly one field is
// set. Wire (with the "value" wrapper): {"Transaction":{"value":{...}}} |
// {"TransactionTree":{"value":{...}}} (trees only) |
// {"OffsetCheckpoint":{"value":{...}}} | {"TopologyTransaction":{"value":{...}}} |
// {"Reassignment":{"value":{...}}} (kept raw).
type JsUpdate struct {
	Transaction         *Transaction
	TransactionTree     *TransactionTree
	OffsetCheckpoint    *OffsetCheckpoint
	TopologyTransaction *JsTopologyTransaction
	Reassignment        json.RawMessage
}

var updateArms = []string{"Transaction", "TransactionTree", "OffsetCheckpoint", "TopologyTransaction", "Reassignment"}

// Offset is the offset of whichever update is set (0 if none).
func (u JsUpdate) Offset() int64 {
	switch {
	case u.Transaction != nil:
		return int64(u.Transaction.Offset)
	case u.TransactionTree != nil:
		return int64(u.TransactionTree.Offset)
	case u.OffsetCheckpoint != nil:
		return int64(u.OffsetCheckpoint.Offset)
	case u.TopologyTransaction != nil:
		return int64(u.TopologyTransaction.Offset)
	}
	return 0
}

func (u JsUpdate) MarshalJSON() ([]byte, error) {
	switch {
	case u.Transaction != nil:
		return encodeValueArm("Transaction", u.Transaction)
	case u.TransactionTree != nil:
		return encodeValueArm("TransactionTree", u.TransactionTree)
	case u.OffsetCheckpoint != nil:
		return encodeValueArm("OffsetCheckpoint", u.OffsetCheckpoint)
	case u.TopologyTransaction != nil:
		return encodeValueArm("TopologyTransaction", u.TopologyTransaction)
	case u.Reassignment != nil:
		return encodeValueArm("Reassignment", u.Reassignment)
	}
	return emptyArm, nil
}

func (u *JsUpdate) UnmarshalJSON(b []byte) error {
	*u = JsUpdate{}
	arm, body, err := decodeOneof(b, "update", updateArms)
	if err != nil || arm == "" {
		return err
	}
	v, err := unwrapValue(body, "update."+arm)
	if err != nil {
		return err
	}
	var dst any
	switch arm {
	case "Transaction":
		u.Transaction = new(Transaction)
		dst = u.Transaction
	case "TransactionTree":
		u.TransactionTree = new(TransactionTree)
		dst = u.TransactionTree
	case "OffsetCheckpoint":
		u.OffsetCheckpoint = new(OffsetCheckpoint)
		dst = u.OffsetCheckpoint
	case "TopologyTransaction":
		u.TopologyTransaction = new(JsTopologyTransaction)
		dst = u.TopologyTransaction
	default:
		u.Reassignment = append(json.RawMessage{}, v...)
		return nil
	}
	if err := json.Unmarshal(v, dst); err != nil {
		return fmt.Errorf("update.%s: %w", arm, unwrapJSONError(err))
	}
	return nil
}

// JsGetUpdatesResponse is one element of /v2/updates and /v2/updates/flats.
type JsGetUpdatesResponse struct {
	Update JsUpdate `json:"update"`
}

// JsGetUpdateTreesResponse is one element of /v2/updates/trees.
type JsGetUpdateTreesResponse = JsGetUpdatesResponse

// JsGetUpdateResponse is the answer of update-by-offset and update-by-id.
type JsGetUpdateResponse = JsGetUpdatesResponse

// JsGetUpdatesPageResponse is one page of updates.
type JsGetUpdatesPageResponse struct {
	Updates                    List[JsGetUpdateResponse] `json:"updates"`
	LowestPageOffsetExclusive  Int64                     `json:"lowestPageOffsetExclusive"`
	HighestPageOffsetInclusive Int64                     `json:"highestPageOffsetInclusive"`
	NextPageToken              string                    `json:"nextPageToken"`
}

// JsTopologyTransaction is a topology update (party authorization changes).
type JsTopologyTransaction struct {
	UpdateID       string              `json:"updateId"`
	Offset         Int64               `json:"offset"`
	SynchronizerID string              `json:"synchronizerId"`
	RecordTime     Timestamp           `json:"recordTime"`
	Events         List[TopologyEvent] `json:"events"`
	TraceContext   *TraceContext       `json:"traceContext"`
}

// TopologyEvent holds one participant authorization change, kept raw:
// {"event":{"ParticipantAuthorizationAdded":{"value":{...}}}}.
type TopologyEvent struct {
	Event json.RawMessage `json:"event"`
}

// GetUpdateByOffsetRequest is the body of /v2/updates/update-by-offset.
type GetUpdateByOffsetRequest struct {
	Offset       Int64         `json:"offset"`
	UpdateFormat *UpdateFormat `json:"updateFormat"`
}

// GetUpdateByIDRequest is the body of /v2/updates/update-by-id.
type GetUpdateByIDRequest struct {
	UpdateID     string        `json:"updateId"`
	UpdateFormat *UpdateFormat `json:"updateFormat"`
}

// GetTransactionByOffsetRequest is the body of the deprecated
// /v2/updates/transaction-by-offset.
type GetTransactionByOffsetRequest struct {
	Offset            Int64              `json:"offset"`
	RequestingParties List[string]       `json:"requestingParties"`
	TransactionFormat *TransactionFormat `json:"transactionFormat"`
}

// GetTransactionByIDRequest is the body of the deprecated
// /v2/updates/transaction-by-id.
type GetTransactionByIDRequest struct {
	UpdateID          string             `json:"updateId"`
	RequestingParties List[string]       `json:"requestingParties"`
	TransactionFormat *TransactionFormat `json:"transactionFormat"`
}

// JsGetTransactionResponse is the deprecated transaction lookups' answer.
type JsGetTransactionResponse struct {
	Transaction Transaction `json:"transaction"`
}

// JsGetTransactionTreeResponse is the deprecated tree lookups' answer.
type JsGetTransactionTreeResponse struct {
	Transaction TransactionTree `json:"transaction"`
}

// GetEventsByContractIDRequest is the body of /v2/events/events-by-contract-id.
type GetEventsByContractIDRequest struct {
	ContractID  string       `json:"contractId"`
	EventFormat *EventFormat `json:"eventFormat"`
	// RequestingParties is the form before eventFormat (3.3).
	RequestingParties List[string] `json:"requestingParties,omitempty"`
}

// JsCreated is a contract's created event and its synchronizer.
type JsCreated struct {
	CreatedEvent   CreatedEvent `json:"createdEvent"`
	SynchronizerID string       `json:"synchronizerId"`
}

// JsArchived is a contract's archived event and its synchronizer.
type JsArchived struct {
	ArchivedEvent  ArchivedEvent `json:"archivedEvent"`
	SynchronizerID string        `json:"synchronizerId"`
}

// JsGetEventsByContractIDResponse is the events of one contract.
type JsGetEventsByContractIDResponse struct {
	Created  *JsCreated  `json:"created"`
	Archived *JsArchived `json:"archived"`
}

// GetContractRequest is the body of /v2/contracts/contract-by-id.
type GetContractRequest struct {
	ContractID      string       `json:"contractId"`
	QueryingParties List[string] `json:"queryingParties"`
}

// GetContractResponse is contract-by-id's answer.
type GetContractResponse struct {
	CreatedEvent CreatedEvent `json:"createdEvent"`
}

// GetLatestPrunedOffsetsResponse is /v2/state/latest-pruned-offsets's answer.
type GetLatestPrunedOffsetsResponse struct {
	ParticipantPrunedUpToInclusive          Int64 `json:"participantPrunedUpToInclusive"`
	AllDivulgedContractsPrunedUpToInclusive Int64 `json:"allDivulgedContractsPrunedUpToInclusive"`
}

// PruneRequest is the body of `ledger serve`'s own pruning endpoint
// (Canton prunes through its admin API, outside /v2): up to an offset, or
// (PruneBefore) up to the last offset recorded before a time.
type PruneRequest struct {
	PruneUpTo   Int64      `json:"pruneUpTo"`
	PruneBefore *Timestamp `json:"pruneBefore,omitempty"`
}

// PruneResponse reports a finished prune.
type PruneResponse struct {
	PrunedUpTo         Int64 `json:"prunedUpTo"`
	CompletionsRemoved Int64 `json:"completionsRemoved"`
	ContractsRemoved   Int64 `json:"contractsRemoved"`
}

// IdentityProviderConfig is an identity provider (/v2/idps).
type IdentityProviderConfig struct {
	IdentityProviderID string `json:"identityProviderId"`
	IsDeactivated      bool   `json:"isDeactivated"`
	Issuer             string `json:"issuer"`
	JwksURL            string `json:"jwksUrl"`
	Audience           string `json:"audience"`
}

// IdentityProviderConfigRequest is the body of POST /v2/idps (and, with an
// update mask, of PATCH /v2/idps/{id}).
type IdentityProviderConfigRequest struct {
	IdentityProviderConfig *IdentityProviderConfig `json:"identityProviderConfig"`
	UpdateMask             *FieldMask              `json:"updateMask,omitempty"`
}

// IdentityProviderConfigResponse answers create, get and update.
type IdentityProviderConfigResponse struct {
	IdentityProviderConfig IdentityProviderConfig `json:"identityProviderConfig"`
}

// ListIdentityProviderConfigsResponse answers GET /v2/idps.
type ListIdentityProviderConfigsResponse struct {
	IdentityProviderConfigs List[IdentityProviderConfig] `json:"identityProviderConfigs"`
}
