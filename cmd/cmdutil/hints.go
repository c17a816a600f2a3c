package cmdutil

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// unknownPartiesHint names the parties a node does not know, from the
// error's context: "a,b" as ledger serve writes it, "Set(a, b)" as Canton's
// Scala does.
func unknownPartiesHint(list, where string) string {
	list = strings.TrimSuffix(strings.TrimPrefix(list, "Set("), ")")
	parties := strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' })
	if len(parties) == 0 {
		return "a party of " + where + " is not known on the node's synchronizers: check the ids (ledger parties list)"
	}
	return fmt.Sprintf("not known on the node's synchronizers: %s; check %s (ledger parties list shows the node's parties)", strings.Join(parties, ", "), where)
}

// RejectionHint returns the one-line hint for an error id: its Fix in the
// catalogue ("" if the id is not there).
func RejectionHint(id string) string {
	e, _ := LookupError(id)
	return e.Fix
}

// signatureHint is the hint of an execute refused for its signatures, which
// Canton reports as FAILED_TO_EXECUTE_TRANSACTION like other failures: the
// cure is the right key, not a new prepare.
const signatureHint = "the signatures do not verify with a key registered for the party: sign with the party's own key " +
	"(its fingerprint ends the party id; ledger keys show KEYFILE prints a key's fingerprint), not another party's"

// HintFor is the hint for a Canton error: by its id, and for an execute
// refused for its signatures, by its cause.
func HintFor(ce *ledgerapi.JsCantonError) string {
	switch ce.Code {
	case "UNKNOWN_SUBMITTERS":
		return unknownPartiesHint(ce.Context["unknownSubmitters"], "--act-as")
	case "UNKNOWN_INFORMEES":
		return unknownPartiesHint(ce.Context["unknownInformees"], "the command's parties")
	case "INVALID_ARGUMENT":
		if c := ce.Context["choices"]; c != "" {
			return "no such choice (names are case-sensitive); the template's choices are " + c
		}
	}
	if ce.Code == "FAILED_TO_EXECUTE_TRANSACTION" {
		for _, s := range []string{"valid signatures", "did not provide an external signature", "registered signing keys"} {
			if strings.Contains(ce.Cause, s) {
				return signatureHint
			}
		}
	}
	return RejectionHint(ce.Code)
}

// Rejection turns a node's refusal of a command into exit status 4 with
// the error id and a hint; other failures (network, authentication, the
// node's own errors, undecodable requests) stay exit status 1.
func Rejection(err error) error { return (*Connection)(nil).Rejection(err) }

// Rejection is the package function Rejection, with hints that name the
// connection's URL, token and profile.
func (c *Connection) Rejection(err error) error {
	ce := client.CantonError(err)
	// A 5xx is the node failing, not the ledger refusing the command.
	if ce == nil || ce.IsRedacted() || client.StatusCode(err) >= 500 {
		return c.WithHint(err)
	}
	// With no token and no user, a node without authentication cannot tell
	// whose command it is: the call missed --user, the ledger refused nothing.
	if ce.Code == "INVALID_TOKEN" && c != nil && c.TokenKey == "" && c.UserID == "" {
		return WithExit(ExitUsage, hinted{err: fmt.Errorf("the node needs a user id and none was given (%s)", ce.Cause), hint: HintFor(ce)})
	}
	return WithExit(ExitRejected, rejectedError{ce: ce, err: err})
}

type rejectedError struct {
	ce  *ledgerapi.JsCantonError
	err error
}

func (r rejectedError) Error() string {
	msg := fmt.Sprintf("rejected: %s: %s", r.ce.Code, r.ce.Cause)
	if h := HintFor(r.ce); h != "" {
		msg += "\nhint: " + h
	}
	return msg
}

func (r rejectedError) Unwrap() error { return r.err }

// hinted is an error (exit 1) followed by a line saying what to do.
type hinted struct {
	err  error
	hint string
}

func (h hinted) Error() string { return h.err.Error() + "\nhint: " + h.hint }
func (h hinted) Unwrap() error { return h.err }

// WithHint adds the hint for an error of the node or of the connection
// to it; an error without one is returned as is.
func WithHint(err error) error { return (*Connection)(nil).WithHint(err) }

// WithHint is the package function WithHint, with hints that name the
// connection's URL, token and profile.
func (c *Connection) WithHint(err error) error {
	if err == nil {
		return nil
	}
	if h := c.hint(err, time.Now()); h != "" {
		return hinted{err: err, hint: h}
	}
	return err
}

