package review

import (
	"github.com/ledger-cli/ledger/display/format"
)

// Names shortens party, contract and package ids for text output, keeping
// every short form unique within one review: when two ids would look the
// same, both get longer until they differ. The summary sentence and every
// rendering of a review use the same Names, so an id reads the same
// everywhere.
type Names struct {
	full  bool
	short map[string]string
}

// Shortening: a contract id keeps its first 6 and last 4 hex digits
// ("0007e7…21c5"); a party keeps its hint, the multihash prefix with 4 more
// digits and the last 4 ("alice::1220a1a2…bebf"); a package id keeps 8 and 4.
const (
	contractHead, contractTail = 6, 4
	PartyHead, PartyTail       = 8, 4
	packageHead, packageTail   = 8, 4
)

func NewNames(r *Review, full bool) *Names {
	n := &Names{full: full, short: map[string]string{}}
	if full {
		return n
	}
	parties, contracts := map[string]bool{}, map[string]bool{}
	Walk(r, func(p string) { parties[p] = true }, func(c string) { contracts[c] = true })
	n.assign(parties, PartyHead, PartyTail, format.ShortParty)
	n.assign(contracts, contractHead, contractTail, format.ShortHex)
	return n
}

// assign picks short forms for ids, widening both ends until no two ids of
// the set share one.
func (n *Names) assign(ids map[string]bool, head, tail int, shorten func(string, int, int) string) {
	pending := ids
	for len(pending) > 0 {
		byShort := map[string][]string{}
		for id := range pending {
			s := shorten(id, head, tail)
			byShort[s] = append(byShort[s], id)
		}
		next := map[string]bool{}
		for s, group := range byShort {
			if len(group) == 1 {
				n.short[group[0]] = s
				continue
			}
			for _, id := range group {
				next[id] = true
			}
		}
		pending = next
		head, tail = head+2, tail+2
	}
}

// Full reports whether ids are printed in full.
func (n *Names) Full() bool { return n.full }

// Party, Contract, Package and Parties return the short forms, escaped.
func (n *Names) Party(p string) string    { return n.id(p) }
func (n *Names) Contract(c string) string { return n.id(c) }

func (n *Names) id(s string) string {
	if short, ok := n.short[s]; ok && !n.full {
		return format.Escape(short)
	}
	return format.Escape(s)
}

func (n *Names) Package(id string) string {
	if n.full {
		return format.Escape(id)
	}
	return format.Escape(format.ShortHex(id, packageHead, packageTail))
}

func (n *Names) Parties(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = n.Party(p)
	}
	return out
}
