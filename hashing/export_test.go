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
