package hashing

import (
	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/proto/damlpb"
)

// HashMessage hashes a decoded PreparedTransaction. It serializes the message
// and hashes the bytes, so the result is the one a peer computes from the
// same base64 preparedTransaction.
func HashMessage(pt *damlpb.PreparedTransaction, s Scheme) ([32]byte, error) {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(pt)
	if err != nil {
		return [32]byte{}, errorf("serializing prepared transaction: %v", err)
	}
	return Sum(b, s)
}
