package generic

import (
	"github.com/ledger-cli/ledger/daml/engine/preprocess"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// ReadCommand reads command c at path (commands[i]) on template t, the
// model's resolution of TemplateIDOf(c): check tells party ids the node
// knows, budget is the count of values the request's arguments may still
// hold.
func ReadCommand(c ledgerapi.Command, t Template, path string, check PartyCheck, budget *int) (Command, error) {
	switch {
	case c.Create != nil:
		cmd := Command{Kind: Create, Template: t}
		var err error
		if cmd.CreateArgument, err = CreateArgument(c.Create.CreateArguments, path+".CreateCommand.createArguments", check, budget, t.ID); err != nil {
			return Command{}, err
		}
		return cmd, nil
	case c.Exercise != nil:
		x := c.Exercise
		if x.ContractID == "" {
			return Command{}, ledgerapi.MissingCommandField("contract_id")
		}
		if err := preprocess.ValidateContractID(x.ContractID); err != nil {
			return Command{}, ledgerapi.InvalidCommandField("contract_id", "%v", err)
		}
		if typed.IsLocalV1ContractID(x.ContractID) {
			return Command{}, ledgerapi.PreprocessingFailed("%s", typed.IllegalContractIDMessage(x.ContractID))
		}
		if err := preprocess.ChoiceField(x.Choice); err != nil {
			return Command{}, err
		}
		cmd := Command{Kind: Exercise, Template: t, TemplateRef: x.TemplateID, ContractID: x.ContractID, Choice: x.Choice}
		var err error
		if cmd.ChoiceArgument, err = ChoiceArgument(x.ChoiceArgument, path+".ExerciseCommand.choiceArgument", check, budget, nil, cmd.Choice); err != nil {
			return Command{}, err
		}
		return cmd, nil
	case c.CreateAndExercise != nil:
		x := c.CreateAndExercise
		cmd := Command{Kind: CreateAndExercise, Template: t, Choice: x.Choice}
		var err error
		if cmd.CreateArgument, err = CreateArgument(x.CreateArguments, path+".CreateAndExerciseCommand.createArguments", check, budget, t.ID); err != nil {
			return Command{}, err
		}
		if err := preprocess.ChoiceField(x.Choice); err != nil {
			return Command{}, err
		}
		if cmd.ChoiceArgument, err = ChoiceArgument(x.ChoiceArgument, path+".CreateAndExerciseCommand.choiceArgument", check, budget, t.ID, cmd.Choice); err != nil {
			return Command{}, err
		}
		return cmd, nil
	case c.ExerciseByKey != nil:
		return Command{}, ledgerapi.PreprocessingFailed("ExerciseByKeyCommand on %s: the generic contract model keeps no contract keys; upload the template's package, or exercise by contract id", t)
	}
	return Command{}, ledgerapi.MissingCommandField("command")
}
