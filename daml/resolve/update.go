package resolve

import (
	"fmt"

	"github.com/ledger-cli/ledger/daml/lf"
)

// update resolves an update expression into a function of the update
// token, as Speedy compiles it: running the update is applying that
// function to the token. Arguments that the specification evaluates when
// the update expression is evaluated (the value of pure, the argument of
// create, the contract id and argument of exercise, the first update of a
// block) are evaluated then; the rest when the update runs.
func (r *resolver) update(s *scope, u lf.Update) (Expr, error) {
	switch x := u.(type) {
	case *lf.UPure:
		v, err := r.expr(s, x.Expr)
		if err != nil {
			return nil, err
		}
		return &App{Fun: &OpRef{Op: &Pure{}}, Args: []Expr{v}}, nil
	case *lf.UCreate:
		return r.partial(s, &Create{Template: r.p.templateRef(x.Template)}, x.Arg)
	case *lf.UExercise:
		return r.partial(s, &Exercise{Template: r.p.templateRef(x.Template), Choice: x.Choice}, x.ContractID, x.Arg)
	case *lf.UFetch:
		return r.partial(s, &Fetch{Template: r.p.templateRef(x.Template)}, x.ContractID)
	case *lf.UGetTime:
		return &OpRef{Op: &GetTime{}}, nil
	case *lf.ULedgerTimeLT:
		return r.partial(s, &LedgerTimeLT{}, x.Time)
	case *lf.UEmbedExpr:
		// \token -> e token: e is evaluated when the update runs.
		return r.closure(s, []string{tokenName}, &lf.EApp{Fun: x.Expr, Args: []lf.Expr{&lf.EVar{Name: tokenName}}})
	case *lf.UBlock:
		return r.block(s, x)
	case *lf.UTryCatch:
		return r.tryCatch(s, x)
	case *lf.UCreateInterface:
		return r.partial(s, &CreateInterface{}, x.Arg)
	case *lf.UExerciseInterface:
		op := &ExerciseInterface{Interface: r.p.interfaceRef(x.Interface), Choice: x.Choice}
		if x.Guard != nil {
			op.Guarded = true
			return r.partial(s, op, x.Guard, x.ContractID, x.Arg)
		}
		return r.partial(s, op, x.ContractID, x.Arg)
	case *lf.UFetchInterface:
		return r.partial(s, &FetchInterface{Interface: r.p.interfaceRef(x.Interface)}, x.ContractID)
	case *lf.UExerciseByKey:
		return r.partial(s, &ExerciseByKey{Template: r.p.templateRef(x.Template), Choice: x.Choice}, x.Key, x.Arg)
	case *lf.UFetchByKey:
		return &OpRef{Op: &FetchByKey{Template: r.p.templateRef(x.Template)}}, nil
	case *lf.UQueryNByKey:
		return &OpRef{Op: &QueryNByKey{Template: r.p.templateRef(x.Template)}}, nil
	case *lf.ULookupByKey:
		return &OpRef{Op: &LookupByKey{Template: r.p.templateRef(x.Template)}}, nil
	case nil:
		return nil, fmt.Errorf("missing update")
	}
	return nil, fmt.Errorf("unknown update %T", u)
}

// partial applies update operation op to the values of args, leaving the
// token: the arguments are evaluated with the update expression.
func (r *resolver) partial(s *scope, op Op, args ...lf.Expr) (Expr, error) {
	as, err := r.exprs(s, args)
	if err != nil {
		return nil, err
	}
	return &App{Fun: &OpRef{Op: op}, Args: as}, nil
}

// block resolves 'x1 <- u1; …; xn <- un; body' into
//
//	let f = u1 in \token -> let x1 = f token in … let xn = un token in body token
//
// as Speedy does: u1 is evaluated with the block, the rest when it runs.
func (r *resolver) block(s *scope, b *lf.UBlock) (Expr, error) {
	if len(b.Bindings) == 0 {
		return r.expr(s, b.Body)
	}
	first, err := r.expr(s, b.Bindings[0].Bound)
	if err != nil {
		return nil, err
	}
	slot := s.bind(" first")
	inner := &scope{parent: s}
	token := inner.bind(tokenName)
	body, err := r.blockRest(inner, token, b)
	s.unbind(1)
	if err != nil {
		return nil, err
	}
	lam := &Lambda{Arity: 1, Slots: inner.maxSlots, Body: body, Def: r.def, Location: r.loc}
	return &Let{Slot: slot, Bound: first, Body: inner.makeClosure(lam)}, nil
}

func (r *resolver) blockRest(s *scope, token int, b *lf.UBlock) (Expr, error) {
	tok := &Local{Slot: token, Name: tokenName}
	firstFn, ok := s.lookup(" first")
	if !ok {
		return nil, fmt.Errorf("internal: block without its first update")
	}
	// Bind x1 = first token, then the others.
	bound := 0
	var lets []*Let
	run := Expr(&App{Fun: firstFn, Args: []Expr{tok}})
	for i, bd := range b.Bindings {
		if i > 0 {
			u, err := r.expr(s, bd.Bound)
			if err != nil {
				s.unbind(bound)
				return nil, err
			}
			run = &App{Fun: u, Args: []Expr{tok}}
		}
		l := &Let{Slot: s.bind(bd.Binder.Name), Bound: run}
		bound++
		lets = append(lets, l)
	}
	body, err := r.expr(s, b.Body)
	s.unbind(bound)
	if err != nil {
		return nil, err
	}
	var out Expr = &App{Fun: body, Args: []Expr{tok}}
	for i := len(lets) - 1; i >= 0; i-- {
		lets[i].Body = out
		out = lets[i]
	}
	return out, nil
}

// tryCatch resolves 'try e1 catch x. e2' into \token -> TryCatch, as
// Speedy compiles it: e1 is evaluated when the update runs, inside the
// block.
func (r *resolver) tryCatch(s *scope, x *lf.UTryCatch) (Expr, error) {
	inner := &scope{parent: s}
	token := &Local{Slot: inner.bind(tokenName), Name: tokenName}
	try, err := r.expr(inner, x.Try)
	if err != nil {
		return nil, err
	}
	slot := inner.bind(x.Var)
	handler, err := r.expr(inner, x.Catch)
	inner.unbind(1)
	if err != nil {
		return nil, err
	}
	body := &TryCatch{Body: &App{Fun: try, Args: []Expr{token}}, Slot: slot, Handler: handler, Token: token}
	lam := &Lambda{Arity: 1, Slots: inner.maxSlots, Body: body, Def: r.def, Location: r.loc}
	return inner.makeClosure(lam), nil
}
