package ledgerapi

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
)

// The active contract set and the update stream are read by the hundred
// thousand, like completions, and their elements nest even deeper custom
// decoders (the contract entry, the update oneof and its {"value":…},
// each event arm, every Int64 and Timestamp): DecodeActiveContract and
// DecodeUpdate read one element in a single pass with the completions'
// scanner, under the same rule: the node's own form only, and the general
// decoder on the whole input for anything else, so that results and errors
// are always those of json.Unmarshal. TestFastReadDecodersAgree holds them
// to it.

// DecodeActiveContract decodes one element of the active contract set (a
// websocket frame or a list element) as json.Unmarshal does.
func DecodeActiveContract(data []byte) (JsGetActiveContractsResponse, error) {
	var d StreamDecoder
	return d.ActiveContract(data)
}

// DecodeUpdate decodes one element of the update stream as json.Unmarshal
// does.
func DecodeUpdate(data []byte) (JsGetUpdatesResponse, error) {
	var d StreamDecoder
	return d.Update(data)
}

// StreamDecoder decodes the elements of one stream one after another,
// sharing the strings that repeat from element to element (synchronizer,
// template, package, the first party of a list). The zero value is ready;
// it is not safe for concurrent use.
type StreamDecoder struct {
	last [memoSlots]string
}

// ActiveContract is DecodeActiveContract.
func (d *StreamDecoder) ActiveContract(data []byte) (JsGetActiveContractsResponse, error) {
	var r JsGetActiveContractsResponse
	s := scanner{b: data, last: d.last}
	if s.activeContractResponse(&r) && s.end() {
		d.last = s.last
		return r, nil
	}
	r = JsGetActiveContractsResponse{}
	err := json.Unmarshal(data, &r)
	return r, err
}

// Update is DecodeUpdate.
func (d *StreamDecoder) Update(data []byte) (JsGetUpdatesResponse, error) {
	var r JsGetUpdatesResponse
	s := scanner{b: data, last: d.last}
	if s.updateResponse(&r) && s.end() {
		d.last = s.last
		return r, nil
	}
	r = JsGetUpdatesResponse{}
	err := json.Unmarshal(data, &r)
	return r, err
}

func (s *scanner) activeContractResponse(r *JsGetActiveContractsResponse) bool {
	s.ws()
	return s.object(func(k []byte) (int, bool) {
		switch string(k) {
		case "workflowId":
			return 0, s.optString(&r.WorkflowID)
		case "contractEntry":
			return 1, s.contractEntry(&r.ContractEntry)
		case "streamContinuationToken":
			return 2, s.optString(&r.StreamContinuationToken)
		}
		return 0, false
	})
}

func (s *scanner) contractEntry(e *JsContractEntry) bool {
	if s.peek() != '{' {
		return false
	}
	return s.oneof(func(k []byte) (int, bool) {
		if string(k) != "JsActiveContract" {
			return 0, false
		}
		ac := new(JsActiveContract)
		e.ActiveContract = ac
		return 0, s.object(func(k []byte) (int, bool) {
			switch string(k) {
			case "createdEvent":
				return 0, s.createdEvent(&ac.CreatedEvent)
			case "synchronizerId":
				return 1, s.sharedString(&ac.SynchronizerID, memoSynchronizer)
			case "reassignmentCounter":
				n, ok := s.integer(64)
				ac.ReassignmentCounter = Int64(n)
				return 2, ok
			}
			return 0, false
		})
	})
}

// raw reads any value into a RawMessage as encoding/json does: a copy of
// its bytes (null included). Values with escapes or non-ASCII bytes are
// validated as encoding/json would.
func (s *scanner) raw(dst *json.RawMessage) bool {
	start := s.i
	if !s.skip(0) {
		return false
	}
	v := s.b[start:s.i]
	if bytes.IndexByte(v, '\\') >= 0 || !ascii(v) {
		if !json.Valid(v) {
			return false
		}
	}
	*dst = append(json.RawMessage(nil), v...)
	return true
}

