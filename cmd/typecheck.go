package cmd

// --dar: prepare and submit check their commands against the packages of
// DAR files before sending, with the node's own rules and messages.

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/engine"
)

func addDarFlag(fl *pflag.FlagSet, dars *[]string) {
	fl.StringArrayVar(dars, "dar", nil, "check the command's arguments against the Daml types of this DAR before sending (repeatable)")
}

// readDars decodes DAR files into their packages.
func readDars(paths []string) ([]*lf.Package, error) {
	var pkgs []*lf.Package
	for _, path := range paths {
		d, err := archive.ReadDarFile(path, archive.Options{AllowDev: true})
		if err != nil {
			return nil, fmt.Errorf("--dar: %w", err)
		}
		pkgs = append(pkgs, d.Packages...)
	}
	return pkgs, nil
}

// checkTypes reads cmds as a node holding the packages of the --dar files
// would (engine.CheckCommands) and refuses them, with the node's error,
// before anything is sent. Commands on templates of other packages are
// read by the node's generic rule. Nothing is checked without --dar.
func checkTypes(dars []string, cmds []ledgerapi.Command, preference []string) error {
	if len(dars) == 0 {
		return nil
	}
	pkgs, err := readDars(dars)
	if err != nil {
		return err
	}
	if err := engine.CheckCommands(engine.PackageSetOf(pkgs...), cmds, preference); err != nil {
		return cmdutil.WithExit(1, fmt.Errorf("the command does not fit the types of --dar, nothing was sent: %w", err))
	}
	return nil
}
