package value

import (
	"fmt"
	"slices"
	"strings"
)

// TextMapEntry is a key and its value in a TextMap.
type TextMapEntry struct {
	Key   string
	Value Value
}

// TextMap is an immutable map from text to values, its entries sorted by
// key in code-point order (the byte order of UTF-8). A nil *TextMap is the
// empty map. Updates copy the entries: Daml programs keep text maps small.
type TextMap struct{ entries []TextMapEntry }

// NewTextMap returns the map of entries, sorting them by key. It fails when
// a key appears twice. It keeps entries.
func NewTextMap(entries []TextMapEntry) (*TextMap, error) {
	slices.SortStableFunc(entries, func(a, b TextMapEntry) int { return strings.Compare(a.Key, b.Key) })
	for i := 1; i < len(entries); i++ {
		if entries[i].Key == entries[i-1].Key {
			return nil, fmt.Errorf("duplicate key %q in a text map", entries[i].Key)
		}
	}
	if len(entries) == 0 {
		return nil, nil
	}
	return &TextMap{entries: entries}, nil
}

// Kind returns KindTextMap.
func (*TextMap) Kind() Kind { return KindTextMap }

// Len returns the number of entries.
func (m *TextMap) Len() int {
	if m == nil {
		return 0
	}
	return len(m.entries)
}

// Entries returns the entries sorted by key. The slice is shared: do not
// modify it.
func (m *TextMap) Entries() []TextMapEntry {
	if m == nil {
		return nil
	}
	return m.entries
}

func (m *TextMap) find(k string) (int, bool) {
	return slices.BinarySearchFunc(m.Entries(), k, func(e TextMapEntry, k string) int { return strings.Compare(e.Key, k) })
}

// Lookup returns the value at k.
func (m *TextMap) Lookup(k string) (Value, bool) {
	i, ok := m.find(k)
	if !ok {
		return nil, false
	}
	return m.entries[i].Value, true
}

// Insert returns the map with k set to v.
func (m *TextMap) Insert(k string, v Value) *TextMap {
	i, ok := m.find(k)
	es := m.Entries()
	if ok {
		out := slices.Clone(es)
		out[i].Value = v
		return &TextMap{entries: out}
	}
	out := make([]TextMapEntry, 0, len(es)+1)
	out = append(out, es[:i]...)
	out = append(out, TextMapEntry{Key: k, Value: v})
	out = append(out, es[i:]...)
	return &TextMap{entries: out}
}

// Delete returns the map without k.
func (m *TextMap) Delete(k string) *TextMap {
	i, ok := m.find(k)
	if !ok {
		return m
	}
	if m.Len() == 1 {
		return nil
	}
	return &TextMap{entries: slices.Delete(slices.Clone(m.entries), i, i+1)}
}

func (m *TextMap) String() string {
	var b strings.Builder
	b.WriteString("TextMap(")
	for i, e := range m.Entries() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.Key + " -> " + e.Value.String())
	}
	b.WriteString(")")
	return b.String()
}

// GenMapEntry is a key and its value in a GenMap.
type GenMapEntry struct {
	Key   Value
	Value Value
}

// GenMap is an immutable map from values to values, its entries sorted by
// key in Daml's order (Compare). Keys must be comparable (no functions). A
// nil *GenMap is the empty map.
type GenMap struct{ entries []GenMapEntry }

// NewGenMap returns the map of entries sorted by key. It fails when two
// keys are equal or cannot be compared. It keeps entries.
func NewGenMap(entries []GenMapEntry) (*GenMap, error) {
	var err error
	slices.SortStableFunc(entries, func(a, b GenMapEntry) int {
		c, e := Compare(a.Key, b.Key)
		if e != nil && err == nil {
			err = e
		}
		return c
	})
	if err != nil {
		return nil, err
	}
	for i := 1; i < len(entries); i++ {
		if c, _ := Compare(entries[i-1].Key, entries[i].Key); c == 0 {
			return nil, fmt.Errorf("duplicate key %s in a generic map", entries[i].Key)
		}
	}
	if len(entries) == 0 {
		return nil, nil
	}
	return &GenMap{entries: entries}, nil
}

// Kind returns KindGenMap.
func (*GenMap) Kind() Kind { return KindGenMap }

// Len returns the number of entries.
func (m *GenMap) Len() int {
	if m == nil {
		return 0
	}
	return len(m.entries)
}

// Entries returns the entries sorted by key. The slice is shared: do not
// modify it.
func (m *GenMap) Entries() []GenMapEntry {
	if m == nil {
		return nil
	}
	return m.entries
}

// find returns where k is or would be.
func (m *GenMap) find(k Value) (int, bool, error) {
	es := m.Entries()
	lo, hi := 0, len(es)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		c, err := Compare(es[mid].Key, k)
		if err != nil {
			return 0, false, err
		}
		switch {
		case c < 0:
			lo = mid + 1
		case c > 0:
			hi = mid
		default:
			return mid, true, nil
		}
	}
	return lo, false, nil
}

// Lookup returns the value at k; the error says k is not comparable.
func (m *GenMap) Lookup(k Value) (Value, bool, error) {
	if err := checkKey(k); err != nil {
		return nil, false, err
	}
	i, ok, err := m.find(k)
	if !ok || err != nil {
		return nil, false, err
	}
	return m.entries[i].Value, true, nil
}

// Insert returns the map with k set to v, the key kept in order.
func (m *GenMap) Insert(k, v Value) (*GenMap, error) {
	if err := checkKey(k); err != nil {
		return nil, err
	}
	i, ok, err := m.find(k)
	if err != nil {
		return nil, err
	}
	es := m.Entries()
	if ok {
		out := slices.Clone(es)
		out[i] = GenMapEntry{Key: k, Value: v}
		return &GenMap{entries: out}, nil
	}
	out := make([]GenMapEntry, 0, len(es)+1)
	out = append(out, es[:i]...)
	out = append(out, GenMapEntry{Key: k, Value: v})
	out = append(out, es[i:]...)
	return &GenMap{entries: out}, nil
}

// Delete returns the map without k.
func (m *GenMap) Delete(k Value) (*GenMap, error) {
	if err := checkKey(k); err != nil {
		return nil, err
	}
	i, ok, err := m.find(k)
	if err != nil || !ok {
		return m, err
	}
	if m.Len() == 1 {
		return nil, nil
	}
	return &GenMap{entries: slices.Delete(slices.Clone(m.entries), i, i+1)}, nil
}

// checkKey fails when k cannot be a key: when it is not equal to itself
// (it holds a function), as GENMAP_INSERT's rule EQUAL k k requires.
func checkKey(k Value) error {
	_, err := Equal(k, k)
	return err
}

func (m *GenMap) String() string {
	var b strings.Builder
	b.WriteString("GenMap(")
	for i, e := range m.Entries() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.Key.String() + " -> " + e.Value.String())
	}
	b.WriteString(")")
	return b.String()
}
