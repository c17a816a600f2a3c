package contract

import (
	"errors"
	"fmt"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/value"
)

// Suffixer gives the contracts a transaction creates their suffixed ids
// at commit, in the order they were created, and rewrites the local ids
// in values to the suffixed ones (Canton's ContractIdSuffixer with the
// argument substitution of LegacyTransactionTreeFactory). It is not safe
// for concurrent use.
type Suffixer struct {
	version Version
	types   *typed.Env
	ids     map[value.ContractID]value.ContractID
}

// NewSuffixer returns a suffixer making ids of version v (Canton 3.4 and
// 3.5 make V12). For V12 the contract hash needs the arguments' types:
// types gives them, or, when nil, the arguments passed to Suffix must be
// typed (records with type constructors and labels, variants and enums
// with ranks), as the interpreter builds them.
func NewSuffixer(v Version, types *typed.Env) *Suffixer {
	return &Suffixer{version: v, types: types, ids: map[value.ContractID]value.ContractID{}}
}

// Suffix returns the contract c as committed: its argument with every local
// id rewritten to its suffixed id and normalized as Canton stores it, its
// id suffixed with the unicum of salt, c.CreatedAt, its parties and key
// and its contract hash, and its authentication data. c.ID must be local
// and c.CreatedAt a real time; later calls to Rewrite and Suffix replace
// c.ID by the suffixed id.
func (s *Suffixer) Suffix(c *Contract, salt Salt) (*Contract, error) {
	id, err := ParseID(c.ID)
	if err != nil {
		return nil, err
	}
	if !id.IsLocal() {
		return nil, fmt.Errorf("contract %s already has a suffix", c.ID)
	}
	if _, done := s.ids[c.ID]; done {
		return nil, fmt.Errorf("contract %s was suffixed before", c.ID)
	}
	if c.CreatedAt == CreatedAtNow {
		return nil, fmt.Errorf("contract %s: invalid creation time Now for a suffixed contract id", c.ID)
	}
	arg, err := s.Rewrite(c.Argument)
	if err != nil {
		return nil, fmt.Errorf("contract %s: %w", c.ID, err)
	}
	out := *c
	out.Argument = Normalize(arg)
	var h Hash
	switch m := s.version.Method(); {
	case m != TypedNormalForm:
		h, err = HashUntyped(m, c.PackageName, c.TemplateID, out.Argument)
	case s.types != nil:
		h, err = ContractHash(&out, m, s.types, lf.PackageID(c.TemplateID.PackageID))
	default:
		h, err = HashTyped(c.PackageName, c.TemplateID.ModuleName, c.TemplateID.EntityName, arg)
	}
	if err != nil {
		return nil, fmt.Errorf("contract %s: hashing: %w", c.ID, err)
	}
	suffixed := id.Suffixed(s.version, ComputeUnicum(salt, c.CreatedAt, c.Metadata(), h)).ContractID()
	s.ids[c.ID] = suffixed
	out.ID = suffixed
	out.AuthenticationData = AuthenticationDataV1(salt)
	return &out, nil
}

// Lookup returns the suffixed id of a local id suffixed before.
func (s *Suffixer) Lookup(local value.ContractID) (value.ContractID, bool) {
	c, ok := s.ids[local]
	return c, ok
}

// ErrUnknownLocalID is returned by Rewrite for a local id the suffixer has
// not suffixed: a contract created later in the transaction, or never.
var ErrUnknownLocalID = errors.New("local contract id has no suffix yet")

// Rewrite returns v with every local contract id replaced by its suffixed
// id. Suffixed ids are kept; a local id not suffixed before is an error.
// Type constructors, labels, ranks and map order are kept.
func (s *Suffixer) Rewrite(v value.Value) (value.Value, error) {
	return s.rewrite(v, 0)
}

func (s *Suffixer) rewrite(v value.Value, depth int) (value.Value, error) {
	if depth > maxNesting {
		return nil, ErrNesting
	}
	switch x := v.(type) {
	case value.ContractID:
		if !x.IsLocal() {
			return x, nil
		}
		if c, ok := s.ids[x]; ok {
			return c, nil
		}
		return nil, fmt.Errorf("%w: %s", ErrUnknownLocalID, x)
	case value.Optional:
		if x.Value == nil {
			return x, nil
		}
		inner, err := s.rewrite(x.Value, depth+1)
		return value.Some(inner), err
	case *value.List:
		out := make([]value.Value, 0, x.Len())
		for el := range x.All() {
			r, err := s.rewrite(el, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		return value.NewList(out...), nil
	case *value.TextMap:
		out := make([]value.TextMapEntry, 0, x.Len())
		for _, en := range x.Entries() {
			r, err := s.rewrite(en.Value, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, value.TextMapEntry{Key: en.Key, Value: r})
		}
		return value.NewTextMap(out)
	case *value.GenMap:
		// A local id and its suffixed id share the discriminator, so
		// rewriting keys keeps their order.
		out := make([]value.GenMapEntry, 0, x.Len())
		for _, en := range x.Entries() {
			k, err := s.rewrite(en.Key, depth+1)
			if err != nil {
				return nil, err
			}
			r, err := s.rewrite(en.Value, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, value.GenMapEntry{Key: k, Value: r})
		}
		return value.GenMapInOrder(out), nil
	case *value.Record:
		out := make([]value.Field, len(x.Fields))
		for i, f := range x.Fields {
			r, err := s.rewrite(f.Value, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = value.Field{Label: f.Label, Value: r}
		}
		return &value.Record{TypeCon: x.TypeCon, Fields: out}, nil
	case *value.Variant:
		r, err := s.rewrite(x.Value, depth+1)
		if err != nil {
			return nil, err
		}
		return &value.Variant{TypeCon: x.TypeCon, Constructor: x.Constructor, Rank: x.Rank, Value: r}, nil
	}
	return v, nil
}
