package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/signer"
	"github.com/ledger-cli/ledger/wallet"
)

// externalParty is a party whose key the benchmark holds.
type externalParty struct {
	id  string
	key *signer.Key
}

func (r *runner) externalIDs() []string {
	ids := make([]string, len(r.ext))
	for i, p := range r.ext {
		ids[i] = p.id
	}
	return ids
}

// kinds lists the kinds of operation the run needs, with their weights.
func (r *runner) kinds() map[string]int {
	if r.cfg.Scenario != ScenarioMixed {
		return map[string]int{r.cfg.Scenario: 1}
	}
	ks := map[string]int{}
	for k, w := range r.cfg.Mix {
		if w > 0 {
			ks[k] = w
		}
	}
	return ks
}

// setup resolves the user, allocates the parties the kinds need and returns
// the plan of the measured phase.
func (r *runner) setup(ctx context.Context) (*plan, error) {
	kinds := r.kinds()
	if err := r.resolveUser(ctx); err != nil {
		return nil, err
	}
	_, needExternal := kinds[ScenarioExecute]
	if len(kinds) > 1 || !needExternal {
		if err := r.localParties(ctx); err != nil {
			return nil, err
		}
	}
	if _, ok := kinds[ScenarioPing]; ok {
		if err := r.setupPing(ctx); err != nil {
			return nil, err
		}
	}
	if _, ok := kinds[ScenarioToken]; ok {
		if err := r.setupToken(ctx); err != nil {
			return nil, err
		}
	}
	if needExternal {
		if err := r.externalParties(ctx); err != nil {
			return nil, err
		}
	}
	p := &plan{ops: map[string]opFunc{}}
	// The wheel interleaves kinds: weights 2,1 give a,b,a rather than a,a,b.
	g := 0
	for _, w := range kinds {
		g = gcd(g, w)
	}
	names := make([]string, 0, len(kinds))
	for _, k := range Scenarios {
		if _, ok := kinds[k]; ok {
			names = append(names, k)
		}
	}
	left := map[string]int{}
	total := 0
	for _, k := range names {
		left[k] = kinds[k] / g
		total += left[k]
	}
	for len(p.wheel) < total {
		for _, k := range names {
			if left[k] > 0 {
				p.wheel = append(p.wheel, k)
				left[k]--
			}
		}
	}
	for _, k := range names {
		switch k {
		case ScenarioPrepare:
			p.ops[k] = r.prepareOp
		case ScenarioSubmit:
			p.ops[k] = r.submitOp
		case ScenarioExecute:
			p.ops[k] = r.executeOp
		case ScenarioCompletions:
			p.ops[k] = r.completionsOp
		case ScenarioPing:
			p.ops[k] = r.pingOp
		case ScenarioToken:
			p.ops[k] = r.tokenOp
		case ScenarioACS:
			p.ops[k] = r.acsOp
		case ScenarioUpdates:
			p.ops[k] = r.updatesOp
		}
	}
	if _, ok := kinds[ScenarioUpdates]; ok && r.cfg.Seed == 0 {
		end, err := r.readEnd(ctx)
		if err != nil {
			return nil, err
		}
		r.end = end
	}
	if _, ok := kinds[ScenarioCompletions]; ok {
		r.readsCompletions = true
		if err := r.checkCompletions(ctx); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// resolveUser takes the configured user, else the token's.
func (r *runner) resolveUser(ctx context.Context) error {
	if r.cfg.UserID != "" {
		r.user = r.cfg.UserID
		return nil
	}
	u, err := r.c.AuthenticatedUser(ctx)
	if err != nil {
		return fmt.Errorf("setup: which user? give --user (the node could not name the token's user: %w)", err)
	}
	if u.ID == "" {
		return errors.New("setup: the token names no user: give --user")
	}
	r.user = u.ID
	return nil
}

// localParties takes the configured parties or allocates fresh ones and
// grants the user CanActAs on them.
func (r *runner) localParties(ctx context.Context) error {
	if len(r.cfg.Parties) > 0 {
		for _, p := range r.cfg.Parties {
			if err := ledgerapi.ValidatePartyID("--party", p); err != nil {
				return err
			}
		}
		r.local = append([]string{}, r.cfg.Parties...)
		return nil
	}
	run := strings.TrimSuffix(strings.TrimPrefix(r.cidPre, "bench-"), "-")
	for i := 0; i < r.cfg.NewParties; i++ {
		hint := fmt.Sprintf("bench-%s-%d", sanitizeHint(run), i+1)
		d, err := r.c.AllocateParty(ctx, ledgerapi.AllocatePartyRequest{PartyIDHint: hint})
		if err != nil {
			return fmt.Errorf("setup: allocating party %s (needs the ParticipantAdmin right; or give existing parties with --party): %w", hint, err)
		}
		r.local = append(r.local, d.Party)
	}
	fmt.Fprintf(r.cfg.Log, "allocated %d local parties (bench-%s-1…)\n", len(r.local), sanitizeHint(run))
	return r.grant(ctx, r.local)
}

// grant gives the user CanActAs on parties.
func (r *runner) grant(ctx context.Context, parties []string) error {
	rights := make([]ledgerapi.Right, len(parties))
	for i, p := range parties {
		rights[i] = ledgerapi.CanActAs(p)
	}
	if _, err := r.c.GrantUserRights(ctx, r.user, rights, ""); err != nil {
		return fmt.Errorf("setup: granting user %s CanActAs on the new parties (needs the ParticipantAdmin right): %w", r.user, err)
	}
	return nil
}

// sanitizeHint keeps what a party hint allows.
func sanitizeHint(s string) string {
	return strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			return c
		}
		return '_'
	}, s)
}

