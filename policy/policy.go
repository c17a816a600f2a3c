// Package policy restricts what a signer will sign: the templates a
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
package policy

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ledger-cli/ledger/proto/damlpb"
)

// Policy is what a signer allows.
type Policy struct {
	Templates []string `json:"templates" yaml:"templates"`
	Choices   []string `json:"choices" yaml:"choices"`
	Parties   []string `json:"parties" yaml:"parties"`
}

// Load reads a policy file; unknown keys are refused so that a misspelt
// restriction cannot silently allow everything.
func Load(path string) (*Policy, error) {
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

// Check returns every violation of the policy by pt, or nil when it complies.
func (p *Policy) Check(pt *damlpb.PreparedTransaction) []string {
	c := checker{p: p, seen: map[string]bool{}}
	if md := pt.GetMetadata(); md != nil {
		for _, party := range md.GetSubmitterInfo().GetActAs() {
			c.party(party, "act_as")
		}
		for _, in := range md.GetInputContracts() {
			if cr := in.GetV1(); cr != nil {
				c.template(cr.GetTemplateId(), cr.GetPackageName(), "input contract "+cr.GetContractId())
			}
		}
	}
	for _, n := range pt.GetTransaction().GetNodes() {
		c.node(n.GetNodeId(), n.GetV1())
	}
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

func (c *checker) node(id string, n *damlpb.Node) {
	where := "node " + id
	switch {
	case n.GetCreate() != nil:
		x := n.GetCreate()
		c.template(x.GetTemplateId(), x.GetPackageName(), where)
		c.parties(where, x.GetSignatories(), x.GetStakeholders(), x.GetKey().GetMaintainers())
	case n.GetExercise() != nil:
		x := n.GetExercise()
		c.template(x.GetTemplateId(), x.GetPackageName(), where)
		c.choice(x.GetTemplateId(), x.GetChoiceId(), where)
		c.parties(where, x.GetSignatories(), x.GetStakeholders(), x.GetActingParties(), x.GetChoiceObservers(), x.GetKey().GetMaintainers())
	case n.GetFetch() != nil:
		x := n.GetFetch()
		c.template(x.GetTemplateId(), x.GetPackageName(), where)
		c.parties(where, x.GetSignatories(), x.GetStakeholders(), x.GetActingParties(), x.GetKey().GetMaintainers())
	case n.GetQueryByKey() != nil:
		x := n.GetQueryByKey()
		c.template(x.GetTemplateId(), x.GetPackageName(), where)
		c.parties(where, x.GetKey().GetMaintainers())
	}
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

func qualified(id *damlpb.Identifier) string {
	return id.GetModuleName() + ":" + id.GetEntityName()
}

func (c *checker) template(id *damlpb.Identifier, pkgName, where string) {
	if len(c.p.Templates) == 0 {
		return
	}
	name := qualified(id)
	for _, t := range c.p.Templates {
		if templateMatches(t, id, pkgName) {
			return
		}
	}
	c.add(fmt.Sprintf("%s uses template %s (package %s), which the policy does not allow", where, name, pkgName))
}

func templateMatches(entry string, id *damlpb.Identifier, pkgName string) bool {
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
		return pkg == id.GetPackageId()
	}
	return false
}

func (c *checker) choice(id *damlpb.Identifier, choice, where string) {
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
