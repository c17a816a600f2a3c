package engine

import (
	"context"
	"errors"
	"fmt"
	"github.com/ledger-cli/ledger/daml/contract"
	damlengine "github.com/ledger-cli/ledger/daml/engine"
	"github.com/ledger-cli/ledger/daml/typed"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/upgrade"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Execute re-interprets a prepared transaction whose templates are those
// of uploaded packages, as Canton's model conformance check does
// (ModelConformanceChecker.reInterpret): the commands are read back from
// the root nodes (a create node is a create command, an exercise node an
// exercise command with its chosen value), the roots keep the seeds the
// transaction gives them, the preparation time is the metadata's, and the
// interpreter may read the metadata's input contracts only, given as
// disclosed contracts (ReplayContractLookup). The transaction it makes must
// be the prepared one, node for node and byte for byte, with the same input
// contracts and ledger-time bounds; otherwise execute refuses it, even when
// the signatures are valid for the changed bytes.

// interpretedTransaction reports whether the roots of a prepared
// transaction name templates of uploaded packages (re-interpreted) or of
// packages never uploaded (the generic contract model); a mix is refused.
func (e *Engine) interpretedTransaction(t *damlpb.DamlTransaction) (bool, error) {
	set := e.cfg.Packages()
	nodes := map[string]*damlpb.Node{}
	for _, n := range t.GetNodes() {
		nodes[n.GetNodeId()] = n.GetV1()
	}
	typedRoots := 0
	for _, r := range t.GetRoots() {
		var id *damlpb.Identifier
		switch n := nodes[r]; {
		case n.GetCreate() != nil:
			id = n.GetCreate().GetTemplateId()
		case n.GetExercise() != nil:
			id = n.GetExercise().GetTemplateId()
		default:
			continue
		}
		if _, ok := set.Name(id.GetPackageId()); ok {
			typedRoots++
		}
	}
	if typedRoots > 0 && typedRoots < len(t.GetRoots()) {
		return false, nonConforming("its roots mix templates of uploaded packages with templates of packages never uploaded")
	}
	return typedRoots > 0, nil
}

// clampLedgerTime moves a ledger time into the bounds a prepared
// transaction carries, as Canton's decoder does (adjustLedgerTimeToBounds).
func clampLedgerTime(t time.Time, md *damlpb.Metadata) time.Time {
	if lo := md.MinLedgerEffectiveTime; lo != nil && t.Before(time.UnixMicro(int64(*lo))) {
		return time.UnixMicro(int64(*lo)).UTC()
	}
	if hi := md.MaxLedgerEffectiveTime; hi != nil && t.After(time.UnixMicro(int64(*hi))) {
		return time.UnixMicro(int64(*hi)).UTC()
	}
	return t
}

// notConformant is execute's refusal of a prepared transaction its Daml
// code does not make. Canton finds this in the confirmation protocol
// (LOCAL_VERDICT_FAILED_MODEL_CONFORMANCE_CHECK, a security alert whose
// details clients do not see); this node, its own confirmer, refuses at
// execute with FAILED_TO_EXECUTE_TRANSACTION and says what differs.
func notConformant(format string, args ...any) error {
	return failedToExecute("the prepared transaction failed the model conformance check: "+format, args...)
}

// reinterpret is execute's model conformance check of an interpreted
// transaction; it returns what to commit.
func (e *Engine) reinterpret(ctx context.Context, pt *damlpb.PreparedTransaction, actAs []string, ledgerTime time.Time) (*built, error) {
	md, t := pt.GetMetadata(), pt.GetTransaction()
	switch {
	case md.GetMediatorGroup() != 0:
		return nil, notConformant("mediator group %d is not 0", md.GetMediatorGroup())
	case len(md.GetGlobalKeyMapping()) > 0:
		// Deprecated: Canton 3.5's prepare leaves it empty.
		return nil, notConformant("global_key_mapping is not empty; Canton 3.5 leaves it empty")
	}
	nodes := map[string]*damlpb.Node{}
	for _, n := range t.GetNodes() {
		if _, dup := nodes[n.GetNodeId()]; dup {
			return nil, notConformant("node %s appears twice", n.GetNodeId())
		}
		nodes[n.GetNodeId()] = n.GetV1()
	}
	seeds := map[int32][]byte{}
	for _, s := range t.GetNodeSeeds() {
		seeds[s.GetNodeId()] = s.GetSeed()
	}
	set := e.cfg.Packages()
	inputs, foreign, err := e.storedInputs(ctx, md.GetInputContracts(), actAs)
	if err != nil {
		return nil, err
	}
	cmds, rootSeeds, err := damlRootCommands(t.GetRoots(), nodes, seeds, set)
	if err != nil {
		return nil, err
	}
	preparedAt := time.UnixMicro(int64(md.GetPreparationTime())).UTC()
	b, err := e.interpret(ctx, cmds, damlRun{
		set: set, actAs: actAs, rootSeeds: rootSeeds, inputs: inputs,
		preparationTime: preparedAt, ledgerTime: ledgerTime,
		preference: set.Preference(preparedAt, nil, namedPackages(set, t)),
	})
	var ie *interp.Error
	if errors.As(err, &ie) && ie.ID != ledgerapi.CodeLedgerAPIInternalError.ID {
		return nil, notConformant("re-interpreting its root commands fails with %s: %s", ie.ID, ie.Cause)
	}
	if err != nil {
		return nil, damlError(err)
	}
	if d := interpretedDifference(b.tx, t); d != "" {
		return nil, notConformant("%s", d)
	}
	var want []string
	for _, ic := range b.inputs {
		want = append(want, ic.GetV1().GetContractId())
	}
	var got []string
	for _, ic := range md.GetInputContracts() {
		got = append(got, ic.GetV1().GetContractId())
	}
	if !slices.Equal(want, got) {
		return nil, notConformant("it lists the input contracts %v; re-interpreting its root commands reads %v", got, want)
	}
	if !equalBound(md.MinLedgerEffectiveTime, b.minLedgerTime) || !equalBound(md.MaxLedgerEffectiveTime, b.maxLedgerTime) {
		return nil, notConformant("its ledger-time bounds [%s, %s] are not those re-interpreting its root commands gives, [%s, %s]",
			boundText(md.MinLedgerEffectiveTime), boundText(md.MaxLedgerEffectiveTime), boundText(b.minLedgerTime), boundText(b.maxLedgerTime))
	}
	b.used = foreign.held(b.used)
	if err := e.checkCommittable(ctx, actAs, b, foreign.Foreign()...); err != nil {
		return nil, err
	}
	return b, nil
}

// storedInputs finds the input contracts of a prepared transaction in the
// store: each must be active, authentic (authenticInput) and be exactly
// the stored contract (its create node and creation time). This node cannot authenticate a contract it
// does not hold (its contract ids carry no suffix), so it uses none.
func (e *Engine) storedInputs(ctx context.Context, ics []*damlpb.Metadata_InputContract, actAs []string) ([]*ledger.Contract, *disclosedSet, error) {
	out := make([]*ledger.Contract, 0, len(ics))
	seen := map[string]bool{}
	foreign := &disclosedSet{}
	for _, ic := range ics {
		cid := ic.GetV1().GetContractId()
		if seen[cid] {
			return nil, nil, notConformant("input contract %s is listed twice", cid)
		}
		seen[cid] = true
		stored, err := e.authenticInput(ctx, ic, actAs)
		if err != nil {
			return nil, nil, err
		}
		if stored == nil {
			// A contract of another participant, authenticated: used as
			// its blob describes it (as a disclosed contract at prepare).
			lc, stakeholders, err := e.foreignInput(ctx, ic)
			if err != nil {
				return nil, nil, err
			}
			foreign.notHeld = append(foreign.notHeld, cid)
			foreign.foreign = append(foreign.foreign, stakeholders...)
			stored = lc
		}
		if !stored.Active() {
			return nil, nil, ContractNotActive(cid)
		}
		want, err := e.inputContract(stored)
		if err != nil {
			return nil, nil, err
		}
		if !sameInputContract(ic, want) {
			return nil, nil, notConformant("input contract %s is not the contract this node stores under that id", cid)
		}
		out = append(out, stored)
	}
	return out, foreign, nil
}

// foreignInput reads an authenticated input contract the node does not
// hold: none of the node's parties may be among its stakeholders (this
// node would hold it).
func (e *Engine) foreignInput(ctx context.Context, ic *damlpb.Metadata_InputContract) (*ledger.Contract, []string, error) {
	c, err := contract.DecodeBlob(ic.GetEventBlob())
	if err != nil {
		return nil, nil, err
	}
	for _, p := range c.Stakeholders {
		known, err := e.parties.IsKnownParty(ctx, p)
		if err != nil {
			return nil, nil, err
		}
		if known {
			return nil, nil, ContractNotActive(string(c.ID))
		}
	}
	lc, err := e.ledgerContractOf(c, nil)
	if err != nil {
		return nil, nil, notConformant("input contract %s: %v", c.ID, err)
	}
	return lc, c.Stakeholders, nil
}

// damlRootCommands reads the commands behind the root nodes of a prepared
// transaction, with the seeds of those roots.
func damlRootCommands(roots []string, nodes map[string]*damlpb.Node, seeds map[int32][]byte, set *PackageSet) ([]interp.Command, []tx.Hash, error) {
	if len(roots) == 0 {
		return nil, nil, notConformant("the transaction has no root nodes")
	}
	cmds := make([]interp.Command, 0, len(roots))
	rootSeeds := make([]tx.Hash, 0, len(roots))
	plans := damlengine.NewPlans(set)
	for _, r := range roots {
		n := nodes[r]
		if n == nil {
			return nil, nil, notConformant("root %s is not a node of the transaction", r)
		}
		id, err := strconv.ParseInt(r, 10, 32)
		if err != nil {
			return nil, nil, notConformant("root %s is not a node id", r)
		}
		s, ok := seeds[int32(id)]
		if !ok || len(s) != len(tx.Hash{}) {
			return nil, nil, notConformant("root node %s has no 32-byte seed", r)
		}
		rootSeeds = append(rootSeeds, tx.Hash(s))
		switch x := n.NodeType.(type) {
		case *damlpb.Node_Create:
			c := x.Create
			tmpl := valueIdentifier(c.GetTemplateId())
			arg, err := fromProto(plans.Argument(tmpl))(c.GetArgument())
			if err != nil {
				return nil, nil, notConformant("root node %s: the create argument is not a value of %s: %v", r, tmpl, err)
			}
			cmds = append(cmds, &interp.CreateCommand{Template: tmpl, Argument: arg})
		case *damlpb.Node_Exercise:
			c := x.Exercise
			// Through an interface, the command named the interface (Canton's
			// ExerciseInterface); by key, the template and the key.
			tmpl := valueIdentifier(c.GetTemplateId())
			if c.GetInterfaceId() != nil {
				tmpl = valueIdentifier(c.GetInterfaceId())
			}
			arg, err := fromProto(plans.ChoiceArgument(tmpl, c.GetChoiceId()))(c.GetChosenValue())
			if err != nil {
				return nil, nil, notConformant("root node %s: the argument of choice %s is not a value of its type: %v", r, c.GetChoiceId(), err)
			}
			if !c.GetByKey() {
				cmds = append(cmds, &interp.ExerciseCommand{Template: tmpl, ContractID: value.ContractID(c.GetContractId()), Choice: c.GetChoiceId(), Argument: arg})
				break
			}
			if c.GetKey() == nil || c.GetInterfaceId() != nil {
				return nil, nil, notConformant("root node %s is an exercise by key without a key, or through an interface", r)
			}
			key, err := fromProto(plans.Key(tmpl))(c.GetKey().GetKey().GetKey())
			if err != nil {
				return nil, nil, notConformant("root node %s: the key is not a value of the key type of %s: %v", r, tmpl, err)
			}
			cmds = append(cmds, &interp.ExerciseByKeyCommand{Template: tmpl, Key: key, Choice: c.GetChoiceId(), Argument: arg})
		default:
			return nil, nil, notConformant("root %s is neither a create nor an exercise node", r)
		}
	}
	return cmds, rootSeeds, nil
}

// namedPackages are the packages whose templates and interfaces the nodes
// of a prepared transaction name, the highest version of each package
// name: re-interpreting, a package name resolves to the package prepare
// used, whatever has been vetted since.
func namedPackages(set *PackageSet, t *damlpb.DamlTransaction) []lf.PackageID {
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
	out := make([]lf.PackageID, 0, len(best))
	for _, id := range best {
		out = append(out, id)
	}
	return out
}

// interpretedDifference names the first place where a prepared transaction
// differs from the one re-interpretation makes, or returns "".
func interpretedDifference(want, got *damlpb.DamlTransaction) string {
	if want.GetVersion() != got.GetVersion() {
		return fmt.Sprintf("its version is %q; re-interpreting its root commands gives %q", got.GetVersion(), want.GetVersion())
	}
	if !slices.Equal(want.GetRoots(), got.GetRoots()) {
		return fmt.Sprintf("its roots are %v; re-interpreting its root commands gives %v", got.GetRoots(), want.GetRoots())
	}
	if len(want.GetNodes()) != len(got.GetNodes()) {
		return fmt.Sprintf("it has %d nodes; re-interpreting its root commands gives %d", len(got.GetNodes()), len(want.GetNodes()))
	}
	gotNodes := map[string]*damlpb.Node{}
	for _, n := range got.GetNodes() {
		gotNodes[n.GetNodeId()] = n.GetV1()
	}
	for _, n := range want.GetNodes() {
		g, ok := gotNodes[n.GetNodeId()]
		if !ok {
			return fmt.Sprintf("it has no node %s", n.GetNodeId())
		}
		if d := nodeDifference(n.GetV1(), g); d != "" {
			return fmt.Sprintf("node %s %s", n.GetNodeId(), d)
		}
	}
	wantSeeds := sortedSeeds(want.GetNodeSeeds())
	gotSeeds := sortedSeeds(got.GetNodeSeeds())
	if len(wantSeeds) != len(gotSeeds) {
		return fmt.Sprintf("it has %d node seeds; re-interpreting its root commands gives %d", len(gotSeeds), len(wantSeeds))
	}
	for i := range wantSeeds {
		if !proto.Equal(wantSeeds[i], gotSeeds[i]) {
			return fmt.Sprintf("the seed of node %d is not the one re-interpreting its root commands derives", gotSeeds[i].GetNodeId())
		}
	}
	return ""
}

func sortedSeeds(s []*damlpb.DamlTransaction_NodeSeed) []*damlpb.DamlTransaction_NodeSeed {
	out := append([]*damlpb.DamlTransaction_NodeSeed(nil), s...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].GetNodeId() < out[j].GetNodeId() })
	return out
}

