package lf_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/lf"
)

func sharedDar(t testing.TB, name string) *archive.Dar {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "dars", name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("real DAR not found at %s (the shared folder beside the repository); skipping", path)
	}
	d, err := archive.ReadDarFile(path, archive.Options{AllowDev: true})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestPrintExprRealDars reads the clauses of real templates as their .daml
// sources write them.
func TestPrintExprRealDars(t *testing.T) {
	type want struct{ dar, template, clause, text string }
	tests := []want{
		{"canton-builtin-admin-workflow-ping.dar", "Canton.Internal.Ping:Ping", "signatory", "initiator"},
		{"canton-builtin-admin-workflow-ping.dar", "Canton.Internal.Ping:Ping", "observer", "responder"},
		{"canton-builtin-admin-workflow-ping.dar", "Canton.Internal.Ping:Ping", "ensure", "True"},
		{"canton-builtin-admin-workflow-ping.dar", "Canton.Internal.Ping:Ping", "controller Respond", "responder"},
		{"canton-builtin-admin-workflow-ping.dar", "Canton.Internal.Ping:Ping", "controller AbortPing", "anyone"},
		{"canton-builtin-admin-workflow-ping.dar", "Canton.Internal.Bong:BongProposal", "ensure", "unique candidates && unique validators && length candidates > 0"},
		{"canton-builtin-admin-workflow-ping.dar", "Canton.Internal.Bong:Bong", "signatory", "concat [responder, initiator]"},
		{"splice-amulet-0.1.14.dar", "Splice.Amulet:Amulet", "ensure", "validExpiringAmount amount"},
		{"splice-amulet-0.1.14.dar", "Splice.Amulet:AppRewardCoupon", "ensure", "amount > 0.0"},
		{"splice-amulet-0.1.14.dar", "Splice.Amulet:FeaturedAppActivityMarker", "ensure", "0.0 < weight && weight <= 1.0"},
		{"splice-amulet-0.1.14.dar", "Splice.Amulet:LockedAmulet", "signatory", "concat [concat [amulet.owner, amulet.dso], lock.holders]"},
		{"splice-amulet-0.1.14.dar", "Splice.AmuletRules:TransferPreapproval", "ensure", "expiresAt > validFrom && lastRenewedAt >= validFrom"},
		{"DamlDefinitionsServiceMain.dar", "ExternalDep:TemplateFoo", "key", "someParty"},
		{"DamlDefinitionsServiceMain.dar", "ExternalDep:TemplateFoo", "maintainer", "key"},
		{"DamlDefinitionsServiceMain.dar", "ExternalDep:TemplateBar", "key", "(anotherParty, someRecordForKey)"},
		{"DamlDefinitionsServiceMain.dar", "ExternalDep:TemplateBar", "maintainer", "key._1"},
		{"DamlDefinitionsServiceMain.dar", "ExternalDep:TemplateFoo", "controller SourceTemplate_Args_RetRecord", "someParty"},
	}
	dars := map[string]*archive.Dar{}
	for _, tt := range tests {
		d := dars[tt.dar]
		if d == nil {
			d = sharedDar(t, tt.dar)
			dars[tt.dar] = d
		}
		module, name, _ := strings.Cut(tt.template, ":")
		var tpl *lf.Template
		for _, p := range d.Packages {
			if m := p.Module(module); m != nil && m.Template(name) != nil {
				tpl = m.Template(name)
			}
		}
		if tpl == nil {
			t.Fatalf("%s: no template %s", tt.dar, tt.template)
		}
		pr := lf.ExprPrinter{Lookup: lf.PackageLookup(d.Packages...), Fields: []string{tpl.Param}}
		var got string
		switch clause, choice, _ := strings.Cut(tt.clause, " "); clause {
		case "signatory":
			got = pr.Print(tpl.Signatories)
		case "observer":
			got = pr.Print(tpl.Observers)
		case "ensure":
			got = pr.Print(tpl.Precond)
		case "key":
			got = pr.Print(tpl.Key.Body)
		case "maintainer":
			got = lf.ExprPrinter{Lookup: pr.Lookup}.PrintApplied(tpl.Key.Maintainers, "key")
		case "controller":
			c := tpl.Choice(choice)
			pr.Fields = append(pr.Fields, c.ArgBinder.Name)
			got = pr.Print(c.Controllers)
		}
		if got != tt.text {
			t.Errorf("%s %s %s: got %q, want %q", tt.dar, tt.template, tt.clause, got, tt.text)
		}
	}
}

