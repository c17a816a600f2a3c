package value

import (
	"iter"
	"strings"
)

// List is an immutable list. Cons and Uncons take constant time, so Daml
// code that builds and walks lists element by element (the usual recursion
// over x :: xs) is linear, and a list built from a slice is stored as that
// slice. A nil *List is the empty list.
//
// Internally a List is a run of leading elements (elems, never modified once
// shared) followed by the rest of the list.
type List struct {
	elems []Value
	rest  *List
	n     int
}

// NewList returns the list of elems in order. It keeps elems: the caller
// must not modify it afterwards.
func NewList(elems ...Value) *List {
	if len(elems) == 0 {
		return nil
	}
	return &List{elems: elems, n: len(elems)}
}

// Kind returns KindList.
func (*List) Kind() Kind { return KindList }

// Len returns the number of elements.
func (l *List) Len() int {
	if l == nil {
		return 0
	}
	return l.n
}

// Cons returns the list with v in front of l.
func (l *List) Cons(v Value) *List {
	return &List{elems: []Value{v}, rest: l.nonEmpty(), n: l.Len() + 1}
}

// Prepend returns the list of front's elements followed by l's. It keeps
// front.
func (l *List) Prepend(front []Value) *List {
	if len(front) == 0 {
		return l.nonEmpty()
	}
	return &List{elems: front, rest: l.nonEmpty(), n: l.Len() + len(front)}
}

func (l *List) nonEmpty() *List {
	if l == nil || l.n == 0 {
		return nil
	}
	return l
}

// Uncons returns the first element and the rest; ok is false when l is
// empty.
func (l *List) Uncons() (head Value, tail *List, ok bool) {
	if l == nil || l.n == 0 {
		return nil, nil, false
	}
	if len(l.elems) == 1 {
		return l.elems[0], l.rest, true
	}
	return l.elems[0], &List{elems: l.elems[1:], rest: l.rest, n: l.n - 1}, true
}

// All iterates over the elements in order.
func (l *List) All() iter.Seq[Value] {
	return func(yield func(Value) bool) {
		for c := l; c != nil; c = c.rest {
			for _, v := range c.elems {
				if !yield(v) {
					return
				}
			}
		}
	}
}

// Slice returns the elements in a new slice.
func (l *List) Slice() []Value {
	out := make([]Value, 0, l.Len())
	for c := l; c != nil; c = c.rest {
		out = append(out, c.elems...)
	}
	return out
}

func (l *List) String() string {
	var b strings.Builder
	b.WriteString("[")
	i := 0
	for v := range l.All() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(v.String())
		i++
	}
	b.WriteString("]")
	return b.String()
}
