package script

import (
	"context"
	"sync"
	"testing"

	"github.com/ledger-cli/ledger/daml/value"
)

// fuzzValue builds a value from fuzz bytes: records, lists, variants,
// optionals and scalars nested up to depth, with the labels daml-script
// payloads use, so that the command decoders meet both plausible and
// malformed payloads.
func fuzzValue(b []byte, depth int) (value.Value, []byte) {
	if len(b) == 0 {
		// The interpreter never builds a nil value.
		return value.Unit{}, b
	}
	labels := []string{"submissions", "sActAs", "hd", "tl", "sReadAs", "sDisclosures", "sCommands", "command", "argC",
		"tplId", "cId", "argE", "parties", "cid", "time", "exc", "act", "idHint", "requestedName", "userId", "rights",
		"user", "primaryParty", "name", "interfaceId", "key", "sErrorBehaviour", "sPackagePreference", "sLocation",
		"packages", "darName", "version"}
	tag, b := b[0], b[1:]
	if depth <= 0 {
		tag %= 5
	}
	switch tag % 10 {
	case 0:
		return value.Unit{}, b
	case 1:
		return value.Text("t"), b
	case 2:
		return value.Party("alice::1220ab"), b
	case 3:
		return value.Int64(int64(tag)), b
	case 4:
		return value.ContractID("00ab"), b
	case 5:
		var fs []value.Field
		for len(b) > 0 && b[0]%4 != 0 && len(fs) < 4 {
			label := labels[int(b[0])%len(labels)]
			var v value.Value
			v, b = fuzzValue(b[1:], depth-1)
			fs = append(fs, value.Field{Label: label, Value: v})
		}
		if len(b) > 0 {
			b = b[1:]
		}
		return &value.Record{Fields: fs}, b
	case 6:
		var es []value.Value
		for len(b) > 0 && b[0]%4 != 0 && len(es) < 4 {
			var v value.Value
			v, b = fuzzValue(b[1:], depth-1)
			es = append(es, v)
		}
		if len(b) > 0 {
			b = b[1:]
		}
		return value.NewList(es...), b
	case 7:
		cons := []string{"Create", "Exercise", "ExerciseByKey", "CreateAndExercise", "Left", "Right", "CanActAs", "ParticipantAdmin"}
		v, rest := fuzzValue(b, depth-1)
		return &value.Variant{Constructor: cons[int(tag)%len(cons)], Value: v}, rest
	case 8:
		v, rest := fuzzValue(b, depth-1)
		return value.Optional{Value: v}, rest
	default:
		return &value.Enum{Constructor: []string{"MustSucceed", "MustFail", "Try"}[int(tag)%3]}, b
	}
}

var fuzzRunner struct {
	once sync.Once
	r    *Runner
}

// FuzzCommandPayload performs every command on payloads built from fuzz
// input: the runner answers or fails, never panics.
func FuzzCommandPayload(f *testing.F) {
	f.Add([]byte{5, 1, 5, 2, 2, 0, 0})
	f.Add([]byte{15, 14, 6, 1, 25, 2, 0, 0})
	f.Add([]byte{5, 13, 7, 5, 9, 16, 0, 0})
	commands := []string{"Submit", "QueryACS", "QueryContractId", "QueryInterface", "QueryInterfaceContractId",
		"QueryContractKey", "AllocateParty", "ListKnownParties", "GetTime", "SetTime", "Sleep", "Throw",
		"ValidateUserId", "CreateUser", "GetUser", "DeleteUser", "ListAllUsers", "GrantUserRights",
		"RevokeUserRights", "ListUserRights", "ListAllPackages", "ListVettedPackages", "VetPackages",
		"UnvetPackages", "VetDar", "UnvetDar", "NoSuchCommand"}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRunner.once.Do(func() { fuzzRunner.r = newRunner(t, sharedDar(t, "splice-wallet-test-0.1.8.dar")) })
		r := fuzzRunner.r
		if r == nil {
			t.Skip("no runner")
		}
		if len(data) == 0 {
			return
		}
		name := commands[int(data[0])%len(commands)]
		payload, _ := fuzzValue(data[1:], 4)
		l := NewMemoryLedger(r)
		l.AllocateParty(context.Background(), "alice")
		st := &run{r: r, ctx: context.Background(), ledger: l, opts: Options{MaxCommands: 10, MaxSteps: 1_000_000}, res: &Result{}, limits: r.limits}
		// perform, not performSafely: a panic here is a bug to find.
		st.perform(&questionValue{name: name, version: 1, payload: payload})
	})
}
