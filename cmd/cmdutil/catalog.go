package cmdutil

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ledger-cli/ledger/ledgerapi"
)

// The error catalogue: the Canton error ids a user of this tool meets, from
// a Canton participant or from ledger serve, each with its category (as
// Canton declares it) and, in this tool's words, what it means and what to
// do. `ledger errors` shows it; the hints under a refused command come from
// its Fix lines. The categories themselves are ledgerapi.ErrorCategories;
// what each one means for a caller is CategoryAdvice.

// CatalogEntry is one error id of the catalogue.
type CatalogEntry struct {
	ID string
	// Category is Canton's category id; 0 for DAML_FAILURE, whose category
	// the Daml code chooses (failWithStatus).
	Category int
	Meaning  string
	Fix      string
}

// CategoryAdvice says, per category id, what an error of it means for the
// caller and whether and how to retry.
var CategoryAdvice = map[int]string{
	1:  "the node or a service behind it is unavailable for a moment; the request did not take effect — retry with backoff",
	2:  "the request met a busy, changing or contended resource and lost; the same request may succeed later — retry after the retryInfo delay",
	3:  "the request timed out and may or may not have taken effect — look (completions, the update stream) before sending it again",
	4:  "the node broke one of its own assumptions (a bug); the details are in the node's log under the correlation id — report it, do not retry blindly",
	5:  "the request was refused as a security risk and the details are withheld — check the request; the operator finds the reason in the log under the correlation id",
	6:  "the request carries no valid token (missing, malformed, expired, wrongly signed or for another audience) — get a fresh token",
	7:  "the token is valid but its user may not do this (a missing right, an unknown or deactivated user) — ask an administrator for the right",
	8:  "the request is wrong whatever the ledger holds — fix the request; sending it again fails the same way",
	9:  "the request does not fit the ledger's current state — change the request, or the state, first",
	10: "what the request creates exists already — use the existing one, or another id",
	11: "something the request names does not exist, or is not visible to the caller — check the id and the reading parties",
	12: "the request reads beyond the ledger end — retry once the ledger has reached that offset",
	13: "a background process of the node is degraded; this is a warning in the node's log, not an answer to a request",
	14: "the node does not implement this operation",
}

// grpcCodeNames are the names of the gRPC status codes, by number.
var grpcCodeNames = [...]string{"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
	"ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
	"UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"}

// GRPCCodeName is the name of a gRPC status code ("" for none).
func GRPCCodeName(code int) string {
	if code < 0 || code >= len(grpcCodeNames) {
		return ""
	}
	return grpcCodeNames[code]
}

