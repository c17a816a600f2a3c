package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/generic"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"google.golang.org/protobuf/proto"
)

const iouTemplate = "#iou-pkg:Iou:Iou"

func iouArgs(issuer, owner string) string {
	return `{"issuer":"` + issuer + `","owner":"` + owner + `","amount":"10.0","value":12.50,"count":3,"observers":[]}`
}

func TestPrepareRequestRules(t *testing.T) {
	f := newFixture(t)
	other := f.ledger.party("other")
	cid := f.createContract(iouTemplate, iouArgs(f.alice, f.bob))
	i32 := func(v int32) *ledgerapi.Int32 { x := ledgerapi.Int32(v); return &x }
	cases := []struct {
		name   string
		user   string
		mutate func(r *ledgerapi.PrepareSubmissionRequest)
		want   string // error id, "" for success
	}{
		{"valid", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {}, ""},
		{"missing user id", "", func(r *ledgerapi.PrepareSubmissionRequest) {}, "MISSING_FIELD"},
		{"invalid user id", "bad user!", func(r *ledgerapi.PrepareSubmissionRequest) {}, "INVALID_FIELD"},
		{"missing command id", "user1", func(r *ledgerapi.PrepareSubmissionRequest) { r.CommandID = "" }, "MISSING_FIELD"},
		{"invalid command id", "user1", func(r *ledgerapi.PrepareSubmissionRequest) { r.CommandID = "no*stars" }, "INVALID_FIELD"},
		{"command id too long", "user1", func(r *ledgerapi.PrepareSubmissionRequest) { r.CommandID = strings.Repeat("a", 256) }, "INVALID_FIELD"},
		{"empty actAs", "user1", func(r *ledgerapi.PrepareSubmissionRequest) { r.ActAs = nil }, "MISSING_FIELD"},
		{"invalid actAs", "user1", func(r *ledgerapi.PrepareSubmissionRequest) { r.ActAs = []string{"bad party!"} }, "INVALID_ARGUMENT"},
		{"invalid readAs", "user1", func(r *ledgerapi.PrepareSubmissionRequest) { r.ReadAs = []string{"bad/party"} }, "INVALID_ARGUMENT"},
		{"unknown actAs", "user1", func(r *ledgerapi.PrepareSubmissionRequest) { r.ActAs = []string{"nobody::1220ab"} }, "UNKNOWN_SUBMITTERS"},
		{"no commands", "user1", func(r *ledgerapi.PrepareSubmissionRequest) { r.Commands = nil }, "MISSING_FIELD"},
		{"two commands", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			r.Commands = append(r.Commands, createCmd(iouTemplate, `{}`))
		}, "FAILED_TO_PREPARE_TRANSACTION"},
		{"empty command", "user1", func(r *ledgerapi.PrepareSubmissionRequest) { r.Commands = []ledgerapi.Command{{}} }, "MISSING_FIELD"},
		{"exercise by key", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			r.Commands = []ledgerapi.Command{{ExerciseByKey: &ledgerapi.ExerciseByKeyCommand{TemplateID: iouTemplate, ContractKey: []byte(`{}`), Choice: "C", ChoiceArgument: []byte(`{}`)}}}
		}, "COMMAND_PREPROCESSING_FAILED"},
		{"create and exercise (two roots)", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			r.Commands = []ledgerapi.Command{{CreateAndExercise: &ledgerapi.CreateAndExerciseCommand{TemplateID: iouTemplate, CreateArguments: []byte(`{}`), Choice: "C", ChoiceArgument: []byte(`{}`)}}}
		}, ""}, // prepared, as Canton does; execute refuses the two roots
		{"missing template id", "user1", func(r *ledgerapi.PrepareSubmissionRequest) { r.Commands[0].Create.TemplateID = "" }, "MISSING_FIELD"},
		{"invalid template id", "user1", func(r *ledgerapi.PrepareSubmissionRequest) { r.Commands[0].Create.TemplateID = "Iou" }, "INVALID_FIELD"},
		{"missing create arguments", "user1", func(r *ledgerapi.PrepareSubmissionRequest) { r.Commands[0].Create.CreateArguments = nil }, "MISSING_FIELD"},
		{"null create arguments", "user1", func(r *ledgerapi.PrepareSubmissionRequest) { r.Commands[0].Create.CreateArguments = []byte("null") }, "MISSING_FIELD"},
		{"create arguments not an object", "user1", func(r *ledgerapi.PrepareSubmissionRequest) { r.Commands[0].Create.CreateArguments = []byte(`[1]`) }, "COMMAND_PREPROCESSING_FAILED"},
		{"malformed argument", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			r.Commands[0].Create.CreateArguments = []byte(`{"a":1,"a":2}`)
		}, "COMMAND_PREPROCESSING_FAILED"},
		{"exercise: missing contract id", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			r.Commands = []ledgerapi.Command{exerciseCmd(iouTemplate, "", "Transfer", `{}`)}
		}, "MISSING_FIELD"},
		{"exercise: invalid contract id", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			r.Commands = []ledgerapi.Command{exerciseCmd(iouTemplate, "01"+strings.Repeat("a", 64), "Transfer", `{}`)}
		}, "INVALID_FIELD"},
		{"exercise: missing choice", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			r.Commands = []ledgerapi.Command{exerciseCmd(iouTemplate, cid, "", `{}`)}
		}, "MISSING_FIELD"},
		{"exercise: invalid choice", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			r.Commands = []ledgerapi.Command{exerciseCmd(iouTemplate, cid, "Trans-fer", `{}`)}
		}, "INVALID_FIELD"},
		{"exercise: missing choice argument", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			r.Commands = []ledgerapi.Command{exerciseCmd(iouTemplate, cid, "Transfer", ``)}
		}, "MISSING_FIELD"},
		{"exercise: unknown contract", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			r.Commands = []ledgerapi.Command{exerciseCmd(iouTemplate, "00"+strings.Repeat("b", 64)+"ca12"+strings.Repeat("c", 64), "Transfer", `{}`)}
		}, "CONTRACT_NOT_FOUND"},
		{"exercise: a contract id without suffix", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			r.Commands = []ledgerapi.Command{exerciseCmd(iouTemplate, "00"+strings.Repeat("b", 64), "Transfer", `{}`)}
		}, "COMMAND_PREPROCESSING_FAILED"},
		{"exercise: wrong template", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			r.Commands = []ledgerapi.Command{exerciseCmd("#iou-pkg:Iou:Other", cid, "Transfer", `{}`)}
		}, "WRONGLY_TYPED_CONTRACT"},
		{"exercise: invisible to submitter", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			r.ActAs = []string{other}
			r.Commands = []ledgerapi.Command{exerciseCmd(iouTemplate, cid, "Transfer", `{}`)}
		}, "CONTRACT_NOT_FOUND"},
		{"exercise: visible through readAs", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			r.ActAs = []string{other}
			r.ReadAs = []string{f.bob}
			r.Commands = []ledgerapi.Command{exerciseCmd(iouTemplate, cid, "Transfer", `{}`)}
		}, ""},
		{"synchronizer: ours", "user1", func(r *ledgerapi.PrepareSubmissionRequest) { r.SynchronizerID = testSynchronizer }, ""},
		{"synchronizer: malformed", "user1", func(r *ledgerapi.PrepareSubmissionRequest) { r.SynchronizerID = "nocolons" }, "INVALID_FIELD"},
		{"synchronizer: another", "user1", func(r *ledgerapi.PrepareSubmissionRequest) { r.SynchronizerID = "other::1220ab" }, "INVALID_PRESCRIBED_SYNCHRONIZER_ID"},
		{"taps: 1", "user1", func(r *ledgerapi.PrepareSubmissionRequest) { r.TapsMaxPasses = i32(1) }, ""},
		{"taps: at limit", "user1", func(r *ledgerapi.PrepareSubmissionRequest) { r.TapsMaxPasses = i32(4) }, ""},
		{"taps: 0", "user1", func(r *ledgerapi.PrepareSubmissionRequest) { r.TapsMaxPasses = i32(0) }, "INVALID_ARGUMENT"},
		{"taps: negative", "user1", func(r *ledgerapi.PrepareSubmissionRequest) { r.TapsMaxPasses = i32(-3) }, "INVALID_ARGUMENT"},
		{"taps: over limit", "user1", func(r *ledgerapi.PrepareSubmissionRequest) { r.TapsMaxPasses = i32(5) }, "INVALID_ARGUMENT"},
		{"scheme V3", "user1", func(r *ledgerapi.PrepareSubmissionRequest) { r.HashingSchemeVersion = ledgerapi.HashingSchemeVersionV3 }, ""},
		{"scheme unspecified", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			r.HashingSchemeVersion = ledgerapi.HashingSchemeVersionUnspecified
		}, "INVALID_FIELD"},
		{"scheme unknown", "user1", func(r *ledgerapi.PrepareSubmissionRequest) { r.HashingSchemeVersion = "HASHING_SCHEME_VERSION_V4" }, "INVALID_FIELD"},
		{"package preference ok", "user1", func(r *ledgerapi.PrepareSubmissionRequest) { r.PackageIDSelectionPreference = []string{"abc123"} }, ""},
		{"package preference invalid", "user1", func(r *ledgerapi.PrepareSubmissionRequest) { r.PackageIDSelectionPreference = []string{"a:b"} }, "INVALID_FIELD"},
		{"both min ledger times", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			ts := ledgerapi.NewTimestamp(testNow)
			d := ledgerapi.DurationOf(time.Second)
			r.MinLedgerTime = &ledgerapi.MinLedgerTime{Abs: &ts, Rel: &d}
		}, "INVALID_ARGUMENT"},
		{"prefetch: missing key", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			r.PrefetchContractKeys = []ledgerapi.PrefetchContractKey{{TemplateID: iouTemplate}}
		}, "MISSING_FIELD"},
		{"prefetch: limit 0", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			r.PrefetchContractKeys = []ledgerapi.PrefetchContractKey{{TemplateID: iouTemplate, ContractKey: []byte(`"k"`), Limit: i32(0)}}
		}, "INVALID_ARGUMENT"},
		{"prefetch: valid and ignored", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			r.PrefetchContractKeys = []ledgerapi.PrefetchContractKey{{TemplateID: iouTemplate, ContractKey: []byte(`"k"`)}}
		}, ""},
		{"disclosed: missing blob", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			r.DisclosedContracts = []ledgerapi.DisclosedContract{{ContractID: cid}}
		}, "MISSING_FIELD"},
		{"disclosed: garbage blob", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			r.DisclosedContracts = []ledgerapi.DisclosedContract{{ContractID: cid, CreatedEventBlob: []byte{0xff, 0xff}}}
		}, "INVALID_ARGUMENT"},
		{"disclosed: invalid contract id", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			r.DisclosedContracts = []ledgerapi.DisclosedContract{{ContractID: "xyz", CreatedEventBlob: []byte{1}}}
		}, "INVALID_FIELD"},
		{"disclosed: another synchronizer", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			r.DisclosedContracts = []ledgerapi.DisclosedContract{{ContractID: cid, CreatedEventBlob: f.blob(cid), SynchronizerID: "x::1220ab"}}
		}, "INVALID_PRESCRIBED_SYNCHRONIZER_ID"},
		{"disclosed: contract id mismatch", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			r.DisclosedContracts = []ledgerapi.DisclosedContract{{ContractID: "00" + strings.Repeat("c", 64), CreatedEventBlob: f.blob(cid)}}
		}, "INVALID_ARGUMENT"},
		{"disclosed: template mismatch", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			r.DisclosedContracts = []ledgerapi.DisclosedContract{{TemplateID: "#iou-pkg:Iou:Other", CreatedEventBlob: f.blob(cid)}}
		}, "INVALID_ARGUMENT"},
		{"disclosed: lets another party exercise", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			r.ActAs = []string{other}
			r.DisclosedContracts = []ledgerapi.DisclosedContract{{ContractID: cid, TemplateID: iouTemplate, CreatedEventBlob: f.blob(cid), SynchronizerID: testSynchronizer}}
			r.Commands = []ledgerapi.Command{exerciseCmd(iouTemplate, cid, "Transfer", `{}`)}
		}, ""},
		{"disclosed: forged blob", "user1", func(r *ledgerapi.PrepareSubmissionRequest) {
			c, _ := f.ledger.LookupContract(context.Background(), cid)
			c.Stakeholders = append(c.Stakeholders, other)
			blob, _ := f.eng.CreatedEventBlob(c)
			r.DisclosedContracts = []ledgerapi.DisclosedContract{{ContractID: cid, CreatedEventBlob: blob}}
		}, "DISCLOSED_CONTRACT_AUTHENTICATION_FAILED"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := prepareReq(f.alice, createCmd(iouTemplate, iouArgs(f.alice, f.bob)))
			c.mutate(&req)
			_, err := f.eng.Prepare(context.Background(), req, c.user)
			if got := errorID(err); got != c.want {
				t.Fatalf("got %q (%v), want %q", got, err, c.want)
			}
		})
	}
}

