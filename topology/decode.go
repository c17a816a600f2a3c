package topology

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/ledger-cli/ledger/signer"
	pb "github.com/ledger-cli/ledger/topology/topologypb"
)

// ProtoVersion is the version number Canton writes in the wrapper of every
// topology transaction of protocol versions 33 to 35 (the v30 schema).
const ProtoVersion = 30

// ErrMalformed is wrapped by every error Decode returns.
var ErrMalformed = errors.New("malformed topology transaction")

// Operation is what a transaction does with its mapping.
type Operation string

const (
	OpAddReplace Operation = "ADD_REPLACE"
	OpRemove     Operation = "REMOVE"
)

// MappingKind names the kind of a mapping by its oneof field in TopologyMapping.
type MappingKind string

const (
	KindNamespaceDelegation    MappingKind = "namespace_delegation"
	KindDecentralizedNamespace MappingKind = "decentralized_namespace_definition"
	KindPartyToParticipant     MappingKind = "party_to_participant"
	KindPartyToKeyMapping      MappingKind = "party_to_key_mapping"
)

// otherKinds are the mappings this package does not read, by field number.
var otherKinds = map[protowire.Number]MappingKind{
	4:  "owner_to_key_mapping",
	5:  "synchronizer_trust_certificate",
	6:  "participant_permission",
	7:  "party_hosting_limits",
	8:  "vetted_packages",
	11: "synchronizer_parameters_state",
	12: "mediator_synchronizer_state",
	13: "sequencer_synchronizer_state",
	15: "sequencing_dynamic_parameters_state",
	17: "synchronizer_upgrade_announcement",
	18: "sequencer_connection_successor",
}

// Permission is a participant's permission for a party.
type Permission string

const (
	PermissionSubmission   Permission = "SUBMISSION"
	PermissionConfirmation Permission = "CONFIRMATION"
	PermissionObservation  Permission = "OBSERVATION"
)

// Transaction is a decoded topology transaction.
type Transaction struct {
	Version   int32     `json:"version"` // proto version from the wrapper
	Operation Operation `json:"operation"`
	Serial    uint32    `json:"serial"`
	Mapping   Mapping   `json:"mapping"`
	Hash      []byte    `json:"hash"` // TransactionHash of the serialized bytes
}

// Mapping is the content of a transaction. Kind is always set; exactly one of
// the pointers is set when Kind is one of the four kinds this package reads,
// none otherwise.
type Mapping struct {
	Kind                   MappingKind                       `json:"kind"`
	NamespaceDelegation    *NamespaceDelegation              `json:"namespaceDelegation,omitempty"`
	DecentralizedNamespace *DecentralizedNamespaceDefinition `json:"decentralizedNamespaceDefinition,omitempty"`
	PartyToKeyMapping      *PartyToKeyMapping                `json:"partyToKeyMapping,omitempty"`
	PartyToParticipant     *PartyToParticipant               `json:"partyToParticipant,omitempty"`
}

// SigningKey is a signing public key as a transaction carries it.
type SigningKey struct {
	Format  string   `json:"format"`  // enum name without CRYPTO_KEY_FORMAT_
	KeyData []byte   `json:"keyData"` // as carried (DER SPKI for Canton's Ed25519 keys)
	Spec    string   `json:"keySpec"` // enum name without SIGNING_KEY_SPEC_
	Usage   []string `json:"usage"`   // enum names without SIGNING_KEY_USAGE_, in wire order
	// Fingerprint is Canton's fingerprint of the key (see KeyFingerprintData).
	Fingerprint string `json:"fingerprint"`
	// Ed25519 is the raw key when Spec is EC_CURVE25519 and the data parses.
	Ed25519 ed25519.PublicKey `json:"-"`
}

// HasUsage reports whether the key lists usage u (a name such as "PROTOCOL").
func (k SigningKey) HasUsage(u string) bool {
	for _, x := range k.Usage {
		if x == u {
			return true
		}
	}
	return false
}

// NamespaceDelegation gives Target authority in Namespace.
type NamespaceDelegation struct {
	Namespace string     `json:"namespace"`
	Target    SigningKey `json:"targetKey"`
	// Restriction is "CAN_SIGN_ALL_MAPPINGS", "CAN_SIGN_ALL_BUT_NAMESPACE_DELEGATIONS",
	// "CAN_SIGN_SPECIFIC_MAPPINGS" (see Mappings) or "" when unset.
	Restriction string   `json:"restriction"`
	Mappings    []string `json:"mappings,omitempty"`
	// RootDelegationFlag is the deprecated is_root_delegation field.
	RootDelegationFlag bool `json:"rootDelegationFlag,omitempty"`
}

