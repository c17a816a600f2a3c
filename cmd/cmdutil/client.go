package cmdutil

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/internal/atomicfile"
	"github.com/ledger-cli/ledger/internal/secretfile"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// Connection settings: the keys of a profile, the names of the flags and,
// upper-cased with "-" as "_" and a LEDGER_ prefix, of the environment
// variables (url → --url → LEDGER_URL).
const (
	KeyURL                   = "url"
	KeyUser                  = "user"
	KeyToken                 = "token"
	KeyTokenFile             = "token-file"
	KeyOAuthTokenURL         = "oauth-token-url"
	KeyOAuthClientID         = "oauth-client-id"
	KeyOAuthClientSecretFile = "oauth-client-secret-file"
	KeyOAuthAudience         = "oauth-audience"
	KeyOAuthScope            = "oauth-scope"
	KeyCACert                = "ca-cert"
	KeyClientCert            = "client-cert"
	KeyClientKey             = "client-key"
	KeyTimeout               = "timeout"
)

// ConnectionKeys lists every setting a profile may hold, in help order.
var ConnectionKeys = []string{
	KeyURL, KeyUser, KeyToken, KeyTokenFile,
	KeyOAuthTokenURL, KeyOAuthClientID, KeyOAuthClientSecretFile, KeyOAuthAudience, KeyOAuthScope,
	KeyCACert, KeyClientCert, KeyClientKey, KeyTimeout,
}

// secretKeys are shown masked.
var secretKeys = map[string]bool{KeyToken: true}

// IsSecretKey reports whether a setting's value is a secret.
func IsSecretKey(k string) bool { return secretKeys[k] }

// IsConnectionKey reports whether k is a profile setting.
func IsConnectionKey(k string) bool {
	for _, c := range ConnectionKeys {
		if c == k {
			return true
		}
	}
	return false
}

// EnvName is the environment variable of a setting: LEDGER_TOKEN_FILE.
func EnvName(key string) string {
	return "LEDGER_" + strings.ToUpper(strings.ReplaceAll(key, "-", "_"))
}

// DefaultProfile is the profile used when none is named or current.
const DefaultProfile = "default"

// ConfigEnv names the variable that overrides the config file's path.
const ConfigEnv = "LEDGER_CONFIG"

// ConfigPath is the profiles file: $LEDGER_CONFIG, else
// <user config dir>/ledger/config.yaml.
func ConfigPath() (string, error) {
	if p := os.Getenv(ConfigEnv); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no user config directory (%w): set %s to a file path", err, ConfigEnv)
	}
	return filepath.Join(dir, "ledger", "config.yaml"), nil
}

// ConfigFile is the profiles file:
//
//	current-profile: local
//	profiles:
//	  local:
//	    url: http://127.0.0.1:7575
//	    user: participant_admin
type ConfigFile struct {
	CurrentProfile string                       `yaml:"current-profile,omitempty"`
	Profiles       map[string]map[string]string `yaml:"profiles,omitempty"`

	path string
}

// LoadConfigFile reads path; a missing file is an empty configuration.
func LoadConfigFile(path string) (*ConfigFile, error) {
	cf := &ConfigFile{path: path}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cf, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config file: %w", err)
	}
	if err := yaml.Unmarshal(b, cf); err != nil {
		return nil, fmt.Errorf("config file %s: %w (fix or remove it)", path, err)
	}
	for name, p := range cf.Profiles {
		for k := range p {
			if !IsConnectionKey(k) {
				return nil, fmt.Errorf("config file %s: profile %q: unknown setting %q (known: %s)", path, name, k, strings.Join(ConnectionKeys, ", "))
			}
		}
	}
	return cf, nil
}

// Path is where the file lives.
func (c *ConfigFile) Path() string { return c.path }

// Save writes the file atomically with mode 0600 (its directory 0700):
// it may hold tokens.
func (c *ConfigFile) Save() error {
	b, err := yaml.Marshal(c)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	if err := atomicfile.WriteFile(c.path, b, 0o600); err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	return nil
}

