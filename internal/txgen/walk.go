package txgen

import "github.com/ledger-cli/ledger/proto/damlpb"

// WalkValues calls f for every Value a V2 or V3 hash covers in pt, nested
// ones included: create arguments, choice arguments and results, contract
// key values, in transaction nodes and input contracts. Values only in
// global_key_mapping, which no scheme hashes, are skipped.
func WalkValues(pt *damlpb.PreparedTransaction, f func(*damlpb.Value)) {
	walkKey := func(k *damlpb.GlobalKeyWithMaintainers) {
		walkValue(k.GetKey().GetKey(), f)
	}
	walkCreate := func(c *damlpb.Create) {
		walkValue(c.GetArgument(), f)
		walkKey(c.GetKey())
	}
	for _, n := range pt.GetTransaction().GetNodes() {
		v1 := n.GetV1()
		switch {
		case v1.GetCreate() != nil:
			walkCreate(v1.GetCreate())
		case v1.GetFetch() != nil:
			walkKey(v1.GetFetch().GetKey())
		case v1.GetExercise() != nil:
			e := v1.GetExercise()
			walkValue(e.GetChosenValue(), f)
			walkValue(e.GetExerciseResult(), f)
			walkKey(e.GetKey())
		case v1.GetQueryByKey() != nil:
			walkKey(v1.GetQueryByKey().GetKey())
		}
	}
	for _, in := range pt.GetMetadata().GetInputContracts() {
		walkCreate(in.GetV1())
	}
}

func walkValue(v *damlpb.Value, f func(*damlpb.Value)) {
	if v == nil {
		return
	}
	f(v)
	children(v, func(c *damlpb.Value) { walkValue(c, f) })
}

// children calls f for each Value directly inside v.
func children(v *damlpb.Value, f func(*damlpb.Value)) {
	switch s := v.Sum.(type) {
	case *damlpb.Value_Optional:
		if s.Optional.GetValue() != nil {
			f(s.Optional.GetValue())
		}
	case *damlpb.Value_List:
		for _, e := range s.List.GetElements() {
			f(e)
		}
	case *damlpb.Value_TextMap:
		for _, e := range s.TextMap.GetEntries() {
			f(e.GetValue())
		}
	case *damlpb.Value_GenMap:
		for _, e := range s.GenMap.GetEntries() {
			f(e.GetKey())
			f(e.GetValue())
		}
	case *damlpb.Value_Record:
		for _, fl := range s.Record.GetFields() {
			f(fl.GetValue())
		}
	case *damlpb.Value_Variant:
		f(s.Variant.GetValue())
	}
}

// HasUnsafeInt64 reports whether pt has an int64 Value beyond ±2^53, which a
// JavaScript number cannot hold exactly.
func HasUnsafeInt64(pt *damlpb.PreparedTransaction) bool {
	found := false
	WalkValues(pt, func(v *damlpb.Value) {
		if i, ok := v.Sum.(*damlpb.Value_Int64); ok && (i.Int64 > maxSafe || i.Int64 < -maxSafe) {
			found = true
		}
	})
	return found
}

// ValueDepth returns the deepest nesting of any hashed Value in pt, counted
// as the hasher counts it (a top-level scalar has depth 1).
func ValueDepth(pt *damlpb.PreparedTransaction) int {
	deepest := 0
	var depth func(v *damlpb.Value) int
	depth = func(v *damlpb.Value) int {
		if v == nil {
			return 0
		}
		d := 0
		children(v, func(c *damlpb.Value) { d = max(d, depth(c)) })
		return d + 1
	}
	visit := func(v *damlpb.Value) {
		if v != nil {
			deepest = max(deepest, depth(v))
		}
	}
	for _, n := range pt.GetTransaction().GetNodes() {
		v1 := n.GetV1()
		visit(v1.GetCreate().GetArgument())
		visit(v1.GetCreate().GetKey().GetKey().GetKey())
		visit(v1.GetFetch().GetKey().GetKey().GetKey())
		visit(v1.GetExercise().GetChosenValue())
		visit(v1.GetExercise().GetExerciseResult())
		visit(v1.GetExercise().GetKey().GetKey().GetKey())
		visit(v1.GetQueryByKey().GetKey().GetKey().GetKey())
	}
	for _, in := range pt.GetMetadata().GetInputContracts() {
		visit(in.GetV1().GetArgument())
		visit(in.GetV1().GetKey().GetKey().GetKey())
	}
	return deepest
}
