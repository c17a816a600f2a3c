// Package local opens a participant node on a SQLite file: the wiring of
// node (the ledger service) to node/sqlite (its store), which is all
// `ledger serve` and the tests need to get a *node.Node.
package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/sqlite"
)

// Config says which database to open and how to run the node on it.
type Config struct {
	// DBPath is the SQLite file (created with mode 0600 when missing), or
	// ":memory:" for a private in-memory database.
	DBPath string
	// Store tunes the database; its MaxRightsPerUser defaults to
	// node.MaxRightsPerUser, the limit the node advertises.
	Store sqlite.Options
	// Node configures the ledger service.
	Node node.Config
}

// The store is what the node needs.
var _ node.Store = (*sqlite.Store)(nil)

// Open opens (creating if needed) the database and starts the node on it,
// creating the node's identity and bootstrap admin on first use. Close the
// node to close the database. One node at a time serves a database file:
// Open takes a lock beside it (DBPath+".lock") and fails with *LockedError
// naming the holder's pid while another process (or another node of this
// one) has it.
func Open(ctx context.Context, cfg Config) (*node.Node, error) {
	if cfg.DBPath == "" {
		return nil, errors.New(`no database given: set DBPath to a file path or ":memory:"`)
	}
	if cfg.Store.MaxRightsPerUser <= 0 {
		cfg.Store.MaxRightsPerUser = node.MaxRightsPerUser
	}
	unlock := func() {}
	if cfg.DBPath != ":memory:" {
		release, err := lockDB(cfg.DBPath)
		if err != nil {
			return nil, err
		}
		unlock = release
	}
	st, err := sqlite.Open(cfg.DBPath, cfg.Store)
	if err != nil {
		unlock()
		return nil, fmt.Errorf("open database %s: %w", cfg.DBPath, err)
	}
	locked := lockedStore{Store: st, unlock: unlock}
	n, err := node.Open(ctx, locked, cfg.Node)
	if err != nil {
		_ = locked.Close()
		return nil, fmt.Errorf("database %s: %w", cfg.DBPath, err)
	}
	return n, nil
}

// lockedStore is the store of a node opened here: closing it also releases
// the database's lock, after the last write.
type lockedStore struct {
	*sqlite.Store
	unlock func()
}

func (s lockedStore) Close() error {
	err := s.Store.Close()
	s.unlock()
	return err
}

// DefaultDBPath is the database of a node started without --db:
// $XDG_DATA_HOME/ledger/ledger.db, else ~/.local/share/ledger/ledger.db on
// Linux and the BSDs, else <user config dir>/ledger/ledger.db. The directory
// is created with mode 0700.
func DefaultDBPath() (string, error) {
	var dir string
	if x := os.Getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		dir = filepath.Join(x, "ledger")
	} else if runtime.GOOS != "windows" && runtime.GOOS != "darwin" && runtime.GOOS != "ios" && runtime.GOOS != "plan9" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no home directory for the default database (give --db): %w", err)
		}
		dir = filepath.Join(home, ".local", "share", "ledger")
	} else {
		cfg, err := os.UserConfigDir()
		if err != nil {
			return "", fmt.Errorf("no user directory for the default database (give --db): %w", err)
		}
		dir = filepath.Join(cfg, "ledger")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create %s for the database: %w", dir, err)
	}
	return filepath.Join(dir, "ledger.db"), nil
}