// Profile returns a profile's settings (nil if it does not exist).
func (c *ConfigFile) Profile(name string) map[string]string { return c.Profiles[name] }

// Set stores one setting of a profile, creating the profile.
func (c *ConfigFile) Set(profile, key, value string) {
	if c.Profiles == nil {
		c.Profiles = map[string]map[string]string{}
	}
	if c.Profiles[profile] == nil {
		c.Profiles[profile] = map[string]string{}
	}
	c.Profiles[profile][key] = value
}

// Unset removes one setting of a profile.
func (c *ConfigFile) Unset(profile, key string) { delete(c.Profiles[profile], key) }

// ProfileNames lists the profiles, sorted.
func (c *ConfigFile) ProfileNames() []string {
	names := make([]string, 0, len(c.Profiles))
	for n := range c.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ActiveProfile is the profile a command uses: --profile, else
// $LEDGER_PROFILE, else the file's current-profile, else "default". It also
// says whether the profile was named explicitly (flag or environment),
// in which case it must exist.
func (c *ConfigFile) ActiveProfile(flag string) (name string, explicit bool) {
	switch {
	case flag != "":
		return flag, true
	case os.Getenv("LEDGER_PROFILE") != "":
		return os.Getenv("LEDGER_PROFILE"), true
	case c.CurrentProfile != "":
		return c.CurrentProfile, false
	}
	return DefaultProfile, false
}

// ConnFlags are the connection flags of every command that talks to a node.
type ConnFlags struct {
	cmd     *cobra.Command
	profile string
}

// AddConnFlags registers --profile and the connection flags on cmd.
func AddConnFlags(cmd *cobra.Command) *ConnFlags {
	cf := &ConnFlags{cmd: cmd}
	fl := cmd.Flags()
	fl.StringVar(&cf.profile, "profile", "", "use this profile of the config file (env LEDGER_PROFILE)")
	fl.String(KeyURL, "", "node base URL, e.g. http://127.0.0.1:7575 (env LEDGER_URL)")
	fl.String(KeyUser, "", "user id sent with commands and completions; \"\" = the token's user (env LEDGER_USER)")
	fl.String(KeyToken, "", "bearer token (env LEDGER_TOKEN)")
	fl.String(KeyTokenFile, "", "file holding the bearer token, re-read when it changes (env LEDGER_TOKEN_FILE)")
	fl.String(KeyOAuthTokenURL, "", "OAuth2 token endpoint for the client credentials flow")
	fl.String(KeyOAuthClientID, "", "OAuth2 client id")
	fl.String(KeyOAuthClientSecretFile, "", "file holding the OAuth2 client secret")
	fl.String(KeyOAuthAudience, "", "OAuth2 audience parameter, e.g. https://daml.com/jwt/aud/participant/<id>")
	fl.String(KeyOAuthScope, "", "OAuth2 scopes, space separated, e.g. daml_ledger_api")
	fl.String(KeyCACert, "", "PEM file of CA certificates to trust instead of the system roots")
	fl.String(KeyClientCert, "", "PEM client certificate, for nodes that require one (with --client-key)")
	fl.String(KeyClientKey, "", "PEM private key of --client-cert")
	fl.Duration(KeyTimeout, client.DefaultTimeout, "how long the command may wait for the node, retries included (with --follow: each request) (env LEDGER_TIMEOUT)")
	return cf
}

// Settings are connection settings resolved by precedence, each with where
// it came from.
type Settings struct {
	Profile string
	Values  map[string]string
	Sources map[string]string // "flag", "env LEDGER_URL", "profile local", "default"
}

// Get returns a resolved value ("" if unset).
func (s *Settings) Get(key string) string { return s.Values[key] }

// ResolveSettings reads the connection settings with the precedence
// flag > LEDGER_* environment variable > profile > default, through viper.
func (cf *ConnFlags) ResolveSettings() (*Settings, error) {
	path, err := ConfigPath()
	if err != nil {
		return nil, err
	}
	file, err := LoadConfigFile(path)
	if err != nil {
		return nil, err
	}
	return resolveSettings(cf.cmd.Flags(), file, cf.profile)
}

func resolveSettings(fl *pflag.FlagSet, file *ConfigFile, profileFlag string) (*Settings, error) {
	name, explicit := file.ActiveProfile(profileFlag)
	prof := file.Profile(name)
	if prof == nil && explicit {
		if len(file.Profiles) == 0 {
			return nil, fmt.Errorf("profile %q does not exist: %s has no profiles (create one with: ledger config set --profile %s url URL)", name, file.Path(), name)
		}
		return nil, fmt.Errorf("profile %q does not exist in %s (profiles: %s)", name, file.Path(), strings.Join(file.ProfileNames(), ", "))
	}
	v := viper.New()
	v.SetEnvPrefix("LEDGER")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	m := map[string]any{}
	for k, val := range prof {
		m[k] = val
	}
	if err := v.MergeConfigMap(m); err != nil {
		return nil, err
	}
	s := &Settings{Profile: name, Values: map[string]string{}, Sources: map[string]string{}}
	for _, k := range ConnectionKeys {
		f := fl.Lookup(k)
		if f != nil {
			if err := v.BindPFlag(k, f); err != nil {
				return nil, err
			}
		}
		s.Values[k] = v.GetString(k)
		switch {
		case f != nil && f.Changed:
			s.Sources[k] = "flag --" + k
		case os.Getenv(EnvName(k)) != "":
			s.Sources[k] = "env " + EnvName(k)
		case prof[k] != "":
			s.Sources[k] = "profile " + name
		default:
			s.Sources[k] = "default"
		}
	}
	return s, nil
}

// rank orders the sources: a token method given at a higher level wins over
// another given at a lower one.
func rank(source string) int {
	switch {
	case strings.HasPrefix(source, "flag"):
		return 3
	case strings.HasPrefix(source, "env"):
		return 2
	case strings.HasPrefix(source, "profile"):
		return 1
	}
	return 0
}

// Connection is a ready client with the user id to send.
type Connection struct {
	Client   *client.Client
	UserID   string
	Settings *Settings
	// Timeout bounds a whole command (Context) and each request.
	Timeout time.Duration
	// TokenKey is the setting the token comes from (KeyToken,
	// KeyTokenFile, KeyOAuthTokenURL), "" when no token is sent.
	TokenKey string
}

// Context is the context of a command that ends when it is done: it
// carries the deadline --timeout sets for the whole command, retries
// included. Following commands (completions --follow, bench) do not use it.
func (c *Connection) Context() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), c.Timeout)
}

