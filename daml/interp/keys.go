package interp

import (
	"context"
	"fmt"
	"strings"

	"github.com/ledger-cli/ledger/daml/resolve"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

// KeyLedger is a Ledger that also finds contracts by key (Daml-LF 2.3
// contract keys, Canton 3.5). A Ledger that does not implement it has no
// contract with a key.
type KeyLedger interface {
	Ledger
	// LookupKey returns up to n active contracts with the key visible to the
	// submitters, in the ledger's order; fewer than n means there are no
	// others. Their Key must be set.
	LookupKey(ctx context.Context, key *tx.GlobalKey, n int) ([]*tx.Contract, error)
}

// maxKeyFetches bounds query_n_by_key's n, as Canton's
// MaxContractKeyFetches.
const maxKeyFetches = 1_000_000

// keyState is what the transaction knows of contract keys: Canton 3.5's
// contract state machine in its NUCK mode (non-unique contract keys).
// Several active contracts may have the same key; a query lists the
// transaction's own contracts with the key, most recent first, then those
// of the ledger, in the ledger's order, skipping consumed ones.
type keyState struct {
	// local lists, by key hash, the contracts the transaction created with
	// that key, most recent first (a rollback takes them back).
	local map[tx.Hash][]value.ContractID
	// global is what the ledger answered for each key queried.
	global map[tx.Hash]*keyInput
}

// keyInput is what the ledger said of a key: the contracts it returned,
// in order, whether it has no more, and the contracts with the key the
// transaction read by id without the key query having returned them.
type keyInput struct {
	queried   []value.ContractID
	exhausted bool
	byID      map[value.ContractID]bool
}

func (k *keyState) addLocal(h tx.Hash, cid value.ContractID) {
	if k.local == nil {
		k.local = map[tx.Hash][]value.ContractID{}
	}
	k.local[h] = append([]value.ContractID{cid}, k.local[h]...)
}

func (k *keyState) undoLocal(h tx.Hash) { k.local[h] = k.local[h][1:] }

func (k *keyState) input(h tx.Hash) *keyInput {
	if k.global == nil {
		k.global = map[tx.Hash]*keyInput{}
	}
	ki := k.global[h]
	if ki == nil {
		ki = &keyInput{}
		k.global[h] = ki
	}
	return ki
}

// readByID records that a contract with a key was read from the ledger by
// its id. A key whose query the ledger answered in full and did not list
// it is inconsistent.
func (m *Machine) readByID(c *tx.Contract) bool {
	if c.Key == nil {
		return true
	}
	ki := m.upd.keys.input(c.Key.Hash)
	for _, q := range ki.queried {
		if q == c.ID {
			return true
		}
	}
	if ki.exhausted {
		m.fail(m.inconsistentKey(&c.Key.GlobalKey))
		return false
	}
	if ki.byID == nil {
		ki.byID = map[value.ContractID]bool{}
	}
	ki.byID[c.ID] = true
	return true
}

func (m *Machine) inconsistentKey(k *tx.GlobalKey) *Error {
	return m.newError(errInconsistentKey, interpretationError+"Update failed due to an inconsistent contract key "+value.Terse(k.Key))
}

// queryKey returns up to n active contracts with the key: the
// transaction's own first, most recent first, then the ledger's. exhaustive
// tells whether there are no others (fewer than n were found).
func (m *Machine) queryKey(k *tx.KeyWithMaintainers, n int) (cids []value.ContractID, exhaustive bool, ok bool) {
	u := m.upd
	active := func(cid value.ContractID) bool {
		_, consumed := u.consumed[cid]
		return !consumed
	}
	for _, cid := range u.keys.local[k.Hash] {
		if len(cids) == n {
			return cids, false, true
		}
		if active(cid) {
			cids = append(cids, cid)
		}
	}
	ki := u.keys.input(k.Hash)
	for _, cid := range ki.queried {
		if len(cids) == n {
			return cids, false, true
		}
		if active(cid) {
			cids = append(cids, cid)
		}
	}
	kl, _ := u.ledger.(KeyLedger)
	for len(cids) < n && !ki.exhausted {
		ask := len(ki.queried) + n - len(cids)
		var got []*tx.Contract
		if kl != nil {
			var err error
			if got, err = kl.LookupKey(u.ctx, &k.GlobalKey, ask); err != nil {
				m.fail(m.newError(errInternal, fmt.Sprintf("looking up key %s: %v", k.Key, err)))
				return nil, false, false
			}
		}
		if len(got) < ask {
			ki.exhausted = true
		}
		added := false
		for _, c := range got {
			if c.Key == nil || c.Key.Hash != k.Hash {
				m.fail(m.newError(errInternal, fmt.Sprintf("the ledger returned contract %s, whose key is not %s", c.ID, k.Key)))
				return nil, false, false
			}
			if contains(ki.queried, c.ID) {
				continue
			}
			added = true
			ki.queried = append(ki.queried, c.ID)
			delete(ki.byID, c.ID)
			m.noteInput(c)
			if u.byKey == nil {
				u.byKey = map[value.ContractID]*tx.Contract{}
			}
			u.byKey[c.ID] = c
			if active(c.ID) && len(cids) < n {
				cids = append(cids, c.ID)
			}
		}
		if !added {
			break
		}
	}
	if ki.exhausted && len(ki.byID) > 0 {
		m.fail(m.inconsistentKey(&k.GlobalKey))
		return nil, false, false
	}
	return cids, len(cids) < n, true
}

func contains(ids []value.ContractID, id value.ContractID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// keyWithMaintainers computes the maintainers and the hash of a key of
// template t, where exceptions may not be caught, then calls k.
func (m *Machine) keyWithMaintainers(t *resolve.Template, key value.Value, k func(m *Machine, kwm *tx.KeyWithMaintainers)) {
	if t.Key == nil {
		m.fail(m.newError(errInternal, fmt.Sprintf("template %s has no key", t.ID)))
		return
	}
	m.then(func(m *Machine, v value.Value) {
		maintainers, ok := m.parties(v, "key maintainers")
		if !ok {
			return
		}
		kwm, ok := m.globalKey(t, key, maintainers)
		if ok {
			k(m, kwm)
		}
	})
	m.push(preventCatch)
	m.enter(t.Key.Maintainers, nil, []value.Value{key})
}

// globalKey hashes a key of template t (Canton's GlobalKey).
func (m *Machine) globalKey(t *resolve.Template, key value.Value, maintainers []string) (*tx.KeyWithMaintainers, bool) {
	if err := m.serializable(key); err != nil {
		m.fail(err)
		return nil, false
	}
	h, err := tx.KeyHash(t.PackageName, t.ID.ModuleName, t.ID.EntityName, key)
	if err != nil {
		if err == tx.ErrContractIDInKey {
			m.fail(m.newError(errContractIDInKey, interpretationError+"Contract IDs are not supported in contract keys: "+firstContractID(key)))
		} else {
			m.fail(m.newError(errInternal, err.Error()))
		}
		return nil, false
	}
	return &tx.KeyWithMaintainers{GlobalKey: tx.GlobalKey{TemplateID: t.ID, PackageName: t.PackageName, Key: key, Hash: h}, Maintainers: maintainers}, true
}

func firstContractID(v value.Value) string {
	switch x := v.(type) {
	case value.ContractID:
		return string(x)
	case *value.Record:
		for _, f := range x.Fields {
			if s := firstContractID(f.Value); s != "" {
				return s
			}
		}
	case *value.Variant:
		return firstContractID(x.Value)
	case value.Optional:
		if x.Value != nil {
			return firstContractID(x.Value)
		}
	case *value.List:
		for e := range x.All() {
			if s := firstContractID(e); s != "" {
				return s
			}
		}
	case *value.TextMap:
		for _, e := range x.Entries() {
			if s := firstContractID(e.Value); s != "" {
				return s
			}
		}
	case *value.GenMap:
		for _, e := range x.Entries() {
			if s := firstContractID(e.Key) + firstContractID(e.Value); s != "" {
				return s
			}
		}
	}
	return ""
}

// keyOp is one of the by-key updates.
type keyOp int

const (
	keyFetch keyOp = iota
	keyExercise
	keyLookup
	keyQuery
)

// keyUpdate runs the by-key updates; the last argument is the token. As
// Speedy's SBUKeyBuiltin: the key's maintainers (uncatchable), a check
// that they are not empty, the maintainers' authority for lookups, the
// query, the contracts found fetched; then a fetch or exercise node by key
// (fetch_by_key, exercise_by_key) or a QueryByKey node (lookup_by_key,
// query_n_by_key).
func (m *Machine) keyUpdate(op resolve.Op, args []value.Value) {
	var ref *resolve.TemplateRef
	var kind keyOp
	n := 1
	key := args[0]
	switch o := op.(type) {
	case *resolve.FetchByKey:
		ref, kind = o.Template, keyFetch
	case *resolve.ExerciseByKey:
		ref, kind = o.Template, keyExercise
	case *resolve.LookupByKey:
		ref, kind = o.Template, keyLookup
	case *resolve.QueryNByKey:
		ref, kind = o.Template, keyQuery
		n, key = int(min(int64(args[0].(value.Int64)), maxKeyFetches)), args[1]
		if n < 1 {
			m.fail(m.newError(errInternal, fmt.Sprintf("Invalid argument n for QueryNByKey: %d. Expected a positive integer.", n)))
			return
		}
	}
	t, err := ref.Get()
	if err != nil {
		m.fail(m.newError(errInternal, err.Error()))
		return
	}
	u := m.upd
	action := "fetch"
	if kind == keyExercise {
		action = "exercise"
	}
	var choice *resolve.Choice
	if kind == keyExercise {
		if choice = t.Choice(op.(*resolve.ExerciseByKey).Choice); choice == nil {
			m.fail(m.newError(errInternal, fmt.Sprintf("template %s has no choice %s", t.ID, op.(*resolve.ExerciseByKey).Choice)))
			return
		}
	}
	u.pushWhere(action, t, choice)
	m.keyWithMaintainers(t, key, func(m *Machine, kwm *tx.KeyWithMaintainers) {
		if len(kwm.Maintainers) == 0 {
			m.fail(m.newError(errFetchEmptyMaintainers, fmt.Sprintf("%sUpdate failed due to a contract key with an empty set of maintainers when fetching or looking up by key %s/%s\nThe provided shared key is %s",
				interpretationError, t.PackageName, prettyID(t.ID), kwm.Key)))
			return
		}
		if kind == keyLookup || kind == keyQuery {
			if auth := u.authorizers(); !subset(kwm.Maintainers, auth) {
				m.fail(m.authError(fmt.Sprintf("node %s (%s) requires authorizers %s for lookup by key, but it only has %s",
					nodeIDText(u.nodeID()), t.ID, strings.Join(kwm.Maintainers, ","), strings.Join(auth, ","))))
				return
			}
		}
		cids, exhaustive, ok := m.queryKey(kwm, n)
		if !ok {
			return
		}
		if (kind == keyFetch || kind == keyExercise) && len(cids) == 0 {
			// Canton's engine words this error apart from other
			// interpretation errors (Error.Interpretation.DamlException):
			// "dependency error: couldn't find key: " and the GlobalKey
			// (template id, package name, key, hash); the key is written
			// here in Daml's terse form, not Scala's.
			m.fail(m.newError(errContractKeyNotFound, fmt.Sprintf("dependency error: couldn't find key: GlobalKey(%s, %s, %s, %s)",
				t.ID, kwm.PackageName, value.Terse(kwm.Key), kwm.Hash)))
			return
		}
		m.withContracts(t, cids, nil, func(m *Machine, infos []*contractInfo) {
			switch kind {
			case keyFetch:
				if m.insertFetch(cids[0], infos[0], nil, true) {
					u.popWhere()
					m.val = tuple2(cids[0], infos[0].arg)
				}
			case keyExercise:
				m.runChoice(newExercising(exercising{choice: choice, cid: cids[0], arg: args[1], info: infos[0], this: infos[0].arg, byKey: true}))
			default:
				u.nodes = append(u.nodes, &tx.QueryByKey{PackageName: t.PackageName, TemplateID: t.ID, Key: kwm,
					Result: cids, Exhaustive: exhaustive, Version: tx.VersionWithKey})
				u.addChild(u.nodeID() - 1)
				u.popWhere()
				if kind == keyLookup {
					if len(cids) == 0 {
						m.val = value.None
					} else {
						m.val = value.Some(cids[0])
					}
					return
				}
				pairs := make([]value.Value, len(cids))
				for i, cid := range cids {
					pairs[i] = tuple2(cid, infos[i].arg)
				}
				m.val = value.Some(value.NewList(pairs...))
			}
		})
	})
}

// withContracts reads the contracts cids as template t, then calls k with
// their infos.
func (m *Machine) withContracts(t *resolve.Template, cids []value.ContractID, infos []*contractInfo, k func(m *Machine, infos []*contractInfo)) {
	if len(infos) == len(cids) {
		k(m, infos)
		return
	}
	m.withContract(cids[len(infos)], asTemplate(t), func(m *Machine, info *contractInfo) {
		m.withContracts(t, cids, append(infos, info), k)
	})
}

// tuple2Type is Daml's (a, b), of the stable package daml-prim
// DA.Types, which fetch_by_key and query_n_by_key return.
var tuple2Type = &value.Identifier{
	PackageID:  "5aee9b21b8e9a4c4975b5f4c4198e6e6e8469df49e2010820e792f393db870f4",
	ModuleName: "DA.Types",
	EntityName: "Tuple2",
}

func tuple2(a, b value.Value) *value.Record {
	return &value.Record{TypeCon: tuple2Type, Fields: []value.Field{{Label: "_1", Value: a}, {Label: "_2", Value: b}}}
}
