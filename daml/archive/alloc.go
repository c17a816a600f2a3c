package archive

// slab hands out values of T from chunks: one allocation per chunk instead
// of one per value. The nodes of a package are created together and live
// as long as the package, so sharing chunks keeps nothing alive for longer
// than it would be anyway, and saves most of the allocator's and the
// garbage collector's work per node. Chunks start small, for the many tiny
// packages, and double up to 1024 values.
type slab[T any] struct {
	free []T
	next int
}

func (s *slab[T]) refill(min int) {
	if s.next < 8 {
		s.next = 8
	}
	n := max(s.next, min)
	s.free = make([]T, n)
	if s.next < 1024 {
		s.next *= 2
	}
}

// one returns a pointer to a new zero T.
func (s *slab[T]) one() *T {
	if len(s.free) == 0 {
		s.refill(1)
	}
	p := &s.free[0]
	s.free = s.free[1:]
	return p
}

// many returns a new slice of n zero Ts; appending to it reallocates.
func (s *slab[T]) many(n int) []T {
	if n > 64 {
		return make([]T, n)
	}
	if len(s.free) < n {
		s.refill(n)
	}
	out := s.free[:n:n]
	s.free = s.free[n:]
	return out
}
