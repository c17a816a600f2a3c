// Package txgen generates random, valid Canton prepared transactions
// (com.daml.ledger.api.v2.interactive.PreparedTransaction) for tests and
// benchmarks.
//
// Every transaction it makes is one the strict hasher in package hashing
// accepts, in the canonical form the executing participant writes:
//
//   - numerics match -?([1-9][0-9]*|0)\.[0-9]* with scale ≤ 37 and at most
//     38 significant digits, never negative zero;
//   - contract ids are "00" followed by 64 lower-case hex digits;
//   - signatories, stakeholders, acting parties, choice observers, key
//     maintainers and act_as are sorted and free of duplicates, text-map keys
//     are sorted and unique, input contracts are sorted by contract id;
//   - the transaction uuid is a lower-case canonical UUID;
//   - every create and exercise node has a 32-byte seed in node_seeds;
//   - node ids are canonical decimals and the nodes form a tree: every node
//     is referenced exactly once, from a root list or a parent's children;
//   - values nest at most Options.MaxDepth levels, counted as the hasher
//     counts them, and cover every Value kind, with int64 values beyond ±2^53
//     (and int64's minimum and maximum) and text with 2-, 3- and 4-byte UTF-8.
//
// Without Options.V3Features the transaction and all its nodes have
// lf_version "2.1" and carry no contract keys, so it hashes under schemes V2
// and V3. With V3Features the transaction version is "2" and nodes of
// version "2" may carry keys and by_key, query-by-key nodes appear and
// max_record_time is set; such transactions hash under V3 only.
//
// Generation is deterministic: the same *rand.Rand state and Options give
// the same transaction, byte for byte once serialized deterministically.
package txgen

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// Options shape a generated transaction. The zero value makes a small
// transaction of a few nodes.
type Options struct {
	// Nodes is the approximate number of transaction nodes. 1 or less makes a
	// transaction of exactly one create node.
	Nodes int
	// MaxDepth bounds value nesting, 1 to hashing.MaxValueNesting (100): a
	// scalar argument has depth 1, a record of scalars depth 2. 0 means 4;
	// larger values are lowered to 100. The first value of a transaction
	// always reaches MaxDepth; the others mostly stay shallow, about one in
	// 32 reaching MaxDepth too.
	MaxDepth int
	// V3Features adds contract keys, by_key, query-by-key nodes and
	// max_record_time, with lf_version "2". The result hashes under V3 only.
	V3Features bool
	// SafeInt64 keeps every int64 Value within ±2^53, the range a JavaScript
	// number holds exactly. Otherwise about one int64 in four is beyond it.
	SafeInt64 bool
	// TargetBytes, when positive, replaces Nodes: nodes are added until the
	// serialized transaction is about this many bytes.
	TargetBytes int
	// KeyMapping fills the deprecated metadata.global_key_mapping with the
	// transaction's keys (V3Features only). Canton 3.5 leaves it empty, so
	// the presets do too; it is not hashed, only decoded.
	KeyMapping bool
}

// Small is one create node with a shallow argument.
func Small() Options { return Options{Nodes: 1, MaxDepth: 3} }

// Medium is about 100 nodes with values up to 8 levels deep.
func Medium() Options { return Options{Nodes: 100, MaxDepth: 8} }

// Large is about 5,000 nodes with values up to Daml's limit of 100 levels.
func Large() Options { return Options{Nodes: 5000, MaxDepth: hashing.MaxValueNesting} }

// SizedBytes makes a transaction whose serialized size is about n bytes
// (within a few percent for n of a megabyte or more).
func SizedBytes(n int) Options { return Options{TargetBytes: n, MaxDepth: 10} }

// Generate returns a random valid prepared transaction shaped by opts.
func Generate(r *rand.Rand, opts Options) *damlpb.PreparedTransaction {
	g := newGen(r, opts)
	return g.transaction()
}

const (
	lfV21 = "2.1"
	lfV2  = "2"
)