// IsRoot reports whether the delegation is a root certificate: the namespace
// is the fingerprint of the target key itself.
func (d *NamespaceDelegation) IsRoot() bool { return d.Namespace == d.Target.Fingerprint }

// DecentralizedNamespaceDefinition is a namespace owned by several namespaces.
type DecentralizedNamespaceDefinition struct {
	Namespace string   `json:"decentralizedNamespace"`
	Threshold int32    `json:"threshold"`
	Owners    []string `json:"owners"`
}

// PartyToKeyMapping gives a party its protocol signing keys (Canton 3.3).
type PartyToKeyMapping struct {
	Party     string       `json:"party"`
	Threshold uint32       `json:"threshold"`
	Keys      []SigningKey `json:"signingKeys"`
}

// PartyToParticipant says which participants host a party. From Canton 3.4
// it may also carry the party's signing keys (HasSigningKeys).
type PartyToParticipant struct {
	Party            string               `json:"party"`
	Threshold        uint32               `json:"threshold"`
	Participants     []HostingParticipant `json:"participants"`
	HasSigningKeys   bool                 `json:"hasSigningKeys"`
	SigningKeys      []SigningKey         `json:"signingKeys,omitempty"`
	SigningThreshold uint32               `json:"signingThreshold,omitempty"`
}

// HostingParticipant is one participant of a PartyToParticipant mapping.
type HostingParticipant struct {
	ParticipantUID string     `json:"participantUid"`
	Permission     Permission `json:"permission"`
	Onboarding     bool       `json:"onboarding,omitempty"`
}

// Decode reads one serialized topology transaction: an UntypedVersionedMessage
// of version 30 whose data is a v30 TopologyTransaction. It refuses fields it
// does not know inside the mappings it reads, so that nothing a signer is
// asked to authorize stays hidden; mappings of other kinds are reported by
// Kind only.
func Decode(serialized []byte) (*Transaction, error) {
	msg, kind, err := unmarshal(serialized)
	if err != nil {
		return nil, err
	}
	tx := &Transaction{Version: ProtoVersion, Serial: msg.GetSerial(), Hash: TransactionHash(serialized)}
	switch msg.GetOperation() {
	case pb.Enums_TOPOLOGY_CHANGE_OP_ADD_REPLACE:
		tx.Operation = OpAddReplace
	case pb.Enums_TOPOLOGY_CHANGE_OP_REMOVE:
		tx.Operation = OpRemove
	default:
		return nil, malformed("operation is %d; want 1 (ADD_REPLACE) or 2 (REMOVE)", int32(msg.GetOperation()))
	}
	if tx.Serial == 0 {
		return nil, malformed("serial is 0; serials start at 1")
	}
	tx.Mapping, err = decodeMapping(msg.GetMapping(), kind)
	if err != nil {
		return nil, err
	}
	return tx, nil
}

