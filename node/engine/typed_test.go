package engine

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/engine/preprocess"
	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"google.golang.org/protobuf/proto"
)

const (
	pingID   = "de2cc2f90eb523414ff54e899951dadd8789a4c07e0f71f6d6c9eaf57d412a54"
	pingName = "canton-builtin-admin-workflow-ping"
	pingTmpl = "#" + pingName + ":Canton.Internal.Ping:Ping"
)

var (
	pingOnce sync.Once
	pingDar  *archive.Dar
	pingErr  error
)

// pingPackages decodes the Ping DAR of daml/archive/testdata once.
func pingPackages(t testing.TB) []*lf.Package {
	t.Helper()
	pingOnce.Do(func() {
		pingDar, pingErr = archive.ReadDarFile(filepath.Join("..", "..", "daml", "archive", "testdata", "canton-builtin-admin-workflow-ping.dar"), archive.Options{})
	})
	if pingErr != nil {
		t.Fatal(pingErr)
	}
	return pingDar.Packages
}

func withPackages(set *PackageSet) func(*Config) {
	return func(c *Config) { c.Packages = func() *PackageSet { return set } }
}

func createNode(t *testing.T, p *Prepared) *damlpb.Create {
	t.Helper()
	c := p.PreparedTransaction.GetTransaction().GetNodes()[0].GetV1().GetCreate()
	if c == nil {
		t.Fatal("node 0 is not a create")
	}
	return c
}

// TestTypedPing creates a Ping with its fields in another order and a
// responder the generic model would not take for a party (the type says
// it is one; the node knows it, or the create is UNKNOWN_INFORMEES), then
// exercises AbortPing: the transaction carries the values as Canton's
// engine writes them and the events show them by their types.
func TestTypedPing(t *testing.T) {
	f := newFixture(t, withPackages(PackageSetOf(pingPackages(t)...)))
	carol := "carol::1220feed"
	f.ledger.parties[carol] = true
	p, err := f.eng.Prepare(context.Background(), prepareReq(f.alice,
		createCmd(pingTmpl, `{"responder":"`+carol+`","id":"ping-1","initiator":"`+f.alice+`"}`)), "user1")
	if err != nil {
		t.Fatal(err)
	}
	c := createNode(t, p)
	want := &damlpb.Value{Sum: &damlpb.Value_Record{Record: &damlpb.Record{
		RecordId: &damlpb.Identifier{PackageId: pingID, ModuleName: "Canton.Internal.Ping", EntityName: "Ping"},
		Fields: []*damlpb.RecordField{
			{Label: "id", Value: &damlpb.Value{Sum: &damlpb.Value_Text{Text: "ping-1"}}},
			{Label: "initiator", Value: &damlpb.Value{Sum: &damlpb.Value_Party{Party: f.alice}}},
			{Label: "responder", Value: &damlpb.Value{Sum: &damlpb.Value_Party{Party: carol}}},
		}}}}
	if !proto.Equal(c.GetArgument(), want) {
		t.Errorf("argument %v\nwant %v", c.GetArgument(), want)
	}
	if c.GetPackageName() != pingName || c.GetTemplateId().GetPackageId() != pingID {
		t.Errorf("template %v of package %q", c.GetTemplateId(), c.GetPackageName())
	}
	if strings.Join(c.GetStakeholders(), ",") != strings.Join(sortedSet(map[string]bool{f.alice: true, carol: true}), ",") {
		t.Errorf("stakeholders %v", c.GetStakeholders())
	}
	f.ledger.parties[carol] = true
	o, err := f.eng.Execute(context.Background(), executeReq(p, f.alice, f.aliceK), "user1", f.ledger.lookupKeys)
	if err != nil {
		t.Fatal(err)
	}
	at := f.ledger.commit(t, o, f.now)
	tree, _ := json.Marshal(o.Tree(at))
	if !strings.Contains(string(tree), `"createArgument":{"id":"ping-1","initiator":"`+f.alice+`","responder":"`+carol+`"}`) {
		t.Errorf("tree %s", tree)
	}

	cid := o.Transaction.Created[0].ContractID
	p, err = f.eng.Prepare(context.Background(), prepareReq(f.alice,
		exerciseCmd(pingTmpl, cid, "AbortPing", `{"anyone":"`+f.alice+`"}`)), "user1")
	if err != nil {
		t.Fatal(err)
	}
	x := p.PreparedTransaction.GetTransaction().GetNodes()[0].GetV1().GetExercise()
	arg := x.GetChosenValue().GetRecord()
	if arg.GetRecordId().GetEntityName() != "AbortPing" || arg.GetFields()[0].GetLabel() != "anyone" || arg.GetFields()[0].GetValue().GetParty() != f.alice {
		t.Errorf("chosen value %v", x.GetChosenValue())
	}
	o, err = f.eng.Execute(context.Background(), executeReq(p, f.alice, f.aliceK), "user1", f.ledger.lookupKeys)
	if err != nil {
		t.Fatal(err)
	}
	tree, _ = json.Marshal(o.Tree(f.ledger.commit(t, o, f.now)))
	if !strings.Contains(string(tree), `"choiceArgument":{"anyone":"`+f.alice+`"}`) {
		t.Errorf("tree %s", tree)
	}
}

