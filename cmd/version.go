package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// VersionOptions are the inputs of `ledger version`.
type VersionOptions struct {
	IO     *cmdutil.IOStreams
	Format string
	Build  cmdutil.Build
	// Settings resolves the connection settings; the node is asked only
	// when they name a URL.
	Settings func() (*cmdutil.Settings, error)
}

// NewCmdVersion builds `ledger version`.
func NewCmdVersion(f *cmdutil.Factory, runF func(*VersionOptions) error) *cobra.Command {
	opts := &VersionOptions{IO: f.IO, Build: cmdutil.ReadBuild()}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print ledger's version, commit and Go version, and the node's version",
		Long: `Print the version of this binary, the commit it was built from and the Go
version that built it. When a node URL is set (--url, LEDGER_URL or the
profile), the node's version (GET /v2/version) is printed too; a node that
does not answer makes the command fail (exit 1) after the local lines, so a
script can wait for a node with it.

"ledger --version" prints the first line only.`,
		Example: `  ledger version
  ledger version --url http://127.0.0.1:7575
  ledger version -o json | jq -r .node.version

  # wait for a node started in the background
  until ledger version >/dev/null 2>&1; do sleep 0.2; done`,
		Args: cmdutil.ExactArgs(0),
	}
	conn := cmdutil.AddConnFlags(cmd)
	cmd.RunE = func(c *cobra.Command, args []string) error {
		var err error
		if opts.Format, err = f.OutputFormat(); err != nil {
			return err
		}
		opts.Settings = conn.ResolveSettings
		if runF != nil {
			return runF(opts)
		}
		return versionRun(opts)
	}
	return cmd
}

// VersionResult is what version prints with -o json|yaml.
type VersionResult struct {
	cmdutil.Build
	Node *NodeVersion `json:"node,omitempty"`
}

// NodeVersion is the node's answer to GET /v2/version.
type NodeVersion struct {
	URL     string `json:"url"`
	Version string `json:"version"`
	// Error is why the node did not say (-o json|yaml; the exit status is 1).
	Error string `json:"error,omitempty"`
}

func versionRun(opts *VersionOptions) error {
	res := VersionResult{Build: opts.Build}
	var nodeErr error
	s, err := opts.Settings()
	if err != nil {
		return err
	}
	if url := s.Get(cmdutil.KeyURL); url != "" {
		var v *ledgerapi.GetVersionResponse
		res.Node = &NodeVersion{URL: url}
		conn, err := cmdutil.Connect(s)
		if err != nil {
			return err
		}
		ctx, cancel := conn.Context()
		defer cancel()
		if v, nodeErr = conn.Client.Version(ctx); nodeErr == nil {
			res.Node.Version = v.Version
		} else {
			res.Node.Error = nodeErr.Error()
			nodeErr = conn.WithHint(nodeErr)
		}
	}
	w := opts.IO.Out
	if opts.Format != cmdutil.FormatTable {
		if err := cmdutil.WriteStructured(w, opts.Format, res); err != nil {
			return err
		}
	} else {
		b := res.Build
		fmt.Fprintf(w, "ledger %s\n", b.Version)
		if b.Commit != "" {
			modified := ""
			if b.Modified {
				modified = " (modified)"
			}
			fmt.Fprintf(w, "commit %s %s%s\n", b.Commit, b.CommitTime, modified)
		}
		fmt.Fprintf(w, "go     %s %s\n", b.Go, b.Platform)
		if res.Node != nil && nodeErr == nil {
			fmt.Fprintf(w, "node   %s at %s\n", res.Node.Version, res.Node.URL)
		}
	}
	return nodeErr
}
