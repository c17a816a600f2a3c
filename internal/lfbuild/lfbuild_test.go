package lfbuild_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/validate"
	lb "github.com/ledger-cli/ledger/internal/lfbuild"
	"github.com/ledger-cli/ledger/node"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/node/local"
	"github.com/ledger-cli/ledger/server"
	"github.com/ledger-cli/ledger/server/auth"
)

// tester is a template with a choice that throws and catches, one that
// throws uncaught, a recursive type and an enum: most of what the builder
// writes.
func tester() *lb.Package {
	p := lb.New("lfbuild-test", "1.0.0", "LfBuild.Test")
	this := lb.Var("this")
	party := lb.Proj("Tester", "p", this)
	sigs := lb.List(lb.TParty, party)
	p.Record("Tester", lb.F("p", lb.TParty), lb.F("color", lb.TCon("Color")))
	p.Enum("Color", "Red", "Green")
	p.Variant("Nat", lb.F("Z", lb.TUnit), lb.F("S", lb.TCon("Nat")))
	p.Record("E", lb.F("t", lb.TText))
	p.Exception("E", lb.Lam([]lb.Field{lb.F("e", lb.TCon("E"))}, lb.Proj("E", "t", lb.Var("e"))))
	p.Record("Archive")
	p.Record("ThrowCaught")
	p.Record("ThrowUncaught")
	p.Record("Count", lb.F("n", lb.TCon("Nat")))
	p.Record("TesterView", lb.F("p", lb.TParty))
	p.Record("Ping")
	owner := lb.List(lb.TParty, lb.CallInterface("TesterIface", "getOwner", lb.Var("i")))
	p.InterfaceOf(lb.InterfaceDef{Name: "TesterIface", Param: "i", View: lb.TCon("TesterView"),
		Methods: []lb.Field{lb.F("getOwner", lb.TParty)},
		Choices: []lb.Choice{{Name: "Ping", Controllers: owner, ArgName: "arg", ArgType: lb.TCon("Ping"), ReturnType: lb.TText,
			Update: lb.Pure(lb.TText, lb.Text("pong"))}}})
	// toInt : Nat -> Int64, recursive through the top-level value.
	p.Value("toInt", lb.TArrow(lb.TCon("Nat"), lb.TInt64), lb.Lam([]lb.Field{lb.F("n", lb.TCon("Nat"))},
		lb.Case(lb.Var("n"),
			lb.VariantAlt("Nat", "Z", "u", lb.Int(0)),
			lb.VariantAlt("Nat", "S", "m", lb.App(lb.Builtin(lb.AddInt64), lb.Int(1), lb.App(lb.Val("toInt"), lb.Var("m")))))))
	// The other case alternatives and an embedded update, checked by the
	// type checker.
	p.Value("firstOr", lb.TArrow(lb.TList(lb.TInt64), lb.TInt64), lb.Lam([]lb.Field{lb.F("xs", lb.TList(lb.TInt64))},
		lb.Case(lb.Var("xs"), lb.NilAlt(lb.Int(0)), lb.ConsAlt("h", "t", lb.Var("h")))))
	p.Value("colorCode", lb.TArrow(lb.TCon("Color"), lb.TInt64), lb.Lam([]lb.Field{lb.F("c", lb.TCon("Color"))},
		lb.Case(lb.Var("c"), lb.EnumAlt("Color", "Red", lb.Int(1)), lb.Default(lb.Int(2)))))
	p.Value("later", lb.TUpdate(lb.TInt64), lb.Embed(lb.TInt64, lb.Pure(lb.TInt64, lb.App(lb.Val("colorCode"), lb.Enum("Color", "Green")))))
	throwE := func(ret lb.Type, text string) lb.Expr {
		return lb.Throw(ret, lb.TCon("E"), lb.Record("E", lb.FE("t", lb.Text(text))))
	}
	p.Template(lb.Template{Name: "Tester", Param: "this", Signatories: sigs,
		Implements: []lb.Implementation{{Interface: "TesterIface", View: lb.Record("TesterView", lb.FE("p", party)),
			Methods: []lb.FieldExpr{lb.FE("getOwner", party)}}}, Choices: []lb.Choice{
			lb.Archive("Archive", sigs),
			{Name: "ThrowCaught", Controllers: sigs, ArgName: "arg", ArgType: lb.TCon("ThrowCaught"), ReturnType: lb.TText,
				Update: lb.TryCatch(lb.TText, throwE(lb.TUpdate(lb.TText), "caught"), "x",
					lb.Case(lb.FromAnyException(lb.TCon("E"), lb.Var("x")),
						lb.SomeAlt("e", lb.Some(lb.TUpdate(lb.TText), lb.Pure(lb.TText, lb.Proj("E", "t", lb.Var("e"))))),
						lb.NoneAlt(lb.None(lb.TUpdate(lb.TText)))))},
			{Name: "ThrowUncaught", Controllers: sigs, ArgName: "arg", ArgType: lb.TCon("ThrowUncaught"), ReturnType: lb.TUnit,
				Update: throwE(lb.TUpdate(lb.TUnit), "uncaught message")},
			{Name: "Count", Controllers: sigs, ArgName: "arg", ArgType: lb.TCon("Count"), ReturnType: lb.TInt64,
				Update: lb.Pure(lb.TInt64, lb.App(lb.Val("toInt"), lb.Proj("Count", "n", lb.Var("arg"))))},
		}})
	return p
}

