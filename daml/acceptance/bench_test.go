package acceptance

import (
	"context"
	"fmt"
	"testing"

	"github.com/ledger-cli/ledger/daml/interp"
)

// reportCPU reports the process CPU time per operation and operations per
// second of wall time.
func reportCPU(b *testing.B, cpu int64, unit string) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), unit+"/s")
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
}

// BenchmarkTokenTransfer interprets a token-standard transfer through
// TransferFactory_Transfer of splice-test-token-v1: fetch the input
// holding through Holding, archive it, create the change and the
// TokenTransferOffer, with the deadline checks on the ledger time. Each
// operation is one Engine.Submit on a ledger that holds the factory and
// the holding (the transaction is not committed, so every iteration
// transfers the same holding).
func BenchmarkTokenTransfer(b *testing.B) {
	a := loadApp(b, "splice-test-token-v1-1.0.0.dar")
	std := standard(b, a)
	w := newWorld(b, a)
	main := a.dar.Main
	rules := w.create([]string{admin}, id(main, "Splice.Testing.Tokens.TestTokenV1:TokenRules"), fmt.Sprintf(`{"admin": %q}`, admin))
	token := w.create([]string{alice, admin}, id(main, "Splice.Testing.Tokens.TestTokenV1:Token"),
		fmt.Sprintf(`{"holding": {"owner": %q, "instrumentId": {"admin": %q, "id": "TOK"}, "amount": "100.0", "lock": null, "meta": {"values": {}}}}`, alice, admin))
	arg := transferArg(w, alice, bob, "30.0", token)
	w.now += 1_000_000
	s := w.submission([]string{alice}, &interp.ExerciseCommand{Template: std.transferFactory, ContractID: rules, Choice: "TransferFactory_Transfer",
		Argument: a.value(b, id(std.transferFactory.PackageID, "Splice.Api.Token.TransferInstructionV1:TransferFactory_Transfer"), arg)})
	benchSubmit(b, a.eng, w, s)
}

// BenchmarkAmuletTap interprets a DevNet tap of Canton Coin
// (AmuletRules_DevNet_Tap: the mint choice, the open round fetched, an
// Amulet created).
func BenchmarkAmuletTap(b *testing.B) {
	c := bootstrapAmulet(b)
	s := c.submission([]string{alice}, c.exercise(c.rules, "Splice.AmuletRules:AmuletRules", "AmuletRules_DevNet_Tap",
		fmt.Sprintf(`{"receiver": %q, "amount": "1000.0", "openRound": %q}`, alice, c.open)))
	benchSubmit(b, c.app.eng, c.world, s)
}

// BenchmarkAmuletTransfer interprets a Canton Coin transfer through the
// token-standard TransferFactory of the ExternalPartyAmuletRules: fees
// computed, the coin fetched and archived, reward coupons, a locked amulet,
// the change and an AmuletTransferInstruction created (14 nodes).
func BenchmarkAmuletTransfer(b *testing.B) {
	c := bootstrapAmulet(b)
	coin := c.tap(alice, "1000.0")
	s := c.submission([]string{alice}, c.transfer(alice, bob, "100.0", coin))
	benchSubmit(b, c.app.eng, c.world, s)
}

func benchSubmit(b *testing.B, e *interp.Engine, w *world, s *interp.Submission) {
	ctx := context.Background()
	if _, err := e.Submit(ctx, s, w.ledger); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	for i := 0; i < b.N; i++ {
		s.SubmissionSeed[31] = byte(i)
		if _, err := e.Submit(ctx, s, w.ledger); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, processCPU()-cpu, "transactions")
}