func (f *fixture) blob(cid string) []byte {
	c, err := f.ledger.LookupContract(context.Background(), cid)
	if err != nil || c == nil {
		f.t.Fatalf("no contract %s", cid)
	}
	b, err := f.eng.CreatedEventBlob(c)
	if err != nil {
		f.t.Fatal(err)
	}
	return b
}

// TestPrepareTransaction checks what a prepared create and exercise hold,
// that they hash under V2 and V3 as the hashing package computes from the
// decoded message, and that the bytes round-trip through protobuf.
func TestPrepareTransaction(t *testing.T) {
	for _, scheme := range []hashing.Scheme{hashing.V2, hashing.V3} {
		t.Run(scheme.Short(), func(t *testing.T) {
			f := newFixture(t)
			req := prepareReq(f.alice, createCmd(iouTemplate, iouArgs(f.alice, f.bob)))
			req.HashingSchemeVersion = ledgerapi.HashingSchemeVersion(scheme.String())
			mrt := ledgerapi.NewTimestamp(testNow.Add(time.Hour))
			req.MaxRecordTime = &mrt
			req.ActAs = []string{f.alice, f.alice}
			p, err := f.eng.Prepare(context.Background(), req, "user1")
			if err != nil {
				t.Fatal(err)
			}
			checkHashes(t, p, scheme)
			md := p.PreparedTransaction.Metadata
			if got := md.SubmitterInfo.ActAs; len(got) != 1 || got[0] != f.alice {
				t.Errorf("act_as = %v, want [alice] once", got)
			}
			if md.SynchronizerId != testSynchronizer || md.MediatorGroup != 0 || md.SubmitterInfo.CommandId != "cmd-1" {
				t.Errorf("metadata = %v", md)
			}
			if md.PreparationTime != uint64(testNow.UnixMicro()) {
				t.Errorf("preparation time %d, want %d", md.PreparationTime, testNow.UnixMicro())
			}
			if md.MaxRecordTime == nil || *md.MaxRecordTime != uint64(mrt.UnixMicro()) {
				t.Errorf("max_record_time = %v", md.MaxRecordTime)
			}
			if md.MinLedgerEffectiveTime != nil || md.MaxLedgerEffectiveTime != nil || len(md.InputContracts) != 0 {
				t.Errorf("unexpected ledger time bounds or inputs: %v", md)
			}
			if strings.ToLower(md.TransactionUuid) != md.TransactionUuid || len(md.TransactionUuid) != 36 {
				t.Errorf("transaction uuid %q", md.TransactionUuid)
			}
			tx := p.PreparedTransaction.Transaction
			if tx.Version != "2.1" || len(tx.Roots) != 1 || tx.Roots[0] != "0" || len(tx.NodeSeeds) != 1 || len(tx.NodeSeeds[0].Seed) != 32 {
				t.Fatalf("transaction = %v", tx)
			}
			create := tx.Nodes[0].GetV1().GetCreate()
			if create == nil {
				t.Fatal("node 0 is not a create")
			}
			if create.ContractId != generic.ContractIDFromSeed(tx.NodeSeeds[0].Seed) || len(create.ContractId) != 66 || create.ContractId[:2] != "00" {
				t.Errorf("contract id %q not derived from the seed", create.ContractId)
			}
			if create.PackageName != "iou-pkg" || create.TemplateId.PackageId != generic.PackageIDForName("iou-pkg") ||
				create.TemplateId.ModuleName != "Iou" || create.TemplateId.EntityName != "Iou" {
				t.Errorf("template = %v / %q", create.TemplateId, create.PackageName)
			}
			if !proto.Equal(create.Argument.GetRecord().RecordId, create.TemplateId) {
				t.Errorf("record id %v", create.Argument.GetRecord().RecordId)
			}
			if len(create.Signatories) != 1 || create.Signatories[0] != f.alice {
				t.Errorf("signatories %v", create.Signatories)
			}
			if want := sortedSet(map[string]bool{f.alice: true, f.bob: true}); strings.Join(create.Stakeholders, ",") != strings.Join(want, ",") {
				t.Errorf("stakeholders %v, want %v", create.Stakeholders, want)
			}
			if p.CostEstimation == nil || p.CostEstimation.TotalTrafficCostEstimation != ledgerapi.Int64(len(p.Bytes)+CostEnvelopeBytes+CostSignatureBytes+CostResponseBytes) {
				t.Errorf("cost estimation %+v", p.CostEstimation)
			}
			if p.HashingDetails != nil {
				t.Errorf("hashing details without verboseHashing")
			}
			resp := p.Response()
			if string(resp.HashingSchemeVersion) != scheme.String() || len(resp.PreparedTransactionHash) != 32 {
				t.Errorf("response %+v", resp)
			}
		})
	}
}