// externalParties onboards NewParties external parties with fresh keys: the
// node's onboarding transactions are checked and their multi-hash recomputed
// before it is signed.
func (r *runner) externalParties(ctx context.Context) error {
	sync, err := r.synchronizer(ctx)
	if err != nil {
		return err
	}
	r.sync = sync
	run := sanitizeHint(strings.TrimSuffix(strings.TrimPrefix(r.cidPre, "bench-"), "-"))
	var ids []string
	for i := 0; i < r.cfg.NewParties; i++ {
		hint := fmt.Sprintf("bench-%s-x%d", run, i+1)
		p, err := r.onboard(ctx, sync, hint)
		if err != nil {
			return fmt.Errorf("setup: onboarding external party %s (needs the ParticipantAdmin right): %w", hint, err)
		}
		r.ext = append(r.ext, p)
		ids = append(ids, p.id)
	}
	fmt.Fprintf(r.cfg.Log, "onboarded %d external parties on %s (bench-%s-x1…)\n", len(ids), sync, run)
	return r.grant(ctx, ids)
}

func (r *runner) synchronizer(ctx context.Context) (string, error) {
	if r.cfg.Synchronizer != "" {
		return r.cfg.Synchronizer, nil
	}
	sync, err := wallet.OnlySynchronizer(ctx, r.c)
	var choice *wallet.SynchronizerChoiceError
	if errors.As(err, &choice) && len(choice.Connected) > 1 {
		return "", fmt.Errorf("setup: the node is on %d synchronizers: choose one with --synchronizer", len(choice.Connected))
	}
	if err != nil {
		return "", fmt.Errorf("setup: %w", err)
	}
	return sync, nil
}

// onboard onboards the external party hint with a fresh key, through the
// wallet's checked onboarding.
func (r *runner) onboard(ctx context.Context, sync, hint string) (*externalParty, error) {
	key, err := signer.Generate(nil)
	if err != nil {
		return nil, err
	}
	o, err := wallet.ProposeOnboarding(ctx, r.c, sync, hint, key.Public())
	if err != nil {
		return nil, err
	}
	if err := o.Allocate(ctx, r.c, key, ""); err != nil {
		return nil, err
	}
	return &externalParty{id: o.PartyID, key: key}, nil
}

// phaseSeed names the seeding phase.
const phaseSeed = "seed"

