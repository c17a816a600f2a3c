package cmd

// The flags that describe a submission — its one command (create, exercise,
// …), parties, times, disclosed contracts — shared by prepare and submit.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/cmd/typecheck"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/wallet"
)

// commandFlags are the flags that describe the one command of a prepare
// or submit.
type commandFlags struct {
	Create, Exercise, CreateAndExercise, ExerciseByKey string
	Args, ContractID, Choice, Arg, Key                 string
	CommandsFile                                       string
	// --dar and --check-types (cmd/typecheck)
	typecheck.Flags
}

func addCommandFlags(fl *pflag.FlagSet, c *commandFlags) {
	fl.StringVar(&c.Create, "create", "", "create a contract of TEMPLATE (with --args)")
	fl.StringVar(&c.Exercise, "exercise", "", "exercise a choice on a contract of TEMPLATE or interface (with --contract-id, --choice)")
	fl.StringVar(&c.CreateAndExercise, "create-and-exercise", "", "create a contract of TEMPLATE and exercise a choice on it (with --args, --choice)")
	fl.StringVar(&c.ExerciseByKey, "exercise-by-key", "", "exercise a choice on the contract of TEMPLATE with --key")
	fl.StringVar(&c.Args, "args", "", "create arguments: a Daml record as JSON, or @FILE")
	fl.StringVar(&c.ContractID, "contract-id", "", "contract to exercise the choice on")
	fl.StringVar(&c.Choice, "choice", "", "choice name")
	fl.StringVar(&c.Arg, "arg", "", "choice argument as JSON, or @FILE (default {})")
	fl.StringVar(&c.Key, "key", "", "contract key as JSON, or @FILE (with --exercise-by-key)")
	fl.StringVar(&c.CommandsFile, "commands", "", "the commands as the JSON API writes them: @FILE holding a JSON array (or one command)")
	c.AddFlags(fl)
}

// checkTypes refuses cmds that do not fit the types of --dar's packages,
// or with --check-types of the node's (typecheck.Flags.Check).
func (c *commandFlags) checkTypes(cl *client.Client, cmds []ledgerapi.Command, actAs, preference []string) error {
	return c.Check(cl, cmds, actAs, preference)
}

// noteGeneric notes on w the commands the node's generic contract model
// served, as the headers h of its answer say (typecheck.NoteGeneric).
func noteGeneric(h http.Header, cmds []ledgerapi.Command, w io.Writer) {
	typecheck.NoteGeneric(h, cmds, w)
}

