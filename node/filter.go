package node

import (
	"strings"

	"github.com/ledger-cli/ledger/node/engine"
)

// TemplateSet is the template part of one party's filter (a Filters of an
// eventFormat): every template (wildcard) or the listed ones, and whether
// created events carry their blob.
type TemplateSet struct {
	Wildcard     bool
	WildcardBlob bool
	// Templates holds template ids as the request gave them, in package id
	// form "pkg:Module:Entity" or package name form "#name:Module:Entity";
	// the value says whether to include the created event blob.
	Templates map[string]bool
}

// matches reports whether the set holds the template; blob whether its
// created events carry their blob.
func (t *TemplateSet) matches(templateID, packageName string) (ok, blob bool) {
	if t == nil {
		return false, false
	}
	if t.Wildcard {
		ok, blob = true, t.WildcardBlob
	}
	if len(t.Templates) == 0 {
		return ok, blob
	}
	if b, hit := t.Templates[templateID]; hit {
		return true, blob || b
	}
	if _, qualified, found := strings.Cut(templateID, ":"); found {
		if b, hit := t.Templates["#"+packageName+":"+qualified]; hit {
			return true, blob || b
		}
	}
	return ok, blob
}

// EventFilter is an eventFormat as the node applies it: per party, and for
// any party, which templates are read. The caller has checked the parties'
// form and the reader's rights.
type EventFilter struct {
	ByParty  map[string]*TemplateSet
	AnyParty *TemplateSet // nil unless filtersForAnyParty was given
	Verbose  bool
}

// WildcardFilter reads every template of parties.
func WildcardFilter(parties ...string) *EventFilter {
	f := &EventFilter{ByParty: map[string]*TemplateSet{}}
	for _, p := range parties {
		f.ByParty[p] = &TemplateSet{Wildcard: true}
	}
	return f
}

// Match is the filter for the engine's event views.
func (f *EventFilter) Match() engine.Match {
	return func(party, templateID, packageName string) bool {
		ok, _ := f.matches(party, templateID, packageName)
		return ok
	}
}

func (f *EventFilter) matches(party, templateID, packageName string) (ok, blob bool) {
	if f.AnyParty != nil {
		ok, blob = f.AnyParty.matches(templateID, packageName)
	}
	if t := f.ByParty[party]; t != nil {
		o, b := t.matches(templateID, packageName)
		ok, blob = ok || o, blob || b
	}
	return ok, blob
}

// byTemplate reports whether what the filter reads depends on the
// template: some party's set is not a plain wildcard.
func (f *EventFilter) byTemplate() bool {
	plain := func(t *TemplateSet) bool { return t == nil || t.Wildcard && len(t.Templates) == 0 }
	if !plain(f.AnyParty) {
		return true
	}
	for _, t := range f.ByParty {
		if !plain(t) {
			return true
		}
	}
	return false
}

// readsAny reports whether the filter reads as any party.
func (f *EventFilter) readsAny() bool { return f.AnyParty != nil }

// sees reports whether the reader is one of parties (any party does): a
// reader who submitted a transaction sees its command id.
func (f *EventFilter) sees(parties []string) bool {
	if f.readsAny() {
		return true
	}
	for _, p := range parties {
		if f.ByParty[p] != nil {
			return true
		}
	}
	return false
}

// templatePushdown returns the template ids a store query may be limited to:
// every id in package id form when no filter is a wildcard and none names a
// package by name; otherwise nil (read all, match here).
func (f *EventFilter) templatePushdown() []string {
	set := map[string]bool{}
	add := func(t *TemplateSet) bool {
		if t == nil {
			return true
		}
		if t.Wildcard || len(t.Templates) == 0 {
			return false
		}
		for id := range t.Templates {
			if strings.HasPrefix(id, "#") {
				return false
			}
			set[id] = true
		}
		return true
	}
	if !add(f.AnyParty) {
		return nil
	}
	for _, t := range f.ByParty {
		if !add(t) {
			return nil
		}
	}
	out := make([]string, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	return out
}
