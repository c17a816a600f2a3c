package engine

import (
	"github.com/ledger-cli/ledger/daml/engine/preprocess"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/generic"
)

// Canton error codes the engine raises that ledgerapi does not list.
var (
	// CodeFailedToPrepareTransaction: prepare refused the commands (several
	// commands, a shape execute would refuse).
	CodeFailedToPrepareTransaction = ledgerapi.ErrorCode{ID: "FAILED_TO_PREPARE_TRANSACTION", Category: 8}
	// CodeFailedToExecuteTransaction: execute refused the prepared
	// transaction or its signatures (Canton 3.5 answers signature problems
	// found by the executing participant with this id).
	CodeFailedToExecuteTransaction = ledgerapi.ErrorCode{ID: "FAILED_TO_EXECUTE_TRANSACTION", Category: 8}
	// CodeInvalidPrescribedSynchronizerID: the request names a synchronizer
	// other than the node's (Canton's routing cannot resolve it).
	CodeInvalidPrescribedSynchronizerID = ledgerapi.ErrorCode{ID: "INVALID_PRESCRIBED_SYNCHRONIZER_ID", Category: 9}
	// CodeUnknownSubmitters: an actAs party is not known to the node.
	CodeUnknownSubmitters = ledgerapi.ErrorCode{ID: "UNKNOWN_SUBMITTERS", Category: 11}
	// CodeUnknownInformees: a prepared transaction names a party the node
	// does not know.
	CodeUnknownInformees = ledgerapi.ErrorCode{ID: "UNKNOWN_INFORMEES", Category: 11}
	// CodeWronglyTypedContract: an exercise names a template other than the
	// contract's.
	CodeWronglyTypedContract = ledgerapi.ErrorCode{ID: "WRONGLY_TYPED_CONTRACT", Category: 9}
)

// The command errors the engine's preprocessing raises too, named as the
// pipeline has always called them.
var (
	missingField        = ledgerapi.MissingCommandField
	invalidField        = ledgerapi.InvalidCommandField
	invalidArgument     = ledgerapi.InvalidCommandArgument
	preprocessingFailed = ledgerapi.PreprocessingFailed
)

func failedToPrepare(format string, args ...any) *ledgerapi.JsCantonError {
	return ledgerapi.Errorf(CodeFailedToPrepareTransaction,
		"The participant failed to prepare the transaction: "+format, args...)
}

func failedToExecute(format string, args ...any) *ledgerapi.JsCantonError {
	return ledgerapi.Errorf(CodeFailedToExecuteTransaction,
		"The participant failed to execute the transaction: "+format, args...)
}

// ContractNotFound is the error for exercising a contract that is unknown,
// archived, or not visible to the submitting parties (Daml's interpreter
// does not tell these apart).
func ContractNotFound(contractID string) *ledgerapi.JsCantonError {
	return ledgerapi.Errorf(ledgerapi.CodeContractNotFound,
		"Contract could not be found with id %s", contractID).WithResource("CONTRACT_ID", contractID)
}

// ContractNotActive is the error for executing a prepared transaction whose
// input contract was archived (or never existed) in the meantime. The
// node answers the store's ledger.ContractNotActiveError with the same
// error.
func ContractNotActive(contractID string) *ledgerapi.JsCantonError {
	return ledgerapi.Errorf(ledgerapi.CodeContractNotActive,
		"Contract %s is not active: it was archived after the transaction was prepared", contractID).
		WithResource("CONTRACT_ID", contractID)
}

// MaxRecordTimeExceeded is the rejection of a prepared transaction that
// arrives after its max_record_time. It is asynchronous in Canton: a
// rejected completion, not an error answer to execute.
func MaxRecordTimeExceeded(maxRecordTime string) *ledgerapi.JsCantonError {
	return ledgerapi.Errorf(ledgerapi.CodeLocalVerdictMaxRecordTimeExceeded,
		"The transaction could not be recorded before its max record time %s", maxRecordTime)
}

// The bounds on the JSON arguments of a request.
const (
	// MaxValueNesting is Daml's limit on nested values
	// (generic.MaxValueNesting).
	MaxValueNesting = generic.MaxValueNesting
	// DefaultMaxValueNodes bounds how many values the JSON arguments of one
	// request may hold in total (preprocess.DefaultMaxValueNodes).
	DefaultMaxValueNodes = preprocess.DefaultMaxValueNodes
)
