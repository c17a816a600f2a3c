package hashing

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/proto/damlpb"
)

// addVectorSeeds seeds a fuzz target with every protobuf-level vector.
func addVectorSeeds(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(vectorDir, "derived", "*.json"))
	for _, name := range files {
		raw, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		var v protoVector
		if err := json.Unmarshal(raw, &v); err != nil {
			f.Fatal(err)
		}
		b, err := base64.StdEncoding.DecodeString(v.PreparedTransactionB64)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{})
	f.Add([]byte{0x0a, 0x00, 0x12, 0x00})
}

// fuzzScheme checks, for any input, that hashing never panics, that an
// accepted input is also valid protobuf for damlpb, that re-serializing it
// gives the same hash, and that the trace holds exactly the hashed bytes.
func fuzzScheme(t *testing.T, b []byte, s Scheme) {
	res, err := Compute(b, s, Options{Trace: true, NodeHashes: true})
	if err != nil {
		if _, ok := err.(*Error); !ok {
			t.Fatalf("error of type %T: %v", err, err)
		}
		return
	}
	if sha256.Sum256(res.Trace.Preimage()) != res.Hash {
		t.Fatal("trace does not hold the hashed bytes")
	}
	var pt damlpb.PreparedTransaction
	if err := proto.Unmarshal(b, &pt); err != nil {
		t.Fatalf("hasher accepted bytes protobuf rejects: %v", err)
	}
	again, err := HashMessage(&pt, s)
	if err != nil {
		t.Fatalf("re-serialized message refused: %v", err)
	}
	if again != res.Hash {
		t.Fatal("re-serialized message hashes differently")
	}
}

func FuzzHashV2(f *testing.F) {
	addVectorSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) { fuzzScheme(t, b, V2) })
}

func FuzzHashV3(f *testing.F) {
	addVectorSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) { fuzzScheme(t, b, V3) })
}

// FuzzValue drives the value encoder alone, where most of the decoding is.
func FuzzValue(f *testing.F) {
	for _, v := range scalaValueInputs {
		b, _ := proto.Marshal(v)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		enc, err := encodeValue(b)
		if err != nil {
			return
		}
		var v damlpb.Value
		if err := proto.Unmarshal(b, &v); err != nil {
			t.Fatalf("encoder accepted bytes protobuf rejects: %v", err)
		}
		again, _ := proto.Marshal(&v)
		enc2, err := encodeValue(again)
		if err != nil || string(enc) != string(enc2) {
			t.Fatalf("re-serialized value encodes differently: %v", err)
		}
	})
}
