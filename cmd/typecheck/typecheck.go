// Package typecheck is --dar and --check-types: prepare and submit check
// their commands against Daml packages before sending, with the node's own
// rules and messages.
package typecheck

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/spf13/pflag"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/engine"
	"github.com/ledger-cli/ledger/daml/engine/preprocess"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// Flags are --dar and --check-types: Dars are DAR files to check the
// arguments against, CheckTypes asks for a check against the node's
// packages.
type Flags struct {
	Dars       []string
	CheckTypes bool
}

// AddFlags adds --dar and --check-types to fl.
func (c *Flags) AddFlags(fl *pflag.FlagSet) {
	fl.StringArrayVar(&c.Dars, "dar", nil, "check the command's arguments against the Daml types of this DAR before sending (repeatable)")
	fl.BoolVar(&c.CheckTypes, "check-types", false, "check the command's arguments against the Daml types of the node's packages before sending (fetches them)")
}

// ReadDars decodes DAR files into their packages.
func ReadDars(paths []string) ([]*lf.Package, error) {
	var pkgs []*lf.Package
	for _, path := range paths {
		d, err := archive.ReadDarFile(path, archive.Options{AllowDev: true})
		if err != nil {
			return nil, fmt.Errorf("--dar: %w", err)
		}
		pkgs = append(pkgs, d.Packages...)
	}
	return pkgs, nil
}

// Check reads cmds as a node holding the packages of the --dar files,
// or with --check-types the node's packages the commands use, would
// (preprocess.Check, the node's own reading of typed commands), and refuses
// them with the node's error before anything is sent. Commands on templates
// of other packages are left to the node, whose generic contract model
// checks no types. Without either flag nothing is checked.
func (c *Flags) Check(cl *client.Client, cmds []ledgerapi.Command, actAs, preference []string) error {
	if len(c.Dars) == 0 && !c.CheckTypes {
		return nil
	}
	pkgs, err := ReadDars(c.Dars)
	if err != nil {
		return err
	}
	from := "--dar"
	if c.CheckTypes {
		fetched, err := nodePackages(context.Background(), cl, cmds, actAs, preference)
		if err != nil {
			return fmt.Errorf("--check-types: %w", cmdutil.WithHint(err))
		}
		pkgs, from = append(pkgs, fetched...), "the node's packages"
		if err := checkResolved(pkgs, cmds); err != nil {
			return err
		}
	}
	if err := preprocess.Check(engine.PackageSetOf(pkgs...), cmds, preference); err != nil {
		return cmdutil.WithExit(1, fmt.Errorf("the command does not fit the types of %s, nothing was sent: %w", from, err))
	}
	return nil
}

// checkResolved refuses a --check-types whose commands name a template no
// package at hand defines a package for: the node would serve it with the
// generic contract model, which checks no types, so passing would say
// nothing.
func checkResolved(pkgs []*lf.Package, cmds []ledgerapi.Command) error {
	for _, cmd := range cmds {
		t, err := ledgerapi.ParseTemplateID(commandTemplate(cmd))
		if err != nil {
			continue // the check reports it
		}
		found := false
		for _, p := range pkgs {
			if t.ByName() && p.Name == t.PackageName || !t.ByName() && string(p.ID) == t.PackageID {
				found = true
				break
			}
		}
		if !found {
			return cmdutil.WithExit(1, fmt.Errorf("--check-types: cannot check %s: the node has no package for it (it would serve the template with the generic contract model, which checks no types); upload its DAR, or give it with --dar", t))
		}
	}
	return nil
}

