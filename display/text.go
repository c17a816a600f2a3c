package display

import (
	"github.com/ledger-cli/ledger/display/format"
	"github.com/ledger-cli/ledger/wallet/review"

	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/tree"
	"github.com/muesli/termenv"
)

// TextOptions shape RenderText's output.
type TextOptions struct {
	// Color adds ANSI colour and bold; without it the output is plain text.
	Color bool
	// Width is the terminal width to fit; 0 means 80.
	Width int
	// FullIDs prints party, contract and package ids in full instead of
	// shortened ("alice::1220a1a2…bebf", "0007e7…21c5").
	FullIDs bool
}

// DefaultWidth is the width RenderText fits when TextOptions.Width is 0.
const DefaultWidth = 80

// labelWidth is the column where values start in label/value lines.
const labelWidth = 13

// RenderText writes r for a person deciding whether to sign: summary,
// warnings, hash, who submits, deadlines, the node tree with decoded values,
// input contracts and the full party ids.
func RenderText(w io.Writer, r *review.Review, opts TextOptions) error {
	p := newPrinter(r, opts)
	p.reinterpreted(r)
	p.summary(r)
	p.warnings(r)
	p.effects(r)
	p.submission(r)
	p.times(r)
	p.hash(r)
	p.transaction(r)
	p.inputContracts(r)
	p.keyMapping(r)
	p.origin(r)
	p.parties(r)
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(p.out.String(), "\n"), "\n") {
		b.WriteString(strings.TrimRight(line, " "))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

type styles struct {
	title, label, faint, warn, ok, caution          lipgloss.Style
	create, archive, exercise, fetch, rollback, bad lipgloss.Style
	party, contract, amount                         lipgloss.Style
}

func newStyles(color bool) styles {
	re := lipgloss.NewRenderer(io.Discard)
	re.SetHasDarkBackground(true) // no terminal query: only basic ANSI colours are used
	if color {
		re.SetColorProfile(termenv.ANSI)
	} else {
		re.SetColorProfile(termenv.Ascii)
	}
	fg := func(c string) lipgloss.Style { return re.NewStyle().Foreground(lipgloss.Color(c)) }
	return styles{
		title:    re.NewStyle().Bold(true),
		label:    re.NewStyle().Faint(true),
		faint:    re.NewStyle().Faint(true),
		warn:     fg("1").Bold(true),
		ok:       fg("2"),
		caution:  fg("3").Bold(true),
		create:   fg("2").Bold(true),
		archive:  fg("1").Bold(true),
		exercise: fg("3").Bold(true),
		fetch:    fg("4").Bold(true),
		rollback: fg("5").Bold(true),
		bad:      fg("1"),
		party:    fg("6"),
		contract: fg("4"),
		amount:   re.NewStyle().Bold(true),
	}
}

type printer struct {
	out   strings.Builder
	nm    *review.Names
	st    styles
	width int
}

func newPrinter(r *review.Review, opts TextOptions) *printer {
	width := opts.Width
	if width <= 0 {
		width = DefaultWidth
	}
	return &printer{nm: review.NewNames(r, opts.FullIDs), st: newStyles(opts.Color), width: width}
}

func (p *printer) line(s string) { p.out.WriteString(s + "\n") }

func (p *printer) heading(title, note string) {
	p.line("")
	s := p.st.title.Render(title)
	if note != "" {
		s += "  " + note
	}
	p.line(s)
}

// kv writes "  label        value", wrapping value lines under the value
// column.
func (p *printer) kv(label, value string) {
	pad := strings.Repeat(" ", max(1, labelWidth-len(label)))
	p.line("  " + p.st.label.Render(label) + pad + value)
}

func (p *printer) summary(r *review.Review) {
	for _, l := range wrap(review.SummaryLine(r, p.nm), p.width) {
		p.line(p.st.title.Render(l))
	}
}

// reinterpreted opens the review with whether the transaction is what its
// Daml code makes, when that was checked.
func (p *printer) reinterpreted(r *review.Review) {
	ri := r.Reinterpreted
	if ri == nil {
		return
	}
	text, style := "re-interpreted: matches the Daml code of "+ri.Code, p.st.ok
	if !ri.Matches {
		text, style = "re-interpreted: NOT what the Daml code of "+ri.Code+" makes, do not sign: "+ri.Difference, p.st.warn
	}
	for _, l := range wrap(format.Escape(text), p.width) {
		p.line(style.Render(l))
	}
	if n := len(r.InputContracts); n > 0 {
		p.line(p.st.faint.Render(fmt.Sprintf("  whether its %d input contract(s) are still active is the synchronizer's to decide when it executes", n)))
	}
}

func (p *printer) warnings(r *review.Review) {
	if len(r.Warnings) == 0 {
		return
	}
	p.heading("WARNINGS", "")
	for _, w := range r.Warnings {
		for i, l := range wrap(format.Escape(w), p.width-4) {
			prefix := "    "
			if i == 0 {
				prefix = "  ! "
			}
			p.line(prefix + p.st.warn.Render(l))
		}
	}
}

func (p *printer) hash(r *review.Review) {
	h := r.Hash
	if h == nil {
		p.heading("HASH", p.st.warn.Render("could not be recomputed"))
		if r.HashError != "" {
			for _, l := range wrap(format.Escape(r.HashError), p.width-4) {
				p.line("  " + p.st.warn.Render(l))
			}
		}
		return
	}
	p.heading("HASH", "recomputed here with "+h.Scheme)
	p.kv("hex", h.Hex)
	p.kv("base64", h.Base64)
	if h.MatchesNode != nil {
		if *h.MatchesNode {
			p.kv("node's hash", p.st.ok.Render("matches"))
		} else {
			p.kv("node's hash", p.st.warn.Render("DIFFERS: "+format.Escape(h.NodeHash)))
		}
	}
}

func (p *printer) effects(r *review.Review) {
	p.heading("EFFECTS", "")
	e := r.Effects
	contracts := func(label string, refs []review.ContractRef, style lipgloss.Style) {
		if len(refs) == 0 {
			p.kv(label, p.st.faint.Render("nothing"))
			return
		}
		for i, c := range refs {
			if i > 0 {
				label = ""
			}
			for j, l := range wrap(c.Template.Qualified()+" "+p.nm.Contract(c.ContractID), p.width-2-labelWidth) {
				if j > 0 {
					label = ""
				}
				p.kv(label, style.Render(l))
			}
		}
	}
	contracts("creates", e.Created, p.st.create)
	contracts("archives", e.Archived, p.st.archive)
	if e.RolledBack > 0 {
		p.kv("rolled back", format.Plural(e.RolledBack, "node")+", without effect")
	}
}

func (p *printer) submission(r *review.Review) {
	p.heading("SUBMISSION", "")
	p.kv("act as", p.partyList(r.Submitter.ActAs, p.width-2-labelWidth))
	p.kv("command id", format.Escape(r.Submitter.CommandID))
	sync := format.Escape(r.SynchronizerID)
	if !p.nm.Full() {
		sync = format.Escape(format.ShortParty(r.SynchronizerID, review.PartyHead, review.PartyTail))
	}
	p.kv("synchronizer", sync)
	p.kv("mediator", fmt.Sprintf("group %d", r.MediatorGroup))
	p.kv("uuid", format.Escape(r.TransactionUUID))
}

func (p *printer) times(r *review.Review) {
	t := r.Times
	p.heading("TIMES", "now "+t.EvaluatedAt)
	switch sw := t.SignWithin; {
	case sw == nil:
		p.kv("time left", p.st.caution.Render("no deadline in the transaction"))
	case sw.Expired && sw.GraceLeft != "":
		p.kv("time left", p.st.caution.Render(sw.GraceLeft+", in the 60 s tolerance after "+sw.Field))
	case sw.Expired:
		p.kv("time left", p.st.warn.Render("none: "+sw.Field+" "+sw.TimeLeft))
	default:
		p.kv("time left", p.st.ok.Render(strings.TrimSuffix(sw.TimeLeft, " left"))+", until "+sw.Field)
	}
	p.kv("prepared", t.PreparationTime)
	if t.Prepared != nil {
		// Canton's default preparation-time tolerance: 24 h after it.
		p.kv("execute by", p.deadline(t.Prepared))
	}
	if t.MinLedgerEffectiveTime != "" {
		p.kv("ledger from", t.MinLedgerEffectiveTime)
	}
	if t.MaxLedgerEffectiveTime != nil {
		p.kv("ledger until", p.deadline(t.MaxLedgerEffectiveTime))
	}
	if t.MaxRecordTime != nil {
		p.kv("record until", p.deadline(t.MaxRecordTime))
		if !t.MaxRecordTime.Signed {
			p.kv("", p.st.caution.Render("not covered by the signature under this scheme"))
		}
	} else {
		p.kv("record until", p.st.faint.Render("not set (max_record_time)"))
	}
	for _, m := range t.MiningRounds {
		left := p.st.ok.Render(m.TimeLeft)
		if m.Closing {
			left = p.st.warn.Render(m.TimeLeft)
		}
		p.kv("mining round", format.Escape(m.Round)+" closes "+m.TargetClosesAt+"  "+left)
	}
}

func (p *printer) deadline(d *review.Deadline) string {
	left := p.st.ok.Render(d.TimeLeft)
	if d.Expired {
		left = p.st.warn.Render(d.TimeLeft)
	}
	return d.Time + "  " + left
}

func (p *printer) transaction(r *review.Review) {
	note := fmt.Sprintf("Daml-LF %s, %s", format.Escape(r.TransactionVersion), format.Plural(len(r.Nodes), "root node"))
	p.heading("TRANSACTION", note)
	t := p.tree()
	for _, n := range r.Nodes {
		t.Child(p.node(n, 0))
	}
	if len(r.Nodes) > 0 {
		p.line(t.String())
	}
}

func (p *printer) tree() *tree.Tree {
	return tree.New().
		EnumeratorStyle(p.st.faint.PaddingRight(1)).
		ItemStyle(lipgloss.NewStyle())
}

// node renders n and its children; depth counts tree levels above n.
func (p *printer) node(n *review.Node, depth int) *tree.Tree {
	avail := p.width - 4*(depth+1)
	b := &block{p: p, avail: avail, template: n.Template}
	for i, l := range wrap(p.headlineText(n), avail) {
		if i == 0 {
			b.lines = append(b.lines, p.st.faint.Render("#"+format.Escape(n.NodeID))+" "+p.kindStyle(n).Render(l))
		} else {
			b.lines = append(b.lines, "  "+p.kindStyle(n).Render(l))
		}
	}
	if n.Repeated {
		b.detail("note", p.st.caution.Render("this node appears a second time in the tree"))
	}
	switch n.Kind {
	case review.KindExercise:
		if n.Consuming {
			b.detail("consuming", p.st.archive.Render("yes: archives "+p.nm.Contract(n.ContractID)))
		} else {
			b.detail("consuming", "no: the contract stays active")
		}
		if n.ByKey {
			b.detail("by key", "yes")
		}
		p.commonDetails(b, n)
		b.value("argument", n.Argument)
		if n.Result != nil {
			b.value("result", n.Result)
		}
		for _, x := range n.ExternalCalls {
			b.detail("external", format.Escape(x.ExtensionID)+" "+format.Escape(x.FunctionID))
		}
	case review.KindCreate, review.KindFetch:
		if n.ByKey {
			b.detail("by key", "yes")
		}
		p.commonDetails(b, n)
		if n.Argument != nil {
			b.value("argument", n.Argument)
		}
	case review.KindQueryByKey:
		p.commonDetails(b, n)
		if n.Lookup != nil {
			for i, c := range n.Lookup.Found {
				label := ""
				if i == 0 {
					label = "found"
				}
				b.detail(label, p.st.contract.Render(p.nm.Contract(c)))
			}
		}
	}
	t := tree.Root(strings.Join(b.lines, "\n"))
	for _, c := range n.Children {
		t.Child(p.node(c, depth+1))
	}
	return t
}

func (p *printer) commonDetails(b *block, n *review.Node) {
	if n.Interface != nil {
		b.detail("interface", n.Interface.Qualified()+" "+p.st.faint.Render(p.nm.Package(n.Interface.PackageID)))
	}
	b.parties("acting", n.ActingParties)
	b.parties("signatories", n.Signatories)
	b.parties("stakeholders", n.Stakeholders)
	b.parties("observers", n.ChoiceObservers)
	if n.Template != nil {
		b.detail("package", format.Escape(n.PackageName)+" "+p.st.faint.Render(p.nm.Package(n.Template.PackageID)))
	}
	if n.Key != nil {
		b.value("key", n.Key.Value)
		b.parties("maintainers", n.Key.Maintainers)
	}
}

func (p *printer) headlineText(n *review.Node) string {
	var s string
	switch n.Kind {
	case review.KindCreate:
		s = "create " + n.Template.Qualified() + " " + p.nm.Contract(n.ContractID)
	case review.KindExercise:
		s = "exercise " + format.Escape(n.Choice) + " on " + n.Template.Qualified() + " " + p.nm.Contract(n.ContractID)
	case review.KindFetch:
		s = "fetch " + n.Template.Qualified() + " " + p.nm.Contract(n.ContractID)
	case review.KindRollback:
		s = "rollback: what follows is undone and has no effect"
	case review.KindQueryByKey:
		s = "look up " + n.Template.Qualified() + " by key: "
		switch {
		case n.Lookup == nil || len(n.Lookup.Found) == 0:
			s += "found none"
		default:
			s += "found " + strconv.Itoa(len(n.Lookup.Found))
		}
		if n.Lookup != nil && !n.Lookup.Exhaustive {
			s += " (not exhaustive)"
		}
	}
	if n.RolledBack && n.Kind != review.KindRollback {
		s += " (rolled back)"
	}
	return s
}

func (p *printer) kindStyle(n *review.Node) lipgloss.Style {
	if n.RolledBack && n.Kind != review.KindRollback {
		return p.st.faint
	}
	switch n.Kind {
	case review.KindCreate:
		return p.st.create
	case review.KindExercise:
		if n.Consuming {
			return p.st.archive
		}
		return p.st.exercise
	case review.KindRollback:
		return p.st.rollback
	}
	return p.st.fetch
}

func (p *printer) inputContracts(r *review.Review) {
	if len(r.InputContracts) == 0 {
		return
	}
	p.heading("INPUT CONTRACTS", format.Plural(len(r.InputContracts), "contract")+" the transaction uses, as the node sent them")
	t := p.tree()
	for _, c := range r.InputContracts {
		b := &block{p: p, avail: p.width - 4, template: c.Template}
		b.lines = append(b.lines, p.st.title.Render(c.Template.Qualified()+" "+p.nm.Contract(c.ContractID)))
		b.detail("created at", c.CreatedAt)
		b.parties("signatories", c.Signatories)
		b.parties("stakeholders", c.Stakeholders)
		if c.Template != nil {
			b.detail("package", format.Escape(c.PackageName)+" "+p.st.faint.Render(p.nm.Package(c.Template.PackageID)))
		}
		if c.Key != nil {
			b.value("key", c.Key.Value)
			b.parties("maintainers", c.Key.Maintainers)
		}
		b.value("argument", c.Argument)
		t.Child(tree.Root(strings.Join(b.lines, "\n")))
	}
	p.line(t.String())
}

func (p *printer) keyMapping(r *review.Review) {
	if len(r.GlobalKeyMapping) == 0 {
		return
	}
	p.heading("KEY MAPPING", "global_key_mapping of the metadata")
	t := p.tree()
	for _, m := range r.GlobalKeyMapping {
		b := &block{p: p, avail: p.width - 4}
		b.lines = append(b.lines, m.Template.Qualified())
		b.value("key", m.Key)
		if m.Value != nil {
			b.value("contract", m.Value)
		} else {
			b.detail("contract", "none")
		}
		t.Child(tree.Root(strings.Join(b.lines, "\n")))
	}
	p.line(t.String())
}

func (p *printer) origin(r *review.Review) {
	o := r.Origin
	if o == nil {
		return
	}
	p.heading("FROM THE FILE", p.st.faint.Render("not signed; context only"))
	p.kv("form", format.Escape(o.Form))
	if o.NodeURL != "" {
		p.kv("node", format.Escape(o.NodeURL))
	}
	if o.PreparedAt != "" {
		p.kv("prepared at", format.Escape(o.PreparedAt))
	}
	if c := o.Cost; c != nil {
		p.kv("traffic cost", fmt.Sprintf("%d bytes (request %d, response %d)",
			c.TotalTrafficCostEstimation, c.ConfirmationRequestTrafficCostEstimation, c.ConfirmationResponseTrafficCostEstimation))
		if !c.EstimationTimestamp.IsZero() {
			p.kv("", p.st.faint.Render("estimated at "+c.EstimationTimestamp.UTC().Format(review.RFC3339Micro)))
		}
	}
	for i, s := range o.Signatures {
		label := ""
		if i == 0 {
			label = "signed by"
		}
		p.kv(label, p.st.party.Render(p.nm.Party(s.Party))+" key "+format.Escape(format.ShortHex(s.SignedBy, review.PartyHead, review.PartyTail)))
	}
}

func (p *printer) parties(r *review.Review) {
	if p.nm.Full() || len(r.Parties) == 0 {
		return
	}
	p.heading("PARTIES", "in full; * = submitting (act as)")
	submitting := map[string]bool{}
	for _, a := range r.Submitter.ActAs {
		submitting[a] = true
	}
	for _, party := range r.Parties {
		mark := "  "
		if submitting[party] {
			mark = "* "
		}
		p.line("  " + mark + p.st.party.Render(format.Escape(party)))
	}
}

// partyList joins shortened parties, wrapping at avail columns with
// continuation lines under the value column.
func (p *printer) partyList(ps []string, avail int) string {
	if len(ps) == 0 {
		return p.st.faint.Render("none")
	}
	var lines []string
	cur := ""
	for i, party := range p.nm.Parties(ps) {
		item := party
		if i < len(ps)-1 {
			item += ","
		}
		if cur != "" && len(cur)+1+lipgloss.Width(item) > avail {
			lines = append(lines, cur)
			cur = ""
		}
		if cur != "" {
			cur += " "
		}
		cur += item
	}
	lines = append(lines, cur)
	for i, l := range lines {
		lines[i] = p.st.party.Render(l)
	}
	return strings.Join(lines, "\n"+strings.Repeat(" ", 2+labelWidth))
}

// block collects the lines of one tree item.
type block struct {
	p     *printer
	lines []string
	avail int
	// template is the item's template: a record of that type is not
	// labelled with its type again.
	template *review.Identifier
}

func sameIdentifier(a, b *review.Identifier) bool {
	return a != nil && b != nil && *a == *b
}

// detail adds "  label        value" under the headline.
func (b *block) detail(label, value string) {
	pad := strings.Repeat(" ", max(1, labelWidth-len(label)))
	for i, l := range strings.Split(value, "\n") {
		if i == 0 {
			b.lines = append(b.lines, "  "+b.p.st.label.Render(label)+pad+l)
		} else {
			b.lines = append(b.lines, l)
		}
	}
}

func (b *block) parties(label string, ps []string) {
	if len(ps) == 0 {
		return
	}
	b.detail(label, b.p.partyList(ps, b.avail-2-labelWidth))
}

// value adds a labelled Daml value: on the label's line when it fits,
// otherwise one line per field, element or entry.
func (b *block) value(label string, v *review.Value) {
	if v == nil {
		return
	}
	if in := b.p.inline(v); 2+labelWidth+lipgloss.Width(in) <= b.avail || !composite(v) {
		b.detail(label, in)
		return
	}
	head := ""
	if v.Kind == review.ValueRecord && v.Type != nil && !sameIdentifier(v.Type, b.template) {
		head = b.p.st.faint.Render(v.Type.Qualified())
	}
	if v.Kind == review.ValueVariant || v.Kind == review.ValueOptional {
		head = b.p.inlineHead(v)
	}
	b.detail(label, head)
	b.p.expand(&b.lines, "    ", v, b.avail)
}

func composite(v *review.Value) bool {
	switch v.Kind {
	case review.ValueRecord, review.ValueList, review.ValueTextMap, review.ValueGenMap:
		return true
	case review.ValueOptional, review.ValueVariant:
		return v.Inner != nil && composite(v.Inner)
	}
	return false
}

// expand writes the parts of a composite value, one per line, at indent;
// parts that do not fit on their line are expanded in turn.
func (p *printer) expand(lines *[]string, indent string, v *review.Value, avail int) {
	switch v.Kind {
	case review.ValueOptional, review.ValueVariant:
		p.expand(lines, indent, v.Inner, avail)
	case review.ValueRecord:
		for i, f := range v.Fields {
			label := format.Escape(f.Label)
			if label == "" {
				label = "#" + strconv.Itoa(i)
			}
			p.part(lines, indent, p.st.label.Render(label+":")+" ", f.Value, avail)
		}
	case review.ValueList:
		for i, e := range v.Elements {
			p.part(lines, indent, p.st.label.Render("["+strconv.Itoa(i)+"]:")+" ", e, avail)
		}
	case review.ValueTextMap:
		for _, e := range v.Entries {
			p.part(lines, indent, p.st.label.Render(quote(e.Key.Scalar())+":")+" ", e.Value, avail)
		}
	case review.ValueGenMap:
		for _, e := range v.Entries {
			p.part(lines, indent, p.inline(e.Key)+" "+p.st.label.Render("→")+" ", e.Value, avail)
		}
	}
}

func (p *printer) part(lines *[]string, indent, label string, v *review.Value, avail int) {
	in := p.inline(v)
	if !composite(v) || len(indent)+lipgloss.Width(label)+lipgloss.Width(in) <= avail {
		*lines = append(*lines, indent+label+in)
		return
	}
	head := ""
	switch v.Kind {
	case review.ValueVariant, review.ValueOptional:
		head = p.inlineHead(v)
	case review.ValueList:
		head = p.st.faint.Render(format.Plural(len(v.Elements), "element"))
	}
	*lines = append(*lines, strings.TrimRight(indent+label+head, " "))
	p.expand(lines, indent+"  ", v, avail)
}

// inlineHead is the part of an expanded optional or variant written before
// its inner value: "Some", "Left", "Some Left".
func (p *printer) inlineHead(v *review.Value) string {
	switch v.Kind {
	case review.ValueOptional:
		if v.Inner != nil && (v.Inner.Kind == review.ValueOptional || v.Inner.Kind == review.ValueVariant) {
			return "Some " + p.inlineHead(v.Inner)
		}
		return "Some"
	case review.ValueVariant:
		s := format.Escape(v.Constructor)
		if v.Inner != nil && (v.Inner.Kind == review.ValueOptional || v.Inner.Kind == review.ValueVariant) {
			s += " " + p.inlineHead(v.Inner)
		}
		return s
	}
	return ""
}

// inline writes v on one line.
func (p *printer) inline(v *review.Value) string {
	if v == nil {
		return ""
	}
	switch v.Kind {
	case review.ValueUnit:
		return "()"
	case review.ValueBool, review.ValueDate, review.ValueTimestamp:
		return format.Escape(v.Scalar())
	case review.ValueInt64:
		return p.st.amount.Render(v.Scalar())
	case review.ValueNumeric:
		return p.st.amount.Render(format.Escape(v.Scalar())) // exactly as written: 100.00 is not 100.0
	case review.ValueText:
		return quote(v.Scalar())
	case review.ValueParty:
		return p.st.party.Render(p.nm.Party(v.Scalar()))
	case review.ValueContractID:
		return p.st.contract.Render(p.nm.Contract(v.Scalar()))
	case review.ValueEnum:
		return format.Escape(v.Constructor)
	case review.ValueOptional:
		if v.Inner == nil {
			return "None"
		}
		return "Some(" + p.inline(v.Inner) + ")"
	case review.ValueVariant:
		if v.Inner == nil || v.Inner.Kind == review.ValueUnit {
			return format.Escape(v.Constructor)
		}
		return format.Escape(v.Constructor) + " " + p.inline(v.Inner)
	case review.ValueList:
		parts := make([]string, len(v.Elements))
		for i, e := range v.Elements {
			parts[i] = p.inline(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case review.ValueTextMap:
		parts := make([]string, len(v.Entries))
		for i, e := range v.Entries {
			parts[i] = quote(e.Key.Scalar()) + ": " + p.inline(e.Value)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case review.ValueGenMap:
		parts := make([]string, len(v.Entries))
		for i, e := range v.Entries {
			parts[i] = p.inline(e.Key) + " → " + p.inline(e.Value)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case review.ValueRecord:
		parts := make([]string, len(v.Fields))
		for i, f := range v.Fields {
			if f.Label == "" {
				parts[i] = p.inline(f.Value)
			} else {
				parts[i] = format.Escape(f.Label) + ": " + p.inline(f.Value)
			}
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return "?"
}

// wrap breaks s into lines of at most width columns at spaces; a word longer
// than width gets a line of its own.
// quote writes a Daml text value: always quoted, escapes as in Go.
func quote(s string) string { return strconv.Quote(s) }

func wrap(s string, width int) []string {
	if width < 20 {
		width = 20
	}
	var lines []string
	cur := ""
	for _, word := range strings.Fields(s) {
		if cur != "" && lipgloss.Width(cur)+1+lipgloss.Width(word) > width {
			lines = append(lines, cur)
			cur = ""
		}
		if cur != "" {
			cur += " "
		}
		cur += word
	}
	if cur != "" || len(lines) == 0 {
		lines = append(lines, cur)
	}
	return lines
}
