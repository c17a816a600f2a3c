// Package interptest is an in-memory ledger for tests of the interpreter
// and of code that runs commands on it: contracts by id and by key,
// transactions committed as a participant commits them (created contracts
// get a suffixed id, consumed ones are archived, nothing under a rollback
// node takes effect).
package interptest

import (
	"context"
	"fmt"
	"sync"

	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// Ledger is an in-memory ledger, safe for concurrent use. It implements
// the interpreter's Ledger interface.
type Ledger struct {
	mu        sync.Mutex
	contracts map[value.ContractID]*tx.Contract
	order     []value.ContractID
	n         int
}

// NewLedger returns an empty ledger.
func NewLedger() *Ledger { return &Ledger{contracts: map[value.ContractID]*tx.Contract{}} }

// LookupContract returns the active contract with id, or nil.
func (l *Ledger) LookupContract(_ context.Context, id value.ContractID) (*tx.Contract, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.contracts[id], nil
}

// LookupKey returns up to n active contracts with the key, most recent
// first.
func (l *Ledger) LookupKey(_ context.Context, key *tx.GlobalKey, n int) ([]*tx.Contract, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []*tx.Contract
	for i := len(l.order) - 1; i >= 0 && len(out) < n; i-- {
		c := l.contracts[l.order[i]]
		if c != nil && c.Key != nil && c.Key.Hash == key.Hash {
			out = append(out, c)
		}
	}
	return out, nil
}

// Active returns the active contracts of a template (by module and entity
// name, any package), in creation order.
func (l *Ledger) Active(module, entity string) []*tx.Contract {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []*tx.Contract
	for _, id := range l.order {
		c := l.contracts[id]
		if c != nil && c.TemplateID.ModuleName == module && c.TemplateID.EntityName == entity {
			out = append(out, c)
		}
	}
	return out
}

// Add puts a contract on the ledger as it is.
func (l *Ledger) Add(c *tx.Contract) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.contracts[c.ID] = c
	l.order = append(l.order, c.ID)
}

// Remove takes a contract off the ledger and returns it.
func (l *Ledger) Remove(id value.ContractID) *tx.Contract {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.contracts[id]
	delete(l.contracts, id)
	return c
}

// Commit applies a transaction at a time: its created contracts become
// active with a suffixed id (and the ids in their arguments and keys are
// suffixed), the contracts it consumed are archived; nodes under a
// rollback node have no effect. It returns the ledger ids of the created
// contracts by their ids in the transaction.
func (l *Ledger) Commit(t *tx.Transaction, at value.Timestamp) map[value.ContractID]value.ContractID {
	l.mu.Lock()
	defer l.mu.Unlock()
	ids := map[value.ContractID]value.ContractID{}
	var creates []*tx.Create
	var consumed []value.ContractID
	var walk func(ns []tx.NodeID)
	walk = func(ns []tx.NodeID) {
		for _, id := range ns {
			switch x := t.Nodes[id].(type) {
			case *tx.Create:
				creates = append(creates, x)
			case *tx.Exercise:
				if x.Consuming {
					consumed = append(consumed, x.ContractID)
				}
				walk(x.Children)
			}
		}
	}
	walk(t.Roots)
	for _, x := range creates {
		l.n++
		ids[x.ContractID] = value.ContractID(fmt.Sprintf("%sca%06x", x.ContractID, l.n))
	}
	for _, x := range creates {
		id := ids[x.ContractID]
		c := &tx.Contract{ID: id, PackageName: x.PackageName, TemplateID: x.TemplateID,
			Argument: Suffixed(x.Argument, ids), Signatories: x.Signatories, Stakeholders: x.Stakeholders, CreatedAt: at}
		if x.Key != nil {
			k := *x.Key
			k.Key = Suffixed(k.Key, ids)
			c.Key = &k
		}
		l.contracts[id] = c
		l.order = append(l.order, id)
	}
	for _, cid := range consumed {
		if id, ok := ids[cid]; ok {
			cid = id
		}
		delete(l.contracts, cid)
	}
	return ids
}

// Suffixed replaces the local contract ids of v by their ledger ids.
func Suffixed(v value.Value, ids map[value.ContractID]value.ContractID) value.Value {
	switch x := v.(type) {
	case value.ContractID:
		if id, ok := ids[x]; ok {
			return id
		}
	case *value.Record:
		fs := make([]value.Field, len(x.Fields))
		for i, f := range x.Fields {
			fs[i] = value.Field{Label: f.Label, Value: Suffixed(f.Value, ids)}
		}
		return &value.Record{TypeCon: x.TypeCon, Fields: fs}
	case *value.Variant:
		return &value.Variant{TypeCon: x.TypeCon, Constructor: x.Constructor, Rank: x.Rank, Value: Suffixed(x.Value, ids)}
	case value.Optional:
		if x.Value != nil {
			return value.Some(Suffixed(x.Value, ids))
		}
	case *value.List:
		var out []value.Value
		for e := range x.All() {
			out = append(out, Suffixed(e, ids))
		}
		return value.NewList(out...)
	case *value.TextMap:
		es := x.Entries()
		out := make([]value.TextMapEntry, len(es))
		for i, e := range es {
			out[i] = value.TextMapEntry{Key: e.Key, Value: Suffixed(e.Value, ids)}
		}
		m, _ := value.NewTextMap(out)
		return m
	case *value.GenMap:
		es := x.Entries()
		out := make([]value.GenMapEntry, len(es))
		for i, e := range es {
			out[i] = value.GenMapEntry{Key: Suffixed(e.Key, ids), Value: Suffixed(e.Value, ids)}
		}
		m, _ := value.NewGenMap(out)
		return m
	}
	return v
}
