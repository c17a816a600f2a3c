package ledgerapi

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// wireTypes maps a golden file's base name to the type it holds. Every file
// under testdata/golden and testdata/lenient must be listed here.
var wireTypes = map[string]func() any{
	"prepare_request":                  func() any { return new(PrepareSubmissionRequest) },
	"prepare_minimal":                  func() any { return new(PrepareSubmissionRequest) },
	"prepare_response":                 func() any { return new(PrepareSubmissionResponse) },
	"execute_request":                  func() any { return new(ExecuteSubmissionRequest) },
	"execute_minimal":                  func() any { return new(ExecuteSubmissionAndWaitRequest) },
	"execute_wait_tx_request":          func() any { return new(ExecuteSubmissionAndWaitForTransactionRequest) },
	"execute_wait_response":            func() any { return new(ExecuteSubmissionAndWaitResponse) },
	"commands":                         func() any { return new(Commands) },
	"commands_minimal":                 func() any { return new(Commands) },
	"transaction_tree_response":        func() any { return new(SubmitAndWaitForTransactionTreeResponse) },
	"transaction_response":             func() any { return new(SubmitAndWaitForTransactionResponse) },
	"completions":                      func() any { return new([]CompletionStreamResponse) },
	"completion_request":               func() any { return new(CompletionStreamRequest) },
	"party_update_request":             func() any { return new(UpdatePartyDetailsRequest) },
	"party_update_minimal":             func() any { return new(UpdatePartyDetailsRequest) },
	"list_parties_response":            func() any { return new(ListPartiesResponse) },
	"allocate_party_request":           func() any { return new(AllocatePartyRequest) },
	"generate_topology_request":        func() any { return new(GenerateExternalPartyTopologyRequest) },
	"generate_topology_response":       func() any { return new(GenerateExternalPartyTopologyResponse) },
	"allocate_external_request":        func() any { return new(AllocateExternalPartyRequest) },
	"create_user_request":              func() any { return new(CreateUserRequest) },
	"update_user_request":              func() any { return new(UpdateUserRequest) },
	"rights":                           func() any { return new(ListUserRightsResponse) },
	"version_response":                 func() any { return new(GetVersionResponse) },
	"connected_synchronizers_response": func() any { return new(GetConnectedSynchronizersResponse) },
	"error_duplicate":                  func() any { return new(JsCantonError) },
	"error_canton35":                   func() any { return new(JsCantonError) },
	"ledger_end_response":              func() any { return new(GetLedgerEndResponse) },
}

func typeFor(t *testing.T, path string) any {
	t.Helper()
	base := strings.TrimSuffix(filepath.Base(path), ".json")
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".in"), ".out")
	mk, ok := wireTypes[base]
	if !ok {
		t.Fatalf("%s: no type registered in wireTypes", path)
	}
	return mk()
}

// sameJSON compares two documents ignoring key order and whitespace, with
// numbers compared as their literal text.
func sameJSON(t *testing.T, got, want []byte) bool {
	t.Helper()
	norm := func(b []byte) any {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatalf("invalid JSON %s: %v", b, err)
		}
		return v
	}
	return reflect.DeepEqual(norm(got), norm(want))
}

func decodeStrict(t *testing.T, path string, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: decode: %v", path, err)
	}
}

// TestGoldenRoundTrip decodes every full-form example and checks that
// encoding it again gives the same document, field for field.
func TestGoldenRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("testdata/golden/*.json")
	if len(files) < 20 {
		t.Fatalf("found only %d golden files", len(files))
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			v := typeFor(t, path)
			decodeStrict(t, path, data, v)
			out, err := json.Marshal(v)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			if !sameJSON(t, out, data) {
				t.Errorf("round trip differs\n got: %s\nwant: %s", out, compact(data))
			}
		})
	}
}

// TestLenientDecoding decodes minimal or unusual inputs (.in.json) and
// checks the canonical full output (.out.json).
func TestLenientDecoding(t *testing.T) {
	files, _ := filepath.Glob("testdata/lenient/*.in.json")
	if len(files) < 5 {
		t.Fatalf("found only %d lenient files", len(files))
	}
	for _, in := range files {
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(strings.TrimSuffix(in, ".in.json") + ".out.json")
			if err != nil {
				t.Fatal(err)
			}
			v := typeFor(t, in)
			decodeStrict(t, in, data, v)
			out, err := json.Marshal(v)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			if !sameJSON(t, out, want) {
				t.Errorf("output differs\n got: %s\nwant: %s", out, compact(want))
			}
		})
	}
}

