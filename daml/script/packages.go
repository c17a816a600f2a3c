package script

import (
	"fmt"

	"github.com/ledger-cli/ledger/daml/value"
)

const pk = "Daml.Script.Internal.Questions.Packages:"

// packageCommand performs the package-vetting commands on a PackageLedger.
func (st *run) packageCommand(q *questionValue) (value.Value, error) {
	pl, ok := st.ledger.(PackageLedger)
	if !ok {
		return nil, &Failure{Kind: "command", Command: q.name, Message: q.name + ": this ledger does not let scripts read or change package vetting"}
	}
	ix := st.r.types
	refs := func(v value.Value) []PackageRef {
		var out []PackageRef
		for _, p := range list(v) {
			out = append(out, PackageRef{Name: text(field(p, "name")), Version: text(field(p, "version"))})
		}
		return out
	}
	switch q.name {
	case "ListAllPackages", "ListVettedPackages":
		ps, err := pl.ListPackages(st.ctx, q.name == "ListVettedPackages")
		if err != nil {
			return nil, st.commandError(q.name, err)
		}
		out := make([]value.Value, len(ps))
		for i, p := range ps {
			out[i] = ix.record(pk+"PackageName", value.Text(p.Name), value.Text(p.Version))
		}
		return value.NewList(out...), nil
	case "VetPackages", "UnvetPackages":
		if err := pl.SetVetting(st.ctx, refs(field(q.payload, "packages")), q.name == "VetPackages"); err != nil {
			return nil, st.commandError(q.name, err)
		}
		return value.Unit{}, nil
	case "VetDar", "UnvetDar":
		// A DAR is named by its main package's name: the packages of that
		// name are (un)vetted.
		name := text(field(q.payload, "darName"))
		all, err := pl.ListPackages(st.ctx, false)
		if err != nil {
			return nil, st.commandError(q.name, err)
		}
		var these []PackageRef
		for _, p := range all {
			if p.Name == name {
				these = append(these, p)
			}
		}
		if len(these) == 0 {
			return nil, &Failure{Kind: "command", Command: q.name, Message: fmt.Sprintf("%s: the ledger has no DAR named %s", q.name, name)}
		}
		if err := pl.SetVetting(st.ctx, these, q.name == "VetDar"); err != nil {
			return nil, st.commandError(q.name, err)
		}
		return value.Unit{}, nil
	}
	return nil, st.malformed(q)
}
