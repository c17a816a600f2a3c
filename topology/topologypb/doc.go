// Package topologypb is the Go code protoc generates from topology/proto:
// the subset of Canton's topology and crypto messages that onboarding an
// external party needs. Nobody edits the .pb.go files by hand; `go generate ./topology` rewrites them.
package topologypb
