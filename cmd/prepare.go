package cmd

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/display"
	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/wallet"
)

// PrepareOptions are the inputs of `ledger prepare`.
type PrepareOptions struct {
	IO      *cmdutil.IOStreams
	Now     func() time.Time
	Connect func() (*cmdutil.Connection, error)
	// Format is -o: the form of the summary (the envelope is always JSON).
	Format string
	// Out is the envelope file ("" = standard output).
	Out string

	Commands           commandFlags
	ActAs              []string
	ReadAs             []string
	CommandID          string
	MinLedgerTime      string
	Disclosed          string
	Synchronizer       string
	PackagePreference  []string
	VerboseHashing     bool
	PrefetchKeys       []string
	MaxRecordTime      string
	NoCostEstimate     bool
	ExpectedSignatures []string
	TapsMaxPasses      int
	TapsSet            bool
	Scheme             string
	Show               bool
	// WithPackages puts the Daml packages the transaction needs into the
	// envelope, for the signer to re-run its code offline.
	WithPackages bool
}

// NewCmdPrepare builds `ledger prepare`.
func NewCmdPrepare(f *cmdutil.Factory, runF func(*PrepareOptions) error) *cobra.Command {
	opts := &PrepareOptions{IO: f.IO, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "prepare (--create T --args JSON | --exercise T --contract-id C --choice N | --create-and-exercise T … | --commands @FILE) --act-as PARTY",
		Short: "Prepare a transaction on the node for an external party to sign",
		Long: `Ask the node to prepare a transaction (POST /v2/interactive-submission/prepare)
and write the result as an envelope: the file "ledger sign" signs offline and
"ledger execute" submits. The envelope is a superset of the execute request.

The node's preparedTransactionHash is not trusted: the hash is recomputed here
from the prepared transaction's bytes at once, under the scheme the node names.
A mismatch exits with status 3 and says why (the envelope is still written, for
"ledger verify --trace"; "ledger sign" refuses it too).

The command comes from flags or a file:
  --create TEMPLATE --args JSON|@FILE
  --exercise TEMPLATE --contract-id CID --choice NAME [--arg JSON|@FILE]
  --create-and-exercise TEMPLATE --args JSON|@FILE --choice NAME [--arg JSON|@FILE]
  --exercise-by-key TEMPLATE --key JSON|@FILE --choice NAME [--arg JSON|@FILE]
  --commands @FILE    (a JSON array of commands as the JSON API writes them)
Templates are "#package-name:Module:Entity" or "packageId:Module:Entity";
values are Daml-LF JSON. @- reads standard input.

Every field of the prepare request has a flag. --command-id defaults to a
fresh UUID. --max-record-time takes a duration from now (10m) or an RFC 3339
time; so does --min-ledger-time (a duration is sent as a relative time).

The envelope is JSON, always: it goes to --out FILE, else to standard
output, with the summary and traffic cost estimate then on standard error.
With --out, the summary goes to standard output, as text or, with -o json or
-o yaml, as a structure for scripts (commandId, actAs, envelope, scheme,
hash, matchesNode, cost). A YAML envelope is never written. --show also
renders the transaction for review.

--with-packages also fetches (GET /v2/packages/{id}) every Daml package the
prepared transaction names and every package those depend on, and puts them
in the envelope: "ledger sign" then re-runs the transaction's Daml code on
the offline machine with nothing else at hand and refuses any difference
from what the node prepared. A package's id is the SHA-256 of its content,
checked here and again by the signer, so the node cannot slip in other code.

Exit status: 0 prepared and the hash matches, 1 error or refusal by the node,
2 usage error, 3 the node's hash differs from the recomputed one.`,
		Example: `  # create a contract as an external party, envelope to tx.json
  ledger prepare --create '#iou:Iou:Iou' --args @iou.json --act-as "$ALICE" --out tx.json

  # exercise a choice, review the result, sign before 15 minutes pass
  ledger prepare --exercise '#iou:Iou:Iou' --contract-id "$CID" --choice Transfer \
      --arg '{"newOwner":"'"$BOB"'"}' --act-as "$ALICE" --max-record-time 15m --show --out tx.json

  # V3 hashing (Canton 3.5, needed for contract keys), no traffic estimate
  ledger prepare --commands @cmds.json --act-as "$ALICE" --scheme v3 --no-cost-estimate --out tx.json

  # pipe the envelope
  ledger prepare --create '#iou:Iou:Iou' --args @iou.json --act-as "$ALICE" > tx.json

  # the hash for a script
  ledger prepare --create '#iou:Iou:Iou' --args @iou.json --act-as "$ALICE" --out tx.json -o json | jq -r .hash`,
		Args: cmdutil.ExactArgs(0),
	}
	conn := cmdutil.AddConnFlags(cmd)
	fl := cmd.Flags()
	addCommandFlags(fl, &opts.Commands)
	fl.StringArrayVar(&opts.ActAs, "act-as", nil, "party the transaction acts as (repeatable; required)")
	fl.StringArrayVar(&opts.ReadAs, "read-as", nil, "extra party whose contracts the transaction may read (repeatable)")
	fl.StringVar(&opts.CommandID, "command-id", "", "command id (default: a fresh UUID)")
	fl.StringVar(&opts.MinLedgerTime, "min-ledger-time", "", "minimum ledger time: RFC 3339 time, or a duration relative to submission")
	fl.StringVar(&opts.Disclosed, "disclosed", "", "disclosed contracts: JSON array or @FILE of {templateId, contractId, createdEventBlob, synchronizerId}")
	fl.StringVar(&opts.Synchronizer, "synchronizer", "", "synchronizer id (default: the node picks)")
	fl.StringArrayVar(&opts.PackagePreference, "package-preference", nil, "package id to prefer when resolving package names (repeatable)")
	fl.BoolVar(&opts.VerboseHashing, "verbose-hashing", false, "ask the node for its hashing details (kept in the envelope for ledger verify --trace)")
	fl.StringArrayVar(&opts.PrefetchKeys, "prefetch-key", nil, `contract key to load up front: JSON or @FILE {"templateId":…,"contractKey":…} (repeatable)`)
	fl.StringVar(&opts.MaxRecordTime, "max-record-time", "", "latest record time: a duration from now (10m) or an RFC 3339 time")
	fl.BoolVar(&opts.NoCostEstimate, "no-cost-estimate", false, "do not ask for a traffic cost estimate")
	fl.StringSliceVar(&opts.ExpectedSignatures, "expected-signatures", nil, "signature algorithms the estimate assumes, one per signature: ed25519, ecdsa-sha256, ecdsa-sha384")
	fl.IntVar(&opts.TapsMaxPasses, "taps-max-passes", 0, "maximum passes of the topology-aware package selection")
	fl.StringVar(&opts.Scheme, "scheme", "", "hashing scheme to ask for: v2 or v3 (default: the node's, V2)")
	fl.BoolVar(&opts.Show, "show", false, "render the prepared transaction for review")
	fl.BoolVar(&opts.WithPackages, "with-packages", false, "put the Daml packages the transaction needs into the envelope, for the signer to re-run its code offline")
	fl.StringVar(&opts.Out, "out", "", "write the envelope to FILE (default: standard output)")

	cmd.RunE = func(c *cobra.Command, args []string) error {
		var err error
		if opts.Format, err = f.OutputFormat(); err != nil {
			return err
		}
		if err := cmdutil.EnvelopeFormat(opts.Format, opts.Out); err != nil {
			return err
		}
		opts.TapsSet = c.Flags().Changed("taps-max-passes")
		opts.Connect = conn.Connect
		if runF != nil {
			return runF(opts)
		}
		return prepareRun(opts)
	}
	return cmd
}

