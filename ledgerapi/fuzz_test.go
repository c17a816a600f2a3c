package ledgerapi

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Each decoder family has a fuzz target. The property: decoding never
// panics; whatever decodes also encodes, the encoding decodes again, and a
// second encoding is byte-identical to the first (the canonical form is a
// fixed point). Seeds: testdata/fuzz/<Target>/ plus the golden files.

func addSeeds(f *testing.F, patterns ...string) {
	for _, p := range patterns {
		files, _ := filepath.Glob(p)
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(b)
			}
		}
	}
}

func fuzzRoundTrip[T any](t *testing.T, data []byte) {
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return
	}
	first, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("decoded %q but cannot encode it: %v", data, err)
	}
	var again T
	if err := json.Unmarshal(first, &again); err != nil {
		t.Fatalf("own output does not decode: %v\n%s", err, first)
	}
	second, err := json.Marshal(again)
	if err != nil {
		t.Fatalf("second encode: %v", err)
	}
	if !bytes.Equal(first, second) {
		t.Fatalf("encoding is not stable\nfirst:  %s\nsecond: %s", first, second)
	}
}

func FuzzDecodeCommands(f *testing.F) {
	addSeeds(f, "testdata/golden/commands.json", "testdata/lenient/commands_*.json")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRoundTrip[Commands](t, data) })
}

func FuzzDecodePrepareRequest(f *testing.F) {
	addSeeds(f, "testdata/golden/prepare_*.json", "testdata/lenient/prepare_*.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRoundTrip[PrepareSubmissionRequest](t, data)
		fuzzRoundTrip[PrepareSubmissionResponse](t, data)
	})
}

func FuzzDecodeExecuteRequest(f *testing.F) {
	addSeeds(f, "testdata/golden/execute_*.json", "testdata/lenient/execute_*.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRoundTrip[ExecuteSubmissionAndWaitForTransactionRequest](t, data)
	})
}

func FuzzDecodeTransactions(f *testing.F) {
	addSeeds(f, "testdata/golden/transaction_*.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRoundTrip[SubmitAndWaitForTransactionTreeResponse](t, data)
		fuzzRoundTrip[SubmitAndWaitForTransactionResponse](t, data)
	})
}

func FuzzDecodeCompletions(f *testing.F) {
	addSeeds(f, "testdata/golden/completion*.json", "testdata/lenient/completion_*.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRoundTrip[[]CompletionStreamResponse](t, data)
		fuzzRoundTrip[CompletionStreamRequest](t, data)
	})
}

func FuzzDecodeError(f *testing.F) {
	addSeeds(f, "testdata/golden/error_*.json", "testdata/lenient/error_*.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRoundTrip[JsCantonError](t, data)
		if e, err := DecodeError(data); err == nil {
			_ = e.Error()
			_ = e.HTTPStatus()
			_ = e.RetryDelay()
			if from := ErrorFromStatus(e.Status()); from == nil {
				t.Fatalf("status of %+v lost the error", e)
			}
			_ = Redacted(e)
		}
	})
}

func FuzzDecodeAdmin(f *testing.F) {
	addSeeds(f, "testdata/golden/party_*.json", "testdata/golden/*user*.json", "testdata/golden/*parties*.json",
		"testdata/golden/*topology*.json", "testdata/golden/allocate_*.json", "testdata/lenient/rights.*.json",
		"testdata/lenient/party_*.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRoundTrip[UpdatePartyDetailsRequest](t, data)
		fuzzRoundTrip[CreateUserRequest](t, data)
		fuzzRoundTrip[ListUserRightsResponse](t, data)
		fuzzRoundTrip[AllocateExternalPartyRequest](t, data)
		fuzzRoundTrip[GenerateExternalPartyTopologyRequest](t, data)
	})
}

func FuzzIdentifiers(f *testing.F) {
	for _, s := range []string{"Alice::1220ab", "#pkg:M:T", "p:M.N:T", "acme.example/desk", "a@b", "a::b::c", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := string(data)
		_ = ValidateLedgerString("f", s)
		_ = ValidateUserID("f", s)
		_ = ValidatePartyHint("f", s)
		_ = ValidateAnnotationKey(s)
		if h, ns, err := SplitParty(s); err == nil && JoinParty(h, ns) != s {
			t.Fatalf("SplitParty(%q) = %q, %q", s, h, ns)
		}
		if id, err := ParseTemplateID(s); err == nil {
			back, err := ParseTemplateID(id.String())
			if err != nil || back != id || id.String() != s {
				t.Fatalf("ParseTemplateID(%q) = %+v, reparse %+v %v", s, id, back, err)
			}
		}
	})
}
