// Package config holds `ledger config`: the profiles of the configuration
// file (set, get, use, list), whose values stand behind the global flags.
package config

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/display"
)

// ConfigOptions are the inputs of the config subcommands.
type ConfigOptions struct {
	IO     *cmdutil.IOStreams
	Format string

	// Path is the config file (cmdutil.ConfigPath when empty).
	Path        string
	Profile     string
	Key         string
	Value       string
	Unset       bool
	ShowSecrets bool
}

// NewCmdConfig builds `ledger config` and its subcommands.
func NewCmdConfig(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Manage connection profiles (node URL, user, token source, TLS)",
		Long: `Connection settings live in named profiles in one file,
<user config dir>/ledger/config.yaml (~/.config/ledger/config.yaml on Linux;
LEDGER_CONFIG names another file). It is written with mode 0600, as it may
hold tokens.

Each setting of the commands that talk to a node is looked up in this order,
the first found wins:
  1. the flag (--url, --token, …)
  2. the environment variable LEDGER_<NAME> (LEDGER_URL, LEDGER_TOKEN_FILE, …)
  3. the profile: --profile, else LEDGER_PROFILE, else the current profile
     (ledger config use), else the profile "default"
The token comes from the method given at the highest of these levels; at one
level --token wins over --token-file, which wins over OAuth2 client credentials.

Settings: ` + strings.Join(cmdutil.ConnectionKeys, ", ") + `.`,
		Example: `  ledger config set url http://127.0.0.1:7575 --profile local
  ledger config set token-file ~/.ledger/token --profile local
  ledger config use local
  ledger config list
  LEDGER_PROFILE=prod ledger parties list`,
	}
	cmdutil.Group(cmd)
	cmd.AddCommand(newCmdConfigSet(f, nil), newCmdConfigGet(f, nil), newCmdConfigUse(f, nil), newCmdConfigList(f, nil))
	return cmd
}

func configCommand(f *cmdutil.Factory, cmd *cobra.Command, opts *ConfigOptions, runF, run func(*ConfigOptions) error) *cobra.Command {
	cmd.RunE = func(c *cobra.Command, args []string) error {
		var err error
		if opts.Format, err = f.OutputFormat(); err != nil {
			return err
		}
		if len(args) > 0 {
			opts.Key = args[0]
		}
		if len(args) > 1 {
			opts.Value = args[1]
		}
		if runF != nil {
			return runF(opts)
		}
		return run(opts)
	}
	return cmd
}

func (opts *ConfigOptions) load() (*cmdutil.ConfigFile, error) {
	p := opts.Path
	if p == "" {
		var err error
		if p, err = cmdutil.ConfigPath(); err != nil {
			return nil, err
		}
	}
	return cmdutil.LoadConfigFile(p)
}

// profileFor is --profile, else the active profile.
func (opts *ConfigOptions) profileFor(cf *cmdutil.ConfigFile) string {
	name, _ := cf.ActiveProfile(opts.Profile)
	return name
}

func newCmdConfigSet(f *cmdutil.Factory, runF func(*ConfigOptions) error) *cobra.Command {
	opts := &ConfigOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "set KEY [VALUE] [--profile NAME] [--unset]",
		Short: "Store a setting in a profile",
		Long: `Store one setting in a profile (the active one unless --profile), creating the
profile. --unset removes the setting. Settings: ` + strings.Join(cmdutil.ConnectionKeys, ", ") + `.
Prefer token-file over token: the file can be rotated without editing the profile.`,
		Example: `  ledger config set url https://participant.example:7575 --profile prod
  ledger config set oauth-token-url https://idp.example/oauth/token --profile prod
  ledger config set user --unset`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return cmdutil.UsageError("give KEY VALUE, or KEY --unset")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&opts.Profile, "profile", "", "profile to change (default: the active one)")
	cmd.Flags().BoolVar(&opts.Unset, "unset", false, "remove the setting")
	return configCommand(f, cmd, opts, runF, configSetRun)
}

func configSetRun(opts *ConfigOptions) error {
	if !cmdutil.IsConnectionKey(opts.Key) {
		return cmdutil.UsageError("unknown setting %q: use one of %s", opts.Key, strings.Join(cmdutil.ConnectionKeys, ", "))
	}
	if opts.Unset == (opts.Value != "") {
		return cmdutil.UsageError("give a VALUE, or --unset (not both)")
	}
	if !opts.Unset {
		if err := cmdutil.ValidateSetting(opts.Key, opts.Value); err != nil {
			return cmdutil.UsageError("%s; nothing was saved", err)
		}
	}
	cf, err := opts.load()
	if err != nil {
		return err
	}
	name := opts.profileFor(cf)
	if opts.Unset {
		cf.Unset(name, opts.Key)
	} else {
		cf.Set(name, opts.Key, opts.Value)
	}
	if err := cf.Save(); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "profile %s: %s %s (%s)\n", name, opts.Key, map[bool]string{true: "removed", false: "set"}[opts.Unset], cf.Path())
	return nil
}

