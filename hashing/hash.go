package hashing

import (
	"encoding/hex"
	"slices"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/proto/damlpb"
)

// Options select what Compute records besides the hash.
type Options struct {
	// Trace records every hashed field (Result.Trace).
	Trace bool
	// NodeHashes records the hash of every node (Result.NodeHashes).
	NodeHashes bool
}

// Result is the outcome of hashing one prepared transaction.
type Result struct {
	Scheme Scheme
	// Hash is what the external party signs: preparedTransactionHash.
	Hash            [32]byte
	TransactionHash [32]byte
	MetadataHash    [32]byte
	// NodeHashes maps node ids to node hashes (with Options.NodeHashes).
	NodeHashes map[string][32]byte
	// InputContractHashes are the hashes of the input contracts' create
	// nodes, in metadata order (with Options.NodeHashes).
	InputContractHashes [][32]byte
	// Trace holds the preimages of the transaction, metadata and final hash
	// (with Options.Trace).
	Trace *Trace
	// PreimageBytes counts every byte fed to SHA-256, over all preimages.
	PreimageBytes int
	// Warnings name shapes that hash fine but deserve a reviewer's eye, such
	// as a node referenced from two places.
	Warnings []string
}

// Sum returns the hash of the binary PreparedTransaction b under scheme s.
func Sum(b []byte, s Scheme) ([32]byte, error) {
	r, err := Compute(b, s, Options{})
	if err != nil {
		return [32]byte{}, err
	}
	return r.Hash, nil
}

// Compute hashes the binary PreparedTransaction b under scheme s.
func Compute(b []byte, s Scheme, opts Options) (*Result, error) {
	if !s.Supported() {
		return nil, errorf("hashing scheme %s is not supported: use HASHING_SCHEME_VERSION_V2 or HASHING_SCHEME_VERSION_V3", s)
	}
	h := hasherPool.Get().(*hasher)
	defer h.recycle()
	h.scheme, h.opts, h.res = s, opts, &Result{Scheme: s}
	if opts.NodeHashes {
		h.res.NodeHashes = map[string][32]byte{}
	}
	txBytes, metaBytes, err := splitPreparedTransaction(b)
	if err != nil {
		return nil, err
	}
	if err := h.index(txBytes); err != nil {
		return nil, at(err, "transaction")
	}
	metaDone := false
	if workers := h.parallelism(txBytes); workers > 1 {
		metaDone = h.hashSubtrees(workers, metaBytes)
	}
	txTrace, err := h.transaction()
	if err != nil {
		return nil, err
	}
	var metaTrace *Trace
	if !metaDone {
		if metaTrace, err = h.metadata(metaBytes); err != nil {
			return nil, at(err, "metadata")
		}
	}

	e := h.encoder()
	e.purpose()
	e.byte1(byte(s), "0"+string(rune('0'+s))+" (Hashing Scheme Version)")
	e.trace.nest(txTrace)
	e.raw(h.res.TransactionHash[:], "Transaction")
	e.trace.nest(metaTrace)
	e.raw(h.res.MetadataHash[:], "Metadata")
	h.res.Hash = h.digest(e)
	h.res.Trace = e.trace
	return h.res, nil
}

// hasher holds the state of one Compute call.
type hasher struct {
	scheme Scheme
	opts   Options
	res    *Result
	buf    []byte // shared: each preimage is complete before the next starts

	version []byte
	roots   [][]byte
	nodes   map[int32]*nodeEntry // node id → its entry in table, for sparse ids
	byID    []*nodeEntry         // node id → its entry in table, for dense ids
	table   []nodeEntry
	seeds   []nodeSeed // until index attaches them to nodes
	stack   [][32]byte // child hashes of the exercise and rollback nodes being hashed
	depth   int
	scratch []*nodeScratch // one per node depth
	ids     map[string][]byte
	enc     encoder
}

// hasherPool keeps hashers, with their buffers and tables, between calls:
// hashing many small transactions (ledger hash --lines, a node preparing
// transactions) then allocates almost nothing.
var hasherPool = sync.Pool{New: func() any { return new(hasher) }}

