package lf

import "unsafe"

// TypeNode identifies one Type value in memory. A decoded package shares
// its interned types: an entry of the type table names earlier entries, and
// every use of an entry is the same value, so a type of a few dozen nodes
// can stand for a tree of 2^40. Code that walks types memoises by TypeNode
// to walk the nodes once each, not the tree.
//
// Types are immutable, so two Types with the same TypeNode are equal; two
// equal Types may have different TypeNodes (a memo then misses, nothing
// worse).
type TypeNode struct{ typ, data unsafe.Pointer }

// NodeOf returns the identity of t: the two words of the interface value,
// its dynamic type and the pointer to the value it holds.
func NodeOf(t Type) TypeNode { return *(*TypeNode)(unsafe.Pointer(&t)) }
