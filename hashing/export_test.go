package hashing

// SplitsSubtrees reports whether the nodes of the binary PreparedTransaction
// b are hashed on workers goroutines by hashSubtrees (rather than all in one
// pass), so that tests can tell the parallel path was really taken.
func SplitsSubtrees(b []byte, s Scheme, workers int) (bool, error) {
	h := hasherPool.Get().(*hasher)
	defer h.recycle()
	h.scheme, h.res = s, &Result{Scheme: s}
	tx, meta, err := splitPreparedTransaction(b)
	if err != nil {
		return false, err
	}
	if err := h.index(tx); err != nil {
		return false, err
	}
	return h.hashSubtrees(workers, meta), nil
}

// PlanOnly runs the sequential part of a parallel hash of b — indexing the
// nodes, weighing the tree and picking the subtrees — and returns the
// number of tasks, for measuring what the workers cannot share.
func PlanOnly(b []byte, s Scheme, workers int) int {
	h := hasherPool.Get().(*hasher)
	defer h.recycle()
	h.scheme, h.res = s, &Result{Scheme: s}
	tx, _, err := splitPreparedTransaction(b)
	if err != nil || h.index(tx) != nil {
		return 0
	}
	total, ok := h.weighTree()
	h.resetStates()
	if !ok {
		return 0
	}
	return len(h.pickTasks(max(total/(workers*tasksPerWorker), 1)))
}
