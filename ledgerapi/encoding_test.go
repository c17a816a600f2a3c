package ledgerapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestInt64Decode(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr string
	}{
		{in: `42`, want: 42},
		{in: `"42"`, want: 42},
		{in: `-7`, want: -7},
		{in: `"-7"`, want: -7},
		{in: `null`, want: 0},
		{in: `9007199254740993`, want: 9007199254740993},     // 2^53+1: float64 would give ...992
		{in: `"9007199254740993"`, want: 9007199254740993},   // same as a string
		{in: `9223372036854775807`, want: math.MaxInt64},     // max
		{in: `-9223372036854775808`, want: math.MinInt64},    // min
		{in: `1e3`, want: 1000},                              // whole number with exponent
		{in: `4.0`, want: 4},                                 // whole number with fraction
		{in: `9.223372036854775807e18`, want: math.MaxInt64}, // exact through big.Rat
		{in: `-9.223372036854775808e18`, want: math.MinInt64},
		{in: `9223372036854775808`, wantErr: "out of range"},
		{in: `9.223372036854775808e18`, wantErr: "out of range"},
		{in: `1.5`, wantErr: "not a whole number"},
		{in: `"abc"`, wantErr: "invalid integer"},
		{in: `""`, wantErr: "empty"},
		{in: `"1/2"`, wantErr: "invalid integer"},
		{in: `"0x10"`, wantErr: "invalid integer"},
		{in: `1e99999`, wantErr: "invalid integer"},
		{in: `true`, wantErr: "invalid integer"},
		{in: `[1]`, wantErr: "invalid integer"},
	}
	for _, tt := range tests {
		var v Int64
		err := json.Unmarshal([]byte(tt.in), &v)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Int64(%s): err = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || int64(v) != tt.want {
			t.Errorf("Int64(%s) = %d, %v; want %d", tt.in, v, err, tt.want)
		}
	}
}

func TestInt64RoundTripBeyondFloat(t *testing.T) {
	for _, n := range []int64{1<<53 + 1, 1<<62 + 3, math.MaxInt64, math.MinInt64, -(1<<53 + 1)} {
		out, err := json.Marshal(struct {
			V Int64 `json:"v"`
		}{Int64(n)})
		if err != nil {
			t.Fatal(err)
		}
		var back struct {
			V Int64 `json:"v"`
		}
		if err := json.Unmarshal(out, &back); err != nil || int64(back.V) != n {
			t.Errorf("%d -> %s -> %d (%v)", n, out, back.V, err)
		}
		if strings.Contains(string(out), `"`+"v\":\"") {
			t.Errorf("%s: int64 written as a string", out)
		}
	}
}

func TestInt32Range(t *testing.T) {
	var v Int32
	if err := json.Unmarshal([]byte(`2147483648`), &v); err == nil {
		t.Error("2^31 accepted as Int32")
	}
	if err := json.Unmarshal([]byte(`"-2147483648"`), &v); err != nil || v != math.MinInt32 {
		t.Errorf("min int32: %d, %v", v, err)
	}
}

func TestTimestampFormat(t *testing.T) {
	base := time.Date(2027, 1, 15, 8, 30, 0, 0, time.UTC)
	tests := []struct {
		ns   int
		want string
	}{
		{0, `"2027-01-15T08:30:00Z"`},
		{500_000_000, `"2027-01-15T08:30:00.500Z"`},
		{123_000_000, `"2027-01-15T08:30:00.123Z"`},
		{123_456_000, `"2027-01-15T08:30:00.123456Z"`},
		{1_000, `"2027-01-15T08:30:00.000001Z"`},
	}
	for _, tt := range tests {
		got, err := json.Marshal(NewTimestamp(base.Add(time.Duration(tt.ns))))
		if err != nil || string(got) != tt.want {
			t.Errorf("ns=%d: %s, %v; want %s", tt.ns, got, err, tt.want)
		}
	}
	// Nanosecond precision is printed with 9 digits when a value carries it.
	if got := (Timestamp{base.Add(1)}).String(); got != "2027-01-15T08:30:00.000000001Z" {
		t.Errorf("ns timestamp = %s", got)
	}
	if got, _ := json.Marshal(Timestamp{}); string(got) != "null" {
		t.Errorf("zero timestamp = %s, want null", got)
	}
}

