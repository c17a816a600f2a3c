package ledgerapi

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ledger-cli/ledger/signer"
)

// CreateCommand creates a contract. CreateArguments is the Daml record as
// Daml-LF JSON, kept verbatim.
type CreateCommand struct {
	TemplateID      string          `json:"templateId"`
	CreateArguments json.RawMessage `json:"createArguments"`
}

// ExerciseCommand exercises a choice on a contract; TemplateID may name a
// template or an interface.
type ExerciseCommand struct {
	TemplateID     string          `json:"templateId"`
	ContractID     string          `json:"contractId"`
	Choice         string          `json:"choice"`
	ChoiceArgument json.RawMessage `json:"choiceArgument"`
}

// CreateAndExerciseCommand creates a contract and exercises a choice on it.
type CreateAndExerciseCommand struct {
	TemplateID      string          `json:"templateId"`
	CreateArguments json.RawMessage `json:"createArguments"`
	Choice          string          `json:"choice"`
	ChoiceArgument  json.RawMessage `json:"choiceArgument"`
}

// ExerciseByKeyCommand exercises a choice on the contract with a given key.
type ExerciseByKeyCommand struct {
	TemplateID     string          `json:"templateId"`
	ContractKey    json.RawMessage `json:"contractKey"`
	Choice         string          `json:"choice"`
	ChoiceArgument json.RawMessage `json:"choiceArgument"`
}

// Command is one ledger command; exactly one field is set.
// Wire: {"CreateCommand":{...}} (no "value" wrapper), likewise
// ExerciseCommand, CreateAndExerciseCommand, ExerciseByKeyCommand.
type Command struct {
	Create            *CreateCommand
	Exercise          *ExerciseCommand
	CreateAndExercise *CreateAndExerciseCommand
	ExerciseByKey     *ExerciseByKeyCommand
}

var commandArms = []string{"CreateCommand", "ExerciseCommand", "CreateAndExerciseCommand", "ExerciseByKeyCommand"}

// Kind returns the wire name of the set variant, or "" if none is set.
func (c Command) Kind() string {
	switch {
	case c.Create != nil:
		return "CreateCommand"
	case c.Exercise != nil:
		return "ExerciseCommand"
	case c.CreateAndExercise != nil:
		return "CreateAndExerciseCommand"
	case c.ExerciseByKey != nil:
		return "ExerciseByKeyCommand"
	}
	return ""
}

func (c Command) count() int {
	n := 0
	for _, set := range []bool{c.Create != nil, c.Exercise != nil, c.CreateAndExercise != nil, c.ExerciseByKey != nil} {
		if set {
			n++
		}
	}
	return n
}

func (c Command) MarshalJSON() ([]byte, error) {
	if c.count() != 1 {
		return nil, fmt.Errorf("command must have exactly one of %v set, has %d", commandArms, c.count())
	}
	switch {
	case c.Create != nil:
		return encodeArm("CreateCommand", c.Create)
	case c.Exercise != nil:
		return encodeArm("ExerciseCommand", c.Exercise)
	case c.CreateAndExercise != nil:
		return encodeArm("CreateAndExerciseCommand", c.CreateAndExercise)
	default:
		return encodeArm("ExerciseByKeyCommand", c.ExerciseByKey)
	}
}

func (c *Command) UnmarshalJSON(b []byte) error {
	*c = Command{}
	arm, body, err := decodeOneof(b, "command", commandArms)
	if err != nil {
		return err
	}
	if arm == "" {
		return fmt.Errorf("command must be one of %v", commandArms)
	}
	if !isJSONObject(body) {
		return fmt.Errorf("command.%s must be an object", arm)
	}
	switch arm {
	case "CreateCommand":
		c.Create = new(CreateCommand)
		err = json.Unmarshal(body, c.Create)
	case "ExerciseCommand":
		c.Exercise = new(ExerciseCommand)
		err = json.Unmarshal(body, c.Exercise)
	case "CreateAndExerciseCommand":
		c.CreateAndExercise = new(CreateAndExerciseCommand)
		err = json.Unmarshal(body, c.CreateAndExercise)
	case "ExerciseByKeyCommand":
		c.ExerciseByKey = new(ExerciseByKeyCommand)
		err = json.Unmarshal(body, c.ExerciseByKey)
	}
	if err != nil {
		return fmt.Errorf("command.%s: %w", arm, unwrapJSONError(err))
	}
	return nil
}