// maxPooledBuffer bounds the preimage buffer a pooled hasher keeps.
const maxPooledBuffer = 1 << 20

// maxPooledNodes bounds the node index a pooled hasher keeps.
const maxPooledNodes = 1 << 16

// recycle drops every reference to the caller's input and results and
// returns h to the pool.
func (h *hasher) recycle() {
	clear(h.table)
	clear(h.seeds)
	clear(h.roots)
	clear(h.byID)
	*h = hasher{
		byID:    h.byID[:0],
		table:   h.table[:0],
		seeds:   h.seeds[:0],
		roots:   h.roots[:0],
		stack:   h.stack[:0],
		scratch: h.scratch,
		ids:     h.ids,
		buf:     h.buf[:0],
	}
	if cap(h.buf) > maxPooledBuffer {
		h.buf = nil
	}
	if cap(h.byID) > maxPooledNodes {
		h.byID = nil
	}
	if len(h.ids) >= maxCachedIdentifiers {
		h.ids = nil
	}
	for _, sc := range h.scratch {
		*sc = nodeScratch{}
	}
	hasherPool.Put(h)
}

// nodeScratch returns the scratch space of the current node depth.
func (h *hasher) nodeScratch() *nodeScratch {
	for len(h.scratch) <= h.depth {
		h.scratch = append(h.scratch, new(nodeScratch))
	}
	return h.scratch[h.depth]
}

// encoder returns an encoder over the shared buffer, tracing if asked.
func (h *hasher) encoder() *encoder {
	// One encoder is reused: each preimage is complete before the next starts.
	e := &h.enc
	e.buf, e.trace = h.buf[:0], nil
	if h.opts.Trace {
		e.trace = &Trace{}
	} else if len(h.table) > smallTransaction {
		if h.ids == nil {
			h.ids = map[string][]byte{}
		}
		e.ids = h.ids
	}
	return e
}

func (h *hasher) release(e *encoder) { h.buf = e.buf }

// digest hashes the encoder's preimage and counts its bytes.
func (h *hasher) digest(e *encoder) [32]byte {
	h.res.PreimageBytes += len(e.buf)
	return e.digest()
}

