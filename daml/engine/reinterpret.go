package engine

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/upgrade"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// Re-interpretation is Canton's model conformance check
// (ModelConformanceChecker.reInterpret) of a prepared transaction: the
// commands are read back from the root nodes (a create node is a create
// command, an exercise node an exercise command — by template, through an
// interface, or by key — with its chosen value), the roots keep the seeds
// the transaction gives them, the preparation time is the metadata's, the
// packages are those the nodes name, and the code may read the input
// contracts only, given as disclosed contracts (ReplayContractLookup). The
// transaction it makes must be the prepared one, node for node and field
// for field, with the same node seeds, input contracts and ledger-time
// bounds.

// Reinterpretation is what re-interpreting a prepared transaction needs
// besides it.
type Reinterpretation struct {
	Packages *PackageSet
	// Inputs are the prepared transaction's input contracts, authenticated
	// and typed (InputContracts does this from their blobs alone), in the
	// order a key lookup sees them. The code reads no other contract.
	Inputs []*tx.Contract
	// Contracts answers key lookups; nil answers them from Inputs, in
	// their order.
	Contracts ContractSource
	// LedgerTime is what getTime returns, moved into the metadata's bounds
	// (ClampLedgerTime); zero is the preparation time.
	LedgerTime time.Time
	Limits     interp.Limits
}

// Reinterpreted is the outcome of a re-interpretation.
type Reinterpreted struct {
	// Result and Transaction are the re-interpreted transaction, as the
	// interpreter made it and encoded as the prepared one is; nil when the
	// root nodes name no commands (Difference says why).
	Result      *Result
	Transaction *damlpb.DamlTransaction
	// Difference is the first place where the prepared transaction is not
	// what its Daml code makes; nil when it is exactly that.
	Difference *Difference
}

// Reinterpret re-runs the Daml code of a prepared transaction's root nodes
// as Canton's confirming participants do and compares what it makes with
// the prepared transaction. The error is for failures that say nothing
// about the transaction's conformance (a contract source that fails, an
// interpreter limit) and for interpretation failures (*interp.Error): code
// that fails does not make the transaction.
func Reinterpret(ctx context.Context, pt *damlpb.PreparedTransaction, r Reinterpretation) (*Reinterpreted, error) {
	if r.Packages == nil {
		return nil, fmt.Errorf("reinterpret: no packages")
	}
	md, t := pt.GetMetadata(), pt.GetTransaction()
	if md == nil {
		md = &damlpb.Metadata{}
	}
	if d := metadataDifference(md); d != nil {
		return &Reinterpreted{Difference: d}, nil
	}
	nodes := map[string]*damlpb.Node{}
	for _, n := range t.GetNodes() {
		if _, dup := nodes[n.GetNodeId()]; dup {
			return &Reinterpreted{Difference: &Difference{NodeID: n.GetNodeId(), Node: describe(n.GetV1()), Kind: kindOf(n.GetV1()), Field: "node_id",
				Path: "node_id", reason: fmt.Sprintf("node %s appears twice", n.GetNodeId())}}, nil
		}
		nodes[n.GetNodeId()] = n.GetV1()
	}
	seeds := map[int32][]byte{}
	for _, s := range t.GetNodeSeeds() {
		seeds[s.GetNodeId()] = s.GetSeed()
	}
	cmds, rootSeeds, d := RootCommands(t.GetRoots(), nodes, seeds, r.Packages)
	if d != nil {
		return &Reinterpreted{Difference: d}, nil
	}
	preparedAt := time.UnixMicro(int64(md.GetPreparationTime())).UTC()
	ledgerTime := r.LedgerTime
	if ledgerTime.IsZero() {
		ledgerTime = preparedAt
	}
	source := r.Contracts
	if source == nil {
		source = inputSource(r.Inputs)
	}
	res, err := Submit(ctx, &Submission{
		Packages:        r.Packages,
		Preference:      r.Packages.Preference(preparedAt, nil, NamedPackages(r.Packages, t)),
		ActAs:           md.GetSubmitterInfo().GetActAs(),
		Commands:        cmds,
		Contracts:       source,
		Disclosed:       r.Inputs,
		PreparationTime: preparedAt,
		RootSeeds:       rootSeeds,
		LedgerTime:      ClampLedgerTime(ledgerTime, md),
		Limits:          r.Limits,
	})
	if err != nil {
		return nil, err
	}
	encoded, err := EncodeTransaction(res.Transaction)
	if err != nil {
		return nil, err
	}
	out := &Reinterpreted{Result: res, Transaction: encoded}
	if out.Difference = TransactionDifference(t, encoded); out.Difference != nil {
		return out, nil
	}
	out.Difference = inputsDifference(md, res)
	return out, nil
}

