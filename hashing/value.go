package hashing

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/ledger-cli/ledger/internal/pbwire"
)

// MaxValueNesting is Daml's limit on nested values (records, variants,
// lists, maps, optionals); deeper values are refused as the participant does.
const MaxValueNesting = 100

// Value hash tags. They are NOT the protobuf field numbers.
const (
	tagUnit       = 0x00
	tagBool       = 0x01
	tagInt64      = 0x02
	tagNumeric    = 0x03
	tagTimestamp  = 0x04
	tagDate       = 0x05
	tagParty      = 0x06
	tagText       = 0x07
	tagContractID = 0x08
	tagOptional   = 0x09
	tagList       = 0x0a
	tagTextMap    = 0x0b
	tagRecord     = 0x0c
	tagVariant    = 0x0d
	tagEnum       = 0x0e
	tagGenMap     = 0x0f
)

// value encodes a com.daml.ledger.api.v2.Value message.
func (e *encoder) value(b []byte, depth int) error {
	if depth > MaxValueNesting {
		return errorf("value nesting exceeds Daml's limit of %d", MaxValueNesting)
	}
	// Fast paths: the message is exactly one known arm, as every encoder
	// writes it, dispatched on its tag byte, which also fixes the wire type.
	// Any other shape, wrong wire types included, takes the general path
	// below, which also produces the errors.
	if tag, p, ok := soleLenField(b); ok && lenArms&(1<<(tag>>3)) != 0 {
		return e.lenArm(protowire.Number(tag>>3), p, depth)
	}
	if len(b) >= 2 && b[0] < 0x80 && b[0]&7 == 0 && b[0]>>3 >= 1 {
		if v, n := protowire.ConsumeVarint(b[1:]); n == len(b)-1 {
			return e.valueArm(field{Num: protowire.Number(b[0] >> 3), Type: protowire.VarintType, Int: v}, depth)
		}
	}
	switch {
	case len(b) == 9 && b[0] == 5<<3|1: // timestamp, fixed64
		e.byte1(tagTimestamp, "Timestamp Type Tag")
		e.int64(binary.LittleEndian.Uint64(b[1:]))
		return nil
	case len(b) >= 3 && b[0] == 0x82 && b[1] == 0x01 && int(b[2]) == len(b)-3: // enum: field 16 has a two-byte tag
		return e.lenArm(16, b[3:], depth)
	}
	return e.valueSlow(b, depth)
}

// soleLenField reports whether b is exactly one length-delimited field with
// a one-byte tag and a length of one or two bytes, and splits it. The tag
// may name field 0: callers compare it with the tags they expect.
func soleLenField(b []byte) (tag byte, payload []byte, ok bool) {
	if len(b) < 2 || b[0]&0x87 != 2 {
		return
	}
	n, i := int(b[1]), 2
	if n >= 0x80 {
		if len(b) < 3 || b[2] >= 0x80 {
			return
		}
		n, i = n&0x7f|int(b[2])<<7, 3
	}
	if n != len(b)-i {
		return
	}
	return b[0], b[i:], true
}

// valueSlow reads a Value message field by field.
func (e *encoder) valueSlow(b []byte, depth int) error {
	r := reader{b}
	var arm field
	found := false
	var f field
	for {
		ok, err := r.read(&f)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if f.Num < 1 || f.Num > 16 {
			continue // unknown field: ignored, as the participant's decoder does
		}
		if found {
			return errorf("Value has more than one variant set (fields %d and %d)", arm.Num, f.Num)
		}
		arm, found = f, true
	}
	if !found {
		return errorf("Value has no variant set")
	}
	return e.valueArm(arm, depth)
}

func (e *encoder) unit(b []byte) error {
	if err := wellFormed(b); err != nil {
		return at(err, "unit")
	}
	e.byte1(tagUnit, "Unit Type Tag")
	return nil
}

func (e *encoder) numeric(b []byte) error {
	if err := checkNumeric(b); err != nil {
		return at(err, "numeric")
	}
	e.byte1(tagNumeric, "Numeric Type Tag")
	e.checkedString(b) // checkNumeric admits ASCII only
	return nil
}

