package cmd

import (
	"strings"
	"testing"
	"time"
)

// TestNoRetriesOfWhatCannotSucceed: a prune past the ledger end and an
// https request to a plain-HTTP node were each sent four times (3 s for the
// prune) before failing; neither can succeed on a second try.
func TestNoRetriesOfWhatCannotSucceed(t *testing.T) {
	url := startOpenNode(t)
	start := time.Now()
	r := runCLI(t, "", "prune", "--offset", "1000", "--url", url).must(t, 1)
	if took := time.Since(start); took > time.Second || strings.Contains(r.err, "times") {
		t.Errorf("prune past the end took %s (retried?):\n%s", took, r.err)
	}
	if !strings.Contains(r.err, "OFFSET_OUT_OF_RANGE") || !strings.Contains(r.err, "hint: prune up to") {
		t.Errorf("prune past the end does not say so:\n%s", r.err)
	}

	start = time.Now()
	r = runCLI(t, "", "parties", "list", "--url", strings.Replace(url, "http://", "https://", 1)).must(t, 1)
	if took := time.Since(start); took > time.Second || strings.Contains(r.err, "times") {
		t.Errorf("https to an http node took %s (retried?):\n%s", took, r.err)
	}
	if !strings.Contains(r.err, "http://") {
		t.Errorf("https to an http node gives no hint:\n%s", r.err)
	}
}
