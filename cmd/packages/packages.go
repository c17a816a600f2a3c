// Package packages holds `ledger packages`: list the packages a node has
// (with name, version and vetting where the node reports them) and fetch
// one.
package packages

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/display"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// NewCmdPackages builds `ledger packages` and its subcommands.
func NewCmdPackages(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "packages",
		Short: "List the node's Daml packages and fetch one",
		Long: `The packages a node has come from uploaded DARs ("ledger dars upload"). List
them, or fetch one package's archive.`,
		Example: `  ledger packages list
  ledger packages get de2cc2f90eb523414ff54e899951dadd8789a4c07e0f71f6d6c9eaf57d412a54 --out ping.payload`,
	}
	cmd.AddCommand(NewCmdList(f, nil), NewCmdGet(f, nil))
	return cmd
}

// Options are the inputs of the packages subcommands.
type Options struct {
	IO      *cmdutil.IOStreams
	Connect func() (*cmdutil.Connection, error)
	Format  string

	ID  string // get
	Out string // get
}

// NewCmdList builds `ledger packages list`.
func NewCmdList(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the packages the node has",
		Long: `List the ids of the node's packages (GET /v2/packages) with the name and
version of each vetted one (POST /v2/package-vetting/list). A package that is
stored but not vetted shows no name.`,
		Example: `  ledger packages list
  ledger packages list -o json | jq -r '.[] | select(.name == "my-app") | .packageId'`,
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
		return listRun(opts)
	}
	return cmd
}

// packageRow is one listed package.
type packageRow struct {
	PackageID string `json:"packageId"`
	Name      string `json:"name"`
	Version   string `json:"version"`
	Vetted    bool   `json:"vetted"`
}

func listRun(opts *Options) error {
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	ctx := context.Background()
	ids, err := conn.Client.ListPackages(ctx)
	if err != nil {
		return cmdutil.WithHint(err)
	}
	known := map[string]ledgerapi.VettedPackage{}
	if vetted, err := conn.Client.ListVettedPackages(ctx, ledgerapi.ListVettedPackagesRequest{}); err == nil {
		for _, vp := range vetted.VettedPackages {
			for _, p := range vp.Packages {
				known[p.PackageID] = p
			}
		}
	}
	rows := make([]packageRow, 0, len(ids))
	for _, id := range ids {
		p, ok := known[id]
		rows = append(rows, packageRow{PackageID: id, Name: p.PackageName, Version: p.PackageVersion, Vetted: ok})
	}
	if opts.Format != cmdutil.FormatTable {
		return cmdutil.WriteStructured(opts.IO.Out, opts.Format, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(opts.IO.Out, "The node has no packages; upload a DAR with: ledger dars upload FILE")
		return nil
	}
	table := make([][]string, 0, len(rows))
	for _, r := range rows {
		state := "vetted"
		if !r.Vetted {
			state = "not vetted"
		}
		table = append(table, []string{r.PackageID, r.Name, r.Version, state})
	}
	return display.Table(opts.IO.Out, []string{"PACKAGE ID", "NAME", "VERSION", "VETTING"}, table)
}

// NewCmdGet builds `ledger packages get`.
func NewCmdGet(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "get PACKAGE_ID --out FILE",
		Short: "Fetch a package's archive payload",
		Long: `Fetch a package from the node (GET /v2/packages/{id}) and write what the node
sends, the package's archive payload (a Daml-LF ArchivePayload), to FILE.
Its SHA-256 is the package id, which is checked before anything is written.`,
		Example: `  ledger packages get de2cc2f90eb523414ff54e899951dadd8789a4c07e0f71f6d6c9eaf57d412a54 --out ping.payload`,
		Args:    cmdutil.ExactArgs(1),
	}
	cmd.Flags().StringVar(&opts.Out, "out", "", "file to write the package to (required)")
	conn := cmdutil.AddConnFlags(cmd)
	cmd.RunE = func(c *cobra.Command, args []string) error {
		opts.ID = args[0]
		if opts.Out == "" {
			return cmdutil.UsageError("give --out FILE: a package is binary")
		}
		opts.Connect = conn.Connect
		if runF != nil {
			return runF(opts)
		}
		return getRun(opts)
	}
	return cmd
}

func getRun(opts *Options) error {
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	payload, err := conn.Client.GetPackage(context.Background(), opts.ID)
	if err != nil {
		return cmdutil.WithHint(err)
	}
	if err := os.WriteFile(opts.Out, payload, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "wrote %d bytes of package %s to %s\n", len(payload), opts.ID, opts.Out)
	return nil
}