// unmarshal parses wrapper and transaction and checks for unknown fields. The
// returned kind is set when the mapping is of a kind this package skips.
func unmarshal(serialized []byte) (*pb.TopologyTransaction, MappingKind, error) {
	if len(serialized) == 0 {
		return nil, "", malformed("no bytes")
	}
	var w pb.UntypedVersionedMessage
	if err := proto.Unmarshal(serialized, &w); err != nil {
		return nil, "", malformed("wrapper (UntypedVersionedMessage): %v", err)
	}
	if err := noUnknownFields(w.ProtoReflect(), "wrapper"); err != nil {
		return nil, "", err
	}
	if w.GetVersion() != ProtoVersion {
		return nil, "", malformed("wrapper version is %d; this decoder reads version %d", w.GetVersion(), ProtoVersion)
	}
	if w.Wrapper == nil {
		return nil, "", malformed("wrapper has no data (field 1)")
	}
	var msg pb.TopologyTransaction
	if err := proto.Unmarshal(w.GetData(), &msg); err != nil {
		return nil, "", malformed("TopologyTransaction: %v", err)
	}
	// The mapping's own unknown fields name a kind of mapping; check it apart.
	if u := msg.ProtoReflect().GetUnknown(); len(u) > 0 {
		nums, err := fieldNumbers(u)
		if err != nil {
			return nil, "", malformed("transaction: %v", err)
		}
		return nil, "", malformed("transaction has field %d, which this decoder does not know", nums[0])
	}
	if msg.Mapping == nil {
		return nil, "", malformed("transaction has no mapping (field 3)")
	}
	m := msg.Mapping.ProtoReflect()
	var kind MappingKind
	if unknown := m.GetUnknown(); len(unknown) > 0 {
		nums, err := fieldNumbers(unknown)
		if err != nil {
			return nil, "", malformed("mapping: %v", err)
		}
		if msg.Mapping.Mapping != nil || len(nums) != 1 {
			return nil, "", malformed("mapping holds more than one kind of mapping")
		}
		k, ok := otherKinds[nums[0]]
		if !ok {
			return nil, "", malformed("mapping has unknown field %d", nums[0])
		}
		kind = k
	} else if err := noUnknownFields(m, "mapping"); err != nil {
		return nil, "", err
	}
	if kind == "" && msg.Mapping.Mapping == nil {
		return nil, "", malformed("mapping is empty")
	}
	return &msg, kind, nil
}

func decodeMapping(m *pb.TopologyMapping, kind MappingKind) (Mapping, error) {
	if kind != "" {
		return Mapping{Kind: kind}, nil
	}
	switch v := m.Mapping.(type) {
	case *pb.TopologyMapping_NamespaceDelegation:
		d, err := decodeNamespaceDelegation(v.NamespaceDelegation)
		return Mapping{Kind: KindNamespaceDelegation, NamespaceDelegation: d}, err
	case *pb.TopologyMapping_DecentralizedNamespaceDefinition:
		x := v.DecentralizedNamespaceDefinition
		return Mapping{Kind: KindDecentralizedNamespace, DecentralizedNamespace: &DecentralizedNamespaceDefinition{
			Namespace: x.GetDecentralizedNamespace(), Threshold: x.GetThreshold(), Owners: x.GetOwners(),
		}}, nil
	case *pb.TopologyMapping_PartyToKeyMapping:
		x := v.PartyToKeyMapping
		keys, err := decodeKeys(x.GetSigningKeys(), "party_to_key_mapping.signing_keys")
		return Mapping{Kind: KindPartyToKeyMapping, PartyToKeyMapping: &PartyToKeyMapping{
			Party: x.GetParty(), Threshold: x.GetThreshold(), Keys: keys,
		}}, err
	case *pb.TopologyMapping_PartyToParticipant:
		p, err := decodePartyToParticipant(v.PartyToParticipant)
		return Mapping{Kind: KindPartyToParticipant, PartyToParticipant: p}, err
	}
	return Mapping{}, malformed("mapping is empty")
}

func decodeNamespaceDelegation(x *pb.NamespaceDelegation) (*NamespaceDelegation, error) {
	if x.TargetKey == nil {
		return nil, malformed("namespace_delegation has no target_key")
	}
	target, err := decodeKey(x.TargetKey, "namespace_delegation.target_key")
	if err != nil {
		return nil, err
	}
	d := &NamespaceDelegation{Namespace: x.GetNamespace(), Target: target, RootDelegationFlag: x.GetIsRootDelegation()}
	switch r := x.Restriction.(type) {
	case *pb.NamespaceDelegation_CanSignAllMappings_:
		d.Restriction = "CAN_SIGN_ALL_MAPPINGS"
	case *pb.NamespaceDelegation_CanSignAllButNamespaceDelegations_:
		d.Restriction = "CAN_SIGN_ALL_BUT_NAMESPACE_DELEGATIONS"
	case *pb.NamespaceDelegation_CanSignSpecificMapings:
		d.Restriction = "CAN_SIGN_SPECIFIC_MAPPINGS"
		for _, c := range r.CanSignSpecificMapings.GetMappings() {
			d.Mappings = append(d.Mappings, enumName(c.String(), "TOPOLOGY_MAPPING_CODE_"))
		}
	}
	return d, nil
}

