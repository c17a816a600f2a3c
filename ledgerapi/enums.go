package ledgerapi

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Enums travel as the proto constant's name. The zero value of each Go enum
// type ("") is written as the *_UNSPECIFIED name. Decoding accepts the listed
// names and UNRECOGNIZED (Canton accepts it too) and refuses anything else
// with an error that lists the valid names.

// HashingSchemeVersion names the prepared-transaction hashing scheme.
type HashingSchemeVersion string

const (
	HashingSchemeVersionUnspecified HashingSchemeVersion = "HASHING_SCHEME_VERSION_UNSPECIFIED"
	HashingSchemeVersionV2          HashingSchemeVersion = "HASHING_SCHEME_VERSION_V2"
	HashingSchemeVersionV3          HashingSchemeVersion = "HASHING_SCHEME_VERSION_V3" // Canton 3.5+
)

// SignatureFormat says how signature bytes are laid out.
type SignatureFormat string

const (
	SignatureFormatUnspecified SignatureFormat = "SIGNATURE_FORMAT_UNSPECIFIED"
	SignatureFormatRaw         SignatureFormat = "SIGNATURE_FORMAT_RAW"      // legacy
	SignatureFormatDER         SignatureFormat = "SIGNATURE_FORMAT_DER"      // ECDSA ASN.1 (r,s)
	SignatureFormatConcat      SignatureFormat = "SIGNATURE_FORMAT_CONCAT"   // Ed25519 r‖s
	SignatureFormatSymbolic    SignatureFormat = "SIGNATURE_FORMAT_SYMBOLIC" // tests only
)

// SigningAlgorithmSpec names a signature algorithm.
type SigningAlgorithmSpec string

const (
	SigningAlgorithmSpecUnspecified SigningAlgorithmSpec = "SIGNING_ALGORITHM_SPEC_UNSPECIFIED"
	SigningAlgorithmSpecEd25519     SigningAlgorithmSpec = "SIGNING_ALGORITHM_SPEC_ED25519"
	SigningAlgorithmSpecECDSASHA256 SigningAlgorithmSpec = "SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256"
	SigningAlgorithmSpecECDSASHA384 SigningAlgorithmSpec = "SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384"
)

// SigningKeySpec names a signing key's curve.
type SigningKeySpec string

const (
	SigningKeySpecUnspecified SigningKeySpec = "SIGNING_KEY_SPEC_UNSPECIFIED"
	SigningKeySpecCurve25519  SigningKeySpec = "SIGNING_KEY_SPEC_EC_CURVE25519"
	SigningKeySpecP256        SigningKeySpec = "SIGNING_KEY_SPEC_EC_P256"
	SigningKeySpecP384        SigningKeySpec = "SIGNING_KEY_SPEC_EC_P384"
	SigningKeySpecSecp256k1   SigningKeySpec = "SIGNING_KEY_SPEC_EC_SECP256K1"
)

// CryptoKeyFormat says how public key bytes are encoded.
type CryptoKeyFormat string

const (
	CryptoKeyFormatUnspecified CryptoKeyFormat = "CRYPTO_KEY_FORMAT_UNSPECIFIED"
	CryptoKeyFormatDER         CryptoKeyFormat = "CRYPTO_KEY_FORMAT_DER" // legacy
	CryptoKeyFormatRaw         CryptoKeyFormat = "CRYPTO_KEY_FORMAT_RAW"
	CryptoKeyFormatDERX509SPKI CryptoKeyFormat = "CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO"
)

// TransactionShape selects flat (ACS delta) or full (ledger effects) events.
type TransactionShape string

const (
	TransactionShapeUnspecified   TransactionShape = "TRANSACTION_SHAPE_UNSPECIFIED"
	TransactionShapeACSDelta      TransactionShape = "TRANSACTION_SHAPE_ACS_DELTA"
	TransactionShapeLedgerEffects TransactionShape = "TRANSACTION_SHAPE_LEDGER_EFFECTS"
)

// ParticipantPermission is a participant's permission on a synchronizer.
type ParticipantPermission string

const (
	ParticipantPermissionUnspecified  ParticipantPermission = "PARTICIPANT_PERMISSION_UNSPECIFIED"
	ParticipantPermissionSubmission   ParticipantPermission = "PARTICIPANT_PERMISSION_SUBMISSION"
	ParticipantPermissionConfirmation ParticipantPermission = "PARTICIPANT_PERMISSION_CONFIRMATION"
	ParticipantPermissionObservation  ParticipantPermission = "PARTICIPANT_PERMISSION_OBSERVATION"
)

// enumUnrecognized is the name protobuf gives an out-of-range enum value.
const enumUnrecognized = "UNRECOGNIZED"

