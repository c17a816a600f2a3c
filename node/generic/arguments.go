package generic

import (
	"bytes"
	"errors"

	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// CreateArgument converts create arguments: a JSON object, which becomes a
// record whose type id is the template.
func CreateArgument(raw []byte, path string, check PartyCheck, budget *int, tmpl *value.Identifier) (value.Value, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, ledgerapi.MissingCommandField("create_arguments")
	}
	v, err := valueFromJSON(raw, path, check, budget)
	if err != nil {
		return nil, ArgumentError(err)
	}
	r, ok := v.(*value.Record)
	if !ok {
		return nil, ledgerapi.PreprocessingFailed("%s: the create arguments must be a JSON object (a record)", path)
	}
	id := *tmpl
	r.TypeCon = &id
	return r, nil
}

// ChoiceArgument converts a choice argument. A JSON object becomes a record
// whose type id is the choice (Module:Choice of the template's package) when
// the template is known here (createAndExercise); null is an empty optional.
func ChoiceArgument(raw []byte, path string, check PartyCheck, budget *int, tmpl *value.Identifier, choice string) (value.Value, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, ledgerapi.MissingCommandField("choice_argument")
	}
	v, err := valueFromJSON(raw, path, check, budget)
	if err != nil {
		return nil, ArgumentError(err)
	}
	if r, ok := v.(*value.Record); ok && tmpl != nil {
		r.TypeCon = &value.Identifier{PackageID: tmpl.PackageID, ModuleName: tmpl.ModuleName, EntityName: choice}
	}
	return v, nil
}

// ArgumentError is the node's answer to a value that breaks the rule:
// COMMAND_PREPROCESSING_FAILED with the path and the reason.
func ArgumentError(err error) error {
	var ve *ValueError
	if errors.As(err, &ve) {
		return ledgerapi.PreprocessingFailed("%s", ve.Error())
	}
	return err
}
