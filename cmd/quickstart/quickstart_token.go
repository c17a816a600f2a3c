package quickstart

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ledger-cli/ledger/cmd/cmdutil"
	"github.com/ledger-cli/ledger/internal/splice"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// TokenDemo is what `ledger quickstart --token -o json` writes: the
// parties, the contracts and the transfer the walk-through made, and the
// holdings before and after it.
type TokenDemo struct {
	Admin          string        `json:"admin"`
	Sender         string        `json:"sender"`
	Receiver       string        `json:"receiver"`
	Factory        string        `json:"factory"`
	Transfer       TokenDemoStep `json:"transfer"`
	Instruction    string        `json:"instruction"`
	HoldingsBefore []DemoHolding `json:"holdingsBefore"`
	HoldingsAfter  []DemoHolding `json:"holdingsAfter"`
}

// TokenDemoStep is the externally signed transfer.
type TokenDemoStep struct {
	CommandID string `json:"commandId"`
	// Hash is the prepared transaction's hash in hex, as recomputed and
	// signed by the sender's key.
	Hash     string `json:"hash"`
	Scheme   string `json:"hashingScheme"`
	SignedBy string `json:"signedBy"`
	UpdateID string `json:"updateId"`
}

// DemoHolding is one holding of the token.
type DemoHolding struct {
	Owner      string `json:"owner"`
	Amount     string `json:"amount"`
	Instrument string `json:"instrument"`
	ContractID string `json:"contractId"`
}

// The token demo's instrument: the admin's TOK.
const (
	demoInstrument = "TOK"
	demoMint       = "100.0"
	demoSend       = "40.0"
)