var (
	hashingSchemeVersions  = []string{string(HashingSchemeVersionUnspecified), string(HashingSchemeVersionV2), string(HashingSchemeVersionV3)}
	signatureFormats       = []string{string(SignatureFormatUnspecified), string(SignatureFormatRaw), string(SignatureFormatDER), string(SignatureFormatConcat), string(SignatureFormatSymbolic)}
	signingAlgorithmSpecs  = []string{string(SigningAlgorithmSpecUnspecified), string(SigningAlgorithmSpecEd25519), string(SigningAlgorithmSpecECDSASHA256), string(SigningAlgorithmSpecECDSASHA384)}
	signingKeySpecs        = []string{string(SigningKeySpecUnspecified), string(SigningKeySpecCurve25519), string(SigningKeySpecP256), string(SigningKeySpecP384), string(SigningKeySpecSecp256k1)}
	cryptoKeyFormats       = []string{string(CryptoKeyFormatUnspecified), string(CryptoKeyFormatDER), string(CryptoKeyFormatRaw), string(CryptoKeyFormatDERX509SPKI)}
	transactionShapes      = []string{string(TransactionShapeUnspecified), string(TransactionShapeACSDelta), string(TransactionShapeLedgerEffects)}
	participantPermissions = []string{string(ParticipantPermissionUnspecified), string(ParticipantPermissionSubmission), string(ParticipantPermissionConfirmation), string(ParticipantPermissionObservation)}
)

// EnumError reports an enum name that is not one of the valid names.
type EnumError struct {
	Enum  string   // Go type name, e.g. "SigningAlgorithmSpec"
	Value string   // what was received
	Valid []string // accepted names
}

func (e *EnumError) Error() string {
	return fmt.Sprintf("invalid %s %q: valid values are %s", e.Enum, truncate(e.Value, 60), strings.Join(e.Valid, ", "))
}

func marshalEnum(v, unspecified string) ([]byte, error) {
	if v == "" {
		v = unspecified
	}
	return json.Marshal(v)
}

func unmarshalEnum(b []byte, enum string, valid []string) (string, error) {
	if isNull(b) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return "", fmt.Errorf("%s must be a string, got %s", enum, truncate(string(b), 40))
	}
	if err := checkEnum(s, enum, valid); err != nil {
		return "", err
	}
	return s, nil
}

func checkEnum(s, enum string, valid []string) error {
	if s == enumUnrecognized {
		return nil
	}
	for _, v := range valid {
		if s == v {
			return nil
		}
	}
	return &EnumError{Enum: enum, Value: s, Valid: valid}
}

// Valid reports whether v is empty or one of the named constants.
func (v HashingSchemeVersion) Valid() error {
	if v == "" {
		return nil
	}
	return checkEnum(string(v), "HashingSchemeVersion", hashingSchemeVersions)
}

func (v HashingSchemeVersion) MarshalJSON() ([]byte, error) {
	return marshalEnum(string(v), string(HashingSchemeVersionUnspecified))
}

func (v *HashingSchemeVersion) UnmarshalJSON(b []byte) error {
	s, err := unmarshalEnum(b, "HashingSchemeVersion", hashingSchemeVersions)
	*v = HashingSchemeVersion(s)
	return err
}

func (v SignatureFormat) MarshalJSON() ([]byte, error) {
	return marshalEnum(string(v), string(SignatureFormatUnspecified))
}

func (v *SignatureFormat) UnmarshalJSON(b []byte) error {
	s, err := unmarshalEnum(b, "SignatureFormat", signatureFormats)
	*v = SignatureFormat(s)
	return err
}

func (v SigningAlgorithmSpec) MarshalJSON() ([]byte, error) {
	return marshalEnum(string(v), string(SigningAlgorithmSpecUnspecified))
}

func (v *SigningAlgorithmSpec) UnmarshalJSON(b []byte) error {
	s, err := unmarshalEnum(b, "SigningAlgorithmSpec", signingAlgorithmSpecs)
	*v = SigningAlgorithmSpec(s)
	return err
}

func (v SigningKeySpec) MarshalJSON() ([]byte, error) {
	return marshalEnum(string(v), string(SigningKeySpecUnspecified))
}

func (v *SigningKeySpec) UnmarshalJSON(b []byte) error {
	s, err := unmarshalEnum(b, "SigningKeySpec", signingKeySpecs)
	*v = SigningKeySpec(s)
	return err
}

func (v CryptoKeyFormat) MarshalJSON() ([]byte, error) {
	return marshalEnum(string(v), string(CryptoKeyFormatUnspecified))
}

func (v *CryptoKeyFormat) UnmarshalJSON(b []byte) error {
	s, err := unmarshalEnum(b, "CryptoKeyFormat", cryptoKeyFormats)
	*v = CryptoKeyFormat(s)
	return err
}

func (v TransactionShape) MarshalJSON() ([]byte, error) {
	return marshalEnum(string(v), string(TransactionShapeUnspecified))
}

func (v *TransactionShape) UnmarshalJSON(b []byte) error {
	s, err := unmarshalEnum(b, "TransactionShape", transactionShapes)
	*v = TransactionShape(s)
	return err
}

func (v ParticipantPermission) MarshalJSON() ([]byte, error) {
	return marshalEnum(string(v), string(ParticipantPermissionUnspecified))
}

func (v *ParticipantPermission) UnmarshalJSON(b []byte) error {
	s, err := unmarshalEnum(b, "ParticipantPermission", participantPermissions)
	*v = ParticipantPermission(s)
	return err
}
