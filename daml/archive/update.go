package archive

import (
	"errors"

	"github.com/ledger-cli/ledger/daml/lf"
)

// update decodes an Update: one sort, given as its oneof field.
func (d *decoder) update(b []byte) (lf.Update, error) {
	var (
		f   field
		set bool
		err error
	)
	for len(b) > 0 {
		if f, b, err = nextField(b); err != nil {
			return nil, in("Update", err)
		}
		set = true
	}
	if !set {
		return nil, in("Update", errors.New("no update"))
	}
	raw, err := f.Delimited()
	if err != nil {
		return nil, in("Update", err)
	}
	var m msg
	switch f.Num {
	case 1: // Pure
		if err := split(raw, "Update.Pure", &m); err != nil {
			return nil, err
		}
		t, err := d.msgType(&m, 1, "type")
		if err != nil {
			return nil, err
		}
		e, err := d.msgExpr(&m, 2, "expression")
		if err != nil {
			return nil, err
		}
		return &lf.UPure{Type: t, Expr: e}, nil
	case 2: // Block
		bindings, body, err := d.block(raw, "Update.Block")
		if err != nil {
			return nil, err
		}
		return &lf.UBlock{Bindings: bindings, Body: body}, nil
	case 3, 12: // Create, CreateInterface
		name := "Update.Create"
		if f.Num == 12 {
			name = "Update.CreateInterface"
		}
		if err := split(raw, name, &m); err != nil {
			return nil, err
		}
		tc, err := d.msgTyCon(&m, 1, "template")
		if err != nil {
			return nil, err
		}
		arg, err := d.msgExpr(&m, 2, "argument")
		if err != nil {
			return nil, err
		}
		if f.Num == 12 {
			return &lf.UCreateInterface{Interface: tc, Arg: arg}, nil
		}
		return &lf.UCreate{Template: tc, Arg: arg}, nil
	case 4: // Exercise
		if err := split(raw, "Update.Exercise", &m); err != nil {
			return nil, err
		}
		tc, err := d.msgTyCon(&m, 1, "template")
		if err != nil {
			return nil, err
		}
		ch, err := d.msgName(&m, 6)
		if err != nil {
			return nil, err
		}
		cid, err := d.msgExpr(&m, 3, "contract id")
		if err != nil {
			return nil, err
		}
		arg, err := d.msgExpr(&m, 5, "argument")
		if err != nil {
			return nil, err
		}
		return &lf.UExercise{Template: tc, Choice: ch, ContractID: cid, Arg: arg}, nil
	case 13: // ExerciseInterface
		if err := split(raw, "Update.ExerciseInterface", &m); err != nil {
			return nil, err
		}
		tc, err := d.msgTyCon(&m, 1, "interface")
		if err != nil {
			return nil, err
		}
		ch, err := d.msgName(&m, 2)
		if err != nil {
			return nil, err
		}
		cid, err := d.msgExpr(&m, 3, "contract id")
		if err != nil {
			return nil, err
		}
		arg, err := d.msgExpr(&m, 4, "argument")
		if err != nil {
			return nil, err
		}
		u := &lf.UExerciseInterface{Interface: tc, Choice: ch, ContractID: cid, Arg: arg}
		if m.has[5] {
			if !d.version.IsDev() {
				return nil, d.notSupported("the guard of an interface exercise")
			}
			if u.Guard, err = d.msgExpr(&m, 5, "guard"); err != nil {
				return nil, err
			}
		}
		return u, nil
	case 10: // ExerciseByKey
		if !d.version.AtLeast(2, 3) {
			return nil, d.notSupported("exercise by key")
		}
		if err := split(raw, "Update.ExerciseByKey", &m); err != nil {
			return nil, err
		}
		tc, err := d.msgTyCon(&m, 1, "template")
		if err != nil {
			return nil, err
		}
		ch, err := d.msgName(&m, 2)
		if err != nil {
			return nil, err
		}
		key, err := d.msgExpr(&m, 3, "key")
		if err != nil {
			return nil, err
		}
		arg, err := d.msgExpr(&m, 4, "argument")
		if err != nil {
			return nil, err
		}
		return &lf.UExerciseByKey{Template: tc, Choice: ch, Key: key, Arg: arg}, nil
	case 5, 14: // Fetch, FetchInterface
		name := "Update.Fetch"
		if f.Num == 14 {
			name = "Update.FetchInterface"
		}
		if err := split(raw, name, &m); err != nil {
			return nil, err
		}
		tc, err := d.msgTyCon(&m, 1, "template")
		if err != nil {
			return nil, err
		}
		cid, err := d.msgExpr(&m, 2, "contract id")
		if err != nil {
			return nil, err
		}
		if f.Num == 14 {
			return &lf.UFetchInterface{Interface: tc, ContractID: cid}, nil
		}
		return &lf.UFetch{Template: tc, ContractID: cid}, nil
	case 6:
		return &lf.UGetTime{}, nil
	case 7: // EmbedExpr
		if err := split(raw, "Update.EmbedExpr", &m); err != nil {
			return nil, err
		}
		t, err := d.msgType(&m, 1, "type")
		if err != nil {
			return nil, err
		}
		e, err := d.msgExpr(&m, 2, "body")
		if err != nil {
			return nil, err
		}
		return &lf.UEmbedExpr{Type: t, Expr: e}, nil
	case 8, 9, 16: // LookupByKey (removed, 2.dev only), FetchByKey, QueryNByKey
		name := "Update.QueryNByKey"
		switch f.Num {
		case 8:
			name = "Update.LookupByKey"
		case 9:
			name = "Update.FetchByKey"
		}
		if f.Num == 8 && !d.version.IsDev() || !d.version.AtLeast(2, 3) {
			return nil, d.notSupported(name)
		}
		if err := split(raw, name, &m); err != nil {
			return nil, err
		}
		tc, err := d.msgTyCon(&m, 1, "template")
		if err != nil {
			return nil, err
		}
		switch f.Num {
		case 8:
			return &lf.ULookupByKey{Template: tc}, nil
		case 9:
			return &lf.UFetchByKey{Template: tc}, nil
		default:
			return &lf.UQueryNByKey{Template: tc}, nil
		}
	case 11: // TryCatch
		if err := split(raw, "Update.TryCatch", &m); err != nil {
			return nil, err
		}
		t, err := d.msgType(&m, 1, "return type")
		if err != nil {
			return nil, err
		}
		try, err := d.msgExpr(&m, 2, "try expression")
		if err != nil {
			return nil, err
		}
		v, err := d.msgName(&m, 3)
		if err != nil {
			return nil, err
		}
		catch, err := d.msgExpr(&m, 4, "catch expression")
		if err != nil {
			return nil, err
		}
		return &lf.UTryCatch{ReturnType: t, Try: try, Var: v, Catch: catch}, nil
	case 15: // LedgerTimeLT
		e, err := d.expr(raw, false)
		if err != nil {
			return nil, err
		}
		return &lf.ULedgerTimeLT{Time: e}, nil
	}
	return nil, unknownField("Update", f)
}