// seed submits n creates as the completions party, unmeasured.
func (r *runner) seed(ctx context.Context, n int64) error {
	p := &plan{wheel: []string{ScenarioSubmit}, ops: map[string]opFunc{ScenarioSubmit: func(ctx context.Context, w int, seq int64) (int, error) {
		return r.submitAs(ctx, r.local[0], seq)
	}}}
	recs := newRecorders(p, false)
	r.phase(ctx, phaseSeed, p, 0, n, recs)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	st := recs.total.stats(1)
	if st.Failed > 0 {
		id := sortedErrorIDs(st.Errors)[0]
		return fmt.Errorf("setup: seeding: %d of %d submissions failed, e.g. %s", st.Failed, st.Ops, st.ErrorExamples[id])
	}
	fmt.Fprintf(r.cfg.Log, "seeded %d completions for %s\n", st.Succeeded, r.local[0])
	return nil
}

// checkCompletions reads one page as the operations will, once, so that a
// page size above the node's list maximum is one clear setup error rather
// than a 413 for every operation; and when there is nothing to read and no
// seed was asked for, it has setup seed DefaultSeed creates.
func (r *runner) checkCompletions(ctx context.Context) error {
	page, err := r.c.Completions(ctx, ledgerapi.CompletionStreamRequest{UserID: r.user, Parties: []string{r.local[0]}},
		client.CompletionsOptions{Limit: r.cfg.PageSize, IdleTimeout: r.cfg.PageIdle})
	if errors.Is(err, ledgerapi.CodeJSONAPIMaximumListElementsReached.Err()) || client.StatusCode(err) == http.StatusRequestEntityTooLarge {
		return fmt.Errorf("setup: a page of %d completions is more than the node returns at once: give a smaller --page-size (Canton's default maximum is %d): %w",
			r.cfg.PageSize, DefaultPageSize, err)
	}
	if err != nil {
		return fmt.Errorf("setup: reading the completions of %s: %w", r.local[0], err)
	}
	if len(page) == 0 && r.cfg.Seed == 0 {
		r.autoSeed = DefaultSeed
		fmt.Fprintf(r.cfg.Log, "party %s has no completions to read: seeding %d (--seed N sets how many)\n", r.local[0], DefaultSeed)
	}
	return nil
}

// createArgs fills the argument template of one create.
func createArgs(tmpl, party string, seq int64, commandID string) (json.RawMessage, error) {
	q := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b[1 : len(b)-1])
	}
	s := strings.NewReplacer("{{party}}", q(party), "{{seq}}", strconv.FormatInt(seq, 10), "{{commandId}}", q(commandID)).Replace(tmpl)
	if !json.Valid([]byte(s)) {
		return nil, fmt.Errorf("--args: not valid JSON once {{party}}, {{seq}} and {{commandId}} are filled in: %s", truncate(s, 200))
	}
	return json.RawMessage(s), nil
}

func (r *runner) commandID(seq int64) string { return r.cidPre + strconv.FormatInt(seq, 10) }

func (r *runner) create(party string, seq int64) (ledgerapi.Command, string, error) {
	cid := r.commandID(seq)
	args, err := createArgs(r.cfg.Args, party, seq, cid)
	if err != nil {
		return ledgerapi.Command{}, "", err
	}
	return ledgerapi.Command{Create: &ledgerapi.CreateCommand{TemplateID: r.cfg.Template, CreateArguments: args}}, cid, nil
}

func (r *runner) prepareRequest(party string, seq int64) (ledgerapi.PrepareSubmissionRequest, error) {
	cmd, cid, err := r.create(party, seq)
	if err != nil {
		return ledgerapi.PrepareSubmissionRequest{}, err
	}
	req := ledgerapi.PrepareSubmissionRequest{
		UserID: r.user, CommandID: cid, Commands: []ledgerapi.Command{cmd}, ActAs: []string{party}, SynchronizerID: r.sync,
	}
	if r.cfg.Scheme != 0 {
		req.HashingSchemeVersion = ledgerapi.HashingSchemeVersion(r.cfg.Scheme.String())
	}
	return req, nil
}

