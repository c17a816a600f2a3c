package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/contract"
	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/internal/vectors"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"google.golang.org/protobuf/proto"
)

// sharedSet is the package set of DARs in ../shared/dars (the shared folder
// beside the repository); it skips when one is missing.
func sharedSet(t testing.TB, names ...string) *PackageSet {
	t.Helper()
	var pkgs []*lf.Package
	for _, name := range names {
		d, err := archive.ReadDarFile(filepath.Join("..", "..", "..", "shared", "dars", name), archive.Options{})
		if errors.Is(err, os.ErrNotExist) {
			t.Skipf("%s not found in ../shared/dars (the shared folder beside the repository); skipping", name)
		}
		if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, d.Packages...)
	}
	return PackageSetOf(pkgs...)
}

const (
	alice = "alice::1220e938c8fd01febfcc46f7ca4492de39f4e1d7d0105638ed2c21b58a491a3de9e9"
	bob   = "bob::12200123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	carol = "carol::1220fedcba9876543210fedcba9876543210fedcba9876543210fedcba98765432"
)

// decode reads a JSON value of a codec.
func decode(t testing.TB, plan *typed.Plan, err error, js string) value.Value {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	v, err := plan.DecodeJSON([]byte(js), typed.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// prepared is what a node's prepare makes of a submission: the encoded
// transaction and its metadata.
func prepared(t testing.TB, s *Submission, inputs []*damlpb.Metadata_InputContract) (*damlpb.PreparedTransaction, *Result) {
	t.Helper()
	res, err := Submit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := EncodeTransaction(res.Transaction)
	if err != nil {
		t.Fatal(err)
	}
	md := &damlpb.Metadata{
		SubmitterInfo:   &damlpb.Metadata_SubmitterInfo{ActAs: s.ActAs, CommandId: "c"},
		PreparationTime: uint64(s.PreparationTime.UnixMicro()),
		InputContracts:  inputs,
	}
	md.MinLedgerEffectiveTime, md.MaxLedgerEffectiveTime = micros(res.TimeBounds.Min), micros(res.TimeBounds.Max)
	return &damlpb.PreparedTransaction{Transaction: enc, Metadata: md}, res
}

// pingFlow creates a Ping and aborts it in one submission: two roots, the
// exercise on the contract the first creates.
func pingFlow(t testing.TB) (*PackageSet, *damlpb.PreparedTransaction) {
	set := sharedSet(t, "canton-builtin-admin-workflow-ping.dar")
	var pkg lf.PackageID
	for _, p := range set.Env.Packages() {
		if p.Name == "canton-builtin-admin-workflow-ping" {
			pkg = p.ID
		}
	}
	tmpl := &value.Identifier{PackageID: string(pkg), ModuleName: "Canton.Internal.Ping", EntityName: "Ping"}
	plans := NewPlans(set)
	argPlan, err := plans.Argument(tmpl)
	arg := decode(t, argPlan, err, `{"id":"p1","initiator":"`+alice+`","responder":"`+bob+`"}`)
	abortPlan, err := plans.ChoiceArgument(tmpl, "AbortPing")
	abort := decode(t, abortPlan, err, `{"anyone":"`+alice+`"}`)
	pt, _ := prepared(t, &Submission{
		Packages: set, ActAs: []string{alice},
		Commands: []interp.Command{
			&interp.CreateAndExerciseCommand{Template: tmpl, CreateArgument: arg, Choice: "AbortPing", ChoiceArgument: abort},
		},
		PreparationTime: time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC),
		SubmissionSeed:  tx.Hash{1, 2, 3},
		ParticipantID:   "participant1::1220",
	}, nil)
	return set, pt
}

// onlyCreate keeps the first root, the create, of the Ping flow.
func onlyCreate(pt *damlpb.PreparedTransaction) {
	t := pt.Transaction
	t.Roots, t.Nodes, t.NodeSeeds = t.Roots[:1], t.Nodes[:1], t.NodeSeeds[:1]
}

// TestPingRoundTrip: what Submit makes, encoded, re-interprets with no
// difference; each change to it is the first difference, named by node,
// field and path.
func TestPingRoundTrip(t *testing.T) {
	set, pt := pingFlow(t)
	if n := len(pt.GetTransaction().GetNodes()); n != 2 {
		t.Fatalf("%d nodes, want a create and an exercise", n)
	}
	r, err := Reinterpret(context.Background(), pt, Reinterpretation{Packages: set})
	if err != nil {
		t.Fatal(err)
	}
	if r.Difference != nil {
		t.Fatalf("untouched: %s", r.Difference)
	}
	if !proto.Equal(r.Transaction, pt.GetTransaction()) {
		t.Error("the re-interpreted transaction is not the submitted one")
	}
	create := func(pt *damlpb.PreparedTransaction) *damlpb.Create {
		return pt.Transaction.Nodes[0].GetV1().GetCreate()
	}
	exercise := func(pt *damlpb.PreparedTransaction) *damlpb.Exercise {
		return pt.Transaction.Nodes[1].GetV1().GetExercise()
	}
	for _, c := range []struct {
		name                    string
		tamper                  func(pt *damlpb.PreparedTransaction)
		node, field, path, prep string
	}{
		// A root's argument is its command's: a changed one makes
		// another contract (the create alone: the exercise would not find
		// the contract it names).
		{"responder", func(pt *damlpb.PreparedTransaction) {
			onlyCreate(pt)
			create(pt).Argument.GetRecord().Fields[2].Value = &damlpb.Value{Sum: &damlpb.Value_Party{Party: carol}}
		}, "0", "contract_id", "contract_id", ""},
		{"signatories", func(pt *damlpb.PreparedTransaction) {
			create(pt).Signatories = []string{alice, bob}
		}, "0", "signatories", "signatories", "[" + alice + ", " + bob + "]"},
		{"label", func(pt *damlpb.PreparedTransaction) {
			create(pt).Argument.GetRecord().Fields[0].Label = ""
		}, "0", "argument", "argument[0]", `label ""`},
		{"acting parties", func(pt *damlpb.PreparedTransaction) {
			exercise(pt).ActingParties = []string{bob}
		}, "1", "acting_parties", "acting_parties[0]", bob},
		{"consuming", func(pt *damlpb.PreparedTransaction) {
			exercise(pt).Consuming = false
		}, "1", "consuming", "consuming", "false"},
		{"root seed", func(pt *damlpb.PreparedTransaction) {
			onlyCreate(pt)
			pt.Transaction.NodeSeeds[0].Seed[0] ^= 1
		}, "0", "contract_id", "contract_id", ""},
		{"extra seed", func(pt *damlpb.PreparedTransaction) {
			pt.Transaction.NodeSeeds = append(pt.Transaction.NodeSeeds, &damlpb.DamlTransaction_NodeSeed{NodeId: 7, Seed: make([]byte, 32)})
		}, "", "node_seeds", "node_seeds", "3 seeds"},
		{"min ledger time", func(pt *damlpb.PreparedTransaction) {
			v := uint64(1)
			pt.Metadata.MinLedgerEffectiveTime = &v
		}, "", "metadata.min_ledger_effective_time", "metadata.min_ledger_effective_time", "1970-01-01T00:00:00.000001Z"},
		{"extra input", func(pt *damlpb.PreparedTransaction) {
			pt.Metadata.InputContracts = []*damlpb.Metadata_InputContract{{Contract: &damlpb.Metadata_InputContract_V1{V1: &damlpb.Create{ContractId: "00ff"}}}}
		}, "", "metadata.input_contracts", "metadata.input_contracts", "[00ff]"},
		{"fetch root", func(pt *damlpb.PreparedTransaction) {
			pt.Transaction.Nodes[0].VersionedNode = &damlpb.DamlTransaction_Node_V1{V1: &damlpb.Node{NodeType: &damlpb.Node_Fetch{Fetch: &damlpb.Fetch{TemplateId: create(pt).TemplateId}}}}
		}, "0", "node_type", "node_type", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			pt := proto.Clone(pt).(*damlpb.PreparedTransaction)
			c.tamper(pt)
			r, err := Reinterpret(context.Background(), pt, Reinterpretation{Packages: set})
			if err != nil {
				t.Fatal(err)
			}
			d := r.Difference
			if d == nil {
				t.Fatal("no difference")
			}
			if d.NodeID != c.node || d.Field != c.field || d.Path != c.path || c.prep != "" && d.Prepared != c.prep {
				t.Errorf("difference %+v, want node %q field %q path %q prepared %q", *d, c.node, c.field, c.path, c.prep)
			}
			if c.node != "" && !strings.Contains(d.Node, "Canton.Internal.Ping:Ping") {
				t.Errorf("node described as %q", d.Node)
			}
			t.Log(d)
		})
	}
}

