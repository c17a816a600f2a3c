package generic

import (
	"bytes"
	"errors"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"google.golang.org/protobuf/proto"
)

// CreateArgument converts create arguments: a JSON object, which becomes a
// record whose type id is the template.
func CreateArgument(raw []byte, path string, check PartyCheck, budget *int, tmpl *damlpb.Identifier) (*damlpb.Value, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, ledgerapi.MissingCommandField("create_arguments")
	}
	v, err := valueFromJSON(raw, path, check, budget)
	if err != nil {
		return nil, ArgumentError(err)
	}
	r, ok := v.Sum.(*damlpb.Value_Record)
	if !ok {
		return nil, ledgerapi.PreprocessingFailed("%s: the create arguments must be a JSON object (a record)", path)
	}
	r.Record.RecordId = proto.Clone(tmpl).(*damlpb.Identifier)
	return v, nil
}

// ChoiceArgument converts a choice argument. A JSON object becomes a record
// whose type id is the choice (Module:Choice of the template's package) when
// the template is known here (createAndExercise); null is an empty optional.
func ChoiceArgument(raw []byte, path string, check PartyCheck, budget *int, tmpl *damlpb.Identifier, choice string) (*damlpb.Value, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, ledgerapi.MissingCommandField("choice_argument")
	}
	v, err := valueFromJSON(raw, path, check, budget)
	if err != nil {
		return nil, ArgumentError(err)
	}
	if r, ok := v.Sum.(*damlpb.Value_Record); ok && tmpl != nil {
		r.Record.RecordId = &damlpb.Identifier{PackageId: tmpl.PackageId, ModuleName: tmpl.ModuleName, EntityName: choice}
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
