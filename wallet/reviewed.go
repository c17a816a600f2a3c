package wallet

import (
	"bytes"
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"github.com/ledger-cli/ledger/wallet/review"
)

// Reviewed is an envelope decoded, hashed here and summarised for a person.
// show, sign and prepare --show all build it with ReviewEnvelope, so the
// three show the same review of the same file.
type Reviewed struct {
	// Name is how the input is named in messages ("standard input", a
	// path); Open sets it.
	Name        string
	Envelope    *Envelope
	Raw         []byte
	Transaction *damlpb.PreparedTransaction
	Scheme      hashing.Scheme
	// Result is the local hash; nil when HashErr says why there is none.
	Result  *hashing.Result
	HashErr error
	// NodeHash is the node's preparedTransactionHash; nil when the input
	// carries none (a bare base64 transaction).
	NodeHash []byte
	Review   *review.Review
	// Reinterpretation is the outcome of re-running the Daml code; nil
	// when no package was at hand (Open).
	Reinterpretation *Reinterpretation
}

// ReviewEnvelope decodes env's prepared transaction, recomputes its hash
// under scheme (0: the scheme env names) and builds the review at time now,
// with the envelope's origin and the comparison with the node's hash. A
// transaction that cannot be hashed is still reviewed (HashErr says why)
// when it decodes.
func ReviewEnvelope(env *Envelope, scheme hashing.Scheme, now time.Time) (*Reviewed, error) {
	rc, err := env.recompute(scheme, hashing.Options{})
	if err != nil {
		return nil, err
	}
	rv := &Reviewed{Envelope: env, Raw: rc.raw, Scheme: rc.scheme, NodeHash: rc.nodeHash, Transaction: &damlpb.PreparedTransaction{},
		Result: rc.result, HashErr: rc.hashErr}
	if err := proto.Unmarshal(rc.raw, rv.Transaction); err != nil {
		return nil, fmt.Errorf("preparedTransaction does not decode as a PreparedTransaction: %w", err)
	}
	if err := rv.summarize(rv.Transaction, now); err != nil {
		if rv.HashErr != nil {
			return nil, rv.HashErr
		}
		return nil, err
	}
	return rv, nil
}

// summarize builds the review of pt — the prepared transaction, or the one
// its Daml code made when that is exactly it — at now, with what the
// envelope says beside it and the comparison with the node's hash.
func (rv *Reviewed) summarize(pt *damlpb.PreparedTransaction, now time.Time) error {
	r, err := review.Summarize(pt, recomputed(rv.Result), now)
	if err != nil {
		return err
	}
	if rv.HashErr != nil {
		r.HashError = rv.HashErr.Error()
	}
	r.Origin = rv.Envelope.Origin()
	r.Warnings = append(r.Warnings, requestWarnings(rv.Envelope, r)...)
	if rv.NodeHash != nil && rv.Result != nil {
		r.CompareNodeHash(rv.NodeHash)
	}
	rv.Review = r
	return nil
}

// recomputed is what the review needs to know of the hasher's result.
func recomputed(res *hashing.Result) *review.Recomputed {
	if res == nil {
		return nil
	}
	return &review.Recomputed{
		Scheme:             res.Scheme.String(),
		Sum:                res.Hash,
		SignsMaxRecordTime: res.Scheme.SignsMaxRecordTime(),
		Warnings:           res.Warnings,
	}
}

// MatchesNode reports whether the hash recomputed here equals the node's.
// It is false when either is missing.
func (rv *Reviewed) MatchesNode() bool {
	return rv.Result != nil && rv.NodeHash != nil && bytes.Equal(rv.NodeHash, rv.Result.Hash[:])
}

// Mismatch explains why the node's hash differs from the recomputed one, or
// returns "" when they match or cannot be compared.
func (rv *Reviewed) Mismatch() string {
	if rv.Result == nil || rv.NodeHash == nil || rv.MatchesNode() {
		return ""
	}
	return diagnose(rv.Raw, rv.Scheme, rv.NodeHash)
}

// Origin lifts the unsigned context of an envelope or prepare response
// into a review; a bare base64 input has none.
func (e *Envelope) Origin() *review.Origin {
	if e.Form == FormBase64 {
		return nil
	}
	o := &review.Origin{Form: e.Form.String()}
	if info := e.Info; info != nil {
		o.NodeURL, o.PreparedAt = info.NodeURL, info.PreparedAt
	}
	o.Cost = e.CostEstimation
	for _, ps := range e.PartySignatures.Signatures {
		for _, s := range ps.Signatures {
			o.Signatures = append(o.Signatures, review.SignatureRef{Party: ps.Party, SignedBy: s.SignedBy})
		}
	}
	return o
}