// golden is the real Canton Coin transfer Canton prepared, with five input
// contracts (ca10 and ca11 ids) from another participant.
func golden(t testing.TB) *damlpb.PreparedTransaction {
	t.Helper()
	pt, err := vectors.FirstPrepared(filepath.Join("..", "..", vectors.LedgerHQTransfer))
	if err != nil {
		t.Fatal(err)
	}
	return pt
}

func amuletSet(t testing.TB) *PackageSet {
	return sharedSet(t, "splice-amulet-0.1.14.dar", "splice-amulet-0.1.6.dar")
}

// TestInputContractsGolden: the real input contracts authenticate from
// their blobs alone, with the packages and without (ca10 and ca11 ids hash
// the argument as stored); a changed byte in a blob, a changed create node
// beside it or a changed creation time is refused, naming the contract.
func TestInputContractsGolden(t *testing.T) {
	pt := golden(t)
	md := pt.GetMetadata()
	set := amuletSet(t)
	cs, err := InputContracts(md, set)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != len(md.GetInputContracts()) {
		t.Fatalf("%d contracts of %d", len(cs), len(md.GetInputContracts()))
	}
	for _, c := range cs {
		if _, untyped := c.Argument.(value.Unit); untyped {
			t.Errorf("%s: argument not typed", c.ID)
		}
	}
	if _, err := InputContracts(md, PackageSetOf()); err != nil {
		t.Errorf("without packages: %v", err)
	}
	// Written back from the blob, each entry is Canton's, byte for byte.
	for _, ic := range md.GetInputContracts() {
		c, err := contract.DecodeBlob(ic.GetEventBlob())
		if err != nil {
			t.Fatal(err)
		}
		again, err := InputContractOf(c, set)
		if err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(again, ic) {
			d := NodeDifference(&damlpb.Node{NodeType: &damlpb.Node_Create{Create: ic.GetV1()}}, &damlpb.Node{NodeType: &damlpb.Node_Create{Create: again.GetV1()}})
			t.Errorf("input contract %s written again differs: %v", c.ID, d)
		}
	}
	for i, ic := range md.GetInputContracts() {
		cid := ic.GetV1().GetContractId()
		for _, c := range []struct {
			name   string
			tamper func(ic *damlpb.Metadata_InputContract)
			want   string
		}{
			{"blob byte", func(ic *damlpb.Metadata_InputContract) { ic.EventBlob[len(ic.EventBlob)/2] ^= 0x01 }, ""},
			{"create signatories", func(ic *damlpb.Metadata_InputContract) {
				ic.GetV1().Signatories = append([]string{alice}, ic.GetV1().Signatories...)
			}, "signatories"},
			{"create argument", func(ic *damlpb.Metadata_InputContract) {
				ic.GetV1().Argument.GetRecord().Fields[0].Value = &damlpb.Value{Sum: &damlpb.Value_Party{Party: alice}}
			}, "argument."},
			{"created at", func(ic *damlpb.Metadata_InputContract) { ic.CreatedAt++ }, "created_at"},
		} {
			bad := proto.Clone(md).(*damlpb.Metadata)
			c.tamper(bad.InputContracts[i])
			_, err := InputContracts(bad, set)
			var ie *InputContractError
			if !errors.As(err, &ie) || ie.ContractID != cid || !strings.Contains(err.Error(), c.want) {
				t.Errorf("input %d, %s: %v, want an error naming %s and %q", i, c.name, err, cid, c.want)
			}
		}
	}
}