type gen struct {
	r    *rand.Rand
	opts Options

	parties   []string
	templates []template
	lf        string // transaction version

	nodes   []*damlpb.DamlTransaction_Node
	seeds   []*damlpb.DamlTransaction_NodeSeed
	inputs  []*damlpb.Metadata_InputContract
	keys    []*damlpb.GlobalKey
	size    int  // running estimate of the serialized transaction size
	deepDue bool // the next top-level value goes to MaxDepth
}

// template is a Daml template the transaction acts on.
type template struct {
	pkgName string
	id      *damlpb.Identifier
}

func newGen(r *rand.Rand, opts Options) *gen {
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = 4
	}
	opts.MaxDepth = min(opts.MaxDepth, hashing.MaxValueNesting)
	g := &gen{r: r, opts: opts, lf: lfV21, deepDue: true}
	if opts.V3Features {
		g.lf = lfV2
	}
	names := []string{"alice", "bob", "charlie", "dso", "validator", "custodian", "exchange", "émile", "operator", "treasury", "issuer", "registrar"}
	n := 3 + r.IntN(len(names)-2)
	for _, i := range r.Perm(len(names))[:n] {
		g.parties = append(g.parties, names[i]+"::1220"+g.hex(32))
	}
	modules := []string{"Main", "Splice.Amulet", "Splice.Wallet.Payment", "Daml.Finance.Holding.Fungible", "Iou"}
	entities := []string{"Amulet", "TransferOffer", "Holding.V1", "Iou", "AppPaymentRequest", "Allocation"}
	pkgNames := []string{"splice-amulet", "splice-wallet", "daml-finance-holding", "iou", "my-app"}
	for i := 0; i < 2+r.IntN(4); i++ {
		g.templates = append(g.templates, template{
			pkgName: pick(r, pkgNames),
			id:      &damlpb.Identifier{PackageId: g.hex(32), ModuleName: pick(r, modules), EntityName: pick(r, entities)},
		})
	}
	return g
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) hex(nbytes int) string { return hex.EncodeToString(g.bytes(nbytes)) }

func (g *gen) bytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.r.Uint32())
	}
	return b
}

func (g *gen) contractID() string { return "00" + g.hex(32) }

// partySet returns between lo and hi distinct parties, sorted.
func (g *gen) partySet(lo, hi int) []string {
	hi = min(hi, len(g.parties))
	n := lo + g.r.IntN(hi-lo+1)
	set := make([]string, 0, n)
	for _, i := range g.r.Perm(len(g.parties))[:n] {
		set = append(set, g.parties[i])
	}
	slices.Sort(set)
	return set
}

