package cmdutil

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// rejectionHints say in one line what to do about a rejection, per error id.
var rejectionHints = map[string]string{
	"LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED":        "the max record time passed before the transaction was recorded: prepare again with a later --max-record-time, then sign and execute before it",
	"NOT_SEQUENCED_TIMEOUT":                         "the synchronizer did not sequence the transaction in time: prepare again (with a later --max-record-time) and execute sooner",
	"INVALID_EXTERNAL_SIGNATURE":                    "a signature does not verify against the party's registered key: sign with the key the party was allocated with (ledger keys show KEYFILE)",
	"FAILED_TO_EXECUTE_TRANSACTION":                 "the node could not execute this prepared transaction (executed before, or its inputs changed): prepare again",
	"INVALID_EXTERNAL_TRANSACTION":                  "the node refuses the prepared transaction as sent: prepare it again and do not edit the envelope",
	"DUPLICATE_COMMAND":                             "a command with this command id was already accepted: prepare again with another --command-id (or none, for a fresh one)",
	"SUBMISSION_ALREADY_IN_FLIGHT":                  "the same command is still being processed: wait for its outcome with ledger completions --until-command-id",
	"LOCAL_VERDICT_INACTIVE_CONTRACTS":              "an input contract was archived after prepare: prepare again",
	"CONTRACT_NOT_FOUND":                            "a contract the command uses is unknown or archived: check the contract id, or prepare again",
	"CONTRACT_NOT_ACTIVE":                           "a contract the command uses was archived: prepare again with a current contract",
	"LOCAL_VERDICT_LEDGER_TIME_OUT_OF_BOUND":        "too much time passed between prepare and execute: prepare again and execute sooner",
	"LOCAL_VERDICT_PREPARATION_TIME_OUT_OF_BOUND":   "too much time passed between prepare and execute: prepare again and execute sooner",
	"LEDGER_TIME_OUTSIDE_BOUNDS":                    "the ledger time is outside the transaction's bounds: prepare again (check --min-ledger-time)",
	"INVALID_DEDUPLICATION_PERIOD":                  "the deduplication period is longer than the node allows: use a shorter one",
	"PARTICIPANT_BACKPRESSURE":                      "the node is overloaded: run the command again in a moment (a fresh submission id is used)",
	"SEQUENCER_BACKPRESSURE":                        "the synchronizer is overloaded: run the command again in a moment",
	"DAML_AUTHORIZATION_ERROR":                      "the transaction needs the authority of a party not in --act-as",
	"DAML_INTERPRETATION_ERROR":                     "the Daml code refused the command (an assertion or failed lookup): check the arguments",
	"TEMPLATE_PRECONDITION_VIOLATED":                "the template's ensure clause refused the arguments: check --args",
	"COMMAND_PREPROCESSING_FAILED":                  "the arguments do not match the template or choice: check the field names and types of --args/--arg",
	"PACKAGE_NOT_FOUND":                             "the node does not know the template's package: check the template id or upload the package",
	"INVALID_TOKEN":                                 "the node needs a user id: give --user (or set LEDGER_USER)",
	"INVALID_ARGUMENT":                              "the node refused a field of the request: see the cause",
	"INVALID_FIELD":                                 "the node refused a field of the request: see the cause",
	"PARTY_NOT_FOUND":                               "the party is not known to this node: check the id (ledger parties list)",
	"CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED":      "the party changed since it was read: run again with --retry, or without --resource-version",
	"USER_NOT_FOUND":                                "no such user on this node: ledger users list",
	"USER_ALREADY_EXISTS":                           "the user exists already: ledger users get ID",
	"JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED": "more results than the node returns at once: give a smaller --limit",
}

// RejectionHint returns the one-line hint for an error id ("" if none).
func RejectionHint(id string) string { return rejectionHints[id] }

// signatureHint is the hint of an execute refused for its signatures, which
// Canton reports as FAILED_TO_EXECUTE_TRANSACTION like other failures: the
// cure is the right key, not a new prepare.
const signatureHint = "the signatures do not verify with a key registered for the party: sign with the party's own key " +
	"(its fingerprint ends the party id; ledger keys show KEYFILE prints a key's fingerprint), not another party's"

// hintFor is the hint for a Canton error: by its id, and for an execute
// refused for its signatures, by its cause.
func hintFor(ce *ledgerapi.JsCantonError) string {
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
// the error id and a hint; other failures (network, authentication,
// undecodable requests) stay exit status 1.
func Rejection(err error) error {
	ce := client.CantonError(err)
	if ce == nil || ce.IsRedacted() {
		return WithHint(err)
	}
	return WithExit(ExitRejected, rejectedError{ce: ce, err: err})
}

type rejectedError struct {
	ce  *ledgerapi.JsCantonError
	err error
}

func (r rejectedError) Error() string {
	msg := fmt.Sprintf("rejected: %s: %s", r.ce.Code, r.ce.Cause)
	if h := hintFor(r.ce); h != "" {
		msg += "\nhint: " + h
	}
	return msg
}

func (r rejectedError) Unwrap() error { return r.err }

// WithHint adds the hint for a Canton error that is not a rejection (exit 1).
type hinted struct{ err error }

func (h hinted) Error() string {
	if ce := client.CantonError(h.err); ce != nil && hintFor(ce) != "" {
		return h.err.Error() + "\nhint: " + hintFor(ce)
	}
	if hint := RejectionHint(client.ErrorID(h.err)); hint != "" {
		return h.err.Error() + "\nhint: " + hint
	}
	if client.StatusCode(h.err) == http.StatusUnauthorized {
		return h.err.Error() + "\nhint: check --token, --token-file or the OAuth settings"
	}
	return h.err.Error()
}
func (h hinted) Unwrap() error { return h.err }

func WithHint(err error) error {
	if err == nil {
		return nil
	}
	return hinted{err}
}

// CompletionRejection is Rejection for a completion with a failed status.
func CompletionRejection(c *ledgerapi.Completion) error {
	ce := ledgerapi.ErrorFromStatus(c.Status)
	if ce == nil {
		return nil
	}
	return WithExit(ExitRejected, rejectedError{ce: ce, err: ce})
}
