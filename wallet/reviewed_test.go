package wallet

// The review pipeline on the spec vectors: what ReviewEnvelope builds from
// real prepared transactions.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/wallet/review"
)

// reviewNow is a minute after the preparation time of the rich vectors, so
// their deadlines show time left.
var reviewNow = time.Date(2025, 8, 7, 2, 36, 0, 0, time.UTC)

// reviewVector runs a derived/*.json vector through ReviewEnvelope at now.
func reviewVector(t *testing.T, name string, now time.Time) *Reviewed {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(vectorDir, "derived", name))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Scheme string `json:"hashing_scheme_version"`
		B64    string `json:"prepared_transaction_b64"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	rv, err := ReviewEnvelope(&Envelope{PreparedTransaction: v.B64, HashingSchemeVersion: v.Scheme, Form: FormBase64}, 0, now)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return rv
}

func containsWarning(r *review.Review, part string) bool {
	for _, w := range r.Warnings {
		if strings.Contains(w, part) {
			return true
		}
	}
	return false
}

func TestValuesAreExact(t *testing.T) {
	r := reviewVector(t, "rich_v2.json", reviewNow).Review
	fields := map[string]*review.Value{}
	for _, f := range r.Nodes[0].Argument.Fields {
		fields[f.Label] = f.Value
	}
	for label, want := range map[string]string{
		"imin": "-9223372036854775808",
		"imax": "9223372036854775807",
		"n":    "-12.3400000000",
		"ts":   "1969-12-31T23:59:58.999999Z",
		"dt":   "1969-12-29",
		"cid":  "0059b59ad7a6b6066e77b91ced54b8282f0e24e7089944685cb8f22f32fcbc4e1b",
		"txt":  "naïve ✓ 𝄞",
	} {
		if got := fields[label].Scalar(); got != want {
			t.Errorf("%s = %q, want %q", label, got, want)
		}
	}
	if v := fields["somenone"]; v.Kind != review.ValueOptional || v.Inner == nil || v.Inner.Kind != review.ValueOptional || v.Inner.Inner != nil {
		t.Errorf("somenone is not Some(None): %+v", v)
	}
	// int64 stays a string in JSON, so no reader rounds it through a float.
	js, _ := json.Marshal(fields["imax"])
	if string(js) != `{"kind":"int64","text":"9223372036854775807"}` {
		t.Errorf("imax as JSON = %s", js)
	}
	empty, _ := json.Marshal(fields["empty"])
	if string(empty) != `{"kind":"text","text":""}` {
		t.Errorf("empty text as JSON = %s", empty)
	}
}

func TestMaxRecordTimeSignedOnlyUnderV3(t *testing.T) {
	for _, c := range []struct {
		file   string
		signed bool
	}{{"rich_v2.json", false}, {"rich_v3.json", true}} {
		r := reviewVector(t, c.file, reviewNow).Review
		if r.Times.MaxRecordTime.Signed != c.signed {
			t.Errorf("%s: max record time signed = %v, want %v", c.file, r.Times.MaxRecordTime.Signed, c.signed)
		}
		if got := containsWarning(r, "max_record_time is NOT covered"); got == c.signed {
			t.Errorf("%s: warning about unsigned max_record_time present = %v", c.file, got)
		}
	}
}

func TestDeadlinesAfterExpiry(t *testing.T) {
	r := reviewVector(t, "rich_v3.json", reviewNow.Add(2*time.Hour)).Review
	sw := r.Times.SignWithin
	if sw == nil || !sw.Expired || sw.Field != "max_ledger_effective_time" || !strings.HasPrefix(sw.TimeLeft, "expired ") {
		t.Errorf("sign within = %+v", sw)
	}
	if !containsWarning(r, "max_record_time has passed") {
		t.Errorf("warnings = %q", r.Warnings)
	}
}

func TestCompareNodeHash(t *testing.T) {
	rv := reviewVector(t, "rich_v2.json", reviewNow)
	r, good := rv.Review, rv.Result.Hash
	if !r.CompareNodeHash(good[:]) || containsWarning(r, "differs") {
		t.Errorf("the recomputed hash does not match itself")
	}
	bad := good
	bad[0] ^= 1
	if r.CompareNodeHash(bad[:]) || !containsWarning(r, "differs") || *r.Hash.MatchesNode {
		t.Errorf("a different node hash was accepted")
	}
	if r.Warnings[0] != "the hash the preparing node sent differs from the one recomputed here: do not sign" {
		t.Errorf("the mismatch is not the first warning: %q", r.Warnings)
	}
}

// The review package keeps its own copy of Daml's nesting limit so that it
// need not import the hasher; the two must agree.
func TestReviewNestingLimitIsTheHashers(t *testing.T) {
	if review.MaxValueNesting != hashing.MaxValueNesting {
		t.Errorf("review.MaxValueNesting = %d, hashing.MaxValueNesting = %d", review.MaxValueNesting, hashing.MaxValueNesting)
	}
}
