package engine

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/contract"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/internal/vectors"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// goldenInputs are the five input contracts of a real Canton Coin transfer
// Canton prepared (testdata/vectors/npm-peers/golden-ledgerhq-v2.tsv).
func goldenInputs(t *testing.T) []*damlpb.Metadata_InputContract {
	t.Helper()
	pt, err := vectors.FirstPrepared(filepath.Join("..", "..", vectors.LedgerHQTransfer))
	if err != nil {
		t.Fatal(err)
	}
	return pt.GetMetadata().GetInputContracts()
}

// amuletFixture is a fixture whose engine holds splice-amulet 0.1.14 and
// 0.1.6 with their dependencies; it skips without the shared DARs.
func amuletFixture(t *testing.T) *fixture {
	t.Helper()
	var pkgs []*lf.Package
	seen := map[lf.PackageID]bool{}
	for _, name := range []string{"splice-amulet-0.1.14.dar", "splice-amulet-0.1.6.dar"} {
		d, err := archive.ReadDarFile(filepath.Join("..", "..", "..", "shared", "dars", name), archive.Options{})
		if errors.Is(err, os.ErrNotExist) {
			t.Skipf("%s not found in ../shared/dars (the shared folder beside the repository); skipping", name)
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range d.Packages {
			if !seen[p.ID] {
				seen[p.ID] = true
				pkgs = append(pkgs, p)
			}
		}
	}
	return newFixture(t, withPackages(PackageSetOf(pkgs...)))
}

// TestRealCantonContractsDisclosed is issue 22's item 4 on the engine: the
// five input contracts of a real Canton Coin transfer (ca10 and ca11 ids
// Canton made, which this node never held) authenticate from their blobs
// and are accepted as disclosed contracts by commands that read them — the
// nonconsuming OpenMiningRound_Fetch and AmuletRules_Fetch of a local
// party, and ExternalPartyAmuletRules_CreateTransferCommand on the
// ExternalPartyAmuletRules created under splice-amulet 0.1.6 (979ec710…)
// and exercised through 0.1.14 — Amulet and LockedAmulet disclosed beside
// them. The DSO and the coin's owner are no parties of this node: as
// stakeholders of contracts from another participant they count as
// known informees. The same blobs with another created_at are refused.
func TestRealCantonContractsDisclosed(t *testing.T) {
	f := amuletFixture(t)
	ics := goldenInputs(t)
	var disclosed []ledgerapi.DisclosedContract
	byEntity := map[string]*contract.Contract{}
	for _, ic := range ics {
		c, err := contract.DecodeBlob(ic.GetEventBlob())
		if err != nil {
			t.Fatal(err)
		}
		if err := f.eng.authenticate(c, ic.GetEventBlob(), nil, nil, nil, "contract"); err != nil {
			t.Errorf("%s (%s): %v", c.TemplateID.EntityName, c.ID, err)
		}
		byEntity[c.TemplateID.EntityName] = c
		disclosed = append(disclosed, ledgerapi.DisclosedContract{ContractID: string(c.ID), CreatedEventBlob: ic.GetEventBlob()})
	}
	validator := f.ledger.party("validator")
	const pkg1_14 = "3ca1343ab26b453d38c8adb70dca5f1ead8440c42b59b68f070786955cbf9ec1"
	dso := byEntity["AmuletRules"].Signatories[0]
	if old := byEntity["ExternalPartyAmuletRules"].TemplateID.PackageID; !strings.HasPrefix(old, "979ec710") {
		t.Fatalf("ExternalPartyAmuletRules of package %s, want 979ec710…", old)
	}
	submit := func(cmd ledgerapi.Command, ds []ledgerapi.DisclosedContract) (*Outcome, error) {
		return f.eng.Submit(context.Background(), ledgerapi.Commands{CommandID: "read", ActAs: []string{validator},
			Commands: []ledgerapi.Command{cmd}, DisclosedContracts: ds}, "user1")
	}
	for _, tc := range []struct {
		entity, tmpl, choice, arg string
	}{
		{"OpenMiningRound", pkg1_14 + ":Splice.Round:OpenMiningRound", "OpenMiningRound_Fetch", `{"p":"` + validator + `"}`},
		{"AmuletRules", pkg1_14 + ":Splice.AmuletRules:AmuletRules", "AmuletRules_Fetch", `{"p":"` + validator + `"}`},
		{"ExternalPartyAmuletRules", pkg1_14 + ":Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules",
			"ExternalPartyAmuletRules_CreateTransferCommand", `{"sender":"` + validator + `","receiver":"` + validator +
				`","delegate":"` + validator + `","amount":"1.0","expiresAt":"2100-01-01T00:00:00Z","nonce":"0","description":null,"expectedDso":"` + dso + `"}`},
	} {
		c := byEntity[tc.entity]
		o, err := submit(exerciseCmd(tc.tmpl, string(c.ID), tc.choice, tc.arg), disclosed)
		if err != nil {
			t.Errorf("%s with the real contracts disclosed: %v", tc.choice, err)
			continue
		}
		if len(o.Transaction.Archived) != 0 {
			t.Errorf("%s archived %v", tc.choice, o.Transaction.Archived)
		}
		t.Logf("%s: %d events, created %d", tc.choice, len(o.Events.Transaction(ledger.Committed{}, ledgerapi.TransactionShapeLedgerEffects, nil).Events), len(o.Transaction.Created))
		// The same contract created at another time.
		bad := blobVariant(t, disclosedBlob(disclosed, c.ID), func(c *contract.Contract) { c.CreatedAt++ })
		if _, err := submit(exerciseCmd(tc.tmpl, string(c.ID), tc.choice, tc.arg), []ledgerapi.DisclosedContract{{ContractID: string(c.ID), CreatedEventBlob: bad}}); errorID(err) != "DISCLOSED_CONTRACT_AUTHENTICATION_FAILED" {
			t.Errorf("%s with a changed blob: %v", tc.choice, err)
		}
	}
}

// TestForeignContractOfLocalParty: a contract this node does not hold
// cannot name one of its parties as a stakeholder — it would hold it — so
// such a disclosed contract is CONTRACT_NOT_FOUND even when it
// authenticates (anyone can make a consistent blob with a salt of their
// own). Here the DSO of the real transfer is made a party of this node.
// TestRealCantonContractsExecuted: an external party prepares
// AmuletRules_Fetch with the real contracts disclosed, signs and executes
// it: the prepared transaction's input contract carries Canton's blob byte
// for byte, and execute authenticates it and re-interprets with it.
func TestRealCantonContractsExecuted(t *testing.T) {
	f := amuletFixture(t)
	var disclosed []ledgerapi.DisclosedContract
	var rules *contract.Contract
	blobs := map[string][]byte{}
	for _, ic := range goldenInputs(t) {
		c, err := contract.DecodeBlob(ic.GetEventBlob())
		if err != nil {
			t.Fatal(err)
		}
		if c.TemplateID.EntityName == "AmuletRules" {
			rules = c
		}
		blobs[string(c.ID)] = ic.GetEventBlob()
		disclosed = append(disclosed, ledgerapi.DisclosedContract{ContractID: string(c.ID), CreatedEventBlob: ic.GetEventBlob()})
	}
	req := prepareReq(f.alice, exerciseCmd("3ca1343ab26b453d38c8adb70dca5f1ead8440c42b59b68f070786955cbf9ec1:Splice.AmuletRules:AmuletRules",
		string(rules.ID), "AmuletRules_Fetch", `{"p":"`+f.alice+`"}`))
	req.DisclosedContracts = disclosed
	p, err := f.eng.Prepare(context.Background(), req, "user1")
	if err != nil {
		t.Fatalf("prepare: %v", err)
	}
	ics := p.PreparedTransaction.GetMetadata().GetInputContracts()
	if len(ics) != 1 || ics[0].GetV1().GetContractId() != string(rules.ID) || !bytes.Equal(ics[0].GetEventBlob(), blobs[string(rules.ID)]) {
		t.Fatalf("the input contract is not Canton's AmuletRules blob: %v", ics)
	}
	o, err := f.eng.Execute(context.Background(), executeReq(p, f.alice, f.aliceK), "user1", f.ledger.lookupKeys)
	if err != nil {
		t.Fatalf("execute: %v", err)
	}
	if len(o.Transaction.Inputs) != 0 || len(o.Transaction.Archived) != 0 {
		t.Errorf("the store is asked to check %v and archive %v, contracts it does not hold", o.Transaction.Inputs, o.Transaction.Archived)
	}
}

func TestForeignContractOfLocalParty(t *testing.T) {
	f := amuletFixture(t)
	validator := f.ledger.party("validator")
	for _, ic := range goldenInputs(t) {
		c, err := contract.DecodeBlob(ic.GetEventBlob())
		if err != nil {
			t.Fatal(err)
		}
		if c.TemplateID.EntityName != "AmuletRules" {
			continue
		}
		f.ledger.parties[c.Signatories[0]] = true
		_, err = f.eng.Submit(context.Background(), ledgerapi.Commands{CommandID: "read", ActAs: []string{validator},
			Commands: []ledgerapi.Command{exerciseCmd("3ca1343ab26b453d38c8adb70dca5f1ead8440c42b59b68f070786955cbf9ec1:Splice.AmuletRules:AmuletRules",
				string(c.ID), "AmuletRules_Fetch", `{"p":"`+validator+`"}`)},
			DisclosedContracts: []ledgerapi.DisclosedContract{{ContractID: string(c.ID), CreatedEventBlob: ic.GetEventBlob()}}}, "user1")
		if errorID(err) != "CONTRACT_NOT_FOUND" {
			t.Errorf("a foreign contract of a local party: %v", err)
		}
		return
	}
	t.Fatal("no AmuletRules among the golden inputs")
}

func disclosedBlob(ds []ledgerapi.DisclosedContract, id value.ContractID) []byte {
	for _, d := range ds {
		if d.ContractID == string(id) {
			return d.CreatedEventBlob
		}
	}
	return nil
}
