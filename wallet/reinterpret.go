package wallet

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ledger-cli/ledger/daml/engine"
	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/proto/damlpb"
	"github.com/ledger-cli/ledger/wallet/review"
)

// The hash protects against a node that lies about the hash, not against
// one that lies about the transaction: a dishonest preparing participant
// can hand over any tree with the hash of that tree. So the signer re-runs
// the Daml code (package daml/engine) as Canton's confirming participants
// will: it authenticates every input contract from its blob, reads the
// commands back from the root nodes, runs them as act_as with the roots'
// seeds at the preparation time, compares the result with the prepared
// transaction node by node, field by field, and recomputes the hash over
// what the code made. Only what the code makes is signed.

// Reinterpretation is the outcome of re-running a transaction's Daml code.
type Reinterpretation struct {
	// Code names the packages the transaction names, as a person reads
	// them: "splice-amulet 0.1.14 and 3 more".
	Code string
	// Packages are every package the code ran with: those the transaction
	// names and their dependencies.
	Packages []*lf.Package
	// Named are the packages the transaction names, with where each came
	// from: a package id is its content, but which ids a transaction names
	// is the preparing node's choice.
	Named []review.CodePackage
	// Difference is the first place where the prepared transaction is not
	// what the code makes; nil when it is exactly that.
	Difference *Difference
	// Transaction is the prepared transaction as the code made it (its
	// metadata the prepared one, every part of which was checked), and
	// Hash its hash under the scheme asked for; both only when there is no
	// difference.
	Transaction *damlpb.PreparedTransaction
	Hash        [32]byte
}

// Matches reports whether the transaction is exactly what its code makes.
func (r *Reinterpretation) Matches() bool { return r != nil && r.Difference == nil }

// Difference is where a prepared transaction departs from what its Daml
// code makes, or why its input contracts cannot be used.
type Difference struct {
	// Node is the node's id; "" when the difference is not in a node (an
	// input contract, the ledger-time bounds, the hash).
	Node string
	// Path is the field that differs, into values by record labels
	// ("argument.transfer.receiver"); "" when there is no one field.
	Path string
	// Prepared and Reinterpreted are the two sides, as short texts ("" when
	// a side has nothing there or there are no two sides).
	Prepared, Reinterpreted string

	text string
}

// String says the difference as a custodian reads it: "node 17, create
// Splice.AmuletTransferInstruction:AmuletTransferInstruction:
// argument.transfer.receiver is A in the transaction, B when the Daml code
// runs".
func (d *Difference) String() string { return d.text }

// NotDamlCodeError is the refusal of a transaction that is not what its
// Daml code makes, or whose input contracts do not authenticate.
type NotDamlCodeError struct {
	Source     string
	Difference *Difference
}

func (e *NotDamlCodeError) Error() string {
	return fmt.Sprintf("%s is not what its Daml code makes: %s", e.Source, e.Difference)
}

// Reinterpret re-runs pt's Daml code with the packages ps holds, offline,
// and recomputes the hash under scheme over what the code made. Missing
// packages are a *MissingPackagesError, a package that is not what its id
// says a *PackageError; a transaction that is not what its code makes,
// input contracts that do not authenticate and code that fails are no
// error: the outcome's Difference says what. Code that runs out of its
// budget (interp's default limits) is an error: nothing was decided.
func Reinterpret(ctx context.Context, pt *damlpb.PreparedTransaction, ps *Packages, scheme hashing.Scheme) (*Reinterpretation, error) {
	pkgs, err := ps.For(pt)
	if err != nil {
		return nil, err
	}
	r := &Reinterpretation{Code: codeName(pt, pkgs), Packages: pkgs}
	byID := map[lf.PackageID]*lf.Package{}
	for _, p := range pkgs {
		byID[p.ID] = p
	}
	for _, id := range NamedPackages(pt) {
		p := byID[lf.PackageID(id)]
		r.Named = append(r.Named, review.CodePackage{ID: id, Name: p.Name, Version: p.Version, From: ps.From(p.ID)})
	}
	set := ps.setOf(pkgs)
	inputs, err := engine.InputContracts(pt.GetMetadata(), set)
	var ie *engine.InputContractError
	if errors.As(err, &ie) {
		r.Difference = &Difference{text: ie.Error()}
		return r, nil
	}
	if err != nil {
		return nil, err
	}
	out, err := engine.Reinterpret(ctx, pt, engine.Reinterpretation{Packages: set, Inputs: inputs})
	var fails *interp.Error
	if errors.As(err, &fails) && fails.ID != ledgerapi.CodeLedgerAPIInternalError.ID && fails.ID != interpretationTimeExceeded {
		r.Difference = &Difference{text: "the Daml code of its root nodes fails: " + fails.Error()}
		return r, nil
	}
	if err != nil {
		return nil, fmt.Errorf("re-running the Daml code: %w", err)
	}
	if d := out.Difference; d != nil {
		r.Difference = &Difference{Node: d.NodeID, Path: d.Path, Prepared: d.Prepared, Reinterpreted: d.Reinterpreted, text: d.String()}
		return r, nil
	}
	r.Transaction = &damlpb.PreparedTransaction{Transaction: out.Transaction, Metadata: pt.GetMetadata()}
	if r.Hash, err = hashing.HashMessage(r.Transaction, scheme); err != nil {
		return nil, fmt.Errorf("hashing the re-interpreted transaction: %w", err)
	}
	return r, nil
}

