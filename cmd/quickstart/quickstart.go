// Package quickstart holds `ledger quickstart`: a node started in this
// process (serve.Start) and a walk-through of ledger's commands against it,
// each printed as a user would type it and run through the root command.
package quickstart

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/cmd/serve"
	"github.com/ledger-cli/ledger/node/local"
	"github.com/ledger-cli/ledger/server"
)

// Options are the inputs of `ledger quickstart`.
type Options struct {
	IO  *cmdutil.IOStreams
	Now func() time.Time
	// Root builds the command tree each step runs in, as the binary does
	// (cmd.NewCmdRoot, which registers quickstart itself).
	Root func(*cmdutil.Factory) *cobra.Command

	// Dir keeps the node's database, the key and the envelopes; "" means a
	// temporary directory removed at the end.
	Dir string

	// Token runs the token demo instead: the DARs of my-exercise-app (from
	// Dars, see cmdutil.FindTokenDars), a token moved between two external parties.
	Token bool
	Dars  string
	// Format "json" writes the token demo's outcome to Out as one object,
	// and the walk-through to ErrOut.
	Format string
}

// NewCmdQuickstart builds `ledger quickstart`.
func NewCmdQuickstart(f *cmdutil.Factory, root func(*cmdutil.Factory) *cobra.Command, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: f.IO, Now: f.Now, Root: root}
	cmd := &cobra.Command{
		Use:   "quickstart",
		Short: "Walk through the whole flow on a local node, printing each command",
		Long: `Start a local participant node in this process, on a fresh database, and walk
through what ledger does, one step at a time:

  a key, an external party onboarded with it, a transaction prepared on the
  node, its hash recomputed here, the transaction rendered for review,
  signed offline, executed, its completion, a party update, and a
  submit-and-wait with its transaction tree.

Before each step it prints the standalone command that does the same, so
you can repeat any step by hand (against this node while it runs, or
against a real Canton node). Nothing leaves this machine: the node listens
on 127.0.0.1 only.

With --token it walks through a token of the token standard instead: it
uploads my-exercise-app.dar (a small token implementing the Holding,
TransferFactory and TransferInstruction interfaces, whose packages its DAR
carries; the splice-api-token-* DARs beside it are uploaded first when
present; not part of this repository: --dars DIR, else $LEDGER_DARS, else
./dars or ../shared/dars beside the working directory or the binary), creates the token's factory
and a holding, and moves part of it between two external parties: prepared
through TransferFactory, signed offline by the sender, executed, then
settled by the token's admin through TransferInstruction, with the holdings
shown before and after. -o json writes the parties, contract ids, the
signed hash and the holdings as one object for scripts; the walk-through
then goes to standard error.`,
		Example: `  ledger quickstart
  ledger quickstart --dir ./demo    # keep the database, key and envelopes
  ledger quickstart --token --dars ../shared/dars
  ledger quickstart --token -o json > token-demo.json`,
		Args: cmdutil.ExactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.Format, err = f.OutputFormat(); err != nil {
				return err
			}
			if opts.Format != cmdutil.FormatTable && !opts.Token {
				return cmdutil.UsageError("-o %s is for the token demo (--token); the walk-through itself is text", opts.Format)
			}
			if cmd.Flags().Changed("dars") && !opts.Token {
				return cmdutil.UsageError("--dars is for the token demo: add --token")
			}
			if runF != nil {
				return runF(opts)
			}
			return quickstartRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Dir, "dir", "", "keep the node's database, the key and the envelopes in this directory (created if missing; a rerun starts over)")
	cmd.Flags().BoolVar(&opts.Token, "token", false, "walk through a token-standard transfer between two external parties instead")
	cmd.Flags().StringVar(&opts.Dars, "dars", "", "folder of my-exercise-app.dar (and optionally the splice-api-token-* DARs) (default: $"+cmdutil.DarsEnv+", else ./dars or ../shared/dars)")
	return cmd
}

// structured says whether -o asks for a structure rather than text.
func (opts *Options) structured() bool {
	return opts.Format != "" && opts.Format != cmdutil.FormatTable
}

