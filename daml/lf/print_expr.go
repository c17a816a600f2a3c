package lf

import (
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Expressions print as a developer would read them in Daml source, for
// `ledger dars inspect`: the signatories, observers, ensure clause, key
// maintainers and choice controllers of a template are Daml-LF
// expressions, and what the compiler makes of `signatory initiator` is
// `$csignatory this` with `$csignatory = \this -> let ds = this.initiator
// in toParties ds`. The printer reads through that: it inlines the
// compiler's own top-level values ($c…, $$sc_…) by substitution, prints
// projections of the template parameter and of the choice argument as bare
// field names, drops toParties, writes comparisons and arithmetic infix and
// other top-level values by name. What it does not read prints as
// ExprUnread. It is bounded: MaxExprDepth nested levels, MaxExprInline
// nested inlinings, MaxExprSteps nodes visited and MaxExprString bytes of
// text, so a hostile package costs no more than a small one.

// ExprUnread stands for an expression the printer does not render.
const ExprUnread = "<expression>"

// The printer's bounds.
const (
	MaxExprDepth  = 48
	MaxExprInline = 12
	MaxExprSteps  = 4096
	MaxExprString = 240
)

// ExprPrinter renders expressions of one package.
type ExprPrinter struct {
	// Lookup finds a top-level value, or returns nil; values the compiler
	// generated are inlined when it finds them.
	Lookup func(ValueName) *Value
	// Fields names the variables whose projections print as bare field
	// names: the template parameter ("this") and the choice argument.
	Fields []string
}

// PackageLookup finds values in the given packages (nil ones skipped).
func PackageLookup(pkgs ...*Package) func(ValueName) *Value {
	return func(n ValueName) *Value {
		for _, p := range pkgs {
			if p == nil || p.ID != n.Package {
				continue
			}
			if m := p.Module(n.Module.String()); m != nil {
				return m.Value(n.Name.String())
			}
		}
		return nil
	}
}

// Print renders e.
func (p ExprPrinter) Print(e Expr) string {
	st := &exprState{lookup: p.Lookup}
	env := map[string]binding{}
	for _, f := range p.Fields {
		env[f] = binding{text: f, prec: precAtom, fields: true}
	}
	out := st.expr(e, env, 0).text
	if len(out) > MaxExprString {
		cut := MaxExprString
		for cut > 0 && !utf8.RuneStart(out[cut]) {
			cut--
		}
		out = out[:cut] + "…"
	}
	return out
}

// PrintApplied renders fn applied to a variable named arg: a key's
// maintainers are a function of the key, read as "maintainer key".
func (p ExprPrinter) PrintApplied(fn Expr, arg string) string {
	return p.Print(&EApp{Fun: fn, Args: []Expr{&EVar{Name: arg}}})
}

// Printed text carries its precedence, so that an argument is put in
// parentheses only where it needs them.
const (
	precLow  = iota // \x -> …, if … then … else …
	precOr          // a || b
	precAnd         // a && b
	precCmp         // a == b, a < b
	precCons        // a :: b
	precAdd         // a + b, a <> b
	precMul         // a * b
	precApp         // f a
	precAtom        // x, x.f, [a], (a, b), literals
)

type printed struct {
	text string
	prec int
}

// binding is what a variable prints as; fields marks a record whose
// projections print as bare field names.
type binding struct {
	text   string
	prec   int
	fields bool
}

type exprState struct {
	lookup func(ValueName) *Value
	steps  int
	inline int
}

var unread = printed{ExprUnread, precAtom}

func paren(p printed, min int) string {
	if p.prec < min {
		return "(" + p.text + ")"
	}
	return p.text
}

// expr renders e, its text cut short of what the final cut keeps: a
// wide expression costs no more text than a narrow one.
func (st *exprState) expr(e Expr, env map[string]binding, depth int) printed {
	p := st.expr1(e, env, depth)
	if len(p.text) > 2*MaxExprString {
		p.text = p.text[:2*MaxExprString]
	}
	return p
}

func (st *exprState) expr1(e Expr, env map[string]binding, depth int) printed {
	st.steps++
	if depth > MaxExprDepth || st.steps > MaxExprSteps {
		return printed{"…", precAtom}
	}
	switch e := e.(type) {
	case *ELocation:
		return st.expr(e.Expr, env, depth)
	case *ETyApp:
		return st.expr(e.Expr, env, depth+1)
	case *ETyAbs:
		return st.expr(e.Body, env, depth+1)
	case *EVar:
		if b, ok := env[e.Name]; ok {
			return printed{b.text, b.prec}
		}
		return printed{e.Name, precAtom}
	case *EBuiltinCon:
		return printed{e.Con.String(), precAtom}
	case *EInt64:
		return printed{strconv.FormatInt(e.Value, 10), precAtom}
	case *ENumeric:
		return printed{numericText(e.Value), precAtom}
	case *EText:
		return printed{textLiteral(e.Value), precAtom}
	case *EDate:
		return printed{"date " + time.Unix(int64(e.Days)*86400, 0).UTC().Format("2006-01-02"), precApp}
	case *ETimestamp:
		return printed{"time " + time.UnixMicro(e.Micros).UTC().Format(time.RFC3339Nano), precApp}
	case *ERecProj:
		if v, ok := e.Record.(*EVar); ok {
			if b, ok := env[v.Name]; ok && b.fields {
				return printed{e.Field, precAtom}
			}
		}
		return printed{paren(st.expr(e.Record, env, depth+1), precAtom) + "." + e.Field, precAtom}
	case *EStructProj:
		return printed{paren(st.expr(e.Struct, env, depth+1), precAtom) + "." + e.Field, precAtom}
	case *ERecCon:
		return st.record(e, env, depth)
	case *EVariantCon:
		arg := st.expr(e.Arg, env, depth+1)
		if arg.text == "()" {
			return printed{e.Con, precAtom}
		}
		return printed{e.Con + " " + paren(arg, precAtom), precApp}
	case *EEnumCon:
		return printed{e.Con, precAtom}
	case *ENil:
		return printed{"[]", precAtom}
	case *ECons:
		return st.cons(e, env, depth)
	case *ENone:
		return printed{"None", precAtom}
	case *ESome:
		return printed{"Some " + paren(st.expr(e.Value, env, depth+1), precAtom), precApp}
	case *ELet:
		inner := copyEnv(env)
		for _, b := range e.Bindings {
			v := st.expr(b.Bound, inner, depth+1)
			inner[b.Binder.Name] = bindingOf(b.Bound, v, inner)
		}
		return st.expr(e.Body, inner, depth+1)
	case *ECase:
		return st.caseExpr(e, env, depth)
	case *EApp:
		return st.app(e, env, depth)
	case *EAbs:
		inner := copyEnv(env)
		names := make([]string, len(e.Params))
		for i, b := range e.Params {
			names[i] = b.Name
			delete(inner, b.Name)
		}
		body := st.expr(e.Body, inner, depth+1)
		return printed{`\` + strings.Join(names, " ") + " -> " + body.text, precLow}
	case *EVal:
		return st.app(&EApp{Fun: e}, env, depth)
	case *EBuiltinFun:
		return printed{builtinName(e.Fun), precAtom}
	// Conversions between a template and its interfaces change nothing a
	// reader needs.
	case *EToInterface:
		return st.expr(e.Expr, env, depth+1)
	case *EFromInterface:
		return st.expr(e.Expr, env, depth+1)
	case *EToRequiredInterface:
		return st.expr(e.Expr, env, depth+1)
	case *EToAny:
		return st.expr(e.Expr, env, depth+1)
	}
	return unread
}

// bindingOf keeps the fields mark of a variable bound to another variable.
func bindingOf(bound Expr, v printed, env map[string]binding) binding {
	if x, ok := stripLocation(bound).(*EVar); ok {
		if b, ok := env[x.Name]; ok {
			return b
		}
	}
	return binding{text: v.text, prec: v.prec}
}

func stripLocation(e Expr) Expr {
	for range MaxExprSteps {
		switch x := e.(type) {
		case *ELocation:
			e = x.Expr
		case *ETyApp:
			e = x.Expr
		case *ETyAbs:
			e = x.Body
		default:
			return e
		}
	}
	return e
}

func copyEnv(env map[string]binding) map[string]binding {
	out := make(map[string]binding, len(env)+2)
	for k, v := range env {
		out[k] = v
	}
	return out
}

func (st *exprState) record(e *ERecCon, env map[string]binding, depth int) printed {
	parts := make([]string, len(e.Fields))
	tuple := strings.HasPrefix(e.Type.Con.Name.String(), "Tuple") && e.Type.Con.Module.String() == "DA.Types"
	for i, f := range e.Fields {
		v := st.expr(f.Expr, env, depth+1)
		if tuple {
			parts[i] = v.text
		} else {
			parts[i] = f.Name + " = " + v.text
		}
	}
	if tuple {
		return printed{"(" + strings.Join(parts, ", ") + ")", precAtom}
	}
	name := e.Type.Con.Name.String()
	if len(parts) == 0 {
		return printed{name, precAtom}
	}
	return printed{name + " with " + strings.Join(parts, "; "), precLow}
}

func (st *exprState) cons(e *ECons, env map[string]binding, depth int) printed {
	parts := make([]string, len(e.Front))
	for i, f := range e.Front {
		parts[i] = st.expr(f, env, depth+1).text
	}
	if _, ok := stripLocation(e.Tail).(*ENil); ok {
		return printed{"[" + strings.Join(parts, ", ") + "]", precAtom}
	}
	var b strings.Builder
	for _, f := range e.Front {
		b.WriteString(paren(st.expr(f, env, depth+1), precCons+1))
		b.WriteString(" :: ")
	}
	b.WriteString(paren(st.expr(e.Tail, env, depth+1), precCons))
	return printed{b.String(), precCons}
}

// caseExpr reads the cases the compiler makes of && and ||, and the ensure
// wrapper (case e of True -> True; False -> throw …), which is e.
func (st *exprState) caseExpr(e *ECase, env map[string]binding, depth int) printed {
	var onTrue, onFalse Expr
	for _, a := range e.Alts {
		switch p := a.Pattern.(type) {
		case PBuiltinCon:
			if p.Con == ConTrue && onTrue == nil {
				onTrue = a.Body
			} else if p.Con == ConFalse && onFalse == nil {
				onFalse = a.Body
			}
		case PDefault:
			if onTrue == nil {
				onTrue = a.Body
			}
			if onFalse == nil {
				onFalse = a.Body
			}
		}
	}
	if onTrue == nil || onFalse == nil {
		return unread
	}
	isCon := func(x Expr, c BuiltinCon) bool {
		b, ok := stripLocation(x).(*EBuiltinCon)
		return ok && b.Con == c
	}
	_, throws := stripLocation(onFalse).(*EThrow)
	scrut := st.expr(e.Scrut, env, depth+1)
	switch {
	case isCon(onTrue, ConTrue) && (throws || isCon(onFalse, ConFalse)):
		return scrut
	case isCon(onFalse, ConFalse):
		return printed{paren(scrut, precAnd+1) + " && " + paren(st.expr(onTrue, env, depth+1), precAnd), precAnd}
	case isCon(onTrue, ConTrue):
		return printed{paren(scrut, precOr+1) + " || " + paren(st.expr(onFalse, env, depth+1), precOr), precOr}
	}
	return printed{"if " + scrut.text + " then " + st.expr(onTrue, env, depth+1).text + " else " + st.expr(onFalse, env, depth+1).text, precLow}
}

// app renders an application, its head unwrapped of locations and type
// applications and its arguments flattened.
func (st *exprState) app(e *EApp, env map[string]binding, depth int) printed {
	// The argument lists, outermost first; the chain is walked within
	// the step budget.
	var lists [][]Expr
	head := Expr(e)
	for ; st.steps <= MaxExprSteps; st.steps++ {
		switch h := head.(type) {
		case *EApp:
			lists = append(lists, h.Args)
			head = h.Fun
			continue
		case *ELocation:
			head = h.Expr
			continue
		case *ETyApp:
			head = h.Expr
			continue
		case *ETyAbs:
			head = h.Body
			continue
		}
		break
	}
	if st.steps > MaxExprSteps {
		return printed{"…", precAtom}
	}
	var args []Expr
	for i := len(lists) - 1; i >= 0; i-- {
		args = append(args, lists[i]...)
	}
	switch h := head.(type) {
	case *EAbs:
		return st.beta(h, args, env, depth)
	case *ELet:
		if len(args) == 0 {
			return st.expr(h, env, depth+1)
		}
		inner := copyEnv(env)
		fresh := st.bindArgs(args, env, inner, depth)
		return st.expr(&ELet{Bindings: h.Bindings, Body: &EApp{Fun: h.Body, Args: fresh}}, inner, depth+1)
	case *EVal:
		return st.value(h.Ref, args, env, depth)
	case *EBuiltinFun:
		if op, prec, ok := builtinInfix(h.Fun); ok && len(args) == 2 {
			return st.infix(op, prec, args[0], args[1], env, depth)
		}
		return st.call(builtinName(h.Fun), args, env, depth)
	case *EVar:
		return st.call(st.expr(h, env, depth+1).text, args, env, depth)
	}
	if len(args) == 0 {
		return st.expr(head, env, depth+1)
	}
	return unread
}

// beta substitutes args for the lambda's parameters; arguments beyond them
// apply to its body.
func (st *exprState) beta(f *EAbs, args []Expr, env map[string]binding, depth int) printed {
	inner := copyEnv(env)
	n := min(len(f.Params), len(args))
	for i := 0; i < n; i++ {
		v := st.expr(args[i], env, depth+1)
		inner[f.Params[i].Name] = bindingOf(args[i], v, env)
	}
	if n < len(f.Params) {
		for _, b := range f.Params[n:] {
			delete(inner, b.Name) // the lambda's own parameter shadows
		}
		return printed{`\` + paramNames(f.Params[n:]) + " -> " + st.expr(f.Body, inner, depth+1).text, precLow}
	}
	if n == len(args) {
		return st.expr(f.Body, inner, depth+1)
	}
	// The body is a function of the remaining arguments.
	return st.expr(&EApp{Fun: f.Body, Args: st.bindArgs(args[n:], env, inner, depth)}, inner, depth+1)
}

// bindArgs binds args, read in env, to fresh variables of inner, so that
// the binders of the function they are applied to cannot capture them.
func (st *exprState) bindArgs(args []Expr, env, inner map[string]binding, depth int) []Expr {
	out := make([]Expr, len(args))
	for i, a := range args {
		name := "\x00" + strconv.Itoa(depth) + "." + strconv.Itoa(i)
		inner[name] = bindingOf(a, st.expr(a, env, depth+1), env)
		out[i] = &EVar{Name: name}
	}
	return out
}

func paramNames(bs []Binder) string {
	names := make([]string, len(bs))
	for i, b := range bs {
		names[i] = b.Name
	}
	return strings.Join(names, " ")
}

// value renders a top-level value applied to args.
func (st *exprState) value(ref ValueName, args []Expr, env map[string]binding, depth int) printed {
	name := DecodeName(ref.Name.String())
	if strings.HasPrefix(name, "$") && st.lookup != nil && st.inline < MaxExprInline {
		if v := st.lookup(ref); v != nil && !isClassMethod(name) {
			st.inline++
			defer func() { st.inline-- }()
			return st.app(&EApp{Fun: v.Body, Args: args}, env, depth+1)
		}
	}
	// Printed by name, a value's dictionary arguments are left out, as
	// Daml source leaves them.
	kept := args[:0:0]
	for _, a := range args {
		if !isDictionary(a) {
			kept = append(kept, a)
		}
	}
	args = kept
	if field, ok := selectorField(name); ok && len(args) >= 1 {
		rec := printed{paren(st.expr(&ERecProj{Field: field, Record: args[0]}, env, depth+1), precAtom), precAtom}
		return st.callPrinted(rec, args[1:], env, depth)
	}
	// A class method prints by its name: its instance is "$c" + name +
	// a number, its selector the bare name.
	if method, ok := strings.CutPrefix(name, "$c"); ok {
		if method = strings.TrimRight(method, "0123456789"); method != "" {
			name = method
		}
	}
	switch {
	case name == "toParties" && len(args) == 1:
		return st.expr(args[0], env, depth+1)
	case isOperator(name) && len(args) == 2:
		return st.infix(name, operatorPrec(name), args[0], args[1], env, depth)
	}
	if isOperator(name) {
		name = "(" + name + ")"
	}
	return st.call(name, args, env, depth)
}

// isDictionary tells a type-class dictionary argument ($fOrdTime), which
// Daml source never writes.
func isDictionary(e Expr) bool {
	v, ok := stripLocation(e).(*EVal)
	return ok && strings.HasPrefix(DecodeName(v.Ref.Name.String()), "$f")
}

// isClassMethod tells the compiler's class-method values ($c>, $ctoParties
// of the standard library) and dictionaries ($fOrdTime) from its other
// values: they print by name.
func isClassMethod(name string) bool {
	if strings.HasPrefix(name, "$f") {
		return true // a dictionary
	}
	m, ok := strings.CutPrefix(name, "$c")
	if !ok {
		return false
	}
	m = strings.TrimRight(m, "0123456789")
	return m == "toParties" || isOperator(m)
}

func (st *exprState) call(name string, args []Expr, env map[string]binding, depth int) printed {
	return st.callPrinted(printed{name, precAtom}, args, env, depth)
}

func (st *exprState) callPrinted(head printed, args []Expr, env map[string]binding, depth int) printed {
	if len(args) == 0 {
		return head
	}
	parts := []string{paren(head, precApp)}
	for _, a := range args {
		if isDictionary(a) {
			continue
		}
		parts = append(parts, paren(st.expr(a, env, depth+1), precAtom))
	}
	if len(parts) == 1 {
		return head
	}
	return printed{strings.Join(parts, " "), precApp}
}

func (st *exprState) infix(op string, prec int, a, b Expr, env map[string]binding, depth int) printed {
	l := st.expr(a, env, depth+1)
	r := st.expr(b, env, depth+1)
	return printed{paren(l, prec+1) + " " + op + " " + paren(r, prec+1), prec}
}

// selectorField reads the compiler's record selector "$sel:field:Record".
func selectorField(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "$sel:")
	if !ok {
		return "", false
	}
	field, _, ok := strings.Cut(rest, ":")
	return field, ok && field != ""
}

var operators = map[string]int{
	"||": precOr, "&&": precAnd,
	"==": precCmp, "/=": precCmp, "<": precCmp, "<=": precCmp, ">": precCmp, ">=": precCmp,
	"+": precAdd, "-": precAdd, "<>": precAdd, "++": precAdd,
	"*": precMul, "/": precMul,
}

func isOperator(s string) bool { _, ok := operators[s]; return ok }

func operatorPrec(s string) int { return operators[s] }

func builtinInfix(f BuiltinFunction) (string, int, bool) {
	switch f {
	case BuiltinEqual:
		return "==", precCmp, true
	case BuiltinLess:
		return "<", precCmp, true
	case BuiltinLessEq:
		return "<=", precCmp, true
	case BuiltinGreater:
		return ">", precCmp, true
	case BuiltinGreaterEq:
		return ">=", precCmp, true
	case BuiltinAddInt64, BuiltinAddNumeric:
		return "+", precAdd, true
	case BuiltinSubInt64, BuiltinSubNumeric:
		return "-", precAdd, true
	case BuiltinMulInt64:
		return "*", precMul, true
	case BuiltinAppendText:
		return "<>", precAdd, true
	}
	return "", 0, false
}

// builtinName writes a builtin as Daml-LF names it, in lower camel case:
// PARTY_TO_TEXT is partyToText.
func builtinName(f BuiltinFunction) string {
	var b strings.Builder
	upper := false
	for _, r := range f.String() {
		switch {
		case r == '_':
			upper = true
		case upper:
			b.WriteRune(r)
			upper = false
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// DecodeName undoes Daml-LF's name mangling: "$$" is "$" and "$uXXXX" or
// "$UXXXXXXXX" a code point, so "$$c$u003e1" reads "$c>1".
func DecodeName(s string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '$' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		switch n := s[i+1]; {
		case n == '$':
			b.WriteByte('$')
			i++
			continue
		case (n == 'u' && i+6 <= len(s)) || (n == 'U' && i+10 <= len(s)):
			width := 4
			if n == 'U' {
				width = 8
			}
			if r, err := strconv.ParseUint(s[i+2:i+2+width], 16, 32); err == nil && utf8.ValidRune(rune(r)) {
				b.WriteRune(rune(r))
				i += 1 + width
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// numericText writes a Numeric literal without the zeros its scale pads it
// with: "0.0000000000" is "0.0".
func numericText(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	if strings.HasSuffix(s, ".") {
		s += "0"
	}
	return s
}

// textLiteral quotes a text literal, cut at 40 characters.
func textLiteral(s string) string {
	if utf8.RuneCountInString(s) > 40 {
		r := []rune(s)
		return strconv.Quote(string(r[:40])) + "…"
	}
	return strconv.Quote(s)
}
