// Package cmdutil holds what every command shares: the IO streams, the
// factory of injected dependencies, output formats and exit codes.
package cmdutil

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/muesli/termenv"
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
	// openTerminal opens the controlling terminal, for prompts while
	// standard input carries data; nil where there is none.
	openTerminal func() (io.ReadCloser, error)
}

// System returns streams bound to the process's stdin, stdout and stderr.
// Colour is decided by colorFor on stdout.
func System() *IOStreams {
	inTTY := term.IsTerminal(int(os.Stdin.Fd()))
	outTTY := term.IsTerminal(int(os.Stdout.Fd()))
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		stdinTTY: inTTY, stdoutTTY: outTTY,
		color:        colorFor(termenv.NewOutput(os.Stdout)),
		openTerminal: func() (io.ReadCloser, error) { return os.Open("/dev/tty") },
	}
}

// colorFor is termenv's decision for an output: colour on a terminal whose
// TERM has colours, never with a non-empty NO_COLOR (no-color.org: an empty
// one does not count) or CLICOLOR=0, always with CLICOLOR_FORCE=1.
func colorFor(out *termenv.Output) bool {
	return out.EnvColorProfile() != termenv.Ascii
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

// PromptStreams returns the streams to ask a person on when standard input
// carries data (sign -): the same streams with In replaced by the
// controlling terminal. The returned function closes the terminal. It fails
// when there is no terminal to ask on.
func (s *IOStreams) PromptStreams() (*IOStreams, func(), error) {
	if s.openTerminal == nil {
		return nil, nil, errors.New("no terminal to ask on")
	}
	tty, err := s.openTerminal()
	if err != nil {
		return nil, nil, fmt.Errorf("no terminal to ask on: %w", err)
	}
	p := *s
	p.In, p.stdinTTY = tty, true
	return &p, func() { _ = tty.Close() }, nil
}

// SetTerminal makes PromptStreams read from r as if it were the controlling
// terminal; tests use it.
func (s *IOStreams) SetTerminal(r io.Reader) {
	s.openTerminal = func() (io.ReadCloser, error) { return io.NopCloser(r), nil }
}
