package ledgerapi

import (
	"testing"

	"github.com/ledger-cli/ledger/node"
)

// DamlValuesIT.scala: text maps go in, are merged by Daml code and come
// back out.
func TestDamlValuesIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, testModel())

	t.Run("DVTextMap", func(t *testing.T) {
		alice := p.allocate(t, "alice")
		tpl := builtTemplate("WithTextMap")
		cid := p.create(t, alice, tpl, map[string]any{"owner": alice, "items": map[string]any{"foo": "bar"}})
		tx := p.exercise(t, alice, tpl, cid, "WithTextMap_Expand", map[string]any{"newItems": map[string]any{"marco": "polo"}})
		if len(tx.Events) == 0 || tx.Events[0].Exercised == nil {
			t.Fatalf("the first event is not the exercise: %+v", tx.Events)
		}
		sameJSON(t, "items returned by WithTextMap_Expand", tx.Events[0].Exercised.ExerciseResult, map[string]any{"foo": "bar", "marco": "polo"})
	})
}
