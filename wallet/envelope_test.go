package wallet

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/ledgerapi"
)

const vectorDir = "../testdata/vectors"

type vector struct {
	Scheme  string `json:"hashing_scheme_version"`
	HashB64 string `json:"expected_prepared_transaction_hash_b64"`
	TxB64   string `json:"prepared_transaction_b64"`
}

func readVector(t testing.TB, name string) vector {
	raw, err := os.ReadFile(filepath.Join(vectorDir, "derived", name))
	if err != nil {
		t.Fatal(err)
	}
	var v vector
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func prepareResponse(v vector) []byte {
	b, _ := json.Marshal(map[string]any{
		"preparedTransaction": v.TxB64, "preparedTransactionHash": v.HashB64,
		"hashingSchemeVersion": v.Scheme, "hashingDetails": nil, "costEstimation": nil,
	})
	return b
}

func TestParseForms(t *testing.T) {
	v := readVector(t, "rich_v3.json")
	cases := []struct {
		name   string
		input  string
		form   Form
		scheme hashing.Scheme
	}{
		{"bare base64", v.TxB64, FormBase64, hashing.V2},
		{"base64 with line breaks", v.TxB64[:40] + "\n" + v.TxB64[40:] + "\n", FormBase64, hashing.V2},
		{"unpadded base64", strings.TrimRight(v.TxB64, "="), FormBase64, hashing.V2},
		{"prepare response", string(prepareResponse(v)), FormPrepareResponse, hashing.V3},
		{"envelope", `{"preparedTransaction":"` + v.TxB64 + `","hashingSchemeVersion":"HASHING_SCHEME_VERSION_V3","envelope":{"format":"ledger-envelope","version":1}}`, FormEnvelope, hashing.V3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env, err := ParseEnvelope([]byte(tc.input))
			if err != nil {
				t.Fatal(err)
			}
			if env.Form != tc.form {
				t.Errorf("form %v, want %v", env.Form, tc.form)
			}
			s, err := env.Scheme()
			if err != nil || s != tc.scheme {
				t.Errorf("scheme %v, %v; want %v", s, err, tc.scheme)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ input, want string }{
		{"", "input is empty"},
		{"not base64 !!", "neither JSON nor base64"},
		{`{"preparedTransaction": "abc`, "malformed JSON"},
		{`{"foo": 1}`, `no "preparedTransaction"`},
		{`{"preparedTransaction": "a-b_"}`, "preparedTransaction: The string is not a valid Base64: a-b_ (unexpected '-' at offset 1)"},
		{`{"preparedTransaction": "AAAA", "envelope": {"format": "ledger-envelope", "version": 9}}`, "newer than this ledger understands"},
		{`{"preparedTransaction": "AAAA", "envelope": {"format": "other"}}`, `"envelope.format"`},
	}
	for _, tc := range cases {
		_, err := ParseEnvelope([]byte(tc.input))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseEnvelope(%q) = %v, want error containing %q", tc.input, err, tc.want)
		}
	}
	env, _ := ParseEnvelope([]byte(`{"preparedTransaction":"AAAA","hashingSchemeVersion":"HASHING_SCHEME_VERSION_UNSPECIFIED"}`))
	if _, err := env.Scheme(); err == nil || !strings.Contains(err.Error(), "unspecified") {
		t.Errorf("UNSPECIFIED scheme: %v", err)
	}
	env, _ = ParseEnvelope([]byte(`{"preparedTransaction":"AAAA","preparedTransactionHash":"AAAA"}`))
	if _, err := env.NodeHash(); err == nil || !strings.Contains(err.Error(), "want 32") {
		t.Errorf("short node hash: %v", err)
	}
}

func TestVerify(t *testing.T) {
	v3 := readVector(t, "rich_v3.json")
	env, err := ParseEnvelope(prepareResponse(v3))
	if err != nil {
		t.Fatal(err)
	}
	c, err := env.Verify(0, false)
	if err != nil || !c.Match {
		t.Fatalf("match = %v, err = %v", c != nil && c.Match, err)
	}

	// A node that ignored the V3 request answers with the V2 hash.
	v2 := readVector(t, "rich_v2.json")
	raw, _ := base64.StdEncoding.DecodeString(v2.TxB64)
	v2sum, _ := hashing.Sum(raw, hashing.V2)
	env, _ = ParseEnvelope(prepareResponse(vector{Scheme: "HASHING_SCHEME_VERSION_V3", TxB64: v2.TxB64, HashB64: base64.StdEncoding.EncodeToString(v2sum[:])}))
	c, err = env.Verify(0, false)
	if err != nil {
		t.Fatal(err)
	}
	if c.Match || !strings.Contains(c.Diagnosis, "HASHING_SCHEME_VERSION_V2 hash") {
		t.Errorf("match %v, diagnosis %q", c.Match, c.Diagnosis)
	}

	// A tampered hash with the node's trace: the difference is located.
	res, _ := hashing.Compute(raw, hashing.V2, hashing.Options{Trace: true})
	details := strings.Replace(res.Trace.String(), "'00000030'", "'00000031'", 1)
	env, _ = ParseEnvelope(prepareResponse(vector{Scheme: "HASHING_SCHEME_VERSION_V2", TxB64: v2.TxB64, HashB64: base64.StdEncoding.EncodeToString(make([]byte, 32))}))
	env.HashingDetails = &details
	c, err = env.Verify(0, true)
	if err != nil || c.Difference == nil || c.Difference.Offset != 0 {
		t.Fatalf("difference %+v, err %v", c.Difference, err)
	}

	env, _ = ParseEnvelope([]byte(v2.TxB64))
	if _, err := env.Verify(0, false); err != ErrNoNodeHash {
		t.Errorf("bare base64: %v", err)
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	v := readVector(t, "rich_v2.json")
	env, _ := ParseEnvelope(prepareResponse(v))
	env.Info = &EnvelopeInfo{Format: EnvelopeFormat, Version: EnvelopeVersion, NodeURL: "http://127.0.0.1:7575"}
	env.PartySignatures.Add("alice::1220", ledgerapi.Signature{Format: ledgerapi.SignatureFormatConcat, Signature: make([]byte, 64)})
	path := filepath.Join(t.TempDir(), "tx.json")
	if err := env.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	back, err := ReadEnvelope(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if back.Form != FormEnvelope || back.PreparedTransaction != env.PreparedTransaction || len(back.PartySignatures.Signatures) != 1 {
		t.Fatalf("round trip lost data: %+v", back)
	}
	var generic map[string]any
	data, _ := os.ReadFile(path)
	_ = json.Unmarshal(data, &generic)
	for _, k := range []string{"preparedTransaction", "partySignatures", "deduplicationPeriod", "submissionId", "userId", "hashingSchemeVersion", "minLedgerTime"} {
		if _, ok := generic[k]; !ok {
			t.Errorf("execute field %q missing from the envelope", k)
		}
	}
}

func FuzzParseEnvelope(f *testing.F) {
	v := readVector(f, "rich_v2.json")
	f.Add(prepareResponse(v))
	f.Add([]byte(v.TxB64))
	f.Add([]byte(`{"preparedTransaction":"AAAA","envelope":{"format":"ledger-envelope","version":1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		env, err := ParseEnvelope(data)
		if err != nil {
			return
		}
		if _, err := env.Raw(); err != nil {
			t.Fatalf("Parse accepted undecodable base64: %v", err)
		}
		_, _ = env.Scheme()
		_, _ = env.NodeHash()
		if _, err := env.Verify(0, true); err != nil {
			return
		}
	})
}