func (e *encoder) valueArm(f field, depth int) error {
	switch f.Num {
	case 2:
		if err := want(f, protowire.VarintType, "bool"); err != nil {
			return err
		}
		v, err := boolValue(f.Int, "bool")
		if err != nil {
			return err
		}
		e.byte1(tagBool, "Bool Type Tag")
		e.bool(v)
	case 3:
		if err := want(f, protowire.VarintType, "int64"); err != nil {
			return err
		}
		e.byte1(tagInt64, "Int64 Type Tag")
		e.int64(uint64(protowire.DecodeZigZag(f.Int)))
	case 4:
		if err := want(f, protowire.VarintType, "date"); err != nil {
			return err
		}
		days := int32(f.Int)
		if uint64(int64(days)) != f.Int {
			return errorf("date: %d does not fit an int32", f.Int)
		}
		e.byte1(tagDate, "Date Type Tag")
		e.int32(uint32(days))
	case 5:
		if err := want(f, protowire.Fixed64Type, "timestamp"); err != nil {
			return err
		}
		e.byte1(tagTimestamp, "Timestamp Type Tag")
		e.int64(f.Int)
	default:
		if err := want(f, protowire.BytesType, armNames[f.Num]); err != nil {
			if f.Num >= 10 { // containers name themselves in the path too
				return at(err, armNames[f.Num])
			}
			return err
		}
		return e.lenArm(f.Num, f.Bytes, depth)
	}
	return nil
}

// lenArms has bit n set for every length-delimited arm n of Value: all but
// bool (2), int64 (3), date (4) and timestamp (5).
const lenArms = 1<<1 | 1<<6 | 1<<7 | 1<<8 | 1<<9 | 1<<10 | 1<<11 | 1<<12 | 1<<13 | 1<<14 | 1<<15 | 1<<16

// armNames name the arms of Value in errors.
var armNames = [17]string{1: "unit", 2: "bool", 3: "int64", 4: "date", 5: "timestamp", 6: "numeric",
	7: "party", 8: "text", 9: "contract_id", 10: "optional", 11: "list", 12: "text_map", 13: "gen_map",
	14: "record", 15: "variant", 16: "enum"}

// lenArm encodes the length-delimited arm num of a Value (one of lenArms),
// whose wire type is checked, with payload p.
func (e *encoder) lenArm(num protowire.Number, p []byte, depth int) error {
	switch num {
	case 1:
		return e.unit(p)
	case 6:
		return e.numeric(p)
	case 7:
		e.byte1(tagParty, "Party Type Tag")
		return at(e.string(p), "party")
	case 8:
		e.byte1(tagText, "Text Type Tag")
		return at(e.string(p), "text")
	case 9:
		e.byte1(tagContractID, "ContractId Type Tag")
		return at(e.hexID(p), "contract_id")
	case 10:
		return at(e.optional(p, depth), "optional")
	case 11:
		return at(e.list(p, depth), "list")
	case 12:
		return at(e.textMap(p, depth), "text_map")
	case 13:
		return at(e.genMap(p, depth), "gen_map")
	case 14:
		return at(e.record(p, depth), "record")
	case 15:
		return at(e.variant(p, depth), "variant")
	case 16:
		return at(e.enum(p), "enum")
	}
	return nil
}

func (e *encoder) optional(b []byte, depth int) error {
	var s seen
	var inner []byte
	present := false
	if tag, p, rest, ok := pbwire.LenField(b); ok && tag == 0x0a && len(rest) == 0 {
		e.byte1(tagOptional, "Optional Type Tag")
		e.some(true)
		return at(e.value(p, depth+1), "value")
	}
	r := reader{b}
	var g field
	for {
		ok, err := r.read(&g)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if g.Num == 1 {
			if inner, err = s.bytesField(g, "value"); err != nil {
				return err
			}
			present = true
		}
	}
	e.byte1(tagOptional, "Optional Type Tag")
	e.some(present)
	if present {
		return at(e.value(inner, depth+1), "value")
	}
	return nil
}

func (e *encoder) list(b []byte, depth int) error {
	e.byte1(tagList, "List Type Tag")
	count := e.reserveCount()
	r := reader{b}
	i := 0
	for {
		elem, ok, err := r.repeated(1, "elements")
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if err := e.value(elem, depth+1); err != nil {
			return atIndex(err, "elements", i)
		}
		i++
	}
	e.fillCount(count, i)
	return nil
}

// mapEntry splits a TextMap.Entry or GenMap.Entry into key and value.
func mapEntry(b []byte) (key, value []byte, hasKey, hasValue bool, err error) {
	if tag, k, rest, ok := pbwire.LenField(b); ok && tag == 0x0a {
		if tag, v, rest, ok := pbwire.LenField(rest); ok && tag == 0x12 && len(rest) == 0 {
			return k, v, true, true, nil
		}
	}
	var s seen
	r := reader{b}
	var f field
	for {
		ok, err := r.read(&f)
		if err != nil {
			return nil, nil, false, false, err
		}
		if !ok {
			return key, value, hasKey, hasValue, nil
		}
		switch f.Num {
		case 1:
			if key, err = s.bytesField(f, "key"); err != nil {
				return nil, nil, false, false, err
			}
			hasKey = true
		case 2:
			if value, err = s.bytesField(f, "value"); err != nil {
				return nil, nil, false, false, err
			}
			hasValue = true
		}
	}
}