func isJSONObject(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			return true
		default:
			return false
		}
	}
	return false
}

// DisclosedContract lets a submission use a contract the submitters cannot
// see. TemplateID is omitted when empty: Canton reads an empty string as a
// malformed identifier.
type DisclosedContract struct {
	TemplateID       string `json:"templateId,omitempty"`
	ContractID       string `json:"contractId"`
	CreatedEventBlob Bytes  `json:"createdEventBlob"`
	SynchronizerID   string `json:"synchronizerId"`
}

// PrefetchContractKey asks the node to load contracts by key up front
// (Canton 3.4+). Limit is 3.5+ and omitted when nil.
type PrefetchContractKey struct {
	TemplateID  string          `json:"templateId"`
	ContractKey json.RawMessage `json:"contractKey"`
	Limit       *Int32          `json:"limit,omitempty"`
}

// Commands is JsCommands: the body of submit-and-wait, submit-and-wait-for-
// transaction-tree and async submit. Canton's decoder needs commands,
// commandId and actAs; everything else may be absent.
type Commands struct {
	Commands                     List[Command]             `json:"commands"`
	CommandID                    string                    `json:"commandId"`
	ActAs                        List[string]              `json:"actAs"`
	UserID                       *string                   `json:"userId"`
	ReadAs                       List[string]              `json:"readAs"`
	WorkflowID                   *string                   `json:"workflowId"`
	DeduplicationPeriod          *DeduplicationPeriod      `json:"deduplicationPeriod"`
	MinLedgerTimeAbs             *Timestamp                `json:"minLedgerTimeAbs"`
	MinLedgerTimeRel             *Duration                 `json:"minLedgerTimeRel"`
	SubmissionID                 *string                   `json:"submissionId"`
	DisclosedContracts           List[DisclosedContract]   `json:"disclosedContracts"`
	SynchronizerID               *string                   `json:"synchronizerId"`
	PackageIDSelectionPreference List[string]              `json:"packageIdSelectionPreference"`
	PrefetchContractKeys         List[PrefetchContractKey] `json:"prefetchContractKeys"`
	TapsMaxPasses                *Int32                    `json:"tapsMaxPasses"`
}

// CostEstimationHints tunes or disables prepare's traffic cost estimate.
type CostEstimationHints struct {
	Disabled           bool                       `json:"disabled"`
	ExpectedSignatures List[SigningAlgorithmSpec] `json:"expectedSignatures"`
}

// CostEstimation is prepare's estimate of the traffic the submission costs.
type CostEstimation struct {
	EstimationTimestamp                       Timestamp `json:"estimationTimestamp"`
	ConfirmationRequestTrafficCostEstimation  Int64     `json:"confirmationRequestTrafficCostEstimation"`
	ConfirmationResponseTrafficCostEstimation Int64     `json:"confirmationResponseTrafficCostEstimation"`
	TotalTrafficCostEstimation                Int64     `json:"totalTrafficCostEstimation"`
}