// origin says where a setting came from and which profile was active,
// for hints: " (url from flag --url, profile default)"; "" when unknown.
func (c *Connection) origin(key string) string {
	if c == nil || c.Settings == nil {
		return ""
	}
	return fmt.Sprintf(" (%s from %s, profile %s)", key, c.Settings.Sources[key], c.Settings.Profile)
}

// Connect resolves the settings and builds the client.
func (cf *ConnFlags) Connect() (*Connection, error) {
	s, err := cf.ResolveSettings()
	if err != nil {
		return nil, err
	}
	return Connect(s)
}

// Connect builds the client the settings describe.
func Connect(s *Settings) (*Connection, error) {
	tlsCfg, err := client.TLSConfig(s.Get(KeyCACert), s.Get(KeyClientCert), s.Get(KeyClientKey))
	if err != nil {
		return nil, fmt.Errorf("%w (set with --ca-cert, --client-cert and --client-key, or the profile)", err)
	}
	timeout := client.DefaultTimeout
	if t := s.Get(KeyTimeout); t != "" {
		if timeout, err = parseTimeout(t); err != nil {
			return nil, UsageError("%s (%s)", err, s.Sources[KeyTimeout])
		}
	}
	tokens, tokenKey, err := tokenSource(s, timeout, tlsCfg)
	if err != nil {
		return nil, err
	}
	c, err := client.New(client.Config{URL: s.Get(KeyURL), Tokens: tokens, TLS: tlsCfg, Timeout: timeout, UserAgent: "ledger-cli (" + ReadBuild().Version + ")"})
	if errors.Is(err, client.ErrNoURL) {
		return nil, fmt.Errorf("%w: give --url, set LEDGER_URL or add url to the profile", err)
	}
	if err != nil {
		return nil, UsageError("%s (%s)", err, s.Sources[KeyURL])
	}
	return &Connection{Client: c, UserID: s.Get(KeyUser), Settings: s, Timeout: timeout, TokenKey: tokenKey}, nil
}

