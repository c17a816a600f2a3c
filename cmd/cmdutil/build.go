package cmdutil

import (
	"runtime"
	"runtime/debug"
)

// Build is what the binary knows about itself.
type Build struct {
	// Version is the module version ("v1.2.3"), or "devel" for a build
	// from a source tree.
	Version string `json:"version"`
	// Commit and CommitTime come from the version control system of the
	// tree it was built from; empty when unknown (go run, no .git).
	Commit     string `json:"commit,omitempty"`
	CommitTime string `json:"commitTime,omitempty"`
	// Modified says the tree had uncommitted changes.
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// ReadBuild reads the build information the Go toolchain embeds.
func ReadBuild() Build {
	b := Build{Version: "devel", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		b.Version = v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.time":
			b.CommitTime = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// String is the one line of ledger --version:
// "devel (commit 0123456789ab, 2026-07-24T12:00:00Z, modified) go1.26.8 linux/amd64".
func (b Build) String() string {
	s := b.Version
	if b.Commit != "" {
		s += " (commit " + b.Commit[:min(12, len(b.Commit))]
		if b.CommitTime != "" {
			s += ", " + b.CommitTime
		}
		if b.Modified {
			s += ", modified"
		}
		s += ")"
	}
	return s + " " + b.Go + " " + b.Platform
}
