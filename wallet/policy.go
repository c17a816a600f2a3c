package wallet

import (
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/wallet/review"
)

// Policy restricts what a signer will sign: the templates a
// transaction may touch, the choices it may exercise, the parties it may
// name, the synchronizers it may go to, the hashing schemes its signature
// may be computed with, and how little time may be left to execute it. A
// policy file is JSON (or YAML):
//
//	{
//	  "templates": ["Iou:Iou", "#iou-pkg:Iou:IouTransfer", "9f1c…:Iou:Iou"],
//	  "choices":   ["Iou_Transfer", "Iou:Iou:Iou_Split"],
//	  "parties":   ["Alice::1220…", "Bob::1220…"],
//	  "synchronizers": ["global-domain::1220…"],
//	  "hashingSchemes": ["V3"],
//	  "minTimeLeft": "10m",
//	  "maxAmounts": {"Amulet": "1000.0", "USDx@registry::1220…": "250"},
//	  "requireReinterpretation": true
//	}
//
// minTimeLeft (a Go duration) refuses a transaction whose earliest deadline
// (review.Times.SignWithin) or whose Canton Coin mining round's closing
// comes sooner: time for the signed transaction to travel back from the
// offline machine and be executed. hashingSchemes takes V2, V3 or the enum
// names (HASHING_SCHEME_VERSION_V3), as hashing.ParseScheme reads them; it
// checks the scheme the hash was recomputed with. maxAmounts bounds the amount of each token-standard
// transfer (an exercise of TransferFactory_Transfer, the amount and
// instrument of its transfer argument) per instrument id, "ID" for any
// admin or "ID@ADMIN" for one; a transfer of an instrument it does not list
// is refused too. requireReinterpretation refuses to sign unless the
// transaction's Daml code was re-run here (packages in the envelope or
// given as DARs) and made exactly this transaction.
//
// A template entry "Module:Entity" matches that entity in any package,
// "#name:Module:Entity" only in the package of that name, and
// "pkgid:Module:Entity" only in that package. A choice entry is a choice name,
// or "Module:Entity:Choice" to tie it to a template. Every party the
// transaction names — act_as, signatories, stakeholders, acting parties,
// choice observers, key maintainers — must be listed. An absent or empty list
// does not restrict. Input contracts are checked too: a transaction that
// fetches or exercises a contract of a template outside the policy is refused.
type Policy struct {
	Templates      []string          `json:"templates" yaml:"templates"`
	Choices        []string          `json:"choices" yaml:"choices"`
	Parties        []string          `json:"parties" yaml:"parties"`
	Synchronizers  []string          `json:"synchronizers" yaml:"synchronizers"`
	HashingSchemes []string          `json:"hashingSchemes" yaml:"hashingSchemes"`
	MinTimeLeft    string            `json:"minTimeLeft" yaml:"minTimeLeft"`
	MaxAmounts     map[string]string `json:"maxAmounts" yaml:"maxAmounts"`
	// RequireReinterpretation makes the Daml packages mandatory: no
	// signature without re-running the code.
	RequireReinterpretation bool `json:"requireReinterpretation" yaml:"requireReinterpretation"`
}

