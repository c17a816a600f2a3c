// Package parties holds `ledger parties`: get, list, allocate, update
// (annotations, with optimistic concurrency) and allocate-external, which
// onboards an external party through the wallet's checked onboarding.
package parties

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/display"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/signer"
	"github.com/ledger-cli/ledger/topology"
	"github.com/ledger-cli/ledger/wallet"
)

// NewCmdParties builds `ledger parties` and its subcommands.
func NewCmdParties(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "parties",
		Short: "List, allocate and annotate parties, and onboard external parties",
		Long: `Manage the parties of a node: read them, allocate local parties, change their
annotations, and onboard an external party whose key stays with you.`,
		Example: `  ledger parties list
  ledger parties allocate alice --annotation example.com/team=payments
  ledger parties update "$ALICE" --set example.com/team=risk --unset old-key
  ledger parties allocate-external --key alice.key --hint alice`,
	}
	cmdutil.Group(cmd)
	cmd.AddCommand(NewCmdPartiesGet(f, nil), NewCmdPartiesList(f, nil), NewCmdPartiesAllocate(f, nil),
		NewCmdPartiesUpdate(f, nil), NewCmdPartiesAllocateExternal(f, nil))
	return cmd
}

// PartiesOptions are the inputs of the parties subcommands.
type PartiesOptions struct {
	IO      *cmdutil.IOStreams
	Connect func() (*cmdutil.Connection, error)
	Format  string

	Parties      []string // get; update and allocate use the first
	Filter       string   // list
	IDP          string
	Annotations  []string // allocate: k=v
	Synchronizer string
	GrantUser    string
	Set          []string // update
	Unset        []string
	Version      string
	Retry        bool

	// allocate-external
	KeyFile        string
	PassphraseFile string
	Hint           string
	Yes            bool
}

func partiesCommand(f *cmdutil.Factory, cmd *cobra.Command, opts *PartiesOptions, runF, run func(*PartiesOptions) error) *cobra.Command {
	conn := cmdutil.AddConnFlags(cmd)
	cmd.RunE = func(c *cobra.Command, args []string) error {
		var err error
		if opts.Format, err = f.OutputFormat(); err != nil {
			return err
		}
		opts.Parties = args
		opts.Connect = conn.Connect
		if runF != nil {
			return runF(opts)
		}
		return run(opts)
	}
	return cmd
}

