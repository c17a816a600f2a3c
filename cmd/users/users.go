// Package users holds `ledger users`: the node's users and their rights.
package users

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/display"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// NewCmdUsers builds `ledger users` and its subcommands.
func NewCmdUsers(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "users",
		Short: "Create users and grant or revoke their rights",
		Long: `Manage the users of a node and their rights. A token names a user; the user's
rights decide what the token may do: act as a party (CanActAs), read as it
(CanReadAs), execute externally signed transactions for it (CanExecuteAs),
administer the node (ParticipantAdmin), …`,
		Example: `  ledger users create alice --primary-party "$ALICE" --act-as "$ALICE"
  ledger users grant alice --read-as "$BOB"
  ledger users update alice --deactivate
  ledger users delete alice --yes
  ledger users list`,
	}
	cmdutil.Group(cmd)
	cmd.AddCommand(NewCmdUsersCreate(f, nil), NewCmdUsersList(f, nil), NewCmdUsersGet(f, nil),
		NewCmdUsersUpdate(f, nil), NewCmdUsersDelete(f, nil),
		NewCmdUsersGrant(f, nil), NewCmdUsersRevoke(f, nil))
	return cmd
}

// UsersOptions are the inputs of the users subcommands.
type UsersOptions struct {
	IO      *cmdutil.IOStreams
	Connect func() (*cmdutil.Connection, error)
	Format  string

	UserID       string
	PrimaryParty string
	Annotations  []string
	IDP          string
	Rights       rightFlags

	// update
	PrimaryPartySet bool
	Deactivate      bool
	Activate        bool
	Set, Unset      []string
	Version         string
	// delete
	Yes bool
}

// rightFlags are the flags naming rights.
type rightFlags struct {
	ActAs, ReadAs, ExecuteAs                           []string
	Admin, IDPAdmin, ReadAsAnyParty, ExecuteAsAnyParty bool
}

func (r *rightFlags) add(fl *pflag.FlagSet) {
	fl.StringArrayVar(&r.ActAs, "act-as", nil, "CanActAs PARTY, by id or hint (repeatable)")
	fl.StringArrayVar(&r.ReadAs, "read-as", nil, "CanReadAs PARTY, by id or hint (repeatable)")
	fl.StringArrayVar(&r.ExecuteAs, "execute-as", nil, "CanExecuteAs PARTY, by id or hint (repeatable)")
	fl.BoolVar(&r.Admin, "admin", false, "ParticipantAdmin")
	fl.BoolVar(&r.IDPAdmin, "idp-admin", false, "IdentityProviderAdmin")
	fl.BoolVar(&r.ReadAsAnyParty, "read-as-any-party", false, "CanReadAsAnyParty")
	fl.BoolVar(&r.ExecuteAsAnyParty, "execute-as-any-party", false, "CanExecuteAsAnyParty")
}

func (r *rightFlags) rights() ([]ledgerapi.Right, error) {
	var out []ledgerapi.Right
	for _, g := range []struct {
		flag    string
		parties []string
		make    func(string) ledgerapi.Right
	}{{"--act-as", r.ActAs, ledgerapi.CanActAs}, {"--read-as", r.ReadAs, ledgerapi.CanReadAs}, {"--execute-as", r.ExecuteAs, ledgerapi.CanExecuteAs}} {
		if err := cmdutil.ValidateParties(g.flag, g.parties); err != nil {
			return nil, err
		}
		for _, p := range g.parties {
			out = append(out, g.make(p))
		}
	}
	for _, k := range []struct {
		on   bool
		kind ledgerapi.RightKind
	}{{r.Admin, ledgerapi.RightParticipantAdmin}, {r.IDPAdmin, ledgerapi.RightIdentityProviderAdmin},
		{r.ReadAsAnyParty, ledgerapi.RightCanReadAsAnyParty}, {r.ExecuteAsAnyParty, ledgerapi.RightCanExecuteAsAnyParty}} {
		if k.on {
			out = append(out, ledgerapi.Right{Kind: k.kind})
		}
	}
	return out, nil
}