// TestPrintExprEveryRealClause prints every clause of every template of
// the real DARs: none is left unread, and each is short.
func TestPrintExprEveryRealClause(t *testing.T) {
	for _, name := range []string{"splice-amulet-0.1.14.dar", "splice-wallet-0.1.14.dar", "DamlDefinitionsServiceMain.dar"} {
		d := sharedDar(t, name)
		look := lf.PackageLookup(d.Packages...)
		for _, p := range d.Packages {
			for _, m := range p.Modules {
				for _, tpl := range m.Templates {
					pr := lf.ExprPrinter{Lookup: look, Fields: []string{tpl.Param}}
					texts := []string{pr.Print(tpl.Signatories), pr.Print(tpl.Observers), pr.Print(tpl.Precond)}
					for _, c := range tpl.Choices {
						cp := lf.ExprPrinter{Lookup: look, Fields: []string{tpl.Param, c.ArgBinder.Name}}
						texts = append(texts, cp.Print(c.Controllers))
					}
					for _, s := range texts {
						if strings.Contains(s, lf.ExprUnread) || len(s) > lf.MaxExprString+len("…") {
							t.Errorf("%s %s:%s: %q", name, m.Name, tpl.Name, s)
						}
					}
				}
			}
		}
	}
}

func val(module, name string) lf.ValueName {
	return lf.ValueName{Package: "p", Module: lf.DottedName{module}, Name: lf.DottedName{name}}
}

// TestPrintExprBounded: expressions built to be expensive print within the
// bounds, quickly.
func TestPrintExprBounded(t *testing.T) {
	// A value that applies itself: inlining stops.
	self := &lf.Value{Name: lf.DottedName{"$$sc_loop"}}
	self.Body = &lf.EAbs{Params: []lf.Binder{{Name: "x"}}, Body: &lf.EApp{Fun: &lf.EVal{Ref: val("M", "$$sc_loop")}, Args: []lf.Expr{&lf.EVar{Name: "x"}}}}
	// Values that each use the next twice: 2^40 nodes unless budgeted.
	vals := map[string]*lf.Value{"$$sc_loop": self}
	for i := 0; i < 40; i++ {
		next := &lf.EVal{Ref: val("M", "$$sc_d"+string(rune('a'+i+1)))}
		if i == 39 {
			next = &lf.EVal{Ref: val("M", "plain")}
		}
		vals["$$sc_d"+string(rune('a'+i))] = &lf.Value{Body: &lf.ECons{Front: []lf.Expr{next, next}, Tail: &lf.ENil{}}}
	}
	look := func(n lf.ValueName) *lf.Value { return vals[n.Name.String()] }
	// A deep chain of Somes.
	var deep lf.Expr = &lf.EVar{Name: "x"}
	for i := 0; i < 100000; i++ {
		deep = &lf.ESome{Value: deep}
	}
	// A long list literal.
	long := &lf.ECons{Tail: &lf.ENil{}}
	for i := 0; i < 100000; i++ {
		long.Front = append(long.Front, &lf.EText{Value: strings.Repeat("x", 100)})
	}
	// A deep chain of applications and of locations.
	var apps lf.Expr = &lf.EVar{Name: "f"}
	for i := 0; i < 100000; i++ {
		apps = &lf.ELocation{Expr: &lf.EApp{Fun: apps, Args: []lf.Expr{&lf.EInt64{Value: int64(i)}}}}
	}
	for _, tt := range []struct {
		name string
		e    lf.Expr
	}{
		{"self application", &lf.EApp{Fun: &lf.EVal{Ref: val("M", "$$sc_loop")}, Args: []lf.Expr{&lf.EVar{Name: "y"}}}},
		{"doubling values", &lf.EVal{Ref: val("M", "$$sc_da")}},
		{"deep", deep},
		{"long list", long},
		{"deep application", apps},
		{"unread", &lf.EUpdate{Update: &lf.UGetTime{}}},
	} {
		start := time.Now()
		got := lf.ExprPrinter{Lookup: look}.Print(tt.e)
		if took := time.Since(start); took > time.Second {
			t.Errorf("%s: took %v", tt.name, took)
		}
		if len(got) > lf.MaxExprString+len("…") || got == "" {
			t.Errorf("%s: %d bytes: %.80q", tt.name, len(got), got)
		}
		t.Logf("%s: %.60q", tt.name, got)
	}
}

