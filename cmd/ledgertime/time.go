// Package ledgertime holds `ledger time`: read and move the clock of a node
// with static time (ledger serve --static-time), as Daml Script's getTime,
// setTime and passTime do.
package ledgertime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// Options are the inputs of the time subcommands.
type Options struct {
	IO      *cmdutil.IOStreams
	Connect func() (*cmdutil.Connection, error)
	Format  string

	Set     time.Time     // set: the new time
	Advance time.Duration // advance: how far
}

// NewCmdTime builds `ledger time` and its subcommands.
func NewCmdTime(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "time",
		Short: "Read and move the clock of a node with static time",
		Long: `A node started with ledger serve --static-time stands still at
1970-01-01T00:00:00Z until its time is set; commands run at that time. These
commands read it and move it forward (never back), as Daml Script's getTime,
setTime and passTime do. Setting it needs a participant admin token. A node on
wall-clock time (any Canton node, ledger serve without --static-time) has no
settable clock: they fail saying so.`,
		Example: `  ledger time get
  ledger time set 2026-01-01T00:00:00Z
  ledger time advance 24h`,
	}
	cmd.AddCommand(newCmdGet(f, nil), newCmdSet(f, nil), newCmdAdvance(f, nil))
	return cmdutil.Group(cmd)
}

func timeCommand(f *cmdutil.Factory, cmd *cobra.Command, opts *Options, parse func(args []string) error, runF func(*Options) error, run func(*Options) error) *cobra.Command {
	cf := cmdutil.AddConnFlags(cmd)
	cmd.RunE = func(c *cobra.Command, args []string) error {
		var err error
		if opts.Format, err = f.OutputFormat(); err != nil {
			return err
		}
		if parse != nil {
			if err := parse(args); err != nil {
				return err
			}
		}
		opts.Connect = cf.Connect
		if runF != nil {
			return runF(opts)
		}
		return run(opts)
	}
	return cmd
}

func newCmdGet(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: f.IO}
	cmd := &cobra.Command{
		Use:     "get",
		Short:   "Print the node's static time",
		Example: `  ledger time get -o json`,
		Args:    cmdutil.ExactArgs(0),
	}
	return timeCommand(f, cmd, opts, nil, runF, getRun)
}

func newCmdSet(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: f.IO}
	cmd := &cobra.Command{
		Use:     "set TIME",
		Short:   "Set the node's static time (RFC 3339, not before its time)",
		Example: `  ledger time set 2026-01-01T00:00:00Z`,
		Args:    cmdutil.ExactArgs(1),
	}
	return timeCommand(f, cmd, opts, func(args []string) error {
		t, err := time.Parse(time.RFC3339Nano, args[0])
		if err != nil {
			return cmdutil.UsageError("TIME %q: give an RFC 3339 time, e.g. 2026-01-01T00:00:00Z", args[0])
		}
		opts.Set = t
		return nil
	}, runF, moveRun)
}

func newCmdAdvance(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: f.IO}
	cmd := &cobra.Command{
		Use:     "advance DURATION",
		Short:   "Move the node's static time forward by a duration (90s, 5m, 24h)",
		Example: `  ledger time advance 24h`,
		Args:    cmdutil.ExactArgs(1),
	}
	return timeCommand(f, cmd, opts, func(args []string) error {
		d, err := time.ParseDuration(args[0])
		if err != nil || d < 0 {
			return cmdutil.UsageError("DURATION %q: give a duration that is not negative, e.g. 90s, 5m or 24h", args[0])
		}
		opts.Advance = d
		return nil
	}, runF, moveRun)
}

// explain turns a 404 into what the node lacks.
func explain(err error) error {
	var ae *client.APIError
	if errors.As(err, &ae) && ae.StatusCode == http.StatusNotFound {
		return errors.New("the node has no settable clock (GET /v2/testing/time answered 404): start it with ledger serve --static-time")
	}
	return err
}

func printTime(opts *Options, r *ledgerapi.GetTimeResponse) error {
	if opts.Format != cmdutil.FormatTable {
		return cmdutil.WriteStructured(opts.IO.Out, opts.Format, r)
	}
	fmt.Fprintln(opts.IO.Out, r.CurrentTime.UTC().Format(time.RFC3339Nano))
	return nil
}

func getRun(opts *Options) error {
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	ctx, cancel := conn.Context()
	defer cancel()
	r, err := conn.Client.Time(ctx)
	if err != nil {
		return explain(err)
	}
	return printTime(opts, r)
}

func moveRun(opts *Options) error {
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	ctx, cancel := conn.Context()
	defer cancel()
	return move(ctx, conn.Client, opts)
}

func move(ctx context.Context, c *client.Client, opts *Options) error {
	cur, err := c.Time(ctx)
	if err != nil {
		return explain(err)
	}
	next := opts.Set
	if next.IsZero() {
		next = cur.CurrentTime.Add(opts.Advance)
	}
	r, err := c.SetTime(ctx, ledgerapi.SetTimeRequest{CurrentTime: cur.CurrentTime, NewTime: ledgerapi.Timestamp{Time: next}})
	if err != nil {
		return explain(err)
	}
	return printTime(opts, r)
}