// TestAmuletFetchRoundTrip: a nonconsuming AmuletRules_Fetch on the real
// AmuletRules contract, read from the golden input contracts, re-interprets
// offline with no difference, its input contract set the one read.
func TestAmuletFetchRoundTrip(t *testing.T) {
	set := amuletSet(t)
	md := golden(t).GetMetadata()
	inputs, err := InputContracts(md, set)
	if err != nil {
		t.Fatal(err)
	}
	var rules *tx.Contract
	var ics []*damlpb.Metadata_InputContract
	for i, c := range inputs {
		if c.TemplateID.EntityName == "AmuletRules" {
			rules = c
			ics = append(ics, md.GetInputContracts()[i])
		}
	}
	const pkg1_14 = "3ca1343ab26b453d38c8adb70dca5f1ead8440c42b59b68f070786955cbf9ec1"
	tmpl := &value.Identifier{PackageID: pkg1_14, ModuleName: "Splice.AmuletRules", EntityName: "AmuletRules"}
	plan, err := NewPlans(set).ChoiceArgument(tmpl, "AmuletRules_Fetch")
	arg := decode(t, plan, err, `{"p":"`+alice+`"}`)
	pt, res := prepared(t, &Submission{
		Packages: set, ActAs: []string{alice}, Disclosed: inputs,
		Commands:        []interp.Command{&interp.ExerciseCommand{Template: tmpl, ContractID: rules.ID, Choice: "AmuletRules_Fetch", Argument: arg}},
		PreparationTime: time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC),
		SubmissionSeed:  tx.Hash{9},
	}, ics)
	if len(res.Inputs) != 1 || res.Inputs[0].ID != rules.ID {
		t.Fatalf("read %v, want the AmuletRules", res.Inputs)
	}
	offline, err := InputContracts(pt.GetMetadata(), set)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Reinterpret(context.Background(), pt, Reinterpretation{Packages: set, Inputs: offline})
	if err != nil {
		t.Fatal(err)
	}
	if r.Difference != nil {
		t.Fatalf("untouched: %s", r.Difference)
	}
	// The fetch's result names the DSO; another party there is refused,
	// the place named by record labels.
	pt.Transaction.Nodes[0].GetV1().GetExercise().GetExerciseResult().GetRecord().Fields[0].Value = &damlpb.Value{Sum: &damlpb.Value_Party{Party: bob}}
	r, err = Reinterpret(context.Background(), pt, Reinterpretation{Packages: set, Inputs: offline})
	if err != nil || r.Difference == nil || r.Difference.NodeID != "0" || r.Difference.Path != "exercise_result.dso" || r.Difference.Prepared != bob ||
		!strings.HasPrefix(r.Difference.Node, "exercise Splice.AmuletRules:AmuletRules AmuletRules_Fetch") {
		t.Fatalf("changed result: %v %+v", err, r.Difference)
	}
	t.Log(r.Difference)
}

