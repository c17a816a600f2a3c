package engine

import (
	"context"
	"errors"
	"github.com/ledger-cli/ledger/daml/contract"
	damlengine "github.com/ledger-cli/ledger/daml/engine"
	"time"

	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// Execute re-interprets a prepared transaction whose templates are those
// of uploaded packages, as Canton's model conformance check does
// (ModelConformanceChecker.reInterpret): the commands are read back from
// the root nodes (a create node is a create command, an exercise node an
// exercise command with its chosen value), the roots keep the seeds the
// transaction gives them, the preparation time is the metadata's, and the
// interpreter may read the metadata's input contracts only, given as
// disclosed contracts (ReplayContractLookup). The transaction it makes must
// be the prepared one, node for node and byte for byte, with the same input
// contracts and ledger-time bounds; otherwise execute refuses it, even when
// the signatures are valid for the changed bytes.

// interpretedTransaction reports whether the roots of a prepared
// transaction name templates of uploaded packages (re-interpreted) or of
// packages never uploaded (the generic contract model); a mix is refused.
func (e *Engine) interpretedTransaction(t *damlpb.DamlTransaction) (bool, error) {
	set := e.cfg.Packages()
	nodes := map[string]*damlpb.Node{}
	for _, n := range t.GetNodes() {
		nodes[n.GetNodeId()] = n.GetV1()
	}
	typedRoots := 0
	for _, r := range t.GetRoots() {
		var id *damlpb.Identifier
		switch n := nodes[r]; {
		case n.GetCreate() != nil:
			id = n.GetCreate().GetTemplateId()
		case n.GetExercise() != nil:
			id = n.GetExercise().GetTemplateId()
		default:
			continue
		}
		if _, ok := set.Name(id.GetPackageId()); ok {
			typedRoots++
		}
	}
	if typedRoots > 0 && typedRoots < len(t.GetRoots()) {
		return false, nonConforming("its roots mix templates of uploaded packages with templates of packages never uploaded")
	}
	return typedRoots > 0, nil
}

// clampLedgerTime is damlengine.ClampLedgerTime.
var clampLedgerTime = damlengine.ClampLedgerTime

// notConformant is execute's refusal of a prepared transaction its Daml
// code does not make. Canton finds this in the confirmation protocol
// (LOCAL_VERDICT_FAILED_MODEL_CONFORMANCE_CHECK, a security alert whose
// details clients do not see); this node, its own confirmer, refuses at
// execute with FAILED_TO_EXECUTE_TRANSACTION and says what differs.
func notConformant(format string, args ...any) error {
	return failedToExecute("the prepared transaction failed the model conformance check: "+format, args...)
}

// reinterpret is execute's model conformance check of an interpreted
// transaction (damlengine.Reinterpret over the input contracts the store
// holds or their blobs give); it returns what to commit.
func (e *Engine) reinterpret(ctx context.Context, pt *damlpb.PreparedTransaction, actAs []string, ledgerTime time.Time) (*built, error) {
	md, t := pt.GetMetadata(), pt.GetTransaction()
	switch {
	case md.GetMediatorGroup() != 0:
		return nil, notConformant("mediator group %d is not 0", md.GetMediatorGroup())
	case len(md.GetGlobalKeyMapping()) > 0:
		// Deprecated: Canton 3.5's prepare leaves it empty.
		return nil, notConformant("global_key_mapping is not empty; Canton 3.5 leaves it empty")
	}
	seen := map[string]bool{}
	for _, n := range t.GetNodes() {
		if seen[n.GetNodeId()] {
			return nil, notConformant("node %s appears twice", n.GetNodeId())
		}
		seen[n.GetNodeId()] = true
	}
	set := e.cfg.Packages()
	inputs, foreign, err := e.storedInputs(ctx, md.GetInputContracts(), actAs)
	if err != nil {
		return nil, err
	}
	view, disclosed, err := e.viewFor(damlRun{set: set, inputs: inputs})
	if err != nil {
		return nil, err
	}
	r, err := damlengine.Reinterpret(ctx, pt, damlengine.Reinterpretation{
		Packages: set, Inputs: disclosed, Contracts: view, LedgerTime: ledgerTime, Limits: e.cfg.Interpretation,
	})
	var ie *interp.Error
	switch {
	case errors.As(err, &ie) && ie.ID != ledgerapi.CodeLedgerAPIInternalError.ID:
		return nil, notConformant("re-interpreting its root commands fails with %s: %s", ie.ID, ie.Cause)
	case err != nil && view.err != nil:
		return nil, view.err
	case err != nil:
		return nil, damlError(err)
	case r.Difference != nil:
		return nil, notConformant("%s", r.Difference.Reason())
	}
	b, err := e.builtOf(r.Result, view.read, set, true)
	if err != nil {
		return nil, err
	}
	b.used = foreign.held(b.used)
	if err := e.checkCommittable(ctx, actAs, b, foreign.Foreign()...); err != nil {
		return nil, err
	}
	return b, nil
}

// storedInputs finds the input contracts of a prepared transaction in the
// store: each must be active, authentic (authenticInput) and be exactly
// the stored contract (its create node and creation time). This node cannot authenticate a contract it
// does not hold (its contract ids carry no suffix), so it uses none.
func (e *Engine) storedInputs(ctx context.Context, ics []*damlpb.Metadata_InputContract, actAs []string) ([]*ledger.Contract, *disclosedSet, error) {
	out := make([]*ledger.Contract, 0, len(ics))
	seen := map[string]bool{}
	foreign := &disclosedSet{}
	for _, ic := range ics {
		cid := ic.GetV1().GetContractId()
		if seen[cid] {
			return nil, nil, notConformant("input contract %s is listed twice", cid)
		}
		seen[cid] = true
		stored, err := e.authenticInput(ctx, ic, actAs)
		if err != nil {
			return nil, nil, err
		}
		if stored == nil {
			// A contract of another participant, authenticated: used as
			// its blob describes it (as a disclosed contract at prepare).
			lc, stakeholders, err := e.foreignInput(ctx, ic)
			if err != nil {
				return nil, nil, err
			}
			foreign.notHeld = append(foreign.notHeld, cid)
			foreign.foreign = append(foreign.foreign, stakeholders...)
			stored = lc
		}
		if !stored.Active() {
			return nil, nil, ContractNotActive(cid)
		}
		want, err := e.inputContract(stored)
		if err != nil {
			return nil, nil, err
		}
		if !sameInputContract(ic, want) {
			return nil, nil, notConformant("input contract %s is not the contract this node stores under that id", cid)
		}
		out = append(out, stored)
	}
	return out, foreign, nil
}

// foreignInput reads an authenticated input contract the node does not
// hold: none of the node's parties may be among its stakeholders (this
// node would hold it).
func (e *Engine) foreignInput(ctx context.Context, ic *damlpb.Metadata_InputContract) (*ledger.Contract, []string, error) {
	c, err := contract.DecodeBlob(ic.GetEventBlob())
	if err != nil {
		return nil, nil, err
	}
	for _, p := range c.Stakeholders {
		known, err := e.parties.IsKnownParty(ctx, p)
		if err != nil {
			return nil, nil, err
		}
		if known {
			return nil, nil, ContractNotActive(string(c.ID))
		}
	}
	lc, err := e.ledgerContractOf(c, nil)
	if err != nil {
		return nil, nil, notConformant("input contract %s: %v", c.ID, err)
	}
	return lc, c.Stakeholders, nil
}
