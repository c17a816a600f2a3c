package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docRef is a comment's reference to a section of a document in docs/.
var docRef = regexp.MustCompile(`docs/([\w-]+\.md) §([0-9]+(?:\.[0-9]+)?)`)

// Every "docs/X.md §N" in the code names a document of the repository and
// a section it has, so a reader can open what a comment points to.
func TestDocReferencesResolve(t *testing.T) {
	headings := map[string]string{}
	n := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if ext := filepath.Ext(path); ext != ".go" && ext != ".proto" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range docRef.FindAllStringSubmatch(string(data), -1) {
			n++
			doc, section := m[1], m[2]
			text, ok := headings[doc]
			if !ok {
				b, err := os.ReadFile(filepath.Join("docs", doc))
				if err != nil {
					t.Errorf("%s: docs/%s: %v", path, doc, err)
					headings[doc] = ""
					continue
				}
				text = string(b)
				headings[doc] = text
			}
			heading := regexp.MustCompile(`(?m)^#+ ` + regexp.QuoteMeta(section) + `[ .–]`)
			if !heading.MatchString(text) {
				t.Errorf("%s: docs/%s has no section %s", path, doc, section)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no references found: the pattern is wrong")
	}
}

// A comment that names a document of docs/ names it by its path from the
// repository's root, as "docs/hashing.md §6" does, never by its file name
// alone, which a reader cannot open and TestDocReferencesResolve cannot check.
func TestDocReferencesHavePaths(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no documents in docs/: %v", err)
	}
	var names []string
	for _, d := range docs {
		names = append(names, regexp.QuoteMeta(filepath.Base(d)))
	}
	// a name preceded by nothing that belongs to a path
	bare := regexp.MustCompile(`(?:^|[^\w./-])(` + strings.Join(names, "|") + `)`)
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if ext := filepath.Ext(path); ext != ".go" && ext != ".proto" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range bare.FindAllStringSubmatch(line, -1) {
				t.Errorf("%s:%d: %q names a document without its folder: write docs/%s", path, i+1, m[1], m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
