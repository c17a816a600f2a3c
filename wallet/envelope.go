package wallet

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/internal/atomicfile"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// Form says what kind of input ParseEnvelope found.
type Form int

const (
	// FormBase64 is a bare base64 preparedTransaction.
	FormBase64 Form = iota + 1
	// FormPrepareResponse is a prepare response as the node returns it.
	FormPrepareResponse
	// FormEnvelope is a file written by `ledger prepare` or `ledger sign`.
	FormEnvelope
)

func (f Form) String() string {
	switch f {
	case FormBase64:
		return "base64 prepared transaction"
	case FormPrepareResponse:
		return "prepare response"
	case FormEnvelope:
		return "envelope"
	}
	return "unknown"
}

// EnvelopeFormat and EnvelopeVersion identify envelope files; a file with a
// newer version is refused rather than half-understood.
const (
	EnvelopeFormat  = "ledger-envelope"
	EnvelopeVersion = 1
)

// Envelope is the one file that carries a prepared transaction from the
// online machine to the offline signer and back.
//
// It is a JSON object that is a superset of the body of
// POST /v2/interactive-submission/execute, so a signed envelope can be sent
// as is (`curl -d @signed.json …/execute`); Canton ignores unknown fields.
// Besides the execute fields (preparedTransaction, partySignatures,
// deduplicationPeriod, submissionId, userId, hashingSchemeVersion,
// minLedgerTime) it keeps the node's preparedTransactionHash and, under the
// single key "envelope", what the online machine knew: the prepare request,
// the node URL, when it was prepared and the cost estimate, and, when asked
// for, the Daml packages the transaction needs. (ledger execute sends the
// execute fields alone; a curl of the whole file sends the packages too,
// which Canton ignores.)
//
// ParseEnvelope also accepts the two other forms a user is likely to hold:
// the prepare response exactly as a Canton node returns it, and a bare
// base64 preparedTransaction.
//
// Field order follows the execute request; the wire
// types are ledgerapi's, except preparedTransaction, which is kept as the
// exact base64 text the node sent so it goes back unchanged.
type Envelope struct {
	PreparedTransaction  string                        `json:"preparedTransaction"`
	PartySignatures      ledgerapi.PartySignatures     `json:"partySignatures"`
	DeduplicationPeriod  ledgerapi.DeduplicationPeriod `json:"deduplicationPeriod"`
	SubmissionID         string                        `json:"submissionId"`
	UserID               string                        `json:"userId"`
	HashingSchemeVersion string                        `json:"hashingSchemeVersion"`
	MinLedgerTime        *ledgerapi.MinLedgerTime      `json:"minLedgerTime"`

	PreparedTransactionHash string                    `json:"preparedTransactionHash"`
	HashingDetails          *string                   `json:"hashingDetails,omitempty"`
	CostEstimation          *ledgerapi.CostEstimation `json:"costEstimation,omitempty"`
	Info                    *EnvelopeInfo             `json:"envelope,omitempty"`

	// Form is how the input looked when loaded; not written.
	Form Form `json:"-"`
}

// EnvelopeInfo is what the online machine recorded when it prepared the
// transaction.
type EnvelopeInfo struct {
	Format         string          `json:"format"`
	Version        int             `json:"version"`
	NodeURL        string          `json:"nodeUrl,omitempty"`
	PreparedAt     string          `json:"preparedAt,omitempty"`
	PrepareRequest json.RawMessage `json:"prepareRequest,omitempty"`
	// Packages are the Daml packages the transaction names and those they
	// depend on (ledger prepare --with-packages), for the signer to re-run
	// its Daml code with nothing else at hand. Each is checked against its
	// id before use.
	Packages []EnvelopePackage `json:"packages,omitempty"`
}

// MaxEnvelopeSize bounds what ReadEnvelope reads; prepared transactions are
// far smaller.
const MaxEnvelopeSize = 256 << 20

