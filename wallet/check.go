package wallet

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/ledger-cli/ledger/hashing"
)

// HashCheck is the outcome of recomputing an envelope's hash.
type HashCheck struct {
	Scheme     hashing.Scheme
	Recomputed [32]byte
	// NodeHash is the node's preparedTransactionHash (nil if absent).
	NodeHash []byte
	Match    bool
	// Diagnosis explains a mismatch when a known cause fits, e.g. the node
	// hashed under another scheme.
	Diagnosis string
	// Difference locates the first differing byte against the node's
	// hashingDetails, when tracing and the envelope carries them.
	Difference *hashing.Difference
	Result     *hashing.Result
}

// ErrNoNodeHash is returned by Verify for input without a node hash.
var ErrNoNodeHash = errors.New(`no "preparedTransactionHash" to compare with: this input is a bare prepared transaction; use "ledger hash" to compute its hash`)

// recomputation is the pipeline's second step: the transaction's bytes,
// the scheme they are hashed under, the node's hash and the local one.
type recomputation struct {
	raw      []byte
	scheme   hashing.Scheme
	nodeHash []byte // nil when the input carries none
	result   *hashing.Result
	hashErr  error // why result is nil
}

// recompute hashes e's transaction under scheme (0 = the scheme e names),
// with opts. An input that cannot be read is an error; a transaction the
// hasher refuses is a hashErr, since the review still shows it.
func (e *Envelope) recompute(scheme hashing.Scheme, opts hashing.Options) (*recomputation, error) {
	raw, err := e.Raw()
	if err != nil {
		return nil, fmt.Errorf("preparedTransaction: %w", err)
	}
	nodeHash, err := e.NodeHash()
	if err != nil {
		return nil, err
	}
	if scheme == 0 {
		if scheme, err = e.Scheme(); err != nil {
			return nil, err
		}
	}
	rc := &recomputation{raw: raw, scheme: scheme, nodeHash: nodeHash}
	rc.result, rc.hashErr = hashing.Compute(raw, scheme, opts)
	return rc, nil
}

// Verify recomputes the hash under scheme (0 = the scheme the envelope names)
// and compares it with the node's. trace records the preimages.
func (e *Envelope) Verify(scheme hashing.Scheme, trace bool) (*HashCheck, error) {
	rc, err := e.recompute(scheme, hashing.Options{Trace: trace})
	if err != nil {
		return nil, err
	}
	if rc.hashErr != nil {
		return nil, rc.hashErr
	}
	res, nodeHash := rc.result, rc.nodeHash
	c := &HashCheck{Scheme: rc.scheme, Recomputed: res.Hash, NodeHash: nodeHash, Result: res}
	if nodeHash == nil {
		return c, ErrNoNodeHash
	}
	c.Match = bytes.Equal(nodeHash, res.Hash[:])
	if c.Match {
		return c, nil
	}
	c.Diagnosis = diagnose(rc.raw, rc.scheme, nodeHash)
	if trace && e.HashingDetails != nil && *e.HashingDetails != "" {
		c.Difference = hashing.FirstDifference(res.Trace, *e.HashingDetails)
	}
	return c, nil
}

// diagnose looks for the known reasons of a mismatch (docs/hashing.md §10).
func diagnose(raw []byte, scheme hashing.Scheme, nodeHash []byte) string {
	for _, other := range []hashing.Scheme{hashing.V2, hashing.V3} {
		if other == scheme {
			continue
		}
		if sum, err := hashing.Sum(raw, other); err == nil && bytes.Equal(sum[:], nodeHash) {
			return fmt.Sprintf("the node's hash is the %s hash of this transaction, but the envelope says %s; "+
				"a Canton 3.4 node ignores hashingSchemeVersion in prepare and always answers V2 — sign under the scheme the node used, or prepare again on a 3.5 node",
				other, scheme)
		}
	}
	return "the prepared transaction does not hash to the node's preparedTransactionHash: the bytes were changed after the node prepared them, " +
		"or the node computes a different encoding; prepare again with verboseHashing to get the node's hashingDetails and compare them with the local trace"
}
