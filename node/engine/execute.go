package engine

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/ledger-cli/ledger/daml/engine/preprocess"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/generic"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"github.com/ledger-cli/ledger/signer"
	"google.golang.org/protobuf/proto"
)

// Execute checks an interactive submission (execute, executeAndWait,
// executeAndWaitForTransaction) and interprets its prepared transaction.
// userID is the effective user; the server has checked its rights. keys
// gives the signing keys of external parties.
//
// The checks, in order: the request fields; the bytes decode as a
// PreparedTransaction; its synchronizer is the node's; it has one root
// (unless Config.AllowMultipleRoots); the hash, recomputed from the bytes
// under req.HashingSchemeVersion; every act_as party of the metadata has
// enough valid signatures over that hash; the transaction is exactly what
// this node's contract model makes from its own root commands, node seeds
// and input contracts, every input contract still active and every party
// known; then max_record_time. A passed max_record_time and a too long
// deduplication period come back as an Outcome with Rejection set.
func (e *Engine) Execute(ctx context.Context, req ledgerapi.ExecuteSubmissionRequest, userID string, keys KeyLookup) (*Outcome, error) {
	if err := validateUserID(userID); err != nil {
		return nil, err
	}
	submissionID := req.SubmissionID
	if submissionID != "" {
		if err := ledgerapi.ValidateLedgerString("submission_id", submissionID); err != nil {
			return nil, invalidField("submission_id", "%s", reason(err))
		}
	}
	dedupRejection, err := e.checkDedup(req.DeduplicationPeriod)
	if err != nil {
		return nil, err
	}
	if len(req.PreparedTransaction) == 0 {
		return nil, missingField("prepared_transaction")
	}
	sigs, err := groupSignatures(req.PartySignatures)
	if err != nil {
		return nil, err
	}
	scheme, err := parseScheme(req.HashingSchemeVersion, true)
	if err != nil {
		return nil, err
	}
	now := e.now()
	minLET, err := minLedgerTimeOf(now, req.MinLedgerTime)
	if err != nil {
		return nil, err
	}
	effectiveAt := ledgerTimeOf(now, minLET)

	pt := &damlpb.PreparedTransaction{}
	if err := proto.Unmarshal(req.PreparedTransaction, pt); err != nil {
		return nil, invalidField("prepared_transaction", "the bytes are not a PreparedTransaction: %v", err)
	}
	md, tx := pt.GetMetadata(), pt.GetTransaction()
	if md.GetSynchronizerId() == "" {
		return nil, missingField("synchronizer_id")
	}
	if err := checkPreparedSynchronizer(md.GetSynchronizerId()); err != nil {
		return nil, err
	}
	if err := e.checkSynchronizer("synchronizer_id", md.GetSynchronizerId()); err != nil {
		return nil, err
	}
	if tx == nil {
		return nil, failedToExecute("the prepared transaction has no transaction")
	}
	if len(tx.GetRoots()) != 1 && !e.cfg.AllowMultipleRoots {
		return nil, failedToExecute("Transaction with multiple root nodes are not supported")
	}
	if msg := unhashable(scheme, tx); msg != "" {
		return nil, failedToExecute("%s", msg)
	}
	res, err := hashing.Compute(req.PreparedTransaction, scheme, hashing.Options{})
	if err != nil {
		return nil, failedToExecute("the hash of the prepared transaction cannot be computed under %s: %v", scheme, err)
	}
	actAs := md.GetSubmitterInfo().GetActAs()
	if len(actAs) == 0 {
		return nil, failedToExecute("the prepared transaction has no act_as parties")
	}
	for _, p := range actAs {
		if err := ledgerapi.ValidatePartyID("act_as", p); err != nil {
			return nil, failedToExecute("metadata act_as: %s", reason(err))
		}
	}
	commandID := md.GetSubmitterInfo().GetCommandId()
	if err := ledgerapi.ValidateLedgerString("command_id", commandID); err != nil {
		return nil, failedToExecute("metadata command_id: %s", reason(err))
	}
	if err := checkInputContracts(tx, md); err != nil {
		return nil, err
	}
	if err := e.verifySignatures(ctx, res.Hash, actAs, sigs, keys); err != nil {
		return nil, err
	}
	var b *built
	daml, err := e.interpretedTransaction(tx)
	if err != nil {
		return nil, err
	}
	if daml {
		effectiveAt = clampLedgerTime(effectiveAt, md)
		b, err = e.reinterpret(ctx, pt, actAs, effectiveAt)
	} else {
		b, err = e.conform(ctx, pt, actAs)
		if md.MinLedgerEffectiveTime != nil {
			if t := time.UnixMicro(int64(*md.MinLedgerEffectiveTime)).UTC(); t.After(effectiveAt) {
				effectiveAt = t
			}
		}
	}
	if err != nil {
		return nil, err
	}

	if submissionID == "" {
		id, err := uuid.NewRandomFromReader(e.cfg.Rand)
		if err != nil {
			return nil, err
		}
		submissionID = id.String()
	}
	out := &Outcome{
		UserID:       userID,
		CommandID:    commandID,
		SubmissionID: submissionID,
		ActAs:        append([]string(nil), actAs...),
		Dedup:        req.DeduplicationPeriod,
	}
	if dedupRejection != nil {
		out.Rejection = dedupRejection.WithCorrelationID(submissionID)
		return out, nil
	}
	var maxRecordTime time.Time
	if md.MaxRecordTime != nil {
		maxRecordTime = time.UnixMicro(int64(*md.MaxRecordTime)).UTC()
		if now.After(maxRecordTime) {
			out.Rejection = MaxRecordTimeExceeded(ledgerapi.NewTimestamp(maxRecordTime).String()).WithCorrelationID(submissionID)
			return out, nil
		}
	}
	hash := res.Hash
	if err := e.accept(out, b, "", effectiveAt, maxRecordTime, &hash, md.GetTransactionUuid()); err != nil {
		return nil, err
	}
	return out, nil
}