// prepareRequest builds the request from the options.
func (opts *PrepareOptions) prepareRequest(userID string) (ledgerapi.PrepareSubmissionRequest, error) {
	var req ledgerapi.PrepareSubmissionRequest
	cmds, err := opts.Commands.build(opts.IO.In)
	if err != nil {
		return req, err
	}
	if len(opts.ActAs) == 0 {
		return req, cmdutil.UsageError("--act-as is required: the external party that signs")
	}
	if err := cmdutil.ValidateParties("--act-as", opts.ActAs); err != nil {
		return req, err
	}
	if err := cmdutil.ValidateParties("--read-as", opts.ReadAs); err != nil {
		return req, err
	}
	commandID := opts.CommandID
	if commandID == "" {
		commandID = uuid.NewString()
	} else if err := ledgerapi.ValidateLedgerString("--command-id", commandID); err != nil {
		return req, cmdutil.UsageError("%s", err)
	}
	req = ledgerapi.PrepareSubmissionRequest{
		UserID:                       userID,
		CommandID:                    commandID,
		Commands:                     cmds,
		ActAs:                        opts.ActAs,
		ReadAs:                       opts.ReadAs,
		SynchronizerID:               opts.Synchronizer,
		PackageIDSelectionPreference: opts.PackagePreference,
		VerboseHashing:               opts.VerboseHashing,
	}
	if req.MinLedgerTime, err = parseMinLedgerTime(opts.MinLedgerTime, opts.Now()); err != nil {
		return req, err
	}
	if opts.MaxRecordTime != "" {
		now := opts.Now()
		t, err := parseTimeOrDuration("--max-record-time", opts.MaxRecordTime, now)
		if err != nil {
			return req, err
		}
		// A transaction that expires before it is prepared can never be
		// executed; nobody should be asked to sign it.
		if !t.After(now) {
			return req, cmdutil.UsageError("--max-record-time %s is %s, which has already passed: give a later time or a positive duration (10m)",
				opts.MaxRecordTime, t.UTC().Format(time.RFC3339))
		}
		req.MaxRecordTime = ledgerapi.TimestampPtr(t)
	}
	if req.DisclosedContracts, err = parseDisclosed(opts.Disclosed, opts.IO.In); err != nil {
		return req, err
	}
	if req.PrefetchContractKeys, err = parsePrefetchKeys(opts.PrefetchKeys, opts.IO.In); err != nil {
		return req, err
	}
	if opts.NoCostEstimate || len(opts.ExpectedSignatures) > 0 {
		hints := &ledgerapi.CostEstimationHints{Disabled: opts.NoCostEstimate, ExpectedSignatures: []ledgerapi.SigningAlgorithmSpec{}}
		for _, s := range opts.ExpectedSignatures {
			spec, err := parseSigningAlgorithm(s)
			if err != nil {
				return req, err
			}
			hints.ExpectedSignatures = append(hints.ExpectedSignatures, spec)
		}
		req.EstimateTrafficCost = hints
	}
	if opts.TapsSet {
		if opts.TapsMaxPasses < 0 {
			return req, cmdutil.UsageError("--taps-max-passes must not be negative")
		}
		v := ledgerapi.Int32(opts.TapsMaxPasses)
		req.TapsMaxPasses = &v
	}
	if opts.Scheme != "" {
		s, err := hashing.ParseScheme(opts.Scheme)
		if err != nil {
			return req, cmdutil.UsageError("--scheme: %s", err)
		}
		req.HashingSchemeVersion = ledgerapi.HashingSchemeVersion(s.String())
	}
	return req, nil
}