// build turns the flags into commands.
func (c *commandFlags) build(stdin io.Reader) ([]ledgerapi.Command, error) {
	var given []string
	for name, v := range map[string]string{"--create": c.Create, "--exercise": c.Exercise, "--create-and-exercise": c.CreateAndExercise,
		"--exercise-by-key": c.ExerciseByKey, "--commands": c.CommandsFile} {
		if v != "" {
			given = append(given, name)
		}
	}
	if len(given) == 0 {
		return nil, cmdutil.UsageError("no command: give --create, --exercise, --create-and-exercise, --exercise-by-key or --commands")
	}
	if len(given) > 1 {
		return nil, cmdutil.UsageError("give one of --create, --exercise, --create-and-exercise, --exercise-by-key, --commands (got several)")
	}
	if c.CommandsFile != "" {
		return readCommandsFile(c.CommandsFile, stdin)
	}
	template := c.Create + c.Exercise + c.CreateAndExercise + c.ExerciseByKey
	tid, err := ledgerapi.ParseTemplateID(template)
	if err != nil {
		return nil, cmdutil.UsageError("template %q: %s (write #package-name:Module:Entity or packageId:Module:Entity)", template, err)
	}
	// A package name without its # reads as a package id the node never
	// saw, and the generic contract model would take the command.
	if !tid.ByName() && !cmdutil.IsPackageID(tid.PackageID) {
		return nil, cmdutil.UsageError("template %q: %q is neither a package id (64 hex digits) nor a package name (write #%s:%s:%s)",
			template, tid.PackageID, tid.PackageID, tid.Module, tid.Entity)
	}
	// --args (create arguments) and --arg (choice argument) differ by one
	// letter; the one a command does not take is refused, not ignored.
	if c.Args != "" && (c.Exercise != "" || c.ExerciseByKey != "") {
		return nil, cmdutil.UsageError("--args is the create arguments; %s takes the choice argument as --arg", given[0])
	}
	if c.Arg != "" && c.Create != "" {
		return nil, cmdutil.UsageError("--arg is a choice argument; --create takes the contract's fields as --args")
	}
	choiceArg := func() (json.RawMessage, error) {
		if c.Choice == "" {
			return nil, cmdutil.UsageError("--choice is required with %s", given[0])
		}
		if c.Arg == "" {
			return json.RawMessage(`{}`), nil
		}
		return readJSONArg("--arg", c.Arg, stdin)
	}
	createArgs := func() (json.RawMessage, error) {
		if c.Args == "" {
			return nil, cmdutil.UsageError("--args is required with %s: the contract's fields as JSON, or @FILE", given[0])
		}
		return readJSONArg("--args", c.Args, stdin)
	}
	var cmd ledgerapi.Command
	switch {
	case c.Create != "":
		args, err := createArgs()
		if err != nil {
			return nil, err
		}
		cmd.Create = &ledgerapi.CreateCommand{TemplateID: template, CreateArguments: args}
	case c.Exercise != "":
		if c.ContractID == "" {
			return nil, cmdutil.UsageError("--contract-id is required with --exercise")
		}
		arg, err := choiceArg()
		if err != nil {
			return nil, err
		}
		cmd.Exercise = &ledgerapi.ExerciseCommand{TemplateID: template, ContractID: c.ContractID, Choice: c.Choice, ChoiceArgument: arg}
	case c.CreateAndExercise != "":
		args, err := createArgs()
		if err != nil {
			return nil, err
		}
		arg, err := choiceArg()
		if err != nil {
			return nil, err
		}
		cmd.CreateAndExercise = &ledgerapi.CreateAndExerciseCommand{TemplateID: template, CreateArguments: args, Choice: c.Choice, ChoiceArgument: arg}
	case c.ExerciseByKey != "":
		if c.Key == "" {
			return nil, cmdutil.UsageError("--key is required with --exercise-by-key")
		}
		key, err := readJSONArg("--key", c.Key, stdin)
		if err != nil {
			return nil, err
		}
		arg, err := choiceArg()
		if err != nil {
			return nil, err
		}
		cmd.ExerciseByKey = &ledgerapi.ExerciseByKeyCommand{TemplateID: template, ContractKey: key, Choice: c.Choice, ChoiceArgument: arg}
	}
	return []ledgerapi.Command{cmd}, nil
}

// readJSONArg reads a flag's JSON value: literal JSON, @FILE or @- (stdin).
func readJSONArg(flag, v string, stdin io.Reader) (json.RawMessage, error) {
	b := []byte(v)
	if strings.HasPrefix(v, "@") {
		var err error
		if b, err = readAt(flag, v[1:], stdin); err != nil {
			return nil, err
		}
	}
	b = bytes.TrimSpace(b)
	if !json.Valid(b) {
		return nil, cmdutil.UsageError("%s: not valid JSON (write the value as JSON, or @FILE)", flag)
	}
	return json.RawMessage(b), nil
}

