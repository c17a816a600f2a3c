package ledgerapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// armEmpty is the arm name Canton uses for an unset oneof.
const armEmpty = "Empty"

var emptyArm = []byte(`{"Empty":{}}`)

// decodeOneof reads a single-key object {"Arm": body}. It returns arm "" for
// null, {} and {"Empty":{}}. Several keys or an unknown key are errors: Canton
// silently picks one of several keys, which hides mistakes, so we refuse.
func decodeOneof(b []byte, what string, arms []string) (string, json.RawMessage, error) {
	if len(bytes.TrimSpace(b)) == 0 || isNull(b) {
		return "", nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return "", nil, fmt.Errorf("%s must be an object with one of the keys %s: %w", what, strings.Join(arms, ", "), unwrapJSONError(err))
	}
	if len(m) == 0 {
		return "", nil, nil
	}
	if len(m) > 1 {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, truncate(k, 40))
		}
		sort.Strings(keys)
		if len(keys) > 5 {
			keys = append(keys[:5], fmt.Sprintf("… (%d keys)", len(m)))
		}
		return "", nil, fmt.Errorf("%s must have exactly one key, got %s", what, strings.Join(keys, ", "))
	}
	for k, v := range m {
		if k == armEmpty {
			return "", nil, nil
		}
		for _, a := range arms {
			if k == a {
				return k, v, nil
			}
		}
		return "", nil, fmt.Errorf("%s: unknown variant %q: valid variants are %s, %s", what, truncate(k, 60), strings.Join(arms, ", "), armEmpty)
	}
	return "", nil, nil
}

// unwrapValue reads {"value": x} and returns x (null when value is absent).
func unwrapValue(b json.RawMessage, what string) (json.RawMessage, error) {
	if isNull(b) {
		return jsonNull, nil
	}
	var w struct {
		Value json.RawMessage `json:"value"`
	}
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("%s must be an object {\"value\": ...}", what)
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("%s: %w", what, unwrapJSONError(err))
	}
	if w.Value == nil {
		return jsonNull, nil
	}
	return w.Value, nil
}

// encodeArm writes {"Arm": v}.
func encodeArm(arm string, v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	key, _ := json.Marshal(arm)
	out := make([]byte, 0, len(key)+len(body)+3)
	out = append(out, '{')
	out = append(out, key...)
	out = append(out, ':')
	out = append(out, body...)
	return append(out, '}'), nil
}

// encodeValueArm writes {"Arm": {"value": v}}.
func encodeValueArm(arm string, v any) ([]byte, error) {
	return encodeArm(arm, struct {
		Value any `json:"value"`
	}{v})
}

func unwrapJSONError(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("malformed JSON at byte %d: %v", se.Offset, se)
	}
	return err
}

// DeduplicationPeriod is the deduplication oneof: at most one of Duration
// and Offset is set; neither means Empty (the node's maximum period).
// Wire: {"DeduplicationDuration":{"value":Duration}} |
// {"DeduplicationOffset":{"value":n}} | {"Empty":{}}.
type DeduplicationPeriod struct {
	Duration *Duration
	Offset   *int64
}

var dedupArms = []string{"DeduplicationDuration", "DeduplicationOffset"}

// IsEmpty reports whether neither arm is set.
func (p DeduplicationPeriod) IsEmpty() bool { return p.Duration == nil && p.Offset == nil }

func (p DeduplicationPeriod) MarshalJSON() ([]byte, error) {
	switch {
	case p.Duration != nil && p.Offset != nil:
		return nil, errors.New("deduplicationPeriod: both duration and offset are set")
	case p.Duration != nil:
		return encodeValueArm("DeduplicationDuration", *p.Duration)
	case p.Offset != nil:
		return encodeValueArm("DeduplicationOffset", Int64(*p.Offset))
	}
	return emptyArm, nil
}

func (p *DeduplicationPeriod) UnmarshalJSON(b []byte) error {
	*p = DeduplicationPeriod{}
	arm, body, err := decodeOneof(b, "deduplicationPeriod", dedupArms)
	if err != nil || arm == "" {
		return err
	}
	v, err := unwrapValue(body, "deduplicationPeriod."+arm)
	if err != nil {
		return err
	}
	switch arm {
	case "DeduplicationDuration":
		var d Duration
		if err := json.Unmarshal(v, &d); err != nil {
			return fmt.Errorf("deduplicationPeriod.DeduplicationDuration.value: %w", err)
		}
		p.Duration = &d
	case "DeduplicationOffset":
		var n Int64
		if err := json.Unmarshal(v, &n); err != nil {
			return fmt.Errorf("deduplicationPeriod.DeduplicationOffset.value: %w", err)
		}
		o := int64(n)
		p.Offset = &o
	}
	return nil
}

// MinLedgerTime is the prepare/execute minimum ledger time: an absolute time
// or a duration relative to submission, at most one set.
// Wire: {"time":{"MinLedgerTimeAbs":{"value":ts}}} |
// {"time":{"MinLedgerTimeRel":{"value":Duration}}} | {"time":{"Empty":{}}}.
type MinLedgerTime struct {
	Abs *Timestamp
	Rel *Duration
}

var minLedgerTimeArms = []string{"MinLedgerTimeAbs", "MinLedgerTimeRel"}