// tokenDemo walks through my-exercise-app's token on the started node:
// dars are those of splice.TokenAppDars that were found, the app's last.
func (q *quickstart) tokenDemo(dars []string) error {
	sum := &TokenDemo{}
	if len(dars) > 1 {
		q.heading("upload the token standard's interfaces (Metadata, Holding, TransferInstruction with TransferFactory) and my-exercise-app, a token that implements them")
	} else {
		q.heading("upload my-exercise-app, a token that implements the token standard's interfaces (Metadata, Holding, TransferInstruction with TransferFactory): its DAR carries their packages")
	}
	q.assign("DARS", filepath.Dir(dars[0]))
	if _, err := q.exec(true, append([]string{"dars", "upload"}, dars...)...); err != nil {
		return err
	}

	out, err := q.run("allocate the token's admin: a local party the node hosts and signs for; it issues TOK and runs its factory",
		"parties", "allocate", "Admin")
	if err != nil {
		return err
	}
	if sum.Admin, err = findParty(out, "Admin"); err != nil {
		return err
	}
	q.assign("ADMIN", sum.Admin)

	passphrase := make([]byte, 16)
	if _, err := rand.Read(passphrase); err != nil {
		return err
	}
	if err := os.WriteFile("passphrase.txt", []byte(hex.EncodeToString(passphrase)+"\n"), 0o600); err != nil {
		return err
	}
	for _, p := range []struct {
		hint, key, v string
		id           *string
	}{{"Alice", "alice.key", "ALICE", &sum.Sender}, {"Bob", "bob.key", "BOB", &sum.Receiver}} {
		if _, err := q.run(fmt.Sprintf("create %s's ed25519 key: it never leaves this machine, encrypted with the passphrase in passphrase.txt", p.hint),
			"keys", "generate", "--out", p.key, "--passphrase-file", "passphrase.txt"); err != nil {
			return err
		}
		out, err := q.run(fmt.Sprintf("onboard %s as an external party: the node proposes the topology, we check it and sign it with %s's key", p.hint, p.hint),
			"parties", "allocate-external", "--key", p.key, "--passphrase-file", "passphrase.txt", "--hint", p.hint, "--yes")
		if err != nil {
			return err
		}
		if *p.id, err = findParty(out, p.hint); err != nil {
			return err
		}
		q.assign(p.v, *p.id)
	}
	admin, alice, bob := sum.Admin, sum.Sender, sum.Receiver

	if err := q.writeJSON("factory.json", map[string]any{"admin": admin, "meta": map[string]any{"values": map[string]any{}}, "observers": []string{alice, bob}}); err != nil {
		return err
	}
	out, err = q.run("the admin creates the token's TransferFactory (template TokenTransferFactory); Alice and Bob observe it, so they can use it",
		"submit", "--act-as", admin, "--create", splice.TokenTransferFactory, "--args", "@factory.json")
	if err != nil {
		return err
	}
	if sum.Factory, err = createdContract(out); err != nil {
		return err
	}
	q.assign("FACTORY", sum.Factory)

	if err := q.writeJSON("mint.json", map[string]any{"owner": alice, "dso": admin, "instrumentId": map[string]any{"admin": admin, "id": demoInstrument},
		"amount": demoMint, "meta": map[string]any{"values": map[string]any{}}}); err != nil {
		return err
	}
	out, err = q.run("the admin mints "+demoMint+" TOK for Alice: a TokenHolding, signed by the admin, seen by its owner",
		"submit", "--act-as", admin, "--create", splice.TokenHolding, "--args", "@mint.json")
	if err != nil {
		return err
	}
	holding, err := createdContract(out)
	if err != nil {
		return err
	}
	q.assign("HOLDING", holding)

	if sum.HoldingsBefore, err = q.holdings("the holdings before the transfer", alice, bob); err != nil {
		return err
	}

	now := q.opts.Now().UTC()
	if err := q.writeJSON("transfer.json", map[string]any{
		"expectedAdmin": admin,
		"transfer": map[string]any{"sender": alice, "receiver": bob, "amount": demoSend,
			"instrumentId": map[string]any{"admin": admin, "id": demoInstrument},
			"requestedAt":  now.Format(time.RFC3339), "executeBefore": now.Add(time.Hour).Format(time.RFC3339),
			"inputHoldingCids": []string{holding}, "meta": map[string]any{"values": map[string]any{}}},
		"extraArgs": map[string]any{"context": map[string]any{"values": map[string]any{}}, "meta": map[string]any{"values": map[string]any{}}},
	}); err != nil {
		return err
	}
	sum.Transfer.CommandID = "token-transfer-1"
	if _, err := q.run("prepare Alice's transfer of "+demoSend+" TOK to Bob on the node: TransferFactory_Transfer, exercised through the token standard's TransferFactory interface",
		"prepare", "--act-as", alice, "--exercise", splice.TransferFactory, "--contract-id", sum.Factory,
		"--choice", "TransferFactory_Transfer", "--arg", "@transfer.json",
		"--command-id", sum.Transfer.CommandID, "--scheme", "v3", "--max-record-time", "10m", "--out", "transfer-tx.json"); err != nil {
		return err
	}
	if sum.Transfer.Hash, sum.Transfer.Scheme, err = envelopeHash("transfer-tx.json"); err != nil {
		return err
	}
	q.say("What will be signed: the %s hash of the prepared transaction,", sum.Transfer.Scheme)
	q.say("  %s", sum.Transfer.Hash)
	q.say("It covers every node (the exercise on the factory and the TokenTransferInstruction it")
	q.say("creates), the factory as input contract, act_as, the command id, the synchronizer and the")
	q.say("max record time. Who signs: Alice alone, the only act_as party. The admin is a signatory")
	q.say("of the new instruction too; its authority comes from the factory it signed, not from a")
	q.say("signature on this transaction.")
	q.say("The factory reads the ledger time (getTime), so the node pins the ledger time to the")
	q.say("preparation time (\"ledger from\" = \"ledger until\" below): Canton accepts the transaction")
	q.say("while its record time is within the ledger-time tolerance of that, a minute by default.")

	if _, err := q.run("recompute that hash here from the transaction's bytes, without trusting the node", "verify", "transfer-tx.json"); err != nil {
		return err
	}
	if _, err := q.run("review the transfer as Alice's signer sees it", "show", "transfer-tx.json"); err != nil {
		return err
	}
	if _, err := q.run("Alice signs offline: this step needs no network; it signs the hash it recomputed, never the node's",
		"sign", "transfer-tx.json", "--key", "alice.key", "--passphrase-file", "passphrase.txt", "--yes", "--out", "transfer-tx.signed.json"); err != nil {
		return err
	}
	sum.Transfer.SignedBy = alice
	out, err = q.run("execute the signed transfer: the node re-interprets it, checks Alice's signature, commits",
		"execute", "transfer-tx.signed.json", "--wait")
	if err != nil {
		return err
	}
	if m := regexp.MustCompile(`Update id:\s+(\S+)`).FindStringSubmatch(out); m != nil {
		sum.Transfer.UpdateID = m[1]
	}

	q.heading("the transfer is pending: a TokenTransferInstruction waits for the admin")
	out, err = q.exec(false, "contracts", "--party", admin, "--template", splice.TokenTransferInstruction, "-o", "json")
	if err != nil {
		return err
	}
	pending, err := createdEvents(out)
	if err != nil || len(pending) != 1 {
		return fmt.Errorf("quickstart: reading the pending instruction: want 1, got %d (%v)", len(pending), err)
	}
	sum.Instruction = pending[0].ContractID
	q.say("(the command prints the contract in full; here its id) Alice → Bob, %s TOK, until the admin acts", demoSend)
	q.assign("INSTRUCTION", sum.Instruction)

	if err := q.writeJSON("update.json", map[string]any{"extraActors": []string{admin},
		"extraArgs": map[string]any{"context": map[string]any{"values": map[string]any{}}, "meta": map[string]any{"values": map[string]any{}}}}); err != nil {
		return err
	}
	if _, err := q.run("the admin settles it through the TransferInstruction interface (TransferInstruction_Update): in this app the admin approves transfers, as a bank would, and Bob need not accept; Alice's holding is archived, Bob gets "+demoSend+" and Alice her change",
		"submit", "--act-as", admin, "--exercise", splice.TransferInstruction, "--contract-id", sum.Instruction,
		"--choice", "TransferInstruction_Update", "--arg", "@update.json"); err != nil {
		return err
	}

	if sum.HoldingsAfter, err = q.holdings("the holdings after the transfer", alice, bob); err != nil {
		return err
	}
	q.done()
	if q.opts.structured() {
		return cmdutil.WriteStructured(q.opts.IO.Out, q.opts.Format, sum)
	}
	return nil
}

