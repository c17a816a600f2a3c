package value

// GenMapInOrder returns the generic map of entries in the order given,
// without sorting them or comparing keys. It is for values read from a wire
// form without their types (a contract argument in an event blob): there
// variants and enums carry no rank, so Daml's order cannot be computed, and
// the writer's order is what Canton hashes. Lookup, Insert and Delete
// assume Daml's order; use them only once the value has been translated by
// its type. It keeps entries; an empty slice gives the empty map (nil).
func GenMapInOrder(entries []GenMapEntry) *GenMap {
	if len(entries) == 0 {
		return nil
	}
	return &GenMap{entries: entries}
}
