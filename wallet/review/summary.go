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
		if s, ok := describeTransfer(n, nm); ok {
			return s
		}
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

// describeTransfer says what a token-standard transfer moves, clear-sign
// style: "transfer 100.0 Amulet from alice::1220…1cd7 to bob::1220…dedf
// (TransferFactory_Transfer on AmuletRules 00ab…)". The amount is written
// as the transaction carries it. ok is false for any other exercise, and
// for an argument without the token standard's Transfer record (by label,
// or by position: TransferFactory_Transfer's transfer is its second field;
// Transfer's sender, receiver, amount and instrumentId its first four).
func describeTransfer(n *Node, nm *Names) (string, bool) {
	if n.Choice != "TransferFactory_Transfer" {
		return "", false
	}
	t := n.Argument.Field("transfer", 1)
	sender, receiver := t.Field("sender", 0), t.Field("receiver", 1)
	amount, id := t.Field("amount", 2), t.Field("instrumentId", 3).Field("id", 1)
	if sender == nil || sender.Kind != ValueParty || receiver == nil || receiver.Kind != ValueParty ||
		amount == nil || amount.Kind != ValueNumeric || id == nil || id.Kind != ValueText {
		return "", false
	}
	return fmt.Sprintf("transfer %s %s from %s to %s (%s on %s %s)", Escape(amount.Scalar()), Escape(id.Scalar()),
		nm.Party(sender.Scalar()), nm.Party(receiver.Scalar()), Escape(n.Choice), entity(n.Template), nm.Contract(n.ContractID)), true
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