// resolve replaces party hints by the ids of the parties the node knows
// with them (cmdutil.ResolvePartyHints).
func (r *rightFlags) resolve(conn *cmdutil.Connection, w io.Writer) error {
	var err error
	for _, g := range []struct {
		flag    string
		parties *[]string
	}{{"--act-as", &r.ActAs}, {"--read-as", &r.ReadAs}, {"--execute-as", &r.ExecuteAs}} {
		if *g.parties, err = conn.ResolvePartyHints(g.flag, *g.parties, w); err != nil {
			return err
		}
	}
	return nil
}

func usersCommand(f *cmdutil.Factory, cmd *cobra.Command, opts *UsersOptions, runF, run func(*UsersOptions) error) *cobra.Command {
	conn := cmdutil.AddConnFlags(cmd)
	cmd.RunE = func(c *cobra.Command, args []string) error {
		var err error
		if opts.Format, err = f.OutputFormat(); err != nil {
			return err
		}
		if len(args) > 0 {
			opts.UserID = args[0]
			if err := ledgerapi.ValidateUserID("USER", opts.UserID); err != nil {
				return cmdutil.UsageError("%s", err)
			}
		}
		opts.PrimaryPartySet = c.Flags().Changed("primary-party")
		opts.Connect = conn.Connect
		if runF != nil {
			return runF(opts)
		}
		return run(opts)
	}
	return cmd
}

// NewCmdUsersCreate builds `ledger users create`.
func NewCmdUsersCreate(f *cmdutil.Factory, runF func(*UsersOptions) error) *cobra.Command {
	opts := &UsersOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "create USER [--primary-party P] [--act-as P] [--read-as P] [--execute-as P] [--admin]",
		Short: "Create a user with rights",
		Long:  `Create a user (POST /v2/users) with a primary party, annotations and rights.`,
		Example: `  ledger users create alice --primary-party "$ALICE" --act-as "$ALICE"
  ledger users create wallet --execute-as "$ALICE" --read-as "$ALICE" --annotation example.com/owner=ops
  ledger users create ops --admin`,
		Args: cmdutil.ExactArgs(1),
	}
	cmd.Flags().StringVar(&opts.PrimaryParty, "primary-party", "", "the user's primary party")
	cmd.Flags().StringArrayVar(&opts.Annotations, "annotation", nil, "annotation KEY=VALUE (repeatable)")
	cmd.Flags().StringVar(&opts.IDP, "identity-provider-id", "", "identity provider of the user")
	opts.Rights.add(cmd.Flags())
	return usersCommand(f, cmd, opts, runF, usersCreateRun)
}

func usersCreateRun(opts *UsersOptions) error {
	// The rights are checked before connecting, and built once their
	// party hints are resolved.
	if _, err := opts.Rights.rights(); err != nil {
		return err
	}
	ann, err := cmdutil.ParseAnnotations(opts.Annotations, nil, false)
	if err != nil {
		return err
	}
	if opts.PrimaryParty != "" {
		if err := cmdutil.ValidateParties("--primary-party", []string{opts.PrimaryParty}); err != nil {
			return err
		}
	}
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	if err := opts.Rights.resolve(conn, opts.IO.ErrOut); err != nil {
		return err
	}
	rights, err := opts.Rights.rights()
	if err != nil {
		return err
	}
	if opts.PrimaryParty != "" {
		p, err := conn.ResolvePartyHints("--primary-party", []string{opts.PrimaryParty}, opts.IO.ErrOut)
		if err != nil {
			return err
		}
		opts.PrimaryParty = p[0]
	}
	ctx, cancel := conn.Context()
	defer cancel()
	u, err := conn.Client.CreateUser(ctx, ledgerapi.CreateUserRequest{
		User:   &ledgerapi.User{ID: opts.UserID, PrimaryParty: opts.PrimaryParty, Metadata: ledgerapi.ObjectMeta{Annotations: ann}, IdentityProviderID: opts.IDP},
		Rights: rights,
	})
	if err != nil {
		return conn.WithHint(err)
	}
	return writeUser(opts, u, rights)
}

// UserWithRights is what users get and create print with -o json|yaml.
type UserWithRights struct {
	User   ledgerapi.User                  `json:"user"`
	Rights ledgerapi.List[ledgerapi.Right] `json:"rights"`
}

