package cmd

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
)

func TestErrorsExplainsOneID(t *testing.T) {
	out, _, code := runCmd(t, "", false, "errors", "local_verdict_locked_contracts(2,0a1b2c3d): Rejected transaction as some contracts are locked")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{`Error:\s+LOCAL_VERDICT_LOCKED_CONTRACTS\n`, `Category:\s+2 ContentionOnSharedResources \(HTTP 409, gRPC ABORTED\)\n`,
		`Retry:\s+yes\n`, `Meaning:\s+a contract the transaction uses is locked by another transaction`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("missing %s in\n%s", want, out)
		}
	}
}

func TestErrorsListsAndSearches(t *testing.T) {
	all, _, code := runCmd(t, "", false, "errors")
	if code != 0 || strings.Count(all, "\n") != len(cmdutil.Catalog)+1 || !strings.HasPrefix(all, "ID ") {
		t.Fatalf("the catalogue (exit %d): %d lines for %d ids", code, strings.Count(all, "\n"), len(cmdutil.Catalog))
	}
	out, _, _ := runCmd(t, "", false, "errors", "SEQUENCER")
	if n := strings.Count(out, "\n"); n != 4 || !strings.Contains(out, "SEQUENCER_NOT_ENOUGH_TRAFFIC_CREDIT") {
		t.Errorf("the SEQUENCER ids:\n%s", out)
	}
	// not a prefix of any id, but inside some
	out, _, _ = runCmd(t, "", false, "errors", "KEY")
	if !strings.Contains(out, "DUPLICATE_CONTRACT_KEY") || !strings.Contains(out, "CONTRACT_KEY_NOT_FOUND") {
		t.Errorf("ids containing KEY:\n%s", out)
	}
	out, errOut, code := runCmd(t, "", false, "errors", "SEQUENCER_GONE")
	if code != cmdutil.ExitUsage || out != "" || !strings.Contains(errOut, "did you mean SEQUENCER_BACKPRESSURE") {
		t.Errorf("an unknown id: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// -o json: every entry with its category
	out, _, _ = runCmd(t, "", false, "errors", "-o", "json")
	var list []cmdutil.ErrorExplanation
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != len(cmdutil.Catalog) {
		t.Fatalf("-o json: %v, %d entries", err, len(list))
	}
	for _, x := range list {
		if x.Meaning == "" || x.Fix == "" || x.Category == nil && x.ID != "DAML_FAILURE" {
			t.Errorf("incomplete entry %+v", x)
		}
	}
}

// TestErrorsExplainsABodyFromANode pipes error bodies a started ledger serve
// answered into `ledger errors -`.
func TestErrorsExplainsABodyFromANode(t *testing.T) {
	open := startOpenNode(t)
	n := startLiveNode(t)
	post := func(url, token, path, body string) string {
		t.Helper()
		req, _ := http.NewRequest("POST", url+path, strings.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	unknown := post(open, "", "/v2/commands/submit-and-wait", `{"commands":[{"CreateCommand":{"templateId":"#iou:Iou:Iou","createArguments":{}}}],`+
		`"commandId":"c1","userId":"participant_admin","actAs":["Nobody::1220aaaa"]}`)
	out, _, code := runCmd(t, unknown, false, "errors", "-")
	if code != 0 {
		t.Fatalf("exit %d for %s", code, unknown)
	}
	for _, want := range []string{"UNKNOWN_SUBMITTERS", "11 InvalidGivenCurrentSystemStateResourceMissing (HTTP 404", "Cause:",
		"Hint:", "Nobody::1220aaaa", "Correlation id:"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	// a redacted refusal: no token on a node that needs one
	redacted := post(n.url, "", "/v2/commands/submit-and-wait", `{}`)
	out, _, _ = runCmd(t, redacted, false, "errors", "-", "-o", "json")
	var x cmdutil.ErrorExplanation
	if err := json.Unmarshal([]byte(out), &x); err != nil {
		t.Fatal(err)
	}
	if x.Known || x.Category == nil || x.Category.ID != 6 || !strings.Contains(x.Meaning, "withheld") || x.Received == nil || x.Received.CorrelationID == "" {
		t.Errorf("the redacted 401 %s explained as %+v", redacted, x)
	}
	_, errOut, code := runCmd(t, "<html>bad gateway</html>", false, "errors", "-")
	if code == 0 || !strings.Contains(errOut, "not an error id") {
		t.Errorf("not an error: exit %d, %s", code, errOut)
	}
}

// TestCatalogMatchesTheCodesWeAnswer: every error code this repository
// declares is in the catalogue, with the same category, so that an error
// ledger serve answers (or the client knows) can always be explained.
func TestCatalogMatchesTheCodesWeAnswer(t *testing.T) {
	decl := regexp.MustCompile(`ErrorCode\{(?:ID: *)?"([A-Z_0-9]+)", *(?:Category: *)?(\d+)\}`)
	seen := 0
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllStringSubmatch(string(src), -1) {
			seen++
			e, ok := cmdutil.LookupError(m[1])
			if !ok {
				t.Errorf("%s declares %s, which the catalogue lacks", path, m[1])
				continue
			}
			if strconv.Itoa(e.Category) != m[2] {
				t.Errorf("%s declares %s in category %s, the catalogue in %d", path, m[1], m[2], e.Category)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 70 {
		t.Errorf("found only %d error code declarations: is the pattern still right?", seen)
	}
}
