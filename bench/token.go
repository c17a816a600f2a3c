package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/internal/splice"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// The token scenario's instrument and amounts: every worker starts with
// TokenMint of its own and sends TokenAmount per transfer, so a run of any
// realistic length never runs dry.
const (
	TokenInstrument = "TOK"
	TokenMint       = "1000000000.0"
	TokenAmount     = "1.0"
	// TokenConcurrency is the token scenario's default concurrency.
	TokenConcurrency = 64
)

// tokenState is the token scenario's ledger: the admin, the factory every
// sender uses, and each worker's holding, the one its next transfer
// spends (the change of its previous one).
type tokenState struct {
	admin    string
	factory  string
	holdings []string
}

// setupToken uploads the token's DARs, allocates the admin, creates the
// factory (the senders observe it) and mints one holding per worker for
// its sender.
func (r *runner) setupToken(ctx context.Context) error {
	if len(r.local) < 2 {
		return errors.New("setup: the token scenario needs two parties or more, senders that are each other's receivers: give --parties 2 or more")
	}
	for i, dar := range r.cfg.Dars {
		if err := r.c.UploadDar(ctx, dar, client.UploadOptions{}); err != nil {
			return fmt.Errorf("setup: uploading DAR %d of %d (needs the ParticipantAdmin right): %w", i+1, len(r.cfg.Dars), err)
		}
	}
	if len(r.cfg.Dars) > 0 {
		fmt.Fprintf(r.cfg.Log, "uploaded %d DARs\n", len(r.cfg.Dars))
	}
	run := sanitizeHint(strings.TrimSuffix(strings.TrimPrefix(r.cidPre, "bench-"), "-"))
	d, err := r.c.AllocateParty(ctx, ledgerapi.AllocatePartyRequest{PartyIDHint: "bench-" + run + "-admin"})
	if err != nil {
		return fmt.Errorf("setup: allocating the token's admin: %w", err)
	}
	t := &tokenState{admin: d.Party, holdings: make([]string, r.cfg.Concurrency)}
	if err := r.grant(ctx, []string{t.admin}); err != nil {
		return err
	}
	const hint = "the node needs my-exercise-app's DARs: ledger bench token --dars DIR"
	factory, err := r.submitForCreated(ctx, t.admin, r.cidPre+"factory", splice.Factory(t.admin, r.local...), ":TokenTransfer:TokenTransferFactory", "")
	if err != nil {
		return fmt.Errorf("setup: creating the TransferFactory (%s): %w", hint, err)
	}
	t.factory = factory
	for w := range t.holdings {
		owner := r.local[w%len(r.local)]
		h, err := r.submitForCreated(ctx, t.admin, fmt.Sprintf("%smint-%d", r.cidPre, w), splice.Mint(t.admin, owner, TokenInstrument, TokenMint), ":TokenHolding:TokenHolding", "")
		if err != nil {
			return fmt.Errorf("setup: minting for worker %d: %w", w, err)
		}
		t.holdings[w] = h
	}
	fmt.Fprintf(r.cfg.Log, "created the TransferFactory %s of %s and minted %d holdings of %s %s\n", t.factory, t.admin, len(t.holdings), TokenMint, TokenInstrument)
	r.token = t
	// One transfer, unmeasured, checks that the node runs the token's code:
	// a node that serves the templates by a generic contract model creates
	// no TransferInstruction.
	if _, err := r.tokenOp(ctx, 0, r.seq.Add(1)); err != nil {
		return fmt.Errorf("setup: a first transfer failed (%s): %w", hint, err)
	}
	return nil
}

// tokenOp is one transfer, as my-exercise-app makes one: the sender's
// TransferFactory_Transfer through the interface, spending its worker's
// holding, creates a TokenTransferInstruction; the admin's
// TransferInstruction_Update through the interface settles it, archiving
// the holding and creating the receiver's and the sender's change, which
// the worker's next transfer spends. Each is one submit-and-wait.
func (r *runner) tokenOp(ctx context.Context, w int, seq int64) (int, error) {
	t := r.token
	sender, receiver := r.local[w%len(r.local)], r.local[(w+1)%len(r.local)]
	cmd := splice.TransferCommand(t.factory, splice.Transfer{Admin: t.admin, InstrumentID: TokenInstrument, Sender: sender, Receiver: receiver,
		Amount: TokenAmount, Holdings: []string{t.holdings[w]}, RequestedAt: time.Now(), ExecuteWithin: time.Hour})
	id := r.commandID(seq)
	instr, err := r.submitForCreated(ctx, sender, id, cmd, ":TokenTransfer:TokenTransferInstruction", "")
	if err != nil {
		return 0, err
	}
	change, err := r.submitForCreated(ctx, t.admin, id+"-settle", splice.InstructionUpdate(instr, t.admin), ":TokenHolding:TokenHolding", sender)
	if err != nil {
		return 0, err
	}
	t.holdings[w] = change
	return 0, nil
}

// submitForCreated submits one command (in the JSON API's form) as party
// through submit-and-wait-for-transaction and returns the contract id of
// the one created event of a template ending in suffix, owned by owner
// when owner is set.
func (r *runner) submitForCreated(ctx context.Context, party, commandID string, command splice.Object, suffix, owner string) (string, error) {
	b, err := json.Marshal(command)
	if err != nil {
		return "", err
	}
	var cmd ledgerapi.Command
	if err := json.Unmarshal(b, &cmd); err != nil {
		return "", &localError{"BAD_COMMAND", err.Error()}
	}
	user := r.user
	tx, err := r.c.SubmitAndWaitForTransaction(ctx, ledgerapi.SubmitAndWaitForTransactionRequest{Commands: ledgerapi.Commands{
		Commands: []ledgerapi.Command{cmd}, CommandID: commandID, ActAs: []string{party}, UserID: &user,
		DeduplicationPeriod: &ledgerapi.DeduplicationPeriod{},
	}})
	if err != nil {
		return "", err
	}
	found := ""
	for _, ev := range tx.Events {
		c := ev.Created
		if c == nil || !strings.HasSuffix(c.TemplateID, suffix) {
			continue
		}
		if owner != "" {
			var arg struct {
				Owner string `json:"owner"`
			}
			if json.Unmarshal(c.CreateArgument, &arg) != nil || arg.Owner != owner {
				continue
			}
		}
		if found != "" {
			return "", &localError{"UNEXPECTED_EVENTS", "more than one created " + suffix + " in the transaction"}
		}
		found = c.ContractID
	}
	if found == "" {
		return "", &localError{"NO_CREATED_EVENT", "the transaction shows no created " + strings.TrimPrefix(suffix, ":")}
	}
	return found, nil
}