// groupSignatures checks the signature fields and merges the entries of
// each party.
func groupSignatures(ps ledgerapi.PartySignatures) (map[string][]ledgerapi.Signature, error) {
	out := map[string][]ledgerapi.Signature{}
	for _, sp := range ps.Signatures {
		if _, _, err := ledgerapi.SplitParty(sp.Party); err != nil {
			return nil, invalidField("SinglePartySignatures.party", "%s", reason(err))
		}
		for _, s := range sp.Signatures {
			switch {
			case s.Format == "" || s.Format == ledgerapi.SignatureFormatUnspecified:
				return nil, invalidField("SinglePartySignatures.signature", "the signature format is unspecified")
			case len(s.Signature) == 0:
				return nil, invalidField("SinglePartySignatures.signature", "the signature is empty")
			case s.SignedBy == "":
				return nil, invalidField("SinglePartySignatures.signature", "signedBy is empty")
			}
			if err := ledgerapi.ValidateFingerprint("signedBy", s.SignedBy); err != nil {
				return nil, invalidField("SinglePartySignatures.signature", "%s", reason(err))
			}
			out[sp.Party] = append(out[sp.Party], s)
		}
		if _, ok := out[sp.Party]; !ok {
			out[sp.Party] = nil
		}
	}
	return out, nil
}