// metadataDifference refuses what Canton 3.5's prepare never writes.
func metadataDifference(md *damlpb.Metadata) *Difference {
	switch {
	case md.GetMediatorGroup() != 0:
		return &Difference{Field: "metadata.mediator_group", Path: "metadata.mediator_group",
			Prepared: strconv.FormatUint(uint64(md.GetMediatorGroup()), 10), Reinterpreted: "0",
			reason: fmt.Sprintf("mediator group %d is not 0", md.GetMediatorGroup())}
	case len(md.GetGlobalKeyMapping()) > 0:
		// Deprecated: Canton 3.5's prepare leaves it empty.
		return &Difference{Field: "metadata.global_key_mapping", Path: "metadata.global_key_mapping",
			Prepared: fmt.Sprintf("%d entries", len(md.GetGlobalKeyMapping())), Reinterpreted: "empty",
			reason: "global_key_mapping is not empty; Canton 3.5 leaves it empty"}
	}
	return nil
}

// inputsDifference compares the input contracts and ledger-time bounds of
// the metadata with those of the re-interpreted transaction.
func inputsDifference(md *damlpb.Metadata, res *Result) *Difference {
	want := make([]string, 0, len(res.Inputs))
	for _, c := range res.Inputs {
		want = append(want, string(c.ID))
	}
	sort.Strings(want)
	var got []string
	for _, ic := range md.GetInputContracts() {
		got = append(got, ic.GetV1().GetContractId())
	}
	if !slices.Equal(want, got) {
		return &Difference{Field: "metadata.input_contracts", Path: "metadata.input_contracts",
			Prepared: fmt.Sprint(got), Reinterpreted: fmt.Sprint(want),
			reason: fmt.Sprintf("it lists the input contracts %v; re-interpreting its root commands reads %v", got, want)}
	}
	lo, hi := micros(res.TimeBounds.Min), micros(res.TimeBounds.Max)
	for _, b := range []struct {
		field     string
		got, want *uint64
	}{{"metadata.min_ledger_effective_time", md.MinLedgerEffectiveTime, lo}, {"metadata.max_ledger_effective_time", md.MaxLedgerEffectiveTime, hi}} {
		if !equalBound(b.got, b.want) {
			return &Difference{Field: b.field, Path: b.field, Prepared: boundText(b.got), Reinterpreted: boundText(b.want),
				reason: fmt.Sprintf("its ledger-time bounds [%s, %s] are not those re-interpreting its root commands gives, [%s, %s]",
					boundText(md.MinLedgerEffectiveTime), boundText(md.MaxLedgerEffectiveTime), boundText(lo), boundText(hi))}
		}
	}
	return nil
}

func micros(t *value.Timestamp) *uint64 {
	if t == nil {
		return nil
	}
	v := uint64(*t)
	return &v
}

// equalBound compares two optional bounds.
func equalBound(a, b *uint64) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

func boundText(b *uint64) string {
	if b == nil {
		return "unbounded"
	}
	return timeText(time.UnixMicro(int64(*b)))
}

// timeText writes a time as the JSON API does: whole seconds, or
// milliseconds, or microseconds.
func timeText(t time.Time) string {
	t = t.UTC()
	switch ns := t.Nanosecond(); {
	case ns == 0:
		return t.Format("2006-01-02T15:04:05Z")
	case ns%1_000_000 == 0:
		return t.Format("2006-01-02T15:04:05.000Z")
	}
	return t.Format("2006-01-02T15:04:05.000000Z")
}