// ReadEnvelope loads path, or standard input when path is "-".
func ReadEnvelope(path string, stdin io.Reader) (*Envelope, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = io.ReadAll(io.LimitReader(stdin, MaxEnvelopeSize+1))
	} else {
		data, err = readLimited(path)
	}
	if err != nil {
		return nil, err
	}
	if len(data) > MaxEnvelopeSize {
		return nil, fmt.Errorf("%s: larger than %d MiB; this is not a prepared transaction", displayName(path), MaxEnvelopeSize>>20)
	}
	env, err := ParseEnvelope(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", displayName(path), err)
	}
	return env, nil
}

func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxEnvelopeSize+1))
}

func displayName(path string) string {
	if path == "-" {
		return "standard input"
	}
	return path
}

// ParseEnvelope detects the form of data and decodes it.
func ParseEnvelope(data []byte) (*Envelope, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, errors.New("input is empty: want a prepare response, an envelope or a base64 preparedTransaction")
	}
	if trimmed[0] != '{' {
		text := strings.Join(strings.Fields(string(trimmed)), "")
		if _, err := ledgerapi.DecodeBase64(text); err != nil {
			return nil, fmt.Errorf("input is neither JSON nor base64: %w", err)
		}
		return &Envelope{PreparedTransaction: text, Form: FormBase64}, nil
	}
	var env Envelope
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(&env); err != nil {
		return nil, fmt.Errorf("malformed JSON: %w", err)
	}
	if env.PreparedTransaction == "" {
		return nil, errors.New(`JSON has no "preparedTransaction": want a prepare response or an envelope`)
	}
	if _, err := ledgerapi.DecodeBase64(env.PreparedTransaction); err != nil {
		return nil, fmt.Errorf("preparedTransaction: %w", err)
	}
	env.Form = FormPrepareResponse
	if env.Info != nil {
		if env.Info.Format != EnvelopeFormat {
			return nil, fmt.Errorf(`"envelope.format" is %q, want %q`, env.Info.Format, EnvelopeFormat)
		}
		if env.Info.Version > EnvelopeVersion {
			return nil, fmt.Errorf("envelope version %d is newer than this ledger understands (%d): upgrade ledger", env.Info.Version, EnvelopeVersion)
		}
		env.Form = FormEnvelope
	} else if len(env.PartySignatures.Signatures) > 0 {
		env.Form = FormEnvelope
	}
	return &env, nil
}

// Raw returns the decoded protobuf bytes of the prepared transaction.
func (e *Envelope) Raw() ([]byte, error) { return ledgerapi.DecodeBase64(e.PreparedTransaction) }

// ErrNoScheme is Scheme's error for an envelope or prepare response that
// names no hashing scheme.
var ErrNoScheme = errors.New(`"hashingSchemeVersion" is missing: the node's response always names it`)

// Scheme returns the hashing scheme the input names. Bare base64 names none:
// it defaults to V2, as Canton's prepare does.
func (e *Envelope) Scheme() (hashing.Scheme, error) {
	if e.HashingSchemeVersion == "" {
		if e.Form == FormBase64 {
			return hashing.V2, nil
		}
		return 0, ErrNoScheme
	}
	s, err := hashing.ParseScheme(e.HashingSchemeVersion)
	if err != nil {
		return 0, fmt.Errorf("hashingSchemeVersion: %w", err)
	}
	return s, nil
}

// NodeHash returns the node's preparedTransactionHash, or nil when the input
// carries none.
func (e *Envelope) NodeHash() ([]byte, error) {
	if e.PreparedTransactionHash == "" {
		return nil, nil
	}
	b, err := ledgerapi.DecodeBase64(e.PreparedTransactionHash)
	if err != nil {
		return nil, fmt.Errorf("preparedTransactionHash: %w", err)
	}
	if len(b) != 32 {
		return nil, fmt.Errorf("preparedTransactionHash has %d bytes, want 32", len(b))
	}
	return b, nil
}

// Marshal renders the envelope as indented JSON with every execute field
// present, as Canton's execute decoder requires.
func (e *Envelope) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// WriteFile writes the envelope atomically: a crash leaves either the old file
// or the new one, never half of it.
func (e *Envelope) WriteFile(path string) error {
	b, err := e.Marshal()
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b, 0o644)
}