// LoadPolicy reads a policy file; unknown keys are refused so that a misspelt
// restriction cannot silently allow everything.
func LoadPolicy(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p Policy
	trimmed := strings.TrimSpace(string(data))
	if strings.HasPrefix(trimmed, "{") {
		dec := json.NewDecoder(strings.NewReader(trimmed))
		dec.DisallowUnknownFields()
		err = dec.Decode(&p)
	} else {
		dec := yaml.NewDecoder(strings.NewReader(trimmed))
		dec.KnownFields(true)
		err = dec.Decode(&p)
	}
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w (want keys templates, choices, parties, synchronizers, hashingSchemes, minTimeLeft, maxAmounts, requireReinterpretation)", path, err)
	}
	if p.MinTimeLeft != "" {
		if d, err := time.ParseDuration(p.MinTimeLeft); err != nil || d < 0 {
			return nil, fmt.Errorf("policy %s: minTimeLeft %q: want a duration such as 10m or 1h30m", path, p.MinTimeLeft)
		}
	}
	for id, a := range p.MaxAmounts {
		if _, ok := new(big.Rat).SetString(a); !ok || strings.ContainsAny(a, "/eE") {
			return nil, fmt.Errorf("policy %s: maxAmounts[%q]: %q is not a decimal amount", path, id, a)
		}
	}
	for _, h := range p.HashingSchemes {
		if _, err := hashing.ParseScheme(h); err != nil {
			return nil, fmt.Errorf("policy %s: hashingSchemes: %q is not a scheme (want V2 or V3): %w", path, h, err)
		}
	}
	for _, t := range p.Templates {
		if strings.Count(strings.TrimPrefix(t, "#"), ":") < 1 {
			return nil, fmt.Errorf("policy %s: template %q: want Module:Entity, #package-name:Module:Entity or packageId:Module:Entity", path, t)
		}
	}
	return &p, nil
}

// Check returns every violation of the policy by the reviewed transaction,
// or nil when it complies. It reads the same review the signer is shown, so
// what is checked is what is seen; nodes no root reaches are checked too.
func (p *Policy) Check(r *review.Review) []string {
	c := checker{p: p, seen: map[string]bool{}}
	for _, party := range r.Submitter.ActAs {
		c.party(party, "act_as")
	}
	for _, in := range r.InputContracts {
		c.template(in.Template, in.PackageName, "input contract "+in.ContractID)
	}
	var walk func(nodes []*review.Node)
	walk = func(nodes []*review.Node) {
		for _, n := range nodes {
			c.node(n)
			walk(n.Children)
		}
	}
	walk(r.Nodes)
	walk(r.Unreachable)
	c.submission(r)
	sort.Strings(c.violations)
	return c.violations
}

// submission checks where and how the transaction is submitted: its
// synchronizer, the scheme of its hash, the time left to execute it.
func (c *checker) submission(r *review.Review) {
	if len(c.p.Synchronizers) > 0 && !slices.Contains(c.p.Synchronizers, r.SynchronizerID) {
		c.add(fmt.Sprintf("the transaction goes to synchronizer %s, which the policy does not list", r.SynchronizerID))
	}
	if len(c.p.HashingSchemes) > 0 {
		scheme := ""
		if r.Hash != nil {
			scheme = r.Hash.Scheme
		}
		allowed := func(h string) bool {
			v, err := hashing.ParseScheme(h)
			return err == nil && v.String() == scheme
		}
		if !slices.ContainsFunc(c.p.HashingSchemes, allowed) {
			c.add(fmt.Sprintf("the hash is computed with %s, which the policy does not allow", orNone(scheme)))
		}
	}
	if c.p.MinTimeLeft == "" {
		return
	}
	minLeft, err := time.ParseDuration(c.p.MinTimeLeft)
	if err != nil { // LoadPolicy refuses it; a Policy built in code fails closed
		c.add(fmt.Sprintf("the policy's minTimeLeft %q is not a duration", c.p.MinTimeLeft))
		return
	}
	want := int64(minLeft / time.Second)
	if sw := r.Times.SignWithin; sw != nil && sw.SecondsLeft < want {
		c.add(fmt.Sprintf("%s leaves %s to execute, less than the policy's minTimeLeft %s", sw.Field, orNone(strings.TrimSuffix(sw.TimeLeft, " left")), c.p.MinTimeLeft))
	}
	for _, m := range r.Times.MiningRounds {
		if m.TargetClosesAt != "" && m.SecondsLeft < want {
			c.add(fmt.Sprintf("mining round %s closes at %s, sooner than the policy's minTimeLeft %s", m.Round, m.TargetClosesAt, c.p.MinTimeLeft))
		}
	}
}

