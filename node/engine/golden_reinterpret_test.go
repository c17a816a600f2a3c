package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/daml/contract"
	"github.com/ledger-cli/ledger/internal/tamper"
	"github.com/ledger-cli/ledger/internal/vectors"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// TestGoldenReinterpretsExactly is issue 23's heart on today's engine: the
// real Canton Coin transfer Canton prepared, re-interpreted from its root
// commands (act_as, root seeds, preparation time, the input contracts as
// their blobs describe them, the packages its nodes name), is the prepared
// transaction node for node, with the same seeds, input contracts (in
// Canton's order) and ledger-time bounds. Each tampered variant of it is
// found. It moves to daml/engine with the re-interpretation.
func TestGoldenReinterpretsExactly(t *testing.T) {
	f := amuletFixture(t)
	pt, err := vectors.FirstPrepared(filepath.Join("..", "..", vectors.LedgerHQTransfer))
	if err != nil {
		t.Fatal(err)
	}
	if d := goldenDifference(f, pt); d != "" {
		t.Fatalf("the golden transfer: %s", d)
	}
	variants, err := tamper.Golden(pt)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range variants {
		d := goldenDifference(f, v.Prepared)
		if d == "" {
			t.Errorf("%s: not found", v.Name)
		}
		t.Logf("%s: %s", v.Name, d)
	}
}

// goldenDifference re-interprets pt offline and says what differs, or "".
func goldenDifference(f *fixture, pt *damlpb.PreparedTransaction) string {
	md, tr := pt.GetMetadata(), pt.GetTransaction()
	var inputs []*ledger.Contract
	for _, ic := range md.GetInputContracts() {
		c, err := contract.DecodeBlob(ic.GetEventBlob())
		if err != nil {
			return err.Error()
		}
		if err := f.eng.authenticate(c, ic.GetEventBlob(), nil, nil, nil, "input contract"); err != nil {
			return err.Error()
		}
		lc, err := f.eng.ledgerContractOf(c, nil)
		if err != nil {
			return err.Error()
		}
		inputs = append(inputs, lc)
	}
	nodes := map[string]*damlpb.Node{}
	for _, n := range tr.GetNodes() {
		nodes[n.GetNodeId()] = n.GetV1()
	}
	seeds := map[int32][]byte{}
	for _, s := range tr.GetNodeSeeds() {
		seeds[s.GetNodeId()] = s.GetSeed()
	}
	set := f.eng.cfg.Packages()
	cmds, rootSeeds, err := damlRootCommands(tr.GetRoots(), nodes, seeds, set)
	if err != nil {
		return err.Error()
	}
	preparedAt := time.UnixMicro(int64(md.GetPreparationTime())).UTC()
	b, err := f.eng.interpret(context.Background(), cmds, damlRun{
		set: set, actAs: md.GetSubmitterInfo().GetActAs(), rootSeeds: rootSeeds, inputs: inputs,
		preparationTime: preparedAt, ledgerTime: preparedAt,
		preference: set.preference(preparedAt, nil, namedPackages(set, tr)),
	})
	if err != nil {
		return err.Error()
	}
	if d := interpretedDifference(b.tx, tr); d != "" {
		return d
	}
	if !equalBound(md.MinLedgerEffectiveTime, b.minLedgerTime) || !equalBound(md.MaxLedgerEffectiveTime, b.maxLedgerTime) {
		return fmt.Sprintf("ledger-time bounds [%s, %s], re-interpreted [%s, %s]", boundText(md.MinLedgerEffectiveTime), boundText(md.MaxLedgerEffectiveTime), boundText(b.minLedgerTime), boundText(b.maxLedgerTime))
	}
	var got, want []string
	for _, ic := range md.GetInputContracts() {
		got = append(got, ic.GetV1().GetContractId())
	}
	for i, ic := range b.inputs {
		want = append(want, ic.GetV1().GetContractId())
		if i < len(md.GetInputContracts()) && !sameInputContract(ic, md.GetInputContracts()[i]) {
			return fmt.Sprintf("input contract %s differs", ic.GetV1().GetContractId())
		}
	}
	if !slices.Equal(got, want) {
		return fmt.Sprintf("input contracts %v, re-interpreted %v", got, want)
	}
	return ""
}