// Catalog is the catalogue, sorted by id.
var Catalog = sortedCatalog([]CatalogEntry{
	// Requests and their fields.
	{"INVALID_ARGUMENT", 8, "a field of the request breaks a rule of the API (its form, a bound, a combination)", "the node refused a field of the request: see the cause"},
	{"INVALID_FIELD", 8, "one named field has a value of the wrong form (a party id, a template id, a timestamp)", "the node refused a field of the request: see the cause"},
	{"MISSING_FIELD", 8, "a field the request must have is absent", "add the field the cause names"},
	{"INVALID_DEDUPLICATION_PERIOD", 9, "the deduplication period asked for is longer than the node keeps command ids", "the deduplication period is longer than the node allows: use a shorter one"},
	{"NEGATIVE_OFFSET", 8, "an offset of the request is negative", "give an offset of 0 or more (0 is the ledger's beginning)"},
	{"NON_POSITIVE_OFFSET", 8, "an offset that must be positive is 0 or less", "give a positive offset (ledger ends and update offsets start at 1)"},
	{"DESCENDING_ORDER_MISSING_END", 8, "a read in descending order has no end offset to start from", "give endInclusive (the CLI's --to) with descendingOrder"},
	{"INVALID_ACS_PAGE_TOKEN", 8, "the page token of an active-contracts page is not one this node issued for the same request", "send the request that made the token unchanged with it, or start again without a token"},
	{"INVALID_UPDATES_PAGE_TOKEN", 8, "the page token of an updates page is not one this node issued for the same request", "send the request that made the token unchanged with it, or start again without a token"},
	{"INVALID_CONTINUATION_TOKEN", 8, "the stream continuation token does not belong to this active-contracts request", "resume with the same request the token came from, or start again without it"},
	{"OFFSET_AFTER_LEDGER_END", 12, "the request starts after the ledger end", "read the ledger end (ledger updates --to, GET /v2/state/ledger-end) and start at or before it"},
	{"OFFSET_OUT_OF_RANGE", 9, "the offset is outside the range the request allows (a prune at or after the ledger end)", "prune up to an offset the ledger has reached: below its end (GET /v2/state/ledger-end)"},
	{"PARTICIPANT_DATA_ACCESSED_AFTER_LEDGER_END", 9, "a snapshot or lookup asks for an offset the ledger has not reached", "ask at or before the ledger end"},
	{"PARTICIPANT_PRUNED_DATA_ACCESSED", 9, "the request reads history the participant has pruned", "start at or after the pruned offset the cause names (GET /v2/state/latest-pruned-offsets)"},
	{"PARTICIPANT_PRUNING_IN_PROGRESS", 9, "a prune is already running on this participant", "wait for it to finish, then prune again if needed"},
	{"JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED", 2, "a list answer would hold more elements than the JSON API returns at once", "more results than the node returns at once: give a smaller --page-size"},
	{"MAXIMUM_NUMBER_OF_STREAMS", 2, "the node serves as many streams as it allows", "close streams you no longer read, or retry in a moment"},
	{"REQUEST_TIME_OUT", 3, "the node did not finish the request in time; it may still take effect", "look at the completions before sending a command again"},
	{"REQUEST_ALREADY_IN_FLIGHT", 2, "the same request (same id) is still being processed", "wait for the first one's answer"},
	{"SERVICE_NOT_RUNNING", 1, "the service is starting or shutting down", "retry when the node is up (GET /readyz)"},
	{"PARTICIPANT_BACKPRESSURE", 2, "the participant has more work in flight than it accepts", "the node is overloaded: run the command again in a moment (a fresh submission id is used)"},
	{"UNKNOWN_RESOURCE", 11, "the request names a resource that does not exist where it looks, e.g. a party that is not in the identity provider whose users get rights over it", "check the ids the resources list; an identity provider's admin may only grant rights over that provider's parties"},
	{"LEDGER_API_INTERNAL_ERROR", 4, "the node failed in a way it did not expect", "report it with the correlation id; the node's log has the details"},

	// Authentication and rights.
	{"UNAUTHENTICATED", 6, "the request has no valid token", "send a valid, unexpired token for this participant (--token, --token-file or OAuth settings)"},
	{"PERMISSION_DENIED", 7, "the token's user lacks a right the request needs, or is unknown or deactivated", "ask an administrator to grant the right (ledger users grant), or use another user's token"},
	{"INVALID_TOKEN", 8, "the token names no valid user id, or the request needs a user the token does not give", "the node needs a user id: give --user (or set LEDGER_USER)"},
	{"ACCESS_TOKEN_EXPIRED", 2, "the token expired while a stream was open", "reconnect with a fresh token; a tailing command resumes from its checkpoint"},
	{"STALE_STREAM_AUTHORIZATION", 2, "the user's rights, or its state or identity provider, changed while a stream was open", "reconnect at once: the new stream is authorized on the user as it is now"},

	// Commands and their outcomes.
	{"DUPLICATE_COMMAND", 10, "a command with the same command id (and user and parties) was accepted within the deduplication period", "a command with this command id was already accepted: prepare again with another --command-id (or none, for a fresh one)"},
	{"SUBMISSION_ALREADY_IN_FLIGHT", 2, "the same command is still being processed", "the same command is still being processed: wait for its outcome with ledger completions --until-command-id"},
	{"UNKNOWN_SUBMITTERS", 11, "an act_as party is not known on the participant's synchronizers", "check the ids of --act-as (ledger parties list shows the node's parties)"},
	{"UNKNOWN_INFORMEES", 11, "a party the transaction involves is not known on the participant's synchronizers", "check the parties of the command (ledger parties list shows the node's parties)"},
	{"NO_SYNCHRONIZER_FOR_SUBMISSION", 9, "no connected synchronizer can carry this transaction (parties not hosted, packages not vetted)", "check that every party is hosted and every package vetted on one synchronizer"},
	{"NO_SYNCHRONIZER_ON_WHICH_ALL_SUBMITTERS_CAN_SUBMIT", 11, "the submitting parties share no synchronizer on which they may all submit", "host the submitters with submission rights on a common synchronizer"},
	{"NOT_CONNECTED_TO_SYNCHRONIZER", 9, "the participant is not connected to the synchronizer the request names", "name a synchronizer the participant is connected to, or connect it first"},
	{"INVALID_PRESCRIBED_SYNCHRONIZER_ID", 9, "the synchronizer the request names is not one the participant can submit to", "name a synchronizer the participant is connected to (ledger status shows it), or leave synchronizerId empty"},
	{"SUBMISSION_SYNCHRONIZER_NOT_READY", 11, "the synchronizer chosen for the submission is not ready", "retry once the participant's synchronizer connection is up"},
	{"ABORTED_DUE_TO_SHUTDOWN", 1, "the participant is shutting down and dropped the request", "retry against the restarted node"},
	{"SUBMISSION_DURING_SHUTDOWN", 2, "a submission arrived while the participant was shutting down", "retry against the restarted node"},
	{"FAILED_TO_PREPARE_TRANSACTION", 8, "the node could not prepare the command for external signing", "see the cause; fix the command and prepare again"},
	{"FAILED_TO_EXECUTE_TRANSACTION", 8, "the node refused to execute a prepared transaction (its signatures, its inputs, or an earlier execution)", "the node could not execute this prepared transaction (executed before, or its inputs changed): prepare again"},
	{"INVALID_EXTERNAL_SIGNATURE", 8, "an external party's signature does not verify", "a signature does not verify against the party's registered key: sign with the key the party was allocated with (ledger keys show KEYFILE)"},
	{"INVALID_EXTERNAL_TRANSACTION", 8, "the prepared transaction sent to execute is not one the node can accept as it is", "the node refuses the prepared transaction as sent: prepare it again and do not edit the envelope"},
	{"EXTERNAL_PARTY_ALREADY_EXISTS", 10, "an external party with this id is already allocated", "use the existing party, or allocate with another party hint"},
	{"LEDGER_TIME_OUTSIDE_BOUNDS", 8, "the ledger time the transaction gets lies outside the bounds its Daml code set", "the ledger time is outside the transaction's bounds: prepare again (check --min-ledger-time)"},

	// Confirmation and sequencing (Canton's protocol).
	{"LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED", 2, "the transaction was sequenced after its max_record_time", "the max record time passed before the transaction was recorded: prepare again with a later --max-record-time, then sign and execute before it"},
	{"LOCAL_VERDICT_INACTIVE_CONTRACTS", 11, "a contract the transaction uses was archived (or never active) when it was confirmed", "an input contract was archived after prepare: prepare again"},
	{"LOCAL_VERDICT_LOCKED_CONTRACTS", 2, "a contract the transaction uses is locked by another transaction being confirmed", "retry in a moment; frequent locks mean several submitters compete for one contract"},
	{"LOCAL_VERDICT_LEDGER_TIME_OUT_OF_BOUND", 2, "the transaction's ledger time is too far from the time it was sequenced", "too much time passed between prepare and execute: prepare again and execute sooner"},
	{"LOCAL_VERDICT_PREPARATION_TIME_OUT_OF_BOUND", 2, "the transaction's preparation time is too far from the time it was sequenced", "too much time passed between prepare and execute: prepare again and execute sooner"},
	{"LOCAL_VERDICT_TIMEOUT", 2, "not every confirming participant answered in time", "retry; if it recurs, a confirming participant is slow or down"},
	{"MEDIATOR_SAYS_TX_TIMED_OUT", 2, "the mediator did not get the confirmations it needed in time", "retry; if it recurs, a confirming participant is slow or down"},
	{"NOT_SEQUENCED_TIMEOUT", 2, "the synchronizer did not sequence the submission before its deadline", "the synchronizer did not sequence the transaction in time: prepare again (with a later --max-record-time) and execute sooner"},
	{"SEQUENCER_BACKPRESSURE", 2, "the sequencer refuses submissions for a moment because it is overloaded", "the synchronizer is overloaded: run the command again in a moment"},
	{"SEQUENCER_OVERLOADED", 2, "the sequencer is overloaded", "run the command again in a moment"},
	{"SEQUENCER_NOT_ENOUGH_TRAFFIC_CREDIT", 9, "the participant has no traffic credit left to send the submission", "buy or top up traffic for the participant (on the Global Synchronizer: with Canton Coin)"},
	{"PACKAGE_NOT_VETTED_BY_RECIPIENTS", 9, "a participant involved in the transaction has not vetted a package it uses", "have every involved participant upload and vet the package"},
	{"UNKNOWN_CONTRACT_SYNCHRONIZERS", 9, "the participant does not know on which synchronizer an input contract lives", "check the contract ids; a disclosed contract needs its synchronizerId"},

	// Daml interpretation.
	{"COMMAND_PREPROCESSING_FAILED", 8, "the command does not fit the Daml types of its template or choice", "the arguments do not match the template or choice: check the field names and types of --args/--arg"},
	{"DAML_INTERPRETATION_ERROR", 9, "the Daml code failed while the command ran", "the Daml code refused the command (an assertion or failed lookup): check the arguments"},
	{"DAML_AUTHORIZATION_ERROR", 8, "a create, exercise or fetch lacks the authority of a party it needs", "the transaction needs the authority of a party not in --act-as"},
	{"DAML_FAILURE", 0, "the Daml code failed with an error of its own (an uncaught exception, failWithStatus); its error_id says which", "read the error_id and cause: the Daml code's own message says what it refused"},
	{"UNHANDLED_EXCEPTION", 9, "a Daml exception was thrown and nothing caught it", "read the exception's message in the cause; fix the arguments or the contract state it checks"},
	{"INTERPRETATION_USER_ERROR", 9, "the Daml code called error or abort", "read the message in the cause"},
	{"TEMPLATE_PRECONDITION_VIOLATED", 8, "the template's ensure clause refused the contract's arguments", "the template's ensure clause refused the arguments: check --args"},
	{"INTERPRETATION_TIME_EXCEEDED", 2, "interpretation ran longer than the ledger time allows", "retry; a long-running choice may need splitting"},
	{"CONTRACT_NOT_FOUND", 11, "a contract the command uses is unknown, archived, or not visible to the submitters", "a contract the command uses is unknown or archived: check the contract id, or prepare again"},
	{"CONTRACT_NOT_ACTIVE", 11, "a contract the command uses has been archived", "a contract the command uses was archived: prepare again with a current contract"},
	{"WRONGLY_TYPED_CONTRACT", 9, "a contract id was used at another template than its own", "use the contract with its own template, or through an interface it implements"},
	{"CONTRACT_KEY_NOT_FOUND", 11, "no active contract visible to the submitters has the key", "check the key's value and maintainers, and that the contract is active"},
	{"DUPLICATE_CONTRACT_KEY", 10, "a create would give a second active contract the same key", "archive the existing contract first, or use another key"},
	{"INCONSISTENT_CONTRACT_KEY", 9, "a key lookup's answer changed between interpretation and confirmation", "retry: the keyed contract changed meanwhile"},
	{"DISCLOSED_CONTRACT_AUTHENTICATION_FAILED", 8, "a disclosed contract's blob does not match the contract it claims to be (ledger serve: or, sent by a party that is no stakeholder, is not a blob the node gave out)", "send the createdEventBlob exactly as the ledger gave it, with its own contract id and template id"},

	// Packages and DARs.
	{"PACKAGE_NOT_FOUND", 11, "the package a template id or a request names is not on the participant", "the node does not know the template's package: check the template id or upload the package"},
	{"PACKAGE_NAMES_NOT_FOUND", 11, "no uploaded package has a package name the request uses (#name:Module:Entity)", "upload the DAR defining it (ledger dars upload), or check the name"},
	{"TEMPLATES_OR_INTERFACES_NOT_FOUND", 11, "a template or interface id of a filter is in no uploaded package", "check the id, or upload its package"},
	{"NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME", 11, "none of the package name's packages defines that template", "check the module and template name of the filter"},
	{"NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME", 11, "none of the package name's packages defines that interface", "check the module and interface name of the filter"},
	{"NO_VETTED_INTERFACE_IMPLEMENTATION_PACKAGE", 9, "no vetted package implements the interface for the contract's template, so its view cannot be computed", "vet a package of the template's package name that implements the interface"},
	{"JSON_API_PACKAGE_SELECTION_FAILED", 9, "the JSON API could not choose package versions for the command", "check the package preferences and that the packages are vetted"},
	{"NO_PREFERRED_PACKAGES_FOUND", 9, "no vetted package version satisfies every party of the request", "vet a common version of the package for the parties' participants"},
	{"INVALID_DAR", 8, "the uploaded bytes are no zip file or have no readable META-INF/MANIFEST.MF", "upload the .dar file the Daml build made, unchanged (ledger dars inspect FILE shows what is wrong)"},
	{"DAR_PARSE_ERROR", 8, "the uploaded bytes are not a valid DAR or Daml-LF archive", "upload the .dar file the Daml build made, unchanged (ledger dars inspect FILE shows what is wrong)"},
	{"DAR_VALIDATION_ERROR", 8, "a package of the DAR is not well typed or not well formed (Daml-LF validation)", "rebuild the DAR with the Daml compiler; ledger dars validate --offline FILE shows the error without a node"},
	{"ZIP_BOMB", 8, "an entry of the uploaded DAR inflates far more than any real DAR's (more than 100 times)", "upload the .dar file the Daml build made, unchanged"},
	{"DAR_DEPENDENCIES_NOT_VALID", 8, "the DAR's dependencies are missing or do not fit its packages", "upload the DARs it depends on first, or build it against the uploaded versions"},
	{"ALLOWED_LANGUAGE_VERSIONS", 8, "a package uses a Daml-LF version the participant does not accept", "build with a supported Daml-LF version (2.1–2.3; 2.dev only with dev mode)"},
	{"KNOWN_PACKAGE_VERSION", 8, "another package with the same name and version but other content is already uploaded", "give the changed package a new version"},
	{"NOT_VALID_UPGRADE_PACKAGE", 8, "the package is not a valid upgrade of an uploaded version of its name", "keep the earlier version's types and choices compatible (new record fields optional and last)"},
	{"TOPOLOGY_DEPENDENCIES_NOT_VETTED", 9, "vetting a package needs its dependencies vetted too", "vet the dependencies first, or in the same change"},
	{"TOPOLOGY_SERIAL_MISMATCH", 9, "the vetting change was made against another serial than the current one", "read the current vetting state again and retry with its serial"},
	{"UNRESOLVED_VETTING_REFERENCE", 11, "a vetting change names a package the participant does not know", "upload the package first, or check its id or name and version"},
	{"AMBIGUOUS_VETTING_REFERENCE", 9, "a vetting change's reference matches several packages", "name the package by its id"},

	// Parties, users and identity providers.
	{"PARTY_NOT_FOUND", 11, "the party is not known to this participant", "the party is not known to this node: check the id (ledger parties list)"},
	{"CONCURRENT_PARTY_DETAILS_UPDATE_DETECTED", 2, "the party's details changed since the resourceVersion the update was made against", "the party changed since it was read: run again with --retry, or without --resource-version"},
	{"INVALID_PARTY_DETAILS_UPDATE_REQUEST", 8, "the party update's field mask or values are not allowed", "update only the local metadata and identity provider fields, with a matching update mask"},
	{"MAX_PARTY_DETAILS_ANNOTATIONS_SIZE_EXCEEDED", 9, "the party's annotations would exceed the size allowed (256 kB)", "store less in annotations"},
	{"USER_NOT_FOUND", 11, "no user with this id (in the caller's identity provider)", "no such user on this node: ledger users list"},
	{"USER_ALREADY_EXISTS", 10, "a user with this id exists already", "the user exists already: ledger users get ID"},
	{"CONCURRENT_USER_UPDATE_DETECTED", 2, "the user changed since the resourceVersion the update was made against", "read the user again and retry with its resourceVersion"},
	{"INVALID_USER_UPDATE_REQUEST", 8, "the user update's field mask or values are not allowed", "update only primaryParty, isDeactivated and the metadata, with a matching update mask (a user changes identity provider through its own endpoint)"},
	{"TOO_MANY_USER_RIGHTS", 9, "the user would have more rights than the participant allows (1,000)", "grant fewer rights, e.g. CanReadAsAnyParty instead of one right per party"},
	{"MAX_USER_ANNOTATIONS_SIZE_EXCEEDED", 9, "the user's annotations would exceed the size allowed (256 kB)", "store less in annotations"},
	{"IDP_CONFIG_NOT_FOUND", 11, "no identity provider with this id", "list them with GET /v2/idps"},
	{"IDP_CONFIG_ALREADY_EXISTS", 10, "an identity provider with this id exists already", "choose another id, or update the existing one"},
	{"IDP_CONFIG_ISSUER_ALREADY_EXISTS", 10, "another identity provider has this issuer", "each issuer belongs to one identity provider: change or delete the other one"},
	{"INVALID_IDENTITY_PROVIDER_UPDATE_REQUEST", 8, "the identity provider update's field mask or values are not allowed", "update only issuer, jwksUrl, audience and isDeactivated, with a matching update mask"},

	// Reads.
	{"UPDATE_NOT_FOUND", 11, "no update with this id or offset is visible to the reading parties", "check the id or offset, and read as a party that witnessed it"},
	{"CONTRACT_EVENTS_NOT_FOUND", 11, "no events of this contract are visible to the reading parties (or they were pruned)", "check the contract id and read as one of its stakeholders"},
	{"CONTRACT_PAYLOAD_NOT_FOUND", 11, "the contract is unknown or not visible to the querying parties", "check the contract id and query as one of its stakeholders"},
})

