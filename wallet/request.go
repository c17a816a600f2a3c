package wallet

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ledger-cli/ledger/display/format"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/wallet/review"
)

// requestWarnings compares the prepare request an envelope recorded with
// the transaction it carries. The request is not signed, and the node may
// have prepared something else; a signer who reads "transfer 10 to Bob" in
// the request must not sign a transaction that pays 100 to Eve without
// being told. Each difference is one warning that shows both sides.
func requestWarnings(env *Envelope, r *review.Review) []string {
	if env.Info == nil || len(env.Info.PrepareRequest) == 0 {
		return nil
	}
	var req ledgerapi.PrepareSubmissionRequest
	if err := json.Unmarshal(env.Info.PrepareRequest, &req); err != nil {
		return []string{"the prepare request recorded in the envelope does not decode (" + err.Error() + "): it cannot be compared with the transaction"}
	}
	var w []string
	differs := func(what, requested, prepared string) {
		w = append(w, fmt.Sprintf("the envelope's prepare request differs from the transaction in %s: requested %s, prepared %s",
			what, format.Escape(requested), format.Escape(prepared)))
	}
	if want, got := sortedSet(req.ActAs), sortedSet(r.Submitter.ActAs); !slices.Equal(want, got) {
		differs("act_as", strings.Join(want, ", "), strings.Join(got, ", "))
	}
	if req.CommandID != "" && req.CommandID != r.Submitter.CommandID {
		differs("the command id", req.CommandID, r.Submitter.CommandID)
	}
	if len(req.Commands) != 1 {
		return w // Canton prepares exactly one command; nothing to pair
	}
	c := req.Commands[0]
	root := func(i int) *review.Node {
		if i < len(r.Nodes) {
			return r.Nodes[i]
		}
		return nil
	}
	switch {
	case c.Create != nil:
		w = append(w, compareNode("the create", root(0), review.KindCreate, c.Create.TemplateID, "", "", c.Create.CreateArguments)...)
	case c.Exercise != nil:
		w = append(w, compareNode("the exercise", root(0), review.KindExercise, c.Exercise.TemplateID, c.Exercise.ContractID, c.Exercise.Choice, c.Exercise.ChoiceArgument)...)
	case c.ExerciseByKey != nil:
		w = append(w, compareNode("the exercise by key", root(0), review.KindExercise, c.ExerciseByKey.TemplateID, "", c.ExerciseByKey.Choice, c.ExerciseByKey.ChoiceArgument)...)
	case c.CreateAndExercise != nil:
		ce := c.CreateAndExercise
		w = append(w, compareNode("the create", root(0), review.KindCreate, ce.TemplateID, "", "", ce.CreateArguments)...)
		cid := ""
		if n := root(0); n != nil {
			cid = n.ContractID
		}
		w = append(w, compareNode("the exercise", root(1), review.KindExercise, ce.TemplateID, cid, ce.Choice, ce.ChoiceArgument)...)
	}
	return w
}

// compareNode compares one requested command with the root node that
// should carry it. Empty contractID or choice are not compared.
func compareNode(what string, n *review.Node, kind, templateID, contractID, choice string, arg json.RawMessage) []string {
	if n == nil || n.Kind != kind {
		got := "nothing"
		if n != nil {
			got = "a " + n.Kind + " node"
			if strings.IndexByte("aeiou", n.Kind[0]) >= 0 {
				got = "an " + n.Kind + " node"
			}
		}
		return []string{fmt.Sprintf("the envelope's prepare request asks for %s of %s, but the transaction has %s there", what, format.Escape(templateID), got)}
	}
	var w []string
	differs := func(field, requested, prepared string) {
		w = append(w, fmt.Sprintf("the envelope's prepare request differs from the transaction in %s's %s: requested %s, prepared %s",
			what, field, format.Escape(requested), format.Escape(prepared)))
	}
	if !templateMatches(templateID, n.Template, n.PackageName) && !interfaceMatches(templateID, n.Interface) {
		differs("template", templateID, nodeTemplate(n))
	}
	if contractID != "" && contractID != n.ContractID {
		differs("contract id", contractID, n.ContractID)
	}
	if choice != "" && choice != n.Choice {
		differs("choice", choice, n.Choice)
	}
	if len(arg) > 0 && n.Argument != nil {
		if path, ok := sameValue(arg, n.Argument, "argument"); !ok {
			differs(path, compactJSON(arg), describeValue(n.Argument))
		}
	}
	return w
}

// interfaceMatches says whether a requested template id names the interface
// an exercise or fetch goes through. The transaction names the interface by
// package id only (package_name is the template's), so a package-name
// reference ("#splice-api-token-holding-v1:…:Holding") is matched by its
// module and entity, a package-id reference by all three.
func interfaceMatches(templateID string, iface *review.Identifier) bool {
	if iface == nil {
		return false
	}
	if strings.HasPrefix(templateID, "#") {
		_, rest, ok := strings.Cut(templateID, ":")
		return ok && rest == qualified(iface)
	}
	return templateMatches(templateID, iface, "")
}

func nodeTemplate(n *review.Node) string {
	if n.Template == nil {
		return "(none)"
	}
	return "#" + n.PackageName + ":" + n.Template.Name
}