// hint says what to do about err, or "".
func (c *Connection) hint(err error, now time.Time) string {
	if ce := client.CantonError(err); ce != nil && !ce.IsRedacted() {
		if h := HintFor(ce); h != "" {
			return h
		}
	}
	var ae *client.APIError
	var te *client.TransportError
	switch {
	case errors.As(err, &ae):
		return c.answerHint(ae, now)
	case errors.As(err, &te):
		return c.transportHint(te)
	}
	return ""
}

// answerHint explains answers that carry no Canton error worth a hint.
func (c *Connection) answerHint(ae *client.APIError, now time.Time) string {
	switch {
	case ae.StatusCode == http.StatusUnauthorized:
		return c.tokenHint(ae.Token, now)
	case ae.Canton != nil:
		return ""
	case ae.StatusCode == http.StatusNotFound || ae.StatusCode == http.StatusMethodNotAllowed:
		return fmt.Sprintf("%s does not answer %s %s as a JSON Ledger API v2 node would: is the URL right, path prefix included?%s",
			c.url(), ae.Method, ae.Path, c.origin(KeyURL))
	case ae.StatusCode == http.StatusBadRequest && strings.Contains(ae.Text, "HTTP request to an HTTPS server"):
		return fmt.Sprintf("the node speaks HTTPS: write the URL with https://%s", c.origin(KeyURL))
	}
	return ""
}

// tokenHint says why a token was refused, as far as the client can tell.
func (c *Connection) tokenHint(tok *client.TokenInfo, now time.Time) string {
	switch {
	case tok == nil || !tok.Sent:
		return "no token was sent: this node needs one (set --token, --token-file, LEDGER_TOKEN or a profile's token; ledger config set --help)"
	case !tok.Expiry.IsZero() && !tok.Expiry.After(now):
		return fmt.Sprintf("the token expired %s ago (at %s): get a fresh one%s",
			ago(now.Sub(tok.Expiry)), tok.Expiry.UTC().Format(time.RFC3339), c.origin(c.tokenKey()))
	}
	return fmt.Sprintf("the node did not accept the token%s: check that it is for this node (audience, or scope daml_ledger_api), signed with a key the node trusts, and names an existing user",
		c.origin(c.tokenKey()))
}

func (c *Connection) tokenKey() string {
	if c == nil || c.TokenKey == "" {
		return KeyToken
	}
	return c.TokenKey
}

// transportHint explains a request that got no answer.
func (c *Connection) transportHint(te *client.TransportError) string {
	var dns *net.DNSError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	msg := te.Err.Error()
	switch {
	case errors.Is(te, context.DeadlineExceeded):
		return fmt.Sprintf("no answer within %s%s: is the node overloaded or the URL wrong? --timeout allows more", c.timeout(), c.origin(KeyTimeout))
	case errors.Is(te, syscall.ECONNREFUSED):
		return fmt.Sprintf("nothing listens at %s%s: is the node (ledger serve) running, and is the port right?", c.url(), c.origin(KeyURL))
	case strings.Contains(msg, "server gave HTTP response to HTTPS client"):
		return fmt.Sprintf("the node speaks plain HTTP: write the URL with http://%s", c.origin(KeyURL))
	case errors.As(te, &dns):
		return fmt.Sprintf("the host %s is not known%s: check the URL", dns.Name, c.origin(KeyURL))
	case errors.As(te, &unknownCA):
		return "the node's certificate is signed by an authority this machine does not trust: give its CA with --ca-cert (or the profile's ca-cert)"
	case errors.As(te, &hostname):
		return fmt.Sprintf("the node's certificate is not for this host name%s", c.origin(KeyURL))
	}
	return ""
}

func (c *Connection) url() string {
	if c == nil || c.Client == nil {
		return "the node"
	}
	return c.Client.URL()
}

func (c *Connection) timeout() time.Duration {
	if c == nil || c.Timeout == 0 {
		return client.DefaultTimeout
	}
	return c.Timeout
}

// ago writes a duration as people say it: 45s, 3m, 2h, 5d.
func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// CompletionRejection is Rejection for a completion with a failed status.
func CompletionRejection(c *ledgerapi.Completion) error {
	ce := ledgerapi.ErrorFromStatus(c.Status)
	if ce == nil {
		return nil
	}
	return WithExit(ExitRejected, rejectedError{ce: ce, err: ce})
}

// ShellQuote quotes a word for a POSIX shell when it needs it.
func ShellQuote(s string) string {
	if s == "&" || s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