// ClampLedgerTime moves a ledger time into the bounds a prepared
// transaction carries, as Canton's decoder does (adjustLedgerTimeToBounds).
func ClampLedgerTime(t time.Time, md *damlpb.Metadata) time.Time {
	if md == nil {
		return t
	}
	if lo := md.MinLedgerEffectiveTime; lo != nil && t.Before(time.UnixMicro(int64(*lo))) {
		return time.UnixMicro(int64(*lo)).UTC()
	}
	if hi := md.MaxLedgerEffectiveTime; hi != nil && t.After(time.UnixMicro(int64(*hi))) {
		return time.UnixMicro(int64(*hi)).UTC()
	}
	return t
}

// RootCommands reads the commands behind the root nodes of a prepared
// transaction, with the seeds of those roots; a root no command makes is a
// difference.
func RootCommands(roots []string, nodes map[string]*damlpb.Node, seeds map[int32][]byte, set *PackageSet) ([]interp.Command, []tx.Hash, *Difference) {
	if len(roots) == 0 {
		return nil, nil, &Difference{Field: "roots", Path: "roots", Prepared: "[]", reason: "the transaction has no root nodes"}
	}
	cmds := make([]interp.Command, 0, len(roots))
	rootSeeds := make([]tx.Hash, 0, len(roots))
	plans := NewPlans(set)
	for i, r := range roots {
		n := nodes[r]
		if n == nil {
			return nil, nil, &Difference{Field: "roots", Path: fmt.Sprintf("roots[%d]", i), Prepared: r,
				reason: fmt.Sprintf("root %s is not a node of the transaction", r)}
		}
		rootDiff := func(field, path, format string, args ...any) *Difference {
			return &Difference{NodeID: r, Node: describe(n), Kind: kindOf(n), Field: field, Path: path, reason: fmt.Sprintf(format, args...)}
		}
		id, err := strconv.ParseInt(r, 10, 32)
		if err != nil {
			return nil, nil, rootDiff("node_id", "node_id", "root %s is not a node id", r)
		}
		s, ok := seeds[int32(id)]
		if !ok || len(s) != len(tx.Hash{}) {
			return nil, nil, rootDiff("node_seeds", "node_seeds", "root node %s has no 32-byte seed", r)
		}
		rootSeeds = append(rootSeeds, tx.Hash(s))
		switch x := n.NodeType.(type) {
		case *damlpb.Node_Create:
			c := x.Create
			tmpl := ValueIdentifier(c.GetTemplateId())
			arg, err := fromProto(plans.Argument(tmpl))(c.GetArgument())
			if err != nil {
				return nil, nil, rootDiff("argument", "argument", "root node %s: the create argument is not a value of %s: %v", r, tmpl, err)
			}
			cmds = append(cmds, &interp.CreateCommand{Template: tmpl, Argument: arg})
		case *damlpb.Node_Exercise:
			c := x.Exercise
			// Through an interface, the command named the interface (Canton's
			// ExerciseInterface); by key, the template and the key.
			tmpl := ValueIdentifier(c.GetTemplateId())
			if c.GetInterfaceId() != nil {
				tmpl = ValueIdentifier(c.GetInterfaceId())
			}
			arg, err := fromProto(plans.ChoiceArgument(tmpl, c.GetChoiceId()))(c.GetChosenValue())
			if err != nil {
				return nil, nil, rootDiff("chosen_value", "chosen_value", "root node %s: the argument of choice %s is not a value of its type: %v", r, c.GetChoiceId(), err)
			}
			if !c.GetByKey() {
				cmds = append(cmds, &interp.ExerciseCommand{Template: tmpl, ContractID: value.ContractID(c.GetContractId()), Choice: c.GetChoiceId(), Argument: arg})
				break
			}
			if c.GetKey() == nil || c.GetInterfaceId() != nil {
				return nil, nil, rootDiff("by_key", "by_key", "root node %s is an exercise by key without a key, or through an interface", r)
			}
			key, err := fromProto(plans.Key(tmpl))(c.GetKey().GetKey().GetKey())
			if err != nil {
				return nil, nil, rootDiff("key", "key", "root node %s: the key is not a value of the key type of %s: %v", r, tmpl, err)
			}
			cmds = append(cmds, &interp.ExerciseByKeyCommand{Template: tmpl, Key: key, Choice: c.GetChoiceId(), Argument: arg})
		default:
			return nil, nil, rootDiff("node_type", "node_type", "root %s is neither a create nor an exercise node", r)
		}
	}
	return cmds, rootSeeds, nil
}