// PrepareSubmissionRequest is the body of POST
// /v2/interactive-submission/prepare. Canton's decoder needs commandId,
// commands, actAs, synchronizerId and packageIdSelectionPreference (the last
// two although the OpenAPI document calls them optional), so a client sends
// every field. HashingSchemeVersion is 3.5+ (3.4 ignores it); leave it empty
// for the node's default (V2). It is omitted when empty so that UNSPECIFIED
// is never sent by accident.
type PrepareSubmissionRequest struct {
	UserID                       string                    `json:"userId"`
	CommandID                    string                    `json:"commandId"`
	Commands                     List[Command]             `json:"commands"`
	MinLedgerTime                *MinLedgerTime            `json:"minLedgerTime"`
	ActAs                        List[string]              `json:"actAs"`
	ReadAs                       List[string]              `json:"readAs"`
	DisclosedContracts           List[DisclosedContract]   `json:"disclosedContracts"`
	SynchronizerID               string                    `json:"synchronizerId"`
	PackageIDSelectionPreference List[string]              `json:"packageIdSelectionPreference"`
	VerboseHashing               bool                      `json:"verboseHashing"`
	PrefetchContractKeys         List[PrefetchContractKey] `json:"prefetchContractKeys"`
	MaxRecordTime                *Timestamp                `json:"maxRecordTime"`
	EstimateTrafficCost          *CostEstimationHints      `json:"estimateTrafficCost"`
	TapsMaxPasses                *Int32                    `json:"tapsMaxPasses"`
	HashingSchemeVersion         HashingSchemeVersion      `json:"hashingSchemeVersion,omitempty"`
}

// PrepareSubmissionResponse carries the prepared transaction (binary
// protobuf) and the 32-byte hash the node computed for it.
type PrepareSubmissionResponse struct {
	PreparedTransaction     Bytes                `json:"preparedTransaction"`
	PreparedTransactionHash Bytes                `json:"preparedTransactionHash"`
	HashingSchemeVersion    HashingSchemeVersion `json:"hashingSchemeVersion"`
	HashingDetails          *string              `json:"hashingDetails"`
	CostEstimation          *CostEstimation      `json:"costEstimation"`
}

// Signature is one signature over a hash. SignedBy is the fingerprint of the
// signing key (1220… hex).
type Signature struct {
	Format               SignatureFormat      `json:"format"`
	Signature            Bytes                `json:"signature"`
	SignedBy             string               `json:"signedBy"`
	SigningAlgorithmSpec SigningAlgorithmSpec `json:"signingAlgorithmSpec"`
}

// SignatureOf is the wire form of a signature made by package signer.
func SignatureOf(s signer.Signature) Signature {
	return Signature{Format: SignatureFormat(s.Format), Signature: s.Signature, SignedBy: s.SignedBy, SigningAlgorithmSpec: SigningAlgorithmSpec(s.SigningAlgorithmSpec)}
}

// Signer is s as package signer checks it.
func (s Signature) Signer() signer.Signature {
	return signer.Signature{Format: string(s.Format), Signature: s.Signature, SignedBy: s.SignedBy, SigningAlgorithmSpec: string(s.SigningAlgorithmSpec)}
}

// SinglePartySignatures are one party's signatures.
type SinglePartySignatures struct {
	Party      string          `json:"party"`
	Signatures List[Signature] `json:"signatures"`
}

// PartySignatures are the signatures of all signing parties.
type PartySignatures struct {
	Signatures List[SinglePartySignatures] `json:"signatures"`
}

// Add appends sig to party's entry, creating the entry if needed.
func (p *PartySignatures) Add(party string, sig Signature) {
	for i := range p.Signatures {
		if p.Signatures[i].Party == party {
			p.Signatures[i].Signatures = append(p.Signatures[i].Signatures, sig)
			return
		}
	}
	p.Signatures = append(p.Signatures, SinglePartySignatures{Party: party, Signatures: List[Signature]{sig}})
}

// ExecuteSubmissionRequest is the body of POST
// /v2/interactive-submission/execute and executeAndWait. Canton's decoder
// needs deduplicationPeriod (send {"Empty":{}}), submissionId and
// hashingSchemeVersion.
type ExecuteSubmissionRequest struct {
	PreparedTransaction  Bytes                `json:"preparedTransaction"`
	PartySignatures      PartySignatures      `json:"partySignatures"`
	DeduplicationPeriod  DeduplicationPeriod  `json:"deduplicationPeriod"`
	SubmissionID         string               `json:"submissionId"`
	UserID               string               `json:"userId"`
	HashingSchemeVersion HashingSchemeVersion `json:"hashingSchemeVersion"`
	MinLedgerTime        *MinLedgerTime       `json:"minLedgerTime"`
}