// TestTypedCreateVectors prepares the creates of the wallet visualizer's
// vectors, transactions of Canton participants, with the package of their
// template under that vector's package id and name: the argument is
// Canton's, byte for byte (record id, labels, an Optional field). For Ping,
// whose signatory acts and whose observer is in its argument, the generic
// model's parties are Canton's too, so the whole create node is, but for
// the contract id, which the node derives its own way.
func TestTypedCreateVectors(t *testing.T) {
	cases := []struct {
		vector, dar, module, entity, args string
		wholeNode                         bool
	}{
		{"create_ping", "", "Canton.Internal.Ping", "Ping", `{"initiator":%q,"responder":%q,"id":"ping_id"}`, true},
		{"transfer_preapproval_proposal", "splice-wallet-0.1.14.dar", "Splice.Wallet.TransferPreapproval", "TransferPreapprovalProposal",
			`{"expectedDso":"DSO::1220bbd000b6987573b8c09f444e4df5509af8997b839109d7e2c212d547f0af0950","provider":%[2]q,"receiver":%[1]q}`, false},
	}
	for _, c := range cases {
		t.Run(c.vector, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "vectors", "wallet-tx-visualizer", c.vector+".prepared_transaction.b64"))
			if err != nil {
				t.Fatal(err)
			}
			raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			var vector damlpb.PreparedTransaction
			if err := proto.Unmarshal(raw, &vector); err != nil {
				t.Fatal(err)
			}
			want := vector.GetTransaction().GetNodes()[0].GetV1().GetCreate()
			pkgs := pingPackages(t)
			if c.dar != "" {
				d, err := archive.ReadDarFile(filepath.Join("..", "..", "..", "shared", "dars", c.dar), archive.Options{})
				if os.IsNotExist(errors.Unwrap(err)) {
					t.Skipf("real DAR %s not found in ../shared/dars; skipping", c.dar)
				}
				if err != nil {
					t.Fatal(err)
				}
				pkgs = d.Packages
			}
			// The vector's package: the template under another id and name.
			var pkg lf.Package
			for _, p := range pkgs {
				if _, ok := p.Template(c.module, c.entity); ok {
					pkg = *p
				}
			}
			pkg.ID, pkg.Name = lf.PackageID(want.GetTemplateId().GetPackageId()), want.GetPackageName()
			// The renamed package's code still names the original, which
			// the interpreter therefore needs too.
			f := newFixture(t, withPackages(PackageSetOf(append([]*lf.Package{lf.NewPackage(pkg)}, pkgs...)...)))
			signatory := want.GetSignatories()[0]
			other := want.GetStakeholders()[0]
			if other == signatory {
				other = want.GetStakeholders()[1]
			}
			f.ledger.parties[signatory], f.ledger.parties[other] = true, true
			p, err := f.eng.Prepare(context.Background(), prepareReq(signatory, createCmd("#"+want.GetPackageName()+":"+c.module+":"+c.entity,
				fmt.Sprintf(c.args, signatory, other))), "user1")
			if err != nil {
				t.Fatal(err)
			}
			got := proto.Clone(createNode(t, p)).(*damlpb.Create)
			if !proto.Equal(got.GetArgument(), want.GetArgument()) {
				t.Errorf("argument\n got %v\nwant %v", got.GetArgument(), want.GetArgument())
			}
			got.ContractId = want.GetContractId()
			if c.wholeNode && !proto.Equal(got, want) {
				t.Errorf("create node\n got %v\nwant %v", got, want)
			}
		})
	}
}