func fromProto(plan *typed.Plan, err error) func(*damlpb.Value) (value.Value, error) {
	return func(v *damlpb.Value) (value.Value, error) {
		if err != nil {
			return nil, err
		}
		return plan.FromProto(v)
	}
}

// NamedPackages are the packages whose templates and interfaces the nodes
// of a prepared transaction name, the highest version of each package
// name: re-interpreting, a package name resolves to the package prepare
// used, whatever has been vetted since.
func NamedPackages(set *PackageSet, t *damlpb.DamlTransaction) []lf.PackageID {
	best := map[string]lf.PackageID{}
	note := func(id *damlpb.Identifier) {
		pkg := lf.PackageID(id.GetPackageId())
		p := set.Env.Package(pkg)
		if p == nil {
			return
		}
		cur := set.Env.Package(best[p.Name])
		if cur == nil || upgrade.CompareVersions(p.Version, cur.Version) > 0 {
			best[p.Name] = pkg
		}
	}
	eachIdentifier(t, note)
	out := make([]lf.PackageID, 0, len(best))
	for _, id := range best {
		out = append(out, id)
	}
	return out
}

// MissingPackages lists, sorted, the packages a prepared transaction names
// (the templates and interfaces of its nodes and input contracts) that set
// does not hold: re-interpreting it needs them. An offline signer asks
// before it re-interprets, to name what to fetch.
func MissingPackages(set *PackageSet, pt *damlpb.PreparedTransaction) []string {
	var out []string
	for _, id := range PreparedPackageIDs(pt) {
		if set == nil || set.Env == nil || set.Env.Package(lf.PackageID(id)) == nil {
			out = append(out, id)
		}
	}
	return out
}

// PreparedPackageIDs are the ids of the packages a prepared transaction
// names — the template and interface of every node, the template of every
// input contract — sorted, each once.
func PreparedPackageIDs(pt *damlpb.PreparedTransaction) []string {
	seen := map[string]bool{}
	note := func(id *damlpb.Identifier) {
		if p := id.GetPackageId(); p != "" {
			seen[p] = true
		}
	}
	eachIdentifier(pt.GetTransaction(), note)
	for _, ic := range pt.GetMetadata().GetInputContracts() {
		note(ic.GetV1().GetTemplateId())
	}
	out := make([]string, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// eachIdentifier calls note with the template id and the interface id (nil
// when none) of every node of t.
func eachIdentifier(t *damlpb.DamlTransaction, note func(*damlpb.Identifier)) {
	for _, n := range t.GetNodes() {
		switch x := n.GetV1().GetNodeType().(type) {
		case *damlpb.Node_Create:
			note(x.Create.GetTemplateId())
		case *damlpb.Node_Exercise:
			note(x.Exercise.GetTemplateId())
			note(x.Exercise.GetInterfaceId())
		case *damlpb.Node_Fetch:
			note(x.Fetch.GetTemplateId())
			note(x.Fetch.GetInterfaceId())
		case *damlpb.Node_QueryByKey:
			note(x.QueryByKey.GetTemplateId())
		}
	}
}

// inputSource answers key lookups from a prepared transaction's input
// contracts, in their order; contracts by id are the disclosed ones.
type inputSource []*tx.Contract

func (inputSource) LookupContract(context.Context, value.ContractID) (*tx.Contract, error) {
	return nil, nil
}

func (s inputSource) LookupKey(_ context.Context, key *tx.GlobalKey, n int) ([]*tx.Contract, error) {
	var out []*tx.Contract
	for _, c := range s {
		if len(out) == n {
			break
		}
		if c.Key != nil && bytes.Equal(c.Key.Hash[:], key.Hash[:]) {
			out = append(out, c)
		}
	}
	return out, nil
}