// sameValue reports whether the JSON of a command argument (Daml-LF JSON,
// as the JSON API reads it) denotes value v. Representation does not count
// ("1.5" and 1.50 are the same numeric, an absent trailing optional is
// None); only meaning does. path names the first place they part.
func sameValue(raw json.RawMessage, v *review.Value, path string) (string, bool) {
	var j any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&j); err != nil {
		return path, false
	}
	return same(j, v, path, 0)
}

func same(j any, v *review.Value, path string, depth int) (string, bool) {
	if depth > review.MaxValueNesting {
		return path, false
	}
	switch v.Kind {
	case review.ValueUnit:
		m, ok := j.(map[string]any)
		return path, ok && len(m) == 0
	case review.ValueBool:
		b, ok := j.(bool)
		return path, ok && strconv.FormatBool(b) == v.Scalar()
	case review.ValueInt64, review.ValueNumeric:
		return path, sameNumber(j, v.Scalar())
	case review.ValueText, review.ValueParty, review.ValueContractID, review.ValueDate:
		s, ok := j.(string)
		return path, ok && s == v.Scalar()
	case review.ValueTimestamp:
		s, ok := j.(string)
		if !ok {
			return path, false
		}
		a, err1 := time.Parse(time.RFC3339Nano, s)
		b, err2 := time.Parse(time.RFC3339Nano, v.Scalar())
		return path, err1 == nil && err2 == nil && a.Equal(b)
	case review.ValueEnum:
		s, ok := j.(string)
		return path, ok && s == v.Constructor
	case review.ValueOptional:
		if v.Inner == nil {
			if j == nil {
				return path, true
			}
			return path, false
		}
		if j == nil {
			return path, false
		}
		if v.Inner.Kind == review.ValueOptional { // nested: Some(x) is [x]
			a, ok := j.([]any)
			if !ok {
				return path, false
			}
			if v.Inner.Inner == nil {
				return path, len(a) == 0
			}
			if len(a) != 1 {
				return path, false
			}
			return same(a[0], v.Inner, path, depth+1)
		}
		return same(j, v.Inner, path, depth+1)
	case review.ValueList:
		a, ok := j.([]any)
		if !ok || len(a) != len(v.Elements) {
			return path, false
		}
		for i, e := range v.Elements {
			if p, ok := same(a[i], e, fmt.Sprintf("%s[%d]", path, i), depth+1); !ok {
				return p, false
			}
		}
		return path, true
	case review.ValueTextMap:
		m, ok := j.(map[string]any)
		if !ok || len(m) != len(v.Entries) {
			return path, false
		}
		for _, e := range v.Entries {
			x, ok := m[e.Key.Scalar()]
			if !ok {
				return path, false
			}
			if p, ok := same(x, e.Value, fmt.Sprintf("%s[%q]", path, e.Key.Scalar()), depth+1); !ok {
				return p, false
			}
		}
		return path, true
	case review.ValueGenMap:
		a, ok := j.([]any)
		if !ok || len(a) != len(v.Entries) {
			return path, false
		}
		for i, e := range v.Entries {
			kv, ok := a[i].([]any)
			if !ok || len(kv) != 2 {
				return path, false
			}
			p := fmt.Sprintf("%s entry %d", path, i)
			if p, ok := same(kv[0], e.Key, p, depth+1); !ok {
				return p, false
			}
			if p, ok := same(kv[1], e.Value, p, depth+1); !ok {
				return p, false
			}
		}
		return path, true
	case review.ValueVariant:
		m, ok := j.(map[string]any)
		if !ok || m["tag"] != v.Constructor {
			return path, false
		}
		inner, has := m["value"]
		if !has {
			inner = map[string]any{} // a unit payload may be left out
		}
		return same(inner, v.Inner, path+"."+v.Constructor, depth+1)
	case review.ValueRecord:
		return sameRecord(j, v, path, depth)
	}
	return path, false
}

// sameRecord matches fields by label; an absent field must be a None
// optional (the JSON API lets trailing optionals be left out). A record
// whose labels the node left out cannot be matched by name and is not
// compared.
func sameRecord(j any, v *review.Value, path string, depth int) (string, bool) {
	m, ok := j.(map[string]any)
	if !ok {
		return path, false
	}
	seen := 0
	for _, f := range v.Fields {
		if f.Label == "" {
			return path, true
		}
		p := path + "." + f.Label
		x, present := m[f.Label]
		if !present {
			if f.Value.Kind == review.ValueOptional && f.Value.Inner == nil {
				continue
			}
			return p, false
		}
		seen++
		if p, ok := same(x, f.Value, p, depth+1); !ok {
			return p, false
		}
	}
	if seen != len(m) {
		return path, false // the request names a field the value lacks
	}
	return path, true
}

// sameNumber compares a JSON number or numeric string with a decimal.
func sameNumber(j any, want string) bool {
	var s string
	switch x := j.(type) {
	case json.Number:
		s = x.String()
	case string:
		s = x
	default:
		return false
	}
	a, ok1 := new(big.Rat).SetString(s)
	b, ok2 := new(big.Rat).SetString(want)
	return ok1 && ok2 && a.Cmp(b) == 0
}

func sortedSet(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return slices.Compact(out)
}

func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return shorten(b.String())
}

// describeValue writes a review value compactly, for a warning.
func describeValue(v *review.Value) string { return shorten(v.Compact()) }

func shorten(s string) string {
	const max = 200
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
