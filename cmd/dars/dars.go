// Package dars holds `ledger dars`: upload DARs to a node, have the node
// validate one, and inspect the templates, choices and interfaces of a DAR
// file (offline) or of a package the node has.
package dars

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/validate"
	"github.com/ledger-cli/ledger/display"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// NewCmdDars builds `ledger dars` and its subcommands.
func NewCmdDars(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dars",
		Short: "Upload, validate and inspect DARs (Daml archives)",
		Long: `A DAR is a zip of compiled Daml packages: the main package and its
dependencies. Upload one to make its templates usable on a node, have the node
validate one without storing it, or inspect what a DAR or an uploaded package
defines.`,
		Example: `  ledger dars upload my-app-1.0.0.dar
  ledger dars validate my-app-1.1.0.dar
  ledger dars inspect my-app-1.0.0.dar
  ledger dars inspect de2cc2f90eb523414ff54e899951dadd8789a4c07e0f71f6d6c9eaf57d412a54 -o json`,
	}
	cmd.AddCommand(NewCmdUpload(f, nil), NewCmdValidate(f, nil), NewCmdInspect(f, nil))
	return cmd
}

// Options are the inputs of the dars subcommands.
type Options struct {
	IO      *cmdutil.IOStreams
	Connect func() (*cmdutil.Connection, error)
	Format  string
	Now     func() time.Time

	Args       []string // DAR files; inspect: a file or a package id
	NoVet      bool     // upload
	All        bool     // inspect: the dependencies too
	Template   string   // inspect: one template, with an --args skeleton
	Offline    bool     // validate: type-check here, without a node
	AllowLFDev bool     // validate --offline: accept Daml-LF 2.dev
}

func darsCommand(f *cmdutil.Factory, cmd *cobra.Command, opts *Options, conn bool, runF, run func(*Options) error) *cobra.Command {
	var cf *cmdutil.ConnFlags
	if conn {
		cf = cmdutil.AddConnFlags(cmd)
	}
	cmd.RunE = func(c *cobra.Command, args []string) error {
		var err error
		if opts.Format, err = f.OutputFormat(); err != nil {
			return err
		}
		opts.Args = args
		if cf != nil {
			opts.Connect = cf.Connect
		}
		if runF != nil {
			return runF(opts)
		}
		return run(opts)
	}
	return cmd
}

// NewCmdUpload builds `ledger dars upload`.
func NewCmdUpload(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: f.IO, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "upload FILE...",
		Short: "Upload DARs to the node and vet their packages",
		Long: `Upload each DAR to the node (POST /v2/dars), which stores its packages and,
unless --no-vet, vets them: commands may then use their templates. The node
refuses a DAR whose packages do not decode or do not type-check
(DAR_VALIDATION_ERROR), that lacks a dependency, or whose package is not a
valid upgrade of the vetted version of its name. Uploading a
DAR the node has changes nothing. Needs a participant admin token. Progress
goes to standard error on a terminal.`,
		Example: `  ledger dars upload my-app-1.0.0.dar
  ledger dars upload *.dar --no-vet`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmdutil.UsageError("give at least one DAR file")
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&opts.NoVet, "no-vet", false, "store the packages without vetting them")
	return darsCommand(f, cmd, opts, true, runF, uploadRun)
}

// darInfo is what upload and validate report of a DAR.
type darInfo struct {
	File        string `json:"file"`
	MainPackage string `json:"mainPackageId"`
	Name        string `json:"name"`
	Version     string `json:"version"`
	Packages    int    `json:"packages"`
	Bytes       int    `json:"bytes"`
	// AlreadyUploaded: the node had the main package before this upload.
	AlreadyUploaded bool `json:"alreadyUploaded,omitempty"`
}

// readDar reads and decodes a DAR file, so that a broken file is named
// before anything is sent.
func readDar(path string) ([]byte, darInfo, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, darInfo{}, err
	}
	d, err := archive.DecodeDar(b, archive.Options{AllowDev: true})
	if err != nil {
		return nil, darInfo{}, fmt.Errorf("%s: %w", path, err)
	}
	m := d.MainPackage()
	return b, darInfo{File: path, MainPackage: string(m.ID), Name: m.Name, Version: m.Version, Packages: len(d.Packages), Bytes: len(b)}, nil
}

// progress prints upload progress of big files on a terminal.
func progress(opts *Options, name string, total int) func(int64) {
	if !opts.IO.IsStdoutTTY() || total < 256<<10 {
		return nil
	}
	last := time.Time{}
	return func(sent int64) {
		if now := opts.Now(); now.Sub(last) < 100*time.Millisecond && sent < int64(total) {
			return
		} else {
			last = now
		}
		fmt.Fprintf(opts.IO.ErrOut, "\r%s: %s of %s (%d%%)", name, size(sent), size(int64(total)), sent*100/int64(total))
		if sent >= int64(total) {
			fmt.Fprintln(opts.IO.ErrOut)
		}
	}
}

