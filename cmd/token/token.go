// Package token holds `ledger token`: it mints the HS256 token a `ledger serve
// --auth hs256` node accepts, with server/auth's rules.
package token

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/server/auth"
)

// Options are the inputs of `ledger token`.
type Options struct {
	IO     *cmdutil.IOStreams
	Now    func() time.Time
	Format string

	SecretFile    string
	User          string
	TTL           time.Duration
	ParticipantID string
	Audience      string
}

// NewCmdToken builds `ledger token`.
func NewCmdToken(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: f.IO, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "token --secret-file FILE --user USER",
		Short: "Mint an HS256 user token for a local node",
		Long: `Mint a JWT user token signed with HS256, for a node started with
"ledger serve --auth hs256 --auth-secret-file FILE" (or any Canton
participant using unsafe-jwt-hmac-256 with the same secret).

The token names the user in "sub", expires after --ttl, and has the audience
https://daml.com/jwt/aud/participant/<participant id>, or --audience as given.
A trailing line break in the secret file is not part of the secret.

Only the token is printed, on one line, so that it can be captured in a
shell variable. Treat it like a password: anyone holding it acts as the user
until it expires.`,
		Example: `  # a token for the bootstrap admin, valid one hour
  ledger token --secret-file secret.txt --user participant_admin

  # call the node with it
  TOKEN=$(ledger token --secret-file secret.txt --user alice --ttl 15m)
  curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:7575/v2/authenticated-user

  # for a node started with --participant-id, or with a target audience
  ledger token --secret-file secret.txt --user alice --participant-id participant2
  ledger token --secret-file secret.txt --user alice --audience https://ledger.example/api`,
		Args: cmdutil.ExactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case opts.SecretFile == "":
				return cmdutil.UsageError("--secret-file is required: the file holding the HMAC secret the node verifies with")
			case opts.User == "":
				return cmdutil.UsageError("--user is required: the user id the token is for")
			case opts.TTL <= 0:
				return cmdutil.UsageError("--ttl must be positive, e.g. 1h or 15m")
			case opts.Audience == "" && opts.ParticipantID == "":
				return cmdutil.UsageError("--participant-id must not be empty (or give --audience)")
			}
			var err error
			if opts.Format, err = f.OutputFormat(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return tokenRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.SecretFile, "secret-file", "", "file holding the HMAC secret (required)")
	cmd.Flags().StringVar(&opts.User, "user", "", "user id to put in the token's sub (required)")
	cmd.Flags().DurationVar(&opts.TTL, "ttl", time.Hour, "how long the token is valid")
	cmd.Flags().StringVar(&opts.ParticipantID, "participant-id", auth.DefaultParticipantID, "participant id named in the audience")
	cmd.Flags().StringVar(&opts.Audience, "audience", "", "use this audience instead of the participant audience (a node's --auth-audience)")
	return cmd
}

// tokenOutput is the -o json|yaml form.
type tokenOutput struct {
	Token     string    `json:"token"`
	UserID    string    `json:"userId"`
	ExpiresAt time.Time `json:"expiresAt"`
}

func tokenRun(opts *Options) error {
	secret, err := auth.ReadSecretFile(opts.SecretFile)
	if err != nil {
		return fmt.Errorf("--secret-file: %w", err)
	}
	now := opts.Now().UTC().Truncate(time.Second)
	tok, err := auth.Mint(secret, opts.User, opts.TTL, opts.Audience, opts.ParticipantID, now)
	if err != nil {
		return fmt.Errorf("mint token: %w", err)
	}
	if opts.Format == cmdutil.FormatTable {
		_, err = fmt.Fprintln(opts.IO.Out, tok)
		return err
	}
	return cmdutil.WriteStructured(opts.IO.Out, opts.Format, tokenOutput{Token: tok, UserID: opts.User, ExpiresAt: now.Add(opts.TTL)})
}
