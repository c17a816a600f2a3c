package hashing

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/encoding/protowire"
)

// Large transactions are hashed on several cores. Node hashes are
// independent of each other except through the children hashes of exercise
// and rollback nodes, so disjoint subtrees can be hashed at the same time
// and their hashes picked up by the usual recursion from the roots.
//
// The parallel path is an optimisation only: it is taken when the nodes
// form a proper tree (every node reached exactly once from the roots, no
// cycle), and any error in it throws its work away and hashes again in one
// goroutine, so errors and warnings are always those of the sequential
// hasher, in the same order.

// parallelMinBytes is the transaction size from which hashing is spread
// over cores; below it the hand-off costs more than it saves.
const parallelMinBytes = 256 << 10

// maxHashWorkers bounds the goroutines one Compute call uses.
const maxHashWorkers = 8

// tasksPerWorker is how many subtrees each worker gets on average: more
// tasks balance uneven subtrees better, fewer cost less in hand-offs.
const tasksPerWorker = 8

// parallelism returns how many goroutines should hash transaction bytes tx.
func (h *hasher) parallelism(tx []byte) int {
	if h.opts.Trace || h.opts.NodeHashes || len(tx) < parallelMinBytes || len(h.table) < 2 {
		return 1
	}
	return min(runtime.GOMAXPROCS(0), maxHashWorkers)
}

// hashSubtrees hashes disjoint subtrees of the transaction, and the
// metadata meta, on workers goroutines. Each subtree root is left in state
// precomputed with its hash, and the metadata hash in h.res. It reports
// false, with every node back in state unseen, when the transaction is not
// a proper tree or anything fails to hash: the caller then hashes the whole
// transaction and its metadata sequentially.
func (h *hasher) hashSubtrees(workers int, meta []byte) bool {
	total, ok := h.weighTree()
	h.resetStates()
	if !ok {
		return false
	}
	var tasks []hashTask
	for _, entry := range h.pickTasks(max(total/(workers*tasksPerWorker), 1)) {
		tasks = append(tasks, hashTask{entry, entry.weight})
	}
	tasks = append(tasks, hashTask{nil, len(meta)})
	if len(tasks) < 3 {
		return false
	}
	// Largest first, so that the last tasks to finish are small ones.
	slices.SortFunc(tasks, func(a, b hashTask) int { return b.weight - a.weight })

	var next atomic.Int64
	var failed atomic.Bool
	var metaHash [32]byte
	results := make([]*Result, workers)
	run := func(w int) {
		sub := &hasher{scheme: h.scheme, version: h.version, nodes: h.nodes, byID: h.byID, table: h.table, res: &Result{}}
		results[w] = sub.res
		txLF := parseLFVersion(h.version)
		for !failed.Load() {
			i := int(next.Add(1) - 1)
			if i >= len(tasks) {
				return
			}
			var err error
			if entry := tasks[i].entry; entry != nil {
				_, _, err = sub.node(entry.id, txLF)
			} else if _, err = sub.metadata(meta); err == nil {
				metaHash = sub.res.MetadataHash
			}
			if err != nil {
				failed.Store(true)
				return
			}
		}
	}
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(w)
		}()
	}
	run(0)
	wg.Wait()

	if failed.Load() {
		h.resetStates()
		return false
	}
	for _, r := range results {
		if r != nil {
			h.res.PreimageBytes += r.PreimageBytes
			h.res.Warnings = append(h.res.Warnings, r.Warnings...)
		}
	}
	for _, t := range tasks {
		if t.entry != nil {
			t.entry.state = precomputed
		}
	}
	h.res.MetadataHash = metaHash
	return true
}

// hashTask is a subtree to hash, or the metadata when entry is nil.
type hashTask struct {
	entry  *nodeEntry
	weight int
}

// weighTree walks the nodes from the roots, recording in each node the
// encoded size of its subtree, and reports the total and whether the nodes
// form a proper tree that reaches every node.
func (h *hasher) weighTree() (int, bool) {
	total := 0
	for _, root := range h.roots {
		id, err := parseNodeID(root)
		if err != nil {
			return 0, false
		}
		w, ok := h.weigh(id, 1)
		if !ok {
			return 0, false
		}
		total += w
	}
	for i := range h.table {
		if h.table[i].state != weighed {
			return 0, false
		}
	}
	return total, true
}

func (h *hasher) weigh(id int32, depth int) (int, bool) {
	entry := h.lookup(id)
	if entry == nil || entry.state != unseen || depth > maxNodeDepth {
		return 0, false
	}
	entry.state = weighed
	w := len(entry.msg)
	ok := eachChild(entry.msg, func(child int32) bool {
		cw, ok := h.weigh(child, depth+1)
		w += cw
		return ok
	})
	entry.weight = w
	return w, ok
}

// pickTasks returns the largest subtrees that weigh at most limit; the nodes
// above them are left to the sequential pass.
func (h *hasher) pickTasks(limit int) []*nodeEntry {
	var tasks []*nodeEntry
	var pick func(id int32)
	pick = func(id int32) {
		entry := h.lookup(id) // found: weighTree checked every reference
		if entry.weight <= limit {
			tasks = append(tasks, entry)
			return
		}
		eachChild(entry.msg, func(child int32) bool {
			pick(child)
			return true
		})
	}
	for _, root := range h.roots {
		id, _ := parseNodeID(root) // parsed by weighTree
		pick(id)
	}
	return tasks
}

// eachChild calls f with the id of every child of an exercise or rollback
// node, in order, until f returns false; it reports false when the node
// cannot be read or f returned false.
func eachChild(node []byte, f func(int32) bool) bool {
	kind, msg, err := nodeKind(node)
	if err != nil {
		return false
	}
	var childField protowire.Number
	switch kind {
	case nodeExercise:
		childField = exerciseChildren
	case nodeRollback:
		childField = rollbackChildren
	default:
		return true
	}
	r := reader{msg}
	var g field
	for {
		ok, err := r.read(&g)
		if err != nil {
			return false
		}
		if !ok {
			return true
		}
		if g.Num != childField {
			continue
		}
		if g.Type != protowire.BytesType {
			return false
		}
		id, err := parseNodeID(g.Bytes)
		if err != nil || !f(id) {
			return false
		}
	}
}

func (h *hasher) resetStates() {
	for i := range h.table {
		h.table[i].state = unseen
	}
}
