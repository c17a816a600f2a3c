package review

import (
	"fmt"
	"strings"

	"github.com/ledger-cli/ledger/display/format"
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
		s := "exercise " + format.Escape(n.Choice) + " on " + entity(n.Template) + " " + nm.Contract(n.ContractID)
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

// TokenTransfer is what a token-standard transfer (an exercise of
// TransferFactory_Transfer) moves, read from its argument's transfer
// record by label or, without labels, by position (TransferFactory_Transfer's
// transfer is its second field; Transfer's sender, receiver, amount and
// instrumentId its first four; InstrumentId's admin and id its two). A
// field the argument does not have is nil.
type TokenTransfer struct {
	Sender, Receiver, Amount, Admin, InstrumentID *Value
}

// TokenTransfer reads n as a token-standard transfer; ok is false for any
// other node.
func (n *Node) TokenTransfer() (t TokenTransfer, ok bool) {
	if n.Kind != KindExercise || n.Choice != "TransferFactory_Transfer" {
		return t, false
	}
	tr := n.Argument.Field("transfer", 1)
	instrument := tr.Field("instrumentId", 3)
	return TokenTransfer{Sender: tr.Field("sender", 0), Receiver: tr.Field("receiver", 1), Amount: tr.Field("amount", 2),
		Admin: instrument.Field("admin", 0), InstrumentID: instrument.Field("id", 1)}, true
}

// describeTransfer says what a token-standard transfer moves, clear-sign
// style: "transfer 100.0 Amulet from alice::1220…1cd7 to bob::1220…dedf
// (TransferFactory_Transfer on AmuletRules 00ab…)". The amount is written
// as the transaction carries it. ok is false for any other exercise, and
// for an argument without the token standard's Transfer record.
func describeTransfer(n *Node, nm *Names) (string, bool) {
	t, ok := n.TokenTransfer()
	if !ok || t.Sender == nil || t.Sender.Kind != ValueParty || t.Receiver == nil || t.Receiver.Kind != ValueParty ||
		t.Amount == nil || t.Amount.Kind != ValueNumeric || t.InstrumentID == nil || t.InstrumentID.Kind != ValueText {
		return "", false
	}
	return fmt.Sprintf("transfer %s %s from %s to %s (%s on %s %s)", format.Escape(t.Amount.Scalar()), format.Escape(t.InstrumentID.Scalar()),
		nm.Party(t.Sender.Scalar()), nm.Party(t.Receiver.Scalar()), format.Escape(n.Choice), entity(n.Template), nm.Contract(n.ContractID)), true
}

func effectsPhrase(e Effects) string {
	var s string
	switch {
	case len(e.Created) == 0 && len(e.Archived) == 0:
		s = "creates and archives nothing"
	case len(e.Archived) == 0:
		s = "creates " + format.Plural(len(e.Created), "contract") + ", archives none"
	case len(e.Created) == 0:
		s = "creates no contract, archives " + format.Plural(len(e.Archived), "contract")
	default:
		s = "creates " + format.Plural(len(e.Created), "contract") + fmt.Sprintf(", archives %d", len(e.Archived))
	}
	if e.RolledBack > 0 {
		s += fmt.Sprintf(" (%s rolled back, without effect)", format.Plural(e.RolledBack, "node"))
	}
	return s
}

// entity is the short name of a template: its entity name.
func entity(id *Identifier) string {
	if id == nil {
		return "(no template)"
	}
	return format.Escape(id.EntityName)
}

// Qualified is "Module:Entity", escaped for a terminal.
func (id *Identifier) Qualified() string {
	if id == nil {
		return "(no template)"
	}
	return format.Escape(id.Name)
}
