package hashing

import (
	"bufio"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/proto/damlpb"
)

const vectorDir = "../testdata/vectors"

// protoVector is the shape of derived/*.json and the wallet vectors.
type protoVector struct {
	Name                   string            `json:"name"`
	Scheme                 string            `json:"hashing_scheme_version"`
	TransactionHash        string            `json:"expected_transaction_hash_hex"`
	MetadataHash           string            `json:"expected_metadata_hash_hex"`
	Hash                   string            `json:"expected_prepared_transaction_hash_hex"`
	HashB64                string            `json:"expected_prepared_transaction_hash_b64"`
	NodeHashes             map[string]string `json:"intermediate_node_hashes_hex"`
	InputContractHashes    []string          `json:"intermediate_input_contract_create_node_hashes_hex"`
	PreparedTransactionB64 string            `json:"prepared_transaction_b64"`
}

// TestVectors runs every file under testdata/vectors. A file this test does
// not know how to run fails it, so a new vector cannot be skipped silently.
func TestVectors(t *testing.T) {
	err := filepath.WalkDir(vectorDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(vectorDir, path)
		t.Run(rel, func(t *testing.T) { runVectorFile(t, rel, path) })
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func runVectorFile(t *testing.T, rel, path string) {
	dir, name := filepath.Split(rel)
	switch {
	case dir == "derived/":
		checkProtoVector(t, readProtoVector(t, path))
	case dir == "wallet-tx-visualizer/" && strings.HasSuffix(name, ".prepared_transaction.b64"):
		checkWalletVector(t, strings.TrimSuffix(path, ".prepared_transaction.b64"))
	case dir == "wallet-tx-visualizer/":
		// .expected_hash.* and .derived_details.json are read with their .b64.
	case name == "golden-ledgerhq-v2.tsv":
		checkTSV(t, path)
	case strings.HasSuffix(name, ".columns"), dir == "fingerprints/", name == "sign-ed25519.tsv":
		// Column headers; fingerprints and signatures are the signer's vectors.
	case name == "values_release-line-3.5.json":
		checkValueVectors(t, path)
	case name == "v2_release-line-3.5.json":
		checkScalaNodeVectors(t, path, "scala_v2_equivalent.json")
	case name == "v3_release-line-3.5.json":
		checkScalaNodeVectors(t, path, "scala_v3_equivalent.json")
	case name == "v2_release-line-3.4_metadata_variant.json":
		checkMetadataVariant(t, path)
	case dir == "historical/":
		checkHistorical(t, path)
	default:
		t.Fatalf("no test knows how to run vector file %s", rel)
	}
}

func readProtoVector(t *testing.T, path string) protoVector {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v protoVector
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func mustScheme(t *testing.T, s string) Scheme {
	t.Helper()
	scheme, err := ParseScheme(s)
	if err != nil {
		t.Fatal(err)
	}
	return scheme
}

func checkProtoVector(t *testing.T, v protoVector) {
	t.Helper()
	pt, err := base64.StdEncoding.DecodeString(v.PreparedTransactionB64)
	if err != nil {
		t.Fatal(err)
	}
	scheme := mustScheme(t, v.Scheme)
	res, err := Compute(pt, scheme, Options{NodeHashes: true, Trace: true})
	if err != nil {
		t.Fatalf("Compute: %v", err)
	}
	eq := func(what, want string, got [32]byte) {
		t.Helper()
		if want != "" && Hex(got) != want {
			t.Errorf("%s = %s, want %s", what, Hex(got), want)
		}
	}
	eq("hash", v.Hash, res.Hash)
	eq("transaction hash", v.TransactionHash, res.TransactionHash)
	eq("metadata hash", v.MetadataHash, res.MetadataHash)
	if v.HashB64 != "" && base64.StdEncoding.EncodeToString(res.Hash[:]) != v.HashB64 {
		t.Errorf("base64 hash = %s, want %s", base64.StdEncoding.EncodeToString(res.Hash[:]), v.HashB64)
	}
	for id, want := range v.NodeHashes {
		eq("node "+id, want, res.NodeHashes[id])
	}
	if v.InputContractHashes != nil && len(v.InputContractHashes) != len(res.InputContractHashes) {
		t.Fatalf("%d input contract hashes, want %d", len(res.InputContractHashes), len(v.InputContractHashes))
	}
	for i, want := range v.InputContractHashes {
		eq("input contract", want, res.InputContractHashes[i])
	}
	// The trace must hold exactly the bytes that were hashed.
	if got := sha256.Sum256(res.Trace.Preimage()); got != res.Hash {
		t.Errorf("trace preimage hashes to %x, not to the hash", got)
	}
	// Sum agrees with Compute and the proto round-trips through damlpb.
	sum, err := Sum(pt, scheme)
	if err != nil || sum != res.Hash {
		t.Errorf("Sum = %x, %v", sum, err)
	}
	var msg damlpb.PreparedTransaction
	if err := proto.Unmarshal(pt, &msg); err != nil {
		t.Fatalf("damlpb cannot decode the vector: %v", err)
	}
	if len(msg.ProtoReflect().GetUnknown()) != 0 {
		t.Errorf("damlpb leaves unknown fields: the schema misses a field")
	}
	again, err := HashMessage(&msg, scheme)
	if err != nil || again != res.Hash {
		t.Errorf("HashMessage = %x, %v", again, err)
	}
}

func checkWalletVector(t *testing.T, prefix string) {
	b64, err := os.ReadFile(prefix + ".prepared_transaction.b64")
	if err != nil {
		t.Fatal(err)
	}
	wantB64, err := os.ReadFile(prefix + ".expected_hash.b64")
	if err != nil {
		t.Fatal(err)
	}
	v := readProtoVector(t, prefix+".derived_details.json")
	v.PreparedTransactionB64 = strings.TrimSpace(string(b64))
	v.HashB64 = strings.TrimSpace(string(wantB64))
	if hexFile, err := os.ReadFile(prefix + ".expected_hash.hex"); err == nil {
		if strings.TrimSpace(string(hexFile)) != v.Hash {
			t.Fatalf("vector files disagree: %s.expected_hash.hex", prefix)
		}
	}
	checkProtoVector(t, v)
}

func checkTSV(t *testing.T, path string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	n := 0
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 2 {
			continue
		}
		n++
		pt, err := base64.StdEncoding.DecodeString(cols[0])
		if err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		sum, err := Sum(pt, V2)
		if err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		if Hex(sum) != cols[1] {
			t.Errorf("line %d: hash %s, want %s", n, Hex(sum), cols[1])
		}
	}
	if n == 0 {
		t.Fatal("no vectors in file")
	}
}

type scalaFile struct {
	Nodes map[string]struct {
		Expected string `json:"expected_sha256_hex"`
		Preimage string `json:"preimage_hex"`
	} `json:"nodes"`
	Metadata struct {
		Expected string `json:"expected_sha256_hex"`
		Preimage string `json:"preimage_hex"`
	} `json:"metadata"`
}

func readScala(t *testing.T, path string) scalaFile {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f scalaFile
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// checkPreimage confirms a Scala constant is SHA-256 of its preimage.
func checkPreimage(t *testing.T, what, preimageHex, want string) {
	t.Helper()
	pre, err := hex.DecodeString(preimageHex)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if got := sha256.Sum256(pre); Hex(got) != want {
		t.Fatalf("%s: vector data inconsistent", what)
	}
}

// checkScalaNodeVectors checks that every hash of Canton's Scala hasher tests
// is produced by our encoder on the protobuf rendering of the same data.
func checkScalaNodeVectors(t *testing.T, path, equivalent string) {
	f := readScala(t, path)
	v := readProtoVector(t, filepath.Join(vectorDir, "derived", equivalent))
	pt, _ := base64.StdEncoding.DecodeString(v.PreparedTransactionB64)
	res, err := Compute(pt, mustScheme(t, v.Scheme), Options{NodeHashes: true})
	if err != nil {
		t.Fatal(err)
	}
	ours := map[string]bool{Hex(res.Hash): true, Hex(res.TransactionHash): true}
	for _, h := range res.NodeHashes {
		ours[Hex(h)] = true
	}
	if _, ok := f.Nodes["queryNode"]; ok {
		ours[Hex(scalaQueryNodeHash(t, pt))] = true
	}
	for name, n := range f.Nodes {
		checkPreimage(t, name, n.Preimage, n.Expected)
		if !ours[n.Expected] {
			t.Errorf("%s: Scala hash %s is not produced by our encoder", name, n.Expected)
		}
	}
	checkPreimage(t, "metadata", f.Metadata.Preimage, f.Metadata.Expected)
	if Hex(res.MetadataHash) != f.Metadata.Expected {
		t.Errorf("metadata hash %s, Scala %s", Hex(res.MetadataHash), f.Metadata.Expected)
	}
}

// checkMetadataVariant re-hashes the Scala-equivalent transaction with the
// synchronizer id the 3.3/3.4 tests use.
func checkMetadataVariant(t *testing.T, path string) {
	raw, _ := os.ReadFile(path)
	var f struct {
		Metadata struct {
			Expected string `json:"expected_sha256_hex"`
			Preimage string `json:"preimage_hex"`
		} `json:"metadata"`
		Full struct {
			Expected string `json:"expected_sha256_hex"`
		} `json:"full_transaction"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	checkPreimage(t, "metadata", f.Metadata.Preimage, f.Metadata.Expected)
	v := readProtoVector(t, filepath.Join(vectorDir, "derived", "scala_v2_equivalent.json"))
	pt, _ := base64.StdEncoding.DecodeString(v.PreparedTransactionB64)
	var msg damlpb.PreparedTransaction
	if err := proto.Unmarshal(pt, &msg); err != nil {
		t.Fatal(err)
	}
	msg.Metadata.SynchronizerId = "synchronizerId"
	b, _ := proto.Marshal(&msg)
	res, err := Compute(b, V2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if Hex(res.MetadataHash) != f.Metadata.Expected {
		t.Errorf("metadata hash %s, want %s", Hex(res.MetadataHash), f.Metadata.Expected)
	}
	if f.Full.Expected != "" && Hex(res.Hash) != f.Full.Expected {
		t.Errorf("hash %s, want %s", Hex(res.Hash), f.Full.Expected)
	}
}

// checkHistorical makes sure we never produce the pre-release V3 hash.
func checkHistorical(t *testing.T, path string) {
	raw, _ := os.ReadFile(path)
	var f struct {
		Final string `json:"expected_final_hash_multihash_hex"`
	}
	if err := json.Unmarshal(raw, &f); err != nil || !strings.HasPrefix(f.Final, "1220") {
		t.Fatalf("unreadable historical vector: %v", err)
	}
	v := readProtoVector(t, filepath.Join(vectorDir, "derived", "scala_v3_equivalent.json"))
	pt, _ := base64.StdEncoding.DecodeString(v.PreparedTransactionB64)
	sum, err := Sum(pt, V3)
	if err != nil {
		t.Fatal(err)
	}
	if Multihash(sum) == f.Final {
		t.Fatal("V3 produced the pre-release hash")
	}
}

// scalaQueryNodeHash adds the QueryByKey node of Canton's v3.NodeHashTest
// (which is not part of its transaction) as an extra root and returns its hash.
func scalaQueryNodeHash(t *testing.T, pt []byte) [32]byte {
	t.Helper()
	var msg damlpb.PreparedTransaction
	if err := proto.Unmarshal(pt, &msg); err != nil {
		t.Fatal(err)
	}
	keyHash, _ := hex.DecodeString("4d1741d27564ab1f1e74873034760583a1a71edaa90dbad6be3a78c0bf3eec7c")
	q := &damlpb.QueryByKey{
		LfVersion:   "2",
		PackageName: "package-name-0",
		TemplateId:  defRef("module", "name"),
		Exhaustive:  true,
		Key: &damlpb.GlobalKeyWithMaintainers{
			Key: &damlpb.GlobalKey{
				TemplateId:  defRef("module_key", "name"),
				PackageName: "package_name_key",
				Key:         vText("hello"),
				Hash:        keyHash,
			},
			Maintainers: []string{"david"},
		},
		Result: []string{"0007e7b5534931dfca8e1b485c105bae4e10808bd13ddc8e897f258015f9d921c5"},
	}
	tx := msg.Transaction
	tx.Nodes = append(tx.Nodes, &damlpb.DamlTransaction_Node{NodeId: "99",
		VersionedNode: &damlpb.DamlTransaction_Node_V1{V1: &damlpb.Node{NodeType: &damlpb.Node_QueryByKey{QueryByKey: q}}}})
	tx.Roots = append(tx.Roots, "99")
	b, _ := proto.Marshal(&msg)
	res, err := Compute(b, V3, Options{NodeHashes: true})
	if err != nil {
		t.Fatal(err)
	}
	return res.NodeHashes["99"]
}
