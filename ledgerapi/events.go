package ledgerapi

import (
	"encoding/json"
	"fmt"
)

// TraceContext carries W3C trace headers.
type TraceContext struct {
	Traceparent *string `json:"traceparent"`
	Tracestate  *string `json:"tracestate"`
}

// CreatedEvent reports a contract creation. CreateArgument and ContractKey
// are Daml-LF JSON values, kept verbatim.
type CreatedEvent struct {
	Offset                  Int64               `json:"offset"`
	NodeID                  Int32               `json:"nodeId"`
	ContractID              string              `json:"contractId"`
	TemplateID              string              `json:"templateId"`
	ContractKey             json.RawMessage     `json:"contractKey"`
	ContractKeyHash         Bytes               `json:"contractKeyHash"` // 3.5+
	CreateArgument          json.RawMessage     `json:"createArgument"`
	CreatedEventBlob        Bytes               `json:"createdEventBlob"`
	InterfaceViews          List[InterfaceView] `json:"interfaceViews"`
	WitnessParties          List[string]        `json:"witnessParties"`
	Signatories             List[string]        `json:"signatories"`
	Observers               List[string]        `json:"observers"`
	CreatedAt               Timestamp           `json:"createdAt"`
	PackageName             string              `json:"packageName"`
	RepresentativePackageID string              `json:"representativePackageId"` // 3.4+
	ACSDelta                bool                `json:"acsDelta"`                // 3.4+
}

// InterfaceView is a contract seen through an interface.
type InterfaceView struct {
	InterfaceID             string          `json:"interfaceId"`
	ViewStatus              JsStatus        `json:"viewStatus"`
	ViewValue               json.RawMessage `json:"viewValue"`
	ImplementationPackageID *string         `json:"implementationPackageId"` // 3.5+
}

// ExercisedEvent reports an exercised choice. The events nested under it
// have node ids in (NodeID, LastDescendantNodeID].
type ExercisedEvent struct {
	Offset                Int64           `json:"offset"`
	NodeID                Int32           `json:"nodeId"`
	ContractID            string          `json:"contractId"`
	TemplateID            string          `json:"templateId"`
	InterfaceID           *string         `json:"interfaceId"`
	Choice                string          `json:"choice"`
	ChoiceArgument        json.RawMessage `json:"choiceArgument"`
	ActingParties         List[string]    `json:"actingParties"`
	Consuming             bool            `json:"consuming"`
	WitnessParties        List[string]    `json:"witnessParties"`
	LastDescendantNodeID  Int32           `json:"lastDescendantNodeId"`
	ExerciseResult        json.RawMessage `json:"exerciseResult"`
	PackageName           string          `json:"packageName"`
	ImplementedInterfaces List[string]    `json:"implementedInterfaces"`
	ACSDelta              bool            `json:"acsDelta"` // 3.4+
}

// ArchivedEvent reports a contract archival (ACS-delta transactions).
type ArchivedEvent struct {
	Offset                Int64        `json:"offset"`
	NodeID                Int32        `json:"nodeId"`
	ContractID            string       `json:"contractId"`
	TemplateID            string       `json:"templateId"`
	WitnessParties        List[string] `json:"witnessParties"`
	PackageName           string       `json:"packageName"`
	ImplementedInterfaces List[string] `json:"implementedInterfaces"`
}

// TreeEvent is one node of a transaction tree; exactly one field is set.
// Wire (with the "value" wrapper): {"CreatedTreeEvent":{"value":{...}}} |
// {"ExercisedTreeEvent":{"value":{...}}}.
type TreeEvent struct {
	Created   *CreatedEvent
	Exercised *ExercisedEvent
}

var treeEventArms = []string{"CreatedTreeEvent", "ExercisedTreeEvent"}

// NodeID returns the node id of whichever event is set (-1 if none).
func (e TreeEvent) NodeID() int32 {
	switch {
	case e.Created != nil:
		return int32(e.Created.NodeID)
	case e.Exercised != nil:
		return int32(e.Exercised.NodeID)
	}
	return -1
}

func (e TreeEvent) MarshalJSON() ([]byte, error) {
	switch {
	case e.Created != nil && e.Exercised != nil:
		return nil, fmt.Errorf("tree event has both created and exercised set")
	case e.Created != nil:
		return encodeValueArm("CreatedTreeEvent", e.Created)
	case e.Exercised != nil:
		return encodeValueArm("ExercisedTreeEvent", e.Exercised)
	}
	return nil, fmt.Errorf("tree event has no variant set")
}

