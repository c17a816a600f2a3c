package cmd

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The package that defines ledger sign, verify and the other client
// commands imports neither the node nor its HTTP server: a command that
// runs a node (serve, quickstart, …) lives in a cmd/<noun> package of its
// own, so the code a signer runs is the code it needs (issue 21, item 4).
func TestCmdImportsNoNode(t *testing.T) {
	const module = "github.com/ledger-cli/ledger/"
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			n++
			path, _ := strconv.Unquote(imp.Path.Value)
			rel, ours := strings.CutPrefix(path, module)
			if !ours {
				continue
			}
			for _, room := range []string{"node", "server"} {
				if rel == room || strings.HasPrefix(rel, room+"/") {
					t.Errorf("%s imports %s: move the command that needs the node to cmd/<noun> (as cmd/serve)", name, path)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no imports found: the test reads the wrong folder")
	}
}