func newCmdConfigGet(f *cmdutil.Factory, runF func(*ConfigOptions) error) *cobra.Command {
	opts := &ConfigOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "get KEY [--profile NAME]",
		Short: "Print a setting of a profile",
		Long: `Print one setting stored in a profile (the active one unless --profile).
Exit status 1 when the profile does not set it.`,
		Example: "  ledger config get url\n  ledger config get url --profile prod",
		Args:    cmdutil.ExactArgs(1),
	}
	cmd.Flags().StringVar(&opts.Profile, "profile", "", "profile to read (default: the active one)")
	return configCommand(f, cmd, opts, runF, configGetRun)
}

func configGetRun(opts *ConfigOptions) error {
	if !cmdutil.IsConnectionKey(opts.Key) {
		return cmdutil.UsageError("unknown setting %q: use one of %s", opts.Key, strings.Join(cmdutil.ConnectionKeys, ", "))
	}
	cf, err := opts.load()
	if err != nil {
		return err
	}
	name := opts.profileFor(cf)
	v, ok := cf.Profile(name)[opts.Key]
	if !ok {
		return fmt.Errorf("profile %s does not set %s", name, opts.Key)
	}
	fmt.Fprintln(opts.IO.Out, v)
	return nil
}

func newCmdConfigUse(f *cmdutil.Factory, runF func(*ConfigOptions) error) *cobra.Command {
	opts := &ConfigOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:     "use PROFILE",
		Short:   "Make a profile the current one",
		Long:    `Make PROFILE the profile used when neither --profile nor LEDGER_PROFILE names one.`,
		Example: "  ledger config use prod",
		Args:    cmdutil.ExactArgs(1),
	}
	return configCommand(f, cmd, opts, runF, configUseRun)
}

func configUseRun(opts *ConfigOptions) error {
	cf, err := opts.load()
	if err != nil {
		return err
	}
	if cf.Profile(opts.Key) == nil {
		return fmt.Errorf("no profile %q in %s: create it with ledger config set --profile %s url URL", opts.Key, cf.Path(), opts.Key)
	}
	cf.CurrentProfile = opts.Key
	if err := cf.Save(); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "current profile: %s\n", opts.Key)
	return nil
}

func newCmdConfigList(f *cmdutil.Factory, runF func(*ConfigOptions) error) *cobra.Command {
	opts := &ConfigOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the profiles and their settings",
		Long: `List every profile with its settings; the active one is marked with *.
Tokens are shown masked unless --show-secrets.`,
		Example: "  ledger config list\n  ledger config list -o json",
		Args:    cmdutil.ExactArgs(0),
	}
	cmd.Flags().BoolVar(&opts.ShowSecrets, "show-secrets", false, "print tokens in full")
	return configCommand(f, cmd, opts, runF, configListRun)
}

// ProfileListing is one profile in config list -o json|yaml.
type ProfileListing struct {
	Name     string            `json:"name"`
	Active   bool              `json:"active"`
	Settings map[string]string `json:"settings"`
}

func configListRun(opts *ConfigOptions) error {
	cf, err := opts.load()
	if err != nil {
		return err
	}
	active, _ := cf.ActiveProfile("")
	var out []ProfileListing
	for _, name := range cf.ProfileNames() {
		p := ProfileListing{Name: name, Active: name == active, Settings: map[string]string{}}
		for k, v := range cf.Profile(name) {
			if cmdutil.IsSecretKey(k) && !opts.ShowSecrets {
				v = mask(v)
			}
			p.Settings[k] = v
		}
		out = append(out, p)
	}
	if opts.Format != cmdutil.FormatTable {
		if out == nil {
			out = []ProfileListing{}
		}
		return cmdutil.WriteStructured(opts.IO.Out, opts.Format, out)
	}
	w := opts.IO.Out
	if len(out) == 0 {
		fmt.Fprintf(w, "no profiles in %s (create one: ledger config set url URL --profile NAME)\n", cf.Path())
		return nil
	}
	var rows [][]string
	for _, p := range out {
		name := "  " + p.Name
		if p.Active {
			name = "* " + p.Name
		}
		for _, k := range cmdutil.ConnectionKeys {
			if v, ok := p.Settings[k]; ok {
				rows = append(rows, []string{name, k, v})
				name = ""
			}
		}
		if name != "" {
			rows = append(rows, []string{name, "", ""})
		}
	}
	if err := display.Table(w, []string{"  PROFILE", "SETTING", "VALUE"}, rows); err != nil {
		return err
	}
	if env := os.Getenv("LEDGER_PROFILE"); env != "" {
		fmt.Fprintf(w, "(LEDGER_PROFILE=%s overrides the current profile)\n", env)
	}
	return nil
}

// mask shows the first and last characters of a secret.
func mask(s string) string {
	if len(s) <= 8 {
		return "****"
	}
	return s[:4] + "…" + s[len(s)-4:]
}
