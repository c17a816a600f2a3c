package cmd

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/hashing"
)

type hashVector struct {
	Scheme string `json:"hashing_scheme_version"`
	Hash   string `json:"expected_prepared_transaction_hash_b64"`
	HexH   string `json:"expected_prepared_transaction_hash_hex"`
	Tx     string `json:"prepared_transaction_b64"`
}

func loadHashVector(t *testing.T, name string) hashVector {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "vectors", "derived", name))
	if err != nil {
		t.Fatal(err)
	}
	var v hashVector
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHashCommand(t *testing.T) {
	dir := t.TempDir()
	v3 := loadHashVector(t, "rich_v3.json")
	v2 := loadHashVector(t, "rich_v2.json")
	resp := filepath.Join(dir, "resp.json")
	writePrepareResponse(t, resp, v3.Tx, v3.Hash, v3.Scheme)
	bare := writeFile(t, dir, "tx.b64", v2.Tx+"\n")

	cases := []struct {
		name  string
		stdin string
		args  []string
		out   string
		code  int
	}{
		{"prepare response, its scheme", "", []string{"hash", resp}, v3.Hash + "\n", 0},
		{"hex", "", []string{"hash", "--hex", resp}, v3.HexH + "\n", 0},
		{"bare base64 defaults to V2", "", []string{"hash", bare}, v2.Hash + "\n", 0},
		{"standard input", v2.Tx, []string{"hash", "-"}, v2.Hash + "\n", 0},
		{"explicit scheme", "", []string{"hash", "--scheme", "v2", bare}, v2.Hash + "\n", 0},
		{"bad scheme is a usage error", "", []string{"hash", "--scheme", "v9", bare}, "", 2},
		{"V1 refused", "", []string{"hash", "--scheme", "v1", bare}, "", 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := runCmd(t, tc.stdin, false, tc.args...)
			if code != tc.code || (tc.out != "" && out != tc.out) {
				t.Fatalf("exit %d (want %d), out %q (want %q), stderr %s", code, tc.code, out, tc.out, stderr)
			}
		})
	}

	t.Run("json output", func(t *testing.T) {
		out, _, code := runCmd(t, "", false, "hash", resp, "-o", "json")
		var got map[string]string
		if code != 0 || json.Unmarshal([]byte(out), &got) != nil {
			t.Fatalf("exit %d: %s", code, out)
		}
		if got["hash"] != v3.Hash || got["hashHex"] != v3.HexH || got["hashingSchemeVersion"] != "HASHING_SCHEME_VERSION_V3" {
			t.Fatalf("%v", got)
		}
	})

	t.Run("lines keep alignment and fail at the end", func(t *testing.T) {
		input := v2.Tx + "\nnot base64!\n\n" + v2.Tx + "\n" + base64.StdEncoding.EncodeToString([]byte{0x0a, 0x01}) + "\n"
		out, stderr, code := runCmd(t, input, false, "hash", "--lines", "--hex")
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if code != 1 || len(lines) != 5 {
			t.Fatalf("exit %d, %d lines: %q %s", code, len(lines), out, stderr)
		}
		v2hex := hex.EncodeToString(mustB64(t, v2.Hash))
		if lines[0] != v2hex || lines[3] != v2hex {
			t.Errorf("hashes out of place: %q", lines)
		}
		for _, i := range []int{1, 2, 4} {
			if !strings.HasPrefix(lines[i], "error: ") {
				t.Errorf("line %d = %q, want an error line", i+1, lines[i])
			}
		}
		if !strings.Contains(stderr, "3 line(s) could not be hashed") {
			t.Errorf("stderr: %s", stderr)
		}
	})

	t.Run("malformed input is one line and exit 1", func(t *testing.T) {
		bad := writeFile(t, dir, "bad.json", `{"preparedTransaction": "CgA=", "hashingSchemeVersion": "HASHING_SCHEME_VERSION_V2"}`)
		_, stderr, code := runCmd(t, "", false, "hash", bad)
		if code != 1 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "error:") {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
	})
}

func mustB64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestVerifyCommand(t *testing.T) {
	dir := t.TempDir()
	v2 := loadHashVector(t, "rich_v2.json")
	good := filepath.Join(dir, "good.json")
	writePrepareResponse(t, good, v2.Tx, v2.Hash, v2.Scheme)
	out, _, code := runCmd(t, "", false, "verify", good)
	if code != 0 || !strings.Contains(out, "OK") {
		t.Fatalf("match: exit %d, %s", code, out)
	}

	// The node's hash is off by one byte: exit 3, both values shown.
	wrong := mustB64(t, v2.Hash)
	wrong[0] ^= 1
	bad := filepath.Join(dir, "bad.json")
	writePrepareResponse(t, bad, v2.Tx, base64.StdEncoding.EncodeToString(wrong), v2.Scheme)
	out, _, code = runCmd(t, "", false, "verify", bad)
	if code != 3 || !strings.Contains(out, "MISMATCH") || !strings.Contains(out, v2.Hash) || !strings.Contains(out, base64.StdEncoding.EncodeToString(wrong)) {
		t.Fatalf("mismatch: exit %d, %s", code, out)
	}
	out, _, code = runCmd(t, "", false, "verify", bad, "-o", "json")
	var got map[string]any
	if code != 3 || json.Unmarshal([]byte(out), &got) != nil || got["match"] != false {
		t.Fatalf("mismatch json: exit %d, %s", code, out)
	}

	// With the node's hashingDetails, --trace names where the encodings part.
	raw := mustB64(t, v2.Tx)
	res, err := hashing.Compute(raw, hashing.V2, hashing.Options{Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	details := strings.Replace(res.Trace.String(), "'00000030'", "'00000031'", 1)
	var body map[string]any
	data, _ := os.ReadFile(bad)
	_ = json.Unmarshal(data, &body)
	body["hashingDetails"] = details
	data, _ = json.Marshal(body)
	traced := writeFile(t, dir, "traced.json", string(data))
	out, _, code = runCmd(t, "", false, "verify", "--trace", traced)
	if code != 3 || !strings.Contains(out, "The encodings part at byte") {
		t.Fatalf("trace: exit %d, %s", code, out)
	}

	// A bare transaction has no node hash to compare with.
	bare := writeFile(t, dir, "tx.b64", v2.Tx)
	_, stderr, code := runCmd(t, "", false, "verify", bare)
	if code != 1 || !strings.Contains(stderr, "ledger hash") {
		t.Fatalf("bare: exit %d, %s", code, stderr)
	}
}