func (m MinLedgerTime) MarshalJSON() ([]byte, error) {
	var inner []byte
	var err error
	switch {
	case m.Abs != nil && m.Rel != nil:
		return nil, errors.New("minLedgerTime: both absolute and relative time are set")
	case m.Abs != nil:
		inner, err = encodeValueArm("MinLedgerTimeAbs", *m.Abs)
	case m.Rel != nil:
		inner, err = encodeValueArm("MinLedgerTimeRel", *m.Rel)
	default:
		inner = emptyArm
	}
	if err != nil {
		return nil, err
	}
	return append(append([]byte(`{"time":`), inner...), '}'), nil
}

func (m *MinLedgerTime) UnmarshalJSON(b []byte) error {
	*m = MinLedgerTime{}
	if isNull(b) {
		return nil
	}
	var w struct {
		Time json.RawMessage `json:"time"`
	}
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		return errors.New(`minLedgerTime must be an object {"time": ...}`)
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("minLedgerTime: %w", unwrapJSONError(err))
	}
	arm, body, err := decodeOneof(w.Time, "minLedgerTime.time", minLedgerTimeArms)
	if err != nil || arm == "" {
		return err
	}
	v, err := unwrapValue(body, "minLedgerTime.time."+arm)
	if err != nil {
		return err
	}
	switch arm {
	case "MinLedgerTimeAbs":
		var t Timestamp
		if err := json.Unmarshal(v, &t); err != nil {
			return fmt.Errorf("minLedgerTime.time.MinLedgerTimeAbs.value: %w", err)
		}
		m.Abs = &t
	case "MinLedgerTimeRel":
		var d Duration
		if err := json.Unmarshal(v, &d); err != nil {
			return fmt.Errorf("minLedgerTime.time.MinLedgerTimeRel.value: %w", err)
		}
		m.Rel = &d
	}
	return nil
}

// RightKind names a user right; "" is the unset (Empty) kind.
type RightKind string

const (
	RightCanActAs              RightKind = "CanActAs"
	RightCanReadAs             RightKind = "CanReadAs"
	RightCanExecuteAs          RightKind = "CanExecuteAs"
	RightParticipantAdmin      RightKind = "ParticipantAdmin"
	RightIdentityProviderAdmin RightKind = "IdentityProviderAdmin"
	RightCanReadAsAnyParty     RightKind = "CanReadAsAnyParty"
	RightCanExecuteAsAnyParty  RightKind = "CanExecuteAsAnyParty"
)

var rightKinds = []string{
	string(RightCanActAs), string(RightCanReadAs), string(RightCanExecuteAs),
	string(RightParticipantAdmin), string(RightIdentityProviderAdmin),
	string(RightCanReadAsAnyParty), string(RightCanExecuteAsAnyParty),
}

// HasParty reports whether rights of this kind name a party.
func (k RightKind) HasParty() bool {
	return k == RightCanActAs || k == RightCanReadAs || k == RightCanExecuteAs
}

// Right is one user right. Party is set for CanActAs, CanReadAs and
// CanExecuteAs only. Wire: {"kind":{"CanActAs":{"value":{"party":"p"}}}},
// {"kind":{"ParticipantAdmin":{"value":{}}}}, {"kind":{"Empty":{}}}.
type Right struct {
	Kind  RightKind
	Party string
}

// CanActAs, CanReadAs and CanExecuteAs build party rights.
func CanActAs(party string) Right     { return Right{Kind: RightCanActAs, Party: party} }
func CanReadAs(party string) Right    { return Right{Kind: RightCanReadAs, Party: party} }
func CanExecuteAs(party string) Right { return Right{Kind: RightCanExecuteAs, Party: party} }

// String renders the right as "CanActAs(party)" or "ParticipantAdmin".
func (r Right) String() string {
	if r.Kind == "" {
		return armEmpty
	}
	if r.Kind.HasParty() {
		return string(r.Kind) + "(" + r.Party + ")"
	}
	return string(r.Kind)
}

type partyValue struct {
	Party string `json:"party"`
}

func (r Right) MarshalJSON() ([]byte, error) {
	var kind []byte
	var err error
	switch {
	case r.Kind == "":
		kind = emptyArm
	case r.Kind.HasParty():
		kind, err = encodeValueArm(string(r.Kind), partyValue{r.Party})
	default:
		if checkEnum(string(r.Kind), "RightKind", rightKinds) != nil {
			return nil, fmt.Errorf("right: unknown kind %q", r.Kind)
		}
		kind, err = encodeValueArm(string(r.Kind), struct{}{})
	}
	if err != nil {
		return nil, err
	}
	return append(append([]byte(`{"kind":`), kind...), '}'), nil
}

func (r *Right) UnmarshalJSON(b []byte) error {
	*r = Right{}
	if isNull(b) {
		return nil
	}
	var w struct {
		Kind json.RawMessage `json:"kind"`
	}
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		return errors.New(`right must be an object {"kind": ...}`)
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("right: %w", unwrapJSONError(err))
	}
	arm, body, err := decodeOneof(w.Kind, "right.kind", rightKinds)
	if err != nil || arm == "" {
		return err
	}
	v, err := unwrapValue(body, "right.kind."+arm)
	if err != nil {
		return err
	}
	r.Kind = RightKind(arm)
	if r.Kind.HasParty() {
		var p partyValue
		if t := bytes.TrimSpace(v); len(t) > 0 && t[0] != '{' && !isNull(t) {
			return fmt.Errorf("right.kind.%s.value must be an object {\"party\": ...}", arm)
		}
		if err := json.Unmarshal(v, &p); err != nil {
			return fmt.Errorf("right.kind.%s.value: %w", arm, unwrapJSONError(err))
		}
		r.Party = p.Party
	}
	return nil
}
