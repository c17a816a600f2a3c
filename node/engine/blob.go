package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ledger-cli/ledger/daml/contract"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/ledger"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// Created event blobs and their authentication.
//
// A createdEventBlob is Canton's FatContractInstance (daml/contract): the
// contract's id, package, template, argument as stored, parties, creation
// time and authentication data (its salt). A contract's suffixed id
// commits to all of that through its unicum, under a salt only those who
// were given the blob ever see; so a blob the node is handed — a
// disclosed contract, an input contract of a prepared transaction — is
// authenticated against its id (contract.Authenticate) before anything
// else is done with it, and only the authenticated content is used. The
// answer to a blob that does not authenticate is the same whether or not
// the node holds the contract, and names nothing but what the submitter
// sent: a party that cannot see a contract learns nothing by guessing it.
//
// Contracts stored before schema version 8 have ids without a suffix,
// which authenticate nothing: their blobs are taken only from a submission
// with a stakeholder of the contract among its parties, and only when they
// describe the stored contract exactly.

// CreatedEventBlob is the createdEventBlob of a contract, which a client
// passes back in disclosedContracts: Canton's FatContractInstance.
func (e *Engine) CreatedEventBlob(c *ledger.Contract) ([]byte, error) {
	cc, err := cantonContractOf(c, time.Time{})
	if err != nil {
		return nil, err
	}
	return contract.EncodeBlob(cc)
}

// inputContract is the metadata entry of a contract the transaction uses:
// its create node, creation time and blob.
func (e *Engine) inputContract(c *ledger.Contract) (*damlpb.Metadata_InputContract, error) {
	create, err := createNodeOf(c)
	if err != nil {
		return nil, err
	}
	blob, err := e.CreatedEventBlob(c)
	if err != nil {
		return nil, err
	}
	return &damlpb.Metadata_InputContract{
		Contract:  &damlpb.Metadata_InputContract_V1{V1: create},
		CreatedAt: uint64(c.CreatedAt.UnixMicro()),
		EventBlob: blob,
	}, nil
}

// isViewer reports whether a submitting party is a stakeholder of c.
func isViewer(c *ledger.Contract, actAs, readAs []string) bool {
	for _, p := range c.Stakeholders {
		if slices.Contains(actAs, p) || slices.Contains(readAs, p) {
			return true
		}
	}
	return false
}

// authenticate checks a decoded blob c against its contract id
// (contract.Authenticate), typing its argument by its creating package
// when that package was uploaded. stored is the contract the node holds
// under that id (nil when none): it is consulted only for an id without a
// suffix (a contract stored before schema version 8), and only for a
// submission with a stakeholder among actAs and readAs. what names the
// blob in the error ("disclosed contract", "input contract").
func (e *Engine) authenticate(c *contract.Contract, blob []byte, stored *ledger.Contract, actAs, readAs []string, what string) error {
	id, err := contract.ParseID(c.ID)
	if err != nil {
		return disclosedAuthenticationFailed("%s %s: %v", what, c.ID, err)
	}
	if id.IsLocal() {
		if stored != nil && stored.Salt == nil && isViewer(stored, actAs, readAs) {
			want, err := e.CreatedEventBlob(stored)
			if err != nil {
				return err
			}
			if bytes.Equal(want, blob) {
				return nil
			}
		}
		return disclosedAuthenticationFailed("%s %s: its contract id has no suffix to authenticate it by; "+
			"only a stakeholder may send a contract created before this node made Canton's contract ids, exactly as the ledger API gave it", what, c.ID)
	}
	if err := contract.Authenticate(c, e.typesOf(c), lf.PackageID(c.TemplateID.PackageID)); err != nil {
		var ae *contract.AuthenticationError
		if errors.As(err, &ae) {
			return disclosedAuthenticationFailed("%s %s: %s", what, c.ID, ae.Reason)
		}
		return disclosedAuthenticationFailed("%s %s: %v", what, c.ID, err)
	}
	return nil
}

// typesOf returns the types of the uploaded packages when c's creating
// package is one of them, else nil.
func (e *Engine) typesOf(c *contract.Contract) *typed.Env {
	if set := e.cfg.Packages(); set != nil && set.Env != nil && set.Env.Package(lf.PackageID(c.TemplateID.PackageID)) != nil {
		return set.Env
	}
	return nil
}