func sortedCatalog(es []CatalogEntry) []CatalogEntry {
	slices.SortFunc(es, func(a, b CatalogEntry) int { return cmp.Compare(a.ID, b.ID) })
	return es
}

// LookupError finds an error id in the catalogue. The id may be given in
// any case, and as Canton writes it at the head of a message
// ("LOCAL_VERDICT_TIMEOUT(2,1a2b3c4d): …").
func LookupError(id string) (CatalogEntry, bool) {
	id = ErrorIDOf(id)
	i, found := slices.BinarySearchFunc(Catalog, id, func(e CatalogEntry, id string) int { return cmp.Compare(e.ID, id) })
	if !found {
		return CatalogEntry{}, false
	}
	return Catalog[i], true
}

// ErrorIDOf is the error id at the head of s: upper-cased, without the
// "(category,correlation)" and message Canton's status messages append.
func ErrorIDOf(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "(: \t"); i >= 0 {
		s = s[:i]
	}
	return strings.ToUpper(s)
}

// SearchErrors returns the entries whose id starts with prefix, or, when
// none does, contains it.
func SearchErrors(prefix string) []CatalogEntry {
	prefix = ErrorIDOf(prefix)
	var starts, contains []CatalogEntry
	for _, e := range Catalog {
		switch {
		case strings.HasPrefix(e.ID, prefix):
			starts = append(starts, e)
		case strings.Contains(e.ID, prefix):
			contains = append(contains, e)
		}
	}
	if len(starts) > 0 {
		return starts
	}
	return contains
}