func TestTimestampParse(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{`"2027-01-15T10:30:00+02:00"`, "2027-01-15T08:30:00Z"},
		{`"2027-01-15T08:30:00.123456789Z"`, "2027-01-15T08:30:00.123456Z"}, // truncated to µs
		{`"2027-01-15T08:30:00.1Z"`, "2027-01-15T08:30:00.100Z"},
	}
	for _, tt := range tests {
		var ts Timestamp
		if err := json.Unmarshal([]byte(tt.in), &ts); err != nil || ts.String() != tt.want {
			t.Errorf("%s -> %s, %v; want %s", tt.in, ts, err, tt.want)
		}
	}
	for _, bad := range []string{`"2027-01-15"`, `"yesterday"`, `12`, `"2027-01-15T08:30:00"`} {
		var ts Timestamp
		if err := json.Unmarshal([]byte(bad), &ts); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestDuration(t *testing.T) {
	d := DurationOf(90*time.Second + 5*time.Millisecond)
	out, _ := json.Marshal(d)
	if string(out) != `{"seconds":90,"nanos":5000000,"unknownFields":{"fields":{}}}` {
		t.Errorf("marshal = %s", out)
	}
	if d.Std() != 90*time.Second+5*time.Millisecond {
		t.Errorf("Std = %v", d.Std())
	}
	var back Duration
	if err := json.Unmarshal([]byte(`{"seconds":"7"}`), &back); err != nil || back != (Duration{Seconds: 7}) {
		t.Errorf("lenient decode = %+v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`"1.5s"`), &back); err == nil {
		t.Error("proto3 string duration accepted")
	}
	if (Duration{Seconds: math.MaxInt64}).Std() != time.Duration(math.MaxInt64) {
		t.Error("Std does not saturate")
	}
}

func TestFieldMask(t *testing.T) {
	out, _ := json.Marshal(FieldMask{})
	if string(out) != `{"paths":[],"unknownFields":{"fields":{}}}` {
		t.Errorf("empty mask = %s", out)
	}
	var m FieldMask
	if err := json.Unmarshal([]byte(`{"paths":["a","b.c"]}`), &m); err != nil || len(m.Paths) != 2 {
		t.Errorf("decode = %+v, %v", m, err)
	}
	if err := json.Unmarshal([]byte(`"a,b"`), &m); err == nil {
		t.Error("proto3 string mask accepted")
	}
}

func TestBytes(t *testing.T) {
	for in, want := range map[string]string{`"AQIDBA=="`: "\x01\x02\x03\x04", `"AQIDBA"`: "\x01\x02\x03\x04", `""`: "", `null`: ""} {
		var b Bytes
		if err := json.Unmarshal([]byte(in), &b); err != nil || string(b) != want {
			t.Errorf("%s -> %q, %v", in, b, err)
		}
	}
	for _, bad := range []string{`"-_-_"`, `"AQ ID"`, `"AQIDBA==="`, `"A"`, `42`} {
		var b Bytes
		if err := json.Unmarshal([]byte(bad), &b); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if out, _ := json.Marshal(Bytes(nil)); string(out) != `""` {
		t.Errorf("nil bytes = %s", out)
	}
}

func TestListAndMapNeverNull(t *testing.T) {
	out, _ := json.Marshal(struct {
		L List[string]   `json:"l"`
		M Map[string]    `json:"m"`
		E Map[TreeEvent] `json:"e"`
	}{})
	if string(out) != `{"l":[],"m":{},"e":{}}` {
		t.Errorf("got %s", out)
	}
	m := Map[int]{"10": 1, "2": 2, "b": 3, "a": 4, "0": 5}
	out, _ = json.Marshal(m)
	if string(out) != `{"0":5,"2":2,"10":1,"a":4,"b":3}` {
		t.Errorf("key order = %s", out)
	}
}

func TestEnums(t *testing.T) {
	var spec SigningAlgorithmSpec
	if err := json.Unmarshal([]byte(`"SIGNING_ALGORITHM_SPEC_ED25519"`), &spec); err != nil || spec != SigningAlgorithmSpecEd25519 {
		t.Errorf("decode = %q, %v", spec, err)
	}
	err := json.Unmarshal([]byte(`"ED25519"`), &spec)
	var ee *EnumError
	if !errors.As(err, &ee) || !strings.Contains(err.Error(), "SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384") {
		t.Errorf("unknown name: %v", err)
	}
	if err := json.Unmarshal([]byte(`"UNRECOGNIZED"`), &spec); err != nil {
		t.Errorf("UNRECOGNIZED refused: %v", err)
	}
	out, _ := json.Marshal(struct {
		A HashingSchemeVersion
		B SignatureFormat
		C SigningKeySpec
		D CryptoKeyFormat
		E TransactionShape
		F ParticipantPermission
	}{})
	for _, want := range []string{"HASHING_SCHEME_VERSION_UNSPECIFIED", "SIGNATURE_FORMAT_UNSPECIFIED", "SIGNING_KEY_SPEC_UNSPECIFIED", "CRYPTO_KEY_FORMAT_UNSPECIFIED", "TRANSACTION_SHAPE_UNSPECIFIED", "PARTICIPANT_PERMISSION_UNSPECIFIED"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("zero enums %s lack %s", out, want)
		}
	}
	// Every enum type refuses a foreign name.
	targets := []any{new(HashingSchemeVersion), new(SignatureFormat), new(SigningKeySpec), new(CryptoKeyFormat), new(TransactionShape), new(ParticipantPermission)}
	for _, v := range targets {
		if err := json.Unmarshal([]byte(`"SIGNING_ALGORITHM_SPEC_ED25519"`), v); err == nil {
			t.Errorf("%T accepted a foreign name", v)
		}
	}
	if err := HashingSchemeVersion("V9").Valid(); err == nil {
		t.Error("Valid accepted V9")
	}
}

// TestTimestampString: the hand-written formatter agrees with time's layouts
// and Java's rule for the fraction (0, 3, 6 or 9 digits), across the years.
func TestTimestampString(t *testing.T) {
	layout := func(u time.Time) string {
		u = u.UTC()
		base, ns := u.Format("2006-01-02T15:04:05"), u.Nanosecond()
		switch {
		case ns == 0:
			return base + "Z"
		case ns%1_000_000 == 0:
			return fmt.Sprintf("%s.%03dZ", base, ns/1_000_000)
		case ns%1_000 == 0:
			return fmt.Sprintf("%s.%06dZ", base, ns/1_000)
		}
		return fmt.Sprintf("%s.%09dZ", base, ns)
	}
	times := []time.Time{
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC),
		time.Date(0, 1, 1, 0, 0, 0, 1, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2027, 1, 15, 8, 31, 1, 123000000, time.FixedZone("x", 3600)), time.Unix(1700000000, 123456000),
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		ts := time.Unix(r.Int64N(253402300800+62135596800)-62135596800, 0)
		switch r.IntN(4) {
		case 1:
			ts = ts.Add(time.Duration(r.IntN(1000)) * time.Millisecond)
		case 2:
			ts = ts.Add(time.Duration(r.IntN(1000000)) * time.Microsecond)
		case 3:
			ts = ts.Add(time.Duration(r.IntN(1000000000)))
		}
		times = append(times, ts)
	}
	for _, ts := range times {
		if got, want := (Timestamp{ts}).String(), layout(ts); got != want {
			t.Fatalf("String(%v) = %s, want %s", ts, got, want)
		}
	}
}

var instantSamples = []string{
	"2026-07-24T11:59:01.123456Z", "2026-07-24T11:59:01Z", "2026-07-24T11:59:01.1Z", "2026-07-24T11:59:01.123456789Z",
	"2026-07-24T11:59:01.1234567891Z", "0001-01-01T00:00:00Z", "0000-12-31T23:59:59Z", "9999-12-31T23:59:59.999999Z",
	"2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2000-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
	"2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2026-01-00T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T23:60:00Z",
	"2026-01-01T23:59:60Z", "2026-01-01T23:59:59.Z", "2026-01-01T23:59:59,5Z", "2026-01-01t23:59:59Z", "2026-01-01T23:59:59z",
	"2026-01-01T23:59:59+00:00", "2026-1-01T23:59:59Z", "+2026-01-01T23:59:59Z", "2026-01-01T23:59:5aZ", "2026-01-01 23:59:59Z",
	"2026-12-31T23:59:59.000000001Z", "2026-07-24T11:59:01.12x456Z", "",
}

// checkInstant: parseInstant reads what it accepts as ParseTimestamp does.
func checkInstant(t *testing.T, s string) {
	t.Helper()
	got, ok := parseInstant([]byte(s))
	if !ok {
		return
	}
	want, err := ParseTimestamp(s)
	if err != nil || !got.Equal(want.Time) || got.Location() != want.Location() {
		t.Fatalf("parseInstant(%q) = %v, ParseTimestamp %v, %v", s, got, want, err)
	}
}

func TestParseInstantAgrees(t *testing.T) {
	accepted := 0
	for _, s := range instantSamples {
		checkInstant(t, s)
		if _, ok := parseInstant([]byte(s)); ok {
			accepted++
		}
	}
	// Every day of four years, the leap days included, at two times.
	for d := time.Date(1999, 12, 25, 0, 0, 0, 0, time.UTC); d.Year() < 2005; d = d.Add(24 * time.Hour) {
		for _, s := range []string{NewTimestamp(d).String(), NewTimestamp(d.Add(23*time.Hour + 59*time.Minute + 59*time.Second + 999999*time.Microsecond)).String()} {
			if _, ok := parseInstant([]byte(s)); !ok {
				t.Fatalf("parseInstant refuses %q", s)
			}
			checkInstant(t, s)
		}
	}
	if accepted < 8 {
		t.Errorf("parseInstant accepts only %d of the samples", accepted)
	}
}

func FuzzParseInstant(f *testing.F) {
	for _, s := range instantSamples {
		f.Add(s)
	}
	f.Fuzz(checkInstant)
}