// quickstart holds the state of one walk-through.
type quickstart struct {
	opts  *Options
	out   io.Writer
	step  int
	start time.Time
	// vars maps values to the shell variables the printed commands use
	// instead, e.g. a party id to $ALICE.
	vars map[string]string
}

// The environment of the walk-through: the commands find the node through
// LEDGER_URL and LEDGER_USER, as a user would export them, and nothing of
// the user's own configuration leaks in.
var quickstartEnv = []string{"LEDGER_URL", "LEDGER_USER", "LEDGER_CONFIG", "LEDGER_PROFILE", "LEDGER_TOKEN", "LEDGER_TOKEN_FILE", "LEDGER_KEY_PASSPHRASE", "LEDGER_OUTPUT"}

func quickstartRun(ctx context.Context, opts *Options) (err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	q := &quickstart{opts: opts, out: opts.IO.Out, start: time.Now(), vars: map[string]string{}}
	var dars []string
	if opts.Token {
		// Found before anything starts, and before the walk-through changes
		// into its directory.
		if dars, err = cmdutil.FindTokenDars(opts.Dars); err != nil {
			return err
		}
		if opts.structured() {
			q.out = opts.IO.ErrOut
		}
	}
	dir := opts.Dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "ledger-quickstart-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	} else if dir, err = q.keepDir(dir); err != nil {
		return err
	}
	restoreDir, err := chdir(dir)
	if err != nil {
		return err
	}
	defer restoreDir()
	restoreEnv := saveEnv(quickstartEnv)
	defer restoreEnv()

	q.heading("start a local participant node")
	q.command("serve", "--db", "ledger.db", "--addr", "127.0.0.1:0", "&")
	node, err := serve.Start(ctx, serve.Setup{Config: local.Config{DBPath: filepath.Join(dir, "ledger.db")}, Server: server.Config{Addr: "127.0.0.1:0"}})
	if err != nil {
		return fmt.Errorf("starting the node: %w", err)
	}
	defer node.Close()
	q.say("listening on %s (no authentication: the node's wildcard mode)", node.URL())
	q.say("every command below finds it through two environment variables:")
	fmt.Fprintf(q.out, "  $ export LEDGER_URL=%s LEDGER_USER=participant_admin\n", node.URL())
	os.Setenv("LEDGER_URL", node.URL())
	os.Setenv("LEDGER_USER", "participant_admin")
	os.Setenv("LEDGER_CONFIG", filepath.Join(dir, "config.yaml"))

	if opts.Token {
		return q.tokenDemo(dars)
	}

	passphrase := make([]byte, 16)
	if _, err := rand.Read(passphrase); err != nil {
		return err
	}
	if err := os.WriteFile("passphrase.txt", []byte(hex.EncodeToString(passphrase)+"\n"), 0o600); err != nil {
		return err
	}

	if _, err := q.run("create an ed25519 key, encrypted with the passphrase in passphrase.txt",
		"keys", "generate", "--out", "alice.key", "--passphrase-file", "passphrase.txt"); err != nil {
		return err
	}

	out, err := q.run("onboard an external party for that key: the node proposes the topology, we check and sign it",
		"parties", "allocate-external", "--key", "alice.key", "--passphrase-file", "passphrase.txt", "--hint", "Alice", "--yes")
	if err != nil {
		return err
	}
	alice, err := findParty(out, "Alice")
	if err != nil {
		return err
	}
	q.assign("ALICE", alice)

	if err := q.writeFile("iou.json", fmt.Sprintf(`{"issuer": %q, "owner": %q, "amount": 100.00, "currency": "EUR"}`, alice, alice)); err != nil {
		return err
	}
	if _, err := q.run("prepare a transaction on the node: create an Iou as Alice, under hashing scheme V3",
		"prepare", "--act-as", alice, "--create", "#quickstart:Iou:Iou", "--args", "@iou.json",
		"--command-id", "quickstart-iou-1", "--scheme", "v3", "--max-record-time", "10m", "--out", "tx.json"); err != nil {
		return err
	}
	if _, err := q.run("recompute the hash locally, without trusting the node", "verify", "tx.json"); err != nil {
		return err
	}
	if _, err := q.run("review what the transaction does (this is what the signer sees)", "show", "tx.json"); err != nil {
		return err
	}
	if _, err := q.run("sign offline: this step needs no network; --yes stands in for the confirmation prompt",
		"sign", "tx.json", "--key", "alice.key", "--passphrase-file", "passphrase.txt", "--yes", "--out", "tx.signed.json"); err != nil {
		return err
	}
	if _, err := q.run("execute the signed transaction and wait for the outcome", "execute", "tx.signed.json", "--wait"); err != nil {
		return err
	}
	if _, err := q.run("read the command's completion", "completions", "--party", alice, "--until-command-id", "quickstart-iou-1"); err != nil {
		return err
	}
	if _, err := q.run("annotate the party (compare-and-set on its resource version)",
		"parties", "update", alice, "--set", "example.com/desk=fx"); err != nil {
		return err
	}

	out, err = q.run("allocate a local party, hosted and signed for by the node", "parties", "allocate", "Bank")
	if err != nil {
		return err
	}
	bank, err := findParty(out, "Bank")
	if err != nil {
		return err
	}
	q.assign("BANK", bank)
	if err := q.writeFile("bank-iou.json", fmt.Sprintf(`{"issuer": %q, "owner": %q, "amount": 5.00, "currency": "EUR"}`, bank, alice)); err != nil {
		return err
	}
	if _, err := q.run("submit a command as the local party and wait for its transaction tree",
		"submit", "--act-as", bank, "--create", "#quickstart:Iou:Iou", "--args", "@bank-iou.json"); err != nil {
		return err
	}

	q.done()
	return nil
}