func (e *encoder) textMap(b []byte, depth int) error {
	e.byte1(tagTextMap, "TextMap Type Tag")
	count := e.reserveCount()
	r := reader{b}
	var prev []byte
	i := 0
	for {
		entry, ok, err := r.repeated(1, "entries")
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		key, val, _, hasValue, err := mapEntry(entry)
		if err != nil {
			return atIndex(err, "entries", i)
		}
		if i > 0 && bytes.Compare(prev, key) >= 0 {
			return atIndex(errorf("key %q is not after %q; text-map keys must be unique and sorted, as the participant re-sorts them before hashing", clip(key), clip(prev)), "entries", i)
		}
		if !hasValue {
			return atIndex(errorf("entry has no value"), "entries", i)
		}
		if err := e.string(key); err != nil {
			return atIndex(at(err, "key"), "entries", i)
		}
		if err := e.value(val, depth+1); err != nil {
			return atIndex(at(err, "value"), "entries", i)
		}
		prev = key
		i++
	}
	e.fillCount(count, i)
	return nil
}

func (e *encoder) genMap(b []byte, depth int) error {
	e.byte1(tagGenMap, "GenMap Type Tag")
	count := e.reserveCount()
	r := reader{b}
	i := 0
	for {
		entry, ok, err := r.repeated(1, "entries")
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		key, val, hasKey, hasValue, err := mapEntry(entry)
		if err != nil {
			return atIndex(err, "entries", i)
		}
		if !hasKey || !hasValue {
			return atIndex(errorf("entry needs both key and value"), "entries", i)
		}
		if err := e.value(key, depth+1); err != nil {
			return atIndex(at(err, "key"), "entries", i)
		}
		if err := e.value(val, depth+1); err != nil {
			return atIndex(at(err, "value"), "entries", i)
		}
		i++
	}
	e.fillCount(count, i)
	return nil
}

func (e *encoder) record(b []byte, depth int) error {
	// One pass when record_id (field 1) comes before the fields or not at
	// all, as every encoder writes it; otherwise start again in two passes.
	start := len(e.buf)
	traceStart := 0
	if e.trace != nil {
		traceStart = len(e.trace.Lines)
	}
	e.byte1(tagRecord, "Record Type Tag")
	var s seen
	var count countSlot
	opened := false // the optional id and the count slot are written
	n := 0
	r := reader{b}
	var g field
	for len(r.b) > 0 {
		tag, p, rest, ok := pbwire.LenField(r.b)
		if ok && tag == 0x12 && opened {
			// The common case, a field after the id: no general read.
			r.b = rest
			if label, val, ok := labelledField(p); ok {
				// A label and a value, as every encoder writes a field.
				e.some(true)
				if err := e.string(label); err != nil {
					return atIndex(at(err, "label"), "fields", n)
				}
				if err := e.value(val, depth+1); err != nil {
					return atIndex(at(err, "value"), "fields", n)
				}
			} else if err := e.recordField(p, depth); err != nil {
				return atIndex(err, "fields", n)
			}
			n++
			continue
		}
		if ok && tag == 0x0a && s == 0 && !opened {
			// The record id, first, as every encoder writes it.
			r.b, s = rest, 1<<1
			if err := e.optionalIdentifier(p, true); err != nil {
				return at(err, "record_id")
			}
			count, opened = e.reserveCount(), true
			continue
		}
		ok, err := r.read(&g)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch g.Num {
		case 1:
			id, err := s.bytesField(g, "record_id")
			if err != nil {
				return err
			}
			if opened {
				e.buf = e.buf[:start]
				if e.trace != nil {
					e.trace.Lines = e.trace.Lines[:traceStart]
				}
				return e.recordTwoPass(b, depth)
			}
			if err := e.optionalIdentifier(id, true); err != nil {
				return at(err, "record_id")
			}
			count, opened = e.reserveCount(), true
		case 2:
			if err := want(g, protowire.BytesType, "fields"); err != nil {
				return err
			}
			if !opened {
				e.some(false)
				count, opened = e.reserveCount(), true
			}
			if err := e.recordField(g.Bytes, depth); err != nil {
				return atIndex(err, "fields", n)
			}
			n++
		}
	}
	if !opened {
		e.some(false)
		count = e.reserveCount()
	}
	e.fillCount(count, n)
	return nil
}