// checkHashes recomputes the hash from the bytes and from the decoded
// message, and checks the bytes decode to the same message.
func checkHashes(t *testing.T, p *Prepared, scheme hashing.Scheme) {
	t.Helper()
	sum, err := hashing.Sum(p.Bytes, scheme)
	if err != nil {
		t.Fatal(err)
	}
	if sum != p.Hash {
		t.Fatalf("hash of the bytes %x differs from the prepared hash %x", sum, p.Hash)
	}
	decoded := &damlpb.PreparedTransaction{}
	if err := proto.Unmarshal(p.Bytes, decoded); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(decoded, p.PreparedTransaction) {
		t.Fatal("the bytes do not decode to the prepared transaction")
	}
	sum2, err := hashing.HashMessage(decoded, scheme)
	if err != nil || sum2 != p.Hash {
		t.Fatalf("HashMessage = %x, %v; want %x", sum2, err, p.Hash)
	}
}

func TestPrepareExercise(t *testing.T) {
	for _, scheme := range []hashing.Scheme{hashing.V2, hashing.V3} {
		t.Run(scheme.Short(), func(t *testing.T) {
			f := newFixture(t)
			cid := f.createContract(iouTemplate, iouArgs(f.alice, f.bob))
			req := prepareReq(f.alice, exerciseCmd(iouTemplate, cid, "Transfer", `{"newOwner":"`+f.bob+`"}`))
			req.HashingSchemeVersion = ledgerapi.HashingSchemeVersion(scheme.String())
			abs := ledgerapi.NewTimestamp(testNow.Add(time.Minute))
			req.MinLedgerTime = &ledgerapi.MinLedgerTime{Abs: &abs}
			p, err := f.eng.Prepare(context.Background(), req, "user1")
			if err != nil {
				t.Fatal(err)
			}
			checkHashes(t, p, scheme)
			md := p.PreparedTransaction.Metadata
			if md.MinLedgerEffectiveTime == nil || *md.MinLedgerEffectiveTime != uint64(abs.UnixMicro()) {
				t.Errorf("min LET %v", md.MinLedgerEffectiveTime)
			}
			if len(md.InputContracts) != 1 || md.InputContracts[0].GetV1().ContractId != cid ||
				md.InputContracts[0].CreatedAt != uint64(testNow.UnixMicro()) || len(md.InputContracts[0].EventBlob) == 0 {
				t.Fatalf("input contracts %v", md.InputContracts)
			}
			x := p.PreparedTransaction.Transaction.Nodes[0].GetV1().GetExercise()
			if x == nil || x.ContractId != cid || x.ChoiceId != "Transfer" || !x.Consuming || len(x.Children) != 0 ||
				x.ExerciseResult.GetUnit() == nil || len(x.ChoiceObservers) != 0 || x.ActingParties[0] != f.alice {
				t.Fatalf("exercise %v", x)
			}
			if x.ChosenValue.GetRecord().Fields[0].Value.GetParty() != f.bob {
				t.Errorf("chosen value %v", x.ChosenValue)
			}
		})
	}
}

