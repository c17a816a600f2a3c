package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func generated(t *testing.T) graph {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool on PATH")
	}
	out, err := exec.Command("go", "list", "-C", repoRoot, "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	return rooms(string(out))
}

// docs/architecture.md is what the script writes today.
func TestArchitectureDocIsCurrent(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool on PATH")
	}
	want, err := generate(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(repoRoot, docPath))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run go run ./scripts/archgraph from the repository root and commit it", docPath)
	}
}

// The directions DESIGN.md gives the dependencies.
func TestDependenciesPointOneWay(t *testing.T) {
	g := generated(t)
	never := map[string][]string{
		"signer":         {"*"},
		"daml/lf":        {"*"},
		"proto":          {"*"},
		"display/format": {"*"},
		"hashing":        {"*-proto"},
		"ledgerapi":      {"*-signer"},
		"display":        {"hashing", "signer", "node", "server", "client"},
		"wallet":         {"node", "server", "display", "cmd"},
		"server":         {"cmd"},
		// The engine reads no wire type; its preprocessing reads the JSON
		// API's commands and stands on nothing of the node either.
		"daml/engine":            {"ledgerapi", "node", "server", "cmd", "wallet"},
		"daml/engine/preprocess": {"node", "server", "cmd", "wallet"},
	}
	for from, refused := range never {
		for to := range g[from] {
			if to == "internal" {
				continue
			}
			for _, r := range refused {
				allowed, isExcept := strings.CutPrefix(r, "*-")
				switch {
				case r == "*", isExcept && to != allowed, r == to, r == "node" && strings.HasPrefix(to, "node/"):
					t.Errorf("%s imports %s", from, to)
				}
			}
		}
	}
	for from := range g {
		if strings.HasPrefix(from, "node") {
			for to := range g[from] {
				if to == "server" || to == "cmd" || to == "wallet" {
					t.Errorf("%s imports %s", from, to)
				}
			}
		}
	}
}