// ExecuteSubmissionAndWaitRequest has the same fields as execute.
type ExecuteSubmissionAndWaitRequest = ExecuteSubmissionRequest

// ExecuteSubmissionAndWaitForTransactionRequest adds the transaction format
// of the returned transaction (nil: ACS delta, wildcard for the submitters).
type ExecuteSubmissionAndWaitForTransactionRequest struct {
	ExecuteSubmissionRequest
	TransactionFormat *TransactionFormat `json:"transactionFormat"`
}

// ExecuteSubmissionResponse is execute's empty answer, {}.
type ExecuteSubmissionResponse struct{}

// ExecuteSubmissionAndWaitResponse is executeAndWait's answer.
type ExecuteSubmissionAndWaitResponse struct {
	UpdateID         string `json:"updateId"`
	CompletionOffset Int64  `json:"completionOffset"`
}

// ExecuteSubmissionAndWaitForTransactionResponse is
// executeAndWaitForTransaction's answer.
type ExecuteSubmissionAndWaitForTransactionResponse struct {
	Transaction Transaction `json:"transaction"`
}

// SubmitAndWaitResponse is the answer of /v2/commands/submit-and-wait.
type SubmitAndWaitResponse struct {
	UpdateID         string `json:"updateId"`
	CompletionOffset Int64  `json:"completionOffset"`
}

// SubmitResponse is the empty answer of /v2/commands/async/submit.
type SubmitResponse struct{}

// SubmitAndWaitForTransactionRequest is the body of
// /v2/commands/submit-and-wait-for-transaction.
type SubmitAndWaitForTransactionRequest struct {
	Commands          Commands           `json:"commands"`
	TransactionFormat *TransactionFormat `json:"transactionFormat"`
}

// SubmitAndWaitForTransactionResponse carries the resulting transaction.
type SubmitAndWaitForTransactionResponse struct {
	Transaction Transaction `json:"transaction"`
}

// SubmitAndWaitForTransactionTreeResponse is the answer of the deprecated
// /v2/commands/submit-and-wait-for-transaction-tree.
type SubmitAndWaitForTransactionTreeResponse struct {
	TransactionTree TransactionTree `json:"transactionTree"`
}

// TransactionFormat selects which events a transaction carries.
type TransactionFormat struct {
	EventFormat      EventFormat      `json:"eventFormat"`
	TransactionShape TransactionShape `json:"transactionShape"`
}

// EventFormat filters events per party or for any party.
type EventFormat struct {
	FiltersByParty     Map[Filters] `json:"filtersByParty"`
	FiltersForAnyParty *Filters     `json:"filtersForAnyParty"`
	Verbose            bool         `json:"verbose"`
}

// EventFormatOf is the event format a reader of parties (none: any party)
// asks for: every template, or the given templates and the templates
// implementing the given interfaces (with the interfaces' views); with
// blob, created events carry their createdEventBlob. Verbose, as the JSON
// API writes values with field names anyway.
func EventFormatOf(parties, templates, interfaces []string, blob bool) EventFormat {
	filters := Filters{}
	if len(templates) == 0 && len(interfaces) == 0 && blob {
		filters.Cumulative = append(filters.Cumulative, CumulativeFilter{IdentifierFilter: IdentifierFilter{
			Wildcard: &WildcardFilter{IncludeCreatedEventBlob: true}}})
	}
	for _, t := range templates {
		filters.Cumulative = append(filters.Cumulative, CumulativeFilter{IdentifierFilter: IdentifierFilter{
			Template: &TemplateFilter{TemplateID: t, IncludeCreatedEventBlob: blob}}})
	}
	for _, i := range interfaces {
		filters.Cumulative = append(filters.Cumulative, CumulativeFilter{IdentifierFilter: IdentifierFilter{
			Interface: &InterfaceFilter{InterfaceID: i, IncludeInterfaceView: true, IncludeCreatedEventBlob: blob}}})
	}
	ef := EventFormat{FiltersByParty: Map[Filters]{}, Verbose: true}
	if len(parties) == 0 {
		ef.FiltersForAnyParty = &filters
		return ef
	}
	for _, p := range parties {
		ef.FiltersByParty[p] = filters
	}
	return ef
}

