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
		arg, err := r.expr(s, x.Arg)
		if err != nil {
			return nil, err
		}
		return &App{Fun: &OpRef{Op: &Create{Template: r.p.templateRef(x.Template)}}, Args: []Expr{arg}}, nil
	case *lf.UExercise:
		args, err := r.exprs(s, []lf.Expr{x.ContractID, x.Arg})
		if err != nil {
			return nil, err
		}
		op := &Exercise{Template: r.p.templateRef(x.Template), Choice: x.Choice}
		return &App{Fun: &OpRef{Op: op}, Args: args}, nil
	case *lf.UFetch:
		cid, err := r.expr(s, x.ContractID)
		if err != nil {
			return nil, err
		}
		return &App{Fun: &OpRef{Op: &Fetch{Template: r.p.templateRef(x.Template)}}, Args: []Expr{cid}}, nil
	case *lf.UGetTime:
		return &OpRef{Op: &GetTime{}}, nil
	case *lf.ULedgerTimeLT:
		t, err := r.expr(s, x.Time)
		if err != nil {
			return nil, err
		}
		return &App{Fun: &OpRef{Op: &LedgerTimeLT{}}, Args: []Expr{t}}, nil
	case *lf.UEmbedExpr:
		// \token -> e token: e is evaluated when the update runs.
		return r.closure(s, []string{tokenName}, &lf.EApp{Fun: x.Expr, Args: []lf.Expr{&lf.EVar{Name: tokenName}}})
	case *lf.UBlock:
		return r.block(s, x)
	case *lf.UTryCatch:
		return &Unsupported{What: "try/catch (exceptions)"}, nil
	case *lf.UCreateInterface, *lf.UExerciseInterface, *lf.UFetchInterface:
		return &Unsupported{What: "interface updates"}, nil
	case *lf.UExerciseByKey, *lf.UFetchByKey, *lf.UQueryNByKey, *lf.ULookupByKey:
		return &Unsupported{What: "contract keys"}, nil
	case nil:
		return nil, fmt.Errorf("missing update")
	}
	return nil, fmt.Errorf("unknown update %T", u)
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
	caps := make([]Expr, len(inner.captures))
	for i, c := range inner.captures {
		caps[i] = c.from
	}
	return &Let{Slot: slot, Bound: first, Body: &MakeClosure{Lambda: lam, Captures: caps}}, nil
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
