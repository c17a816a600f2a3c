package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/server/auth"
)

// binary is the ledger executable built once by TestMain for the tests that
// run `ledger serve` as a process.
var binary, buildErr = "", error(nil)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ledger-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "ledger")
	out, err := exec.Command("go", "build", "-o", binary, "github.com/ledger-cli/ledger").CombinedOutput()
	if err != nil {
		buildErr = fmt.Errorf("go build: %v\n%s", err, out)
	}
	code := m.Run()
	os.RemoveAll(dir)
	if completionsDir != "" { // the seeded database of BenchmarkCompletionsRead
		os.RemoveAll(completionsDir)
	}
	os.Exit(code)
}

// process is a `ledger serve` child process.
type process struct {
	cmd    *exec.Cmd
	url    string
	stderr *bytes.Buffer
}

// processFiles names a database in a fresh temp dir and writes the HS256
// secret file beside it, for startProcess.
func processFiles(t *testing.T) (db, secretFile string) {
	t.Helper()
	dir := t.TempDir()
	secretFile = filepath.Join(dir, "secret")
	if err := os.WriteFile(secretFile, testSecret, 0o600); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "ledger.db"), secretFile
}

// startProcess runs `ledger serve` on db and waits for its port file.
func startProcess(t *testing.T, db, secretFile string) *process {
	t.Helper()
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	portFile := filepath.Join(filepath.Dir(db), "port")
	_ = os.Remove(portFile)
	p := &process{stderr: &bytes.Buffer{}}
	p.cmd = exec.Command(binary, "serve", "--db", db, "--addr", "127.0.0.1:0", "--port-file", portFile,
		"--auth", "hs256", "--auth-secret-file", secretFile)
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, err := os.ReadFile(portFile)
		if err == nil {
			port, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatalf("port file holds %q", b)
			}
			p.url = fmt.Sprintf("http://127.0.0.1:%d", port)
			return p
		}
		if time.Now().After(deadline) {
			_ = p.cmd.Process.Kill()
			_ = p.cmd.Wait()
			t.Fatalf("ledger serve wrote no port file; stderr:\n%s", p.stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// post sends a request to a process; it returns the status, or 0 when the
// request failed (the process is gone).
func post(client *http.Client, method, url, token string, body any) (int, []byte) {
	b, _ := json.Marshal(body)
	req, err := http.NewRequest(method, url, bytes.NewReader(b))
	if err != nil {
		return 0, nil
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil
	}
	return resp.StatusCode, out
}

// acked records the writes that were answered 200.
type acked struct {
	mu          sync.Mutex
	parties     []string
	users       []string
	annotations []string
}

func (a *acked) add(list *[]string, v string) {
	a.mu.Lock()
	*list = append(*list, v)
	a.mu.Unlock()
}

// TestKillDuringWrites kills `ledger serve` with SIGKILL while several
// clients allocate parties, create users and update party annotations, then
// restarts it on the same database and checks that every write answered 200
// is there.
func TestKillDuringWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ledger serve as a process")
	}
	db, secretFile := processFiles(t)
	admin, err := auth.Mint(testSecret, ledger.AdminUserID, time.Hour, "", auth.DefaultParticipantID, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	var ack acked
	target := ""
	const iterations, writers = 3, 6
	for it := 0; it < iterations; it++ {
		p := startProcess(t, db, secretFile)
		if it == 0 {
			status, body := post(client, "POST", p.url+"/v2/parties", admin, map[string]any{"partyIdHint": "Target"})
			if status != 200 {
				t.Fatalf("allocate target: %d %s", status, body)
			}
			var resp ledgerapi.AllocatePartyResponse
			if err := json.Unmarshal(body, &resp); err != nil {
				t.Fatal(err)
			}
			target = resp.PartyDetails.Party
		} else {
			verifyAcked(t, client, p.url, admin, target, &ack)
		}
		var wg sync.WaitGroup
		for g := 0; g < writers; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				for i := 0; ; i++ {
					name := fmt.Sprintf("it%d-g%d-%d", it, g, i)
					var status int
					switch i % 3 {
					case 0:
						status, _ = post(client, "POST", p.url+"/v2/parties", admin, map[string]any{"partyIdHint": name})
						if status == 200 {
							ack.add(&ack.parties, name)
						}
					case 1:
						status, _ = post(client, "POST", p.url+"/v2/users", admin, map[string]any{"user": map[string]any{"id": name}})
						if status == 200 {
							ack.add(&ack.users, name)
						}
					case 2:
						status, _ = post(client, "PATCH", p.url+partyPath(target), admin, patchBody(target, "",
							map[string]string{name: "v"}, "local_metadata.annotations"))
						if status == 200 {
							ack.add(&ack.annotations, name)
						}
					}
					if status != 200 {
						return // the process is gone (or answered an error, which verify will not expect)
					}
				}
			}(g)
		}
		time.Sleep(time.Duration(100+rand.IntN(400)) * time.Millisecond)
		if err := p.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = p.cmd.Wait()
		wg.Wait()
		client.CloseIdleConnections()
	}
	p := startProcess(t, db, secretFile)
	verifyAcked(t, client, p.url, admin, target, &ack)
	if len(ack.parties) == 0 || len(ack.users) == 0 || len(ack.annotations) == 0 {
		t.Errorf("too few writes acknowledged to mean anything: %d parties, %d users, %d annotations",
			len(ack.parties), len(ack.users), len(ack.annotations))
	}
	t.Logf("acknowledged before kills: %d parties, %d users, %d annotations", len(ack.parties), len(ack.users), len(ack.annotations))
	// and a clean stop on SIGTERM
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("ledger serve after SIGTERM: %v; stderr:\n%s", err, p.stderr)
	}
}

// verifyAcked checks that every acknowledged write survived.
func verifyAcked(t *testing.T, client *http.Client, url, admin, target string, ack *acked) {
	t.Helper()
	var list ledgerapi.ListPartiesResponse
	status, body := post(client, "GET", url+"/v2/parties", admin, nil)
	if status != 200 || json.Unmarshal(body, &list) != nil {
		t.Fatalf("list parties: %d %s", status, body)
	}
	have := map[string]ledgerapi.PartyDetails{}
	for _, p := range list.PartyDetails {
		have[strings.Split(p.Party, "::")[0]] = p
	}
	for _, name := range ack.parties {
		if _, ok := have[name]; !ok {
			t.Errorf("acknowledged party %s is lost", name)
		}
	}
	for _, name := range ack.users {
		if status, body := post(client, "GET", url+"/v2/users/"+name, admin, nil); status != 200 {
			t.Errorf("acknowledged user %s is lost: %d %s", name, status, body)
		}
	}
	ann := have["Target"].LocalMetadata.Annotations
	for _, name := range ack.annotations {
		if ann[name] != "v" {
			t.Errorf("acknowledged annotation %s is lost", name)
		}
	}
}