// ValidateSetting checks a setting's value as the commands will read it,
// so that a profile never holds one that makes every later command fail.
func ValidateSetting(key, value string) error {
	switch key {
	case KeyURL:
		_, err := client.ParseNodeURL(value)
		return err
	case KeyOAuthTokenURL:
		u, err := url.Parse(value)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%s %q: must be an http:// or https:// URL", key, value)
		}
	case KeyTimeout:
		_, err := parseTimeout(value)
		return err
	case KeyUser:
		return ledgerapi.ValidateUserID(key, value)
	}
	return nil
}

func parseTimeout(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("timeout %q: use a positive duration such as 30s", v)
	}
	return d, nil
}

// tokenSource picks the token method: the one given at the highest level
// (flag, env, profile); at the same level --token before --token-file before
// OAuth2. It also returns the setting the method was chosen by.
func tokenSource(s *Settings, timeout time.Duration, tlsCfg *tls.Config) (client.TokenSource, string, error) {
	type method struct {
		key  string
		make func() (client.TokenSource, error)
	}
	methods := []method{
		{KeyToken, func() (client.TokenSource, error) { return client.StaticToken(strings.TrimSpace(s.Get(KeyToken))), nil }},
		{KeyTokenFile, func() (client.TokenSource, error) { return client.NewFileToken(s.Get(KeyTokenFile)) }},
		{KeyOAuthTokenURL, func() (client.TokenSource, error) { return oauthSource(s, timeout, tlsCfg) }},
	}
	best, bestRank := -1, -1
	for i, m := range methods {
		if s.Get(m.key) == "" {
			continue
		}
		if r := rank(s.Sources[m.key]); r > bestRank {
			best, bestRank = i, r
		}
	}
	if best < 0 {
		if s.Get(KeyOAuthClientID) != "" || s.Get(KeyOAuthClientSecretFile) != "" {
			return nil, "", UsageError("OAuth2 client credentials need --oauth-token-url too")
		}
		return nil, "", nil
	}
	ts, err := methods[best].make()
	return ts, methods[best].key, err
}

// oauthSource is the client credentials flow; the token is fetched when
// first needed and again shortly before it expires.
func oauthSource(s *Settings, timeout time.Duration, tlsCfg *tls.Config) (client.TokenSource, error) {
	id, secretFile := s.Get(KeyOAuthClientID), s.Get(KeyOAuthClientSecretFile)
	if id == "" || secretFile == "" {
		return nil, UsageError("OAuth2 client credentials need --oauth-client-id and --oauth-client-secret-file with --oauth-token-url")
	}
	secret, err := secretfile.ReadFile("OAuth client secret file", secretFile, 64<<10)
	if err != nil {
		return nil, fmt.Errorf("--oauth-client-secret-file: %w", err)
	}
	secret = bytes.TrimSpace(secret)
	if len(secret) == 0 {
		return nil, fmt.Errorf("--oauth-client-secret-file %s is empty", secretFile)
	}
	cc := clientcredentials.Config{
		ClientID:     id,
		ClientSecret: string(secret),
		TokenURL:     s.Get(KeyOAuthTokenURL),
		Scopes:       strings.Fields(s.Get(KeyOAuthScope)),
	}
	if aud := s.Get(KeyOAuthAudience); aud != "" {
		cc.EndpointParams = url.Values{"audience": {aud}}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if tlsCfg != nil {
		tr.TLSClientConfig = tlsCfg
	}
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Transport: tr, Timeout: timeout})
	return client.OAuth2Token(cc.TokenSource(ctx)), nil
}
