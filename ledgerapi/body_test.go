package ledgerapi

import (
	"errors"
	"strings"
	"testing"
)

func TestDecodeBody(t *testing.T) {
	var req Commands
	if err := DecodeBody([]byte(` {"commandId":"c","actAs":["A::1"],"commands":[]} `), &req); err != nil || req.CommandID != "c" {
		t.Fatalf("good body: %v", err)
	}
	tests := []struct{ in, want string }{
		{``, "body is empty"},
		{`{"commandId":`, "unexpected end of input"},
		{`{"commandId":1}`, "field commandId: expected string"},
		{`{"commandId":"c"} {}`, "unexpected data after the JSON value"},
		{`{"commands":[{"DeleteCommand":{}}]}`, "unknown variant"},
		{`{"tapsMaxPasses":"many"}`, "invalid integer"},
		{`[1]`, "expected ledgerapi.Commands"},
	}
	for _, tt := range tests {
		err := DecodeBody([]byte(tt.in), &Commands{})
		var be *BodyError
		if !errors.As(err, &be) || !strings.HasPrefix(err.Error(), "Invalid value for: body (") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err = %v, want %q", tt.in, err, tt.want)
		}
	}
}
