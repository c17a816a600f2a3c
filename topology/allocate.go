package topology

import (
	"crypto/ed25519"
	"errors"
	"fmt"
)

// ErrBadSignature is wrapped by VerifyAllocation errors about a signature
// that does not verify, so that a server can tell them from malformed input.
var ErrBadSignature = errors.New("invalid signature")

// Signature is one Ed25519 signature of an allocate request: SignedBy is the
// fingerprint of the signing key, Signature the 64 signature bytes.
type Signature struct {
	SignedBy  string
	Signature []byte
}

// SignedTransaction is one entry of onboardingTransactions.
type SignedTransaction struct {
	Transaction []byte
	Signatures  []Signature
}

// AllocationRequest holds what VerifyAllocation needs from
// POST /v2/parties/external/allocate.
type AllocationRequest struct {
	Transactions []SignedTransaction
	// MultiHashSignatures sign MultiHash of all the transactions' hashes.
	MultiHashSignatures []Signature
	// ParticipantUID is the participant the request was sent to.
	ParticipantUID string
}

// ExternalParty is what a verified allocation establishes.
type ExternalParty struct {
	PartyID   string
	Hint      string
	Namespace string // fingerprint of the namespace key
	// SigningKeys (Ed25519 only) and SigningThreshold are the party's
	// protocol signing keys: what execute checks signatures against.
	SigningKeys           []SigningKey
	SigningThreshold      uint32
	Hosting               []HostingParticipant
	ConfirmationThreshold uint32
	Transactions          []*Transaction
}

