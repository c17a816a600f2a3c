//go:build unix

package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readmeSkip marks a fenced block of README.md that is not part of the
// walkthrough; the reason follows it on the same line.
const readmeSkip = "<!-- README test: skip"

// shBlock is one ```sh block of README.md.
type shBlock struct {
	line int // of the opening fence
	text string
}

// readmeBlocks returns the ```sh blocks of a Markdown file, in order,
// without those marked with readmeSkip on the line before the fence.
func readmeBlocks(t *testing.T, path string) []shBlock {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []shBlock
	var cur *shBlock
	prev := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```sh":
			if !strings.HasPrefix(strings.TrimSpace(prev), readmeSkip) {
				cur = &shBlock{line: n}
			}
		case cur != nil && strings.TrimSpace(line) == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
		prev = line
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Fatalf("README.md:%d: a ```sh block is not closed", cur.line)
	}
	return blocks
}

// TestREADME runs the README's walkthrough as a new user would: every
// ```sh block in order, in one bash session, with a freshly built ledger on
// the PATH, an empty working directory and a fresh HOME, and nothing of the
// caller's LEDGER_* environment. The only change made to the text is the
// ports: each 127.0.0.1:75xx becomes a free port, so that the test runs
// beside anything else on the machine.
func TestREADME(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs the README's walkthrough")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	checkGoVersionStated(t)
	blocks := readmeBlocks(t, "README.md")
	if len(blocks) < 5 {
		t.Fatalf("README.md has %d walkthrough blocks; the test is not reading it right", len(blocks))
	}

	bin := filepath.Dir(ledgerBinary(t))
	home, work := t.TempDir(), t.TempDir()

	var script strings.Builder
	// The session's own plumbing, not the README's: stop at the first
	// failure, and stop the nodes the walkthrough started in the background.
	// (|| true: under set -e a kill with no job left, after the README has
	// stopped its nodes itself, would make the exit status 2.)
	script.WriteString("set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true' EXIT\n")
	for _, b := range blocks {
		fmt.Fprintf(&script, "printf '\\n=== README.md:%d\\n'\n%s", b.line, b.text)
	}
	text := freePorts(t, script.String())

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "-c", text)
	cmd.Dir = work
	cmd.Env = readmeEnv(home, bin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README walkthrough failed (%v); the last block started is the one that failed:\n%s", err, out)
	}
	t.Logf("%s", out)
}

// readmeEnv is a new user's environment: the system's PATH with ledger in
// front, a fresh HOME, and no LEDGER_*, XDG_* or colour settings.
func readmeEnv(home, bin string) []string {
	env := []string{"HOME=" + home, "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "HOME" || k == "PATH", strings.HasPrefix(k, "LEDGER_"), strings.HasPrefix(k, "XDG_"),
			k == "NO_COLOR", k == "CLICOLOR_FORCE":
		default:
			env = append(env, kv)
		}
	}
	return env
}

var readmePort = regexp.MustCompile(`127\.0\.0\.1:75\d\d\b`)

// freePorts replaces each 127.0.0.1:75xx of the text by a free port,
// the same one wherever the same address appears.
func freePorts(t *testing.T, text string) string {
	t.Helper()
	ports := map[string]string{}
	return readmePort.ReplaceAllStringFunc(text, func(addr string) string {
		if p, ok := ports[addr]; ok {
			return p
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ports[addr] = l.Addr().String()
		l.Close()
		return ports[addr]
	})
}

// checkGoVersionStated: the README names the Go version go.mod asks for.
func checkGoVersionStated(t *testing.T) {
	t.Helper()
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if m == nil || !strings.Contains(string(readme), "Go "+string(m[1])+" or later") {
		t.Errorf("README.md does not say \"Go %s or later\", the go line of go.mod", m[1])
	}
}
