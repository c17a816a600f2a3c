package display

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ledger-cli/ledger/display/format"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// contractArgumentWidth is how much of a contract's argument a table row
// shows.
const contractArgumentWidth = 60

// ContractHeader is the header row of ContractLine's table; views names
// the last column VIEW, for contracts read through interfaces.
func ContractHeader(opts TextOptions, views bool) string {
	st := newStyles(opts.Color)
	last := "ARGUMENT"
	if views {
		last = "VIEW"
	}
	return st.faint.Render(fmt.Sprintf("%-24s %-16s %-30s %s", "TEMPLATE", "CONTRACT", "SIGNATORIES", last))
}

// ContractLine is one active contract in a table row, what `ledger
// contracts` prints:
//
//	Iou:Iou                  00e7a1b2…21c5    alice::1220a1a2…bebf           {"amount":"10.0","owner":…
func ContractLine(c *ledgerapi.CreatedEvent, opts TextOptions) string {
	return fmt.Sprintf("%-24s %-16s %-30s %s", format.Escape(templateName(c.TemplateID, opts.FullIDs)), ShortID(c.ContractID, opts),
		PartyList(c.Signatories, opts), inlineJSON(contractShown(c), contractArgumentWidth))
}

// contractShown is what a contract line shows of the contract: its first
// interface view that was computed when the read asked for views (an
// interface filter), else its argument.
func contractShown(c *ledgerapi.CreatedEvent) []byte {
	for _, v := range c.InterfaceViews {
		if v.ViewStatus.Code == 0 && len(v.ViewValue) > 0 && string(v.ViewValue) != "null" {
			return v.ViewValue
		}
	}
	return c.CreateArgument
}

// UpdateLine is one update in words, what `ledger updates` prints per line:
//
//	17  2026-07-24T11:59:02.512Z  update 1220f0…  iou-1  created 1, archived 1
func UpdateLine(u *ledgerapi.JsUpdate, opts TextOptions) string {
	id := func(s string) string {
		if opts.FullIDs {
			return format.Escape(s)
		}
		return format.Escape(format.ShortHex(s, 8, 4))
	}
	switch {
	case u.Transaction != nil:
		t := u.Transaction
		var created, archived, exercised int
		for _, ev := range t.Events {
			switch {
			case ev.Created != nil:
				created++
			case ev.Archived != nil:
				archived++
			case ev.Exercised != nil:
				exercised++
			}
		}
		var what []string
		for _, n := range []struct {
			k string
			n int
		}{{"created", created}, {"archived", archived}, {"exercised", exercised}} {
			if n.n > 0 {
				what = append(what, n.k+" "+strconv.Itoa(n.n))
			}
		}
		cmd := t.CommandID
		if cmd == "" {
			cmd = "-"
		}
		return fmt.Sprintf("%-6d %-27s update %s  %s  %s", int64(t.Offset), t.RecordTime.String(), id(t.UpdateID),
			format.Escape(cmd), strings.Join(what, ", "))
	case u.TransactionTree != nil:
		t := u.TransactionTree
		return fmt.Sprintf("%-6d %-27s update %s  %d events", int64(t.Offset), t.RecordTime.String(), id(t.UpdateID), len(t.EventsByID))
	case u.OffsetCheckpoint != nil:
		return fmt.Sprintf("%-6d checkpoint", int64(u.OffsetCheckpoint.Offset))
	case u.TopologyTransaction != nil:
		t := u.TopologyTransaction
		return fmt.Sprintf("%-6d %-27s topology %s  %d events", int64(t.Offset), t.RecordTime.String(), id(t.UpdateID), len(t.Events))
	}
	return "(empty update)"
}

// TreeOf is a ledger-effects transaction as a tree: its created and
// exercised events keyed by node id (archived events, which only the ACS
// delta shape has, are left out).
func TreeOf(t *ledgerapi.Transaction) ledgerapi.TransactionTree {
	byID := ledgerapi.Map[ledgerapi.TreeEvent]{}
	for _, ev := range t.Events {
		switch {
		case ev.Created != nil:
			byID[strconv.Itoa(int(ev.Created.NodeID))] = ledgerapi.TreeEvent{Created: ev.Created}
		case ev.Exercised != nil:
			byID[strconv.Itoa(int(ev.Exercised.NodeID))] = ledgerapi.TreeEvent{Exercised: ev.Exercised}
		}
	}
	return ledgerapi.TransactionTree{UpdateID: t.UpdateID, CommandID: t.CommandID, WorkflowID: t.WorkflowID,
		EffectiveAt: t.EffectiveAt, Offset: t.Offset, EventsByID: byID, SynchronizerID: t.SynchronizerID,
		TraceContext: t.TraceContext, RecordTime: t.RecordTime}
}

// ShortID shortens a hex id (contract, update) unless opts asks for full ids.
func ShortID(s string, opts TextOptions) string {
	if opts.FullIDs {
		return format.Escape(s)
	}
	return format.Escape(format.ShortHex(s, 6, 4))
}

// PartyList is parties joined by commas, each shortened unless opts asks
// for full ids.
func PartyList(ps []string, opts TextOptions) string {
	out := make([]string, len(ps))
	for i, p := range ps {
		if opts.FullIDs {
			out[i] = format.Escape(p)
		} else {
			out[i] = format.Escape(format.ShortParty(p, 6, 4))
		}
	}
	return strings.Join(out, ",")
}