func compact(b []byte) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return string(b)
	}
	return buf.String()
}

// TestGoldenValues spot-checks decoded values, so a golden file that decodes
// into the wrong fields cannot pass by symmetry.
func TestGoldenValues(t *testing.T) {
	read := func(name string, v any) {
		t.Helper()
		data, err := os.ReadFile("testdata/golden/" + name)
		if err != nil {
			t.Fatal(err)
		}
		decodeStrict(t, name, data, v)
	}
	var exe ExecuteSubmissionRequest
	read("execute_request.json", &exe)
	if exe.DeduplicationPeriod.Offset == nil || *exe.DeduplicationPeriod.Offset != 9007199254740993 {
		t.Errorf("dedup offset = %v, want 2^53+1 exactly", exe.DeduplicationPeriod.Offset)
	}
	if got := exe.PartySignatures.Signatures[0].Signatures[0].Signature; string(got) != "signature bytes" {
		t.Errorf("signature bytes = %q", got)
	}
	if exe.MinLedgerTime == nil || exe.MinLedgerTime.Abs == nil || exe.MinLedgerTime.Abs.Hour() != 8 {
		t.Errorf("minLedgerTime = %+v", exe.MinLedgerTime)
	}

	var tree SubmitAndWaitForTransactionTreeResponse
	read("transaction_tree_response.json", &tree)
	tt := tree.TransactionTree
	if tt.Offset != 9223372036854775807 || len(tt.EventsByID) != 3 {
		t.Fatalf("tree offset %d, %d events", tt.Offset, len(tt.EventsByID))
	}
	root := tt.EventsByID["0"]
	if root.Exercised == nil || root.Exercised.LastDescendantNodeID != 2 || root.NodeID() != 0 {
		t.Errorf("root event = %+v", root)
	}
	if c := tt.EventsByID["1"].Created; c == nil || c.InterfaceViews[0].ViewStatus.Code != 0 || string(c.CreateArgument) != `{"invoice":"00c0ffee"}` {
		t.Errorf("created event = %+v", c)
	}

	var comps []CompletionStreamResponse
	read("completions.json", &comps)
	if len(comps) != 4 || comps[0].OffsetCheckpoint == nil || comps[1].Completion == nil || comps[3].Completion != nil || comps[3].OffsetCheckpoint != nil {
		t.Fatalf("completions decoded wrong: %+v", comps)
	}
	if comps[0].Offset() != 16 || comps[1].Offset() != 17 || !comps[1].Completion.Succeeded() || comps[2].Completion.Succeeded() {
		t.Errorf("offsets/succeeded wrong")
	}
	if d := comps[1].Completion.DeduplicationPeriod.Duration; d == nil || d.Seconds != 604800 {
		t.Errorf("applied dedup = %+v", d)
	}
	if e := ErrorFromStatus(comps[2].Completion.Status); e == nil || e.Code != "DUPLICATE_COMMAND" || e.ErrorCategory != 10 {
		t.Errorf("ErrorFromStatus = %+v", e)
	}

	var user CreateUserRequest
	read("create_user_request.json", &user)
	wantRights := []Right{CanActAs("Alice::1220ab"), CanReadAs("Auditor::1220cc"), CanExecuteAs("Erin::1220ff"),
		{Kind: RightParticipantAdmin}, {Kind: RightIdentityProviderAdmin}, {Kind: RightCanReadAsAnyParty}, {Kind: RightCanExecuteAsAnyParty}, {}}
	if !reflect.DeepEqual([]Right(user.Rights), wantRights) {
		t.Errorf("rights = %v", user.Rights)
	}

	var ext AllocateExternalPartyRequest
	read("allocate_external_request.json", &ext)
	if ext.WaitForAllocation == nil || *ext.WaitForAllocation {
		t.Errorf("waitForAllocation = %v, want explicit false", ext.WaitForAllocation)
	}
}
