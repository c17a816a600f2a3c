package cmd

// The --dar flag of verify, show and sign, and how their refusals of a
// transaction that is not what its Daml code makes read.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/wallet"
)

// darFlagUsage explains --dar where it re-runs the Daml code.
const darFlagUsage = "a DAR, a directory of DARs (and PACKAGE_ID.payload files) whose packages re-run the transaction's Daml code offline, beside those the envelope carries (repeatable)"

// addDarFlag adds the repeatable --dar of verify, show and sign.
func addDarFlag(fl *pflag.FlagSet, dars *[]string) {
	fl.StringArrayVar(dars, "dar", nil, darFlagUsage)
}

// reinterpretationHelp is the paragraph the three commands' help shares.
const reinterpretationHelp = `The Daml code is re-run offline when its packages are at hand: those an
envelope carries ("ledger prepare --with-packages") and those of --dar (a DAR,
or a directory of DARs and PACKAGE_ID.payload files; repeatable). Every input
contract is authenticated from its blob, the commands are read back from the
root nodes and run as the act_as parties with the roots' seeds at the
preparation time, and the result is compared with the prepared transaction
node by node; the hash is recomputed over what the code made. A transaction
that is not exactly what its code makes exits 3 with the first difference. A
package the transaction needs that is neither in the envelope nor in --dar
exits 1 naming it. Whether the input contracts are still active cannot be
known offline: the synchronizer decides that when the transaction executes.`

// reinterpretationError says what to do about a failure to re-run the
// Daml code: exit 3 for a transaction the code does not make, exit 1 with
// the commands that fetch missing packages.
func reinterpretationError(err error) error {
	var notCode *wallet.NotDamlCodeError
	var missing *wallet.MissingPackagesError
	var bad *wallet.PackageError
	switch {
	case errors.As(err, &notCode):
		return cmdutil.WithExit(cmdutil.ExitHashMismatch, fmt.Errorf("do not sign: %w", err))
	case errors.As(err, &missing):
		var b strings.Builder
		fmt.Fprintf(&b, "%s\nfetch each from the node that prepared it, then pass the directory with --dar DIR:", err)
		for _, id := range missing.IDs {
			fmt.Fprintf(&b, "\n  ledger packages get %s --out DIR/%s%s", id, id, wallet.PayloadSuffix)
		}
		b.WriteString("\nor prepare again with --with-packages")
		return cmdutil.WithExit(cmdutil.ExitFailure, errors.New(b.String()))
	case errors.As(err, &bad):
		return fmt.Errorf("refusing %w: do not use packages that are not what their ids say", err)
	}
	return err
}
