package engine

import (
	"sort"
	"strings"

	"github.com/ledger-cli/ledger/proto/damlpb"
)

// checkInputContracts requires the metadata's input contracts to be exactly
// the contracts the transaction uses and does not create, as Canton's
// PreparedTransactionDecoder does before anything else is checked
// ("Missing input contracts: …", "Superfluous input contracts: …").
func checkInputContracts(tx *damlpb.DamlTransaction, md *damlpb.Metadata) error {
	created := map[string]bool{}
	used := map[string]bool{}
	for _, n := range tx.GetNodes() {
		v := n.GetV1()
		switch {
		case v.GetCreate() != nil:
			created[v.GetCreate().GetContractId()] = true
		case v.GetFetch() != nil:
			used[v.GetFetch().GetContractId()] = true
		case v.GetExercise() != nil:
			used[v.GetExercise().GetContractId()] = true
		case v.GetQueryByKey() != nil:
			for _, cid := range v.GetQueryByKey().GetResult() {
				used[cid] = true
			}
		}
	}
	listed := map[string]bool{}
	for _, ic := range md.GetInputContracts() {
		listed[ic.GetV1().GetContractId()] = true
	}
	var missing, superfluous []string
	for cid := range used {
		if !created[cid] && !listed[cid] {
			missing = append(missing, cid)
		}
	}
	for cid := range listed {
		if !used[cid] || created[cid] {
			superfluous = append(superfluous, cid)
		}
	}
	sort.Strings(missing)
	sort.Strings(superfluous)
	switch {
	case len(missing) > 0:
		return failedToExecute("Missing input contracts: %s", strings.Join(missing, ","))
	case len(superfluous) > 0:
		return failedToExecute("Superfluous input contracts: %s", strings.Join(superfluous, ","))
	}
	return nil
}

// checkPreparedSynchronizer reads a prepared transaction's synchronizer id
// as Canton's execute does: a logical id (name::namespace) or else a
// physical one (name::namespace::pv-serial); what is neither is refused
// with the physical parser's words, which Canton reports last.
func checkPreparedSynchronizer(s string) error {
	if n := strings.Count(s, "::"); n == 0 || n > 2 {
		return invalidField("synchronizer_id", "Unable to convert field `synchronizer_id`: Unable to parse `%s` as physical synchronizer id", clip(s))
	}
	return nil
}