func size(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KiB", (n+1023)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

func uploadRun(opts *Options) error {
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	var done []darInfo
	for _, path := range opts.Args {
		b, info, err := readDar(path)
		if err != nil {
			return err
		}
		// An upload of a DAR the node has succeeds and changes nothing;
		// say so rather than report it as new. A failed look-up only
		// loses that remark.
		status, err := conn.Client.PackageStatus(context.Background(), info.MainPackage)
		info.AlreadyUploaded = err == nil && status == ledgerapi.PackageStatusRegistered
		err = conn.Client.UploadDar(context.Background(), b, client.UploadOptions{DontVet: opts.NoVet, Progress: progress(opts, filepath.Base(path), len(b))})
		if err != nil {
			return fmt.Errorf("upload %s: %w", path, cmdutil.WithHint(err))
		}
		done = append(done, info)
		if opts.Format == cmdutil.FormatTable {
			vetted := "uploaded and vetted"
			if opts.NoVet {
				vetted = "uploaded (not vetted)"
			}
			if info.AlreadyUploaded {
				vetted = "already on the node (" + vetted + " again)"
			}
			fmt.Fprintf(opts.IO.Out, "%s: %s %s %s, main package %s, %d packages\n", path, vetted, info.Name, info.Version, info.MainPackage, info.Packages)
		}
	}
	if opts.Format != cmdutil.FormatTable {
		return cmdutil.WriteStructured(opts.IO.Out, opts.Format, done)
	}
	return nil
}

// NewCmdValidate builds `ledger dars validate`.
func NewCmdValidate(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: f.IO, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "validate FILE",
		Short: "Have the node check a DAR without storing it, or type-check it here",
		Long: `Send a DAR to the node's validation (POST /v2/dars/validate): it is decoded,
its packages type-checked (Daml-LF validation, as Canton does on upload:
DAR_VALIDATION_ERROR), its dependencies checked, and its packages checked as
upgrades of the vetted packages of the same names, exactly as an upload would,
but nothing is stored or vetted. Needs a participant admin token.

With --offline no node is needed: every package of the DAR is type-checked
here, against the DAR's own packages, with the node's checker and messages.
Daml-LF 2.dev packages are refused unless --allow-lf-dev, as a node refuses
them unless started with it.`,
		Example: `  ledger dars validate my-app-1.1.0.dar
  ledger dars validate --offline my-app-1.1.0.dar`,
		Args: cmdutil.ExactArgs(1),
	}
	cmd.Flags().BoolVar(&opts.Offline, "offline", false, "type-check the DAR here, without a node")
	cmd.Flags().BoolVar(&opts.AllowLFDev, "allow-lf-dev", false, "with --offline, accept Daml-LF 2.dev packages")
	return darsCommand(f, cmd, opts, true, runF, validateRun)
}

func validateRun(opts *Options) error {
	if opts.Offline {
		return validateOfflineRun(opts)
	}
	if opts.AllowLFDev {
		return cmdutil.UsageError("--allow-lf-dev goes with --offline (a node accepts 2.dev when started with --allow-lf-dev)")
	}
	b, info, err := readDar(opts.Args[0])
	if err != nil {
		return err
	}
	conn, err := opts.Connect()
	if err != nil {
		return err
	}
	if err := conn.Client.ValidateDar(context.Background(), b); err != nil {
		return fmt.Errorf("validate %s: %w", opts.Args[0], cmdutil.WithHint(err))
	}
	if opts.Format != cmdutil.FormatTable {
		return cmdutil.WriteStructured(opts.IO.Out, opts.Format, info)
	}
	fmt.Fprintf(opts.IO.Out, "%s: valid (%s %s, main package %s, %d packages)\n", info.File, info.Name, info.Version, info.MainPackage, info.Packages)
	return nil
}