// TestBongChildCreate: a BongProposal accepted by its last candidate
// creates an Explode inside the exercise. A changed argument of that child
// create is named by its record label; a changed seed of the child is
// named too (a root's seed is the command's, a child's is derived).
func TestBongChildCreate(t *testing.T) {
	set := sharedSet(t, "canton-builtin-admin-workflow-ping.dar")
	var pkg lf.PackageID
	for _, p := range set.Env.Packages() {
		if p.Name == "canton-builtin-admin-workflow-ping" {
			pkg = p.ID
		}
	}
	tmpl := &value.Identifier{PackageID: string(pkg), ModuleName: "Canton.Internal.Bong", EntityName: "BongProposal"}
	plans := NewPlans(set)
	argPlan, err := plans.Argument(tmpl)
	arg := decode(t, argPlan, err, `{"id":"b1","initiator":"`+alice+`","candidates":["`+bob+`"],"validators":[],"responders":["`+bob+`"],"maxLevel":"1","timeout":"2100-01-01T00:00:00Z"}`)
	acceptPlan, err := plans.ChoiceArgument(tmpl, "Accept")
	accept := decode(t, acceptPlan, err, `{"validator":"`+bob+`"}`)
	pt, _ := prepared(t, &Submission{
		Packages: set, ActAs: []string{alice, bob},
		Commands:        []interp.Command{&interp.CreateAndExerciseCommand{Template: tmpl, CreateArgument: arg, Choice: "Accept", ChoiceArgument: accept}},
		PreparationTime: time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC),
		SubmissionSeed:  tx.Hash{4},
	}, nil)
	r, err := Reinterpret(context.Background(), pt, Reinterpretation{Packages: set})
	if err != nil || r.Difference != nil {
		t.Fatalf("untouched: %v %v", err, r.Difference)
	}
	child := pt.Transaction.Nodes[2].GetV1().GetCreate()
	if child.GetTemplateId().GetEntityName() != "Explode" {
		t.Fatalf("node 2 is %v, want the Explode", pt.Transaction.Nodes[2])
	}
	for _, c := range []struct {
		name       string
		tamper     func(pt *damlpb.PreparedTransaction)
		node, path string
	}{
		{"path", func(pt *damlpb.PreparedTransaction) {
			for _, f := range pt.Transaction.Nodes[2].GetV1().GetCreate().Argument.GetRecord().Fields {
				if f.Label == "path" {
					f.Value = &damlpb.Value{Sum: &damlpb.Value_Text{Text: "L"}}
				}
			}
		}, "2", "argument.path"},
		{"validators", func(pt *damlpb.PreparedTransaction) {
			for _, f := range pt.Transaction.Nodes[2].GetV1().GetCreate().Argument.GetRecord().Fields {
				if f.Label == "validators" {
					f.Value.GetList().Elements[0] = &damlpb.Value{Sum: &damlpb.Value_Party{Party: carol}}
				}
			}
		}, "2", "argument.validators[0]"},
		{"child seed", func(pt *damlpb.PreparedTransaction) {
			for _, s := range pt.Transaction.NodeSeeds {
				if s.NodeId == 2 {
					s.Seed[0] ^= 1
				}
			}
		}, "", "node_seeds[2]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			pt := proto.Clone(pt).(*damlpb.PreparedTransaction)
			c.tamper(pt)
			r, err := Reinterpret(context.Background(), pt, Reinterpretation{Packages: set})
			if err != nil || r.Difference == nil || r.Difference.NodeID != c.node || r.Difference.Path != c.path {
				t.Fatalf("%v %+v, want node %q path %q", err, r.Difference, c.node, c.path)
			}
			if c.node != "" && r.Difference.Node != "create Canton.Internal.Bong:Explode" {
				t.Errorf("node described as %q", r.Difference.Node)
			}
			t.Log(r.Difference)
		})
	}
}

