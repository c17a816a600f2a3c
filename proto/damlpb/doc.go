// Package damlpb is the Go code protoc generates from the .proto files in
// proto/ (PreparedTransaction, its nodes and Value, written from the field
// facts of Canton's interactive-submission schema). Nobody edits the .pb.go
// files by hand; `go generate ./proto` rewrites them (protoc and protoc-gen-go needed).
package damlpb