// NewCmdPartiesGet builds `ledger parties get`.
func NewCmdPartiesGet(f *cmdutil.Factory, runF func(*PartiesOptions) error) *cobra.Command {
	opts := &PartiesOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "get PARTY [PARTY...]",
		Short: "Show parties: local or not, annotations, resource version",
		Long: `Show the details the node keeps about parties (GET /v2/parties/{party}):
whether it hosts them, their identity provider, annotations and resource
version (the version "ledger parties update" compares against).`,
		Example: `  ledger parties get "$ALICE"
  ledger parties get "$ALICE" "$BOB" -o json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmdutil.UsageError("give at least one party id")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&opts.IDP, "identity-provider-id", "", "identity provider of the parties")
	return partiesCommand(f, cmd, opts, runF, partiesGetRun)
}

func partiesGetRun(opts *PartiesOptions) error {
	if err := cmdutil.ValidateParties("PARTY", opts.Parties); err != nil {
		return err
	}
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	ctx, cancel := conn.Context()
	defer cancel()
	ps, err := conn.Client.GetParties(ctx, opts.Parties[0], opts.Parties[1:]...)
	if err != nil {
		return conn.WithHint(err)
	}
	// The node leaves out the parties it does not know.
	missing := cmdutil.MissingParties(opts.Parties, ps)
	if len(ps) > 0 {
		if err := writeParties(opts, ps); err != nil {
			return err
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("not found: %s: the node knows no such party; check the id (ledger parties list)", strings.Join(missing, ", "))
	}
	return nil
}

// NewCmdPartiesList builds `ledger parties list`.
func NewCmdPartiesList(f *cmdutil.Factory, runF func(*PartiesOptions) error) *cobra.Command {
	opts := &PartiesOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "list [--filter PREFIX]",
		Short: "List the parties the node knows",
		Long: `List every party the node knows (GET /v2/parties, all pages). Needs an admin
or identity-provider admin token. --filter keeps parties whose id starts with
PREFIX (Canton 3.4.10+ and 3.5.1+).`,
		Example: `  ledger parties list
  ledger parties list --filter alice -o json | jq -r '.[].party'`,
		Args: cmdutil.ExactArgs(0),
	}
	cmd.Flags().StringVar(&opts.Filter, "filter", "", "only parties whose id starts with this")
	cmd.Flags().StringVar(&opts.IDP, "identity-provider-id", "", "only parties of this identity provider")
	return partiesCommand(f, cmd, opts, runF, partiesListRun)
}

func partiesListRun(opts *PartiesOptions) error {
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	ctx, cancel := conn.Context()
	defer cancel()
	ps, err := conn.Client.AllParties(ctx, client.ListPartiesOptions{FilterParty: opts.Filter, IdentityProviderID: opts.IDP})
	if err != nil {
		return conn.WithHint(err)
	}
	return writeParties(opts, ps)
}

func writeParties(opts *PartiesOptions, ps []ledgerapi.PartyDetails) error {
	if opts.Format != cmdutil.FormatTable {
		return cmdutil.WriteStructured(opts.IO.Out, opts.Format, ledgerapi.List[ledgerapi.PartyDetails](ps))
	}
	if len(ps) == 0 {
		fmt.Fprintln(opts.IO.Out, "no parties")
		return nil
	}
	rows := make([][]string, len(ps))
	for i, p := range ps {
		var ann []string
		for _, k := range slices.Sorted(maps.Keys(p.LocalMetadata.Annotations)) {
			ann = append(ann, k+"="+p.LocalMetadata.Annotations[k])
		}
		local := "no"
		if p.IsLocal {
			local = "yes"
		}
		rows[i] = []string{p.Party, local, p.LocalMetadata.ResourceVersion, strings.Join(ann, "\n")}
	}
	return display.Table(opts.IO.Out, []string{"PARTY", "LOCAL", "VERSION", "ANNOTATIONS"}, rows)
}

// NewCmdPartiesAllocate builds `ledger parties allocate`.
func NewCmdPartiesAllocate(f *cmdutil.Factory, runF func(*PartiesOptions) error) *cobra.Command {
	opts := &PartiesOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "allocate HINT",
		Short: "Allocate a party hosted (and signed for) by the node",
		Long: `Allocate a local party (POST /v2/parties): the node holds its key. The party id
is HINT::<the node's namespace>. For a party that signs its own transactions,
use "ledger parties allocate-external".`,
		Example: `  ledger parties allocate bank
  ledger parties allocate alice --annotation example.com/team=payments --grant-user alice`,
		Args: cmdutil.ExactArgs(1),
	}
	cmd.Flags().StringArrayVar(&opts.Annotations, "annotation", nil, "annotation KEY=VALUE (repeatable)")
	cmd.Flags().StringVar(&opts.Synchronizer, "synchronizer", "", "synchronizer (needed when the node is on several)")
	cmd.Flags().StringVar(&opts.GrantUser, "grant-user", "", "user that gets CanActAs on the new party (Canton 3.4+)")
	cmd.Flags().StringVar(&opts.IDP, "identity-provider-id", "", "identity provider of the party")
	return partiesCommand(f, cmd, opts, runF, partiesAllocateRun)
}

func partiesAllocateRun(opts *PartiesOptions) error {
	if err := ledgerapi.ValidatePartyHint("HINT", opts.Parties[0]); err != nil {
		return cmdutil.UsageError("%s", err)
	}
	ann, err := cmdutil.ParseAnnotations(opts.Annotations, nil, false)
	if err != nil {
		return err
	}
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	ctx, cancel := conn.Context()
	defer cancel()
	req := ledgerapi.AllocatePartyRequest{PartyIDHint: opts.Parties[0], IdentityProviderID: opts.IDP, SynchronizerID: opts.Synchronizer, UserID: opts.GrantUser}
	if len(ann) > 0 {
		req.LocalMetadata = &ledgerapi.ObjectMeta{Annotations: ann}
	}
	p, err := conn.Client.AllocateParty(ctx, req)
	if err != nil {
		return conn.WithHint(err)
	}
	if opts.Format != cmdutil.FormatTable {
		return cmdutil.WriteStructured(opts.IO.Out, opts.Format, p)
	}
	fmt.Fprintln(opts.IO.Out, p.Party)
	return nil
}

// NewCmdPartiesUpdate builds `ledger parties update`.
func NewCmdPartiesUpdate(f *cmdutil.Factory, runF func(*PartiesOptions) error) *cobra.Command {
	opts := &PartiesOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "update PARTY --set KEY=VALUE --unset KEY [--resource-version V] [--retry]",
		Short: "Set or remove annotations of a party",
		Long: `Change a party's annotations (PATCH /v2/parties/{party}) without writing the
request by hand: the field mask (local_metadata.annotations) is built for you,
keys not mentioned stay as they are, --unset removes a key.

The update is a compare-and-set on the party's resource version: without
--resource-version the current version is read first, so a concurrent change
between that read and the update is refused (409
CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED) rather than overwritten. --retry
then reads the party again and repeats the update (up to 5 times).

Annotation keys are [prefix/]name, e.g. example.com/team; tools should use a
prefix.`,
		Example: `  ledger parties update "$ALICE" --set example.com/team=payments
  ledger parties update "$ALICE" --unset example.com/team --set example.com/tier=gold --retry
  ledger parties update "$ALICE" --set example.com/kyc=done --resource-version 7`,
		Args: cmdutil.ExactArgs(1),
	}
	cmd.Flags().StringArrayVar(&opts.Set, "set", nil, "set annotation KEY=VALUE (repeatable)")
	cmd.Flags().StringArrayVar(&opts.Unset, "unset", nil, "remove annotation KEY (repeatable)")
	cmd.Flags().StringVar(&opts.Version, "resource-version", "", "update only if the party is at this version")
	cmd.Flags().BoolVar(&opts.Retry, "retry", false, "on a concurrent update, read the party again and retry")
	cmd.Flags().StringVar(&opts.IDP, "identity-provider-id", "", "identity provider of the party")
	return partiesCommand(f, cmd, opts, runF, partiesUpdateRun)
}

// maxUpdateAttempts bounds --retry.
const maxUpdateAttempts = 5

func partiesUpdateRun(opts *PartiesOptions) error {
	party := opts.Parties[0]
	if err := ledgerapi.ValidatePartyID("PARTY", party); err != nil {
		return cmdutil.UsageError("%s", err)
	}
	if len(opts.Set)+len(opts.Unset) == 0 {
		return cmdutil.UsageError("nothing to change: give --set KEY=VALUE or --unset KEY")
	}
	ann, err := cmdutil.ParseAnnotations(opts.Set, opts.Unset, true)
	if err != nil {
		return err
	}
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	ctx, cancel := conn.Context()
	defer cancel()
	version := opts.Version
	var p *ledgerapi.PartyDetails
	for attempt := 1; ; attempt++ {
		details := ledgerapi.PartyDetails{Party: party, IdentityProviderID: opts.IDP,
			LocalMetadata: ledgerapi.ObjectMeta{Annotations: ann}}
		if version == "" || attempt > 1 {
			cur, err := conn.Client.GetParties(ctx, party)
			if err != nil {
				return conn.WithHint(err)
			}
			if len(cur) == 0 {
				return fmt.Errorf("party %s: the node returned no details", party)
			}
			details.IsLocal, details.IdentityProviderID = cur[0].IsLocal, cur[0].IdentityProviderID
			version = cur[0].LocalMetadata.ResourceVersion
		}
		details.LocalMetadata.ResourceVersion = version
		p, err = conn.Client.UpdatePartyDetails(ctx, ledgerapi.UpdatePartyDetailsRequest{
			PartyDetails: &details,
			UpdateMask:   &ledgerapi.FieldMask{Paths: []string{"local_metadata.annotations"}},
		})
		if err == nil {
			break
		}
		if !errors.Is(err, ledgerapi.CodeConcurrentPartyDetailsUpdate.Err()) || !opts.Retry || attempt >= maxUpdateAttempts {
			return conn.WithHint(err)
		}
		fmt.Fprintf(opts.IO.ErrOut, "party %s changed concurrently (version %s is stale); reading it again\n", party, version)
	}
	return writeParties(opts, []ledgerapi.PartyDetails{*p})
}

// NewCmdPartiesAllocateExternal builds `ledger parties allocate-external`.
func NewCmdPartiesAllocateExternal(f *cmdutil.Factory, runF func(*PartiesOptions) error) *cobra.Command {
	opts := &PartiesOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "allocate-external --key KEYFILE --hint NAME",
		Short: "Onboard an external party whose ed25519 key stays with you",
		Long: `Onboard an external party: a party that signs its own transactions with a key
the node never sees.

Steps: the node generates the onboarding topology transactions for your
public key (POST /v2/parties/external/generate-topology); they are decoded and
checked here before anything is signed — the party is HINT::<fingerprint of
your key>, your key is its only signing key, the namespace is your key's, no
participant may submit for it, and the multi-hash the node sent recomputes
from the transactions; they are shown; the 34-byte multi-hash is signed with
your key; the party is allocated (POST /v2/parties/external/allocate).

On a terminal you are asked to confirm before signing (--yes skips it).
The key file's passphrase comes from --passphrase-file, LEDGER_KEY_PASSPHRASE
or a prompt. What is checked is printed on standard error; standard output
gets the party id (-o json: partyId, fingerprint, multiHash, mappings).`,
		Example: `  ledger keys generate --out alice.key
  ledger parties allocate-external --key alice.key --hint alice

  # in a script, keeping the party id
  ALICE=$(ledger parties allocate-external --key alice.key --hint alice --passphrase-file pass.txt --yes)

  # granting the user alice the right to execute as the party
  ledger parties allocate-external --key alice.key --hint alice --passphrase-file pass.txt --yes --grant-user alice`,
		Args: cmdutil.ExactArgs(0),
	}
	cmd.Flags().StringVar(&opts.KeyFile, "key", "", "key file of the party's ed25519 key (required)")
	cmd.Flags().StringVar(&opts.PassphraseFile, "passphrase-file", "", "file whose first line is the key's passphrase")
	cmd.Flags().StringVar(&opts.Hint, "hint", "", "party hint, the part before :: (required)")
	cmd.Flags().StringVar(&opts.Synchronizer, "synchronizer", "", "synchronizer (default: the node's only one)")
	cmd.Flags().StringVar(&opts.GrantUser, "grant-user", "", "user that gets rights on the new party (Canton 3.5+)")
	cmd.Flags().BoolVar(&opts.Yes, "yes", false, "sign without asking")
	return partiesCommand(f, cmd, opts, runF, partiesAllocateExternalRun)
}

// ExternalPartyResult is allocate-external's -o json|yaml output.
type ExternalPartyResult struct {
	PartyID     string   `json:"partyId"`
	Fingerprint string   `json:"fingerprint"`
	MultiHash   string   `json:"multiHash"`
	Mappings    []string `json:"mappings"`
}

func partiesAllocateExternalRun(opts *PartiesOptions) error {
	if opts.KeyFile == "" {
		return cmdutil.UsageError("--key is required: the key file of the party's ed25519 key (ledger keys generate)")
	}
	if opts.Hint == "" {
		return cmdutil.UsageError("--hint is required: the name before :: in the party id")
	}
	if err := topology.ValidatePartyHint(opts.Hint); err != nil {
		return cmdutil.UsageError("--hint: %s", err)
	}
	key, err := signer.LoadKeyFile(opts.KeyFile, cmdutil.KeyPassphrase(opts.IO, opts.PassphraseFile, opts.KeyFile, false))
	if err != nil {
		return fmt.Errorf("--key %s: %w", opts.KeyFile, err)
	}
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	// Two deadlines: the person deciding at the prompt is not on the clock.
	ctx, cancel := conn.Context()
	defer cancel()
	sync := opts.Synchronizer
	if sync == "" {
		if sync, err = wallet.OnlySynchronizer(ctx, conn.Client); err != nil {
			var choice *wallet.SynchronizerChoiceError
			if errors.As(err, &choice) && len(choice.Connected) > 1 {
				return cmdutil.UsageError("the node is on several synchronizers: choose one with --synchronizer (%s)", strings.Join(choice.Connected, ", "))
			}
			return conn.WithHint(err)
		}
	}
	o, err := wallet.ProposeOnboarding(ctx, conn.Client, sync, opts.Hint, key.Public())
	if err != nil {
		return conn.WithHint(err)
	}
	res := ExternalPartyResult{PartyID: o.PartyID, Fingerprint: o.Fingerprint, MultiHash: o.MultiHashHex(), Mappings: o.Mappings}
	// What a person checks goes to stderr; stdout carries the result, so
	// that ALICE=$(ledger parties allocate-external …) works.
	info := opts.IO.ErrOut
	fmt.Fprintf(info, "Onboarding %s on %s (checked: our key, our namespace, multi-hash recomputed)\n", o.PartyID, sync)
	for i, m := range res.Mappings {
		fmt.Fprintf(info, "  transaction %d: %s\n", i+1, m)
	}
	fmt.Fprintf(info, "  multi-hash to sign: %s\n", res.MultiHash)
	if !opts.Yes && opts.IO.IsStdinTTY() {
		ok, err := cmdutil.Confirm(opts.IO, "Sign with key "+o.Fingerprint+" and allocate the party? [y/N] ")
		if err != nil {
			return err
		}
		if !ok {
			return errors.New("not signed: nothing was allocated")
		}
	}
	ctx, cancelAllocate := conn.Context()
	defer cancelAllocate()
	if err := o.Allocate(ctx, conn.Client, key, opts.GrantUser); err != nil {
		return conn.WithHint(err)
	}
	if opts.Format != cmdutil.FormatTable {
		return cmdutil.WriteStructured(opts.IO.Out, opts.Format, res)
	}
	if opts.IO.IsStdoutTTY() {
		fmt.Fprintf(opts.IO.Out, "Allocated external party %s\n", o.PartyID)
	} else {
		fmt.Fprintln(opts.IO.Out, o.PartyID)
	}
	return nil
}