func ascii(b []byte) bool {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:])&highBits != 0 {
			return false
		}
	}
	for _, c := range b[i:] {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// bytesValue reads Base64 as Bytes does.
func (s *scanner) bytesValue(dst *Bytes) bool {
	if s.null() {
		*dst = nil
		return true
	}
	tok, plain, ok := s.stringToken()
	if !ok || !plain {
		return false
	}
	d, err := DecodeBase64(string(tok[1 : len(tok)-1]))
	*dst = d
	return err == nil
}

// optStringPtr reads a nullable string into a *string.
func (s *scanner) optStringPtr(dst **string) bool {
	if s.null() {
		*dst = nil
		return true
	}
	v, ok := s.str()
	*dst = &v
	return ok
}

func (s *scanner) createdEvent(e *CreatedEvent) bool {
	return s.object(func(k []byte) (int, bool) {
		switch string(k) {
		case "offset":
			n, ok := s.integer(64)
			e.Offset = Int64(n)
			return 0, ok
		case "nodeId":
			n, ok := s.integer(32)
			e.NodeID = Int32(n)
			return 1, ok
		case "contractId":
			return 2, s.optString(&e.ContractID)
		case "templateId":
			return 3, s.sharedString(&e.TemplateID, memoTemplate)
		case "contractKey":
			return 4, s.raw(&e.ContractKey)
		case "contractKeyHash":
			return 5, s.bytesValue(&e.ContractKeyHash)
		case "createArgument":
			return 6, s.raw(&e.CreateArgument)
		case "createdEventBlob":
			return 7, s.bytesValue(&e.CreatedEventBlob)
		case "interfaceViews":
			return 8, s.emptyList(func() { e.InterfaceViews = List[InterfaceView]{} }, func() { e.InterfaceViews = nil })
		case "witnessParties":
			return 9, s.stringList(&e.WitnessParties)
		case "signatories":
			return 10, s.stringList(&e.Signatories)
		case "observers":
			return 11, s.stringList(&e.Observers)
		case "createdAt":
			return 12, s.timestamp(&e.CreatedAt)
		case "packageName":
			return 13, s.sharedString(&e.PackageName, memoPackage)
		case "representativePackageId":
			return 14, s.sharedString(&e.RepresentativePackageID, memoRepresentative)
		case "acsDelta":
			return 15, s.boolean(&e.ACSDelta)
		}
		return 0, false
	})
}

// emptyList reads [] (calling empty) or null (calling null); any other list
// is left to the general decoder.
func (s *scanner) emptyList(empty, null func()) bool {
	if s.null() {
		null()
		return true
	}
	if !s.consume('[') {
		return false
	}
	s.ws()
	if !s.consume(']') {
		return false
	}
	empty()
	return true
}

func (s *scanner) boolean(dst *bool) bool {
	switch {
	case s.literal("true"):
		*dst = true
	case s.literal("false"):
		*dst = false
	case s.null():
	default:
		return false
	}
	return true
}

func (s *scanner) archivedEvent(e *ArchivedEvent) bool {
	return s.object(func(k []byte) (int, bool) {
		switch string(k) {
		case "offset":
			n, ok := s.integer(64)
			e.Offset = Int64(n)
			return 0, ok
		case "nodeId":
			n, ok := s.integer(32)
			e.NodeID = Int32(n)
			return 1, ok
		case "contractId":
			return 2, s.optString(&e.ContractID)
		case "templateId":
			return 3, s.sharedString(&e.TemplateID, memoTemplate)
		case "witnessParties":
			return 4, s.stringList(&e.WitnessParties)
		case "packageName":
			return 5, s.sharedString(&e.PackageName, memoPackage)
		case "implementedInterfaces":
			return 6, s.stringList(&e.ImplementedInterfaces)
		}
		return 0, false
	})
}

func (s *scanner) exercisedEvent(e *ExercisedEvent) bool {
	return s.object(func(k []byte) (int, bool) {
		switch string(k) {
		case "offset":
			n, ok := s.integer(64)
			e.Offset = Int64(n)
			return 0, ok
		case "nodeId":
			n, ok := s.integer(32)
			e.NodeID = Int32(n)
			return 1, ok
		case "contractId":
			return 2, s.optString(&e.ContractID)
		case "templateId":
			return 3, s.sharedString(&e.TemplateID, memoTemplate)
		case "interfaceId":
			return 4, s.optStringPtr(&e.InterfaceID)
		case "choice":
			return 5, s.optString(&e.Choice)
		case "choiceArgument":
			return 6, s.raw(&e.ChoiceArgument)
		case "actingParties":
			return 7, s.stringList(&e.ActingParties)
		case "consuming":
			return 8, s.boolean(&e.Consuming)
		case "witnessParties":
			return 9, s.stringList(&e.WitnessParties)
		case "lastDescendantNodeId":
			n, ok := s.integer(32)
			e.LastDescendantNodeID = Int32(n)
			return 10, ok
		case "exerciseResult":
			return 11, s.raw(&e.ExerciseResult)
		case "packageName":
			return 12, s.sharedString(&e.PackageName, memoPackage)
		case "implementedInterfaces":
			return 13, s.stringList(&e.ImplementedInterfaces)
		case "acsDelta":
			return 14, s.boolean(&e.ACSDelta)
		}
		return 0, false
	})
}

// event reads one Event arm (no "value" wrapper).
func (s *scanner) event(ev *Event) bool {
	if s.peek() != '{' {
		return false
	}
	n, ok := s.countedObject(func(k []byte) (int, bool) {
		if s.peek() != '{' {
			return 0, false
		}
		switch string(k) {
		case "CreatedEvent":
			ev.Created = new(CreatedEvent)
			return 0, s.createdEvent(ev.Created)
		case "ArchivedEvent":
			ev.Archived = new(ArchivedEvent)
			return 1, s.archivedEvent(ev.Archived)
		case "ExercisedEvent":
			ev.Exercised = new(ExercisedEvent)
			return 2, s.exercisedEvent(ev.Exercised)
		}
		return 0, false
	})
	return ok && n == 1
}

func (s *scanner) events(dst *List[Event]) bool {
	return array(s, dst, (*scanner).event)
}

// array reads a JSON array (or null, leaving dst nil) whose elements elem
// reads; an empty array is an empty, non-nil list, as encoding/json makes.
func array[T any](s *scanner, dst *List[T], elem func(*scanner, *T) bool) bool {
	if s.null() {
		*dst = nil
		return true
	}
	if !s.consume('[') {
		return false
	}
	out := List[T]{}
	s.ws()
	if s.consume(']') {
		*dst = out
		return true
	}
	for {
		s.ws()
		var v T
		if !elem(s, &v) {
			return false
		}
		out = append(out, v)
		s.ws()
		if s.consume(']') {
			*dst = out
			return true
		}
		if !s.consume(',') {
			return false
		}
	}
}

func (s *scanner) transaction(t *Transaction) bool {
	var trace TraceContext
	var parent string
	return s.object(func(k []byte) (int, bool) {
		switch string(k) {
		case "updateId":
			return 0, s.optString(&t.UpdateID)
		case "commandId":
			return 1, s.optString(&t.CommandID)
		case "workflowId":
			return 2, s.optString(&t.WorkflowID)
		case "effectiveAt":
			return 3, s.timestamp(&t.EffectiveAt)
		case "events":
			return 4, s.events(&t.Events)
		case "offset":
			n, ok := s.integer(64)
			t.Offset = Int64(n)
			return 5, ok
		case "synchronizerId":
			return 6, s.sharedString(&t.SynchronizerID, memoSynchronizer)
		case "traceContext":
			return 7, s.traceContext(&t.TraceContext, &trace, &parent)
		case "recordTime":
			return 8, s.timestamp(&t.RecordTime)
		case "externalTransactionHash":
			return 9, s.optStringPtr(&t.ExternalTransactionHash)
		case "paidTrafficCost":
			n, ok := s.integer(64)
			t.PaidTrafficCost = Int64(n)
			return 10, ok
		}
		return 0, false
	})
}

func (s *scanner) updateResponse(r *JsGetUpdatesResponse) bool {
	s.ws()
	return s.object(func(k []byte) (int, bool) {
		if string(k) != "update" || s.peek() != '{' {
			return 0, false
		}
		return 0, s.oneof(func(k []byte) (int, bool) {
			switch string(k) {
			case "Transaction":
				t := new(Transaction)
				r.Update.Transaction = t
				return 0, s.valueObject(func() bool { return s.transaction(t) })
			case "OffsetCheckpoint":
				cp := new(OffsetCheckpoint)
				r.Update.OffsetCheckpoint = cp
				return 1, s.valueObject(func() bool { return s.offsetCheckpoint(cp) })
			}
			return 0, false
		})
	})
}
