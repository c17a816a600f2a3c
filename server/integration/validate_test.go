package integration

import (
	"net/http"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/internal/dalfedit"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/server"
	"github.com/ledger-cli/ledger/server/auth"
)

// TestIllTypedDarRefused: a DAR whose package does not type-check (Ping's
// Respond declared to return Int64, its body still returning ()) is
// refused on upload and on validation with Canton's DAR_VALIDATION_ERROR,
// and nothing is stored: the package list is unchanged, and the good Ping
// DAR still uploads afterwards.
func TestIllTypedDarRefused(t *testing.T) {
	n := start(t, auth.ModeHS256, node.Config{}, server.Config{})
	bad, err := dalfedit.EditMainDalf(archiveTestdata(t, "canton-builtin-admin-workflow-ping.dar"), func(p *dalfedit.Package) error {
		return p.SetChoiceReturnType("Canton.Internal.Ping", "Ping", "Respond", dalfedit.Builtin(dalfedit.BuiltinInt64))
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/v2/dars", "/v2/dars/validate", "/v2/packages"} {
		e := n.fail("POST", path, n.admin, bad, http.StatusBadRequest, "DAR_VALIDATION_ERROR")
		if e.Cause != "Package validation failed." || !strings.HasPrefix(e.Context["validationError"], "validation error in ") ||
			!strings.Contains(e.Context["validationError"], "type mismatch") {
			t.Errorf("%s: cause %q, context %v", path, e.Cause, e.Context)
		}
	}
	var list ledgerapi.ListPackagesResponse
	n.ok("GET", "/v2/packages", n.admin, nil, &list)
	if len(list.PackageIDs) != 0 {
		t.Fatalf("a refused DAR left packages %v", list.PackageIDs)
	}
	n.ok("POST", "/v2/dars", n.admin, archiveTestdata(t, "canton-builtin-admin-workflow-ping.dar"), nil)
	n.ok("GET", "/v2/packages", n.admin, nil, &list)
	if len(list.PackageIDs) == 0 {
		t.Fatal("the good DAR stored nothing")
	}
}
