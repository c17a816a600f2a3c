package engine

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/generic"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"google.golang.org/protobuf/proto"
)

// Cost model of the traffic estimate (see the package documentation).
const (
	CostEnvelopeBytes  = 1024 // framing of a confirmation request around the transaction
	CostSignatureBytes = 100  // one ed25519 signature: 64 bytes, a 68-character fingerprint, framing
	CostResponseBytes  = 512  // one confirmation response from this node
)

// verboseHashingDisabled is the hashingDetails text when the node does not
// explain its hashes.
const verboseHashingDisabled = "Verbose hashing is disabled on this participant. Contact the node administrator for more details."

// Prepared is a prepared transaction with its hash.
type Prepared struct {
	PreparedTransaction *damlpb.PreparedTransaction
	// Bytes is PreparedTransaction in deterministic binary protobuf: the
	// preparedTransaction of the response, what the hash covers.
	Bytes  []byte
	Hash   [32]byte
	Scheme hashing.Scheme
	// HashingDetails is the hashing trace, set when verboseHashing was asked.
	HashingDetails *string
	// CostEstimation is nil when the request disabled it.
	CostEstimation *ledgerapi.CostEstimation
	// Generic are the templates the generic contract model served (no
	// Daml code ran for them); none when the interpreter ran the commands.
	Generic []string
}

// Response is the prepare response body.
func (p *Prepared) Response() ledgerapi.PrepareSubmissionResponse {
	version := ledgerapi.HashingSchemeVersionV2
	if p.Scheme == hashing.V3 {
		version = ledgerapi.HashingSchemeVersionV3
	}
	return ledgerapi.PrepareSubmissionResponse{
		PreparedTransaction:     p.Bytes,
		PreparedTransactionHash: append([]byte(nil), p.Hash[:]...),
		HashingSchemeVersion:    version,
		HashingDetails:          p.HashingDetails,
		CostEstimation:          p.CostEstimation,
	}
}