func prepareRun(opts *PrepareOptions) error {
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	ctx, cancel := conn.Context()
	defer cancel()
	req, err := opts.prepareRequest(conn.UserID)
	if err != nil {
		return err
	}
	if req.ActAs, err = conn.ResolvePartyHints("--act-as", req.ActAs, opts.IO.ErrOut); err != nil {
		return err
	}
	if req.ReadAs, err = conn.ResolvePartyHints("--read-as", req.ReadAs, opts.IO.ErrOut); err != nil {
		return err
	}
	if err := opts.Commands.checkTypes(conn.Client, req.Commands, req.ActAs, req.PackageIDSelectionPreference); err != nil {
		return err
	}
	var header http.Header // the node names what its generic model served
	resp, err := conn.Client.Prepare(client.WithResponseHeader(ctx, &header), req)
	if err != nil {
		return conn.WithHint(err)
	}
	noteGeneric(header, req.Commands, opts.IO.ErrOut)
	env, err := wallet.NewEnvelope(req, resp, conn.Client.URL(), opts.Now())
	if err != nil {
		return err
	}
	// One decoding and hashing serves the check and --show.
	rv, verr := wallet.ReviewEnvelope(env, 0, opts.Now())
	if verr == nil && rv.HashErr != nil {
		verr = rv.HashErr
	}
	if opts.WithPackages && verr == nil {
		pkgs, absent, err := wallet.FetchPackages(ctx, rv.Transaction, nodePackage(conn.Client))
		if err != nil {
			return fmt.Errorf("--with-packages: %w", conn.WithHint(err))
		}
		env.Info.Packages = pkgs
		for _, id := range absent {
			fmt.Fprintf(opts.IO.ErrOut, "warning: the node has no package %s (its generic contract model serves the template): there is no Daml code for the signer to re-run\n", id)
		}
	}
	// The review is the signer's: re-run with the packages it will have.
	if verr == nil {
		if err := rv.CheckDamlCode(nil, opts.Now()); err != nil {
			return reinterpretationError(err)
		}
	}

	// The envelope goes to the file or to stdout; what people read goes
	// to stdout when the envelope is in a file, else to stderr.
	info := opts.IO.ErrOut
	if opts.Out != "" {
		if err := env.WriteFile(opts.Out); err != nil {
			return fmt.Errorf("writing the envelope: %w", err)
		}
		info = opts.IO.Out
	} else {
		b, err := env.Marshal()
		if err != nil {
			return err
		}
		if _, err := opts.IO.Out.Write(b); err != nil {
			return err
		}
	}
	if verr != nil {
		fmt.Fprintf(opts.IO.ErrOut, "Prepared command %s acting as %s\n", req.CommandID, strings.Join(req.ActAs, ", "))
		return fmt.Errorf("the prepared transaction cannot be hashed here, do not sign it: %w", verr)
	}
	res := PrepareResult{
		CommandID: req.CommandID, ActAs: req.ActAs, Envelope: opts.Out, Scheme: rv.Scheme.String(),
		Hash: base64.StdEncoding.EncodeToString(rv.Result.Hash[:]), MatchesNode: rv.MatchesNode(), Cost: resp.CostEstimation,
		Packages: len(env.Info.Packages),
	}
	if r := rv.Reinterpretation; r != nil {
		res.DamlCode, res.MatchesDamlCode = r.Code, r.Matches()
	}
	structured := opts.Out != "" && opts.Format != cmdutil.FormatTable
	if structured {
		info = opts.IO.ErrOut // stdout carries the structure; people read stderr
	}
	if opts.Show {
		color := opts.IO.ColorEnabled() && info == opts.IO.Out
		if err := display.RenderText(info, rv.Review, display.TextOptions{Color: color}); err != nil {
			return err
		}
	}
	if structured {
		if err := cmdutil.WriteStructured(opts.IO.Out, opts.Format, res); err != nil {
			return err
		}
	} else {
		writePrepareSummary(info, res, req.EstimateTrafficCost)
	}
	if !res.MatchesNode {
		fmt.Fprintf(info, "MISMATCH: the node's preparedTransactionHash %s differs from the hash recomputed here.\nDo not sign this transaction: %s.\n",
			base64.StdEncoding.EncodeToString(rv.NodeHash), rv.Mismatch())
		return cmdutil.WithExit(cmdutil.ExitHashMismatch, nil)
	}
	if r := rv.Reinterpretation; r != nil && !r.Matches() {
		return reinterpretationError(&wallet.NotDamlCodeError{Source: "the prepared transaction", Difference: r.Difference})
	}
	return nil
}

