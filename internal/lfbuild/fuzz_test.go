package lfbuild_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/lf"
	lb "github.com/ledger-cli/ledger/internal/lfbuild"
)

// Any text literal and any two of them sharing the string table come back
// from the decoder as written: the writer's interning loses and mixes
// nothing. Text that is not UTF-8 cannot be a protobuf string and is
// refused by the decoder, never a panic.
func FuzzTextLiterals(f *testing.F) {
	f.Add("", "x")
	f.Add("Archive", "Test")
	f.Add("a.b", "é\x00")
	f.Fuzz(func(t *testing.T, a, b string) {
		p := lb.New("fuzz", "1.0.0", "Fuzz")
		p.Value("a", lb.TText, lb.Text(a))
		p.Value("b", lb.TText, lb.Text(b))
		p.Value("both", lb.TList(lb.TText), lb.List(lb.TText, lb.Text(a), lb.Text(b), lb.Text(a)))
		dalf, _ := p.Archive()
		pkg, err := archive.DecodeArchive(dalf, archive.Options{})
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			return // refused or not: only no panic is asked
		}
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		m := pkg.Module("Fuzz")
		for name, want := range map[string]string{"a": a, "b": b} {
			e, err := m.Value(name).Expr()
			if err != nil {
				t.Fatal(err)
			}
			if got, ok := e.(*lf.EText); !ok || got.Value != want {
				t.Errorf("value %s is %#v, want the text %q", name, e, want)
			}
		}
	})
}

// lfbuild writes test models: no file that ships imports it.
func TestOnlyTestsImportLfbuild(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		if strings.Contains(filepath.ToSlash(path), "internal/lfbuild/") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range file.Imports {
			if strings.HasSuffix(imp.Path.Value, `/internal/lfbuild"`) {
				t.Errorf("%s imports internal/lfbuild, which is for tests only", path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