// ledgerContractOf is an authenticated contract as the engine uses it:
// its argument and key in the engine's encoding, the argument typed by its
// creating package when that was uploaded (as the node stores the
// contracts it creates), else untyped as stored. The offsets of stored
// (the contract under that id here, or nil) say whether it is still
// active.
func (e *Engine) ledgerContractOf(c *contract.Contract, stored *ledger.Contract) (*ledger.Contract, error) {
	arg := c.Argument
	if types := e.typesOf(c); types != nil {
		typedArg, err := contract.Translate(types, conOfIdentifier(&c.TemplateID), c.Argument)
		if err != nil {
			return nil, fmt.Errorf("contract %s: %w", c.ID, err)
		}
		arg = typedArg
	}
	argBytes, err := MarshalTypedValue(arg)
	if err != nil {
		return nil, fmt.Errorf("contract %s: %w", c.ID, err)
	}
	out := &ledger.Contract{
		ContractID:   string(c.ID),
		TemplateID:   c.TemplateID.PackageID + ":" + c.TemplateID.ModuleName + ":" + c.TemplateID.EntityName,
		PackageName:  c.PackageName,
		Argument:     argBytes,
		Signatories:  c.Signatories,
		Stakeholders: c.Stakeholders,
		CreatedAt:    time.UnixMicro(int64(c.CreatedAt)).UTC(),
	}
	if salt, err := contract.ParseAuthenticationDataV1(c.AuthenticationData); err == nil {
		out.Salt = salt[:]
	}
	if c.Key != nil {
		kv, err := typed.ToProto(c.Key.Value)
		if err != nil {
			return nil, fmt.Errorf("contract %s: key: %w", c.ID, err)
		}
		k := &damlpb.GlobalKeyWithMaintainers{
			Key: &damlpb.GlobalKey{
				TemplateId:  protoIdentifier(&c.TemplateID),
				PackageName: c.PackageName,
				Key:         kv,
				Hash:        append([]byte(nil), c.Key.Hash[:]...),
			},
			Maintainers: c.Key.Maintainers,
		}
		if out.KeyHash, out.Key, err = storedKey(k); err != nil {
			return nil, err
		}
	}
	if stored != nil {
		out.CreatedOffset, out.ArchivedOffset = stored.CreatedOffset, stored.ArchivedOffset
		out.NodeID, out.WorkflowID, out.Seq = stored.NodeID, stored.WorkflowID, stored.Seq
	}
	return out, nil
}

// authenticInput checks an input contract of a prepared transaction to
// execute and returns the contract the node holds under its id (nil when
// none): its blob must authenticate against its id (authenticate) before
// the store is asked — a contract id with a suffix needs nothing of the
// store to be authenticated, so the answer is the same whether or not the
// node holds it. Only then may the input contract be compared with the
// stored contract, whose content its id commits to.
func (e *Engine) authenticInput(ctx context.Context, ic *damlpb.Metadata_InputContract, actAs []string) (*ledger.Contract, error) {
	cid := ic.GetV1().GetContractId()
	c, err := contract.DecodeBlob(ic.GetEventBlob())
	if err != nil {
		return nil, disclosedAuthenticationFailed("input contract %s: its event blob does not decode: %v", cid, err)
	}
	if string(c.ID) != cid {
		return nil, disclosedAuthenticationFailed("input contract %s: its event blob holds contract %s", cid, c.ID)
	}
	id, parseErr := contract.ParseID(c.ID)
	suffixed := parseErr == nil && !id.IsLocal()
	if suffixed {
		if err := e.authenticate(c, ic.GetEventBlob(), nil, actAs, nil, "input contract"); err != nil {
			return nil, err
		}
	}
	stored, err := e.contracts.LookupContract(ctx, cid)
	if err != nil {
		return nil, err
	}
	if !suffixed {
		if err := e.authenticate(c, ic.GetEventBlob(), stored, actAs, nil, "input contract"); err != nil {
			return nil, err
		}
	}
	return stored, nil
}

// CodeDisclosedContractAuthenticationFailed is Canton's error for a
// disclosed contract that does not authenticate against its contract id
// (TransactionRoutingError.ConfigurationErrors).
var CodeDisclosedContractAuthenticationFailed = ledgerapi.ErrorCode{ID: "DISCLOSED_CONTRACT_AUTHENTICATION_FAILED", Category: 8}

func disclosedAuthenticationFailed(format string, args ...any) *ledgerapi.JsCantonError {
	return ledgerapi.Errorf(CodeDisclosedContractAuthenticationFailed, "Disclosed contract authentication failed: "+format, args...)
}