// validateOfflineRun type-checks every package of a DAR file here.
func validateOfflineRun(opts *Options) error {
	path := opts.Args[0]
	d, err := archive.ReadDarFile(path, archive.Options{AllowDev: true})
	if err != nil {
		return err
	}
	for _, p := range d.Packages {
		if p.LanguageVersion.IsDev() && !opts.AllowLFDev {
			return fmt.Errorf("validate %s: package %s (%s %s) is Daml-LF %s, which a node refuses unless started with --allow-lf-dev; pass --allow-lf-dev to check it", path, p.ID, p.Name, p.Version, p.LanguageVersion)
		}
	}
	start := time.Now()
	if err := validate.Packages(context.Background(), d.Packages, nil, validate.Options{}); err != nil {
		return fmt.Errorf("validate %s: DAR_VALIDATION_ERROR: %w", path, err)
	}
	took := time.Since(start)
	m := d.MainPackage()
	info := darInfo{File: path, MainPackage: string(m.ID), Name: m.Name, Version: m.Version, Packages: len(d.Packages)}
	if opts.Format != cmdutil.FormatTable {
		return cmdutil.WriteStructured(opts.IO.Out, opts.Format, info)
	}
	fmt.Fprintf(opts.IO.Out, "%s: well typed (%s %s, main package %s, %d packages checked in %d ms)\n",
		path, info.Name, info.Version, info.MainPackage, info.Packages, took.Milliseconds())
	return nil
}

// NewCmdInspect builds `ledger dars inspect`.
func NewCmdInspect(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	opts := &Options{IO: f.IO, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "inspect FILE|PACKAGE_ID",
		Short: "Show what a DAR or package defines: what a command on its templates needs",
		Long: `Show what a Daml package defines, in Daml-like syntax, with what a developer
needs to write a command: each template with its fields, the template id a
command names it by (#package-name:Module:Entity), its signatories,
observers, ensure clause, key and maintainers and the interfaces it
implements; each choice with its controllers, argument and result types and
whether it is consuming; each interface with its view, methods and choices;
then the records, variants and enums those mention, with their fields.
Signatories, controllers and the other clauses are read from the package's
Daml-LF as its source writes them where the printer can ("initiator",
"amount > 0.0"); what it cannot read shows as <expression>.

FILE is a DAR on disk, read offline (its main package; --all adds the
dependencies); PACKAGE_ID is a package the node has (GET /v2/packages/{id}).

--template T shows one template (T is Module:Entity, or #package-name:Module:Entity
or packageId:Module:Entity) with a skeleton of its create arguments, placeholders
by type as the JSON API reads them (Party "alice::1220…", Numeric "0.0",
Optional null, lists [], records expanded a few levels deep), and a
"ledger submit --create" line that uses it. -o json gives the same as data.`,
		Example: `  ledger dars inspect canton-builtin-admin-workflow-ping.dar
  ledger dars inspect canton-builtin-admin-workflow-ping.dar --template Canton.Internal.Ping:Ping
  ledger dars inspect my-app.dar --all -o json | jq '.[].modules[].templates[].id'
  ledger dars inspect de2cc2f90eb523414ff54e899951dadd8789a4c07e0f71f6d6c9eaf57d412a54`,
		Args: cmdutil.ExactArgs(1),
	}
	cmd.Flags().BoolVar(&opts.All, "all", false, "also show the DAR's dependencies")
	cmd.Flags().StringVar(&opts.Template, "template", "", "show only template `T` (Module:Entity or #package-name:Module:Entity), with an --args skeleton")
	return darsCommand(f, cmd, opts, true, runF, inspectRun)
}

// inspected is what inspect reads: the packages to show (main first) and
// every package it has, where values and data types are looked up.
type inspected struct {
	show []*lf.Package
	main lf.PackageID
	all  []*lf.Package
}

func readInspected(opts *Options) (inspected, error) {
	arg := opts.Args[0]
	if cmdutil.IsPackageID(arg) {
		conn, err := opts.Connect()
		if err != nil {
			return inspected{}, err
		}
		payload, err := conn.Client.GetPackage(context.Background(), arg)
		if err != nil {
			return inspected{}, cmdutil.WithHint(err)
		}
		p, err := cmdutil.DecodePackagePayload(arg, payload)
		if err != nil {
			return inspected{}, fmt.Errorf("package %s: %w", arg, err)
		}
		return inspected{show: []*lf.Package{p}, main: p.ID, all: []*lf.Package{p}}, nil
	}
	d, err := archive.ReadDarFile(arg, archive.Options{AllowDev: true})
	if err != nil {
		if strings.HasSuffix(arg, ".dar") || !errors.Is(err, fs.ErrNotExist) {
			return inspected{}, err
		}
		return inspected{}, cmdutil.UsageError("%s is neither a DAR file nor a package id (64 hex digits)", arg)
	}
	in := inspected{main: d.Main, all: d.Packages}
	for _, p := range d.Packages {
		if p.ID == d.Main || opts.All {
			in.show = append(in.show, p)
		}
	}
	return in, nil
}

