package node

import (
	"context"
	"fmt"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/engine"
)

// What interface filters add to the events a read returns, as Canton's
// LfValueTranslation fills them: created events carry an interface view per
// interface whose filter asks for it (includeInterfaceView) for one of the
// event's witnesses or for any party and selects the event's template;
// archived events and consuming exercised events list the same interfaces
// as implementedInterfaces (non-consuming exercises list none). Views are
// computed by the interpreter with the package set the filter was resolved
// with (engine.InterfaceView): a view that fails is reported in
// its viewStatus, never as the read's error.

// addViews fills ev's interface views.
func (n *Node) addViews(ctx context.Context, f *EventFilter, ev *ledgerapi.CreatedEvent) error {
	if f.packages == nil { // no interface filter
		return nil
	}
	ids := f.interfaces(ev.WitnessParties, ev.TemplateID)
	if len(ids) == 0 {
		return nil
	}
	views := make(ledgerapi.List[ledgerapi.InterfaceView], 0, len(ids))
	for _, id := range ids {
		v, err := engine.InterfaceView(ctx, f.packages, ev.TemplateID, ev.CreateArgument, id, n.identity.SynchronizerID, &f.viewPackages)
		if err != nil {
			return err
		}
		views = append(views, v)
	}
	ev.InterfaceViews = views
	return nil
}

// implemented is the implementedInterfaces of an archived or consuming
// exercised event.
func implemented(f *EventFilter, witnesses []string, templateID string) ledgerapi.List[string] {
	if ids := f.interfaces(witnesses, templateID); len(ids) > 0 {
		return ids
	}
	return ledgerapi.List[string]{}
}

// projectEvents adds what the filter asks for beyond the template's own
// fields to the events of a transaction: interface views and
// implementedInterfaces, and created event blobs.
func (n *Node) projectEvents(ctx context.Context, f *EventFilter, events []ledgerapi.Event) error {
	if f.packages == nil && !f.wantsBlobs() { // nothing to add
		return nil
	}
	for i := range events {
		switch e := &events[i]; {
		case e.Created != nil:
			if err := n.projectCreated(ctx, f, e.Created); err != nil {
				return err
			}
		case e.Archived != nil:
			e.Archived.ImplementedInterfaces = implemented(f, e.Archived.WitnessParties, e.Archived.TemplateID)
		case e.Exercised != nil && e.Exercised.Consuming:
			e.Exercised.ImplementedInterfaces = implemented(f, e.Exercised.WitnessParties, e.Exercised.TemplateID)
		}
	}
	return nil
}

// projectTree is projectEvents for a transaction tree.
func (n *Node) projectTree(ctx context.Context, f *EventFilter, t *ledgerapi.TransactionTree) error {
	if f.packages == nil && !f.wantsBlobs() {
		return nil
	}
	for _, e := range t.EventsByID {
		switch {
		case e.Created != nil:
			if err := n.projectCreated(ctx, f, e.Created); err != nil {
				return err
			}
		case e.Exercised != nil && e.Exercised.Consuming:
			e.Exercised.ImplementedInterfaces = implemented(f, e.Exercised.WitnessParties, e.Exercised.TemplateID)
		}
	}
	return nil
}

// projectCreated adds a created event's interface views and, when a
// filter of one of its witnesses (or filtersForAnyParty) selecting its
// template asks for it, its blob: the same createdEventBlob the active
// contract set gives the contract, whatever transaction shape shows it
// (Canton's EventProjectionProperties apply to every created event).
func (n *Node) projectCreated(ctx context.Context, f *EventFilter, ev *ledgerapi.CreatedEvent) error {
	if err := n.addViews(ctx, f, ev); err != nil {
		return err
	}
	if !f.blobFor(ev.WitnessParties, ev.TemplateID, ev.PackageName) {
		return nil
	}
	// The store keeps every contract a transaction creates, transient ones
	// too, until pruning removes the transaction that created it.
	c, err := n.store.ContractByID(ctx, ev.ContractID)
	if err != nil {
		return fmt.Errorf("created event blob of %s: %w", ev.ContractID, err)
	}
	b, err := n.engine.CreatedEventBlob(&c)
	if err != nil {
		return fmt.Errorf("created event blob of %s: %w", ev.ContractID, err)
	}
	ev.CreatedEventBlob = b
	return nil
}