func splitPreparedTransaction(b []byte) (tx, meta []byte, err error) {
	var s seen
	var hasTx, hasMeta bool
	r := reader{b}
	var f field
	for {
		ok, err := r.read(&f)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			break
		}
		switch f.Num {
		case 1:
			tx, err = s.bytesField(f, "transaction")
			hasTx = true
		case 2:
			meta, err = s.bytesField(f, "metadata")
			hasMeta = true
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if !hasTx {
		return nil, nil, errorf("prepared transaction has no transaction")
	}
	if !hasMeta {
		return nil, nil, errorf("prepared transaction has no metadata")
	}
	return tx, meta, nil
}

// index reads a DamlTransaction: version, roots, and lookup tables of nodes
// and seeds by node id.
func (h *hasher) index(b []byte) error {
	var s seen
	// The tables grow by appending: a pooled hasher has them sized already,
	// and counting first would read every node header twice.
	r := reader{b}
	nodeIndex, seedIndex := 0, 0
	var f field
	for {
		ok, err := r.read(&f)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch f.Num {
		case 1:
			h.version, err = s.bytesField(f, "version")
		case 2:
			var root []byte
			if root, err = repeatedBytes(f, "roots"); err == nil {
				h.roots = append(h.roots, root)
			}
		case 3:
			if err = want(f, protowire.BytesType, "nodes"); err == nil {
				err = atIndex(h.indexNode(f.Bytes), "nodes", nodeIndex)
				nodeIndex++
			}
		case 4:
			if err = want(f, protowire.BytesType, "node_seeds"); err == nil {
				err = atIndex(h.indexSeed(f.Bytes), "node_seeds", seedIndex)
				seedIndex++
			}
		}
		if err != nil {
			return err
		}
	}
	if parseLFVersion(h.version) == lfUnknown {
		return at(errorf("transaction version %q is not a Daml-LF serialization version this tool knows (\"2.1\" or \"2\")", clip(h.version)), "version")
	}
	if len(h.roots) == 0 {
		return at(errorf("transaction has no root nodes"), "roots")
	}
	return h.link()
}

// smallTransaction is the node count up to which lookups scan the table
// instead of building maps: cheaper for the common one-command transaction.
const smallTransaction = 16

// link makes nodes findable by id and attaches their seeds, refusing
// duplicate node ids and duplicate seeds.
func (h *hasher) link() error {
	switch maxID := h.maxNodeID(); {
	case len(h.table) <= smallTransaction:
		for i := range h.table {
			for j := range i {
				if h.table[j].id == h.table[i].id {
					return inNode(errorf("node id is used by more than one node"), nodeIDText(h.table[i].id))
				}
			}
		}
	case int(maxID) < 2*len(h.table):
		// Dense ids, as every participant numbers nodes: a slice indexed by id.
		h.byID = slices.Grow(h.byID[:0], int(maxID)+1)[:maxID+1]
		for i := range h.table {
			n := &h.table[i]
			if h.byID[n.id] != nil {
				return inNode(errorf("node id is used by more than one node"), nodeIDText(n.id))
			}
			h.byID[n.id] = n
		}
	default:
		h.nodes = make(map[int32]*nodeEntry, len(h.table))
		for i := range h.table {
			n := &h.table[i]
			if _, dup := h.nodes[n.id]; dup {
				return inNode(errorf("node id is used by more than one node"), nodeIDText(n.id))
			}
			h.nodes[n.id] = n
		}
	}
	for _, s := range h.seeds {
		n := h.lookup(s.id)
		if n == nil {
			continue // a seed for no node is not hashed
		}
		if n.seed != nil {
			return inNode(errorf("node_seeds lists this node more than once"), nodeIDText(s.id))
		}
		n.seed = s.seed
	}
	return nil
}

func (h *hasher) maxNodeID() int32 {
	var m int32
	for i := range h.table {
		m = max(m, h.table[i].id)
	}
	return m
}

// lookup finds a node by id, or returns nil.
func (h *hasher) lookup(id int32) *nodeEntry {
	switch {
	case len(h.byID) > 0: // the pooled slice is empty, not nil, when unused
		if id >= 0 && int(id) < len(h.byID) {
			return h.byID[id]
		}
		return nil
	case h.nodes != nil:
		return h.nodes[id]
	}
	for i := range h.table {
		if h.table[i].id == id {
			return &h.table[i]
		}
	}
	return nil
}

type nodeSeed struct {
	id   int32
	seed []byte
}

func (h *hasher) indexNode(b []byte) error {
	var s seen
	var idText, v1 []byte
	hasV1 := false
	r := reader{b}
	var f field
	for {
		ok, err := r.read(&f)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch f.Num {
		case 1:
			idText, err = s.bytesField(f, "node_id")
		case 1000:
			v1, err = s.bytesField(f, "v1")
			hasV1 = true
		}
		if err != nil {
			return err
		}
	}
	id, err := parseNodeID(idText)
	if err != nil {
		return at(err, "node_id")
	}
	if !hasV1 {
		return inNode(errorf("node has no v1 content (an unknown node version?)"), nodeIDText(id))
	}
	h.table = append(h.table, nodeEntry{id: id, msg: v1})
	return nil
}

func (h *hasher) indexSeed(b []byte) error {
	var s seen
	var id uint64
	var seed []byte
	r := reader{b}
	var f field
	for {
		ok, err := r.read(&f)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch f.Num {
		case 1:
			id, err = s.varintField(f, "node_id")
		case 2:
			seed, err = s.bytesField(f, "seed")
		}
		if err != nil {
			return err
		}
	}
	nid := int32(id)
	if uint64(int64(nid)) != id || nid < 0 {
		return at(errorf("seed node_id %d is not a non-negative int32", int64(id)), "node_id")
	}
	if len(seed) != 32 {
		return inNode(at(errorf("seed has %d bytes, want 32", len(seed)), "seed"), nodeIDText(nid))
	}
	h.seeds = append(h.seeds, nodeSeed{nid, seed})
	return nil
}

// transaction computes H_tx.
func (h *hasher) transaction() (*Trace, error) {
	hashes := make([][32]byte, len(h.roots))
	var traces []*Trace
	if h.opts.Trace {
		traces = make([]*Trace, len(h.roots))
	}
	txLF := parseLFVersion(h.version)
	for i, root := range h.roots {
		id, err := parseNodeID(root)
		if err != nil {
			return nil, atIndex(err, "transaction.roots", i)
		}
		var t *Trace
		hashes[i], t, err = h.node(id, txLF)
		if err != nil {
			return nil, err
		}
		if traces != nil {
			traces[i] = t
		}
	}
	for i := range h.table {
		if h.table[i].state != done {
			return nil, inNode(errorf("node is not reachable from any root; the participant would not sign what it does"), nodeIDText(h.table[i].id))
		}
	}
	e := h.encoder()
	defer h.release(e)
	e.purpose()
	e.section("Serialization Version")
	if err := e.string(h.version); err != nil {
		return nil, at(err, "transaction.version")
	}
	e.section("Root Nodes")
	e.int32(uint32(len(hashes)))
	for i := range hashes {
		if traces != nil {
			e.trace.nest(traces[i])
		}
		e.raw(hashes[i][:], "(Hashed Root Node)")
	}
	h.res.TransactionHash = h.digest(e)
	return e.trace, nil
}

// maxNodeDepth bounds the nesting of exercise and rollback nodes, so that a
// hostile input cannot exhaust the stack.
const maxNodeDepth = 10_000

// node hashes the node with the given id and, first, its descendants.
func (h *hasher) node(id int32, txLF lfVersion) (sum [32]byte, t *Trace, err error) {
	entry := h.lookup(id)
	if entry == nil {
		return sum, nil, inNode(errorf("node is referenced but not in transaction.nodes"), nodeIDText(id))
	}
	switch entry.state {
	case inProgress:
		return sum, nil, inNode(errorf("node is its own descendant; the children form a cycle"), nodeIDText(id))
	case done:
		// A node reached twice hashes the same both times; the memo keeps a
		// hostile DAG from costing exponential time.
		h.res.Warnings = append(h.res.Warnings, "node "+nodeIDText(id)+" is referenced from more than one place; the transaction is not a tree")
		return entry.sum, entry.trace, nil
	case precomputed:
		// Hashed by hashSubtrees, and reached here for the first time.
		entry.state = done
		return entry.sum, nil, nil
	}
	entry.state = inProgress
	if h.depth++; h.depth > maxNodeDepth {
		return sum, nil, inNode(errorf("nodes are nested deeper than %d", maxNodeDepth), nodeIDText(id))
	}
	defer func() { h.depth-- }()

	kind, msg, err := nodeKind(entry.msg)
	if err != nil {
		return sum, nil, inNode(err, nodeIDText(id))
	}
	switch kind {
	case nodeCreate:
		sum, t, err = h.leaf(entry, msg, nodeCreate, txLF)
		err = at(err, "create")
	case nodeFetch:
		sum, t, err = h.leaf(entry, msg, nodeFetch, txLF)
		err = at(err, "fetch")
	case nodeQueryByKey:
		sum, t, err = h.leaf(entry, msg, nodeQueryByKey, txLF)
		err = at(err, "query_by_key")
	case nodeExercise:
		sum, t, err = h.parent(id, msg, exerciseChildren, txLF, true)
		err = at(err, "exercise")
	case nodeRollback:
		sum, t, err = h.parent(id, msg, rollbackChildren, txLF, false)
		err = at(err, "rollback")
	}
	if err != nil {
		return sum, nil, inNode(err, nodeIDText(id))
	}
	entry.state, entry.sum, entry.trace = done, sum, t
	if h.res.NodeHashes != nil {
		h.res.NodeHashes[nodeIDText(id)] = sum
	}
	return sum, t, nil
}

type nodeState uint8

const (
	unseen nodeState = iota
	inProgress
	done
	weighed     // visited by hashSubtrees' planning walk
	precomputed // hashed by hashSubtrees; not yet reached from the roots
)

// nodeEntry is one node of the transaction and, once hashed, its hash.
type nodeEntry struct {
	id    int32
	msg   []byte // transaction.v1.Node
	seed  []byte
	state nodeState
	sum   [32]byte
	trace *Trace
	// weight is the encoded size of the node and its descendants, for
	// splitting a large transaction between cores (hashSubtrees).
	weight int
}

// nodeKind returns which arm of the Node oneof is set, and its bytes.
func nodeKind(b []byte) (protowire.Number, []byte, error) {
	var kind protowire.Number
	var msg []byte
	r := reader{b}
	var f field
	for {
		ok, err := r.read(&f)
		if err != nil {
			return 0, nil, err
		}
		if !ok {
			break
		}
		if f.Num < nodeCreate || f.Num > nodeQueryByKey {
			continue
		}
		if kind != 0 {
			return 0, nil, errorf("node has more than one type set (fields %d and %d)", kind, f.Num)
		}
		if err := want(f, protowire.BytesType, "node_type"); err != nil {
			return 0, nil, err
		}
		kind, msg = f.Num, f.Bytes
	}
	if kind == 0 {
		return 0, nil, errorf("node has no type set (create, fetch, exercise, rollback or query_by_key)")
	}
	return kind, msg, nil
}

// leaf hashes a node without children.
func (h *hasher) leaf(entry *nodeEntry, msg []byte, kind protowire.Number, txLF lfVersion) ([32]byte, *Trace, error) {
	l := &createLayout
	switch kind {
	case nodeFetch:
		l = &fetchLayout
	case nodeQueryByKey:
		l = &queryByKeyLayout
	}
	n, err := readNodeFields(msg, l, h.nodeScratch())
	if err != nil {
		return [32]byte{}, nil, err
	}
	if kind == nodeQueryByKey && h.scheme != V3 {
		return [32]byte{}, nil, errorf("query-by-key nodes exist only in hashing scheme V3")
	}
	if err := h.checkNodeVersion(&n, txLF); err != nil {
		return [32]byte{}, nil, err
	}
	e := h.encoder()
	defer h.release(e)
	switch kind {
	case nodeCreate:
		err = e.createNode(h.scheme, &n, entry.seed, true)
	case nodeFetch:
		err = e.fetchNode(h.scheme, &n)
	default:
		err = e.queryByKeyNode(h.scheme, &n)
	}
	if err != nil {
		return [32]byte{}, nil, err
	}
	return h.digest(e), e.trace, nil
}

// checkNodeVersion checks a node's lf_version against the scheme, then
// against the transaction version, so the most useful error comes first.
func (h *hasher) checkNodeVersion(n *nodeFields, txLF lfVersion) error {
	if err := n.checkVersion(h.scheme); err != nil {
		return err
	}
	if n.lf > txLF {
		return errorf("lf_version %q is newer than the transaction version %q", n.lfVersion, h.version)
	}
	return nil
}

// parent hashes an exercise or rollback node: children first, then the node.
func (h *hasher) parent(id int32, msg []byte, childField protowire.Number, txLF lfVersion, exercise bool) ([32]byte, *Trace, error) {
	var n nodeFields
	var err error
	if exercise {
		if n, err = readNodeFields(msg, &exerciseLayout, h.nodeScratch()); err != nil {
			return [32]byte{}, nil, err
		}
		if err := h.checkNodeVersion(&n, txLF); err != nil {
			return [32]byte{}, nil, err
		}
	}
	start := len(h.stack)
	var traces []*Trace
	r := reader{msg}
	var f field
	for i := 0; ; {
		ok, err := r.read(&f)
		if err != nil {
			return [32]byte{}, nil, err
		}
		if !ok {
			break
		}
		if f.Num != childField {
			continue
		}
		if err := want(f, protowire.BytesType, "children"); err != nil {
			return [32]byte{}, nil, err
		}
		child, err := parseNodeID(f.Bytes)
		if err != nil {
			return [32]byte{}, nil, atIndex(err, "children", i)
		}
		sum, t, err := h.node(child, txLF)
		if err != nil {
			return [32]byte{}, nil, err
		}
		h.stack = append(h.stack, sum)
		if h.opts.Trace {
			traces = append(traces, t)
		}
		i++
	}
	children := h.stack[start:]
	defer func() { h.stack = h.stack[:start] }()

	e := h.encoder()
	defer h.release(e)
	if exercise {
		err = e.exerciseNode(h.scheme, &n, h.lookup(id).seed, children, traces)
	} else {
		e.rollbackNode(h.scheme, children, traces)
	}
	if err != nil {
		return [32]byte{}, nil, err
	}
	return h.digest(e), e.trace, nil
}

// metadata computes H_meta.
func (h *hasher) metadata(b []byte) (*Trace, error) {
	var s seen
	var submitter, syncID, uuid []byte
	var mediator, prepTime, minLET, maxLET, maxRecord uint64
	var hasSubmitter, hasMinLET, hasMaxLET, hasMaxRecord bool
	var inputs [][]byte
	r := reader{b}
	var f field
	for {
		ok, err := r.read(&f)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		switch f.Num {
		case 2:
			submitter, err = s.bytesField(f, "submitter_info")
			hasSubmitter = true
		case 3:
			syncID, err = s.bytesField(f, "synchronizer_id")
		case 4:
			mediator, err = s.varintField(f, "mediator_group")
			if err == nil && mediator > 1<<32-1 {
				err = at(errorf("%d does not fit a uint32", mediator), "mediator_group")
			}
		case 5:
			uuid, err = s.bytesField(f, "transaction_uuid")
		case 6:
			prepTime, err = s.varintField(f, "preparation_time")
		case 7:
			var in []byte
			if in, err = repeatedBytes(f, "input_contracts"); err == nil {
				inputs = append(inputs, in)
			}
		case 9:
			minLET, err = s.varintField(f, "min_ledger_effective_time")
			hasMinLET = true
		case 10:
			maxLET, err = s.varintField(f, "max_ledger_effective_time")
			hasMaxLET = true
		case 8:
			// Deprecated and not hashed, but the participant still decodes it.
			if err = want(f, protowire.BytesType, "global_key_mapping"); err == nil {
				if perr := proto.Unmarshal(f.Bytes, &damlpb.Metadata_GlobalKeyMappingEntry{}); perr != nil {
					err = at(malformed("%v", perr), "global_key_mapping")
				}
			}
		case 11:
			maxRecord, err = s.varintField(f, "max_record_time")
			hasMaxRecord = true
		}
		if err != nil {
			return nil, err
		}
	}
	if !hasSubmitter {
		return nil, at(errorf("submitter_info is missing"), "submitter_info")
	}
	if len(syncID) == 0 {
		return nil, at(errorf("synchronizer_id is empty"), "synchronizer_id")
	}
	if err := checkUUID(uuid); err != nil {
		return nil, at(err, "transaction_uuid")
	}

	// Input contracts are hashed first: each is a preimage of its own.
	type input struct {
		createdAt uint64
		sum       [32]byte
		trace     *Trace
	}
	hashed := make([]input, len(inputs))
	var prevID []byte
	for i, in := range inputs {
		createdAt, n, err := readInputContract(in, h.nodeScratch())
		if err != nil {
			return nil, atIndex(err, "input_contracts", i)
		}
		if i > 0 && string(prevID) >= string(n.contractID) {
			return nil, atIndex(errorf("contract %q is not after %q; the participant hashes input contracts sorted by contract id", clip(n.contractID), clip(prevID)), "input_contracts", i)
		}
		prevID = n.contractID
		e := h.encoder()
		if err := e.createNode(h.scheme, &n, nil, false); err != nil {
			return nil, atIndex(at(err, "v1"), "input_contracts", i)
		}
		hashed[i] = input{createdAt, h.digest(e), e.trace}
		h.release(e)
		if h.opts.NodeHashes {
			h.res.InputContractHashes = append(h.res.InputContractHashes, hashed[i].sum)
		}
	}

	e := h.encoder()
	defer h.release(e)
	e.purpose()
	if h.scheme == V2 {
		e.byte1(0x01, "01 (Metadata Encoding Version)")
	}
	if err := e.repeatedStrings(submitter, 1, "Act As Parties", true); err != nil {
		return nil, at(err, "submitter_info.act_as")
	}
	commandID, err := submitterCommandID(submitter)
	if err != nil {
		return nil, at(err, "submitter_info")
	}
	e.section("Command Id")
	if err := e.string(commandID); err != nil {
		return nil, at(err, "submitter_info.command_id")
	}
	e.section("Transaction UUID")
	if err := e.string(uuid); err != nil {
		return nil, at(err, "transaction_uuid")
	}
	e.section("Mediator Group")
	e.int32(uint32(mediator))
	e.section("Synchronizer Id")
	if err := e.string(syncID); err != nil {
		return nil, at(err, "synchronizer_id")
	}
	e.section("Min Time Boundary")
	e.optionalTime(minLET, hasMinLET)
	e.section("Max Time Boundary")
	e.optionalTime(maxLET, hasMaxLET)
	e.section("Preparation Time")
	e.time(prepTime)
	e.section("Disclosed Contracts")
	e.int32(uint32(len(hashed)))
	for _, in := range hashed {
		e.section("Created At")
		e.time(in.createdAt)
		e.section("Create Contract")
		e.trace.nest(in.trace)
		e.raw(in.sum[:], "Disclosed Contract")
	}
	if h.scheme == V3 {
		e.section("Max Record Time")
		e.optionalTime(maxRecord, hasMaxRecord)
	}
	h.res.MetadataHash = h.digest(e)
	return e.trace, nil
}

func (e *encoder) time(us uint64) {
	e.buf = append(e.buf, byte(us>>56), byte(us>>48), byte(us>>40), byte(us>>32), byte(us>>24), byte(us>>16), byte(us>>8), byte(us))
	if e.trace != nil {
		e.note(len(e.buf)-8, formatMicros(us))
	}
}

func (e *encoder) optionalTime(us uint64, present bool) {
	e.some(present)
	if present {
		e.time(us)
	}
}

func submitterCommandID(b []byte) ([]byte, error) {
	var s seen
	var id []byte
	actAs := 0
	r := reader{b}
	var f field
	for {
		ok, err := r.read(&f)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		switch f.Num {
		case 1:
			actAs++
		case 2:
			if id, err = s.bytesField(f, "command_id"); err != nil {
				return nil, err
			}
		}
	}
	if actAs == 0 {
		return nil, at(errorf("act_as is empty"), "act_as")
	}
	if len(id) == 0 {
		return nil, at(errorf("command_id is empty"), "command_id")
	}
	return id, nil
}

func readInputContract(b []byte, sc *nodeScratch) (createdAt uint64, n nodeFields, err error) {
	var s seen
	var v1 []byte
	hasV1 := false
	r := reader{b}
	var f field
	for {
		ok, err := r.read(&f)
		if err != nil {
			return 0, n, err
		}
		if !ok {
			break
		}
		switch f.Num {
		case 1:
			v1, err = s.bytesField(f, "v1")
			hasV1 = true
		case 1000:
			createdAt, err = s.varintField(f, "created_at")
		}
		if err != nil {
			return 0, n, err
		}
	}
	if !hasV1 {
		return 0, n, errorf("input contract has no v1 create node")
	}
	n, err = readNodeFields(v1, &createLayout, sc)
	return createdAt, n, at(err, "v1")
}

// Hex returns the lower-case hex form of a hash.
func Hex(sum [32]byte) string { return hex.EncodeToString(sum[:]) }

// Multihash returns the `1220…` form Canton prints in logs. It is not what
// is signed.
func Multihash(sum [32]byte) string { return "1220" + hex.EncodeToString(sum[:]) }
