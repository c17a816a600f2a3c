package cmdutil

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// A party id is hint::namespace. A flag value without "::" is a hint, and
// the CLI takes it for the one party the node knows with that hint, so that
// `--act-as alice` works where `--act-as alice::1220…` is meant. A full
// party id is sent as given, never looked up.

// The bounds of a hint look-up: parties read per page, and pages read, to
// find the parties of one hint (a node that ignores filter-party lists them
// all) or candidates for a hint no party has.
const (
	hintPageSize = 200
	maxHintPages = 25
	maxCandidate = 10
)

// IsPartyHint reports whether a party flag value is a hint rather than a
// party id: it has no "::".
func IsPartyHint(s string) bool { return !strings.Contains(s, "::") }

// ResolvePartyHints returns parties with each hint replaced by the id of
// the one party the node knows with that hint, noting each replacement on
// w ("--act-as alice is alice::1220…"). A hint no party has, or that
// several have, is a usage error listing the candidates. Values with "::"
// pass through untouched, and without any hint the node is not asked.
func ResolvePartyHints(ctx context.Context, cl *client.Client, flag string, parties []string, w io.Writer) ([]string, error) {
	var out []string
	for i, p := range parties {
		if !IsPartyHint(p) {
			continue
		}
		if out == nil {
			out = append([]string(nil), parties...)
		}
		if err := ledgerapi.ValidatePartyHint(flag, p); err != nil {
			return nil, UsageError("%s %q: %s", flag, p, err)
		}
		id, err := resolvePartyHint(ctx, cl, flag, p)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(w, "%s %s is %s\n", flag, p, id)
		out[i] = id
	}
	if out == nil {
		return parties, nil
	}
	return out, nil
}

func resolvePartyHint(ctx context.Context, cl *client.Client, flag, hint string) (string, error) {
	matches, cut, err := listParties(ctx, cl, hint+"::", func(p ledgerapi.PartyDetails) bool {
		return strings.HasPrefix(p.Party, hint+"::")
	})
	if err != nil {
		return "", UsageError("%s %q is a party hint, and the node's parties could not be read to find its party id (%s): give the full party id (hint::namespace)", flag, hint, WithHint(err))
	}
	switch {
	case len(matches) == 1:
		return matches[0], nil
	case len(matches) == 0 && cut:
		return "", UsageError("%s %q: no party with the hint %s among the first %d parties the node lists (it does not filter them by hint): give the full party id", flag, hint, hint, maxHintPages*hintPageSize)
	case len(matches) == 0:
		// Candidates: parties whose hint has this one in it, whatever the
		// case; else any parties the node has.
		lower := strings.ToLower(hint)
		similar, _, err := listParties(ctx, cl, "", func(p ledgerapi.PartyDetails) bool {
			h, _, _ := strings.Cut(p.Party, "::")
			return strings.Contains(strings.ToLower(h), lower)
		})
		what := "parties with a similar hint"
		if err == nil && len(similar) == 0 {
			what = "parties the node knows"
			similar, _, err = listParties(ctx, cl, "", func(ledgerapi.PartyDetails) bool { return true })
		}
		msg := fmt.Sprintf("%s %q: no party the node knows has the hint %s", flag, hint, hint)
		if err == nil && len(similar) > 0 {
			msg += "; " + what + ": " + candidates(similar)
		}
		return "", UsageError("%s (give a full party id, or allocate one: ledger parties allocate %s)", msg, hint)
	}
	return "", UsageError("%s %q: %d parties have the hint %s: %s; give the full party id", flag, hint, len(matches), hint, candidates(matches))
}

// listParties reads the node's parties whose id starts with prefix, within
// the look-up's bounds, and returns the ids keep keeps, at most
// maxCandidate+1 of them (enough to tell one from several); cut says the
// node had more pages than the bounds read.
func listParties(ctx context.Context, cl *client.Client, prefix string, keep func(ledgerapi.PartyDetails) bool) (ids []string, cut bool, err error) {
	o := client.ListPartiesOptions{FilterParty: prefix, PageSize: hintPageSize}
	for range maxHintPages {
		page, err := cl.ListParties(ctx, o)
		if err != nil {
			return nil, false, err
		}
		for _, p := range page.PartyDetails {
			if keep(p) {
				ids = append(ids, p.Party)
				if len(ids) > maxCandidate {
					return ids, false, nil
				}
			}
		}
		if page.NextPageToken == "" || page.NextPageToken == o.PageToken {
			return ids, false, nil
		}
		o.PageToken = page.NextPageToken
	}
	return ids, true, nil
}

// candidates lists party ids, the first maxCandidate of them.
func candidates(ids []string) string {
	if len(ids) > maxCandidate {
		return strings.Join(ids[:maxCandidate], ", ") + ", …"
	}
	return strings.Join(ids, ", ")
}

// ResolvePartyHints is ResolvePartyHints on c's client, within c's
// timeout.
func (c *Connection) ResolvePartyHints(flag string, parties []string, w io.Writer) ([]string, error) {
	ctx, cancel := c.Context()
	defer cancel()
	return ResolvePartyHints(ctx, c.Client, flag, parties, w)
}