// TestNoPackages: without packages, re-interpreting is an error and a
// codec is not found, not a nil dereference.
func TestNoPackages(t *testing.T) {
	_, pt := pingFlow(t)
	if _, err := Reinterpret(context.Background(), pt, Reinterpretation{}); err == nil {
		t.Error("re-interpreted with no packages")
	}
	if _, err := NewPlans(nil).Argument(&value.Identifier{PackageID: "p", ModuleName: "M", EntityName: "T"}); err == nil {
		t.Error("a codec from no packages")
	}
	if r, err := Reinterpret(context.Background(), pt, Reinterpretation{Packages: PackageSetOf()}); err != nil || r.Difference == nil || r.Difference.Field != "argument" {
		t.Errorf("with an empty package set: %v %+v", err, r)
	}
	pkg := pt.Transaction.Nodes[0].GetV1().GetCreate().GetTemplateId().GetPackageId()
	if got := MissingPackages(PackageSetOf(), pt); len(got) != 1 || got[0] != pkg {
		t.Errorf("missing %v, want [%s]", got, pkg)
	}
	set, _ := pingFlow(t)
	if got := MissingPackages(set, pt); len(got) != 0 {
		t.Errorf("missing %v with the ping package", got)
	}
	if got := MissingPackages(set, golden(t)); len(got) < 2 {
		t.Errorf("the golden transfer misses only %v of the ping package set", got)
	}
}
