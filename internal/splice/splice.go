// Package splice writes the JSON Ledger API commands of the token standard
// (the splice-api-token-* interfaces), of my-exercise-app's token and of
// Canton Coin (splice-amulet), for the token demo, the token benchmark and
// the tests that run them on a node. Templates and interfaces are named by
// package name ("#name:Module:Entity"), which the node resolves to the
// preferred vetted version. The argument shapes are those of the .daml
// sources inside the DARs of ../shared/dars.
package splice

import (
	"fmt"
	"time"
)

// Interfaces of the token standard.
const (
	Holding             = "#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding"
	TransferFactory     = "#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory"
	TransferInstruction = "#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction"
)

// Templates of my-exercise-app (my-exercise-app.dar, package exercise-app).
const (
	TokenTransferFactory     = "#exercise-app:TokenTransfer:TokenTransferFactory"
	TokenTransferInstruction = "#exercise-app:TokenTransfer:TokenTransferInstruction"
	TokenHolding             = "#exercise-app:TokenHolding:TokenHolding"
)

// TokenAppDars are the DARs of my-exercise-app's token, in upload order:
// the token standard's interfaces it implements (Metadata, Holding,
// TransferFactory and TransferInstruction), then the app. The app's DAR
// carries the three interface packages too; uploading them first shows
// what it builds on. The files are those of ../shared/dars (see its
// README.md for where each is published).
var TokenAppDars = []string{
	"splice-api-token-metadata-v1-1.0.0.dar",
	"splice-api-token-holding-v1-1.0.0.dar",
	"splice-api-token-transfer-instruction-v1-1.0.0.dar",
	"my-exercise-app.dar",
}

// TokenAppDar is the DAR of my-exercise-app's token, the one the demo
// needs: it carries the interface packages of TokenAppDars too.
const TokenAppDar = "my-exercise-app.dar"

// TokenAppDarsSource says where TokenAppDars are published.
const TokenAppDarsSource = "my-exercise-app.dar is in github.com/hyperledger-labs/splice-wallet-kernel (canton/, commit 50309572); " +
	"the splice-api-token-*-v1-1.0.0.dar files are in github.com/digital-asset/cn-quickstart (quickstart/daml/dars/)"

// Templates of Canton Coin (splice-amulet-0.1.14.dar).
const (
	AmuletRules              = "#splice-amulet:Splice.AmuletRules:AmuletRules"
	ExternalPartyAmuletRules = "#splice-amulet:Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules"
	Amulet                   = "#splice-amulet:Splice.Amulet:Amulet"
)

// Object is a JSON object.
type Object = map[string]any

func empty() Object { return Object{} }

// noMeta is an empty Metadata.
func noMeta() Object { return Object{"values": empty()} }

// Create is a CreateCommand.
func Create(template string, args Object) Object {
	return Object{"CreateCommand": Object{"templateId": template, "createArguments": args}}
}

// Exercise is an ExerciseCommand; template may name an interface.
func Exercise(template, contractID, choice string, arg Object) Object {
	return Object{"ExerciseCommand": Object{"templateId": template, "contractId": contractID, "choice": choice, "choiceArgument": arg}}
}

// Factory creates my-exercise-app's TokenTransferFactory of admin, seen by
// observers.
func Factory(admin string, observers ...string) Object {
	if observers == nil {
		observers = []string{}
	}
	return Create(TokenTransferFactory, Object{"admin": admin, "meta": noMeta(), "observers": observers})
}

// Mint creates a TokenHolding of amount of admin's instrument id for owner.
func Mint(admin, owner, id, amount string) Object {
	return Create(TokenHolding, Object{"owner": owner, "dso": admin, "instrumentId": Object{"admin": admin, "id": id},
		"amount": amount, "meta": noMeta()})
}

// Transfer is a token-standard transfer.
type Transfer struct {
	Admin, InstrumentID      string
	Sender, Receiver, Amount string
	Holdings                 []string // the sender's holdings spent
	// RequestedAt is when the transfer was asked for (not after the ledger
	// time); the transfer must execute within ExecuteWithin of it.
	RequestedAt   time.Time
	ExecuteWithin time.Duration
	// Context is the choice context the factory needs (Canton Coin: the
	// rules and the open round; nil: none).
	Context Object
}

// TransferCommand is TransferFactory_Transfer on factory, through the
// TransferFactory interface.
func TransferCommand(factory string, t Transfer) Object {
	holdings := t.Holdings
	if holdings == nil {
		holdings = []string{}
	}
	ctx := t.Context
	if ctx == nil {
		ctx = Object{"values": empty()}
	}
	return Exercise(TransferFactory, factory, "TransferFactory_Transfer", Object{
		"expectedAdmin": t.Admin,
		"transfer": Object{"sender": t.Sender, "receiver": t.Receiver, "amount": t.Amount,
			"instrumentId": Object{"admin": t.Admin, "id": t.InstrumentID},
			"requestedAt":  timestamp(t.RequestedAt), "executeBefore": timestamp(t.RequestedAt.Add(t.ExecuteWithin)),
			"inputHoldingCids": holdings, "meta": noMeta()},
		"extraArgs": Object{"context": ctx, "meta": noMeta()},
	})
}

