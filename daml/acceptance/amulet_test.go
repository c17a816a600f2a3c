package acceptance

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/value"
)

const dso = "dso::1220dd"

// tickMicros is the tick duration of the configuration: 10 minutes.
const tickMicros = 600_000_000

// amuletConfig is an AmuletConfig USD with the shape of Splice's DevNet
// defaults (Splice.Scripts.Parameters): the fees, the issuance curve, one
// synchronizer, ten-minute ticks.
func amuletConfig() string {
	issuance := func(perYear string) string {
		return fmt.Sprintf(`{"amuletToIssuePerYear": %q, "validatorRewardPercentage": "0.05", "appRewardPercentage": "0.15",
			"validatorRewardCap": "0.2", "featuredAppRewardCap": "100.0", "unfeaturedAppRewardCap": "0.6", "optValidatorFaucetCap": "2.85"}`, perYear)
	}
	return fmt.Sprintf(`{
		"transferConfig": {
			"createFee": {"fee": "0.03"},
			"holdingFee": {"rate": "0.0000190259"},
			"transferFee": {"initialRate": "0.01", "steps": [{"_1": "100.0", "_2": "0.001"}, {"_1": "1000.0", "_2": "0.0001"}, {"_1": "1000000.0", "_2": "0.00001"}]},
			"lockHolderFee": {"fee": "0.005"},
			"extraFeaturedAppRewardAmount": "1.0",
			"maxNumInputs": "100", "maxNumOutputs": "100", "maxNumLockHolders": "50"},
		"issuanceCurve": {"initialValue": %s, "futureValues": [
			{"_1": {"microseconds": "15768000000000"}, "_2": %s},
			{"_1": {"microseconds": "47304000000000"}, "_2": %s}]},
		"decentralizedSynchronizer": {
			"requiredSynchronizers": {"map": [["global-domain::1220ee", {}]]},
			"activeSynchronizer": "global-domain::1220ee",
			"fees": {"baseRateTrafficLimits": {"burstAmount": "400000", "burstWindow": {"microseconds": "1200000000"}},
				"extraTrafficPrice": "16.67", "readVsWriteScalingFactor": "4", "minTopupAmount": "200000"}},
		"tickDuration": {"microseconds": "%d"},
		"packageConfig": {"amulet": "0.1.14", "amuletNameService": "0.1.14", "dsoGovernance": "0.1.20",
			"validatorLifecycle": "0.1.5", "wallet": "0.1.14", "walletPayments": "0.1.14"},
		"transferPreapprovalFee": null,
		"featuredAppActivityMarkerAmount": null}`,
		issuance("40000000000.0"), issuance("20000000000.0"), issuance("10000000000.0"), tickMicros)
}

// amulet is a bootstrapped Canton Coin network on an in-memory ledger.
type amulet struct {
	*world
	pkg                   lf.PackageID
	rules, external, open value.ContractID
	std                   tokenStandard
}

// bootstrapAmulet sets up Canton Coin as Splice's DSO does at network
// genesis: the DSO party creates the AmuletRules (DevNet) and the
// ExternalPartyAmuletRules, then bootstraps the mining rounds with
// AmuletRules_Bootstrap_Rounds (rounds 0 and 1 open now, round 2 a tick
// later).
func bootstrapAmulet(t testing.TB) *amulet {
	a := loadApp(t, "splice-amulet-0.1.14.dar")
	w := newWorld(t, a)
	c := &amulet{world: w, pkg: a.dar.Main, std: standard(t, a)}
	c.rules = w.create([]string{dso}, c.id("Splice.AmuletRules:AmuletRules"),
		fmt.Sprintf(`{"dso": %q, "configSchedule": {"initialValue": %s, "futureValues": []}, "isDevNet": true}`, dso, amuletConfig()))
	c.external = w.create([]string{dso}, c.id("Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules"), fmt.Sprintf(`{"dso": %q}`, dso))
	res, ids := w.submit([]string{dso}, c.exercise(c.rules, "Splice.AmuletRules:AmuletRules", "AmuletRules_Bootstrap_Rounds",
		fmt.Sprintf(`{"amuletPrice": "0.005", "round0Duration": {"microseconds": "%d"}, "initialRound": null}`, tickMicros)))
	if got := describe(res.Transaction); got != "exercise AmuletRules AmuletRules_Bootstrap_Rounds\n"+
		"  create OpenMiningRound\n  create OpenMiningRound\n  create OpenMiningRound\n" {
		t.Fatalf("bootstrap:\n%s", got)
	}
	c.open = created(res.Transaction, ids, "OpenMiningRound")[0]
	w.now += 2_000_000
	return c
}

func (c *amulet) id(qualified string) *value.Identifier { return id(c.pkg, qualified) }

// exercise is an exercise command on a contract of template tmpl of
// splice-amulet, its argument read from JSON by the choice's type.
func (c *amulet) exercise(cid value.ContractID, tmpl, choice, arg string) *interp.ExerciseCommand {
	module := tmpl[:strings.IndexByte(tmpl, ':')]
	return &interp.ExerciseCommand{Template: c.id(tmpl), ContractID: cid, Choice: choice, Argument: c.app.value(c.t, c.id(module+":"+choice), arg)}
}

