package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/display"
)

// StatusOptions are the inputs of `ledger status`.
type StatusOptions struct {
	IO      *cmdutil.IOStreams
	Format  string
	Connect func() (*cmdutil.Connection, error)
}

// NewCmdStatus builds `ledger status`.
func NewCmdStatus(f *cmdutil.Factory, runF func(*StatusOptions) error) *cobra.Command {
	opts := &StatusOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show a node at a glance: version, participant, synchronizers, ledger end, pruning, counts",
		Long: `Ask a node (ledger serve or a Canton participant) what a developer checks
first: its Ledger API version (GET /v2/version), participant id, connected
synchronizers, ledger end, the offset it is pruned up to, and how many
packages and parties it has.

A part the token may not read (parties and packages need admin rights on
Canton) is shown with the reason, and the rest is still printed; a node that
does not answer at all fails the command (exit 1).`,
		Example: `  ledger status
  ledger status --url http://127.0.0.1:7575 -o json | jq .ledgerEnd`,
		Args: cmdutil.ExactArgs(0),
	}
	conn := cmdutil.AddConnFlags(cmd)
	cmd.RunE = func(c *cobra.Command, args []string) error {
		var err error
		if opts.Format, err = f.OutputFormat(); err != nil {
			return err
		}
		opts.Connect = conn.Connect
		if runF != nil {
			return runF(opts)
		}
		return statusRun(opts)
	}
	return cmd
}

// StatusResult is what status prints with -o json|yaml. A part the node
// would not give is left out and its reason is in Errors, by field name.
type StatusResult struct {
	URL           string               `json:"url"`
	Version       string               `json:"version"`
	ParticipantID string               `json:"participantId,omitempty"`
	Synchronizers []StatusSynchronizer `json:"synchronizers,omitempty"`
	LedgerEnd     *int64               `json:"ledgerEnd,omitempty"`
	PrunedUpTo    *int64               `json:"prunedUpTo,omitempty"`
	Packages      *int64               `json:"packages,omitempty"`
	Parties       *int64               `json:"parties,omitempty"`
	Errors        map[string]string    `json:"errors,omitempty"`
}

// StatusSynchronizer is one connected synchronizer.
type StatusSynchronizer struct {
	ID         string `json:"synchronizerId"`
	Alias      string `json:"synchronizerAlias,omitempty"`
	Permission string `json:"permission,omitempty"`
}

func statusRun(opts *StatusOptions) error {
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	ctx, cancel := conn.Context()
	defer cancel()
	res, err := nodeStatus(ctx, conn.Client)
	if err != nil {
		return cmdutil.WithHint(err)
	}
	if opts.Format != cmdutil.FormatTable {
		return cmdutil.WriteStructured(opts.IO.Out, opts.Format, res)
	}
	return writeStatus(opts.IO, res)
}

// nodeStatus asks the node each part; only a node that does not say its
// version is an error.
func nodeStatus(ctx context.Context, c *client.Client) (*StatusResult, error) {
	v, err := c.Version(ctx)
	if err != nil {
		return nil, err
	}
	res := &StatusResult{URL: c.URL(), Version: v.Version, Errors: map[string]string{}}
	note := func(field string, err error) bool {
		if err != nil {
			res.Errors[field] = err.Error()
			return false
		}
		return true
	}
	if id, err := c.ParticipantID(ctx); note("participantId", err) {
		res.ParticipantID = id
	}
	if s, err := c.ConnectedSynchronizers(ctx, "", res.ParticipantID); note("synchronizers", err) {
		for _, cs := range s.ConnectedSynchronizers {
			res.Synchronizers = append(res.Synchronizers, StatusSynchronizer{ID: cs.SynchronizerID, Alias: cs.SynchronizerAlias, Permission: string(cs.Permission)})
		}
	}
	if end, err := c.LedgerEnd(ctx); note("ledgerEnd", err) {
		res.LedgerEnd = &end
	}
	if p, err := c.LatestPrunedOffsets(ctx); note("prunedUpTo", err) {
		off := int64(p.ParticipantPrunedUpToInclusive)
		res.PrunedUpTo = &off
	}
	if pkgs, err := c.ListPackages(ctx); note("packages", err) {
		n := int64(len(pkgs))
		res.Packages = &n
	}
	if ps, err := c.AllParties(ctx, client.ListPartiesOptions{}); note("parties", err) {
		n := int64(len(ps))
		res.Parties = &n
	}
	if len(res.Errors) == 0 {
		res.Errors = nil
	}
	return res, nil
}

func writeStatus(io *cmdutil.IOStreams, res *StatusResult) error {
	orWhy := func(field string, v func() string) string {
		if why, bad := res.Errors[field]; bad {
			return "? (" + firstLine(why) + ")"
		}
		return v()
	}
	num := func(p *int64) func() string { return func() string { return fmt.Sprint(*p) } }
	return display.Fields(io.Out, [][2]string{
		{"Node", res.URL},
		{"Version", res.Version},
		{"Participant", orWhy("participantId", func() string { return res.ParticipantID })},
		{"Synchronizers", orWhy("synchronizers", func() string {
			if len(res.Synchronizers) == 0 {
				return "none connected"
			}
			var parts []string
			for _, s := range res.Synchronizers {
				p := s.ID
				if s.Alias != "" && s.Alias != s.ID {
					p = s.Alias + " (" + s.ID + ")"
				}
				parts = append(parts, p)
			}
			return strings.Join(parts, ", ")
		})},
		{"Ledger end", orWhy("ledgerEnd", num(res.LedgerEnd))},
		{"Pruned up to", orWhy("prunedUpTo", num(res.PrunedUpTo))},
		{"Packages", orWhy("packages", num(res.Packages))},
		{"Parties", orWhy("parties", num(res.Parties))},
	})
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
