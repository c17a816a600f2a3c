package ledgerapi

import (
	"regexp"
	"testing"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node"
)

// InterfaceSubscriptionsIT.scala (prefix IS). The test tool's interface
// package is Canton's Ping package here: its package name with a template
// and an interface that do not exist.
func TestInterfaceSubscriptionsIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.upload(t, pingDar(t))

	t.Run("ISTransactionsUnknownTemplateOrInterface", func(t *testing.T) {
		party := p.allocate(t, "party")
		p.create(t, party, pingTemplate, pingArgs(party, party))
		const unknownTemplate = "#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:TemplateDoesNotExist"
		const unknownInterface = "#canton-builtin-admin-workflow-ping:Canton.Internal.Ping:InterfaceDoesNotExist"
		request := func(templates, interfaces []string) map[string]any {
			return map[string]any{"beginExclusive": 0, "updateFormat": map[string]any{"includeTransactions": map[string]any{
				"eventFormat":      ledgerapi.EventFormatOf([]string{party}, templates, interfaces, false),
				"transactionShape": ledgerapi.TransactionShapeACSDelta}}}
		}
		e := p.mustFail(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", request([]string{unknownTemplate}, nil),
			failure{code: "NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME"})
		if re := regexp.MustCompile("The following package-name/template qualified-name pairs do not reference any template-id uploaded on this participant.*TemplateDoesNotExist"); !re.MatchString(e.Cause) {
			t.Errorf("cause %q does not match %s", e.Cause, re)
		}
		e = p.mustFail(t, "POST", "/v2/updates?stream_idle_timeout_ms=50", request(nil, []string{unknownInterface}),
			failure{code: "NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME"})
		if re := regexp.MustCompile("The following package-name/interface qualified-name pairs do not reference any interface-id uploaded on this participant.*InterfaceDoesNotExist"); !re.MatchString(e.Cause) {
			t.Errorf("cause %q does not match %s", e.Cause, re)
		}
	})
}
