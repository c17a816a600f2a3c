package display

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/wallet"
	"github.com/ledger-cli/ledger/wallet/review"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

const vectorDir = "../testdata/vectors"

// goldenNow is the fixed "now" of the golden files: a minute after the
// preparation time of the rich vectors, so their deadlines show time left
// (the Scala vector's 1970 deadlines show as expired).
var goldenNow = time.Date(2025, 8, 7, 2, 36, 0, 0, time.UTC)

// goldenCases are the spec vectors rendered in testdata/golden: every value
// kind (rich_v2), keys and query-by-key (rich_v3), rollback and a nested
// exercise with a node referenced twice (scala_v2_equivalent), and a real
// node's create (create_ping).
var goldenCases = []struct {
	name, file string
}{
	{"rich_v2", "derived/rich_v2.json"},
	{"rich_v3", "derived/rich_v3.json"},
	{"scala_v2_equivalent", "derived/scala_v2_equivalent.json"},
	{"create_ping", "wallet-tx-visualizer/create_ping.prepared_transaction.b64"},
	{"transfer_preapproval_proposal", "wallet-tx-visualizer/transfer_preapproval_proposal.prepared_transaction.b64"},
}

// loadVector returns the raw PreparedTransaction bytes and scheme of a
// vector: a derived/*.json file, or a wallet .b64 file with its
// .derived_details.json beside it.
func loadVector(t testing.TB, rel string) ([]byte, hashing.Scheme) {
	t.Helper()
	path := filepath.Join(vectorDir, rel)
	var b64, scheme string
	if stem, ok := strings.CutSuffix(path, ".prepared_transaction.b64"); ok {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b64 = strings.TrimSpace(string(raw))
		details, err := os.ReadFile(stem + ".derived_details.json")
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			Scheme string `json:"hashing_scheme_version"`
		}
		if err := json.Unmarshal(details, &d); err != nil {
			t.Fatal(err)
		}
		scheme = d.Scheme
	} else {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			Scheme string `json:"hashing_scheme_version"`
			B64    string `json:"prepared_transaction_b64"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		b64, scheme = v.B64, v.Scheme
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	s, err := hashing.ParseScheme(scheme)
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return raw, s
}

// reviewVector builds the review of a vector as ledger show does, through
// the wallet's review pipeline.
func reviewVector(t *testing.T, rel string) *review.Review {
	t.Helper()
	raw, scheme := loadVector(t, rel)
	env := &wallet.Envelope{PreparedTransaction: base64.StdEncoding.EncodeToString(raw), Form: wallet.FormBase64}
	rv, err := wallet.ReviewEnvelope(env, scheme, goldenNow)
	if err != nil {
		t.Fatalf("ReviewEnvelope(%s): %v", rel, err)
	}
	if rv.HashErr != nil {
		t.Fatalf("%s: %v", rel, rv.HashErr)
	}
	return rv.Review
}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			r := reviewVector(t, c.file)
			var text bytes.Buffer
			if err := RenderText(&text, r, TextOptions{Width: 80}); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, c.name+".txt", text.Bytes())

			var full bytes.Buffer
			if err := RenderText(&full, r, TextOptions{Width: 80, FullIDs: true}); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, c.name+".full.txt", full.Bytes())

			js, err := json.MarshalIndent(r, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, c.name+".json", append(js, '\n'))
		})
	}
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./display -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (run go test ./display -update after checking the change):\n%s",
			path, firstDiff(string(want), string(got)))
	}
}

func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl
		}
	}
	return "(no line differs)"
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

func TestColorOnlyWhenAsked(t *testing.T) {
	r := reviewVector(t, "derived/rich_v2.json")
	var plain, color bytes.Buffer
	if err := RenderText(&plain, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := RenderText(&color, r, TextOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "\x1b") {
		t.Errorf("plain output contains an escape character")
	}
	if !ansi.MatchString(color.String()) {
		t.Fatalf("colour output has no ANSI sequences")
	}
	if stripped := ansi.ReplaceAllString(color.String(), ""); stripped != plain.String() {
		t.Errorf("colour output without its ANSI codes differs from the plain output:\n%s", firstDiff(plain.String(), stripped))
	}
}