// tap taps amount of coin for party on the DevNet faucet.
func (c *amulet) tap(party, amount string) value.ContractID {
	res, ids := c.submit([]string{party}, c.exercise(c.rules, "Splice.AmuletRules:AmuletRules", "AmuletRules_DevNet_Tap",
		fmt.Sprintf(`{"receiver": %q, "amount": %q, "openRound": %q}`, party, amount, c.open)))
	return created(res.Transaction, ids, "Amulet")[0]
}

// context is the choice context the token-standard choices of Amulet
// need: the rules and an open round.
func (c *amulet) context() string {
	return fmt.Sprintf(`{"values": {"amulet-rules": {"tag": "AV_ContractId", "value": %q}, "open-round": {"tag": "AV_ContractId", "value": %q}}}`,
		c.rules, c.open)
}

// transfer sends amount of the sender's holding to receiver through the
// token-standard TransferFactory of the ExternalPartyAmuletRules.
func (c *amulet) transfer(sender, receiver, amount string, holding value.ContractID) interp.Command {
	arg := fmt.Sprintf(`{"expectedAdmin": %q, "transfer": {"sender": %q, "receiver": %q, "amount": %q,
		"instrumentId": {"admin": %q, "id": "Amulet"}, "requestedAt": %q, "executeBefore": %q,
		"inputHoldingCids": [%q], "meta": {"values": {}}},
		"extraArgs": {"context": %s, "meta": {"values": {}}}}`,
		dso, sender, receiver, amount, dso, micros(c.now-1_000_000), micros(c.now+3_600_000_000), holding, c.context())
	return &interp.ExerciseCommand{Template: c.std.transferFactory, ContractID: c.external, Choice: "TransferFactory_Transfer",
		Argument: c.app.value(c.t, id(c.std.transferFactory.PackageID, "Splice.Api.Token.TransferInstructionV1:TransferFactory_Transfer"), arg)}
}

// TestAmulet runs Canton Coin on the interpreter: the DSO bootstraps the
// rules and the mining rounds, a party taps coin on the DevNet faucet, and
// transfers it to another through the token-standard TransferFactory (a
// two-step transfer: the coin is locked and an AmuletTransferInstruction
// created), which the receiver accepts through the TransferInstruction
// interface; holdings are read through the Holding interface view.
func TestAmulet(t *testing.T) {
	c := bootstrapAmulet(t)
	coin := c.tap(alice, "1000.0")
	views := holdingViews(t, c.world, c.std, "Splice.Amulet", "Amulet")
	if len(views) != 1 || !strings.Contains(views[0], `"amount":"1000.0000000000"`) || !strings.Contains(views[0], `"owner":"`+alice+`"`) {
		t.Fatalf("tapped coin: %v", views)
	}

	res, ids := c.submit([]string{alice}, c.transfer(alice, bob, "100.0", coin))
	want := "exercise ExternalPartyAmuletRules via TransferFactory TransferFactory_Transfer\n" +
		"  fetch AmuletRules\n" +
		"  exercise AmuletRules AmuletRules_ComputeFees\n    fetch OpenMiningRound\n" +
		"  fetch Amulet via Holding\n" +
		"  exercise AmuletRules AmuletRules_Transfer\n    fetch OpenMiningRound\n    fetch Amulet\n    exercise Amulet Archive (consuming)\n" +
		"    create ValidatorRewardCoupon\n    create AppRewardCoupon\n    create LockedAmulet\n    create Amulet\n" +
		"  create AmuletTransferInstruction\n"
	if got := describe(res.Transaction); got != want {
		t.Errorf("transfer:\n%s", got)
	}
	t.Logf("transfer: %d nodes, %d machine steps, %d bytes of values built", len(res.Transaction.Nodes), res.Steps, res.Memory)
	if !res.DependsOnTime || res.TimeBounds.Min == nil || res.TimeBounds.Max == nil {
		t.Errorf("the transfer's deadlines bound the ledger time: %+v", res.TimeBounds)
	}
	out := res.Transaction.Nodes[0].(*tx.Exercise).Result.(*value.Record).Field("output").(*value.Variant)
	if out.Constructor != "TransferInstructionResult_Pending" {
		t.Fatalf("transfer output %s", out)
	}
	instr := ids[out.Value.(*value.Record).Field("transferInstructionCid").(value.ContractID)]

	accept := &interp.ExerciseCommand{Template: c.std.transferInstruction, ContractID: instr, Choice: "TransferInstruction_Accept",
		Argument: c.app.value(t, id(c.std.transferInstruction.PackageID, "Splice.Api.Token.TransferInstructionV1:TransferInstruction_Accept"),
			fmt.Sprintf(`{"extraArgs": {"context": %s, "meta": {"values": {}}}}`, c.context()))}
	res, _ = c.submit([]string{bob}, accept)
	want = "exercise AmuletTransferInstruction via TransferInstruction TransferInstruction_Accept (consuming)\n" +
		"  fetch AmuletRules\n" +
		"  exercise LockedAmulet LockedAmulet_Unlock (consuming)\n    fetch OpenMiningRound\n    create Amulet\n" +
		"  exercise AmuletRules AmuletRules_Transfer\n    fetch OpenMiningRound\n    fetch Amulet\n    exercise Amulet Archive (consuming)\n" +
		"    create ValidatorRewardCoupon\n    create AppRewardCoupon\n    create Amulet\n    create Amulet\n"
	if got := describe(res.Transaction); got != want {
		t.Errorf("accept:\n%s", got)
	}
	views = holdingViews(t, c.world, c.std, "Splice.Amulet", "Amulet")
	var bobs []string
	for _, v := range views {
		if strings.Contains(v, `"owner":"`+bob+`"`) {
			bobs = append(bobs, v)
		}
	}
	if len(bobs) != 1 || !strings.Contains(bobs[0], `"amount":"100.0000000000"`) {
		t.Errorf("bob's holdings: %v (all: %v)", bobs, views)
	}
}

