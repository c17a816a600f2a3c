package engine

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/internal/splice"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// jsonCommand turns a command in the JSON API's form into a ledgerapi.Command.
func jsonCommand(t testing.TB, c splice.Object) ledgerapi.Command {
	t.Helper()
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var cmd ledgerapi.Command
	if err := json.Unmarshal(b, &cmd); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// BenchmarkSubmitTokenTransfer is the engine's share of one transfer of
// `ledger bench token`: my-exercise-app's TransferFactory_Transfer through
// the TransferFactory interface, spending the sender's holding, then the
// admin's TransferInstruction_Update through TransferInstruction (the
// holding fetched through Holding and archived, the receiver's holding and
// the change created), each interpreted, built into a transaction with its
// events and committed to the in-memory ledger; the next transfer spends
// the change. Per iteration: one transfer, two commands. It reports the
// process CPU per transfer beside the wall time.
func BenchmarkSubmitTokenTransfer(b *testing.B) {
	f, admin, sender, receiver := tokenFixture(b)
	factory, _ := f.submit([]string{admin}, jsonCommand(b, splice.Factory(admin, sender, receiver)))
	mint, _ := f.submit([]string{admin}, jsonCommand(b, splice.Mint(admin, sender, "TOK", "1000000000.0")))
	holding := mint.Transaction.Created[0].ContractID
	ctx := context.Background()
	// Only the engine is measured: the commands are written outside the
	// timer and the CPU count.
	var cpu time.Duration
	submit := func(actAs string, cmd splice.Object) *Outcome {
		b.StopTimer()
		f.commands++
		cmds := ledgerapi.Commands{Commands: []ledgerapi.Command{jsonCommand(b, cmd)}, CommandID: "transfer-" + strconv.Itoa(f.commands), ActAs: []string{actAs}}
		b.StartTimer()
		cpu0 := processCPU()
		o, err := f.eng.Submit(ctx, cmds, "user1")
		if err != nil {
			b.Fatal(err)
		}
		f.ledger.commit(b, o, f.now)
		cpu += processCPU() - cpu0
		return o
	}
	b.ReportAllocs()
	for b.Loop() {
		o := submit(sender, splice.TransferCommand(factory.Transaction.Created[0].ContractID, splice.Transfer{Admin: admin, InstrumentID: "TOK",
			Sender: sender, Receiver: receiver, Amount: "1.0", Holdings: []string{holding}, RequestedAt: f.now, ExecuteWithin: time.Hour}))
		instr := o.Transaction.Created[0].ContractID
		o = submit(admin, splice.InstructionUpdate(instr, admin))
		holding = ""
		for _, c := range o.Transaction.Created {
			if slices.Contains(c.Stakeholders, sender) { // the owner observes
				holding = c.ContractID
			}
		}
		if holding == "" {
			b.Fatalf("no change for the sender in %+v", o.Transaction.Created)
		}
	}
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
}

// processCPU is the process's user and system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestSubmitKeepsUsedContracts: submit builds no input-contract metadata
// (only a prepared transaction carries it) but still names the contracts
// the transaction used and did not consume, for the commit's checks: a
// transfer through the factory uses it, and prepare lists it as an input.
func TestSubmitKeepsUsedContracts(t *testing.T) {
	f, admin, sender, receiver := tokenFixture(t)
	factory, _ := f.submit([]string{admin}, jsonCommand(t, splice.Factory(admin, sender, receiver)))
	mint, _ := f.submit([]string{admin}, jsonCommand(t, splice.Mint(admin, sender, "TOK", "10.0")))
	fid := factory.Transaction.Created[0].ContractID
	transfer := jsonCommand(t, splice.TransferCommand(fid, splice.Transfer{Admin: admin, InstrumentID: "TOK", Sender: sender, Receiver: receiver,
		Amount: "1.0", Holdings: []string{mint.Transaction.Created[0].ContractID}, RequestedAt: f.now, ExecuteWithin: time.Hour}))
	p, err := f.eng.Prepare(context.Background(), prepareReq(sender, transfer), "user1")
	if err != nil {
		t.Fatal(err)
	}
	if ics := p.PreparedTransaction.GetMetadata().GetInputContracts(); len(ics) != 1 || ics[0].GetV1().GetContractId() != fid || len(ics[0].GetEventBlob()) == 0 {
		t.Errorf("prepared input contracts: %v", ics)
	}
	o, _ := f.submit([]string{sender}, transfer)
	if !slices.Equal(o.Transaction.Inputs, []string{fid}) || len(o.Transaction.Archived) != 0 {
		t.Errorf("submit used %v and archived %v, want the factory %s and nothing", o.Transaction.Inputs, o.Transaction.Archived, fid)
	}
}

// tokenFixture is a fixture whose engine holds my-exercise-app, with its
// admin, a sender and a receiver, all local; it skips without the DAR.
func tokenFixture(t testing.TB) (f *fixture, admin, sender, receiver string) {
	t.Helper()
	d, err := archive.ReadDarFile(filepath.Join("..", "..", "..", "shared", "dars", "my-exercise-app.dar"), archive.Options{})
	if errors.Is(err, os.ErrNotExist) {
		t.Skip("my-exercise-app.dar not found in ../shared/dars (the shared folder beside the repository); skipping")
	}
	if err != nil {
		t.Fatal(err)
	}
	f = newFixture(t, withPackages(PackageSetOf(d.Packages...)))
	return f, f.ledger.party("admin"), f.ledger.party("sender"), f.ledger.party("receiver")
}
