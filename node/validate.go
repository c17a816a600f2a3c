package node

import (
	"context"
	"errors"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/validate"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
)

// validateAdded type-checks the packages an upload adds against every
// package the node would then have, as Canton validates a DAR before
// storing it: a refusal is DAR_VALIDATION_ERROR ("Package validation
// failed.") with the checker's message as validationError, and nothing is
// stored.
func validateAdded(ctx context.Context, added []ledger.Package, all map[string]*lf.Package) error {
	pkgs := make([]*lf.Package, 0, len(added))
	for _, a := range added {
		pkgs = append(pkgs, all[a.ID])
	}
	err := validate.Packages(ctx, pkgs, func(id lf.PackageID) *lf.Package { return all[string(id)] }, validate.Options{})
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var pe *validate.PackageError
	ctxMap := map[string]string{"validationError": err.Error()}
	if errors.As(err, &pe) {
		ctxMap = map[string]string{"validationError": pe.Err.Error(), "packageId": string(pe.ID)}
	}
	return ledgerapi.NewError(ledgerapi.CodeDarValidationError, "Package validation failed.", ctxMap)
}