// NoteGeneric says on w which of the commands' templates the node's
// generic contract model served, as the node's answer named them in its
// ledgerapi.GenericModelHeader (h: that answer's headers): the model keeps
// the arguments as JSON and checks no Daml types, so a typo in a package
// name or a template is no error. A node that sends no such header (Canton,
// which has no generic model) gets no note, and no extra request is made.
func NoteGeneric(h http.Header, cmds []ledgerapi.Command, w io.Writer) {
	served := GenericTemplates(h)
	if len(served) == 0 {
		return
	}
	seen := map[string]bool{}
	for _, cmd := range cmds {
		t, err := ledgerapi.ParseTemplateID(commandTemplate(cmd))
		if err != nil || seen[t.String()] || !servedGeneric(t, served) {
			continue
		}
		seen[t.String()] = true
		fmt.Fprintf(w, "note: the node has no package for %s: its generic contract model served the command (arguments kept as JSON, no Daml types checked, no choice bodies run); upload the DAR to run the template\n", t)
	}
}

// GenericTemplates are the templates an answer's headers say the generic
// contract model served (package-id form), or none.
func GenericTemplates(h http.Header) []ledgerapi.TemplateID {
	var out []ledgerapi.TemplateID
	for _, s := range strings.Split(h.Get(ledgerapi.GenericModelHeader), ",") {
		if t, err := ledgerapi.ParseTemplateID(strings.TrimSpace(s)); err == nil {
			out = append(out, t)
		}
	}
	return out
}

// servedGeneric reports whether the command template t is one of served: the
// same package id and name, or for a template named by package name (the
// node names it by the id it derived), the same module and entity.
func servedGeneric(t ledgerapi.TemplateID, served []ledgerapi.TemplateID) bool {
	for _, s := range served {
		if s.Module == t.Module && s.Entity == t.Entity && (t.ByName() || s.PackageID == t.PackageID) {
			return true
		}
	}
	return false
}

// nodePackages fetches from the node the packages the commands' templates
// resolve to — a package id as written, a package name by the node's
// preferred package for the first actAs party — and their dependencies. A
// template the node has no package for is left to the generic rule.
func nodePackages(ctx context.Context, cl *client.Client, cmds []ledgerapi.Command, actAs, preference []string) ([]*lf.Package, error) {
	queue := append([]string(nil), preference...)
	for _, cmd := range cmds {
		t, err := ledgerapi.ParseTemplateID(commandTemplate(cmd))
		if err != nil {
			continue // the node's check reports it
		}
		if !t.ByName() {
			queue = append(queue, t.PackageID)
			continue
		}
		if len(actAs) == 0 {
			continue
		}
		pref, err := cl.PreferredPackages(ctx, ledgerapi.GetPreferredPackagesRequest{PackageVettingRequirements: []ledgerapi.PackageVettingRequirement{
			{PackageName: t.PackageName, Parties: actAs[:1]}}})
		if err != nil {
			var apiErr *client.APIError
			if errors.As(err, &apiErr) && apiErr.StatusCode < 500 {
				continue // no package of that name: the node's generic model
			}
			return nil, err
		}
		for _, r := range pref.PackageReferences {
			queue = append(queue, r.PackageID)
		}
	}
	seen := map[string]bool{}
	var pkgs []*lf.Package
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		if seen[id] {
			continue
		}
		seen[id] = true
		payload, err := cl.GetPackage(ctx, id)
		if err != nil {
			var apiErr *client.APIError
			if errors.As(err, &apiErr) && apiErr.StatusCode == 404 {
				continue // not uploaded: the node's generic model
			}
			return nil, err
		}
		p, err := cmdutil.DecodePackagePayload(id, payload)
		if err != nil {
			return nil, fmt.Errorf("package %s: %w", id, err)
		}
		pkgs = append(pkgs, p)
		for _, dep := range p.DirectDeps {
			queue = append(queue, string(dep))
		}
	}
	return pkgs, nil
}

// commandTemplate is the template id a command names.
func commandTemplate(c ledgerapi.Command) string {
	switch {
	case c.Create != nil:
		return c.Create.TemplateID
	case c.Exercise != nil:
		return c.Exercise.TemplateID
	case c.CreateAndExercise != nil:
		return c.CreateAndExercise.TemplateID
	case c.ExerciseByKey != nil:
		return c.ExerciseByKey.TemplateID
	}
	return ""
}
