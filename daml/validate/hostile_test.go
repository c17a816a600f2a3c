package validate_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/validate"
	"github.com/ledger-cli/ledger/internal/dalfedit"
)

// illTyped is a real DAR whose main package a test has broken, and how the
// checker must refuse it.
type illTyped struct {
	name     string
	dar      string
	edit     func(*dalfedit.Package) error
	kind     string
	contains string
}

var illTypedCases = []illTyped{
	{
		name: "choice_body_does_not_have_its_declared_type",
		dar:  "canton-builtin-admin-workflow-ping.dar",
		edit: func(p *dalfedit.Package) error {
			return p.SetChoiceReturnType("Canton.Internal.Ping", "Ping", "Respond", dalfedit.Builtin(dalfedit.BuiltinInt64))
		},
		// The first definition to meet the changed choice is the value of
		// Ping's HasExercise instance, whose exercise now returns
		// Update Int.
		kind:     "ETypeMismatch",
		contains: "Update Int",
	},
	{
		name: "mutually_recursive_synonyms",
		dar:  "canton-builtin-admin-workflow-ping.dar",
		edit: func(p *dalfedit.Package) error {
			return p.AddSynonymCycle("Canton.Internal.Ping", "Loop1", "Loop2")
		},
		kind:     "ETypeSynCycle",
		contains: "cycle in type synonym definitions",
	},
	{
		// Checked before anything else: a synonym PING beside the record
		// Ping (names compare upper-cased).
		name: "names_collide",
		dar:  "canton-builtin-admin-workflow-ping.dar",
		edit: func(p *dalfedit.Package) error {
			return p.AddSynonymCycle("Canton.Internal.Ping", "PING", "Other")
		},
		kind:     "ECollision",
		contains: "collision between record Canton.Internal.Ping:Ping and type synonym Canton.Internal.Ping:PING",
	},
	{
		name: "template_argument_not_serializable",
		dar:  "canton-builtin-admin-workflow-ping.dar",
		edit: func(p *dalfedit.Package) error {
			return p.SetSerializable("Canton.Internal.Ping", "Ping", false)
		},
		kind:     "EExpectedSerializableType",
		contains: "problem: template argument",
	},
	{
		name: "choice_argument_not_serializable",
		dar:  "canton-builtin-admin-workflow-ping.dar",
		edit: func(p *dalfedit.Package) error {
			return p.SetSerializable("Canton.Internal.Ping", "AbortPing", false)
		},
		kind:     "EExpectedSerializableType",
		contains: "problem: choice argument",
	},
	{
		name: "interface_instance_lacks_a_method",
		dar:  "my-exercise-app.dar",
		edit: func(p *dalfedit.Package) error {
			return p.DropInstanceMethod("TokenTransfer", "TokenTransferFactory")
		},
		kind:     "EMissingMethodInInterfaceInstance",
		contains: "Interface instance lacks an implementation for method",
	},
}

// mutatedDar returns the bytes of a shared DAR with its main package edited.
func mutatedDar(t testing.TB, name string, edit func(*dalfedit.Package) error) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedDars(t), name))
	if err != nil {
		t.Fatal(err)
	}
	out, err := dalfedit.EditMainDalf(b, edit)
	if err != nil {
		t.Fatalf("editing %s: %v", name, err)
	}
	return out
}

// TestIllTypedPackagesRefused: each broken package decodes (decoding
// checks form only) and the checker refuses it with Canton's error class.
func TestIllTypedPackagesRefused(t *testing.T) {
	for _, tc := range illTypedCases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := archive.DecodeDar(mutatedDar(t, tc.dar, tc.edit), archive.Options{})
			if err != nil {
				t.Fatalf("the mutated DAR does not decode: %v", err)
			}
			err = validate.Package(context.Background(), d.Package(d.Main), lookupIn(d.Packages...), validate.Options{})
			var ve *validate.Error
			if !errors.As(err, &ve) {
				t.Fatalf("got %v, want a validation error %s", err, tc.kind)
			}
			if ve.Kind != tc.kind || !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("got %s: %v\nwant %s containing %q", ve.Kind, err, tc.kind, tc.contains)
			}
			if !strings.HasPrefix(err.Error(), "validation error") {
				t.Errorf("message %q lacks Canton's prefix", err)
			}
		})
	}
}