// verifySignatures requires, for every act_as party, at least threshold
// valid signatures of the hash by distinct keys registered for the party.
// A signature is valid when its signedBy is the fingerprint of one of the
// party's keys, its format CONCAT (or the legacy RAW), its algorithm
// ED25519, and ed25519 verifies it over the 32 hash bytes. Signatures of
// parties outside act_as are ignored, as Canton does.
func (e *Engine) verifySignatures(ctx context.Context, hash [32]byte, actAs []string, sigs map[string][]ledgerapi.Signature, keys KeyLookup) error {
	var missing []string
	for _, p := range actAs {
		if len(sigs[p]) == 0 {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return failedToExecute("The following actAs parties did not provide an external signature: %s", strings.Join(missing, ", "))
	}
	for _, p := range actAs {
		ps := sigs[p]
		if len(ps) > e.cfg.MaxSignaturesPerParty {
			return failedToExecute("One or more parties provided more than the maximum number of signatures allowed (%d)", e.cfg.MaxSignaturesPerParty)
		}
		if keys == nil {
			return failedToExecute("Could not find party signing keys for %s.", p)
		}
		pubs, threshold, err := keys(ctx, p)
		if err != nil {
			return err
		}
		if len(pubs) == 0 {
			return failedToExecute("Could not find party signing keys for %s.", p)
		}
		if threshold < 1 {
			threshold = 1
		}
		if len(ps) > len(pubs) {
			return failedToExecute("%d external signatures were provided, which is more than the number of registered signing keys (%d) for %s", len(ps), len(pubs), p)
		}
		byFingerprint := map[string]ed25519.PublicKey{}
		for _, k := range pubs {
			if len(k) != ed25519.PublicKeySize {
				continue
			}
			byFingerprint[signer.Fingerprint(k)] = k
		}
		valid := map[string]bool{}
		invalid := 0
		for _, s := range ps {
			k, ok := byFingerprint[s.SignedBy]
			good := ok &&
				(s.Format == ledgerapi.SignatureFormatConcat || s.Format == ledgerapi.SignatureFormatRaw) &&
				s.SigningAlgorithmSpec == ledgerapi.SigningAlgorithmSpecEd25519 &&
				len(s.Signature) == ed25519.SignatureSize &&
				ed25519.Verify(k, hash[:], s.Signature)
			if good {
				valid[s.SignedBy] = true
			} else {
				invalid++
			}
		}
		if len(valid) < threshold {
			return failedToExecute("Received %d valid signatures from distinct keys (%d invalid), but expected at least %d valid for %s. Transaction hash to be signed: %s. Sign exactly this hash with a key registered for the party (signedBy is the key's fingerprint, format SIGNATURE_FORMAT_CONCAT, algorithm SIGNING_ALGORITHM_SPEC_ED25519).",
				len(valid), invalid, threshold, p, hashing.Hex(hash))
		}
	}
	return nil
}

// conform rebuilds the transaction from its own root commands, node seeds
// and the stored input contracts, and requires the prepared transaction to
// be exactly that: the node only executes what its contract model would
// have prepared.
func (e *Engine) conform(ctx context.Context, pt *damlpb.PreparedTransaction, actAs []string) (*built, error) {
	md, tx := pt.GetMetadata(), pt.GetTransaction()
	switch {
	case tx.GetVersion() != LFVersion:
		return nil, nonConforming("transaction version %q is not %q", tx.GetVersion(), LFVersion)
	case md.GetMediatorGroup() != 0:
		return nil, nonConforming("mediator group %d is not 0", md.GetMediatorGroup())
	case len(md.GetGlobalKeyMapping()) > 0:
		return nil, nonConforming("global_key_mapping is not empty; this node keeps no contract keys")
	case md.MaxLedgerEffectiveTime != nil:
		return nil, nonConforming("max_ledger_effective_time is set; this node prepares transactions without it")
	}
	nodes := map[string]*damlpb.Node{}
	for _, n := range tx.GetNodes() {
		if _, dup := nodes[n.GetNodeId()]; dup {
			return nil, nonConforming("node %s appears twice", n.GetNodeId())
		}
		nodes[n.GetNodeId()] = n.GetV1()
	}
	seeds := map[int32][]byte{}
	for _, s := range tx.GetNodeSeeds() {
		seeds[s.GetNodeId()] = s.GetSeed()
	}
	pkgs := e.cfg.Packages()
	cmds, err := e.rootCommands(tx.GetRoots(), nodes, pkgs)
	if err != nil {
		return nil, err
	}
	// Before anything is compared with a stored contract: a contract no
	// actAs party is a stakeholder of is used only through an input
	// contract the node prepared (authenticInput), as in prepare only
	// through a disclosed one. A contract of another participant, which
	// this node does not hold, is used as its authenticated blob
	// describes it, as prepare used it as a disclosed contract (and as
	// re-interpretation does, storedInputs).
	disclosed := map[string]bool{}
	foreign := &disclosedSet{byID: map[string]*ledger.Contract{}}
	for _, ic := range md.GetInputContracts() {
		stored, err := e.authenticInput(ctx, ic, actAs)
		if err != nil {
			return nil, err
		}
		if stored == nil {
			lc, stakeholders, err := e.foreignInput(ctx, ic)
			if err != nil {
				return nil, err
			}
			if foreign.byID[lc.ContractID] == nil {
				foreign.ids = append(foreign.ids, lc.ContractID)
				foreign.byID[lc.ContractID] = lc
				foreign.notHeld = append(foreign.notHeld, lc.ContractID)
				foreign.foreign = append(foreign.foreign, stakeholders...)
			}
			stored = lc
		}
		disclosed[stored.ContractID] = true
	}
	visible := func(c *ledger.Contract) bool { return disclosed[c.ContractID] || isViewer(c, actAs, nil) }
	b, err := e.build(ctx, cmds, actAs, func(id int32) ([]byte, error) {
		s, ok := seeds[id]
		if !ok || len(s) != 32 {
			return nil, nonConforming("node %d has no 32-byte seed", id)
		}
		return s, nil
	}, buildOptions{visible: visible, inactive: func(cid string) error { return ContractNotActive(cid) }, packages: pkgs, disclosed: foreign})
	if err != nil {
		var model *generic.ModelError
		var wrong *generic.WrongTemplateError
		switch {
		case errors.As(err, &wrong):
			return nil, nonConforming("%v", wrong)
		case errors.As(err, &model):
			return nil, nonConforming("%s", model.Msg)
		}
		return nil, err
	}
	// Compared as the prepared transaction carries them: the model's
	// transaction and input contracts written as prepare writes them.
	want, err := b.encodeTransaction()
	if err != nil {
		return nil, err
	}
	if d := firstTxDifference(want, tx); d != "" {
		return nil, nonConforming("%s", d)
	}
	if len(b.inputs) != len(md.GetInputContracts()) {
		return nil, nonConforming("it lists %d input contracts; the transaction uses %d", len(md.GetInputContracts()), len(b.inputs))
	}
	inputs, err := e.encodeInputs(b)
	if err != nil {
		return nil, err
	}
	for i, want := range inputs {
		if !sameInputContract(md.GetInputContracts()[i], want) {
			return nil, nonConforming("input contract %d (%s) differs from the stored contract", i, want.GetV1().GetContractId())
		}
	}
	b.used = foreign.held(b.used)
	if err := e.checkCommittable(ctx, actAs, b, foreign.Foreign()...); err != nil {
		return nil, err
	}
	return b, nil
}

// sameInputContract compares two input contracts but for their blobs.
func sameInputContract(a, b *damlpb.Metadata_InputContract) bool {
	x := proto.Clone(a).(*damlpb.Metadata_InputContract)
	y := proto.Clone(b).(*damlpb.Metadata_InputContract)
	x.EventBlob, y.EventBlob = nil, nil
	return proto.Equal(x, y)
}

// checkCommittable requires every party a transaction to execute names to
// be known here, and the contracts it creates to be new: a transaction
// executed before would create them again.
func (e *Engine) checkCommittable(ctx context.Context, actAs []string, b *built, foreign ...string) error {
	if err := e.checkKnownInformees(ctx, actAs, b, foreign...); err != nil {
		return err
	}
	for _, c := range b.created {
		// The local id's discriminator is what the suffixed id keeps.
		existing, err := e.contracts.LookupDiscriminator(ctx, strings.TrimPrefix(c.ContractID, contractIDPrefix))
		if err != nil {
			return err
		}
		if existing != nil {
			return failedToExecute("contract id %s already exists (as %s): this prepared transaction was executed before", c.ContractID, existing.ContractID).
				WithResource("CONTRACT_ID", existing.ContractID)
		}
	}
	return nil
}

// checkKnownInformees requires every party the transaction b names — the
// stakeholders of what it creates, the acting parties and the witnesses of
// its nodes — to be a party of this node: Canton's routing
// (AdmissibleSynchronizersComputation) refuses a transaction with an
// informee no connected synchronizer knows with UNKNOWN_INFORMEES, for a
// submission, a prepare and an execute alike. The stakeholders of
// disclosed contracts this node does not hold (foreign) are parties of
// the participants those contracts come from, and count as known.
func (e *Engine) checkKnownInformees(ctx context.Context, actAs []string, b *built, foreign ...string) error {
	set := map[string]bool{}
	for _, p := range actAs {
		set[p] = true
	}
	for _, c := range b.created {
		for _, p := range c.Stakeholders {
			set[p] = true
		}
	}
	for _, n := range b.nodes {
		for _, p := range n.ActingParties {
			set[p] = true
		}
		for _, p := range n.Witnesses {
			set[p] = true
		}
	}
	for _, p := range foreign {
		delete(set, p)
	}
	var unknown []string
	for _, p := range sortedSet(set) {
		ok, err := e.parties.IsKnownParty(ctx, p)
		if err != nil {
			return err
		}
		if !ok {
			unknown = append(unknown, p)
		}
	}
	if len(unknown) > 0 {
		return ledgerapi.NewError(CodeUnknownInformees,
			"The participant is not connected to any synchronizer where the given informees are known.",
			map[string]string{"unknownInformees": strings.Join(unknown, ",")})
	}
	return nil
}

// rootCommands reads the commands behind the root nodes: a create, an
// exercise, or a create followed by an exercise of the new contract (what a
// CreateAndExerciseCommand makes). Their values are read as they are
// written (typed.FromProtoAsIs); one the model could not have written is
// refused.
func (e *Engine) rootCommands(roots []string, nodes map[string]*damlpb.Node, set *PackageSet) ([]generic.Command, error) {
	var cmds []generic.Command
	for i := 0; i < len(roots); i++ {
		n := nodes[roots[i]]
		if n == nil {
			return nil, nonConforming("root %s is not a node of the transaction", roots[i])
		}
		switch t := n.NodeType.(type) {
		case *damlpb.Node_Create:
			c := t.Create
			if !e.packageNameFits(set, c.GetTemplateId().GetPackageId(), c.GetPackageName()) {
				return nil, nonConforming("node %s: package name %q does not belong to package id %q", roots[i], c.GetPackageName(), c.GetTemplateId().GetPackageId())
			}
			if c.GetTemplateId() == nil {
				return nil, nonConforming("node %s has no template id", roots[i])
			}
			arg, err := nodeValue(roots[i], "create argument", c.GetArgument())
			if err != nil {
				return nil, err
			}
			cmd := generic.Command{Kind: generic.Create, Template: generic.Template{ID: valueIdentifier(c.GetTemplateId()), PackageName: c.GetPackageName()}, CreateArgument: arg}
			if i+1 < len(roots) {
				if next := nodes[roots[i+1]]; next != nil && next.GetExercise() != nil && next.GetExercise().GetContractId() == c.GetContractId() {
					x := next.GetExercise()
					cmd.Kind = generic.CreateAndExercise
					cmd.Choice = x.GetChoiceId()
					if cmd.ChoiceArgument, err = nodeValue(roots[i+1], "chosen value", x.GetChosenValue()); err != nil {
						return nil, err
					}
					i++
				}
			}
			cmds = append(cmds, cmd)
		case *damlpb.Node_Exercise:
			x := t.Exercise
			if err := preprocess.CheckName(x.GetChoiceId()); err != nil {
				return nil, nonConforming("node %s: choice %v", roots[i], err)
			}
			arg, err := nodeValue(roots[i], "chosen value", x.GetChosenValue())
			if err != nil {
				return nil, err
			}
			cmds = append(cmds, generic.Command{Kind: generic.Exercise, TemplateRef: identifierString(x.GetTemplateId()),
				ContractID: x.GetContractId(), Choice: x.GetChoiceId(), ChoiceArgument: arg})
		default:
			return nil, nonConforming("root %s is neither a create nor an exercise node", roots[i])
		}
	}
	if len(cmds) == 0 {
		return nil, nonConforming("the transaction has no root nodes")
	}
	for i := range cmds {
		c := &cmds[i]
		if c.Kind != generic.Create && c.ChoiceArgument == nil {
			return nil, nonConforming("an exercise node has no chosen value")
		}
		if err := canonicalCommand(set, c); err != nil {
			return nil, err
		}
	}
	return cmds, nil
}

// nodeValue reads a value of a root node as it is written; nil stays nil.
func nodeValue(node, what string, v *damlpb.Value) (value.Value, error) {
	if v == nil {
		return nil, nil
	}
	out, err := typed.FromProtoAsIs(v)
	if err != nil {
		return nil, nonConforming("node %s: the %s is not a value this node writes: %v", node, what, err)
	}
	return out, nil
}

// canonicalCommand replaces the arguments of a command on a typed template
// by the values prepare makes of them, refusing a value that is not of its
// type; build then makes the transaction prepare would have made.
func canonicalCommand(set *PackageSet, c *generic.Command) error {
	if c.Kind != generic.Exercise {
		arg, err := canonicalArgument(set, c.Template.ID, "", c.CreateArgument)
		if err != nil {
			return nonConforming("the create argument of %s is not of its type: %v", c.Template.ID, err)
		}
		c.CreateArgument = arg
	}
	if c.Kind == generic.Create {
		return nil
	}
	tmplID := c.Template.ID
	if c.Kind == generic.Exercise {
		id, err := parseIdentifier(c.TemplateRef)
		if err != nil {
			return nonConforming("exercise template: %v", err)
		}
		tmplID = id
	}
	arg, err := canonicalArgument(set, tmplID, c.Choice, c.ChoiceArgument)
	if err != nil {
		return nonConforming("the argument of choice %s is not of its type: %v", c.Choice, err)
	}
	c.ChoiceArgument = arg
	return nil
}

// packageNameFits reports whether prepare could have paired this package
// name with this package id.
func (e *Engine) packageNameFits(set *PackageSet, pkgID, name string) bool {
	if n, ok := set.Name(pkgID); ok {
		return n == name
	}
	if n, ok := e.cfg.PackageNames[pkgID]; ok {
		return n == name
	}
	return name == pkgID || generic.PackageIDForName(name) == pkgID
}

// firstTxDifference names the first place where got differs from want.
func firstTxDifference(want, got *damlpb.DamlTransaction) string {
	if proto.Equal(want, got) {
		return ""
	}
	if fmt.Sprint(want.GetRoots()) != fmt.Sprint(got.GetRoots()) {
		return fmt.Sprintf("its roots are %v; the contract model makes %v", got.GetRoots(), want.GetRoots())
	}
	if len(want.GetNodes()) != len(got.GetNodes()) {
		return fmt.Sprintf("it has %d nodes; the contract model makes %d", len(got.GetNodes()), len(want.GetNodes()))
	}
	for i := range want.GetNodes() {
		if !proto.Equal(want.GetNodes()[i], got.GetNodes()[i]) {
			return fmt.Sprintf("node %s is not the node the contract model makes from its command (signatories must be act_as, stakeholders act_as and the parties in the argument, contract ids derived from the node seeds, exercises with no children and a unit result, consuming unless the node is configured otherwise)", got.GetNodes()[i].GetNodeId())
		}
	}
	wantSeeds := append([]*damlpb.DamlTransaction_NodeSeed(nil), want.GetNodeSeeds()...)
	gotSeeds := append([]*damlpb.DamlTransaction_NodeSeed(nil), got.GetNodeSeeds()...)
	sort.Slice(gotSeeds, func(i, j int) bool { return gotSeeds[i].GetNodeId() < gotSeeds[j].GetNodeId() })
	if len(wantSeeds) != len(gotSeeds) {
		return "its node seeds do not match its nodes"
	}
	for i := range wantSeeds {
		if !proto.Equal(wantSeeds[i], gotSeeds[i]) {
			return "its node seeds do not match its nodes"
		}
	}
	return ""
}

func nonConforming(format string, args ...any) error {
	return failedToExecute("the prepared transaction does not follow this node's contract model: "+format, args...)
}