// TestTypedErrors checks Canton's refusals of typed commands.
func TestTypedErrors(t *testing.T) {
	set := PackageSetOf(pingPackages(t)...)
	const tmpl = pingID + ":Canton.Internal.Ping:Ping"
	feed := strings.Repeat("feed", 16) // a package never uploaded
	cases := []struct {
		name   string
		strict bool
		cmd    ledgerapi.Command
		id     string
		cause  string
	}{
		{"missing field", false, createCmd(tmpl, `{"id":"x","initiator":"a::1220"}`), "COMMAND_PREPROCESSING_FAILED",
			"Missing non-optional fields: Set(responder) at commands[0].CreateCommand.createArguments"},
		{"unexpected field", false, createCmd(tmpl, `{"id":"x","initiator":"a::1220","responder":"b::1220","extra":1}`), "INVALID_ARGUMENT",
			"The submitted request has invalid arguments: Unexpected fields: extra at commands[0].CreateCommand.createArguments"},
		{"wrong type", false, createCmd(tmpl, `{"id":7,"initiator":"a::1220","responder":"b::1220"}`), "INVALID_ARGUMENT",
			"The submitted request has invalid arguments: expected Text (a JSON string), found a JSON number at commands[0].CreateCommand.createArguments.id"},
		{"not a party", false, createCmd(tmpl, `{"id":"x","initiator":"a@b","responder":"b::1220"}`), "INVALID_ARGUMENT",
			`The submitted request has invalid arguments: non expected character 0x40 in Daml-LF Party "a@b" at commands[0].CreateCommand.createArguments.initiator`},
		{"unknown template", false, createCmd(pingID+":Canton.Internal.Ping:Pong", `{}`), "TEMPLATES_OR_INTERFACES_NOT_FOUND",
			"Templates do not exist: [" + pingID + ":Canton.Internal.Ping:Pong]."},
		{"unknown choice", false, exerciseCmd(tmpl, "00"+strings.Repeat("ab", 32)+"ca12"+strings.Repeat("cd", 32), "Pong", `{}`), "INVALID_ARGUMENT",
			"The submitted request has invalid arguments: Invalid template:" + tmpl + " or choice:Pong"},
		{"missing choice field", false, exerciseCmd(tmpl, "00"+strings.Repeat("ab", 32)+"ca12"+strings.Repeat("cd", 32), "AbortPing", `null`), "COMMAND_PREPROCESSING_FAILED",
			"Missing non-optional fields: Set(anyone) at commands[0].ExerciseCommand.choiceArgument"},
		{"strict unknown package", true, createCmd(feed+":M:T", `{}`), "TEMPLATES_OR_INTERFACES_NOT_FOUND", "Templates do not exist: [" + feed + ":M:T]."},
		// A package's name without '#' is no package id: refused, not
		// served by the generic model (issue 25 item 1).
		{"name without #", false, createCmd("canton-builtin-admin-workflow-ping:Canton.Internal.Ping:Ping", `{}`), "INVALID_FIELD", `The submitted command has a field with invalid value: Invalid field template_id: the package reference "canton-builtin-admin-workflow-ping" is neither a package id (64 lower-case hex digits) nor a package name (#canton-builtin-admin-workflow-ping)`},
		{"short package id", false, createCmd("feed:M:T", `{}`), "INVALID_FIELD", `The submitted command has a field with invalid value: Invalid field template_id: the package reference "feed" is neither a package id (64 lower-case hex digits) nor a package name (#feed)`},
		{"strict unknown name", true, createCmd("#nope:M:T", `{}`), "JSON_API_PACKAGE_SELECTION_FAILED", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, withPackages(set), func(cfg *Config) { cfg.StrictPackages = c.strict })
			_, err := f.eng.Prepare(context.Background(), prepareReq(f.alice, c.cmd), "user1")
			if errorID(err) != c.id {
				t.Fatalf("error %v, want %s", err, c.id)
			}
			if je := err.(*ledgerapi.JsCantonError); c.cause != "" && je.Cause != c.cause {
				t.Errorf("cause %q\nwant  %q", je.Cause, c.cause)
			}
		})
	}
	// Without StrictPackages a template of a package never uploaded is
	// served by the generic model.
	f := newFixture(t, withPackages(set))
	if _, err := f.eng.Prepare(context.Background(), prepareReq(f.alice, createCmd(feed+":M:T", `{"x":"1"}`)), "user1"); err != nil {
		t.Fatal(err)
	}
}

