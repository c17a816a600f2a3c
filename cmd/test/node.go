package test

import (
	"context"
	"fmt"
	"time"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/client/scriptledger"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/script"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/local"
	"github.com/ledger-cli/ledger/server"
)

// nodeLedger starts a fresh ledger serve node in process for one script:
// an in-memory SQLite database, static time at the epoch, no
// authentication on a loopback port, the DAR uploaded. The script then
// talks to it over the JSON Ledger API, as ledger script does. close
// stops the node.
func nodeLedger(ctx context.Context, pkgs []*lf.Package, dar []byte) (l script.Ledger, close func(), err error) {
	clock := node.NewStaticClock(time.Unix(0, 0))
	n, err := local.Open(ctx, local.Config{DBPath: ":memory:", Node: node.Config{Now: clock.Now}})
	if err != nil {
		return nil, nil, fmt.Errorf("starting a node: %w", err)
	}
	run, err := server.Start(ctx, n, server.Config{Addr: "127.0.0.1:0", Clock: clock})
	if err != nil {
		n.Close()
		return nil, nil, fmt.Errorf("starting a node: %w", err)
	}
	c, err := client.New(client.Config{URL: run.URL(), Timeout: 5 * time.Minute})
	if err != nil {
		run.Close()
		return nil, nil, err
	}
	if err := c.UploadDar(ctx, dar, client.UploadOptions{}); err != nil {
		run.Close()
		return nil, nil, fmt.Errorf("uploading the DAR to the node: %w", err)
	}
	return scriptledger.New(c, pkgs, "daml-script"), func() { run.Close() }, nil
}