func (r *runner) prepareOp(ctx context.Context, w int, seq int64) (int, error) {
	req, err := r.prepareRequest(r.local[w%len(r.local)], seq)
	if err != nil {
		return 0, err
	}
	_, err = r.c.Prepare(ctx, req)
	return 0, err
}

func (r *runner) submitOp(ctx context.Context, w int, seq int64) (int, error) {
	return r.submitAs(ctx, r.local[w%len(r.local)], seq)
}

func (r *runner) submitAs(ctx context.Context, party string, seq int64) (int, error) {
	cmd, cid, err := r.create(party, seq)
	if err != nil {
		return 0, err
	}
	user, sub := r.user, uuid.NewString()
	_, err = r.c.SubmitAndWaitForTransactionTree(ctx, ledgerapi.Commands{
		Commands: []ledgerapi.Command{cmd}, CommandID: cid, ActAs: []string{party}, UserID: &user,
		DeduplicationPeriod: &ledgerapi.DeduplicationPeriod{}, SubmissionID: &sub,
	})
	return 0, err
}

// executeOp prepares, recomputes the hash from the prepared transaction's
// bytes, signs the recomputed hash and executes.
func (r *runner) executeOp(ctx context.Context, w int, seq int64) (int, error) {
	p := r.ext[w%len(r.ext)]
	req, err := r.prepareRequest(p.id, seq)
	if err != nil {
		return 0, err
	}
	resp, err := r.c.Prepare(ctx, req)
	if err != nil {
		return 0, err
	}
	scheme := hashing.V2
	if v := resp.HashingSchemeVersion; v != "" {
		if scheme, err = hashing.ParseScheme(string(v)); err != nil {
			return 0, &localError{"UNSUPPORTED_HASHING_SCHEME", err.Error()}
		}
	}
	hash, err := hashing.Sum(resp.PreparedTransaction, scheme)
	if err != nil {
		return 0, &localError{"HASH_FAILED", err.Error()}
	}
	if !bytes.Equal(hash[:], resp.PreparedTransactionHash) {
		return 0, &localError{"HASH_MISMATCH", fmt.Sprintf("the node's preparedTransactionHash differs from the hash recomputed under %s: not signed", scheme)}
	}
	var sigs ledgerapi.PartySignatures
	sigs.Add(p.id, ledgerapi.SignatureOf(p.key.SignHash(hash)))
	_, err = r.c.ExecuteAndWait(ctx, ledgerapi.ExecuteSubmissionAndWaitRequest{
		PreparedTransaction: resp.PreparedTransaction, PartySignatures: sigs, SubmissionID: uuid.NewString(),
		UserID: r.user, HashingSchemeVersion: ledgerapi.HashingSchemeVersion(scheme.String()),
	})
	return 0, err
}

// completionsOp reads one page of the completions party's completions from
// the worker's cursor; a short page ends a pass and the next starts at 0.
func (r *runner) completionsOp(ctx context.Context, w int, seq int64) (int, error) {
	page, err := r.c.Completions(ctx, ledgerapi.CompletionStreamRequest{
		UserID: r.user, Parties: []string{r.local[0]}, BeginExclusive: ledgerapi.Int64(r.cursors[w]),
	}, client.CompletionsOptions{Limit: r.cfg.PageSize, IdleTimeout: r.cfg.PageIdle})
	if err != nil {
		r.cursors[w] = 0
		return 0, err
	}
	n := 0
	for _, e := range page {
		if e.Completion != nil {
			n++
		}
	}
	if len(page) < r.cfg.PageSize {
		r.cursors[w] = 0
	} else {
		r.cursors[w] = page[len(page)-1].Offset()
	}
	return n, nil
}