// holdingsQuery and holdingOf are how the demo reads holdings: through the
// token standard's Holding interface with its view (an InterfaceFilter
// with includeInterfaceView, as `ledger contracts --interface` asks), so
// that the demo reads any token-standard token's holdings, not only this
// app's template. Each holding is its HoldingView (owner, instrumentId,
// amount, lock, meta), computed by the node's interpreter.
func holdingsQuery(parties ...string) []string {
	args := []string{"contracts"}
	for _, p := range parties {
		args = append(args, "--party", p)
	}
	return append(args, "--interface", splice.Holding, "-o", "json")
}

func holdingOf(ev ledgerapi.CreatedEvent) (DemoHolding, error) {
	if len(ev.InterfaceViews) != 1 {
		return DemoHolding{}, fmt.Errorf("holding %s: %d interface views, want the Holding view", ev.ContractID, len(ev.InterfaceViews))
	}
	view := ev.InterfaceViews[0]
	if view.ViewStatus.Code != 0 {
		return DemoHolding{}, fmt.Errorf("holding %s: its Holding view failed: %s", ev.ContractID, view.ViewStatus.Message)
	}
	var h struct {
		Owner        string `json:"owner"`
		Amount       string `json:"amount"`
		InstrumentID struct {
			Admin string `json:"admin"`
			ID    string `json:"id"`
		} `json:"instrumentId"`
	}
	if err := json.Unmarshal(view.ViewValue, &h); err != nil {
		return DemoHolding{}, fmt.Errorf("holding %s: %w", ev.ContractID, err)
	}
	return DemoHolding{Owner: h.Owner, Amount: h.Amount, Instrument: h.InstrumentID.ID, ContractID: ev.ContractID}, nil
}