// Prepare validates a prepare request and builds its PreparedTransaction.
// userID is the effective user (the request's, else the token's); the
// server has checked read rights for actAs. Errors are *ledgerapi.JsCantonError
// except for failures of the ContractReader or PartyDirectory, which are
// returned as they are (internal errors).
func (e *Engine) Prepare(ctx context.Context, req ledgerapi.PrepareSubmissionRequest, userID string) (*Prepared, error) {
	if err := validateUserID(userID); err != nil {
		return nil, err
	}
	if err := validateRequiredLedgerString("command_id", req.CommandID); err != nil {
		return nil, err
	}
	actAs, readAs, err := validateSubmitters(req.ActAs, req.ReadAs)
	if err != nil {
		return nil, err
	}
	if err := e.checkSynchronizer("synchronizer_id", req.SynchronizerID); err != nil {
		return nil, err
	}
	if len(req.Commands) == 0 {
		return nil, missingField("commands")
	}
	if err := validatePackagePreference(req.PackageIDSelectionPreference); err != nil {
		return nil, err
	}
	now := e.now()
	minLET, err := minLedgerTimeOf(now, req.MinLedgerTime)
	if err != nil {
		return nil, err
	}
	disclosed, err := e.checkDisclosed(ctx, req.DisclosedContracts, actAs, readAs)
	if err != nil {
		return nil, err
	}
	if err := e.validatePrefetch(req.PrefetchContractKeys, req.PackageIDSelectionPreference); err != nil {
		return nil, err
	}
	if err := e.validateTaps(req.TapsMaxPasses); err != nil {
		return nil, err
	}
	scheme, err := parseScheme(req.HashingSchemeVersion, false)
	if err != nil {
		return nil, err
	}
	cmds, err := e.parseCommands(ctx, req.Commands, req.PackageIDSelectionPreference)
	if err != nil {
		return nil, err
	}
	// Canton (InteractiveSubmissionServiceImpl, enforceSingleRootNode)
	// refuses several commands here, but not one command that makes several
	// root nodes: a CreateAndExerciseCommand is prepared (two roots) and
	// refused at execute (ExternalTransactionProcessor.processExecute).
	if cmds.len() > 1 {
		return nil, failedToPrepare("Preparing multiple commands is currently not supported")
	}
	if err := e.checkKnownSubmitters(ctx, actAs); err != nil {
		return nil, err
	}

	b, err := e.run(ctx, cmds, runRequest{actAs: actAs, readAs: readAs, disclosed: disclosed,
		preference: req.PackageIDSelectionPreference, now: now, ledgerTime: ledgerTimeOf(now, minLET)})
	if err != nil {
		return nil, err
	}
	if err := e.checkKnownInformees(ctx, actAs, b, disclosed.Foreign()...); err != nil {
		return nil, err
	}
	if b.interpreted {
		// Canton writes the interpreter's ledger-time bounds, not the
		// request's minLedgerTime (which only sets the ledger time).
		minLET = nil
	}
	txUUID, err := uuid.NewRandomFromReader(e.cfg.Rand)
	if err != nil {
		return nil, err
	}
	// The prepared transaction is written here, once: the transaction and
	// its input contracts in the form a PreparedTransaction carries.
	encoded, err := b.encodeTransaction()
	if err != nil {
		return nil, err
	}
	inputs, err := e.encodeInputs(b)
	if err != nil {
		return nil, err
	}
	md := &damlpb.Metadata{
		SubmitterInfo:   &damlpb.Metadata_SubmitterInfo{ActAs: actAs, CommandId: req.CommandID},
		SynchronizerId:  e.cfg.SynchronizerID,
		MediatorGroup:   0,
		TransactionUuid: txUUID.String(),
		PreparationTime: uint64(now.UnixMicro()),
		InputContracts:  inputs,
	}
	if minLET != nil {
		v := uint64(minLET.UnixMicro())
		md.MinLedgerEffectiveTime = &v
	}
	if b.interpreted {
		md.MinLedgerEffectiveTime, md.MaxLedgerEffectiveTime = b.minLedgerTime, b.maxLedgerTime
	}
	if req.MaxRecordTime != nil && !req.MaxRecordTime.IsZero() {
		v := uint64(req.MaxRecordTime.Time.UnixMicro())
		md.MaxRecordTime = &v
	}
	pt := &damlpb.PreparedTransaction{Transaction: encoded, Metadata: md}
	raw, err := proto.MarshalOptions{Deterministic: true}.Marshal(pt)
	if err != nil {
		return nil, err
	}
	if msg := unhashable(scheme, encoded); msg != "" {
		return nil, failedToPrepare("%s", msg)
	}
	wantTrace := req.VerboseHashing && !e.cfg.DisableVerboseHashing
	res, err := hashing.Compute(raw, scheme, hashing.Options{Trace: wantTrace})
	if err != nil {
		return nil, failedToPrepare("the transaction cannot be hashed under %s: %v", scheme, err)
	}
	p := &Prepared{PreparedTransaction: pt, Bytes: raw, Hash: res.Hash, Scheme: scheme, Generic: cmds.genericTemplates()}
	switch {
	case wantTrace:
		s := res.Trace.String()
		p.HashingDetails = &s
	case req.VerboseHashing:
		s := verboseHashingDisabled
		p.HashingDetails = &s
	}
	if req.EstimateTrafficCost == nil || !req.EstimateTrafficCost.Disabled {
		signatures := len(actAs)
		if h := req.EstimateTrafficCost; h != nil && len(h.ExpectedSignatures) > 0 {
			signatures = len(h.ExpectedSignatures)
		}
		p.CostEstimation = EstimateCost(len(raw), signatures, now)
	}
	return p, nil
}

// EstimateCost is the node's traffic estimate for a prepared transaction of
// size bytes carrying signatures signatures: the confirmation request is the
// transaction plus CostEnvelopeBytes plus CostSignatureBytes per signature,
// the confirmation response CostResponseBytes (this node is the only
// confirming participant), the total their sum.
func EstimateCost(size, signatures int, at time.Time) *ledgerapi.CostEstimation {
	request := int64(size + CostEnvelopeBytes + signatures*CostSignatureBytes)
	response := int64(CostResponseBytes)
	return &ledgerapi.CostEstimation{
		EstimationTimestamp:                       ledgerapi.NewTimestamp(at),
		ConfirmationRequestTrafficCostEstimation:  ledgerapi.Int64(request),
		ConfirmationResponseTrafficCostEstimation: ledgerapi.Int64(response),
		TotalTrafficCostEstimation:                ledgerapi.Int64(request + response),
	}
}

func (e *Engine) randomSeed(int32) ([]byte, error) { return e.random(32) }

