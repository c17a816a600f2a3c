package engine

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/daml/contract"
	"github.com/ledger-cli/ledger/internal/vectors"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"google.golang.org/protobuf/encoding/prototext"
)

// TestGoldenReinterpretsExactly is issue 23's heart on today's engine: the
// real Canton Coin transfer Canton prepared, re-interpreted from its root
// commands (act_as, root seeds, preparation time, the input contracts as
// their blobs describe them, the packages its nodes name), is the prepared
// transaction node for node, with the same seeds, input contracts and
// ledger-time bounds. It moves to daml/engine with the re-interpretation.
func TestGoldenReinterpretsExactly(t *testing.T) {
	f := amuletFixture(t)
	pt, err := vectors.FirstPrepared(filepath.Join("..", "..", vectors.LedgerHQTransfer))
	if err != nil {
		t.Fatal(err)
	}
	md, tr := pt.GetMetadata(), pt.GetTransaction()
	var inputs []*ledger.Contract
	for _, ic := range md.GetInputContracts() {
		c, err := contract.DecodeBlob(ic.GetEventBlob())
		if err != nil {
			t.Fatal(err)
		}
		lc, err := f.eng.ledgerContractOf(c, nil)
		if err != nil {
			t.Fatal(err)
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
		t.Fatal(err)
	}
	preparedAt := time.UnixMicro(int64(md.GetPreparationTime())).UTC()
	b, err := f.eng.interpret(context.Background(), cmds, damlRun{
		set: set, actAs: md.GetSubmitterInfo().GetActAs(), rootSeeds: rootSeeds, inputs: inputs,
		preparationTime: preparedAt, ledgerTime: preparedAt,
		preference: set.preference(preparedAt, nil, namedPackages(set, tr)),
	})
	if err != nil {
		t.Fatal(err)
	}
	if d := interpretedDifference(b.tx, tr); d != "" {
		t.Errorf("%s", d)
		want := map[string]*damlpb.Node{}
		for _, n := range b.tx.GetNodes() {
			want[n.GetNodeId()] = n.GetV1()
		}
		for _, n := range tr.GetNodes() {
			if nodeDifference(want[n.GetNodeId()], n.GetV1()) != "" {
				t.Logf("node %s prepared:\n%s\ninterpreted:\n%s", n.GetNodeId(), prototext.Format(n.GetV1()), prototext.Format(want[n.GetNodeId()]))
			}
		}
	}
	if !equalBound(md.MinLedgerEffectiveTime, b.minLedgerTime) || !equalBound(md.MaxLedgerEffectiveTime, b.maxLedgerTime) {
		t.Errorf("bounds [%v, %v], re-interpreted [%v, %v]", ptr(md.MinLedgerEffectiveTime), ptr(md.MaxLedgerEffectiveTime), ptr(b.minLedgerTime), ptr(b.maxLedgerTime))
	}
	byID := map[string]*damlpb.Metadata_InputContract{}
	for _, ic := range md.GetInputContracts() {
		byID[ic.GetV1().GetContractId()] = ic
	}
	if len(b.inputs) != len(md.GetInputContracts()) {
		t.Errorf("inputs %d vs %d", len(b.inputs), len(md.GetInputContracts()))
	}
	for i, ic := range b.inputs {
		if i < len(md.GetInputContracts()) && md.GetInputContracts()[i].GetV1().GetContractId() != ic.GetV1().GetContractId() {
			t.Errorf("input contract %d is %s, re-interpreted %s", i, md.GetInputContracts()[i].GetV1().GetContractId(), ic.GetV1().GetContractId())
		}
		g := byID[ic.GetV1().GetContractId()]
		if g == nil {
			t.Errorf("input %s not in the prepared transaction", ic.GetV1().GetContractId())
			continue
		}
		if !sameInputContract(ic, g) {
			t.Errorf("input %s differs:\nprepared %s\nours %s", ic.GetV1().GetContractId(), prototext.Format(g), prototext.Format(ic))
		}
	}
}

func ptr(p *uint64) any {
	if p == nil {
		return nil
	}
	return *p
}
