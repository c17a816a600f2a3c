package cmd

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestReadsAfterPruning: after `ledger prune`, updates and completions
// without a start failed with PARTICIPANT_PRUNED_DATA_ACCESSED; they now
// begin at the pruned offset and say so on stderr. An explicit start below
// it keeps Canton's error and its hint.
func TestReadsAfterPruning(t *testing.T) {
	url := startOpenNode(t)
	conn := []string{"--url", url, "--user", "participant_admin"}
	r := runCLI(t, "", append([]string{"parties", "allocate", "alice", "-o", "json"}, conn...)...).must(t, 0)
	var alice struct{ Party string }
	if err := json.Unmarshal([]byte(r.out), &alice); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"c1", "c2", "c3"} {
		runCLI(t, "", append([]string{"submit", "--create", "#iou:Iou:Iou", "--args", `{"owner":"` + alice.Party + `"}`,
			"--act-as", alice.Party, "--command-id", id}, conn...)...).must(t, 0)
	}
	r = runCLI(t, "", append([]string{"updates", "--party", alice.Party, "-o", "json", "--to", "2"}, conn...)...).must(t, 0)
	runCLI(t, "", append([]string{"prune", "--offset", "2"}, conn...)...).must(t, 0)

	for _, read := range [][]string{{"updates", "--party", alice.Party, "-o", "json"}, {"completions", "--party", alice.Party, "-o", "json"}} {
		r = runCLI(t, "", append(read, conn...)...).must(t, 0)
		if !strings.Contains(r.err, "pruned its history up to offset 2") {
			t.Errorf("%s: stderr does not say where it starts:\n%s", read[0], r.err)
		}
		if n := strings.Count(strings.TrimSpace(r.out), "\n") + 1; n != 1 || !strings.Contains(r.out, `"offset":3`) && !strings.Contains(r.out, `"offset": 3`) {
			t.Errorf("%s after the prune: %d lines, want the one at offset 3:\n%s", read[0], n, r.out)
		}
	}
	for _, read := range [][]string{{"updates", "--party", alice.Party, "--from", "0"}, {"completions", "--party", alice.Party, "--begin", "0"}} {
		r = runCLI(t, "", append(read, conn...)...)
		if r.code == 0 || !strings.Contains(r.err, "PARTICIPANT_PRUNED_DATA_ACCESSED") || !strings.Contains(r.err, "hint:") {
			t.Errorf("%s with an explicit start below the pruned offset: exit %d\n%s", read[0], r.code, r.err)
		}
	}
}