func writeUser(opts *UsersOptions, u *ledgerapi.User, rights []ledgerapi.Right) error {
	if opts.Format != cmdutil.FormatTable {
		return cmdutil.WriteStructured(opts.IO.Out, opts.Format, UserWithRights{User: *u, Rights: rights})
	}
	fields := [][2]string{{"User", u.ID}}
	if u.PrimaryParty != "" {
		fields = append(fields, [2]string{"Primary party", u.PrimaryParty})
	}
	if u.IsDeactivated {
		fields = append(fields, [2]string{"Deactivated", "yes"})
	}
	if u.IdentityProviderID != "" {
		fields = append(fields, [2]string{"Identity provider", u.IdentityProviderID})
	}
	for _, k := range slices.Sorted(maps.Keys(u.Metadata.Annotations)) {
		fields = append(fields, [2]string{"Annotation", k + "=" + u.Metadata.Annotations[k]})
	}
	fields = append(fields, [2]string{"Rights", rightsText(rights)})
	return display.Fields(opts.IO.Out, fields)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func rightsText(rs []ledgerapi.Right) string {
	if len(rs) == 0 {
		return "none"
	}
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.String()
	}
	return strings.Join(out, ", ")
}

// NewCmdUsersList builds `ledger users list`.
func NewCmdUsersList(f *cmdutil.Factory, runF func(*UsersOptions) error) *cobra.Command {
	opts := &UsersOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List the node's users",
		Long:    `List every user of the node (GET /v2/users, all pages). Needs an admin token.`,
		Example: "  ledger users list\n  ledger users list -o json | jq -r '.[].id'",
		Args:    cmdutil.ExactArgs(0),
	}
	return usersCommand(f, cmd, opts, runF, usersListRun)
}

func usersListRun(opts *UsersOptions) error {
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	ctx, cancel := conn.Context()
	defer cancel()
	us, err := conn.Client.AllUsers(ctx)
	if err != nil {
		return conn.WithHint(err)
	}
	if opts.Format != cmdutil.FormatTable {
		return cmdutil.WriteStructured(opts.IO.Out, opts.Format, ledgerapi.List[ledgerapi.User](us))
	}
	rows := make([][]string, len(us))
	for i, u := range us {
		rows[i] = []string{u.ID, yesNo(!u.IsDeactivated), u.PrimaryParty}
	}
	return display.Table(opts.IO.Out, []string{"USER", "ACTIVE", "PRIMARY PARTY"}, rows)
}

// NewCmdUsersGet builds `ledger users get`.
func NewCmdUsersGet(f *cmdutil.Factory, runF func(*UsersOptions) error) *cobra.Command {
	opts := &UsersOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "get [USER]",
		Short: "Show a user and its rights (default: the token's user)",
		Long: `Show a user with its rights (GET /v2/users/{id} and …/rights). Without USER,
the user the token authenticates (GET /v2/authenticated-user, Canton 3.4+);
with no token (a node without authentication), the user of --user.`,
		Example: "  ledger users get alice\n  ledger users get            # who am I?",
		Args:    cmdutil.MaxArgs(1),
	}
	return usersCommand(f, cmd, opts, runF, usersGetRun)
}

func usersGetRun(opts *UsersOptions) error {
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	ctx, cancel := conn.Context()
	defer cancel()
	var u *ledgerapi.User
	id := opts.UserID
	if id == "" && conn.TokenKey == "" {
		// No token to ask the node about: a node without authentication
		// knows users only by the id requests name (--user).
		if id = conn.UserID; id == "" {
			return cmdutil.UsageError("no token is sent, so the node cannot tell who you are: give USER, or --user (LEDGER_USER)")
		}
	}
	if id == "" {
		u, err = conn.Client.AuthenticatedUser(ctx)
	} else {
		u, err = conn.Client.GetUser(ctx, id)
	}
	if err != nil {
		return conn.WithHint(err)
	}
	rights, err := conn.Client.ListUserRights(ctx, u.ID)
	if err != nil {
		return conn.WithHint(err)
	}
	return writeUser(opts, u, rights)
}