// ErrorCategory returns ledgerapi's category of an entry (false for
// DAML_FAILURE's category 0, chosen by the Daml code).
func (e CatalogEntry) ErrorCategory() (ledgerapi.ErrorCategory, bool) {
	return ledgerapi.LookupCategory(e.Category)
}

// ErrorExplanation is one explained error: the -o json|yaml form, and what
// the text form prints.
type ErrorExplanation struct {
	ID       string             `json:"id"`
	Known    bool               `json:"known"`
	Category *ExplainedCategory `json:"category"`
	Meaning  string             `json:"meaning,omitempty"`
	Fix      string             `json:"fix,omitempty"`
	Received *ReceivedError     `json:"received,omitempty"`
}

// ExplainedCategory is a Canton error category as `ledger errors` shows it.
type ExplainedCategory struct {
	ID         int    `json:"id"`
	Name       string `json:"name"`
	HTTPStatus int    `json:"httpStatus"`
	GRPCCode   string `json:"grpcCode,omitempty"`
	Retryable  bool   `json:"retryable"`
	Redacted   bool   `json:"redacted"`
	Advice     string `json:"advice"`
}

// ReceivedError is what an error read from standard input said beyond its id.
type ReceivedError struct {
	Cause         string            `json:"cause,omitempty"`
	CorrelationID string            `json:"correlationId,omitempty"`
	RetryInfo     string            `json:"retryInfo,omitempty"`
	Context       map[string]string `json:"context,omitempty"`
	Hint          string            `json:"hint,omitempty"`
}

