package cmdutil

import (
	"fmt"

	"github.com/spf13/pflag"
)

// AliasAnnotation marks a hidden flag that is another name of a visible
// one; its value is the visible flag's name.
const AliasAnnotation = "ledger-alias-of"

// OldFlagName keeps old, a flag's former name, working as a hidden alias
// of the flag name already defined in fl: both set the same value, and
// setting old counts as setting name (Changed), so a command checks one
// name. Each flag name has one meaning across the CLI (a test walks them);
// a name that once meant something else here lives on only this way.
func OldFlagName(fl *pflag.FlagSet, old, name string) {
	target := fl.Lookup(name)
	if target == nil {
		panic(fmt.Sprintf("OldFlagName: no flag --%s to alias", name)) // a programming error, caught by every test that builds the command
	}
	fl.AddFlag(&pflag.Flag{
		Name:        old,
		Usage:       "the old name of --" + name,
		Value:       aliasValue{Value: target.Value, target: target},
		DefValue:    target.DefValue,
		NoOptDefVal: target.NoOptDefVal,
		Hidden:      true,
		Annotations: map[string][]string{AliasAnnotation: {name}},
	})
}

// aliasValue sets the aliased flag's value and marks it as given.
type aliasValue struct {
	pflag.Value
	target *pflag.Flag
}

func (a aliasValue) Set(s string) error {
	if err := a.Value.Set(s); err != nil {
		return err
	}
	a.target.Changed = true
	return nil
}