// NewCmdUsersGrant builds `ledger users grant`.
func NewCmdUsersGrant(f *cmdutil.Factory, runF func(*UsersOptions) error) *cobra.Command {
	opts := &UsersOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:     "grant USER (--act-as P | --read-as P | --execute-as P | --admin | …)",
		Short:   "Grant rights to a user",
		Long:    `Grant rights (POST /v2/users/{id}/rights). Rights the user has already are left as they are; the rights newly granted are printed.`,
		Example: "  ledger users grant alice --act-as \"$ALICE\"\n  ledger users grant wallet --execute-as \"$ALICE\" --read-as \"$ALICE\"",
		Args:    cmdutil.ExactArgs(1),
	}
	cmd.Flags().StringVar(&opts.IDP, "identity-provider-id", "", "identity provider of the user")
	opts.Rights.add(cmd.Flags())
	return usersCommand(f, cmd, opts, runF, func(o *UsersOptions) error { return usersRightsRun(o, true) })
}

// NewCmdUsersRevoke builds `ledger users revoke`.
func NewCmdUsersRevoke(f *cmdutil.Factory, runF func(*UsersOptions) error) *cobra.Command {
	opts := &UsersOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:     "revoke USER (--act-as P | --read-as P | --execute-as P | --admin | …)",
		Short:   "Revoke rights of a user",
		Long:    `Revoke rights (PATCH /v2/users/{id}/rights); the rights the user had and lost are printed.`,
		Example: `  ledger users revoke alice --act-as "$ALICE"`,
		Args:    cmdutil.ExactArgs(1),
	}
	cmd.Flags().StringVar(&opts.IDP, "identity-provider-id", "", "identity provider of the user")
	opts.Rights.add(cmd.Flags())
	return usersCommand(f, cmd, opts, runF, func(o *UsersOptions) error { return usersRightsRun(o, false) })
}

func usersRightsRun(opts *UsersOptions, grant bool) error {
	rights, err := opts.Rights.rights()
	if err != nil {
		return err
	}
	if len(rights) == 0 {
		return cmdutil.UsageError("no right given: use --act-as, --read-as, --execute-as, --admin, --idp-admin, --read-as-any-party or --execute-as-any-party")
	}
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	if err := opts.Rights.resolve(conn, opts.IO.ErrOut); err != nil {
		return err
	}
	if rights, err = opts.Rights.rights(); err != nil {
		return err
	}
	ctx, cancel := conn.Context()
	defer cancel()
	var changed []ledgerapi.Right
	verb := "granted"
	if grant {
		changed, err = conn.Client.GrantUserRights(ctx, opts.UserID, rights, opts.IDP)
	} else {
		verb = "revoked"
		changed, err = conn.Client.RevokeUserRights(ctx, opts.UserID, rights, opts.IDP)
	}
	if err != nil {
		return conn.WithHint(err)
	}
	if opts.Format != cmdutil.FormatTable {
		return cmdutil.WriteStructured(opts.IO.Out, opts.Format, map[string]any{verb: ledgerapi.List[ledgerapi.Right](changed)})
	}
	fmt.Fprintf(opts.IO.Out, "%s %s: %s\n", strings.ToUpper(verb[:1])+verb[1:], opts.UserID, rightsText(changed))
	return nil
}

// NewCmdUsersUpdate builds `ledger users update`.
func NewCmdUsersUpdate(f *cmdutil.Factory, runF func(*UsersOptions) error) *cobra.Command {
	opts := &UsersOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "update USER [--primary-party P] [--deactivate | --activate] [--set KEY=VALUE] [--unset KEY]",
		Short: "Change a user's primary party, annotations or whether it is active",
		Long: `Change a user (PATCH /v2/users/{id}) without writing the request by hand: the
field mask is built from the flags given, and what no flag names stays as it
is. --primary-party "" clears the primary party. --set and --unset change
single annotations; keys not mentioned are kept. A deactivated user's tokens
are refused until it is activated again.

With --resource-version the update is a compare-and-set: it is refused when
the user changed since that version.

Rights are changed with "ledger users grant" and "ledger users revoke".`,
		Example: `  ledger users update alice --primary-party "$ALICE"
  ledger users update alice --set example.com/team=payments --unset example.com/old
  ledger users update alice --deactivate`,
		Args: cmdutil.ExactArgs(1),
	}
	cmd.Flags().StringVar(&opts.PrimaryParty, "primary-party", "", "the user's primary party (\"\" clears it)")
	cmd.Flags().BoolVar(&opts.Deactivate, "deactivate", false, "deactivate the user: its tokens are refused")
	cmd.Flags().BoolVar(&opts.Activate, "activate", false, "activate a deactivated user")
	cmd.Flags().StringArrayVar(&opts.Set, "set", nil, "set annotation KEY=VALUE (repeatable)")
	cmd.Flags().StringArrayVar(&opts.Unset, "unset", nil, "remove annotation KEY (repeatable)")
	cmd.Flags().StringVar(&opts.Version, "resource-version", "", "update only if the user is at this version")
	cmd.Flags().StringVar(&opts.IDP, "identity-provider-id", "", "identity provider of the user")
	cmd.MarkFlagsMutuallyExclusive("deactivate", "activate")
	return usersCommand(f, cmd, opts, runF, usersUpdateRun)
}