func (e *TreeEvent) UnmarshalJSON(b []byte) error {
	*e = TreeEvent{}
	arm, body, err := decodeOneof(b, "tree event", treeEventArms)
	if err != nil {
		return err
	}
	if arm == "" {
		return fmt.Errorf("tree event must be one of %v", treeEventArms)
	}
	v, err := unwrapValue(body, arm)
	if err != nil {
		return err
	}
	if !isJSONObject(v) {
		return fmt.Errorf("%s.value must be an object", arm)
	}
	if arm == "CreatedTreeEvent" {
		e.Created = new(CreatedEvent)
		err = json.Unmarshal(v, e.Created)
	} else {
		e.Exercised = new(ExercisedEvent)
		err = json.Unmarshal(v, e.Exercised)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", arm, unwrapJSONError(err))
	}
	return nil
}

// Event is one event of a Transaction; exactly one field is set.
// Wire (no wrapper): {"CreatedEvent":{...}} | {"ArchivedEvent":{...}} |
// {"ExercisedEvent":{...}}.
type Event struct {
	Created   *CreatedEvent
	Archived  *ArchivedEvent
	Exercised *ExercisedEvent
}

var eventArms = []string{"CreatedEvent", "ArchivedEvent", "ExercisedEvent"}

func (e Event) MarshalJSON() ([]byte, error) {
	n := 0
	for _, set := range []bool{e.Created != nil, e.Archived != nil, e.Exercised != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return nil, fmt.Errorf("event must have exactly one of %v set, has %d", eventArms, n)
	}
	switch {
	case e.Created != nil:
		return encodeArm("CreatedEvent", e.Created)
	case e.Archived != nil:
		return encodeArm("ArchivedEvent", e.Archived)
	default:
		return encodeArm("ExercisedEvent", e.Exercised)
	}
}

func (e *Event) UnmarshalJSON(b []byte) error {
	*e = Event{}
	arm, body, err := decodeOneof(b, "event", eventArms)
	if err != nil {
		return err
	}
	if arm == "" {
		return fmt.Errorf("event must be one of %v", eventArms)
	}
	if !isJSONObject(body) {
		return fmt.Errorf("event.%s must be an object", arm)
	}
	switch arm {
	case "CreatedEvent":
		e.Created = new(CreatedEvent)
		err = json.Unmarshal(body, e.Created)
	case "ArchivedEvent":
		e.Archived = new(ArchivedEvent)
		err = json.Unmarshal(body, e.Archived)
	default:
		e.Exercised = new(ExercisedEvent)
		err = json.Unmarshal(body, e.Exercised)
	}
	if err != nil {
		return fmt.Errorf("event.%s: %w", arm, unwrapJSONError(err))
	}
	return nil
}

// TransactionTree is the (deprecated) tree form of a transaction. EventsByID
// is keyed by decimal node id; there is no root list — roots are the nodes
// not inside any exercised node's (NodeID, LastDescendantNodeID] range.
type TransactionTree struct {
	UpdateID       string         `json:"updateId"`
	CommandID      string         `json:"commandId"`
	WorkflowID     string         `json:"workflowId"`
	EffectiveAt    Timestamp      `json:"effectiveAt"`
	Offset         Int64          `json:"offset"`
	EventsByID     Map[TreeEvent] `json:"eventsById"`
	SynchronizerID string         `json:"synchronizerId"`
	TraceContext   *TraceContext  `json:"traceContext"`
	RecordTime     Timestamp      `json:"recordTime"`
}

// Transaction is the flat or ledger-effects form of a transaction.
// ExternalTransactionHash is hex (not Base64) and set only for externally
// signed submissions.
type Transaction struct {
	UpdateID                string        `json:"updateId"`
	CommandID               string        `json:"commandId"`
	WorkflowID              string        `json:"workflowId"`
	EffectiveAt             Timestamp     `json:"effectiveAt"`
	Events                  List[Event]   `json:"events"`
	Offset                  Int64         `json:"offset"`
	SynchronizerID          string        `json:"synchronizerId"`
	TraceContext            *TraceContext `json:"traceContext"`
	RecordTime              Timestamp     `json:"recordTime"`
	ExternalTransactionHash *string       `json:"externalTransactionHash"`
	PaidTrafficCost         Int64         `json:"paidTrafficCost"` // 3.4+
}
