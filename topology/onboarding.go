package topology

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/signer"
	pb "github.com/ledger-cli/ledger/topology/topologypb"
)

// Layout selects which transactions onboard an external party; the Canton
// release line decides.
type Layout int

const (
	// LayoutPartyToParticipant is what Canton 3.4.9+ and 3.5 generate: a single
	// PartyToParticipant that also carries the party's signing key
	// (party_signing_keys, threshold 1). Because that key is the namespace
	// key, the transaction authorizes itself.
	LayoutPartyToParticipant Layout = iota
	// LayoutThreeTransactions is what Canton 3.3 and 3.4.0–3.4.8 generate: a root
	// NamespaceDelegation for the key, a PartyToKeyMapping (threshold 1) and
	// a PartyToParticipant without keys.
	LayoutThreeTransactions
)

func (l Layout) String() string {
	switch l {
	case LayoutPartyToParticipant:
		return "party-to-participant (Canton 3.4.9+)"
	case LayoutThreeTransactions:
		return "three transactions (Canton 3.3 to 3.4.8)"
	}
	return fmt.Sprintf("Layout(%d)", int(l))
}

// OnboardingRequest holds the inputs of generate-topology for a party whose
// one Ed25519 key is both its namespace key and its protocol signing key.
type OnboardingRequest struct {
	PartyHint string
	// PublicKey is the raw 32-byte Ed25519 public key.
	PublicKey []byte
	// ParticipantUID is the hosting participant, the node answering the
	// request ("participant1::1220…"; a "PAR::" prefix is accepted).
	ParticipantUID string
	// SynchronizerID is checked for form only: no transaction carries it
	// (Canton uses it to choose the protocol version, which is 30 for all
	// current ones). Empty skips the check.
	SynchronizerID string
	// LocalObservationOnly hosts the party on ParticipantUID with
	// Observation instead of Confirmation.
	LocalObservationOnly bool
	// OtherConfirmingParticipantUIDs and ObservingParticipantUIDs add more
	// hosting participants, in this order after ParticipantUID.
	OtherConfirmingParticipantUIDs []string
	ObservingParticipantUIDs       []string
	// ConfirmationThreshold is the number of confirming participants needed;
	// 0 means all of them.
	ConfirmationThreshold int
	Layout                Layout
}

// Onboarding is the answer to generate-topology.
type Onboarding struct {
	PartyID     string // hint::fingerprint
	Fingerprint string // of the public key; also the party's namespace
	// Transactions are the serialized topology transactions, wrapper included,
	// in the order Canton returns them.
	Transactions [][]byte
	// TransactionHashes[i] is TransactionHash(Transactions[i]).
	TransactionHashes [][]byte
	// MultiHash is MultiHash(TransactionHashes), the 34 bytes the party signs.
	MultiHash []byte
}

// TransactionsBase64 returns the transactions as the JSON API carries them
// in topologyTransactions (standard base64 with padding).
func (o *Onboarding) TransactionsBase64() []string {
	out := make([]string, len(o.Transactions))
	for i, t := range o.Transactions {
		out[i] = base64.StdEncoding.EncodeToString(t)
	}
	return out
}

// MultiHashBase64 returns the multiHash field of the JSON API response.
func (o *Onboarding) MultiHashBase64() string {
	return base64.StdEncoding.EncodeToString(o.MultiHash)
}

// GenerateExternalParty builds the onboarding transactions exactly as a
// Canton participant's generate-topology does, with operation ADD_REPLACE and
// serial 1, and checks the request as Canton does.
func GenerateExternalParty(req OnboardingRequest) (*Onboarding, error) {
	if len(req.PublicKey) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("public key: a raw Ed25519 key has %d bytes, got %d", ed25519.PublicKeySize, len(req.PublicKey))
	}
	if err := ValidatePartyHint(req.PartyHint); err != nil {
		return nil, err
	}
	if req.SynchronizerID != "" {
		if _, _, err := SplitUID(req.SynchronizerID); err != nil {
			return nil, fmt.Errorf("synchronizer id: %w", err)
		}
	}
	local, err := participantUID(req.ParticipantUID)
	if err != nil {
		return nil, fmt.Errorf("hosting participant: %w", err)
	}
	hosting, confirmers, err := hostingParticipants(local, req)
	if err != nil {
		return nil, err
	}
	if req.ConfirmationThreshold < 0 {
		return nil, fmt.Errorf("confirmation threshold is %d; it must not be negative", req.ConfirmationThreshold)
	}
	if req.ConfirmationThreshold > confirmers {
		return nil, fmt.Errorf("confirmation threshold %d exceeds the %d confirming participant(s)", req.ConfirmationThreshold, confirmers)
	}
	threshold := req.ConfirmationThreshold
	if threshold == 0 {
		threshold = confirmers
	}
	if threshold == 0 {
		return nil, fmt.Errorf("no participant confirms for the party: with local observation only, name at least one other confirming participant")
	}

	key := ed25519.PublicKey(req.PublicKey)
	fp := signer.Fingerprint(key)
	party := req.PartyHint + uidDelimiter + fp
	p2p := &pb.PartyToParticipant{Party: party, Threshold: uint32(threshold), Participants: hosting}

	var mappings []*pb.TopologyMapping
	switch req.Layout {
	case LayoutPartyToParticipant:
		p2p.PartySigningKeys = &pb.SigningKeysWithThreshold{Keys: []*pb.SigningPublicKey{onboardingKey(key)}, Threshold: 1}
		mappings = []*pb.TopologyMapping{mappingP2P(p2p)}
	case LayoutThreeTransactions:
		mappings = []*pb.TopologyMapping{
			rootDelegation(key),
			{Mapping: &pb.TopologyMapping_PartyToKeyMapping{PartyToKeyMapping: &pb.PartyToKeyMapping{
				Party: party, Threshold: 1, SigningKeys: []*pb.SigningPublicKey{onboardingKey(key)},
			}}},
			mappingP2P(p2p),
		}
	default:
		return nil, fmt.Errorf("unknown layout %v", req.Layout)
	}

	out := &Onboarding{PartyID: party, Fingerprint: fp}
	for _, m := range mappings {
		b, err := serialize(&pb.TopologyTransaction{
			Operation: pb.Enums_TOPOLOGY_CHANGE_OP_ADD_REPLACE, Serial: 1, Mapping: m,
		})
		if err != nil {
			return nil, err
		}
		out.Transactions = append(out.Transactions, b)
		out.TransactionHashes = append(out.TransactionHashes, TransactionHash(b))
	}
	out.MultiHash = MultiHash(out.TransactionHashes)
	return out, nil
}