func TestDecodeName(t *testing.T) {
	for in, want := range map[string]string{
		"$$csignatory":                 "$csignatory",
		"$$c$u003e$u003d1":             "$c>=1",
		"$$sel$u003aowner$u003aAmulet": "$sel:owner:Amulet",
		"$$$$sc_Ping_3":                "$$sc_Ping_3",
		"plain":                        "plain",
		"bad$u00zz":                    "bad$u00zz",
		"$U0001F600":                   "😀",
		"trailing$":                    "trailing$",
	} {
		if got := lf.DecodeName(in); got != want {
			t.Errorf("DecodeName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPrintExprShapes: the common shapes, read with the template
// parameter "this" and the choice argument "arg".
func TestPrintExprShapes(t *testing.T) {
	this := &lf.EVar{Name: "this"}
	proj := func(f string, r lf.Expr) lf.Expr { return &lf.ERecProj{Field: f, Record: r} }
	fn := func(name string) lf.Expr { return &lf.EVal{Ref: val("M", name)} }
	app := func(f lf.Expr, args ...lf.Expr) lf.Expr { return &lf.EApp{Fun: f, Args: args} }
	vals := map[string]*lf.Value{
		// \x y -> y.owner, applied to one argument: a function of y.
		"$$sc_partial": {Body: &lf.EAbs{Params: []lf.Binder{{Name: "x"}, {Name: "this"}}, Body: proj("owner", this)}},
	}
	look := func(n lf.ValueName) *lf.Value { return vals[n.Name.String()] }
	for _, tt := range []struct {
		e    lf.Expr
		want string
	}{
		{proj("owner", this), "owner"},
		{proj("anyone", &lf.EVar{Name: "arg"}), "anyone"},
		{proj("f", &lf.EVar{Name: "other"}), "other.f"},
		{&lf.ECons{Front: []lf.Expr{proj("a", this), proj("b", this)}, Tail: &lf.ENil{}}, "[a, b]"},
		{&lf.ECons{Front: []lf.Expr{proj("a", this)}, Tail: proj("rest", this)}, "a :: rest"},
		{&lf.ESome{Value: proj("a", this)}, "Some a"},
		{app(fn("$$ctoParties"), fn("$$fIsPartiesParty"), proj("a", this)), "a"},
		{app(fn("validate"), proj("a", this), &lf.ENumeric{Value: "1.5000000000", Scale: 10}), "validate a 1.5"},
		{app(&lf.EBuiltinFun{Fun: lf.BuiltinAddInt64}, proj("a", this), app(&lf.EBuiltinFun{Fun: lf.BuiltinMulInt64}, &lf.EInt64{Value: 2}, proj("b", this))), "a + 2 * b"},
		{app(&lf.EBuiltinFun{Fun: lf.BuiltinMulInt64}, app(&lf.EBuiltinFun{Fun: lf.BuiltinAddInt64}, &lf.EInt64{Value: 1}, proj("b", this)), &lf.EInt64{Value: 2}), "(1 + b) * 2"},
		{app(&lf.EBuiltinFun{Fun: lf.BuiltinPartyToText}, proj("a", this)), "partyToText a"},
		{app(fn("$$sc_partial"), &lf.EInt64{Value: 1}), `\this -> this.owner`},
		{&lf.EText{Value: "a\x00b"}, `"a\x00b"`},
		{&lf.EUpdate{Update: &lf.UGetTime{}}, lf.ExprUnread},
	} {
		if got := (lf.ExprPrinter{Lookup: look, Fields: []string{"this", "arg"}}).Print(tt.e); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}
