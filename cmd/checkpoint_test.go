package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckpointBelongsToItsStream: a checkpoint written by `completions`
// and reused by `updates` (as the README once did) made updates skip the
// offsets completions had passed and append to completions' output. A
// checkpoint now names its stream and another stream refuses it, leaving
// the output file alone.
func TestCheckpointBelongsToItsStream(t *testing.T) {
	url := startOpenNode(t)
	conn := []string{"--url", url, "--user", "participant_admin"}
	r := runCLI(t, "", append([]string{"parties", "allocate", "alice", "-o", "json"}, conn...)...).must(t, 0)
	var alice struct{ Party string }
	if err := json.Unmarshal([]byte(r.out), &alice); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"c1", "c2"} {
		runCLI(t, "", append([]string{"submit", "--create", "#iou:Iou:Iou", "--args", `{"owner":"` + alice.Party + `"}`,
			"--act-as", alice.Party, "--command-id", id}, conn...)...).must(t, 0)
	}
	dir := t.TempDir()
	ck, out := filepath.Join(dir, "alice.offset"), filepath.Join(dir, "alice.ndjson")
	runCLI(t, "", append([]string{"completions", "--party", alice.Party, "--checkpoint", ck, "-o", "json", "--out", out}, conn...)...).must(t, 0)
	before, err := os.ReadFile(out)
	if err != nil || strings.Count(string(before), "\n") != 2 {
		t.Fatalf("completions wrote %q (%v)", before, err)
	}

	r = runCLI(t, "", append([]string{"updates", "--party", alice.Party, "--checkpoint", ck, "-o", "json", "--out", out}, conn...)...).must(t, 2)
	if !strings.Contains(r.err, "another stream") || !strings.Contains(r.err, "completions") {
		t.Errorf("updates took completions' checkpoint:\n%s", r.err)
	}
	if after, _ := os.ReadFile(out); string(after) != string(before) {
		t.Errorf("the refused stream changed the output file:\n%s", after)
	}
	// Another party set is another completions stream too.
	r = runCLI(t, "", append([]string{"completions", "--party", alice.Party, "--command-id", "c1", "--checkpoint", ck}, conn...)...).must(t, 2)
	if !strings.Contains(r.err, "another stream") {
		t.Errorf("a filtered completions stream took the unfiltered one's checkpoint:\n%s", r.err)
	}

	uck, uout := filepath.Join(dir, "alice-updates.offset"), filepath.Join(dir, "alice-updates.ndjson")
	for range 2 {
		runCLI(t, "", append([]string{"updates", "--party", alice.Party, "--checkpoint", uck, "-o", "json", "--out", uout}, conn...)...).must(t, 0)
	}
	if b, _ := os.ReadFile(uout); strings.Count(string(b), "\n") != 2 {
		t.Errorf("updates with its own checkpoint wrote, over two runs:\n%s", b)
	}
}
