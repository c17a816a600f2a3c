package wallet

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ledger-cli/ledger/wallet/review"
)

// Policy restricts what a signer will sign: the templates a
// transaction may touch, the choices it may exercise and the parties it may
// name. A policy file is JSON (or YAML):
//
//	{
//	  "templates": ["Iou:Iou", "#iou-pkg:Iou:IouTransfer", "9f1c…:Iou:Iou"],
//	  "choices":   ["Iou_Transfer", "Iou:Iou:Iou_Split"],
//	  "parties":   ["Alice::1220…", "Bob::1220…"]
//	}
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
	Templates []string `json:"templates" yaml:"templates"`
	Choices   []string `json:"choices" yaml:"choices"`
	Parties   []string `json:"parties" yaml:"parties"`
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
		return nil, fmt.Errorf("policy %s: %w (want keys templates, choices, parties)", path, err)
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
	sort.Strings(c.violations)
	return c.violations
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