// setupPing uploads the DAR when one is given, then checks that the node
// runs the Ping's code: a Ping's Respond by its initiator must be refused
// (the responder is its controller). ledger serve without the DAR serves
// the template by its generic contract model, which would accept it, and
// the run would not measure Daml.
func (r *runner) setupPing(ctx context.Context) error {
	if len(r.local) < 2 {
		return errors.New("setup: the ping scenario needs two parties, an initiator and a responder: give --parties 2 or more, or two --party")
	}
	if r.cfg.Dar != nil {
		if err := r.c.UploadDar(ctx, r.cfg.Dar, client.UploadOptions{}); err != nil {
			return fmt.Errorf("setup: uploading the DAR (needs the ParticipantAdmin right): %w", err)
		}
		fmt.Fprintf(r.cfg.Log, "uploaded the DAR (%d bytes)\n", len(r.cfg.Dar))
	}
	const hint = "upload its DAR: ledger bench ping --upload-dar daml/archive/testdata/canton-builtin-admin-workflow-ping.dar"
	cid, err := r.createPing(ctx, r.local[0], r.local[1], r.cidPre+"setup")
	if err != nil {
		return fmt.Errorf("setup: creating a Ping failed; does the node have Canton's Ping package? (%s): %w", hint, err)
	}
	err = r.respond(ctx, r.local[0], cid, r.cidPre+"setup-check")
	if err == nil {
		return fmt.Errorf("setup: the node let a Ping's initiator Respond: it does not run the Ping's Daml code (%s)", hint)
	}
	if !errors.Is(err, ledgerapi.CodeDamlAuthorizationError.Err()) {
		return fmt.Errorf("setup: checking that the node runs the Ping's code: %w", err)
	}
	return nil
}

// respond exercises Respond on a Ping as party.
func (r *runner) respond(ctx context.Context, party, cid, commandID string) error {
	user := r.user
	_, err := r.c.SubmitAndWait(ctx, ledgerapi.Commands{
		Commands: []ledgerapi.Command{{Exercise: &ledgerapi.ExerciseCommand{TemplateID: PingTemplate, ContractID: cid, Choice: "Respond",
			ChoiceArgument: json.RawMessage(`{}`)}}},
		CommandID: commandID, ActAs: []string{party}, UserID: &user, DeduplicationPeriod: &ledgerapi.DeduplicationPeriod{},
	})
	return err
}

// createPing creates a Ping and returns its contract id.
func (r *runner) createPing(ctx context.Context, initiator, responder, commandID string) (string, error) {
	args, err := json.Marshal(map[string]string{"id": commandID, "initiator": initiator, "responder": responder})
	if err != nil {
		return "", err
	}
	user := r.user
	t, err := r.c.SubmitAndWaitForTransaction(ctx, ledgerapi.SubmitAndWaitForTransactionRequest{Commands: ledgerapi.Commands{
		Commands:  []ledgerapi.Command{{Create: &ledgerapi.CreateCommand{TemplateID: PingTemplate, CreateArguments: args}}},
		CommandID: commandID, ActAs: []string{initiator}, UserID: &user, DeduplicationPeriod: &ledgerapi.DeduplicationPeriod{},
	}})
	if err != nil {
		return "", err
	}
	for _, ev := range t.Events {
		if ev.Created != nil {
			return ev.Created.ContractID, nil
		}
	}
	return "", &localError{"NO_CREATED_EVENT", "the Ping create's transaction shows no created event"}
}

// pingOp is one command of a worker's Ping flow: a Ping created by its
// initiator, then the next operation the responder's Respond on it, which
// archives it. Worker w's initiator is party w and its responder party
// w+1 (round the parties).
func (r *runner) pingOp(ctx context.Context, w int, seq int64) (int, error) {
	initiator, responder := r.local[w%len(r.local)], r.local[(w+1)%len(r.local)]
	cid := r.pings[w]
	if cid == "" {
		cid, err := r.createPing(ctx, initiator, responder, r.commandID(seq))
		if err != nil {
			return 0, err
		}
		r.pings[w] = cid
		return 0, nil
	}
	r.pings[w] = ""
	return 0, r.respond(ctx, responder, cid, r.commandID(seq))
}