// PrepareResult is prepare's summary; -o json|yaml prints it when the
// envelope went to --out.
type PrepareResult struct {
	CommandID string   `json:"commandId"`
	ActAs     []string `json:"actAs"`
	// Envelope is the file written ("" when on standard output).
	Envelope string `json:"envelope,omitempty"`
	Scheme   string `json:"scheme"`
	// Hash is the hash recomputed here, in base64.
	Hash string `json:"hash"`
	// MatchesNode says whether the node's preparedTransactionHash is Hash.
	MatchesNode bool                      `json:"matchesNode"`
	Cost        *ledgerapi.CostEstimation `json:"cost,omitempty"`
	// Packages is how many Daml packages the envelope carries
	// (--with-packages); DamlCode names them and MatchesDamlCode says
	// whether re-running it made exactly this transaction.
	Packages        int    `json:"packages,omitempty"`
	DamlCode        string `json:"damlCode,omitempty"`
	MatchesDamlCode bool   `json:"matchesDamlCode,omitempty"`
}

// writePrepareSummary prints what prepare did and what comes next.
func writePrepareSummary(w io.Writer, r PrepareResult, hints *ledgerapi.CostEstimationHints) {
	fmt.Fprintf(w, "Prepared command %s acting as %s\n", r.CommandID, strings.Join(r.ActAs, ", "))
	fmt.Fprintf(w, "  hash (%s):  %s\n", r.Scheme, r.Hash)
	writeCost(w, r.Cost, hints)
	if r.Envelope != "" {
		fmt.Fprintf(w, "  envelope:   %s\n", r.Envelope)
	}
	if r.Packages > 0 {
		fmt.Fprintf(w, "  packages:   %d in the envelope, for the signer to re-run the Daml code\n", r.Packages)
	}
	if r.MatchesDamlCode {
		fmt.Fprintf(w, "  re-interpreted: matches the Daml code of %s\n", r.DamlCode)
	}
	if !r.MatchesNode {
		return
	}
	fmt.Fprintf(w, "  verified:   the node's hash equals the recomputed one\n")
	if r.Envelope == "" {
		fmt.Fprintf(w, "Next: save the envelope printed above to a file (or give --out FILE), then: ledger sign FILE --key KEYFILE --out SIGNED\n")
		return
	}
	fmt.Fprintf(w, "Next: ledger sign %s --key KEYFILE --out %s\n", r.Envelope, strings.TrimSuffix(r.Envelope, ".json")+".signed.json")
}

// writeCost prints prepare's traffic cost estimate.
func writeCost(w io.Writer, c *ledgerapi.CostEstimation, hints *ledgerapi.CostEstimationHints) {
	switch {
	case c != nil:
		fmt.Fprintf(w, "  cost:       %d (confirmation request %d + response %d), estimated at %s\n",
			int64(c.TotalTrafficCostEstimation), int64(c.ConfirmationRequestTrafficCostEstimation),
			int64(c.ConfirmationResponseTrafficCostEstimation), c.EstimationTimestamp)
	case hints != nil && hints.Disabled:
		fmt.Fprintf(w, "  cost:       not estimated (--no-cost-estimate)\n")
	default:
		fmt.Fprintf(w, "  cost:       the node gave no estimate (Canton before 3.4 does not)\n")
	}
}

// nodePackage is GET /v2/packages/{id}, nil for a package the node does
// not have.
func nodePackage(cl *client.Client) func(ctx context.Context, id string) ([]byte, error) {
	return func(ctx context.Context, id string) ([]byte, error) {
		b, err := cl.GetPackage(ctx, id)
		var apiErr *client.APIError
		if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusNotFound {
			return nil, nil
		}
		return b, err
	}
}