// transferAmount checks a token-standard transfer against maxAmounts: its
// amount and instrument (review.Node.TokenTransfer).
func (c *checker) transferAmount(t review.TokenTransfer, where string) {
	if len(c.p.MaxAmounts) == 0 {
		return
	}
	amount, admin, id := t.Amount.Scalar(), t.Admin.Scalar(), t.InstrumentID.Scalar()
	got, ok := new(big.Rat).SetString(amount)
	if !ok || id == "" {
		c.add(fmt.Sprintf("%s is a transfer whose amount and instrument cannot be read, which maxAmounts cannot vouch for", where))
		return
	}
	limit, listed := c.p.MaxAmounts[id+"@"+admin]
	if !listed {
		limit, listed = c.p.MaxAmounts[id]
	}
	if !listed {
		c.add(fmt.Sprintf("%s transfers %s of instrument %s (admin %s), which the policy's maxAmounts does not list", where, amount, id, admin))
		return
	}
	max, _ := new(big.Rat).SetString(limit)
	if max == nil || got.Cmp(max) > 0 {
		c.add(fmt.Sprintf("%s transfers %s %s, more than the policy's maximum of %s", where, amount, id, limit))
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

type checker struct {
	p          *Policy
	violations []string
	seen       map[string]bool
}

func (c *checker) add(msg string) {
	if !c.seen[msg] {
		c.seen[msg] = true
		c.violations = append(c.violations, msg)
	}
}

func (c *checker) node(n *review.Node) {
	where := "node " + n.NodeID
	var maintainers []string
	if n.Key != nil {
		maintainers = n.Key.Maintainers
	}
	switch n.Kind {
	case review.KindCreate, review.KindFetch, review.KindQueryByKey:
		c.template(n.Template, n.PackageName, where)
	case review.KindExercise:
		c.template(n.Template, n.PackageName, where)
		c.choice(n.Template, n.Choice, where)
		if t, ok := n.TokenTransfer(); ok {
			c.transferAmount(t, where)
		}
	}
	c.parties(where, n.Signatories, n.Stakeholders, n.ActingParties, n.ChoiceObservers, maintainers)
}

func (c *checker) parties(where string, lists ...[]string) {
	for _, l := range lists {
		for _, party := range l {
			c.party(party, where)
		}
	}
}

func (c *checker) party(party, where string) {
	if len(c.p.Parties) == 0 {
		return
	}
	for _, allowed := range c.p.Parties {
		if allowed == party {
			return
		}
	}
	c.add(fmt.Sprintf("%s names party %s, which the policy does not list", where, party))
}

// qualified is "Module:Entity" as the policy file writes it (not escaped:
// it is compared, not printed raw).
func qualified(id *review.Identifier) string {
	if id == nil {
		return ":"
	}
	return id.Name
}

func (c *checker) template(id *review.Identifier, pkgName, where string) {
	if len(c.p.Templates) == 0 {
		return
	}
	for _, t := range c.p.Templates {
		if templateMatches(t, id, pkgName) {
			return
		}
	}
	c.add(fmt.Sprintf("%s uses template %s (package %s), which the policy does not allow", where, qualified(id), pkgName))
}

func templateMatches(entry string, id *review.Identifier, pkgName string) bool {
	name := qualified(id)
	parts := strings.Split(entry, ":")
	switch {
	case len(parts) == 2:
		return entry == name
	case len(parts) >= 3:
		pkg, rest := parts[0], strings.Join(parts[1:], ":")
		if rest != name {
			return false
		}
		if strings.HasPrefix(pkg, "#") {
			return pkg[1:] == pkgName
		}
		return id != nil && pkg == id.PackageID
	}
	return false
}

func (c *checker) choice(id *review.Identifier, choice, where string) {
	if len(c.p.Choices) == 0 {
		return
	}
	full := qualified(id) + ":" + choice
	for _, allowed := range c.p.Choices {
		if allowed == choice || allowed == full {
			return
		}
	}
	c.add(fmt.Sprintf("%s exercises choice %s on %s, which the policy does not allow", where, choice, qualified(id)))
}