func TestBuiltPackageDecodesAndValidates(t *testing.T) {
	dar, id := tester().DAR()
	d, err := archive.DecodeDar(dar, archive.Options{})
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if string(d.Main) != id {
		t.Fatalf("main package %s, want %s", d.Main, id)
	}
	pkg := d.MainPackage()
	if pkg.Name != "lfbuild-test" || pkg.LanguageVersion.Minor != 1 {
		t.Errorf("package %s, LF %v", pkg.Name, pkg.LanguageVersion)
	}
	lookup := func(id lf.PackageID) *lf.Package { return d.Package(id) }
	if err := validate.Packages(context.Background(), []*lf.Package{pkg}, lookup, validate.Options{}); err != nil {
		t.Fatalf("validate: %v", err)
	}
	// The same declarations give the same bytes, hence the same id.
	if _, again := tester().DAR(); again != id {
		t.Errorf("package id %s then %s", id, again)
	}
}

// The built package uploads to a node, and its code runs there: a choice
// that throws and catches answers the exception's text, one that throws
// uncaught fails with the exception's message, a recursive value counts.
func TestBuiltPackageRunsOnANode(t *testing.T) {
	n, err := local.Open(context.Background(), local.Config{DBPath: filepath.Join(t.TempDir(), "ledger.db"), Node: node.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	run, err := server.Start(context.Background(), n, server.Config{Addr: "127.0.0.1:0", Auth: auth.Config{Mode: auth.ModeNone},
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { run.Close() })
	post := func(path, ctype string, body []byte) (int, []byte) {
		t.Helper()
		resp, err := http.Post(run.URL()+path, ctype, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	postJSON := func(path string, v any) (int, []byte) {
		b, _ := json.Marshal(v)
		return post(path, "application/json", b)
	}
	dar, _ := tester().DAR()
	if st, b := post("/v2/dars", "application/octet-stream", dar); st != 200 {
		t.Fatalf("upload: %d %s", st, b)
	}
	st, b := postJSON("/v2/parties", map[string]any{"partyIdHint": "alice"})
	if st != 200 {
		t.Fatalf("allocate: %d %s", st, b)
	}
	var alloc struct {
		PartyDetails struct{ Party string } `json:"partyDetails"`
	}
	json.Unmarshal(b, &alloc)
	alice := alloc.PartyDetails.Party
	tpl := "#lfbuild-test:LfBuild.Test:Tester"
	seq := 0
	submit := func(cmd map[string]any) (int, []byte) {
		seq++
		return postJSON("/v2/commands/submit-and-wait-for-transaction", map[string]any{
			"commands": map[string]any{"commands": []any{cmd}, "commandId": "c" + string(rune('a'+seq)), "actAs": []string{alice}, "userId": ledger.AdminUserID},
			"transactionFormat": map[string]any{"eventFormat": map[string]any{"filtersByParty": map[string]any{alice: map[string]any{}}, "verbose": true},
				"transactionShape": "TRANSACTION_SHAPE_LEDGER_EFFECTS"}})
	}
	st, b = submit(map[string]any{"CreateCommand": map[string]any{"templateId": tpl, "createArguments": map[string]any{"p": alice, "color": "Green"}}})
	if st != 200 {
		t.Fatalf("create: %d %s", st, b)
	}
	var created struct {
		Transaction struct {
			Events []map[string]struct {
				ContractID     string          `json:"contractId"`
				ExerciseResult json.RawMessage `json:"exerciseResult"`
			} `json:"events"`
		} `json:"transaction"`
	}
	json.Unmarshal(b, &created)
	cid := created.Transaction.Events[0]["CreatedEvent"].ContractID
	exercise := func(choice string, arg any) (int, []byte) {
		return submit(map[string]any{"ExerciseCommand": map[string]any{"templateId": tpl, "contractId": cid, "choice": choice, "choiceArgument": arg}})
	}
	result := func(b []byte) string {
		var r = created
		r.Transaction.Events = nil
		json.Unmarshal(b, &r)
		return string(r.Transaction.Events[0]["ExercisedEvent"].ExerciseResult)
	}
	if st, b := exercise("ThrowCaught", map[string]any{}); st != 200 || result(b) != `"caught"` {
		t.Errorf("ThrowCaught: %d %s", st, b)
	}
	if st, b := exercise("ThrowUncaught", map[string]any{}); st == 200 || !strings.Contains(string(b), "uncaught message") || !strings.Contains(string(b), "UNHANDLED_EXCEPTION") {
		t.Errorf("ThrowUncaught: %d %s, want an unhandled exception with its message", st, b)
	}
	// The interface's choice, through the interface, controlled by its method.
	if st, b := submit(map[string]any{"ExerciseCommand": map[string]any{"templateId": "#lfbuild-test:LfBuild.Test:TesterIface",
		"contractId": cid, "choice": "Ping", "choiceArgument": map[string]any{}}}); st != 200 || result(b) != `"pong"` {
		t.Errorf("Ping through the interface: %d %s", st, b)
	}
	three := map[string]any{"tag": "S", "value": map[string]any{"tag": "S", "value": map[string]any{"tag": "S", "value": map[string]any{"tag": "Z", "value": map[string]any{}}}}}
	if st, b := exercise("Count", map[string]any{"n": three}); st != 200 || result(b) != `"3"` {
		t.Errorf("Count: %d %s", st, b)
	}
}

// A template with a key makes a Daml-LF 2.3 package: the key, fetch_by_key
// and query_n_by_key decode, type arguments are written as type
// applications (2.3 refuses them in place), and with daml-prim's DA.Types
// (TTuple2) carried beside it, taken from a real DAR, the package type
// checks, a projection of the pair (Tuple2Proj) included.
func TestKeyedPackageDecodesAndValidates(t *testing.T) {
	ping, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "dars", "canton-builtin-admin-workflow-ping.dar"))
	if err != nil {
		t.Skip("canton-builtin-admin-workflow-ping.dar not found in ../shared/dars beside the repository; skipping")
	}
	pd, err := archive.DecodeDar(ping, archive.Options{KeepArchives: true})
	if err != nil {
		t.Fatal(err)
	}
	dalf := pd.Archives[lf.PackageID(lb.Tuple2Package)]
	if dalf == nil {
		t.Fatalf("the Ping DAR has no %s", lb.Tuple2Package)
	}
	p := lb.New("lfbuild-keys", "1.0.0", "Keys")
	owner := lb.Proj("Account", "owner", lb.Var("this"))
	sigs := lb.List(lb.TParty, owner)
	found := lb.TTuple2(lb.TContractID(lb.TCon("Account")), lb.TCon("Account"))
	p.Record("Account", lb.F("owner", lb.TParty))
	p.Record("Archive")
	p.Record("Find")
	p.Record("Query")
	p.Record("FindID")
	tCid := lb.TContractID(lb.TCon("Account"))
	p.Template(lb.Template{Name: "Account", Param: "this", Signatories: sigs,
		Key: &lb.Key{Type: lb.TParty, Body: owner, Maintainers: lb.Lam([]lb.Field{lb.F("k", lb.TParty)}, lb.List(lb.TParty, lb.Var("k")))},
		Choices: []lb.Choice{lb.Archive("Archive", sigs),
			{Name: "Find", Controllers: sigs, ArgName: "arg", ArgType: lb.TCon("Find"), ReturnType: found,
				Update: lb.App(lb.FetchByKey("Account"), owner)},
			{Name: "Query", Controllers: sigs, ArgName: "arg", ArgType: lb.TCon("Query"), ReturnType: lb.TOptional(lb.TList(found)),
				Update: lb.App(lb.QueryNByKey("Account"), lb.Int(2), owner)},
			// the contract id of the pair fetch_by_key returns (Tuple2Proj)
			{Name: "FindID", Controllers: sigs, ArgName: "arg", ArgType: lb.TCon("FindID"), ReturnType: tCid,
				Update: lb.Do([]lb.Binding{{Name: "found", Type: found, Bound: lb.App(lb.FetchByKey("Account"), owner)}},
					lb.Pure(tCid, lb.Tuple2Proj("_1", tCid, lb.TCon("Account"), lb.Var("found"))))}}})
	p.Dependency("daml-prim/"+lb.Tuple2Package+".dalf", dalf)
	dar, id := p.DAR()
	d, err := archive.DecodeDar(dar, archive.Options{})
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	pkg := d.MainPackage()
	if string(d.Main) != id || pkg.LanguageVersion.Minor != 3 {
		t.Fatalf("main package %s at LF %v, want %s at 2.3", d.Main, pkg.LanguageVersion, id)
	}
	if tpl := pkg.Modules[0].Template("Account"); tpl == nil || tpl.Key == nil {
		t.Fatalf("template Account has no key: %+v", tpl)
	}
	lookup := func(id lf.PackageID) *lf.Package { return d.Package(id) }
	if err := validate.Packages(context.Background(), []*lf.Package{pkg}, lookup, validate.Options{}); err != nil {
		t.Fatalf("validate: %v", err)
	}
}
