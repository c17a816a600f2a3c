package display

import (
	"strings"
	"time"

	"github.com/ledger-cli/ledger/proto/damlpb"
	"github.com/ledger-cli/ledger/wallet/review"
)

const (
	alice = "alice::1220a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	bob   = "bob::1220c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
)

func tmpl(module, entity string) *damlpb.Identifier {
	return &damlpb.Identifier{PackageId: "6d7f0a2b4c1e3d5f7a9b0c8d6e4f2a1b3c5d7e9f0a2b4c6d8e0f1a3b5c7d9e1f", ModuleName: module, EntityName: entity}
}

func text(s string) *damlpb.Value { return &damlpb.Value{Sum: &damlpb.Value_Text{Text: s}} }

func node(id string, n *damlpb.Node) *damlpb.DamlTransaction_Node {
	return &damlpb.DamlTransaction_Node{NodeId: id, VersionedNode: &damlpb.DamlTransaction_Node_V1{V1: n}}
}

func create(cid string, arg *damlpb.Value) *damlpb.Node {
	return &damlpb.Node{NodeType: &damlpb.Node_Create{Create: &damlpb.Create{
		LfVersion: "2.1", ContractId: cid, PackageName: "iou", TemplateId: tmpl("Iou", "Iou"),
		Argument: arg, Signatories: []string{alice}, Stakeholders: []string{alice, bob},
	}}}
}

func transfer(roots []string, nodes ...*damlpb.DamlTransaction_Node) *damlpb.PreparedTransaction {
	mrt := uint64(time.Date(2025, 8, 7, 3, 0, 0, 0, time.UTC).UnixMicro())
	return &damlpb.PreparedTransaction{
		Transaction: &damlpb.DamlTransaction{Version: "2.1", Roots: roots, Nodes: nodes},
		Metadata: &damlpb.Metadata{
			SubmitterInfo:   &damlpb.Metadata_SubmitterInfo{ActAs: []string{alice}, CommandId: "cmd-1"},
			SynchronizerId:  "sync::1220ff",
			TransactionUuid: "a328162e-728e-4e05-ac78-b34f070983ba",
			PreparationTime: uint64(time.Date(2025, 8, 7, 2, 0, 0, 0, time.UTC).UnixMicro()),
			MaxRecordTime:   &mrt,
		},
	}
}

var cidA = "00abcd" + strings.Repeat("0", 56) + "0012"

func containsWarning(r *review.Review, part string) bool {
	for _, w := range r.Warnings {
		if strings.Contains(w, part) {
			return true
		}
	}
	return false
}