// recordTwoPass encodes a record whose record_id comes after its fields.
func (e *encoder) recordTwoPass(b []byte, depth int) error {
	var s seen
	var id []byte
	hasID := false
	r := reader{b}
	var g field
	for {
		ok, err := r.read(&g)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if g.Num == 1 {
			if id, err = s.bytesField(g, "record_id"); err != nil {
				return err
			}
			hasID = true
		}
	}
	e.byte1(tagRecord, "Record Type Tag")
	if err := e.optionalIdentifier(id, hasID); err != nil {
		return at(err, "record_id")
	}
	count := e.reserveCount()
	r = reader{b}
	i := 0
	for {
		ok, _ := r.read(&g)
		if !ok {
			break
		}
		if g.Num != 2 {
			continue
		}
		if err := want(g, protowire.BytesType, "fields"); err != nil {
			return err
		}
		if err := e.recordField(g.Bytes, depth); err != nil {
			return atIndex(err, "fields", i)
		}
		i++
	}
	e.fillCount(count, i)
	return nil
}

func (e *encoder) recordField(b []byte, depth int) error {
	label, val, hasValue, err := splitRecordField(b)
	if err != nil {
		return err
	}
	if !hasValue {
		return errorf("record field %q has no value", clip(label))
	}
	// The participant treats an empty label as no label (docs/hashing.md §10 item 11).
	e.some(len(label) > 0)
	if len(label) > 0 {
		if err := e.string(label); err != nil {
			return at(err, "label")
		}
	}
	return at(e.value(val, depth+1), "value")
}

// labelledField splits a RecordField written as a non-empty label then a
// value, each with a length of one or two bytes; ok is false for any other
// shape, which recordField then reads.
func labelledField(b []byte) (label, val []byte, ok bool) {
	tag, l, rest, ok := pbwire.LenField(b)
	if !ok || tag != 0x0a || len(l) == 0 {
		return nil, nil, false
	}
	tag, v, rest, ok := pbwire.LenField(rest)
	if !ok || tag != 0x12 || len(rest) != 0 {
		return nil, nil, false
	}
	return l, v, true
}

// splitRecordField reads a RecordField: label (1) and value (2).
func splitRecordField(b []byte) (label, val []byte, hasValue bool, err error) {
	if tag, l, rest, ok := pbwire.LenField(b); ok {
		if tag == 0x0a {
			if tag, v, rest, ok := pbwire.LenField(rest); ok && tag == 0x12 && len(rest) == 0 {
				return l, v, true, nil
			}
		} else if tag == 0x12 && len(rest) == 0 {
			return nil, l, true, nil
		}
	}
	var s seen
	r := reader{b}
	var f field
	for {
		ok, err := r.read(&f)
		if err != nil {
			return nil, nil, false, err
		}
		if !ok {
			break
		}
		switch f.Num {
		case 1:
			if label, err = s.bytesField(f, "label"); err != nil {
				return nil, nil, false, err
			}
		case 2:
			if val, err = s.bytesField(f, "value"); err != nil {
				return nil, nil, false, err
			}
			hasValue = true
		}
	}
	return label, val, hasValue, nil
}

func (e *encoder) variant(b []byte, depth int) error {
	id, ctor, val, hasID, hasValue, err := splitVariant(b)
	if err != nil {
		return err
	}
	if len(ctor) == 0 {
		return errorf("constructor is empty")
	}
	if !hasValue {
		return errorf("variant %q has no value", clip(ctor))
	}
	e.byte1(tagVariant, "Variant Type Tag")
	if err := e.optionalIdentifier(id, hasID); err != nil {
		return at(err, "variant_id")
	}
	if err := e.string(ctor); err != nil {
		return at(err, "constructor")
	}
	return at(e.value(val, depth+1), "value")
}

// splitVariant reads a Variant: variant_id (1), constructor (2) and value (3).
func splitVariant(b []byte) (id, ctor, val []byte, hasID, hasValue bool, err error) {
	// Fast path: the fields in order, each once, with short lengths.
	rest := b
	tag, p, r, ok := pbwire.LenField(rest)
	if ok && tag == 0x0a {
		id, hasID, rest = p, true, r
		tag, p, r, ok = pbwire.LenField(rest)
	}
	if ok && tag == 0x12 {
		if tag, v, r, ok := pbwire.LenField(r); ok && tag == 0x1a && len(r) == 0 {
			return id, p, v, hasID, true, nil
		}
	}
	id, hasID = nil, false
	var s seen
	rd := reader{b}
	var g field
	for {
		ok, err := rd.read(&g)
		if err != nil {
			return nil, nil, nil, false, false, err
		}
		if !ok {
			break
		}
		switch g.Num {
		case 1:
			id, err = s.bytesField(g, "variant_id")
			hasID = true
		case 2:
			ctor, err = s.bytesField(g, "constructor")
		case 3:
			val, err = s.bytesField(g, "value")
			hasValue = true
		}
		if err != nil {
			return nil, nil, nil, false, false, err
		}
	}
	return id, ctor, val, hasID, hasValue, nil
}

