package cmdutil

import (
	"bytes"
	"testing"

	"github.com/muesli/termenv"
)

// env is a fixed environment for termenv.
type env map[string]string

func (e env) Environ() []string {
	var out []string
	for k, v := range e {
		out = append(out, k+"="+v)
	}
	return out
}

func (e env) Getenv(k string) string { return e[k] }

// TestColorFor follows no-color.org and the CLICOLOR conventions: only a
// non-empty NO_COLOR turns colour off, CLICOLOR_FORCE turns it on even
// when the output is no terminal.
func TestColorFor(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  env
		tty  bool
		want bool
	}{
		{"terminal", env{"TERM": "xterm-256color"}, true, true},
		{"empty NO_COLOR does not count", env{"TERM": "xterm-256color", "NO_COLOR": ""}, true, true},
		{"NO_COLOR", env{"TERM": "xterm-256color", "NO_COLOR": "1"}, true, false},
		{"CLICOLOR=0", env{"TERM": "xterm-256color", "CLICOLOR": "0"}, true, false},
		{"dumb terminal", env{"TERM": "dumb"}, true, false},
		{"pipe", env{"TERM": "xterm-256color"}, false, false},
		{"CLICOLOR_FORCE on a pipe", env{"TERM": "xterm-256color", "CLICOLOR_FORCE": "1"}, false, true},
		{"CLICOLOR_FORCE=0", env{"TERM": "xterm-256color", "CLICOLOR_FORCE": "0"}, false, false},
		{"NO_COLOR beats CLICOLOR_FORCE", env{"TERM": "xterm-256color", "NO_COLOR": "1", "CLICOLOR_FORCE": "1"}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := termenv.NewOutput(&bytes.Buffer{}, termenv.WithEnvironment(tc.env), termenv.WithTTY(tc.tty))
			if got := colorFor(out); got != tc.want {
				t.Errorf("colour %v, want %v", got, tc.want)
			}
		})
	}
}
