package wallet

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ledger-cli/ledger/daml/lf"
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
	// Difference is the first place where the prepared transaction is not
	// what the code makes; nil when it is exactly that.
	Difference *Difference
}

// Matches reports whether the transaction is exactly what its code makes.
func (r *Reinterpretation) Matches() bool { return r != nil && r.Difference == nil }

// Difference is where a prepared transaction departs from what its Daml
// code makes.
type Difference struct {
	// Node is the node's id; "" when the difference is in the metadata (an
	// input contract, the ledger-time bounds, the seeds).
	Node string
	// What describes the node ("create Splice.AmuletTransferInstruction:
	// AmuletTransferInstruction") or the metadata part.
	What string
	// Field is the path to the field, record labels joined by dots
	// ("transfer.receiver"); "" when the whole is different.
	Field string
	// Prepared and Reinterpreted are the two sides, as text; Reason stands
	// for both when there are no two values to show.
	Prepared, Reinterpreted string
	Reason                  string
}

// String says the difference as a custodian reads it: "node 17, create
// …: transfer.receiver is A in the transaction, B when the Daml code runs".
func (d *Difference) String() string {
	var b strings.Builder
	if d.Node != "" {
		fmt.Fprintf(&b, "node %s, ", d.Node)
	}
	b.WriteString(d.What)
	if d.Field != "" || d.Prepared != "" || d.Reinterpreted != "" || d.Reason != "" {
		b.WriteString(": ")
	}
	if d.Field != "" {
		b.WriteString(d.Field + " ")
	}
	if d.Reason != "" {
		b.WriteString(d.Reason)
		return b.String()
	}
	if d.Prepared != "" || d.Reinterpreted != "" {
		fmt.Fprintf(&b, "is %s in the transaction, %s when the Daml code runs", orNothing(d.Prepared), orNothing(d.Reinterpreted))
	}
	return b.String()
}

func orNothing(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

// NotDamlCodeError is the refusal of a transaction that is not what its
// Daml code makes, or whose input contracts do not authenticate.
type NotDamlCodeError struct {
	Source     string
	Difference *Difference
}

func (e *NotDamlCodeError) Error() string {
	return fmt.Sprintf("%s is not what its Daml code makes: %s", e.Source, e.Difference)
}

// errUnavailable stands where daml/engine's re-interpretation goes: until
// then, nothing claims a match.
var errUnavailable = errors.New("re-running the Daml code offline is not available in this build")

// Reinterpret re-runs pt's Daml code with the packages ps holds. Missing
// packages are a *MissingPackagesError, a package that is not what its id
// says a *PackageError; a transaction that is not what its code makes is
// not an error: the outcome's Difference says where.
func Reinterpret(ctx context.Context, pt *damlpb.PreparedTransaction, ps *Packages) (*Reinterpretation, error) {
	pkgs, err := ps.For(pt)
	if err != nil {
		return nil, err
	}
	r := &Reinterpretation{Code: codeName(pt, pkgs), Packages: pkgs}
	d, err := runDamlCode(ctx, pt, pkgs)
	if err != nil {
		return nil, err
	}
	r.Difference = d
	return r, nil
}

func runDamlCode(ctx context.Context, pt *damlpb.PreparedTransaction, pkgs []*lf.Package) (*Difference, error) {
	return nil, errUnavailable
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
	out := &review.Reinterpreted{Code: r.Code, Matches: r.Matches()}
	if r.Difference != nil {
		out.Difference = r.Difference.String()
	}
	return out
}
