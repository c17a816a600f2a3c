package generic

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/events"
	"github.com/ledger-cli/ledger/node/ledger"
)

// testLedger holds contracts by id; it renders arguments by the generic rule.
type testLedger map[string]*ledger.Contract

func (l testLedger) Contract(_ context.Context, id string) (*ledger.Contract, error) {
	return l[id], nil
}

func (testLedger) ArgumentJSON(_ *value.Identifier, _ string, arg value.Value) (json.RawMessage, error) {
	return ValueToJSON(arg)
}

func seedOf(id int32) ([]byte, error) {
	s := sha256.Sum256([]byte{byte(id)})
	return s[:], nil
}

func readCommand(t *testing.T, c ledgerapi.Command) Command {
	t.Helper()
	budget := 1000
	var id string
	switch {
	case c.Create != nil:
		id = c.Create.TemplateID
	case c.Exercise != nil:
		id = c.Exercise.TemplateID
	}
	tid, err := ledgerapi.ParseTemplateID(id)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := ResolveTemplate(tid, nil, nil)
	cmd, err := ReadCommand(c, tmpl, "commands[0]", func(p string) (bool, error) { return p == "bob::1220", nil }, &budget)
	if err != nil {
		t.Fatal(err)
	}
	return cmd
}

// TestBuildCreateAndExercise: a create and an exercise of a stored contract
// are two roots; the parties in the argument are stakeholders, the acting
// parties signatories; Archive consumes, a nonconsuming choice is used.
func TestBuildCreateAndExercise(t *testing.T) {
	stored := &ledger.Contract{TemplateID: PackageIDForName("p") + ":M:T", PackageName: "p",
		Signatories: []string{"alice::1220"}, Stakeholders: []string{"alice::1220"}}
	stored.ContractID = "00" + hex64("c") + "ca11" + hex64("d") // Canton's suffixed id: commands may not name a local one
	l := testLedger{stored.ContractID: stored}
	cmds := []Command{
		readCommand(t, ledgerapi.Command{Create: &ledgerapi.CreateCommand{TemplateID: "#p:M:T", CreateArguments: []byte(`{"owner":"bob::1220","n":1}`)}}),
		readCommand(t, ledgerapi.Command{Exercise: &ledgerapi.ExerciseCommand{TemplateID: "#p:M:T", ContractID: stored.ContractID, Choice: "Look", ChoiceArgument: []byte(`{}`)}}),
	}
	tr, err := Build(context.Background(), cmds, []string{"alice::1220"}, seedOf, l, Options{Nonconsuming: map[string]bool{"Look": true}})
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.Tx.Roots; !slices.Equal(got, []tx.NodeID{0, 1}) || tr.Tx.Version != LFVersion || len(tr.Tx.Seeds) != 2 {
		t.Fatalf("roots %v, version %q, seeds %v", got, tr.Tx.Version, tr.Tx.Seeds)
	}
	tx := tr
	c := tx.Created[0]
	if !slices.Equal(c.Signatories, []string{"alice::1220"}) || !slices.Equal(c.Stakeholders, []string{"alice::1220", "bob::1220"}) || c.NodeID != 0 {
		t.Errorf("created %+v", c)
	}
	if len(tx.Nodes) != 2 || tx.Nodes[1].Kind != events.KindExercise || tx.Nodes[1].Consuming {
		t.Errorf("nodes %+v", tx.Nodes)
	}
	if !slices.Equal(tx.Used, []string{stored.ContractID}) || len(tx.Archived) != 0 || len(tx.Inputs) != 1 || tx.Inputs[0] != stored {
		t.Errorf("used %v, archived %v, inputs %d", tx.Used, tx.Archived, len(tx.Inputs))
	}

	// Archive consumes; a second exercise of the same contract is inactive.
	archive := readCommand(t, ledgerapi.Command{Exercise: &ledgerapi.ExerciseCommand{TemplateID: "#p:M:T", ContractID: stored.ContractID, Choice: "Archive", ChoiceArgument: []byte(`{}`)}})
	gone := errors.New("inactive")
	_, err = Build(context.Background(), []Command{archive, archive}, []string{"alice::1220"}, seedOf, l,
		Options{Inactive: func(string) error { return gone }})
	if !errors.Is(err, gone) {
		t.Errorf("second exercise of an archived contract: %v", err)
	}

	// Another template than the contract's is WrongTemplateError.
	other := readCommand(t, ledgerapi.Command{Exercise: &ledgerapi.ExerciseCommand{TemplateID: "#p:M:U", ContractID: stored.ContractID, Choice: "Archive", ChoiceArgument: []byte(`{}`)}})
	var wrong *WrongTemplateError
	if _, err = Build(context.Background(), []Command{other}, []string{"alice::1220"}, seedOf, l, Options{}); !errors.As(err, &wrong) {
		t.Errorf("wrong template: %v", err)
	}
}

func hex64(s string) string {
	out := make([]byte, 64)
	for i := range out {
		out[i] = s[0]
	}
	return string(out)
}
