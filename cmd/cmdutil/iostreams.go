// Package cmdutil holds what every command shares: the IO streams, the
// factory of injected dependencies, output formats and exit codes.
package cmdutil

import (
	"bytes"
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams is the one place that decides about terminals and colour.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdinTTY  bool
	stdoutTTY bool
	color     bool
}

// System returns streams bound to the process's stdin, stdout and stderr.
// Colour is on only when stdout is a terminal and NO_COLOR is unset.
func System() *IOStreams {
	inTTY := term.IsTerminal(int(os.Stdin.Fd()))
	outTTY := term.IsTerminal(int(os.Stdout.Fd()))
	_, noColor := os.LookupEnv("NO_COLOR")
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		stdinTTY: inTTY, stdoutTTY: outTTY,
		color: outTTY && !noColor && os.Getenv("TERM") != "dumb",
	}
}

// Test returns streams over buffers, as a non-terminal without colour.
func Test() (ios *IOStreams, in *bytes.Buffer, out *bytes.Buffer, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}

// IsStdinTTY reports whether a human can answer a prompt.
func (s *IOStreams) IsStdinTTY() bool { return s.stdinTTY }

// IsStdoutTTY reports whether output goes to a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }

// ColorEnabled reports whether output may carry ANSI colour.
func (s *IOStreams) ColorEnabled() bool { return s.color }

// SetTTY overrides terminal detection; tests use it to exercise the
// interactive paths.
func (s *IOStreams) SetTTY(stdin, stdout bool) { s.stdinTTY, s.stdoutTTY = stdin, stdout }

// SetColorEnabled overrides the colour decision.
func (s *IOStreams) SetColorEnabled(on bool) { s.color = on }
