package server

import (
	"fmt"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/topology"
)

// generateExternalPartyTopology answers POST
// /v2/parties/external/generate-topology for any authenticated caller: the
// onboarding transactions of a party whose Ed25519 key is both its namespace
// and its signing key, hosted on this node, and their multi-hash.
func (s *Server) generateExternalPartyTopology(req *Request) (any, error) {
	var body ledgerapi.GenerateExternalPartyTopologyRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	if err := s.checkSynchronizer("synchronizer", body.Synchronizer); err != nil {
		return nil, err
	}
	if body.PartyHint == "" {
		return nil, ledgerapi.MissingField("party_hint")
	}
	if len(body.PublicKey.KeyData) == 0 {
		return nil, ledgerapi.MissingField("public_key")
	}
	key, err := topology.Ed25519FromAPI(string(body.PublicKey.Format), body.PublicKey.KeyData, string(body.PublicKey.KeySpec))
	if err != nil {
		return nil, ledgerapi.InvalidField("public_key", err.Error())
	}
	if body.ConfirmationThreshold < 0 {
		return nil, ledgerapi.InvalidField("confirmation_threshold", "must not be negative")
	}
	ob, err := s.Node.GenerateExternalParty(topology.OnboardingRequest{
		PartyHint:                      body.PartyHint,
		PublicKey:                      key,
		SynchronizerID:                 body.Synchronizer,
		LocalObservationOnly:           body.LocalParticipantObservationOnly,
		OtherConfirmingParticipantUIDs: body.OtherConfirmingParticipantUIDs,
		ObservingParticipantUIDs:       body.ObservingParticipantUIDs,
		ConfirmationThreshold:          int(body.ConfirmationThreshold),
	})
	if err != nil {
		return nil, err
	}
	txs := make(ledgerapi.List[ledgerapi.Bytes], 0, len(ob.Transactions))
	for _, tx := range ob.Transactions {
		txs = append(txs, tx)
	}
	return ledgerapi.GenerateExternalPartyTopologyResponse{
		PartyID:              ob.PartyID,
		PublicKeyFingerprint: ob.Fingerprint,
		TopologyTransactions: txs,
		MultiHash:            ob.MultiHash,
	}, nil
}

// signatures converts the signatures of an allocate request; only Ed25519
// signatures in the concat (or raw) format are accepted.
func signatures(field string, in []ledgerapi.Signature) ([]topology.Signature, error) {
	out := make([]topology.Signature, 0, len(in))
	for i, sg := range in {
		f := fmt.Sprintf("%s[%d]", field, i)
		switch sg.SigningAlgorithmSpec {
		case ledgerapi.SigningAlgorithmSpecEd25519, ledgerapi.SigningAlgorithmSpecUnspecified:
		default:
			return nil, ledgerapi.InvalidField(f+".signing_algorithm_spec", fmt.Sprintf("%s is not supported; this node accepts Ed25519 signatures only", sg.SigningAlgorithmSpec))
		}
		switch sg.Format {
		case ledgerapi.SignatureFormatConcat, ledgerapi.SignatureFormatRaw, ledgerapi.SignatureFormatUnspecified:
		default:
			return nil, ledgerapi.InvalidField(f+".format", fmt.Sprintf("%s is not supported for Ed25519 signatures; use SIGNATURE_FORMAT_CONCAT", sg.Format))
		}
		if err := ledgerapi.ValidateFingerprint(f+".signed_by", sg.SignedBy); err != nil {
			return nil, ledgerapi.InvalidField(f+".signed_by", fieldReason(err))
		}
		out = append(out, topology.Signature{SignedBy: sg.SignedBy, Signature: sg.Signature})
	}
	return out, nil
}

// allocateExternalParty answers POST /v2/parties/external/allocate: it
// reads the signed onboarding transactions, which the node verifies before
// it records the party with its signing keys.
func (s *Server) allocateExternalParty(req *Request) (any, error) {
	var body ledgerapi.AllocateExternalPartyRequest
	if err := decodeBody(req.Request, &body); err != nil {
		return nil, err
	}
	idp, err := s.allocateAuth(req, body.IdentityProviderID)
	if err != nil {
		return nil, err
	}
	if err := s.checkSynchronizer("synchronizer", body.Synchronizer); err != nil {
		return nil, err
	}
	if len(body.OnboardingTransactions) == 0 {
		return nil, ledgerapi.MissingField("onboarding_transactions")
	}
	if err := validGrantUser(body.UserID); err != nil {
		return nil, err
	}
	var ar topology.AllocationRequest
	for i, tx := range body.OnboardingTransactions {
		if len(tx.Transaction) == 0 {
			return nil, ledgerapi.MissingField(fmt.Sprintf("onboarding_transactions[%d].transaction", i))
		}
		sigs, err := signatures(fmt.Sprintf("onboarding_transactions[%d].signatures", i), tx.Signatures)
		if err != nil {
			return nil, err
		}
		ar.Transactions = append(ar.Transactions, topology.SignedTransaction{Transaction: tx.Transaction, Signatures: sigs})
	}
	if ar.MultiHashSignatures, err = signatures("multi_hash_signatures", body.MultiHashSignatures); err != nil {
		return nil, err
	}
	if err := s.grantUser(req.Context(), body.UserID, idp); err != nil {
		return nil, err
	}
	party, err := s.Node.AllocateExternalParty(req.Context(), ar, idp, body.UserID)
	if err != nil {
		return nil, err
	}
	return ledgerapi.AllocateExternalPartyResponse{PartyID: party}, nil
}
