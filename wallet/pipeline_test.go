package wallet

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"github.com/ledger-cli/ledger/signer"
)

// signNow is before the max_record_time of the rich vectors.
var signNow = time.UnixMicro(1754534200000000).UTC()

// pipelineFixture writes a prepare response of the rich V2 vector acting as
// the party whose namespace key is key, and the key's file.
func pipelineFixture(t *testing.T) (src Source, keyFile string, key *signer.Key, party string) {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join(vectorDir, "derived", "rich_v2.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		B64 string `json:"prepared_transaction_b64"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if key, err = signer.Generate(rand.Reader); err != nil {
		t.Fatal(err)
	}
	party = "alice::" + key.Fingerprint()
	raw, _ := base64.StdEncoding.DecodeString(v.B64)
	var pt damlpb.PreparedTransaction
	if err := proto.Unmarshal(raw, &pt); err != nil {
		t.Fatal(err)
	}
	pt.Metadata.SubmitterInfo.ActAs = []string{party}
	if raw, err = proto.Marshal(&pt); err != nil {
		t.Fatal(err)
	}
	sum, err := hashing.Sum(raw, hashing.V2)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"preparedTransaction": base64.StdEncoding.EncodeToString(raw),
		"preparedTransactionHash": base64.StdEncoding.EncodeToString(sum[:]), "hashingSchemeVersion": "HASHING_SCHEME_VERSION_V2"})
	path := filepath.Join(dir, "tx.json")
	if err := os.WriteFile(path, body, 0o600); err != nil {
		t.Fatal(err)
	}
	keyFile = filepath.Join(dir, "alice.key")
	if err := signer.WriteKeyFile(keyFile, signer.MarshalPlaintextKeyFile(key), false); err != nil {
		t.Fatal(err)
	}
	return Source{Path: path}, keyFile, key, party
}

// Sign is the whole use case in one call: it signs the recomputed hash,
// and each refusal stops the pipeline before the steps a person sees.
func TestSignPipeline(t *testing.T) {
	src, keyFile, key, party := pipelineFixture(t)
	asked := 0
	req := SignRequest{Now: signNow, KeyFile: keyFile, Confirm: func(c *Confirmation) error {
		asked++
		if c.Party != party || c.Fingerprint != key.Fingerprint() || c.KeyWarning != nil {
			t.Errorf("confirmation %+v", c)
		}
		return nil
	}}
	signed, err := Sign(src, req)
	if err != nil {
		t.Fatal(err)
	}
	if asked != 1 || signed.Party != party {
		t.Fatalf("asked %d times, signed as %s", asked, signed.Party)
	}
	checks := signed.Reviewed.Envelope.CheckSignatures(signed.Reviewed.Result.Hash, []signer.PublicKey{key.Public()})
	if len(checks) != 1 || checks[0].Err != nil {
		t.Fatalf("signature checks: %+v", checks)
	}
	v, err := Verify(src, VerifyRequest{})
	if err != nil || !v.Check.Match || v.Check.Recomputed != signed.Reviewed.Result.Hash {
		t.Fatalf("Verify of the same file: %+v, %v", v, err)
	}

	refusals := map[string]struct {
		change func(*SignRequest)
		want   any
	}{
		"past the deadline":  {func(r *SignRequest) { r.Now = signNow.Add(24 * 365 * time.Hour) }, new(*DeadlinePassedError)},
		"outside the policy": {func(r *SignRequest) { r.Policy = &Policy{Templates: []string{"Other:Template"}} }, new(*PolicyError)},
		// No packages in the envelope, none given: the policy makes them
		// mandatory.
		"not re-interpreted": {func(r *SignRequest) { r.Policy = &Policy{RequireReinterpretation: true} }, new(*PolicyError)},
		"another party":      {func(r *SignRequest) { r.Party = "bob::1220" }, new(*PartyError)},
		"declined": {func(r *SignRequest) {
			r.Confirm = func(*Confirmation) error { return errDeclined }
		}, &errDeclined},
	}
	for name, c := range refusals {
		t.Run(name, func(t *testing.T) {
			r := req
			confirmed, unlocked := false, false
			r.Confirm = func(*Confirmation) error { confirmed = true; return nil }
			r.Passphrase = func() ([]byte, error) { unlocked = true; return nil, nil }
			c.change(&r)
			_, err := Sign(src, r)
			if target, ok := c.want.(*error); ok {
				if !errors.Is(err, *target) {
					t.Fatalf("err = %v", err)
				}
			} else if !errors.As(err, c.want) {
				t.Fatalf("err = %v, want %T", err, c.want)
			}
			if name != "declined" && confirmed {
				t.Error("asked for confirmation after a refusal")
			}
			if unlocked {
				t.Error("asked for the passphrase")
			}
		})
	}
}

var errDeclined = errors.New("declined")

// A key that is not the party's namespace key is refused unless allowed,
// and then handed to Confirm as a warning.
func TestSignForeignKey(t *testing.T) {
	src, _, _, _ := pipelineFixture(t)
	other, err := signer.Generate(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	otherFile := filepath.Join(t.TempDir(), "other.key")
	if err := signer.WriteKeyFile(otherFile, signer.MarshalPlaintextKeyFile(other), false); err != nil {
		t.Fatal(err)
	}
	var foreign *ForeignKeyError
	if _, err := Sign(src, SignRequest{Now: signNow, KeyFile: otherFile}); !errors.As(err, &foreign) {
		t.Fatalf("err = %v", err)
	}
	var warned error
	_, err = Sign(src, SignRequest{Now: signNow, KeyFile: otherFile, AllowForeignKey: true,
		Confirm: func(c *Confirmation) error { warned = c.KeyWarning; return nil }})
	if err != nil || !errors.As(warned, &foreign) {
		t.Fatalf("err = %v, warning %v", err, warned)
	}
}

// A bare transaction has no node hash to sign against.
func TestSignRefusesBareTransaction(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(vectorDir, "derived", "rich_v2.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		B64 string `json:"prepared_transaction_b64"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tx.b64")
	if err := os.WriteFile(path, []byte(v.B64), 0o600); err != nil {
		t.Fatal(err)
	}
	var bare *BareTransactionError
	if _, err := Sign(Source{Path: path}, SignRequest{Now: signNow}); !errors.As(err, &bare) {
		t.Fatalf("err = %v", err)
	}
}
