package cmd

import (
	"strings"
	"testing"
)

// TestArgsAndArgAreNotSwapped: --args given to an exercise (whose choice
// argument is --arg) was dropped and the node answered about a missing
// field; the CLI now refuses the flag and names the right one.
func TestArgsAndArgAreNotSwapped(t *testing.T) {
	url := startOpenNode(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--exercise", "#iou:Iou:Iou", "--contract-id", "00aa", "--choice", "Archive", "--args", `{}`}, "as --arg"},
		{[]string{"--exercise-by-key", "#iou:Iou:Iou", "--key", `{}`, "--choice", "Archive", "--args", `{}`}, "as --arg"},
		{[]string{"--create", "#iou:Iou:Iou", "--args", `{}`, "--arg", `{}`}, "as --args"},
	} {
		r := runCLI(t, "", append(append([]string{"submit"}, tc.args...), "--act-as", "alice::1220aa", "--url", url)...).must(t, 2)
		if !strings.Contains(r.err, tc.want) {
			t.Errorf("%v: stderr does not point at %s:\n%s", tc.args, tc.want, r.err)
		}
	}
}
