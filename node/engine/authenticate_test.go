package engine

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/ledger-cli/ledger/daml/contract"
	"github.com/ledger-cli/ledger/internal/splice"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
)

// blobRegions returns where in a FatContractInstance blob the create
// argument, the authentication data and created_at are (start, end).
func blobRegions(t *testing.T, blob []byte) (regions [3][2]int) {
	t.Helper()
	payloadAt := -1
	for off := 0; off < len(blob); {
		num, typ, n := protowire.ConsumeTag(blob[off:])
		m := protowire.ConsumeFieldValue(num, typ, blob[off+n:])
		if n < 0 || m < 0 {
			t.Fatalf("blob does not parse at %d", off)
		}
		if num == 2 {
			_, l := protowire.ConsumeVarint(blob[off+n:])
			payloadAt = off + n + l
		}
		off += n + m
	}
	p := blob[payloadAt:]
	for off := 0; off < len(p); {
		num, typ, n := protowire.ConsumeTag(p[off:])
		m := protowire.ConsumeFieldValue(num, typ, p[off+n:])
		start, end := payloadAt+off+n, payloadAt+off+n+m
		if typ == protowire.BytesType {
			_, l := protowire.ConsumeVarint(p[off+n:])
			start += l
		}
		switch num {
		case 4: // create_arg
			regions[0] = [2]int{start, end}
		case 8: // authentication_data
			regions[1] = [2]int{start, end}
		case 7: // created_at
			regions[2] = [2]int{start, end}
		}
		off += n + m
	}
	return regions
}

