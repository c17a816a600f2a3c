package display

import (
	"fmt"
	"strings"
)

// summaryLine says in one sentence what r does: what each root node does,
// then the net effect ("creates 2 contracts, archives 1").
func summaryLine(r *Review, nm *namer) string {
	var steps []string
	for _, n := range r.Nodes {
		steps = append(steps, describeRoot(n, nm))
	}
	s := strings.Join(steps, ", then ")
	if s == "" {
		s = "empty transaction"
	}
	return s + "; " + effectsPhrase(r.Effects)
}

func describeRoot(n *Node, nm *namer) string {
	switch n.Kind {
	case KindExercise:
		s := "exercise " + clean(n.Choice) + " on " + entity(n.Template) + " " + nm.contract(n.ContractID)
		if n.ByKey {
			s += " (by key)"
		}
		if len(n.ActingParties) > 0 {
			s += " as " + strings.Join(nm.parties(n.ActingParties), ", ")
		}
		return s
	case KindCreate:
		return "create " + entity(n.Template) + " " + nm.contract(n.ContractID)
	case KindFetch:
		return "fetch " + entity(n.Template) + " " + nm.contract(n.ContractID)
	case KindQueryByKey:
		return "look up " + entity(n.Template) + " by key"
	case KindRollback:
		return "a rolled-back step"
	}
	return n.Kind
}

func effectsPhrase(e Effects) string {
	var s string
	switch {
	case len(e.Created) == 0 && len(e.Archived) == 0:
		s = "creates and archives nothing"
	case len(e.Archived) == 0:
		s = "creates " + plural(len(e.Created), "contract") + ", archives none"
	case len(e.Created) == 0:
		s = "creates no contract, archives " + plural(len(e.Archived), "contract")
	default:
		s = "creates " + plural(len(e.Created), "contract") + fmt.Sprintf(", archives %d", len(e.Archived))
	}
	if e.RolledBack > 0 {
		s += fmt.Sprintf(" (%s rolled back, without effect)", plural(e.RolledBack, "node"))
	}
	return s
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// entity is the short name of a template: its entity name.
func entity(id *Identifier) string {
	if id == nil {
		return "(no template)"
	}
	return clean(id.EntityName)
}

// qualified is "Module:Entity".
func qualified(id *Identifier) string {
	if id == nil {
		return "(no template)"
	}
	return clean(id.Name)
}