// interpretationTimeExceeded is the interpreter's error id for code that
// ran out of its budget.
const interpretationTimeExceeded = "INTERPRETATION_TIME_EXCEEDED"

// checkHash makes a difference of a re-interpreted transaction whose hash
// is not the one to sign: every field compared equal, so the two encodings
// part somewhere the comparison does not look.
func (r *Reinterpretation) checkHash(signed [32]byte) {
	if r.Matches() && r.Hash != signed {
		r.Difference = &Difference{Path: "hash", Prepared: hashing.Hex(signed), Reinterpreted: hashing.Hex(r.Hash),
			text: fmt.Sprintf("the hash to sign is %s; the transaction the Daml code makes hashes to %s", hashing.Hex(signed), hashing.Hex(r.Hash))}
		r.Transaction = nil
	}
}

// codeName names the packages pt names by name and version, the package
// of its first root first: "splice-amulet 0.1.14 and 3 more".
func codeName(pt *damlpb.PreparedTransaction, pkgs []*lf.Package) string {
	byID := map[string]*lf.Package{}
	for _, p := range pkgs {
		byID[string(p.ID)] = p
	}
	named := NamedPackages(pt)
	first := ""
	for _, n := range pt.GetTransaction().GetNodes() {
		if len(pt.GetTransaction().GetRoots()) > 0 && n.GetNodeId() == pt.GetTransaction().GetRoots()[0] {
			switch x := n.GetV1().GetNodeType().(type) {
			case *damlpb.Node_Create:
				first = x.Create.GetTemplateId().GetPackageId()
			case *damlpb.Node_Exercise:
				first = x.Exercise.GetTemplateId().GetPackageId()
			}
		}
	}
	if byID[first] == nil && len(named) > 0 {
		first = named[0]
	}
	p := byID[first]
	if p == nil {
		return fmt.Sprintf("%d packages", len(named))
	}
	name := p.Name + " " + p.Version
	if len(named) > 1 {
		name += fmt.Sprintf(" and %d more", len(named)-1)
	}
	return name
}

// reviewOf is what the review says of a re-interpretation; nil when there
// was none.
func (r *Reinterpretation) reviewOf() *review.Reinterpreted {
	if r == nil {
		return nil
	}
	out := &review.Reinterpreted{Code: r.Code, Matches: r.Matches(), Packages: r.Named}
	if r.Difference != nil {
		out.Difference = r.Difference.String()
	}
	return out
}

// fromThePreparingNode is the review's warning when code the transaction
// names came in the envelope: the node that prepared the transaction
// chose which packages it names, and sent them.
func (r *Reinterpretation) fromThePreparingNode() string {
	var sent []string
	for _, p := range r.Named {
		if p.From == fromEnvelope {
			sent = append(sent, fmt.Sprintf("%s %s %s", p.Name, p.Version, p.ID))
		}
	}
	if len(sent) == 0 {
		return ""
	}
	return fmt.Sprintf("the Daml code re-run came in the envelope, from the node that prepared the transaction (%s): a package id is its content, "+
		"but whether these are the packages you mean to run — those vetted on the synchronizer — cannot be known offline; "+
		"compare their ids with those you trust, give your own DARs, or pin the ids in the policy's templates", strings.Join(sent, ", "))
}