func (e *encoder) enum(b []byte) error {
	var s seen
	var id, ctor []byte
	hasID := false
	// Fast path: enum_id then constructor, each once, with short lengths.
	rest := b
	tag, p, rest2, ok := pbwire.LenField(rest)
	if ok && tag == 0x0a {
		id, hasID, rest = p, true, rest2
		tag, p, rest2, ok = pbwire.LenField(rest)
	}
	r := reader{b}
	if ok && tag == 0x12 && len(rest2) == 0 {
		ctor, r.b = p, nil
	} else {
		id, hasID = nil, false
	}
	var g field
	for len(r.b) > 0 {
		ok, err := r.read(&g)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch g.Num {
		case 1:
			id, err = s.bytesField(g, "enum_id")
			hasID = true
		case 2:
			ctor, err = s.bytesField(g, "constructor")
		}
		if err != nil {
			return err
		}
	}
	if len(ctor) == 0 {
		return errorf("constructor is empty")
	}
	e.byte1(tagEnum, "Enum Type Tag")
	if err := e.optionalIdentifier(id, hasID); err != nil {
		return at(err, "enum_id")
	}
	return at(e.string(ctor), "constructor")
}

func (e *encoder) optionalIdentifier(b []byte, present bool) error {
	e.some(present)
	if present {
		return e.identifier(b)
	}
	return nil
}

// identifier writes string(package_id) ‖ module path ‖ entity path, each path
// as a list of its dot-separated segments.
func (e *encoder) identifier(b []byte) error {
	var slot *idSlot
	if e.ids != nil && len(b) >= 8 {
		tail := binary.LittleEndian.Uint64(b[len(b)-8:])
		slot = &e.recent[idSlotOf(tail, len(b))]
		if slot.tail == tail && bytes.Equal(b, slot.key) {
			i := e.extend(len(slot.enc))
			copy(e.buf[i:], slot.enc)
			return nil
		}
		if enc, ok := e.ids[string(b)]; ok {
			i := e.extend(len(enc))
			copy(e.buf[i:], enc)
			*slot = idSlot{tail, b, enc}
			return nil
		}
	} else if enc, ok := e.ids[string(b)]; ok {
		e.buf = append(e.buf, enc...)
		return nil
	}
	start := len(e.buf)
	if err := e.identifierUncached(b); err != nil {
		return err
	}
	if e.ids != nil && len(e.ids) < maxCachedIdentifiers {
		e.ids[string(b)] = append([]byte(nil), e.buf[start:]...)
	}
	return nil
}

// maxCachedIdentifiers bounds the identifier cache of one Compute call.
const maxCachedIdentifiers = 4096

func (e *encoder) identifierUncached(b []byte) error {
	var s seen
	var pkg, mod, ent []byte
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
			pkg, err = s.bytesField(f, "package_id")
		case 2:
			mod, err = s.bytesField(f, "module_name")
		case 3:
			ent, err = s.bytesField(f, "entity_name")
		}
		if err != nil {
			return err
		}
	}
	if len(pkg) == 0 {
		return errorf("package_id is empty")
	}
	if err := e.string(pkg); err != nil {
		return at(err, "package_id")
	}
	if err := e.dottedName(mod); err != nil {
		return at(err, "module_name")
	}
	return at(e.dottedName(ent), "entity_name")
}

func (e *encoder) dottedName(name []byte) error {
	if len(name) == 0 {
		return errorf("name is empty")
	}
	e.int32(uint32(bytes.Count(name, []byte{'.'}) + 1))
	full := name
	for {
		seg, rest, more := bytes.Cut(name, []byte{'.'})
		if len(seg) == 0 {
			return errorf("name %q has an empty segment", clip(full))
		}
		if err := e.string(seg); err != nil {
			return err
		}
		if !more {
			return nil
		}
		name = rest
	}
}

// formatMicros renders µs since the epoch for trace comments.
func formatMicros(us uint64) string {
	return time.UnixMicro(int64(us)).UTC().Format(time.RFC3339Nano) + " (" + strconv.FormatInt(int64(us), 10) + " µs)"
}
