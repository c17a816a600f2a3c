package review

import (
	"fmt"
	"strings"
)

// SummaryLine says in one sentence what r does: what each root node does,
// then the net effect ("creates 2 contracts, archives 1").
func SummaryLine(r *Review, nm *Names) string {
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

func describeRoot(n *Node, nm *Names) string {
	switch n.Kind {
	case KindExercise:
		s := "exercise " + Escape(n.Choice) + " on " + entity(n.Template) + " " + nm.Contract(n.ContractID)
		if n.ByKey {
			s += " (by key)"
		}
		if len(n.ActingParties) > 0 {
			s += " as " + strings.Join(nm.Parties(n.ActingParties), ", ")
		}
		return s
	case KindCreate:
		return "create " + entity(n.Template) + " " + nm.Contract(n.ContractID)
	case KindFetch:
		return "fetch " + entity(n.Template) + " " + nm.Contract(n.ContractID)
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
		s = "creates " + Plural(len(e.Created), "contract") + ", archives none"
	case len(e.Created) == 0:
		s = "creates no contract, archives " + Plural(len(e.Archived), "contract")
	default:
		s = "creates " + Plural(len(e.Created), "contract") + fmt.Sprintf(", archives %d", len(e.Archived))
	}
	if e.RolledBack > 0 {
		s += fmt.Sprintf(" (%s rolled back, without effect)", Plural(e.RolledBack, "node"))
	}
	return s
}

// Plural writes n and the noun, with an s unless n is 1.
func Plural(n int, noun string) string {
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
	return Escape(id.EntityName)
}

// Qualified is "Module:Entity", escaped for a terminal.
func (id *Identifier) Qualified() string {
	if id == nil {
		return "(no template)"
	}
	return Escape(id.Name)
}