// done closes a walk-through: how long it took and where its files are.
func (q *quickstart) done() {
	opts := q.opts
	fmt.Fprintf(q.out, "\nDone: %d steps in %s.\n", q.step, time.Since(q.start).Round(10*time.Millisecond))
	if opts.Dir != "" {
		fmt.Fprintf(q.out, "The database, key and envelopes are in %s; \"ledger serve --db %s\" reopens the node.\n",
			opts.Dir, filepath.Join(opts.Dir, "ledger.db"))
	} else {
		fmt.Fprintln(q.out, "The node and its files are gone; run with --dir DIR to keep them.")
	}
	fmt.Fprintln(q.out, "Against a real Canton node, set LEDGER_URL and a token (ledger config set --help), and run the same commands.")
}

// quickstartMarker marks a directory quickstart keeps its files in, so
// that a rerun may replace them and nothing else.
const quickstartMarker = ".ledger-quickstart"

// quickstartFiles are the files a walk-through writes, besides the
// database and its companions (ledger.db*).
var quickstartFiles = []string{"passphrase.txt", "alice.key", "iou.json", "tx.json", "tx.signed.json", "bank-iou.json", "config.yaml",
	"bob.key", "factory.json", "mint.json", "transfer.json", "transfer-tx.json", "transfer-tx.signed.json", "update.json"}

// keepDir makes dir ready for a walk-through whose files stay: created if
// missing, made absolute (the walk-through changes into it), and, when an
// earlier walk-through left its files there, emptied of them so the rerun
// starts over. A directory with other files is refused: nothing of the
// user's is overwritten.
func (q *quickstart) keepDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("--dir %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return "", fmt.Errorf("--dir: %w", err)
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return "", fmt.Errorf("--dir: %w", err)
	}
	marker := filepath.Join(abs, quickstartMarker)
	if _, err := os.Stat(marker); err == nil {
		db, _ := filepath.Glob(filepath.Join(abs, "ledger.db*"))
		for _, f := range quickstartFiles {
			db = append(db, filepath.Join(abs, f))
		}
		for _, f := range db {
			if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return "", fmt.Errorf("--dir: removing the previous walk-through's %s: %w", f, err)
			}
		}
		fmt.Fprintf(q.out, "Starting over in %s: the previous walk-through's files are removed.\n", dir)
	} else if len(entries) > 0 {
		return "", cmdutil.UsageError("--dir %s holds files quickstart did not make: give a new or empty directory", dir)
	}
	if err := os.WriteFile(marker, []byte("ledger quickstart keeps its files here; a rerun replaces them.\n"), 0o600); err != nil {
		return "", fmt.Errorf("--dir: %w", err)
	}
	return abs, nil
}

