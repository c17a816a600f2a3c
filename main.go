// Command ledger is a client, offline signer and local node for Canton
// participant nodes speaking the JSON Ledger API v2.
package main

import (
	"os"

	"github.com/ledger-cli/ledger/cmd"
)

func main() {
	os.Exit(cmd.Execute())
}
