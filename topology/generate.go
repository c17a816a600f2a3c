package topology

//go:generate sh -c "cd proto && protoc -I . --go_out=.. --go_opt=module=github.com/ledger-cli/ledger/topology com/digitalasset/canton/version/v1/untyped_versioned_message.proto com/digitalasset/canton/crypto/v30/crypto.proto com/digitalasset/canton/protocol/v30/topology.proto"
