package server

import (
	"encoding/json"
	"testing"
)

func TestLoneSurrogates(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":"plain"}`, "plain"},
		{`{"a":"x\ud800y"}`, "x?y"},
		{`{"a":"\udc00"}`, "?"},
		{`{"a":"\ud800\ud800"}`, "??"},
		{`{"a":"\ud83d\ude00"}`, "😀"},
		{`{"a":"\uD83D\uDE00 ok"}`, "😀 ok"},
		{`{"a":"\ud800\u0041"}`, "?A"},
		{`{"a":"\\ud800"}`, `\ud800`},
		{`{"a":"\"\ud800"}`, `"?`},
		{`{"a":"\u00e9\ud800"}`, "é?"},
		{"{\"a\":\"bad \xff byte\"}", "bad \ufffd byte"},
	} {
		var v struct{ A string }
		if err := json.Unmarshal(loneSurrogates([]byte(tc.in)), &v); err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if v.A != tc.want {
			t.Errorf("%s: %q, want %q", tc.in, v.A, tc.want)
		}
	}
	for _, in := range []string{`{"\ud800":1}`, `{"a":"\ud8`, `["\ud800`} {
		_ = loneSurrogates([]byte(in)) // no panic on keys or cut input
	}
}
