package display

import (
	"strconv"
	"strings"

	"github.com/ledger-cli/ledger/display/format"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// contractArgumentWidth is how much of a contract's argument a table row
// shows.
const contractArgumentWidth = 60

// ContractHeader names the columns of ContractCells; views names the
// last column VIEW, for contracts read through interfaces.
func ContractHeader(views bool) []string {
	last := "ARGUMENT"
	if views {
		last = "VIEW"
	}
	return []string{"TEMPLATE", "CONTRACT", "SIGNATORIES", last}
}

// ContractCells is one active contract as a table row, what `ledger
// contracts` prints through Columns, which sizes each column to its
// content:
//
//	Iou:Iou  00e7a1…21c5  alice::1220a1…bebf  {"amount":"10.0","owner":…
func ContractCells(c *ledgerapi.CreatedEvent, opts TextOptions) []string {
	return []string{format.Escape(templateName(c.TemplateID, opts.FullIDs)), ShortID(c.ContractID, opts),
		PartyList(c.Signatories, opts), inlineJSON(contractShown(c), contractArgumentWidth)}
}

// ContractLine is ContractCells on one line, two spaces between cells.
func ContractLine(c *ledgerapi.CreatedEvent, opts TextOptions) string {
	return strings.Join(ContractCells(c, opts), "  ")
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

// UpdateHeader names the columns of UpdateCells.
func UpdateHeader() []string {
	return []string{"OFFSET", "RECORD TIME", "UPDATE ID", "COMMAND ID", "EVENTS"}
}

// UpdateCells is one update as a table row, what `ledger updates` prints
// per update through Columns:
//
//	17  2026-07-24T11:59:02.512Z  1220f0…  iou-1  created 1, archived 1
//
// A topology transaction says so in EVENTS, an offset checkpoint has no
// update id.
func UpdateCells(u *ledgerapi.JsUpdate, opts TextOptions) []string {
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
		if len(what) == 0 {
			what = []string{"no events"}
		}
		return []string{strconv.FormatInt(int64(t.Offset), 10), t.RecordTime.String(), id(t.UpdateID),
			orDash(format.Escape(t.CommandID)), strings.Join(what, ", ")}
	case u.TransactionTree != nil:
		t := u.TransactionTree
		return []string{strconv.FormatInt(int64(t.Offset), 10), t.RecordTime.String(), id(t.UpdateID),
			orDash(format.Escape(t.CommandID)), format.Plural(len(t.EventsByID), "event")}
	case u.OffsetCheckpoint != nil:
		return []string{strconv.FormatInt(int64(u.OffsetCheckpoint.Offset), 10), "-", "-", "-", "offset checkpoint"}
	case u.TopologyTransaction != nil:
		t := u.TopologyTransaction
		return []string{strconv.FormatInt(int64(t.Offset), 10), t.RecordTime.String(), id(t.UpdateID), "-",
			"topology, " + format.Plural(len(t.Events), "event")}
	}
	return []string{"-", "-", "-", "-", "(empty update)"}
}

// UpdateLine is UpdateCells on one line, two spaces between cells.
func UpdateLine(u *ledgerapi.JsUpdate, opts TextOptions) string {
	return strings.Join(UpdateCells(u, opts), "  ")
}

// orDash is s, or "-" for an empty cell.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
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

// PartyList is parties joined by ", ", each shortened unless opts asks
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
	return strings.Join(out, ", ")
}