// Filters is a union of cumulative filters; an empty list means wildcard.
type Filters struct {
	Cumulative List[CumulativeFilter] `json:"cumulative"`
}

// CumulativeFilter holds one identifier filter.
type CumulativeFilter struct {
	IdentifierFilter IdentifierFilter `json:"identifierFilter"`
}

// WildcardFilter matches every template.
type WildcardFilter struct {
	IncludeCreatedEventBlob bool `json:"includeCreatedEventBlob"`
}

// TemplateFilter matches one template.
type TemplateFilter struct {
	TemplateID              string `json:"templateId"`
	IncludeCreatedEventBlob bool   `json:"includeCreatedEventBlob"`
}

// InterfaceFilter matches contracts implementing an interface.
type InterfaceFilter struct {
	InterfaceID             string `json:"interfaceId"`
	IncludeInterfaceView    bool   `json:"includeInterfaceView"`
	IncludeCreatedEventBlob bool   `json:"includeCreatedEventBlob"`
}

// IdentifierFilter is a oneof with the "value" wrapper:
// {"WildcardFilter":{"value":{...}}} | {"TemplateFilter":{"value":{...}}} |
// {"InterfaceFilter":{"value":{...}}} | {"Empty":{}}.
type IdentifierFilter struct {
	Wildcard  *WildcardFilter
	Template  *TemplateFilter
	Interface *InterfaceFilter
}

var identifierFilterArms = []string{"WildcardFilter", "TemplateFilter", "InterfaceFilter"}

func (f IdentifierFilter) MarshalJSON() ([]byte, error) {
	n := 0
	for _, set := range []bool{f.Wildcard != nil, f.Template != nil, f.Interface != nil} {
		if set {
			n++
		}
	}
	switch {
	case n > 1:
		return nil, errors.New("identifierFilter: more than one variant set")
	case f.Wildcard != nil:
		return encodeValueArm("WildcardFilter", f.Wildcard)
	case f.Template != nil:
		return encodeValueArm("TemplateFilter", f.Template)
	case f.Interface != nil:
		return encodeValueArm("InterfaceFilter", f.Interface)
	}
	return emptyArm, nil
}

func (f *IdentifierFilter) UnmarshalJSON(b []byte) error {
	*f = IdentifierFilter{}
	arm, body, err := decodeOneof(b, "identifierFilter", identifierFilterArms)
	if err != nil || arm == "" {
		return err
	}
	v, err := unwrapValue(body, "identifierFilter."+arm)
	if err != nil {
		return err
	}
	if !isJSONObject(v) && !isNull(v) {
		return fmt.Errorf("identifierFilter.%s.value must be an object", arm)
	}
	switch arm {
	case "WildcardFilter":
		f.Wildcard = new(WildcardFilter)
		err = json.Unmarshal(v, f.Wildcard)
	case "TemplateFilter":
		f.Template = new(TemplateFilter)
		err = json.Unmarshal(v, f.Template)
	case "InterfaceFilter":
		f.Interface = new(InterfaceFilter)
		err = json.Unmarshal(v, f.Interface)
	}
	if err != nil {
		return fmt.Errorf("identifierFilter.%s: %w", arm, unwrapJSONError(err))
	}
	return nil
}

// GenericModelHeader is the response header by which ledger serve says
// that its generic contract model, not Daml code, served templates of a
// command (no package of theirs is uploaded): the templates in package-id
// form, comma-separated. Canton has no such model, so its answers never
// carry it; the body stays Canton's. docs/json-api.md §9.
const GenericModelHeader = "Ledger-Generic-Model"
