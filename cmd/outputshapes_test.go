package cmd

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestOutputShapes (issue 25, item 12): the streaming commands print one
// JSON object per line with -o json (--jsonl is its hidden old name on
// contracts); their tables have a header, columns as wide as their content
// (a template name longer than 24 characters, a command id longer than
// the header) lined up under the header, and no line ends in a space;
// events lists witnesses as "a, b".
func TestOutputShapes(t *testing.T) {
	n := startLiveNode(t)
	conn := []string{"--url", n.url, "--token", n.admin}
	bank := strings.TrimSpace(runCLI(t, "", append([]string{"parties", "allocate", "bank"}, conn...)...).must(t, 0).out)
	alice := strings.TrimSpace(runCLI(t, "", append([]string{"parties", "allocate", "alice"}, conn...)...).must(t, 0).out)
	runCLI(t, "", append([]string{"users", "create", "teller", "--act-as", bank, "--act-as", alice}, conn...)...).must(t, 0)
	as := []string{"--url", n.url, "--token", n.token("teller")}
	const long = "#iou:Some.Rather.Long.Module.Name:AnIouWithALongName"
	var cid string
	for _, id := range []string{"a", "a-command-id-longer-than-its-header"} {
		r := runCLI(t, "", append([]string{"submit", "--create", long, "--args", `{"owner":"` + bank + `"}`, "--act-as", bank, "--act-as", alice,
			"--command-id", id, "-o", "json"}, as...)...).must(t, 0)
		var tr struct {
			TransactionTree struct {
				EventsByID map[string]struct {
					CreatedTreeEvent struct {
						Value struct {
							ContractID string `json:"contractId"`
						} `json:"value"`
					} `json:"CreatedTreeEvent"`
				} `json:"eventsById"`
			} `json:"transactionTree"`
		}
		if err := json.Unmarshal([]byte(r.out), &tr); err != nil {
			t.Fatal(err)
		}
		cid = tr.TransactionTree.EventsByID["0"].CreatedTreeEvent.Value.ContractID
	}
	if cid == "" {
		t.Fatal("no contract id in submit -o json")
	}
	runCLI(t, "", append([]string{"submit", "--exercise", long, "--contract-id", cid, "--choice", "Archive",
		"--act-as", bank, "--act-as", alice, "--command-id", "archive"}, as...)...).must(t, 0)

	for _, args := range [][]string{
		{"contracts", "--party", bank, "-o", "json"},
		{"contracts", "--party", bank, "--jsonl"},
		{"updates", "--party", bank, "-o", "json"},
		{"completions", "--party", bank, "-o", "json"},
	} {
		r := runCLI(t, "", append(args, as...)...).must(t, 0)
		lines := strings.Split(strings.TrimSuffix(r.out, "\n"), "\n")
		for _, l := range lines {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal([]byte(l), &obj); err != nil {
				t.Errorf("%v: line %q is not one JSON object: %v", args, l, err)
			}
		}
		if len(lines) < 1 {
			t.Errorf("%v: no output", args)
		}
	}

	for _, tc := range []struct {
		args   []string
		header []string
		wide   string // a cell that makes its column wider than a fixed width would
	}{
		{[]string{"contracts", "--party", bank}, []string{"TEMPLATE", "CONTRACT", "SIGNATORIES", "ARGUMENT"}, "Some.Rather.Long.Module.Name:AnIouWithALongName"},
		{[]string{"updates", "--party", bank}, []string{"OFFSET", "RECORD TIME", "UPDATE ID", "COMMAND ID", "EVENTS"}, "a-command-id-longer-than-its-header"},
		{[]string{"completions", "--party", bank}, []string{"OFFSET", "RECORD TIME", "STATUS", "COMMAND ID", "UPDATE AND COST, OR ERROR"}, "a-command-id-longer-than-its-header"},
	} {
		r := runCLI(t, "", append(tc.args, as...)...).must(t, 0)
		checkColumns(t, tc.args[0], r.out, tc.header)
		if !strings.Contains(r.out, tc.wide) {
			t.Errorf("%s: %q is not shown whole:\n%s", tc.args[0], tc.wide, r.out)
		}
	}

	// --ids: only the ids, one per line, for $(…) in a shell (README item 16)
	r := runCLI(t, "", append([]string{"contracts", "--party", bank, "--ids"}, as...)...).must(t, 0)
	if ids := strings.Fields(r.out); len(ids) != 1 || len(ids[0]) != 138 || ids[0] == cid {
		t.Errorf("contracts --ids: want the one active contract's id:\n%s", r.out)
	}
	r = runCLI(t, "", append([]string{"updates", "--party", bank, "--ids"}, as...)...).must(t, 0)
	if ids := strings.Fields(r.out); len(ids) != 3 || !strings.HasPrefix(ids[2], "1220") {
		t.Errorf("updates --ids: want 3 update ids:\n%s", r.out)
	} else {
		runCLI(t, "", append([]string{"update", "get", ids[2], "--party", bank}, as...)...).must(t, 0)
	}
	runCLI(t, "", append([]string{"contracts", "--party", bank, "--ids", "-o", "json"}, as...)...).must(t, 2)

	r = runCLI(t, "", append([]string{"events", cid, "--party", bank, "--party", alice, "--full-ids"}, as...)...).must(t, 0)
	if !strings.Contains(r.out, "witnesses "+bank+", "+alice) && !strings.Contains(r.out, "witnesses "+alice+", "+bank) {
		t.Errorf("events: want \"witnesses a, b\":\n%s", r.out)
	}
}

// checkColumns checks a table: the header first, every row's cells
// starting where the header's names start (after at least two spaces), and
// no line ending in a space.
func checkColumns(t *testing.T, what, out string, header []string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) < 2 {
		t.Fatalf("%s: want a header and rows:\n%s", what, out)
	}
	head := []rune(lines[0])
	var starts []int
	for _, h := range header {
		i := strings.Index(lines[0], h)
		if i < 0 {
			t.Fatalf("%s: header %q lacks %q", what, lines[0], h)
		}
		starts = append(starts, len([]rune(lines[0][:i])))
	}
	if starts[0] != 0 || len(head) != starts[len(starts)-1]+len(header[len(header)-1]) {
		t.Errorf("%s: header %q is not exactly %q", what, lines[0], header)
	}
	for _, l := range lines {
		if strings.HasSuffix(l, " ") {
			t.Errorf("%s: line ends in a space: %q", what, l)
		}
		row := []rune(l)
		for _, s := range starts[1:] {
			if len(row) <= s || row[s] == ' ' || row[s-1] != ' ' || row[s-2] != ' ' {
				t.Errorf("%s: the cell at column %d of %q does not line up with the header\n%s", what, s, l, out)
				break
			}
		}
	}
}