// union returns the sorted union of sorted sets a and b.
func union(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

func (g *gen) transaction() *damlpb.PreparedTransaction {
	var roots []string
	switch {
	case g.opts.TargetBytes > 0:
		// Roots of a few dozen nodes each, until the size is reached.
		per := max(1, min(50, g.opts.TargetBytes/40_000))
		for g.size < g.opts.TargetBytes {
			roots = append(roots, g.subtree(per))
			g.size += 1 + protowire.SizeBytes(len(roots[len(roots)-1]))
		}
	case g.opts.Nodes <= 1:
		roots = []string{g.createNode()}
	default:
		nroots := 1 + g.r.IntN(min(g.opts.Nodes, 5))
		for _, budget := range g.split(g.opts.Nodes, nroots) {
			roots = append(roots, g.subtree(budget))
		}
	}
	return &damlpb.PreparedTransaction{
		Transaction: &damlpb.DamlTransaction{
			Version:   g.lf,
			Roots:     roots,
			Nodes:     g.nodes,
			NodeSeeds: g.seeds,
		},
		Metadata: g.metadata(),
	}
}

// split divides total into n positive parts.
func (g *gen) split(total, n int) []int {
	parts := make([]int, n)
	rest := total - n
	for i := range parts {
		parts[i] = 1
	}
	for rest > 0 {
		// Hand out the remainder in random chunks so sizes vary.
		chunk := 1 + g.r.IntN(max(1, rest/2+1))
		chunk = min(chunk, rest)
		parts[g.r.IntN(n)] += chunk
		rest -= chunk
	}
	return parts
}

// subtree adds about budget nodes below one new node and returns its id.
func (g *gen) subtree(budget int) string {
	if budget <= 1 {
		switch x := g.r.IntN(20); {
		case x < 9:
			return g.createNode()
		case x < 15:
			return g.fetchNode()
		case x < 18 || !g.opts.V3Features:
			return g.exerciseNode(0, 0)
		default:
			return g.queryByKeyNode()
		}
	}
	nchildren := 1 + g.r.IntN(min(budget-1, 8))
	if g.chance(0.15) {
		return g.rollbackNode(budget-1, nchildren)
	}
	return g.exerciseNode(budget-1, nchildren)
}

// addNode reserves the next node id; the caller fills the node in later with
// setNode, after its children have taken their ids (pre-order numbering).
func (g *gen) addNode() (int32, string) {
	id := int32(len(g.nodes))
	idText := fmt.Sprint(id)
	g.nodes = append(g.nodes, &damlpb.DamlTransaction_Node{NodeId: idText})
	return id, idText
}

func (g *gen) setNode(id int32, n *damlpb.Node) {
	dn := g.nodes[id]
	dn.VersionedNode = &damlpb.DamlTransaction_Node_V1{V1: n}
	g.size += 1 + protowire.SizeBytes(proto.Size(dn))
}

func (g *gen) seed(id int32) {
	s := &damlpb.DamlTransaction_NodeSeed{NodeId: id, Seed: g.bytes(32)}
	g.seeds = append(g.seeds, s)
	g.size += 1 + protowire.SizeBytes(proto.Size(s))
}

// nodeLF picks a node's lf_version: "2.1", or under V3Features mostly "2".
func (g *gen) nodeLF() string {
	if g.opts.V3Features && g.chance(0.7) {
		return lfV2
	}
	return lfV21
}

func (g *gen) create(lf string) *damlpb.Create {
	t := pick(g.r, g.templates)
	sigs := g.partySet(1, 3)
	c := &damlpb.Create{
		LfVersion:    lf,
		ContractId:   g.contractID(),
		PackageName:  t.pkgName,
		TemplateId:   t.id,
		Argument:     g.topRecord(),
		Signatories:  sigs,
		Stakeholders: union(sigs, g.partySet(0, 3)),
	}
	if lf == lfV2 && g.chance(0.5) {
		c.Key = g.key(t, sigs)
	}
	return c
}

func (g *gen) createNode() string {
	id, idText := g.addNode()
	g.setNode(id, &damlpb.Node{NodeType: &damlpb.Node_Create{Create: g.create(g.nodeLF())}})
	g.seed(id)
	return idText
}

// existing returns a contract the transaction uses without creating it, and
// sometimes discloses it as an input contract.
func (g *gen) existing(lf string) (template, string, []string, []string) {
	c := g.create(lf)
	if g.chance(0.5) {
		g.addInput(c)
	}
	return template{c.PackageName, c.TemplateId}, c.ContractId, c.Signatories, c.Stakeholders
}

func (g *gen) addInput(c *damlpb.Create) {
	in := &damlpb.Metadata_InputContract{
		Contract:  &damlpb.Metadata_InputContract_V1{V1: c},
		CreatedAt: uint64(1_700_000_000_000_000 + g.r.Int64N(50_000_000_000_000)),
		EventBlob: g.bytes(32 + g.r.IntN(224)),
	}
	g.inputs = append(g.inputs, in)
	g.size += 1 + protowire.SizeBytes(proto.Size(in))
}

func (g *gen) fetchNode() string {
	id, idText := g.addNode()
	lf := g.nodeLF()
	t, cid, sigs, stakeholders := g.existing(lf)
	f := &damlpb.Fetch{
		LfVersion:     lf,
		ContractId:    cid,
		PackageName:   t.pkgName,
		TemplateId:    t.id,
		Signatories:   sigs,
		Stakeholders:  stakeholders,
		ActingParties: g.partySet(1, 2),
	}
	if g.chance(0.2) {
		f.InterfaceId = g.identifier()
	}
	if lf == lfV2 && g.chance(0.4) {
		f.Key = g.key(t, sigs)
		f.ByKey = g.chance(0.5)
	}
	g.setNode(id, &damlpb.Node{NodeType: &damlpb.Node_Fetch{Fetch: f}})
	return idText
}

// exerciseNode adds an exercise node with nchildren children sharing budget
// nodes; a budget of 0 makes an exercise without children.
func (g *gen) exerciseNode(budget, nchildren int) string {
	id, idText := g.addNode()
	lf := g.nodeLF()
	t, cid, sigs, stakeholders := g.existing(lf)
	e := &damlpb.Exercise{
		LfVersion:       lf,
		ContractId:      cid,
		PackageName:     t.pkgName,
		TemplateId:      t.id,
		Signatories:     sigs,
		Stakeholders:    stakeholders,
		ActingParties:   g.partySet(1, 2),
		ChoiceId:        pick(g.r, []string{"Transfer", "Archive", "Accept", "Allocate", "Split", "Merge"}),
		ChosenValue:     g.topRecord(),
		Consuming:       g.chance(0.6),
		ChoiceObservers: g.partySet(0, 2),
	}
	if g.chance(0.2) {
		e.InterfaceId = g.identifier()
	}
	if g.chance(0.8) {
		e.ExerciseResult = g.topValue()
	}
	if lf == lfV2 && g.chance(0.4) {
		e.Key = g.key(t, sigs)
		e.ByKey = g.chance(0.5)
	}
	if budget > 0 {
		for _, b := range g.split(budget, nchildren) {
			e.Children = append(e.Children, g.subtree(b))
		}
	}
	g.setNode(id, &damlpb.Node{NodeType: &damlpb.Node_Exercise{Exercise: e}})
	g.seed(id)
	return idText
}

func (g *gen) rollbackNode(budget, nchildren int) string {
	id, idText := g.addNode()
	rb := &damlpb.Rollback{}
	for _, b := range g.split(budget, nchildren) {
		rb.Children = append(rb.Children, g.subtree(b))
	}
	g.setNode(id, &damlpb.Node{NodeType: &damlpb.Node_Rollback{Rollback: rb}})
	return idText
}

func (g *gen) queryByKeyNode() string {
	id, idText := g.addNode()
	t := pick(g.r, g.templates)
	q := &damlpb.QueryByKey{
		LfVersion:   lfV2,
		PackageName: t.pkgName,
		TemplateId:  t.id,
		Exhaustive:  g.chance(0.5),
		Key:         g.key(t, g.partySet(1, 2)),
	}
	for i := g.r.IntN(4); i > 0; i-- {
		q.Result = append(q.Result, g.contractID())
	}
	g.setNode(id, &damlpb.Node{NodeType: &damlpb.Node_QueryByKey{QueryByKey: q}})
	return idText
}

// key makes a contract key maintained by a non-empty subset of sigs.
func (g *gen) key(t template, sigs []string) *damlpb.GlobalKeyWithMaintainers {
	var maintainers []string
	for _, p := range sigs {
		if len(maintainers) == 0 || g.chance(0.5) {
			maintainers = append(maintainers, p)
		}
	}
	gk := &damlpb.GlobalKey{
		TemplateId:  t.id,
		PackageName: t.pkgName,
		Key:         g.value(1, min(g.opts.MaxDepth, 3)),
		Hash:        g.bytes(32),
	}
	g.keys = append(g.keys, gk)
	return &damlpb.GlobalKeyWithMaintainers{Key: gk, Maintainers: maintainers}
}

func (g *gen) identifier() *damlpb.Identifier {
	return pick(g.r, g.templates).id
}

func (g *gen) metadata() *damlpb.Metadata {
	prep := uint64(1_767_225_600_000_000 + g.r.Int64N(365*24*3600*1_000_000))
	m := &damlpb.Metadata{
		SubmitterInfo: &damlpb.Metadata_SubmitterInfo{
			ActAs:     g.partySet(1, 3),
			CommandId: "cmd-" + g.hex(8),
		},
		SynchronizerId:  "global-domain::1220" + g.hex(32),
		MediatorGroup:   uint32(g.r.IntN(3)),
		TransactionUuid: g.uuid(),
		PreparationTime: prep,
	}
	if g.chance(0.5) {
		v := prep - uint64(g.r.IntN(60_000_000))
		m.MinLedgerEffectiveTime = &v
	}
	if g.chance(0.5) {
		v := prep + uint64(g.r.IntN(600_000_000))
		m.MaxLedgerEffectiveTime = &v
	}
	// In V2 max_record_time is carried but not hashed; setting it sometimes
	// checks that a hasher leaves it out.
	if g.opts.V3Features && g.chance(0.7) || g.chance(0.2) {
		v := prep + 86_400_000_000
		m.MaxRecordTime = &v
	}
	slices.SortFunc(g.inputs, func(a, b *damlpb.Metadata_InputContract) int {
		return strings.Compare(a.GetV1().GetContractId(), b.GetV1().GetContractId())
	})
	m.InputContracts = g.inputs
	for _, k := range g.keys {
		if !g.opts.KeyMapping {
			break
		}
		e := &damlpb.Metadata_GlobalKeyMappingEntry{Key: k}
		if g.chance(0.7) {
			e.Value = &damlpb.Value{Sum: &damlpb.Value_ContractId{ContractId: g.contractID()}}
		}
		m.GlobalKeyMapping = append(m.GlobalKeyMapping, e)
	}
	return m
}

// uuid returns a random version-4 UUID in lower-case canonical text.
func (g *gen) uuid() string {
	b := g.bytes(16)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// topDepth picks how deep a node's argument, choice value or result goes:
// the first one, and about one in 32 after it, reach MaxDepth.
func (g *gen) topDepth() int {
	if g.deepDue || g.chance(1.0/32) {
		g.deepDue = false
		return g.opts.MaxDepth
	}
	return 1 + g.r.IntN(min(g.opts.MaxDepth, 5))
}

// topRecord is a create argument or choice value: a record, as Daml has it.
func (g *gen) topRecord() *damlpb.Value {
	target := max(g.topDepth(), 2)
	if target > g.opts.MaxDepth {
		return g.value(1, 1)
	}
	return g.record(1, target)
}

func (g *gen) topValue() *damlpb.Value { return g.value(1, g.topDepth()) }

// value returns a Value at nesting level depth whose deepest descendant is
// at level target exactly. One child of each container carries on to
// target; its siblings stay within a level or two.
func (g *gen) value(depth, target int) *damlpb.Value {
	if depth >= target {
		return g.scalar()
	}
	switch g.r.IntN(7) {
	case 0:
		return &damlpb.Value{Sum: &damlpb.Value_Optional{Optional: &damlpb.Optional{Value: g.value(depth+1, target)}}}
	case 1:
		return &damlpb.Value{Sum: &damlpb.Value_List{List: &damlpb.List{Elements: g.values(depth, target)}}}
	case 2:
		return g.textMap(depth, target)
	case 3:
		return g.genMap(depth, target)
	case 4:
		return &damlpb.Value{Sum: &damlpb.Value_Variant{Variant: &damlpb.Variant{
			VariantId:   g.maybeIdentifier(),
			Constructor: pick(g.r, []string{"Some", "Left", "Right", "Pending", "Done"}),
			Value:       g.value(depth+1, target),
		}}}
	default:
		return g.record(depth, target)
	}
}

// siblingTarget is the target of a container's other children: mostly
// scalars, sometimes one more level, never beyond target.
func (g *gen) siblingTarget(depth, target int) int {
	if g.chance(0.75) {
		return depth + 1
	}
	return min(target, depth+2)
}

// values returns the elements of a container at depth: one reaching target
// at a random position, and up to three shallow siblings.
func (g *gen) values(depth, target int) []*damlpb.Value {
	n := 1 + g.r.IntN(4)
	deep := g.r.IntN(n)
	out := make([]*damlpb.Value, n)
	for i := range out {
		t := g.siblingTarget(depth, target)
		if i == deep {
			t = target
		}
		out[i] = g.value(depth+1, t)
	}
	return out
}

func (g *gen) record(depth, target int) *damlpb.Value {
	labels := []string{"owner", "amount", "receiver", "meta", "lock", "expiresAt", "instrumentId", "memo", "observers", "context"}
	elems := g.values(depth, target)
	r := &damlpb.Record{RecordId: g.maybeIdentifier()}
	for i, v := range elems {
		// Labels are never empty: implementations disagree on hashing "".
		r.Fields = append(r.Fields, &damlpb.RecordField{Label: fmt.Sprintf("%s%d", pick(g.r, labels), i), Value: v})
	}
	return &damlpb.Value{Sum: &damlpb.Value_Record{Record: r}}
}

func (g *gen) textMap(depth, target int) *damlpb.Value {
	elems := g.values(depth, target)
	keys := make([]string, 0, len(elems))
	for len(keys) < len(elems) {
		k := g.text()
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys) // byte order of UTF-8 is code-point order
	tm := &damlpb.TextMap{}
	for i, v := range elems {
		tm.Entries = append(tm.Entries, &damlpb.TextMap_Entry{Key: keys[i], Value: v})
	}
	return &damlpb.Value{Sum: &damlpb.Value_TextMap{TextMap: tm}}
}

func (g *gen) genMap(depth, target int) *damlpb.Value {
	elems := g.values(depth, target)
	gm := &damlpb.GenMap{}
	var seen [][]byte
	for _, v := range elems {
		// Keys are distinct scalars, as Daml map keys are.
		for {
			k := g.scalar()
			b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(k)
			if !slices.ContainsFunc(seen, func(s []byte) bool { return string(s) == string(b) }) {
				seen = append(seen, b)
				gm.Entries = append(gm.Entries, &damlpb.GenMap_Entry{Key: k, Value: v})
				break
			}
		}
	}
	return &damlpb.Value{Sum: &damlpb.Value_GenMap{GenMap: gm}}
}

func (g *gen) maybeIdentifier() *damlpb.Identifier {
	if g.chance(0.8) {
		return g.identifier()
	}
	return nil
}

// scalar returns a Value without nested Values: a primitive, an enum, or an
// empty container.
func (g *gen) scalar() *damlpb.Value {
	v := &damlpb.Value{}
	switch g.r.IntN(17) {
	case 0:
		v.Sum = &damlpb.Value_Unit{Unit: &emptypb.Empty{}}
	case 1:
		v.Sum = &damlpb.Value_Bool{Bool: g.chance(0.5)}
	case 2, 3:
		v.Sum = &damlpb.Value_Int64{Int64: g.int64()}
	case 4:
		// Daml dates run from 0001-01-01 to 9999-12-31.
		v.Sum = &damlpb.Value_Date{Date: int32(-719_162 + g.r.IntN(2_932_897+719_162))}
	case 5:
		v.Sum = &damlpb.Value_Timestamp{Timestamp: g.timestamp()}
	case 6, 7:
		v.Sum = &damlpb.Value_Numeric{Numeric: g.numeric()}
	case 8:
		v.Sum = &damlpb.Value_Party{Party: pick(g.r, g.parties)}
	case 9, 10:
		v.Sum = &damlpb.Value_Text{Text: g.text()}
	case 11:
		v.Sum = &damlpb.Value_ContractId{ContractId: g.contractID()}
	case 12:
		v.Sum = &damlpb.Value_Enum{Enum: &damlpb.Enum{
			EnumId:      g.maybeIdentifier(),
			Constructor: pick(g.r, []string{"Red", "Green", "Blue", "Active", "Closed"}),
		}}
	case 13:
		v.Sum = &damlpb.Value_Optional{Optional: &damlpb.Optional{}}
	case 14:
		v.Sum = &damlpb.Value_List{List: &damlpb.List{}}
	case 15:
		v.Sum = &damlpb.Value_TextMap{TextMap: &damlpb.TextMap{}}
	default:
		v.Sum = &damlpb.Value_GenMap{GenMap: &damlpb.GenMap{}}
	}
	return v
}

// Int64 edges around 2^53, the largest integer below which every integer is
// a JavaScript number.
const maxSafe = 1 << 53

func (g *gen) int64() int64 {
	if g.opts.SafeInt64 || g.chance(0.75) {
		switch g.r.IntN(4) {
		case 0:
			return int64(g.r.IntN(201)) - 100
		case 1:
			return pick(g.r, []int64{0, maxSafe, -maxSafe, maxSafe - 1, -(maxSafe - 1)})
		default:
			return g.r.Int64N(2*maxSafe+1) - maxSafe
		}
	}
	// Beyond ±2^53: the edges, and anything up to int64's limits.
	switch g.r.IntN(3) {
	case 0:
		return pick(g.r, []int64{math.MinInt64, math.MaxInt64, maxSafe + 1, -(maxSafe + 1), math.MaxInt64 - 1, math.MinInt64 + 1})
	default:
		v := int64(g.r.Uint64())
		for v >= -maxSafe && v <= maxSafe {
			v = int64(g.r.Uint64())
		}
		return v
	}
}

// Daml timestamps run from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z,
// in microseconds since the epoch.
const (
	minTimestamp = -62_135_596_800_000_000
	maxTimestamp = 253_402_300_799_999_999
)

func (g *gen) timestamp() int64 {
	switch g.r.IntN(5) {
	case 0:
		return pick(g.r, []int64{minTimestamp, maxTimestamp, 0, -1})
	case 1:
		return minTimestamp + g.r.Int64N(maxTimestamp-minTimestamp+1)
	default:
		return 1_700_000_000_000_000 + g.r.Int64N(100_000_000_000_000)
	}
}

// numeric returns canonical numeric text: a scale from 0 to 37 and at most
// 38 significant digits.
func (g *gen) numeric() string {
	scale := 10
	if g.chance(0.5) {
		scale = g.r.IntN(38)
	}
	var b strings.Builder
	neg := g.chance(0.3)
	if neg {
		b.WriteByte('-')
	}
	intDigits := 0
	if g.chance(0.85) {
		intDigits = 1 + g.r.IntN(min(38-scale, 20))
		if g.chance(0.1) {
			intDigits = 38 - scale // the maximum precision
		}
	}
	nonZero := false
	if intDigits == 0 {
		b.WriteByte('0')
	} else {
		b.WriteByte(byte('1' + g.r.IntN(9)))
		nonZero = true
		for i := 1; i < intDigits; i++ {
			b.WriteByte(byte('0' + g.r.IntN(10)))
		}
	}
	b.WriteByte('.')
	for i := 0; i < scale; i++ {
		d := byte('0' + g.r.IntN(10))
		if g.chance(0.3) {
			d = '0'
		}
		nonZero = nonZero || d != '0'
		b.WriteByte(d)
	}
	s := b.String()
	if neg && !nonZero {
		return s[1:] // no negative zero
	}
	return s
}

// text returns a short string mixing ASCII with 2-, 3- and 4-byte UTF-8.
func (g *gen) text() string {
	pieces := []string{"hello", "Amulet", " ", "transfer", "é", "ß", "Ω", "日本", "€", "𝄞", "🎉", "\u00a0", "\n", "\"q\"", "0", ""}
	var b strings.Builder
	for i := g.r.IntN(6); i > 0; i-- {
		b.WriteString(pick(g.r, pieces))
	}
	return b.String()
}
