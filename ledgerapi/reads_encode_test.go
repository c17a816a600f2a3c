package ledgerapi

import (
	"encoding/json"
	"testing"
	"time"
)

// TestAppendActiveContractMatchesEncodingJSON pins the hand-written encoder
// of the active contract set to encoding/json's output of the same value.
func TestAppendActiveContractMatchesEncodingJSON(t *testing.T) {
	views := List[InterfaceView]{{InterfaceID: "p:M:I", ViewStatus: JsStatus{Details: List[ProtoAny]{}}}}
	for _, ev := range []CreatedEvent{
		{},
		{Offset: 42, NodeID: 3, ContractID: "00ab", TemplateID: "pkg:Iou:Iou", ContractKey: json.RawMessage(`{"k":"v"}`),
			ContractKeyHash: Bytes{1, 2}, CreateArgument: json.RawMessage(`{"owner":"Alice::1220","note":"<&> é"}`),
			CreatedEventBlob: Bytes("blob"), InterfaceViews: views, WitnessParties: List[string]{"Alice::1220"},
			Signatories: List[string]{"Alice::1220"}, Observers: List[string]{}, CreatedAt: NewTimestamp(time.Date(2026, 7, 24, 11, 59, 2, 100000000, time.UTC)),
			PackageName: "iou", RepresentativePackageID: "pkg", ACSDelta: true},
		{CreateArgument: json.RawMessage("{ \"spaced\" : [1, 2] }"), WitnessParties: List[string]{"a\"b"}},
	} {
		want, err := json.Marshal(JsGetActiveContractsResponse{WorkflowID: "wf", StreamContinuationToken: "tok",
			ContractEntry: JsContractEntry{ActiveContract: &JsActiveContract{CreatedEvent: ev, SynchronizerID: "sync::1220"}}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := AppendActiveContract(nil, "wf", &ev, "sync::1220", "tok")
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("AppendActiveContract:\n got %s\nwant %s", got, want)
		}
		var back JsGetActiveContractsResponse
		if err := json.Unmarshal(got, &back); err != nil || back.ContractEntry.ActiveContract == nil ||
			back.ContractEntry.ActiveContract.CreatedEvent.Offset != ev.Offset {
			t.Errorf("round trip: %+v %v", back, err)
		}
	}
}