func readAt(flag, path string, stdin io.Reader) ([]byte, error) {
	if path == "-" {
		b, err := io.ReadAll(io.LimitReader(stdin, wallet.MaxEnvelopeSize))
		if err != nil {
			return nil, fmt.Errorf("%s: reading standard input: %w", flag, err)
		}
		return b, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return b, nil
}

// readCommandsFile reads --commands: a JSON array of commands, one command,
// or an object with a "commands" array (a JsCommands body).
func readCommandsFile(v string, stdin io.Reader) ([]ledgerapi.Command, error) {
	raw, err := readJSONArg("--commands", "@"+strings.TrimPrefix(v, "@"), stdin)
	if err != nil {
		return nil, err
	}
	var cmds []ledgerapi.Command
	switch {
	case bytes.HasPrefix(raw, []byte("[")):
		err = json.Unmarshal(raw, &cmds)
	default:
		var wrapper struct {
			Commands []ledgerapi.Command `json:"commands"`
		}
		if err = json.Unmarshal(raw, &wrapper); err == nil && wrapper.Commands != nil {
			cmds = wrapper.Commands
		} else {
			var one ledgerapi.Command
			if err = json.Unmarshal(raw, &one); err == nil {
				cmds = []ledgerapi.Command{one}
			}
		}
	}
	if err != nil {
		return nil, cmdutil.UsageError("--commands %s: %s", v, err)
	}
	if len(cmds) == 0 {
		return nil, cmdutil.UsageError("--commands %s: no command in it", v)
	}
	for i, c := range cmds {
		if c.Kind() == "" {
			return nil, cmdutil.UsageError("--commands %s: element %d is not a command ({\"CreateCommand\":{…}}, {\"ExerciseCommand\":{…}}, …)", v, i)
		}
	}
	return cmds, nil
}

func parseDisclosed(v string, stdin io.Reader) ([]ledgerapi.DisclosedContract, error) {
	if v == "" {
		return nil, nil
	}
	raw, err := readJSONArg("--disclosed", v, stdin)
	if err != nil {
		return nil, err
	}
	var out []ledgerapi.DisclosedContract
	if bytes.HasPrefix(raw, []byte("{")) {
		var one ledgerapi.DisclosedContract
		err = json.Unmarshal(raw, &one)
		out = append(out, one)
	} else {
		err = json.Unmarshal(raw, &out)
	}
	if err != nil {
		return nil, cmdutil.UsageError("--disclosed: %s", err)
	}
	for i, d := range out {
		if len(d.CreatedEventBlob) == 0 {
			return nil, cmdutil.UsageError("--disclosed: contract %d has no createdEventBlob", i)
		}
	}
	return out, nil
}

func parsePrefetchKeys(vals []string, stdin io.Reader) ([]ledgerapi.PrefetchContractKey, error) {
	var out []ledgerapi.PrefetchContractKey
	for _, v := range vals {
		raw, err := readJSONArg("--prefetch-key", v, stdin)
		if err != nil {
			return nil, err
		}
		var k ledgerapi.PrefetchContractKey
		if err := json.Unmarshal(raw, &k); err != nil || k.TemplateID == "" || len(k.ContractKey) == 0 {
			return nil, cmdutil.UsageError(`--prefetch-key: want {"templateId":"…","contractKey":…}`)
		}
		out = append(out, k)
	}
	return out, nil
}

// parseTimeOrDuration reads an RFC 3339 time or a duration from now.
func parseTimeOrDuration(flag, v string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(v); err == nil {
		return now.Add(d), nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, cmdutil.UsageError("%s %q: give a duration from now (10m, 1h30m) or an RFC 3339 time (2026-07-24T12:00:00Z)", flag, v)
	}
	return t, nil
}

func parseMinLedgerTime(v string, now time.Time) (*ledgerapi.MinLedgerTime, error) {
	if v == "" {
		return nil, nil
	}
	if d, err := time.ParseDuration(v); err == nil {
		if d < 0 {
			return nil, cmdutil.UsageError("--min-ledger-time: a relative time must not be negative")
		}
		rel := ledgerapi.DurationOf(d)
		return &ledgerapi.MinLedgerTime{Rel: &rel}, nil
	}
	t, err := parseTimeOrDuration("--min-ledger-time", v, now)
	if err != nil {
		return nil, err
	}
	return &ledgerapi.MinLedgerTime{Abs: ledgerapi.TimestampPtr(t)}, nil
}

func parseSigningAlgorithm(s string) (ledgerapi.SigningAlgorithmSpec, error) {
	switch strings.ToLower(strings.TrimPrefix(strings.ToUpper(s), "SIGNING_ALGORITHM_SPEC_")) {
	case "ed25519":
		return ledgerapi.SigningAlgorithmSpecEd25519, nil
	case "ecdsa-sha256", "ec_dsa_sha_256":
		return ledgerapi.SigningAlgorithmSpecECDSASHA256, nil
	case "ecdsa-sha384", "ec_dsa_sha_384":
		return ledgerapi.SigningAlgorithmSpecECDSASHA384, nil
	}
	return "", cmdutil.UsageError("--expected-signatures %q: use ed25519, ecdsa-sha256 or ecdsa-sha384", s)
}

// ptrIf returns &s, or nil for "".
func ptrIf(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