// ExplainEntry explains a catalogue entry; category is the one to show
// (the entry's, or for DAML_FAILURE the one the received body carries).
func ExplainEntry(e CatalogEntry, category int) ErrorExplanation {
	return ErrorExplanation{ID: e.ID, Known: true, Category: explainedCategory(category), Meaning: e.Meaning, Fix: e.Fix}
}

func explainedCategory(id int) *ExplainedCategory {
	c, ok := ledgerapi.LookupCategory(id)
	if !ok {
		return nil
	}
	return &ExplainedCategory{ID: c.ID, Name: c.Name, HTTPStatus: c.HTTPStatus, GRPCCode: GRPCCodeName(c.GRPCCode),
		Retryable: c.Retryable, Redacted: c.Redacted, Advice: CategoryAdvice[c.ID]}
}

// ExplainReceived explains an error as a client received it: a JSON error
// body, or text that starts with an error id.
func ExplainReceived(in []byte) (ErrorExplanation, error) {
	in = bytes.TrimSpace(in)
	if len(in) == 0 {
		return ErrorExplanation{}, UsageError("standard input is empty: pipe an error body or a line starting with an error id into 'ledger errors -'")
	}
	if in[0] != '{' {
		id := ErrorIDOf(string(in))
		e, ok := LookupError(id)
		if !ok {
			return ErrorExplanation{}, UsageError("%q is not an error id the catalogue knows%s", id, NearErrorIDs(id))
		}
		return ExplainEntry(e, e.Category), nil
	}
	ce, err := ledgerapi.DecodeError(in)
	if err != nil {
		return ErrorExplanation{}, fmt.Errorf("standard input is not a JSON API error body: %w", err)
	}
	x := ErrorExplanation{ID: ce.Code, Category: explainedCategory(ce.ErrorCategory)}
	if e, ok := LookupError(ce.Code); ok {
		category := e.Category
		if category == 0 || ce.ErrorCategory != 0 && ce.ErrorCategory != category {
			category = ce.ErrorCategory // DAML_FAILURE's, chosen by the Daml code; or the body's own
		}
		x = ExplainEntry(e, category)
	}
	if ce.IsRedacted() {
		// A redacted body carries no category (-1); its gRPC code says
		// which of the two redacted refusals of a request it is.
		switch {
		case ce.GRPCCodeValue != nil && *ce.GRPCCodeValue == ledgerapi.GRPCUnauthenticated:
			x.Category = explainedCategory(ledgerapi.CodeUnauthenticated.Category)
		case ce.GRPCCodeValue != nil && *ce.GRPCCodeValue == ledgerapi.GRPCPermissionDenied:
			x.Category = explainedCategory(ledgerapi.CodePermissionDenied.Category)
		}
		x.Meaning = "the node withheld the error's details (a security-sensitive refusal: a bad token, a missing right, an unknown user)"
		x.Fix = "check the token and the user's rights; the node's operator finds the reason in its log under the correlation id"
	}
	r := &ReceivedError{Cause: ce.Cause, Hint: HintFor(ce)}
	if ce.CorrelationID != nil {
		r.CorrelationID = *ce.CorrelationID
	}
	if ce.RetryInfo != nil {
		r.RetryInfo = *ce.RetryInfo
	}
	if len(ce.Context) > 0 {
		r.Context = map[string]string{}
		for k, v := range ce.Context {
			if k != "category" && k != "tid" { // the category is shown, the trace id is the correlation's
				r.Context[k] = v
			}
		}
	}
	if r.Hint == x.Fix {
		r.Hint = ""
	}
	x.Received = r
	return x, nil
}

// NearErrorIDs suggests catalogue ids sharing the query's first word.
func NearErrorIDs(q string) string {
	head, _, _ := strings.Cut(ErrorIDOf(q), "_")
	if len(head) < 3 {
		return ""
	}
	var near []string
	for _, e := range SearchErrors(head) {
		near = append(near, e.ID)
		if len(near) == 5 {
			break
		}
	}
	if len(near) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(near, ", ") + "?"
}