// TestTypedUnvettedName refuses a package name whose packages were
// uploaded but none is vetted, as Canton finds no package to use; the
// package id form still reads the uploaded package.
func TestTypedUnvettedName(t *testing.T) {
	pkgs := pingPackages(t)
	names := map[string]string{}
	for _, p := range pkgs {
		names[string(p.ID)] = p.Name
	}
	set := NewPackageSet(PackageSetOf(pkgs...).Env, names, nil)
	f := newFixture(t, withPackages(set))
	f.ledger.parties["b::1220"] = true
	_, err := f.eng.Prepare(context.Background(), prepareReq(f.alice, createCmd(pingTmpl, `{"id":"x","initiator":"`+f.alice+`","responder":"b::1220"}`)), "user1")
	if errorID(err) != "JSON_API_PACKAGE_SELECTION_FAILED" {
		t.Fatalf("unvetted name: %v", err)
	}
	if _, err := f.eng.Prepare(context.Background(), prepareReq(f.alice, createCmd(pingID+":Canton.Internal.Ping:Ping",
		`{"id":"x","initiator":"`+f.alice+`","responder":"b::1220"}`)), "user1"); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkPrepareTypedPing prepares a typed Ping create: the generic
// model's BenchmarkPrepareCreate plus reading the arguments by their types.
func BenchmarkPrepareTypedPing(b *testing.B) {
	f := newFixture(b, withPackages(PackageSetOf(pingPackages(b)...)))
	f.ledger.parties["bob::1220feed"] = true
	req := prepareReq(f.alice, createCmd(pingTmpl, `{"responder":"bob::1220feed","id":"ping-1","initiator":"`+f.alice+`"}`))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.eng.Prepare(context.Background(), req, "user1"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestModelLoggedOnce logs once per template which model served it.
func TestModelLoggedOnce(t *testing.T) {
	var logs strings.Builder
	f := newFixture(t, withPackages(PackageSetOf(pingPackages(t)...)), func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	})
	f.ledger.parties["b::1220"] = true
	for i := 0; i < 3; i++ {
		for _, cmd := range []ledgerapi.Command{
			createCmd(pingTmpl, `{"id":"x","initiator":"`+f.alice+`","responder":"b::1220"}`),
			createCmd("#other:M:T", `{"x":"1"}`),
		} {
			if _, err := f.eng.Prepare(context.Background(), prepareReq(f.alice, cmd), "user1"); err != nil {
				t.Fatal(err)
			}
		}
	}
	out := logs.String()
	if strings.Count(out, "model=typed") != 1 || strings.Count(out, "model=generic") != 1 ||
		!strings.Contains(out, "templateId="+pingID+":Canton.Internal.Ping:Ping") {
		t.Errorf("logs:\n%s", out)
	}
}

// TestUnknownInformees: a Daml create whose observer is a party the node
// never allocated is refused as Canton's routing refuses it — for a
// submission and a prepare, with and without StrictPackages — while a
// create of the generic model takes such a string for text, so it names
// no unknown party.
func TestUnknownInformees(t *testing.T) {
	ghost := "ghost::1220" + strings.Repeat("0", 64)
	for _, strict := range []bool{false, true} {
		f := newFixture(t, withPackages(PackageSetOf(pingPackages(t)...)), func(c *Config) { c.StrictPackages = strict })
		ping := createCmd(pingTmpl, `{"id":"x","initiator":"`+f.alice+`","responder":"`+ghost+`"}`)
		_, err := f.eng.Submit(context.Background(), submitCmds(f.alice, ping), "user1")
		var ce *ledgerapi.JsCantonError
		if !errors.As(err, &ce) || ce.Code != "UNKNOWN_INFORMEES" || ce.Context["unknownInformees"] != ghost ||
			ce.Cause != "The participant is not connected to any synchronizer where the given informees are known." {
			t.Errorf("strict %v: submit: %v", strict, err)
		}
		if _, err := f.eng.Prepare(context.Background(), prepareReq(f.alice, ping), "user1"); errorID(err) != "UNKNOWN_INFORMEES" {
			t.Errorf("strict %v: prepare: %v", strict, err)
		}
		f.ledger.parties[ghost] = true
		if _, err := f.eng.Submit(context.Background(), submitCmds(f.alice, ping), "user1"); err != nil {
			t.Errorf("strict %v: once the party is known: %v", strict, err)
		}
	}
	f := newFixture(t)
	out, err := f.eng.Submit(context.Background(), submitCmds(f.alice, createCmd("#iou:Iou:Iou", `{"owner":"`+f.alice+`","friend":"`+ghost+`"}`)), "user1")
	if err != nil || out.Rejection != nil {
		t.Fatalf("generic create naming an unknown party id: %v %+v", err, out)
	}
	if c := out.Transaction.Created[0]; fmt.Sprint(c.Stakeholders) != fmt.Sprint([]string{f.alice}) {
		t.Errorf("the generic model took an unknown party id for a party: stakeholders %v", c.Stakeholders)
	}
}

// TestTypedCommandsOneValueModel: a command on a typed template is read
// into the interpreter's command (Daml values), one of the generic model
// into the model's command (protobuf values); a request holds each kind
// apart.
func TestTypedCommandsOneValueModel(t *testing.T) {
	f := newFixture(t, withPackages(PackageSetOf(pingPackages(t)...)))
	cmds := []ledgerapi.Command{
		createCmd(pingTmpl, `{"id":"ping-1","initiator":"`+f.alice+`","responder":"`+f.bob+`"}`),
		exerciseCmd(pingTmpl, "00"+strings.Repeat("ab", 32)+"ca12"+strings.Repeat("ef", 32), "AbortPing", `{"anyone":"`+f.alice+`"}`),
		createCmd(iouTemplate, `{"owner":"`+f.bob+`"}`),
		exerciseCmd(iouTemplate, "00"+strings.Repeat("cd", 32)+"ca11"+strings.Repeat("ef", 32), "Transfer", `{"newOwner":"`+f.bob+`"}`),
	}
	parsed, err := f.eng.parseCommands(context.Background(), cmds, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(parsed.daml) != 2 || len(parsed.generic) != 2 {
		t.Fatalf("%d typed and %d generic commands, want 2 and 2", len(parsed.daml), len(parsed.generic))
	}
	if c, ok := parsed.daml[0].(*interp.CreateCommand); !ok || c.Argument == nil || c.Template.EntityName != "Ping" {
		t.Errorf("typed create %#v", parsed.daml[0])
	}
	for i, c := range parsed.generic {
		if c.CreateArgument == nil && c.ChoiceArgument == nil {
			t.Errorf("generic command %d has no protobuf argument", i)
		}
	}
}

// TestCheckAgreesWithPrepare: the client's type check (preprocess.Check)
// answers a typed command the node refuses with the node's own error.
func TestCheckAgreesWithPrepare(t *testing.T) {
	set := PackageSetOf(pingPackages(t)...)
	f := newFixture(t, withPackages(set))
	cid := "00" + strings.Repeat("ab", 32)
	for _, cmd := range []ledgerapi.Command{
		createCmd(pingTmpl, `null`),
		createCmd(pingTmpl, `{"id":"p"}`),
		createCmd(pingTmpl, `{"id":1,"initiator":"`+f.alice+`","responder":"`+f.alice+`"}`),
		createCmd(pingTmpl+"x", `{}`),
		exerciseCmd(pingTmpl, "", "AbortPing", `{}`),
		exerciseCmd(pingTmpl, cid, "Abort-Ping", `{}`),
		exerciseCmd(pingTmpl, cid, "Nope", `{}`),
		exerciseCmd(pingTmpl, cid, "AbortPing", `{"anyone":3}`),
	} {
		_, nodeErr := f.eng.Prepare(context.Background(), prepareReq(f.alice, cmd), "user1")
		checkErr := preprocess.Check(set, []ledgerapi.Command{cmd}, nil)
		if nodeErr == nil || checkErr == nil || nodeErr.Error() != checkErr.Error() {
			t.Errorf("%+v:\nnode  %v\ncheck %v", cmd, nodeErr, checkErr)
		}
	}
}
