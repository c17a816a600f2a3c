package ledgerapi

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"testing"

	"github.com/ledger-cli/ledger/node"
)

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(t *testing.T, what string, got json.RawMessage, want any) {
	t.Helper()
	var g, w any
	raw, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %s is not JSON: %v", what, got, err)
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got %s\nwant %s", what, got, raw)
	}
}

// showcase is a ParameterShowcase argument in the JSON the API answers
// with (Int64 as strings, Numeric at its scale).
func showcase(party string, integerList []string) map[string]any {
	return map[string]any{"operator": party, "integer": "42", "decimal": "47.0000000000", "text": "some text",
		"bool": true, "time": "0001-01-01T00:00:00Z",
		"nestedOptionalInteger": map[string]any{"value": map[string]any{"tag": "SomeInteger", "value": "-1"}},
		"integerList":           integerList, "optionalText": "some optional text"}
}

// TransactionServiceArgumentsIT.scala: arguments of every type go in and
// come back out of creates and exercises as they were given.
func TestTransactionServiceArgumentsIT(t *testing.T) {
	p := startParticipant(t, node.Config{})
	p.uploadModel(t, testModel())
	showcaseTpl := builtTemplate("ParameterShowcase")

	t.Run("TXCreateWithAnyType", func(t *testing.T) {
		party := p.allocate(t, "party")
		args := showcase(party, []string{"0", "1", "2", "3"})
		tx := p.transaction(t, []string{party}, createCmd(showcaseTpl, args))
		created := createdEvents(tx)
		if len(created) != 1 {
			t.Fatalf("%d created events, want 1", len(created))
		}
		sameJSON(t, "CreateWithAnyType", created[0].CreateArgument, args)
	})
	t.Run("TXExerciseWithAnyType", func(t *testing.T) {
		party := p.allocate(t, "party")
		cid := p.create(t, party, showcaseTpl, showcase(party, []string{"0", "1", "2", "3"}))
		choice1 := map[string]any{"newInteger": "42", "newDecimal": "37.0000000000", "newText": "some text", "newBool": true,
			"newTime": "0001-01-01T00:00:00Z", "newNestedOptionalInteger": map[string]any{"value": map[string]any{"tag": "SomeInteger", "value": "-1"}},
			"newIntegerList": []string{"0", "1", "2", "3"}, "newOptionalText": "some optional text"}
		ex := exercisedEvents(p.exercise(t, party, showcaseTpl, cid, "Choice1", choice1))
		if len(ex) != 1 {
			t.Fatalf("%d exercised events, want 1", len(ex))
		}
		sameJSON(t, "ExerciseWithAnyType", ex[0].ChoiceArgument, choice1)
	})
	t.Run("TXVeryLongList", func(t *testing.T) {
		party := p.allocate(t, "party")
		list := make([]string, 10000)
		for i := range list {
			list[i] = strconv.Itoa(i)
		}
		args := showcase(party, list)
		created := createdEvents(p.transaction(t, []string{party}, createCmd(showcaseTpl, args)))
		if len(created) != 1 {
			t.Fatalf("%d created events, want 1", len(created))
		}
		sameJSON(t, "VeryLongList", created[0].CreateArgument, args)
	})
	t.Run("TXNoReorder", func(t *testing.T) {
		party := p.allocate(t, "party")
		dummy := p.create(t, party, builtTemplate("Dummy"), map[string]any{"operator": party})
		// The address given in another order than its type's: the answer
		// has the type's order.
		tx := p.exercise(t, party, builtTemplate("Dummy"), dummy, "WrapWithAddress",
			json.RawMessage(`{"address":{"zip":"zip","state":"state","city":"city","street":"street"}}`))
		created := createdEvents(tx)
		if len(created) != 1 {
			t.Fatalf("%d created events, want 1", len(created))
		}
		var args map[string]json.RawMessage
		if err := json.Unmarshal(created[0].CreateArgument, &args); err != nil || len(args) != 2 {
			t.Fatalf("arguments %s: want two fields (%v)", created[0].CreateArgument, err)
		}
		dec := json.NewDecoder(bytes.NewReader(args["address"]))
		var texts []string
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			if s, ok := tok.(string); ok {
				texts = append(texts, s)
			}
		}
		want := []string{"street", "street", "city", "city", "state", "state", "zip", "zip"}
		if !reflect.DeepEqual(texts, want) {
			t.Errorf("address %s: keys and values in the order %v, want %v", args["address"], texts, want)
		}
	})
}