// nodeDifference names the first field in which got differs from want:
// "(exercise) differs in signatories".
func nodeDifference(want, got *damlpb.Node) string {
	if proto.Equal(want, got) {
		return ""
	}
	w, g := want.ProtoReflect(), got.ProtoReflect()
	wf, gf := w.WhichOneof(w.Descriptor().Oneofs().ByName("node_type")), g.WhichOneof(g.Descriptor().Oneofs().ByName("node_type"))
	if wf == nil || gf == nil || wf.Name() != gf.Name() {
		return "is not the kind of node re-interpreting its root commands makes there"
	}
	wm, gm := w.Get(wf).Message(), g.Get(gf).Message()
	fields := wm.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		f := fields.Get(i)
		if !fieldEqual(wm, gm, f) {
			return fmt.Sprintf("(%s) differs in %s from what re-interpreting its root commands makes", wf.Name(), f.Name())
		}
	}
	return fmt.Sprintf("(%s) differs from what re-interpreting its root commands makes", wf.Name())
}

func fieldEqual(a, b protoreflect.Message, f protoreflect.FieldDescriptor) bool {
	if a.Has(f) != b.Has(f) {
		return false
	}
	x, y := proto.Clone(a.Interface()).ProtoReflect(), proto.Clone(b.Interface()).ProtoReflect()
	// Compare only f: clear every other field of both copies.
	fields := x.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		if g := fields.Get(i); g != f {
			x.Clear(g)
			y.Clear(g)
		}
	}
	return proto.Equal(x.Interface(), y.Interface())
}

func boundText(b *uint64) string {
	if b == nil {
		return "unbounded"
	}
	return ledgerapi.NewTimestamp(time.UnixMicro(int64(*b))).String()
}

func fromProto(plan *typed.Plan, err error) func(*damlpb.Value) (value.Value, error) {
	return func(v *damlpb.Value) (value.Value, error) {
		if err != nil {
			return nil, err
		}
		return plan.FromProto(v)
	}
}