// createdEvents reads what `ledger contracts -o json` prints: one created
// event per line.
func createdEvents(out string) ([]ledgerapi.CreatedEvent, error) {
	var evs []ledgerapi.CreatedEvent
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var ev ledgerapi.CreatedEvent
		if err := dec.Decode(&ev); err != nil {
			return nil, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

// holdings reads the parties' holdings and shows them as a table.
func (q *quickstart) holdings(title string, parties ...string) ([]DemoHolding, error) {
	q.heading(title)
	out, err := q.exec(false, holdingsQuery(parties...)...)
	if err != nil {
		return nil, err
	}
	events, err := createdEvents(out)
	if err != nil {
		return nil, fmt.Errorf("quickstart: reading the holdings: %w", err)
	}
	hs := []DemoHolding{}
	for _, ev := range events {
		h, err := holdingOf(ev)
		if err != nil {
			return nil, err
		}
		hs = append(hs, h)
	}
	q.say("(the command prints each contract in full; here they are by owner)")
	tw := tabwriter.NewWriter(&indenter{w: q.out}, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "OWNER\tAMOUNT\tINSTRUMENT\tCONTRACT")
	for _, p := range parties {
		n := 0
		for _, h := range hs {
			if h.Owner == p {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", q.name(p), shortDecimal(h.Amount), h.Instrument, shortID(h.ContractID))
				n++
			}
		}
		if n == 0 {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", q.name(p), "-", "", "no holdings")
		}
	}
	return hs, tw.Flush()
}

// name is the shell variable a party was assigned to, else the party.
func (q *quickstart) name(party string) string {
	if v, ok := q.vars[party]; ok {
		return "$" + v
	}
	return party
}

// shortDecimal drops a Numeric's trailing zeros but one: 60.0000000000 is 60.0.
func shortDecimal(n string) string {
	if !strings.Contains(n, ".") {
		return n
	}
	n = strings.TrimRight(n, "0")
	if strings.HasSuffix(n, ".") {
		n += "0"
	}
	return n
}

func shortID(id string) string {
	if len(id) <= 14 {
		return id
	}
	return id[:6] + "…" + id[len(id)-4:]
}

// writeJSON writes a command's input file as JSON and shows it.
func (q *quickstart) writeJSON(name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return q.writeFile(name, string(b))
}

var createdContractRE = regexp.MustCompile(`(?m)^\s*contract\s+([0-9a-f]{66,})\s*$`)

// createdContract picks the contract id out of `ledger submit`'s tree of one create.
func createdContract(out string) (string, error) {
	m := createdContractRE.FindAllStringSubmatch(out, -1)
	if len(m) != 1 {
		return "", fmt.Errorf("quickstart: want one created contract in the output, found %d", len(m))
	}
	return m[0][1], nil
}

// envelopeHash reads the node's hash and scheme from an envelope; prepare
// has already checked that it equals the recomputed one.
func envelopeHash(path string) (hash, scheme string, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", "", err
	}
	var env struct {
		Hash   ledgerapi.Bytes `json:"preparedTransactionHash"`
		Scheme string          `json:"hashingSchemeVersion"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		return "", "", fmt.Errorf("quickstart: %s: %w", path, err)
	}
	return hex.EncodeToString(env.Hash), env.Scheme, nil
}