// minLedgerTime is the one minimum-ledger-time rule of prepare, execute
// and submit: an absolute time (to the microsecond), or now plus a
// relative duration, at most one of them; nil when neither is given.
func minLedgerTime(now time.Time, abs *ledgerapi.Timestamp, rel *ledgerapi.Duration) (*time.Time, error) {
	switch {
	case abs != nil && rel != nil:
		return nil, invalidArgument("min_ledger_time_abs cannot be specified at the same time as min_ledger_time_rel")
	case abs != nil:
		t := abs.Time.UTC().Truncate(time.Microsecond)
		return &t, nil
	case rel != nil:
		if rel.Seconds < 0 || rel.Nanos < 0 {
			return nil, invalidField("min_ledger_time_rel", "Duration must be positive")
		}
		t := now.Add(rel.Std()).Truncate(time.Microsecond)
		return &t, nil
	}
	return nil, nil
}

// minLedgerTimeOf is minLedgerTime of the oneof prepare and execute take.
func minLedgerTimeOf(now time.Time, m *ledgerapi.MinLedgerTime) (*time.Time, error) {
	if m == nil {
		return nil, nil
	}
	return minLedgerTime(now, m.Abs, m.Rel)
}

// ledgerTimeOf is the ledger time of a command: now, or its minimum
// ledger time when later.
func ledgerTimeOf(now time.Time, minLET *time.Time) time.Time {
	if minLET != nil && minLET.After(now) {
		return *minLET
	}
	return now
}

// runRequest is what running validated commands needs besides them.
type runRequest struct {
	actAs, readAs []string
	// disclosed are the request's disclosed contracts, authenticated, in
	// order.
	disclosed *disclosedSet
	// preference is the request's packageIdSelectionPreference.
	preference      []string
	now, ledgerTime time.Time
	// noInputContracts leaves out the metadata of the input contracts
	// (their create nodes and blobs), which only a prepared transaction
	// carries: submit commits without them.
	noInputContracts bool
}

// run makes the transaction of validated commands: by the interpreter when
// they name templates of uploaded packages, else by the generic contract
// model.
func (e *Engine) run(ctx context.Context, cmds commands, r runRequest) (*built, error) {
	set := e.cfg.Packages()
	visible := visibleTo(r.actAs, r.readAs, r.disclosed.IDs())
	if len(cmds.daml) > 0 && len(cmds.generic) > 0 {
		return nil, preprocessingFailed("commands on templates of uploaded packages (run by the Daml interpreter) and on templates of packages never uploaded (the generic contract model) cannot be mixed in one submission; submit them separately")
	}
	if len(cmds.daml) == 0 {
		b, err := e.build(ctx, cmds.generic, r.actAs, e.randomSeed, buildOptions{
			visible:   visible,
			inactive:  func(cid string) error { return ContractNotFound(cid) },
			packages:  set,
			disclosed: r.disclosed,
		})
		if err != nil {
			return nil, commandError(err)
		}
		b.used = r.disclosed.held(b.used)
		return b, nil
	}
	seed, err := e.submissionSeed()
	if err != nil {
		return nil, err
	}
	b, err := e.interpret(ctx, cmds.daml, damlRun{
		set: set, actAs: r.actAs, visible: visible, disclosed: r.disclosed,
		submissionSeed: seed, preparationTime: r.now, ledgerTime: r.ledgerTime,
		preference: set.Preference(r.now, r.preference, nil), noInputContracts: r.noInputContracts,
	})
	if err != nil {
		return nil, damlError(err)
	}
	b.used = r.disclosed.held(b.used)
	return b, nil
}

// visibleTo lets submitters use a contract when one of them is a stakeholder
// or the contract was disclosed.
func visibleTo(actAs, readAs, disclosed []string) func(c *ledger.Contract) bool {
	readers := map[string]bool{}
	for _, p := range actAs {
		readers[p] = true
	}
	for _, p := range readAs {
		readers[p] = true
	}
	return func(c *ledger.Contract) bool {
		if slices.Contains(disclosed, c.ContractID) {
			return true
		}
		for _, p := range c.Stakeholders {
			if readers[p] {
				return true
			}
		}
		return false
	}
}

// commandError maps builder errors of prepare and submit.
func commandError(err error) error {
	var model *generic.ModelError
	var wrong *generic.WrongTemplateError
	switch {
	case errors.As(err, &wrong):
		return ledgerapi.Errorf(CodeWronglyTypedContract, "%s", wrong.Error()).WithResource("CONTRACT_ID", wrong.ContractID)
	case errors.As(err, &model):
		return preprocessingFailed("%s", model.Msg)
	}
	return err
}