func TestPrepareVerboseHashingAndCost(t *testing.T) {
	f := newFixture(t)
	req := prepareReq(f.alice, createCmd(iouTemplate, `{}`))
	req.VerboseHashing = true
	req.EstimateTrafficCost = &ledgerapi.CostEstimationHints{ExpectedSignatures: []ledgerapi.SigningAlgorithmSpec{
		ledgerapi.SigningAlgorithmSpecEd25519, ledgerapi.SigningAlgorithmSpecEd25519, ledgerapi.SigningAlgorithmSpecEd25519}}
	p, err := f.eng.Prepare(context.Background(), req, "user1")
	if err != nil {
		t.Fatal(err)
	}
	res, err := hashing.Compute(p.Bytes, hashing.V2, hashing.Options{Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.HashingDetails == nil || *p.HashingDetails != res.Trace.String() {
		t.Fatal("hashingDetails is not the hashing trace")
	}
	c := p.CostEstimation
	if c.ConfirmationRequestTrafficCostEstimation != ledgerapi.Int64(len(p.Bytes)+CostEnvelopeBytes+3*CostSignatureBytes) ||
		c.ConfirmationResponseTrafficCostEstimation != CostResponseBytes ||
		c.TotalTrafficCostEstimation != c.ConfirmationRequestTrafficCostEstimation+c.ConfirmationResponseTrafficCostEstimation ||
		!c.EstimationTimestamp.Equal(testNow.Truncate(time.Microsecond)) {
		t.Fatalf("cost %+v", c)
	}

	req.EstimateTrafficCost = &ledgerapi.CostEstimationHints{Disabled: true}
	p, err = f.eng.Prepare(context.Background(), req, "user1")
	if err != nil || p.CostEstimation != nil {
		t.Fatalf("disabled estimation gave %+v, %v", p.CostEstimation, err)
	}

	f2 := newFixture(t, func(c *Config) { c.DisableVerboseHashing = true })
	p, err = f2.eng.Prepare(context.Background(), req, "user1")
	if err != nil || p.HashingDetails == nil || !strings.Contains(*p.HashingDetails, "disabled") {
		t.Fatalf("verbose hashing disabled: %v, %v", p.HashingDetails, err)
	}
}

func TestPrepareTemplateIDs(t *testing.T) {
	deadbeef, abc123 := strings.Repeat("deadbeef", 8), "abc123"+strings.Repeat("0", 58)
	f := newFixture(t, func(c *Config) { c.PackageNames = map[string]string{abc123: "named-pkg"} })
	cases := []struct {
		tmpl, prefer, wantID, wantName string
	}{
		{"#iou-pkg:Iou:Iou", "", generic.PackageIDForName("iou-pkg"), "iou-pkg"},
		{deadbeef + ":Iou:Iou", "", deadbeef, deadbeef},
		{abc123 + ":Iou:Iou", "", abc123, "named-pkg"},
		{"#named-pkg:A.B:C", abc123, abc123, "named-pkg"},
		{"#named-pkg:A.B:C", "zzz", generic.PackageIDForName("named-pkg"), "named-pkg"},
	}
	for _, c := range cases {
		req := prepareReq(f.alice, createCmd(c.tmpl, `{}`))
		if c.prefer != "" {
			req.PackageIDSelectionPreference = []string{c.prefer}
		}
		p, err := f.eng.Prepare(context.Background(), req, "user1")
		if err != nil {
			t.Fatalf("%s: %v", c.tmpl, err)
		}
		cr := p.PreparedTransaction.Transaction.Nodes[0].GetV1().GetCreate()
		if cr.TemplateId.PackageId != c.wantID || cr.PackageName != c.wantName {
			t.Errorf("%s (prefer %q): got %s / %s, want %s / %s", c.tmpl, c.prefer, cr.TemplateId.PackageId, cr.PackageName, c.wantID, c.wantName)
		}
	}
}