// run prints the command for args, then runs it in this process.
func (q *quickstart) run(title string, args ...string) (string, error) {
	q.heading(title)
	return q.exec(true, args...)
}

// exec prints the command for args and runs it in this process; its
// standard output is shown when show is set, and returned.
func (q *quickstart) exec(show bool, args ...string) (string, error) {
	q.command(args...)
	var captured bytes.Buffer
	var out io.Writer = &captured
	if show {
		out = io.MultiWriter(&indenter{w: q.out}, &captured)
	}
	ios := &cmdutil.IOStreams{
		In:     strings.NewReader(""),
		Out:    out,
		ErrOut: &indenter{w: q.out},
	}
	ios.SetColorEnabled(q.opts.IO.ColorEnabled())
	f := &cmdutil.Factory{IO: ios, Config: viper.New(), Now: q.opts.Now}
	root := q.opts.Root(f)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		return "", fmt.Errorf("quickstart step %d (ledger %s) failed: %w", q.step, args[0], err)
	}
	return captured.String(), nil
}

func (q *quickstart) heading(title string) {
	q.step++
	fmt.Fprintf(q.out, "\n── %d. %s\n", q.step, title)
}

func (q *quickstart) command(args ...string) {
	quoted := make([]string, len(args))
next:
	for i, a := range args {
		if name, ok := q.vars[a]; ok {
			quoted[i] = `"$` + name + `"`
			continue
		}
		for value, name := range q.vars {
			// A path in an assigned folder: "$DARS"/my-exercise-app.dar.
			if rest, ok := strings.CutPrefix(a, value+string(filepath.Separator)); ok && value != "" {
				quoted[i] = `"$` + name + `"/` + cmdutil.ShellQuote(rest)
				continue next
			}
		}
		quoted[i] = cmdutil.ShellQuote(a)
	}
	fmt.Fprintf(q.out, "  $ ledger %s\n", strings.Join(quoted, " "))
}

// assign prints a shell assignment and makes later commands print the
// variable instead of the value.
func (q *quickstart) assign(name, value string) {
	q.vars[value] = name
	fmt.Fprintf(q.out, "  $ %s=%s\n", name, value)
}

// writeFile writes a command's input file and shows it, with the values of
// assigned variables written as such.
func (q *quickstart) writeFile(name, content string) error {
	shown := content
	for value, v := range q.vars {
		shown = strings.ReplaceAll(shown, value, "$"+v)
	}
	fmt.Fprintf(q.out, "  %s: %s\n", name, shown)
	return os.WriteFile(name, []byte(content+"\n"), 0o600)
}

func (q *quickstart) say(format string, args ...any) {
	fmt.Fprintf(q.out, "  "+format+"\n", args...)
}

// findParty picks the party id with the given hint out of a command's output.
func findParty(out, hint string) (string, error) {
	m := regexp.MustCompile(regexp.QuoteMeta(hint) + `::1220[0-9a-f]{64}`).FindString(out)
	if m == "" {
		return "", fmt.Errorf("quickstart: no %s::1220… party id in the output", hint)
	}
	return m, nil
}

// indenter indents every line written through it by four spaces, so a
// step's output sits under its command.
type indenter struct {
	w       io.Writer
	midLine bool
}

func (d *indenter) Write(p []byte) (int, error) {
	var b bytes.Buffer
	for _, c := range p {
		if !d.midLine {
			b.WriteString("    ")
		}
		b.WriteByte(c)
		d.midLine = c != '\n'
	}
	if _, err := d.w.Write(b.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

func chdir(dir string) (restore func(), err error) {
	old, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	if err := os.Chdir(dir); err != nil {
		return nil, err
	}
	return func() { _ = os.Chdir(old) }, nil
}

// saveEnv unsets names and returns a function that puts them back.
func saveEnv(names []string) (restore func()) {
	saved := map[string]string{}
	for _, n := range names {
		if v, ok := os.LookupEnv(n); ok {
			saved[n] = v
		}
		os.Unsetenv(n)
	}
	return func() {
		for _, n := range names {
			if v, ok := saved[n]; ok {
				os.Setenv(n, v)
			} else {
				os.Unsetenv(n)
			}
		}
	}
}
