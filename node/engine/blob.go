package engine

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// Sealed created event blobs.
//
// Canton authenticates a disclosed contract against its contract id, whose
// suffix commits to the contract's content under a salt only the
// contract's stakeholders ever see; a hand-built blob cannot carry that
// salt. The ids this node makes have no such suffix yet, and a blob is a
// deterministic encoding of the contract, so a party that guessed every
// field could build a blob byte for byte; were such blobs checked against
// the stored contract for anyone, a party that cannot see the contract
// would learn from "does not match" against "proceeds" whether its guess
// was right, one field at a time.
//
// So every blob the node gives out (CreatedEventBlob, the input contracts
// of a prepared transaction) is sealed: it ends in a field the decoder of
// Metadata.InputContract skips as unknown (blobSealField) holding the
// HMAC-SHA256 of the bytes before it under the node's Config.BlobKey. A
// disclosed contract the node holds is taken from a submission none of
// whose actAs and readAs parties is a stakeholder only with an intact
// seal: a blob the node did not give out — whether it matches the contract
// or not — is DISCLOSED_CONTRACT_AUTHENTICATION_FAILED with one message
// that names only the contract id the submitter sent. A stakeholder, who
// sees the contract anyway, may send an unsealed blob that describes it
// exactly, and is told when it does not.

// blobSealField is the field number of the seal: unknown to
// Metadata.InputContract, so other decoders of the blob skip it.
const blobSealField protowire.Number = 19999

// sealLen is the length of the seal field: its tag, the length byte and a
// SHA-256 HMAC.
var sealLen = protowire.SizeTag(blobSealField) + 1 + sha256.Size

func (e *Engine) blobMAC(body []byte) []byte {
	m := hmac.New(sha256.New, e.cfg.BlobKey)
	m.Write(body)
	return m.Sum(nil)
}

// seal appends the seal of body to it.
func (e *Engine) seal(body []byte) []byte {
	b := protowire.AppendTag(body, blobSealField, protowire.BytesType)
	return protowire.AppendBytes(b, e.blobMAC(body))
}

// sealed reports whether blob ends in an intact seal of this node.
func (e *Engine) sealed(blob []byte) bool {
	if len(blob) < sealLen {
		return false
	}
	body, tail := blob[:len(blob)-sealLen], blob[len(blob)-sealLen:]
	num, typ, n := protowire.ConsumeTag(tail)
	if n < 0 || num != blobSealField || typ != protowire.BytesType {
		return false
	}
	mac, m := protowire.ConsumeBytes(tail[n:])
	return m == len(tail)-n && hmac.Equal(mac, e.blobMAC(body))
}

// inputContract is the metadata entry of a contract the transaction uses:
// its create node, creation time and sealed blob.
func (e *Engine) inputContract(c *ledger.Contract) (*damlpb.Metadata_InputContract, error) {
	create, err := createNodeOf(c)
	if err != nil {
		return nil, err
	}
	ic := &damlpb.Metadata_InputContract{
		Contract:  &damlpb.Metadata_InputContract_V1{V1: create},
		CreatedAt: uint64(c.CreatedAt.UnixMicro()),
	}
	blob, err := proto.MarshalOptions{Deterministic: true}.Marshal(ic)
	if err != nil {
		return nil, err
	}
	ic.EventBlob = e.seal(blob)
	return ic, nil
}

// CreatedEventBlob is the createdEventBlob of a contract, which a client
// passes back in disclosedContracts: a Metadata.InputContract (its create
// node and created_at) in binary protobuf, sealed by this node.
func (e *Engine) CreatedEventBlob(c *ledger.Contract) ([]byte, error) {
	ic, err := e.inputContract(c)
	if err != nil {
		return nil, err
	}
	return ic.EventBlob, nil
}

// isViewer reports whether a submitting party is a stakeholder of c.
func isViewer(c *ledger.Contract, actAs, readAs []string) bool {
	for _, p := range c.Stakeholders {
		if slices.Contains(actAs, p) || slices.Contains(readAs, p) {
			return true
		}
	}
	return false
}

// authenticInput checks an input contract of a prepared transaction to
// execute for the contract the node holds under its id (stored): when no
// actAs party is a stakeholder of it, the input contract must be exactly
// what the node's prepare wrote, its sealed blob included. Every other
// input contract answers the same, naming only the id the executing party
// sent; the comparison with the stored contract for stakeholders comes
// after.
func (e *Engine) authenticInput(ic *damlpb.Metadata_InputContract, stored *ledger.Contract, actAs []string) error {
	if isViewer(stored, actAs, nil) {
		return nil
	}
	want, err := e.inputContract(stored)
	if err != nil {
		return err
	}
	if bytes.Equal(ic.GetEventBlob(), want.EventBlob) && sameInputContract(ic, want) {
		return nil
	}
	return disclosedAuthenticationFailed("input contract %s is not one this participant gave out; "+
		"execute the prepared transaction exactly as the participant prepared it", stored.ContractID)
}

// CodeDisclosedContractAuthenticationFailed is Canton's error for a
// disclosed contract that does not authenticate against its contract id
// (TransactionRoutingError.ConfigurationErrors).
var CodeDisclosedContractAuthenticationFailed = ledgerapi.ErrorCode{ID: "DISCLOSED_CONTRACT_AUTHENTICATION_FAILED", Category: 8}

func disclosedAuthenticationFailed(format string, args ...any) *ledgerapi.JsCantonError {
	return ledgerapi.Errorf(CodeDisclosedContractAuthenticationFailed, "Disclosed contract authentication failed: "+format, args...)
}