func decodePartyToParticipant(x *pb.PartyToParticipant) (*PartyToParticipant, error) {
	p := &PartyToParticipant{Party: x.GetParty(), Threshold: x.GetThreshold()}
	for i, h := range x.GetParticipants() {
		hp := HostingParticipant{ParticipantUID: h.GetParticipantUid(), Onboarding: h.Onboarding != nil}
		switch h.GetPermission() {
		case pb.Enums_PARTICIPANT_PERMISSION_SUBMISSION:
			hp.Permission = PermissionSubmission
		case pb.Enums_PARTICIPANT_PERMISSION_CONFIRMATION:
			hp.Permission = PermissionConfirmation
		case pb.Enums_PARTICIPANT_PERMISSION_OBSERVATION:
			hp.Permission = PermissionObservation
		default:
			return nil, malformed("party_to_participant.participants[%d].permission is %d; want 1, 2 or 3", i, int32(h.GetPermission()))
		}
		p.Participants = append(p.Participants, hp)
	}
	if k := x.PartySigningKeys; k != nil {
		keys, err := decodeKeys(k.GetKeys(), "party_to_participant.party_signing_keys.keys")
		if err != nil {
			return nil, err
		}
		p.HasSigningKeys, p.SigningKeys, p.SigningThreshold = true, keys, k.GetThreshold()
	}
	return p, nil
}

func decodeKeys(keys []*pb.SigningPublicKey, field string) ([]SigningKey, error) {
	out := make([]SigningKey, 0, len(keys))
	for i, k := range keys {
		d, err := decodeKey(k, fmt.Sprintf("%s[%d]", field, i))
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

func decodeKey(k *pb.SigningPublicKey, field string) (SigningKey, error) {
	if len(k.GetPublicKey()) == 0 {
		return SigningKey{}, malformed("%s has no public_key", field)
	}
	d := SigningKey{
		Format:      enumName(k.GetFormat().String(), "CRYPTO_KEY_FORMAT_"),
		KeyData:     k.GetPublicKey(),
		Spec:        enumName(k.GetKeySpec().String(), "SIGNING_KEY_SPEC_"),
		Fingerprint: signer.Fingerprint(KeyFingerprintData(k.GetFormat(), k.GetKeySpec(), k.GetPublicKey())),
	}
	for _, u := range k.GetUsage() {
		d.Usage = append(d.Usage, enumName(u.String(), "SIGNING_KEY_USAGE_"))
	}
	if k.GetKeySpec() == pb.SigningKeySpec_SIGNING_KEY_SPEC_EC_CURVE25519 {
		switch k.GetFormat() {
		case pb.CryptoKeyFormat_CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO:
			key, err := signer.ParseSPKI(k.GetPublicKey())
			if err != nil {
				return SigningKey{}, malformed("%s: %v", field, err)
			}
			d.Ed25519 = key.Raw()
		case pb.CryptoKeyFormat_CRYPTO_KEY_FORMAT_RAW:
			if len(k.GetPublicKey()) != ed25519.PublicKeySize {
				return SigningKey{}, malformed("%s: a raw Ed25519 key has %d bytes, got %d", field, ed25519.PublicKeySize, len(k.GetPublicKey()))
			}
			d.Ed25519 = ed25519.PublicKey(k.GetPublicKey())
		}
	}
	return d, nil
}

// enumName turns a generated enum String() into its short name; a number
// outside the enum prints as the number.
func enumName(s, prefix string) string { return strings.TrimPrefix(s, prefix) }

// noUnknownFields walks a parsed message and fails on the first field the
// schema does not know.
func noUnknownFields(m protoreflect.Message, path string) error {
	if u := m.GetUnknown(); len(u) > 0 {
		nums, err := fieldNumbers(u)
		if err != nil {
			return malformed("%s: %v", path, err)
		}
		return malformed("%s (%s) has field %d, which this decoder does not know; refusing to show a transaction partly",
			path, m.Descriptor().Name(), nums[0])
	}
	var err error
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind {
			return true
		}
		sub := path + "." + string(fd.Name())
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len() && err == nil; i++ {
				err = noUnknownFields(l.Get(i).Message(), fmt.Sprintf("%s[%d]", sub, i))
			}
		} else {
			err = noUnknownFields(v.Message(), sub)
		}
		return err == nil
	})
	return err
}

func fieldNumbers(b []byte) ([]protowire.Number, error) {
	var nums []protowire.Number
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		b = b[n:]
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		b = b[n:]
		if len(nums) == 0 || nums[len(nums)-1] != num {
			nums = append(nums, num)
		}
	}
	return nums, nil
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}
