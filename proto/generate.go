// Package proto holds ledger's own .proto files for the prepared transaction
// (see damlpb for the generated Go code). Regenerate with `go generate ./proto`;
// it needs protoc and protoc-gen-go on PATH.
package proto

//go:generate sh -c "protoc -I . --go_out=. --go_opt=module=github.com/ledger-cli/ledger/proto com/daml/ledger/api/v2/value.proto com/daml/ledger/api/v2/interactive/common_data.proto com/daml/ledger/api/v2/interactive/transaction/v1/nodes.proto com/daml/ledger/api/v2/interactive/prepared_transaction.proto"