// InstructionChoice exercises a TransferInstruction choice (Accept,
// Reject, Withdraw) through the interface with the given context (nil:
// none).
func InstructionChoice(instruction, choice string, context Object) Object {
	if context == nil {
		context = Object{"values": empty()}
	}
	return Exercise(TransferInstruction, instruction, choice, Object{"extraArgs": Object{"context": context, "meta": noMeta()}})
}

// InstructionUpdate is my-exercise-app's way to complete a transfer: the
// admin's TransferInstruction_Update.
func InstructionUpdate(instruction, admin string) Object {
	return Exercise(TransferInstruction, instruction, "TransferInstruction_Update", Object{"extraActors": []string{admin},
		"extraArgs": Object{"context": Object{"values": empty()}, "meta": noMeta()}})
}

func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// micros writes a RelTime.
func micros(d time.Duration) Object { return Object{"microseconds": fmt.Sprint(d.Microseconds())} }

// AmuletConfig is an AmuletConfig USD with the shape of Splice's DevNet
// defaults (Splice.Scripts.Parameters, which are not in the DAR): the fees,
// the issuance curve, one synchronizer, ticks of tick.
func AmuletConfig(tick time.Duration) Object {
	issuance := func(perYear string) Object {
		return Object{"amuletToIssuePerYear": perYear, "validatorRewardPercentage": "0.05", "appRewardPercentage": "0.15",
			"validatorRewardCap": "0.2", "featuredAppRewardCap": "100.0", "unfeaturedAppRewardCap": "0.6", "optValidatorFaucetCap": "2.85"}
	}
	pair := func(a, b any) Object { return Object{"_1": a, "_2": b} }
	return Object{
		"transferConfig": Object{
			"createFee":  Object{"fee": "0.03"},
			"holdingFee": Object{"rate": "0.0000190259"},
			"transferFee": Object{"initialRate": "0.01", "steps": []any{
				pair("100.0", "0.001"), pair("1000.0", "0.0001"), pair("1000000.0", "0.00001")}},
			"lockHolderFee":                Object{"fee": "0.005"},
			"extraFeaturedAppRewardAmount": "1.0",
			"maxNumInputs":                 "100", "maxNumOutputs": "100", "maxNumLockHolders": "50"},
		"issuanceCurve": Object{"initialValue": issuance("40000000000.0"), "futureValues": []any{
			pair(micros(182*24*time.Hour+12*time.Hour), issuance("20000000000.0")),
			pair(micros(547*24*time.Hour+12*time.Hour), issuance("10000000000.0"))}},
		"decentralizedSynchronizer": Object{
			"requiredSynchronizers": Object{"map": []any{[]any{"global-domain::1220ee", empty()}}},
			"activeSynchronizer":    "global-domain::1220ee",
			"fees": Object{"baseRateTrafficLimits": Object{"burstAmount": "400000", "burstWindow": micros(20 * time.Minute)},
				"extraTrafficPrice": "16.67", "readVsWriteScalingFactor": "4", "minTopupAmount": "200000"}},
		"tickDuration": micros(tick),
		"packageConfig": Object{"amulet": "0.1.14", "amuletNameService": "0.1.14", "dsoGovernance": "0.1.20",
			"validatorLifecycle": "0.1.5", "wallet": "0.1.14", "walletPayments": "0.1.14"},
		"transferPreapprovalFee":          nil,
		"featuredAppActivityMarkerAmount": nil,
	}
}

// AmuletRulesCreate creates the DSO's AmuletRules on a DevNet-style
// configuration (the DevNet faucet open).
func AmuletRulesCreate(dso string, tick time.Duration) Object {
	return Create(AmuletRules, Object{"dso": dso, "configSchedule": Object{"initialValue": AmuletConfig(tick), "futureValues": []any{}}, "isDevNet": true})
}

// ExternalRulesCreate creates the DSO's ExternalPartyAmuletRules, the
// token-standard TransferFactory of Canton Coin.
func ExternalRulesCreate(dso string) Object {
	return Create(ExternalPartyAmuletRules, Object{"dso": dso})
}

// BootstrapRounds opens the first mining rounds, as the DSO does at
// network genesis: rounds 0 and 1 open now, round 2 a tick later.
func BootstrapRounds(rules string, tick time.Duration) Object {
	return Exercise(AmuletRules, rules, "AmuletRules_Bootstrap_Rounds", Object{"amuletPrice": "0.005", "round0Duration": micros(tick), "initialRound": nil})
}

// Tap taps amount of coin for receiver on the DevNet faucet.
func Tap(rules, receiver, amount, openRound string) Object {
	return Exercise(AmuletRules, rules, "AmuletRules_DevNet_Tap", Object{"receiver": receiver, "amount": amount, "openRound": openRound})
}

// AmuletContext is the choice context Canton Coin's token-standard choices
// need: the rules and an open round.
func AmuletContext(rules, openRound string) Object {
	return Object{"values": Object{
		"amulet-rules": Object{"tag": "AV_ContractId", "value": rules},
		"open-round":   Object{"tag": "AV_ContractId", "value": openRound}}}
}