// hostingParticipants lists the local participant first, then the other
// confirming ones, then the observing ones, as Canton does, and counts the
// confirming ones.
func hostingParticipants(local string, req OnboardingRequest) ([]*pb.PartyToParticipant_HostingParticipant, int, error) {
	perm, confirmers := pb.Enums_PARTICIPANT_PERMISSION_CONFIRMATION, 1
	if req.LocalObservationOnly {
		perm, confirmers = pb.Enums_PARTICIPANT_PERMISSION_OBSERVATION, 0
	}
	out := []*pb.PartyToParticipant_HostingParticipant{{ParticipantUid: local, Permission: perm}}
	seen := map[string]string{}
	add := func(list []string, field string, p pb.Enums_ParticipantPermission) error {
		for i, id := range list {
			uid, err := participantUID(id)
			if err != nil {
				return fmt.Errorf("%s[%d]: %w", field, i, err)
			}
			if uid == local {
				return fmt.Errorf("%s[%d]: %s is the hosting participant itself; do not list it again", field, i, uid)
			}
			if prev, dup := seen[uid]; dup {
				return fmt.Errorf("%s[%d]: participant %s is already listed in %s; list each participant once", field, i, uid, prev)
			}
			seen[uid] = field
			out = append(out, &pb.PartyToParticipant_HostingParticipant{ParticipantUid: uid, Permission: p})
		}
		return nil
	}
	if err := add(req.OtherConfirmingParticipantUIDs, "otherConfirmingParticipantUids", pb.Enums_PARTICIPANT_PERMISSION_CONFIRMATION); err != nil {
		return nil, 0, err
	}
	if err := add(req.ObservingParticipantUIDs, "observingParticipantUids", pb.Enums_PARTICIPANT_PERMISSION_OBSERVATION); err != nil {
		return nil, 0, err
	}
	return out, confirmers + len(req.OtherConfirmingParticipantUIDs), nil
}

func rootDelegation(key ed25519.PublicKey) *pb.TopologyMapping {
	return &pb.TopologyMapping{Mapping: &pb.TopologyMapping_NamespaceDelegation{NamespaceDelegation: &pb.NamespaceDelegation{
		Namespace:   signer.Fingerprint(key),
		TargetKey:   onboardingKey(key),
		Restriction: &pb.NamespaceDelegation_CanSignAllMappings_{CanSignAllMappings: &pb.NamespaceDelegation_CanSignAllMappings{}},
	}}}
}

func mappingP2P(p *pb.PartyToParticipant) *pb.TopologyMapping {
	return &pb.TopologyMapping{Mapping: &pb.TopologyMapping_PartyToParticipant{PartyToParticipant: p}}
}

// serialize writes a transaction the way Canton does: the v30 message in
// field-number order (oneofs are last in each of our messages, where Go
// puts them too), wrapped in an UntypedVersionedMessage of version 30.
func serialize(tx *pb.TopologyTransaction) ([]byte, error) {
	inner, err := proto.MarshalOptions{Deterministic: true}.Marshal(tx)
	if err != nil {
		return nil, fmt.Errorf("encoding topology transaction: %w", err)
	}
	// The wrapper is written by hand: Go's encoder puts oneof fields after
	// the others, Canton writes data (1) before version (2).
	b := protowire.AppendTag(nil, 1, protowire.BytesType)
	b = protowire.AppendBytes(b, inner)
	b = protowire.AppendTag(b, 2, protowire.VarintType)
	b = protowire.AppendVarint(b, ProtoVersion)
	return b, nil
}