// VerifyAllocation checks an allocate request the way a participant must
// before it records an external party, for a node that hosts parties with
// Ed25519 keys only:
//
//   - every transaction decodes, adds (ADD_REPLACE), and is a namespace
//     delegation, party-to-key mapping or party-to-participant;
//   - exactly one party-to-participant, at most one of each other kind; no
//     participant has Submission permission, at least one confirms, and
//     ParticipantUID hosts the party (confirming, if it is the only host);
//   - the signing keys are set exactly once, in the party-to-participant or in
//     a party-to-key mapping, all with usage PROTOCOL, and the namespace key,
//     if among them, also with NAMESPACE; the party-to-key mapping names the
//     same party;
//   - a namespace delegation is a root delegation for the party's namespace;
//   - the key of the party's namespace is known (from the delegation, or from
//     the party_to_participant's signing keys), and every transaction is signed by it and by every
//     signing key it introduces, each signature either over the transaction's
//     own hash or over the multi-hash of all transactions.
//
// Unsigned transactions, decentralized namespaces and non-Ed25519 keys are
// refused: Canton accepts some of them, this node does not support them.
func VerifyAllocation(req AllocationRequest) (*ExternalParty, error) {
	if len(req.Transactions) == 0 {
		return nil, fmt.Errorf("onboardingTransactions is empty")
	}
	local, err := participantUID(req.ParticipantUID)
	if err != nil {
		return nil, fmt.Errorf("hosting participant: %w", err)
	}

	txs := make([]*Transaction, len(req.Transactions))
	hashes := make([][]byte, len(req.Transactions))
	var nsd, p2k, p2p *Transaction
	for i, st := range req.Transactions {
		tx, err := Decode(st.Transaction)
		if err != nil {
			return nil, fmt.Errorf("onboardingTransactions[%d]: %w", i, err)
		}
		if tx.Operation != OpAddReplace {
			return nil, fmt.Errorf("onboardingTransactions[%d]: operation is %s; onboarding only adds mappings (%s)", i, tx.Operation, OpAddReplace)
		}
		slot := map[MappingKind]**Transaction{KindNamespaceDelegation: &nsd, KindPartyToKeyMapping: &p2k, KindPartyToParticipant: &p2p}[tx.Mapping.Kind]
		if slot == nil {
			return nil, fmt.Errorf("onboardingTransactions[%d]: %s mappings are not supported; send a namespace delegation, party-to-key mapping and party-to-participant", i, tx.Mapping.Kind)
		}
		if *slot != nil {
			return nil, fmt.Errorf("onboardingTransactions[%d]: a second %s; send at most one of each kind", i, tx.Mapping.Kind)
		}
		*slot = tx
		txs[i], hashes[i] = tx, tx.Hash
	}
	if p2p == nil {
		return nil, fmt.Errorf("onboardingTransactions has no party_to_participant transaction; exactly one is required")
	}
	ptp := p2p.Mapping.PartyToParticipant
	hint, namespace, err := SplitUID(ptp.Party)
	if err != nil {
		return nil, fmt.Errorf("party_to_participant.party: %w", err)
	}
	party := &ExternalParty{PartyID: ptp.Party, Hint: hint, Namespace: namespace, Hosting: ptp.Participants,
		ConfirmationThreshold: ptp.Threshold, Transactions: txs}

	if err := checkHosting(ptp); err != nil {
		return nil, fmt.Errorf("party_to_participant: %w", err)
	}
	hostedHere := false
	for _, h := range ptp.Participants {
		hostedHere = hostedHere || h.ParticipantUID == local
	}
	if !hostedHere {
		return nil, fmt.Errorf("party_to_participant does not host the party on this participant (%s); send the request to a hosting participant", local)
	}
	if len(ptp.Participants) == 1 && ptp.Participants[0].Permission != PermissionConfirmation {
		return nil, fmt.Errorf("this participant (%s) is the only host, so it must have Confirmation permission", local)
	}

	switch {
	case ptp.HasSigningKeys && p2k != nil:
		return nil, fmt.Errorf("the party's signing keys are in both the party_to_participant and a party_to_key_mapping; put them in one only")
	case ptp.HasSigningKeys:
		party.SigningKeys, party.SigningThreshold = ptp.SigningKeys, ptp.SigningThreshold
	case p2k != nil:
		k := p2k.Mapping.PartyToKeyMapping
		if k.Party != ptp.Party {
			return nil, fmt.Errorf("party_to_key_mapping is for party %s, party_to_participant for %s", k.Party, ptp.Party)
		}
		party.SigningKeys, party.SigningThreshold = k.Keys, k.Threshold
	default:
		return nil, fmt.Errorf("no signing keys: set party_signing_keys in the party_to_participant (or send a party_to_key_mapping)")
	}
	if len(party.SigningKeys) == 0 {
		return nil, fmt.Errorf("the party's signing key list is empty")
	}
	if party.SigningThreshold < 1 || int(party.SigningThreshold) > len(party.SigningKeys) {
		return nil, fmt.Errorf("signing threshold %d does not fit %d signing key(s)", party.SigningThreshold, len(party.SigningKeys))
	}
	keys := map[string]ed25519.PublicKey{} // fingerprint → key, of every key in the request
	for i, k := range party.SigningKeys {
		if k.Ed25519 == nil {
			return nil, fmt.Errorf("signing key %d (%s, %s) is not an Ed25519 key; this node supports Ed25519 only", i, k.Fingerprint, k.Spec)
		}
		if !k.HasUsage("PROTOCOL") {
			return nil, fmt.Errorf("signing key %s lacks usage PROTOCOL", k.Fingerprint)
		}
		if k.Fingerprint == namespace && !k.HasUsage("NAMESPACE") {
			return nil, fmt.Errorf("signing key %s is the namespace key but lacks usage NAMESPACE", k.Fingerprint)
		}
		keys[k.Fingerprint] = k.Ed25519
	}
	if nsd != nil {
		d := nsd.Mapping.NamespaceDelegation
		if !d.IsRoot() {
			return nil, fmt.Errorf("namespace_delegation is not a root delegation: namespace %s is not the fingerprint of its target key (%s)", d.Namespace, d.Target.Fingerprint)
		}
		if d.Namespace != namespace {
			return nil, fmt.Errorf("namespace_delegation is for namespace %s, the party is in %s", d.Namespace, namespace)
		}
		if d.Target.Ed25519 == nil {
			return nil, fmt.Errorf("namespace_delegation target key %s is not an Ed25519 key; this node supports Ed25519 only", d.Target.Fingerprint)
		}
		keys[d.Target.Fingerprint] = d.Target.Ed25519
	}
	// Authority over the namespace comes from a root delegation or, since
	// Canton 3.4, from the namespace key among the party_to_participant's own
	// signing keys; a party_to_key_mapping does not give it.
	namespaceKeyed := nsd != nil
	for _, k := range ptp.SigningKeys {
		namespaceKeyed = namespaceKeyed || k.Fingerprint == namespace
	}
	if !namespaceKeyed {
		return nil, fmt.Errorf("no key for the party's namespace %s: send its root namespace_delegation or put that key in the party_to_participant's party_signing_keys", namespace)
	}

	// Who signed what.
	multi := MultiHash(hashes)
	multiSigners := map[string]bool{}
	for i, s := range req.MultiHashSignatures {
		if err := verify(keys, s, multi); err != nil {
			return nil, fmt.Errorf("multiHashSignatures[%d]: %w", i, err)
		}
		multiSigners[s.SignedBy] = true
	}
	for i, st := range req.Transactions {
		signers := map[string]bool{}
		for j, s := range st.Signatures {
			if err := verify(keys, s, hashes[i]); err != nil {
				return nil, fmt.Errorf("onboardingTransactions[%d].signatures[%d]: %w", i, j, err)
			}
			signers[s.SignedBy] = true
		}
		need := []string{namespace}
		if txs[i] == p2p && ptp.HasSigningKeys || txs[i] == p2k {
			for _, k := range party.SigningKeys {
				need = append(need, k.Fingerprint)
			}
		}
		for _, fp := range need {
			if !signers[fp] && !multiSigners[fp] {
				return nil, fmt.Errorf("onboardingTransactions[%d] (%s) is not signed by key %s; sign its hash or the multi-hash with it", i, txs[i].Mapping.Kind, fp)
			}
		}
	}
	return party, nil
}

func verify(keys map[string]ed25519.PublicKey, s Signature, hash []byte) error {
	key := keys[s.SignedBy]
	if key == nil {
		return fmt.Errorf("signedBy %q is not the fingerprint of a key in these transactions", s.SignedBy)
	}
	if len(s.Signature) != ed25519.SignatureSize {
		return fmt.Errorf("%w: an Ed25519 signature has %d bytes, got %d", ErrBadSignature, ed25519.SignatureSize, len(s.Signature))
	}
	if !ed25519.Verify(key, hash, s.Signature) {
		return fmt.Errorf("%w: the signature by %s does not verify over %x", ErrBadSignature, s.SignedBy, hash)
	}
	return nil
}