// TestCommittedContractsAuthenticate is issue 22's property on the engine:
// every contract it commits — Ping, token standard, Canton Coin (rules,
// mining rounds, a tapped coin), the generic model —
// has a suffixed id (ca12, ca11 for the generic model) and its blob
// authenticates as the node authenticates a disclosed contract; flipping
// any byte of the blob's argument, salt or created_at (three ways) makes it
// fail to decode or fail authentication.
func TestCommittedContractsAuthenticate(t *testing.T) {
	var created []ledger.Contract
	var engines []*Engine
	add := func(e *Engine, cs []ledger.Contract) {
		for range cs {
			engines = append(engines, e)
		}
		created = append(created, cs...)
	}
	ping := damlFixture(t)
	o, _ := ping.submit([]string{ping.alice}, createCmd(pingTmpl, pingArgs(ping.alice, ping.bob)))
	add(ping.eng, o.Transaction.Created)
	generic := newFixture(t)
	o, _ = generic.submit([]string{generic.alice}, createCmd(iouTemplate, iouArgs(generic.alice, generic.bob)))
	add(generic.eng, o.Transaction.Created)
	tok, admin, sender, receiver := tokenFixture(t)
	factory, _ := tok.submit([]string{admin}, jsonCommand(t, splice.Factory(admin, sender, receiver)))
	mint, _ := tok.submit([]string{admin}, jsonCommand(t, splice.Mint(admin, sender, "TOK", "10.0")))
	transfer, _ := tok.submit([]string{sender}, jsonCommand(t, splice.TransferCommand(factory.Transaction.Created[0].ContractID,
		splice.Transfer{Admin: admin, InstrumentID: "TOK", Sender: sender, Receiver: receiver, Amount: "1.0",
			Holdings: []string{mint.Transaction.Created[0].ContractID}, RequestedAt: tok.now, ExecuteWithin: time.Hour})))
	for _, o := range []*Outcome{factory, mint, transfer} {
		add(tok.eng, o.Transaction.Created)
	}
	coin := amuletFixture(t)
	dso := coin.ledger.party("dso")
	const tick = 10 * time.Minute
	rules, _ := coin.submit([]string{dso}, jsonCommand(t, splice.AmuletRulesCreate(dso, tick)))
	external, _ := coin.submit([]string{dso}, jsonCommand(t, splice.ExternalRulesCreate(dso)))
	rulesID := rules.Transaction.Created[0].ContractID
	boot, _ := coin.submit([]string{dso}, jsonCommand(t, splice.BootstrapRounds(rulesID, tick)))
	coin.now = coin.now.Add(time.Second)
	tap, _ := coin.submit([]string{dso}, jsonCommand(t, splice.Tap(rulesID, dso, "1000.0", boot.Transaction.Created[0].ContractID)))
	// A token-standard transfer of Canton Coin: it locks the coin and
	// creates an AmuletTransferInstruction naming the LockedAmulet created
	// before it in the same transaction.
	sender, receiver2 := coin.ledger.party("sender"), coin.ledger.party("receiver")
	readDSO := func(actAs string, cmd splice.Object) *Outcome {
		t.Helper()
		o, err := coin.eng.Submit(context.Background(), ledgerapi.Commands{CommandID: fmt.Sprint("coin-", len(created)), ActAs: []string{actAs},
			ReadAs: []string{dso}, Commands: []ledgerapi.Command{jsonCommand(t, cmd)}}, "user1")
		if err != nil {
			t.Fatalf("%s: %v", actAs, err)
		}
		coin.ledger.commit(t, o, coin.now)
		return o
	}
	round := boot.Transaction.Created[0].ContractID
	senderTap := readDSO(sender, splice.Tap(rulesID, sender, "1000.0", round))
	coinTransfer := readDSO(sender, splice.TransferCommand(external.Transaction.Created[0].ContractID, splice.Transfer{
		Admin: dso, InstrumentID: "Amulet", Sender: sender, Receiver: receiver2, Amount: "100.0",
		Holdings: []string{senderTap.Transaction.Created[0].ContractID}, RequestedAt: coin.now.Add(-time.Second),
		ExecuteWithin: time.Hour, Context: splice.AmuletContext(rulesID, round)}))
	for _, o := range []*Outcome{rules, external, boot, tap, senderTap, coinTransfer} {
		add(coin.eng, o.Transaction.Created)
	}
	// A create whose argument names a contract created before it in the
	// same transaction holds the suffixed id (Canton's suffixing of later
	// arguments), and authenticates with it.
	sameTx := 0
	for _, o := range []*Outcome{factory, mint, transfer, rules, external, boot, tap, senderTap, coinTransfer} {
		for j, c := range o.Transaction.Created {
			for _, earlier := range o.Transaction.Created[:j] {
				if bytes.Contains(c.ArgumentJSON, []byte(earlier.ContractID)) && bytes.Contains(c.Argument, []byte(earlier.ContractID)) {
					sameTx++
				}
				if bytes.Contains(c.ArgumentJSON, []byte(`"`+earlier.ContractID[:66]+`"`)) {
					t.Errorf("%s holds the local id of %s", c.ContractID, earlier.ContractID)
				}
			}
		}
	}
	if sameTx == 0 {
		t.Error("no argument names a contract created earlier in its transaction")
	}
	mutants := 0
	for i, c := range created {
		e := engines[i]
		want := "ca12"
		if e == generic.eng {
			want = "ca11"
		}
		if len(c.ContractID) != 138 || c.ContractID[66:70] != want {
			t.Errorf("%s: contract id %s is not a suffixed %s id", c.TemplateID, c.ContractID, want)
		}
		blob, err := e.CreatedEventBlob(&c)
		if err != nil {
			t.Fatal(err)
		}
		check := func(b []byte) error {
			cc, err := contract.DecodeBlob(b)
			if err != nil {
				return err
			}
			if string(cc.ID) != c.ContractID {
				t.Fatalf("%s: the blob names %s", c.ContractID, cc.ID)
			}
			return e.authenticate(cc, b, nil, nil, nil, "contract")
		}
		if err := check(blob); err != nil {
			t.Fatalf("%s (%s): the node's blob does not authenticate: %v", c.TemplateID, c.ContractID, err)
		}
		for _, r := range blobRegions(t, blob) {
			if r[1] <= r[0] {
				t.Fatalf("%s: a region of the blob is empty: %v", c.ContractID, r)
			}
			for j := r[0]; j < r[1]; j++ {
				for _, mask := range []byte{0x01, 0x80, 0xff} {
					m := append([]byte(nil), blob...)
					m[j] ^= mask
					mutants++
					if check(m) == nil {
						t.Errorf("%s: byte %d xor %#x still authenticates", c.ContractID, j, mask)
					}
				}
			}
		}
	}
	t.Logf("%d contracts, %d mutants, all refused", len(created), mutants)
}

func TestRewriteJSON(t *testing.T) {
	a, b := "00"+strings.Repeat("a", 64), "00"+strings.Repeat("b", 64)
	ids := map[string]string{a: a + "ca12" + strings.Repeat("1", 68), b: b + "ca12" + strings.Repeat("2", 68)}
	for _, c := range []struct{ in, want string }{
		{`{}`, `{}`},
		{`{"x":"` + a + `"}`, `{"x":"` + ids[a] + `"}`},
		{`["` + a + `","` + b + `","` + a + `"]`, `["` + ids[a] + `","` + ids[b] + `","` + ids[a] + `"]`},
		{`{"x":"` + a + `x"}`, `{"x":"` + a + `x"}`},                                               // not the whole string
		{`{"x":"00` + strings.Repeat("c", 64) + `"}`, `{"x":"00` + strings.Repeat("c", 64) + `"}`}, // not created here
		{`"00`, `"00`},
	} {
		if got := string(rewriteJSON([]byte(c.in), ids)); got != c.want {
			t.Errorf("rewriteJSON(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}