func usersUpdateRun(opts *UsersOptions) error {
	u := ledgerapi.User{ID: opts.UserID, IdentityProviderID: opts.IDP, Metadata: ledgerapi.ObjectMeta{ResourceVersion: opts.Version}}
	var paths []string
	if opts.PrimaryPartySet {
		if opts.PrimaryParty != "" {
			if err := cmdutil.ValidateParties("--primary-party", []string{opts.PrimaryParty}); err != nil {
				return err
			}
		}
		u.PrimaryParty = opts.PrimaryParty
		paths = append(paths, "primary_party")
	}
	if opts.Deactivate || opts.Activate {
		u.IsDeactivated = opts.Deactivate
		paths = append(paths, "is_deactivated")
	}
	if len(opts.Set)+len(opts.Unset) > 0 {
		ann, err := cmdutil.ParseAnnotations(opts.Set, opts.Unset, true)
		if err != nil {
			return err
		}
		u.Metadata.Annotations = ann
		paths = append(paths, "metadata.annotations")
	}
	if len(paths) == 0 {
		return cmdutil.UsageError("nothing to change: give --primary-party, --deactivate, --activate, --set or --unset")
	}
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	ctx, cancel := conn.Context()
	defer cancel()
	updated, err := conn.Client.UpdateUser(ctx, ledgerapi.UpdateUserRequest{User: &u, UpdateMask: &ledgerapi.FieldMask{Paths: paths}})
	if err != nil {
		return conn.WithHint(err)
	}
	rights, err := conn.Client.ListUserRights(ctx, updated.ID)
	if err != nil {
		return conn.WithHint(err)
	}
	return writeUser(opts, updated, rights)
}

// NewCmdUsersDelete builds `ledger users delete`.
func NewCmdUsersDelete(f *cmdutil.Factory, runF func(*UsersOptions) error) *cobra.Command {
	opts := &UsersOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "delete USER [--yes]",
		Short: "Delete a user and its rights",
		Long: `Delete a user (DELETE /v2/users/{id}): its rights go with it and its tokens
are refused from then on. The user's parties are not affected.

On a terminal you are asked to confirm; --yes skips the question, and
without a terminal it is required.`,
		Example: `  ledger users delete alice
  ledger users delete alice --yes    # in a script`,
		Args: cmdutil.ExactArgs(1),
	}
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "delete without asking")
	return usersCommand(f, cmd, opts, runF, usersDeleteRun)
}

func usersDeleteRun(opts *UsersOptions) error {
	if !opts.Yes {
		if !opts.IO.IsStdinTTY() {
			return cmdutil.UsageError("deleting user %s needs --yes when standard input is not a terminal", opts.UserID)
		}
		ok, err := cmdutil.Confirm(opts.IO, fmt.Sprintf("Delete user %s and its rights? [y/N] ", opts.UserID))
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("user %s not deleted: declined at the prompt", opts.UserID)
		}
	}
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	ctx, cancel := conn.Context()
	defer cancel()
	if err := conn.Client.DeleteUser(ctx, opts.UserID); err != nil {
		return conn.WithHint(err)
	}
	if opts.Format != cmdutil.FormatTable {
		return cmdutil.WriteStructured(opts.IO.Out, opts.Format, map[string]string{"deleted": opts.UserID})
	}
	fmt.Fprintf(opts.IO.Out, "Deleted user %s\n", opts.UserID)
	return nil
}