func inspectRun(opts *Options) error {
	in, err := readInspected(opts)
	if err != nil {
		return err
	}
	if opts.Template != "" {
		return inspectTemplateRun(opts, in)
	}
	var sigs []display.PackageSignature
	for _, p := range in.show {
		sigs = append(sigs, display.NewPackageSignature(p, p.ID == in.main, in.all))
	}
	if opts.Format != cmdutil.FormatTable {
		if len(sigs) == 1 && !opts.All {
			return cmdutil.WriteStructured(opts.IO.Out, opts.Format, sigs[0])
		}
		return cmdutil.WriteStructured(opts.IO.Out, opts.Format, sigs)
	}
	for i, s := range sigs {
		if i > 0 {
			fmt.Fprintln(opts.IO.Out)
		}
		if err := display.RenderPackageSignature(opts.IO.Out, s); err != nil {
			return err
		}
	}
	return nil
}

// findTemplate finds --template among the packages inspect shows (a
// #name or package id may name any package of the DAR).
func findTemplate(in inspected, ref string) (*lf.Package, string, string, error) {
	pkgs, module, entity := in.show, "", ""
	if strings.Count(ref, ":") >= 2 {
		tid, err := ledgerapi.ParseTemplateID(ref)
		if err != nil {
			return nil, "", "", cmdutil.UsageError("--template %q: %s", ref, err)
		}
		module, entity, pkgs = tid.Module, tid.Entity, nil
		for _, p := range in.all {
			if tid.ByName() && p.Name == tid.PackageName || !tid.ByName() && string(p.ID) == tid.PackageID {
				pkgs = append(pkgs, p)
			}
		}
		if len(pkgs) == 0 {
			return nil, "", "", cmdutil.UsageError("--template %q: no package %s in %s", ref, strings.TrimSuffix(ref, ":"+module+":"+entity), in.describe())
		}
	} else {
		var ok bool
		module, entity, ok = strings.Cut(ref, ":")
		if !ok || module == "" || entity == "" {
			return nil, "", "", cmdutil.UsageError("--template %q: write Module:Entity or #package-name:Module:Entity", ref)
		}
	}
	var found []*lf.Package
	for _, p := range pkgs {
		if _, ok := p.Template(module, entity); ok {
			found = append(found, p)
		}
	}
	switch len(found) {
	case 1:
		return found[0], module, entity, nil
	case 0:
		return nil, "", "", cmdutil.UsageError("--template %q: no such template in %s; its templates: %s", ref, in.describe(), templateList(pkgs))
	}
	ids := make([]string, len(found))
	for i, p := range found {
		ids[i] = display.TemplateID(p, lf.TypeConName{Package: p.ID, Module: lf.SplitDotted(module), Name: lf.SplitDotted(entity)}) + " (" + string(p.ID) + ")"
	}
	return nil, "", "", cmdutil.UsageError("--template %q names a template of %d packages: write one of %s", ref, len(found), strings.Join(ids, ", "))
}

func (in inspected) describe() string {
	for _, p := range in.all {
		if p.ID == in.main {
			return "package " + p.Name + " " + p.Version
		}
	}
	return "the package"
}

// templateList names the templates of pkgs, the first 20 of them.
func templateList(pkgs []*lf.Package) string {
	var names []string
	for _, p := range pkgs {
		for _, t := range p.Templates() {
			names = append(names, t.Name.Module.String()+":"+t.Name.Name.String())
		}
	}
	if len(names) == 0 {
		return "none"
	}
	if len(names) > 20 {
		return strings.Join(names[:20], ", ") + fmt.Sprintf(" and %d more (ledger dars inspect lists them)", len(names)-20)
	}
	return strings.Join(names, ", ")
}

func inspectTemplateRun(opts *Options, in inspected) error {
	p, module, entity, err := findTemplate(in, opts.Template)
	if err != nil {
		return err
	}
	d, _ := display.NewTemplateDetail(p, in.all, module, entity)
	env := typed.NewEnv(in.all...)
	sig, _ := p.Template(module, entity)
	id := display.ShellQuote(d.Template.ID)
	plan, err := env.Plan(lf.TCon{Con: sig.Name})
	if err != nil {
		d.ExampleProblem = err.Error()
	} else {
		d.ExampleArgs = plan.Example()
		d.ExampleCommand = "ledger submit --create " + id + " --act-as alice --args " + display.ShellQuote(string(d.ExampleArgs))
	}
	for _, c := range sig.Choices {
		line := "ledger submit --exercise " + id + ` --contract-id "$CID" --choice ` + c.Name + " --act-as alice"
		if plan, err := env.Plan(c.ArgType); err == nil {
			if arg := string(plan.Example()); arg != "{}" {
				line += " --arg " + display.ShellQuote(arg)
			}
		}
		d.ExampleExercises = append(d.ExampleExercises, line)
	}
	if opts.Format != cmdutil.FormatTable {
		return cmdutil.WriteStructured(opts.IO.Out, opts.Format, d)
	}
	return display.RenderTemplateDetail(opts.IO.Out, d)
}