// TestAmuletTransferCommandRollback runs the try/catch of Splice's
// TransferCommand_Send (ExternalPartyAmuletRules.daml): a transfer through
// a TransferPreapproval of more coin than the sender has. The transfer
// archives its input coin before it finds the funds short and throws
// InvalidTransfer; the handler would merge the inputs and report the
// failure. Canton 3.5 refuses to roll back the archive
// (DAML_EFFECTFUL_ROLLBACK_ERROR); Canton 3.4 rolls it back, and the
// transaction holds the rollback node, the merge and the failure.
func TestAmuletTransferCommandRollback(t *testing.T) {
	c := bootstrapAmulet(t)
	coin := c.tap(alice, "1000.0")
	counter := c.create([]string{dso}, c.id("Splice.ExternalPartyAmuletRules:TransferCommandCounter"),
		fmt.Sprintf(`{"dso": %q, "sender": %q, "nextNonce": "0"}`, dso, alice))
	preapproval := c.create([]string{bob, dso}, c.id("Splice.AmuletRules:TransferPreapproval"),
		fmt.Sprintf(`{"dso": %q, "receiver": %q, "provider": %q, "validFrom": %q, "lastRenewedAt": %q, "expiresAt": %q}`,
			dso, bob, bob, micros(c.now), micros(c.now), micros(c.now+86_400_000_000)))
	res, ids := c.submit([]string{alice}, c.exercise(c.external, "Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules",
		"ExternalPartyAmuletRules_CreateTransferCommand", fmt.Sprintf(`{"sender": %q, "receiver": %q, "delegate": %q, "amount": "5000.0",
		"expiresAt": %q, "nonce": "0", "description": null, "expectedDso": %q}`, alice, bob, dso, micros(c.now+3_600_000_000), dso)))
	command := created(res.Transaction, ids, "TransferCommand")[0]
	send := c.exercise(command, "Splice.ExternalPartyAmuletRules:TransferCommand", "TransferCommand_Send", fmt.Sprintf(`{
		"context": {"amuletRules": %q, "context": {"openMiningRound": %q, "issuingMiningRounds": [], "validatorRights": [], "featuredAppRight": null}},
		"inputs": [{"tag": "InputAmulet", "value": %q}], "transferPreapprovalCidO": %q, "transferCounterCid": %q}`,
		c.rules, c.open, coin, preapproval, counter))

	_, err := c.try([]string{dso}, send)
	wantError(t, err, "DAML_EFFECTFUL_ROLLBACK_ERROR", "Tried to rollback side-effectful node(s): Consuming exercise of Archive on Splice.Amulet:Amulet@3ca1343a ( "+string(coin)+" )")

	s := c.submission([]string{dso}, send)
	s.StateMode = interp.StateNoKey
	res34, err := c.app.eng.Submit(context.Background(), s, c.ledger)
	if err != nil {
		t.Fatal(err)
	}
	got := describe(res34.Transaction)
	if !strings.Contains(got, "  rollback\n    exercise TransferPreapproval TransferPreapproval_Send\n") {
		t.Errorf("no rollback of the send:\n%s", got)
	}
	result := res34.Transaction.Nodes[0].(*tx.Exercise).Result.(*value.Record).Field("result").(*value.Variant)
	if result.Constructor != "TransferCommandResultFailure" || !strings.Contains(result.String(), "ITR_InsufficientFunds") {
		t.Errorf("result %s", result)
	}
	// After the rollback the handler's merge archives the same coin again.
	if !strings.HasSuffix(got, "  exercise AmuletRules AmuletRules_Transfer\n    fetch OpenMiningRound\n    fetch Amulet\n    exercise Amulet Archive (consuming)\n    create Amulet\n") {
		t.Errorf("the merge after the rollback:\n%s", got)
	}
}
