// Package scriptledger is the ledger of Daml Script (script.Ledger) over
// the JSON Ledger API: `ledger script` runs a script's commands against
// any node — Canton or ledger serve — through package client. Values go
// to and come from the node in Canton's JSON encoding, typed by the DAR's
// packages (package typed).
//
// A submission is one submit-and-wait-for-transaction-tree; its tree is
// read back into the transaction the script expects (created and exercised
// nodes with their results). Queries read the active contracts at the
// ledger end. Time commands use the static-time endpoint of ledger serve
// --static-time (/v2/testing/time); against a node without one they fail
// saying so.
package scriptledger

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ledger-cli/ledger/client"
	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/script"
	"github.com/ledger-cli/ledger/daml/tx"
	"github.com/ledger-cli/ledger/daml/typed"
	"github.com/ledger-cli/ledger/daml/upgrade"
	"github.com/ledger-cli/ledger/daml/value"
	"github.com/ledger-cli/ledger/ledgerapi"
)

// maxBlobs bounds the created-event blobs kept for disclosures.
const maxBlobs = 100_000

// Ledger is a script.Ledger over a node's JSON Ledger API.
type Ledger struct {
	c      *client.Client
	env    *typed.Env
	pkgs   []*lf.Package
	userID string
	// commandPrefix makes the command ids of one run unique.
	commandPrefix string

	mu    sync.Mutex
	seq   int
	blobs map[value.ContractID][]byte
}

// New returns a ledger over c for scripts of pkgs; userID, when set, is
// the submissions' user id (the token's user otherwise).
func New(c *client.Client, pkgs []*lf.Package, userID string) *Ledger {
	return &Ledger{c: c, env: typed.NewEnv(pkgs...), pkgs: slices.Clone(pkgs), userID: userID,
		commandPrefix: "ledger-script-" + strconv.FormatInt(time.Now().UnixNano(), 36),
		blobs:         map[value.ContractID][]byte{}}
}

func typeCon(id *value.Identifier) lf.TypeConName {
	return lf.TypeConName{Package: lf.PackageID(id.PackageID), Module: lf.SplitDotted(id.ModuleName), Name: lf.SplitDotted(id.EntityName)}
}

func (l *Ledger) encode(t lf.Type, v value.Value, what string) (json.RawMessage, error) {
	p, err := l.types().Plan(t)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	b, err := p.EncodeJSON(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return b, nil
}

func (l *Ledger) decode(t lf.Type, raw json.RawMessage, what string) (value.Value, error) {
	p, err := l.types().Plan(t)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	v, err := p.DecodeJSON(raw, typed.DecodeOptions{Path: what})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return v, nil
}

func (l *Ledger) choice(id *value.Identifier, name string) (lf.ChoiceSignature, error) {
	c, ok := l.types().Choice(typeCon(id), name)
	if !ok {
		return c, fmt.Errorf("%s has no choice %s", id, name)
	}
	return c, nil
}

// command converts an interpreter command to a Ledger API command.
func (l *Ledger) command(c interp.Command) (ledgerapi.Command, error) {
	tcon := func(id *value.Identifier) lf.Type { return lf.TCon{Con: typeCon(id)} }
	switch x := c.(type) {
	case *interp.CreateCommand:
		arg, err := l.encode(tcon(x.Template), x.Argument, "createArguments")
		return ledgerapi.Command{Create: &ledgerapi.CreateCommand{TemplateID: x.Template.String(), CreateArguments: arg}}, err
	case *interp.ExerciseCommand:
		ch, err := l.choice(x.Template, x.Choice)
		if err != nil {
			return ledgerapi.Command{}, err
		}
		arg, err := l.encode(ch.ArgType, x.Argument, "choiceArgument")
		return ledgerapi.Command{Exercise: &ledgerapi.ExerciseCommand{TemplateID: x.Template.String(),
			ContractID: string(x.ContractID), Choice: x.Choice, ChoiceArgument: arg}}, err
	case *interp.CreateAndExerciseCommand:
		ch, err := l.choice(x.Template, x.Choice)
		if err != nil {
			return ledgerapi.Command{}, err
		}
		carg, err := l.encode(tcon(x.Template), x.CreateArgument, "createArguments")
		if err != nil {
			return ledgerapi.Command{}, err
		}
		arg, err := l.encode(ch.ArgType, x.ChoiceArgument, "choiceArgument")
		return ledgerapi.Command{CreateAndExercise: &ledgerapi.CreateAndExerciseCommand{TemplateID: x.Template.String(),
			CreateArguments: carg, Choice: x.Choice, ChoiceArgument: arg}}, err
	case *interp.ExerciseByKeyCommand:
		t, ok := l.types().Template(typeCon(x.Template))
		if !ok || t.Key == nil {
			return ledgerapi.Command{}, fmt.Errorf("%s is not a template with a key", x.Template)
		}
		ch, err := l.choice(x.Template, x.Choice)
		if err != nil {
			return ledgerapi.Command{}, err
		}
		key, err := l.encode(t.Key, x.Key, "contractKey")
		if err != nil {
			return ledgerapi.Command{}, err
		}
		arg, err := l.encode(ch.ArgType, x.Argument, "choiceArgument")
		return ledgerapi.Command{ExerciseByKey: &ledgerapi.ExerciseByKeyCommand{TemplateID: x.Template.String(),
			ContractKey: key, Choice: x.Choice, ChoiceArgument: arg}}, err
	}
	return ledgerapi.Command{}, fmt.Errorf("a script command of kind %T cannot be sent over the JSON API", c)
}

// byPackageName names a command's template by package name
// ("#name:Module:Entity"), as Daml's runner sends a command made with
// explicitPackageId = False: the node runs it with its preferred vetted
// package of that name. Its arguments, encoded with the script's version
// of the types, are read by the node into that package's (the JSON API
// reads a missing trailing optional field as None). The script's own
// version converts the results back (script's asWritten).
func (l *Ledger) byPackageName(c *ledgerapi.Command) {
	rename := func(id *string) {
		pkg, rest, ok := strings.Cut(*id, ":")
		if p := l.types().Package(lf.PackageID(pkg)); ok && p != nil && p.Name != "" && upgrade.SupportsUpgrades(p) {
			*id = "#" + p.Name + ":" + rest
		}
	}
	switch {
	case c.Create != nil:
		rename(&c.Create.TemplateID)
	case c.Exercise != nil:
		rename(&c.Exercise.TemplateID)
	case c.CreateAndExercise != nil:
		rename(&c.CreateAndExercise.TemplateID)
	case c.ExerciseByKey != nil:
		rename(&c.ExerciseByKey.TemplateID)
	}
}

// Submit submits the commands and waits for their transaction tree.
func (l *Ledger) Submit(ctx context.Context, s *script.Submission) (*tx.Transaction, error) {
	cmds := ledgerapi.Commands{ActAs: s.ActAs, ReadAs: s.ReadAs}
	l.mu.Lock()
	l.seq++
	cmds.CommandID = fmt.Sprintf("%s-%d", l.commandPrefix, l.seq)
	for _, d := range s.Disclosed {
		blob := l.blobs[d.ContractID]
		if blob == nil && d.Blob != "" {
			blob, _ = hex.DecodeString(d.Blob)
		}
		if blob == nil {
			l.mu.Unlock()
			return nil, fmt.Errorf("disclosed contract %s: no created-event blob known for it (read it with queryDisclosure first)", d.ContractID)
		}
		cmds.DisclosedContracts = append(cmds.DisclosedContracts, ledgerapi.DisclosedContract{
			TemplateID: d.TemplateID.String(), ContractID: string(d.ContractID), CreatedEventBlob: blob})
	}
	l.mu.Unlock()
	if l.userID != "" {
		u := l.userID
		cmds.UserID = &u
	}
	for _, p := range s.PackagePreference {
		cmds.PackageIDSelectionPreference = append(cmds.PackageIDSelectionPreference, string(p))
	}
	for i, c := range s.Commands {
		lc, err := l.command(c)
		if err != nil {
			return nil, err
		}
		if i < len(s.ByName) && s.ByName[i] {
			l.byPackageName(&lc)
		}
		cmds.Commands = append(cmds.Commands, lc)
	}
	tree, err := l.c.SubmitAndWaitForTransactionTree(ctx, cmds)
	if err != nil {
		var ae *client.APIError
		if errors.As(err, &ae) && ae.Canton != nil && ae.StatusCode < 500 && ae.Canton.Code != "NA" {
			return nil, &script.SubmitFailure{ID: ae.Canton.Code, Message: ae.Canton.Cause}
		}
		return nil, err
	}
	if err := l.loadPackages(ctx, tree); err != nil {
		return nil, err
	}
	return l.transaction(tree)
}

// maxFetchedPackages bounds the packages one run fetches from the node.
const maxFetchedPackages = 1000

// loadPackages fetches from the node the packages of the tree's templates
// and interfaces that the script's DAR lacks, with their dependencies: a
// command by package name may run with a newer version of a package the
// node has (the script converts the results back to its own version).
func (l *Ledger) loadPackages(ctx context.Context, tree *ledgerapi.TransactionTree) error {
	var missing []lf.PackageID
	need := func(id string) {
		if tn, err := typed.ParseTypeConName(id); err == nil && l.types().Package(tn.Package) == nil && !slices.Contains(missing, tn.Package) {
			missing = append(missing, tn.Package)
		}
	}
	for _, ev := range tree.EventsByID {
		switch {
		case ev.Created != nil:
			need(ev.Created.TemplateID)
		case ev.Exercised != nil:
			need(ev.Exercised.TemplateID)
			if ev.Exercised.InterfaceID != nil {
				need(*ev.Exercised.InterfaceID)
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	fetched := map[lf.PackageID]*lf.Package{}
	for len(missing) > 0 {
		id := missing[0]
		missing = missing[1:]
		if fetched[id] != nil || l.types().Package(id) != nil {
			continue
		}
		if len(fetched) >= maxFetchedPackages {
			return fmt.Errorf("the node's transaction needs more than %d packages the DAR lacks", maxFetchedPackages)
		}
		payload, err := l.c.GetPackage(ctx, string(id))
		if err != nil {
			return fmt.Errorf("fetching package %s, which the node's transaction uses and the DAR lacks: %w", id, err)
		}
		p, err := archive.DecodePayload(string(id), payload, archive.Options{})
		if err != nil {
			return fmt.Errorf("package %s from the node: %w", id, err)
		}
		fetched[id] = p
		for _, d := range p.DirectDeps {
			if fetched[d] == nil && l.types().Package(d) == nil {
				missing = append(missing, d)
			}
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range fetched {
		if l.env.Package(p.ID) == nil {
			l.pkgs = append(l.pkgs, p)
		}
	}
	l.env = typed.NewEnv(l.pkgs...)
	return nil
}

// types is the typed environment of the script's packages and those
// fetched from the node.
func (l *Ledger) types() *typed.Env {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.env
}

// transaction reads a transaction tree back into the nodes of a
// transaction: roots in order, each exercise with its children.
func (l *Ledger) transaction(tree *ledgerapi.TransactionTree) (*tx.Transaction, error) {
	ids := make([]int, 0, len(tree.EventsByID))
	events := map[int]ledgerapi.TreeEvent{}
	for _, ev := range tree.EventsByID {
		id := int(ev.NodeID())
		ids = append(ids, id)
		events[id] = ev
	}
	sort.Ints(ids)
	t := &tx.Transaction{Nodes: make([]tx.Node, len(ids))}
	index := map[int]tx.NodeID{}
	for i, id := range ids {
		index[id] = tx.NodeID(i)
	}
	// open holds the exercises whose descendants are being read, with the
	// last node id under each.
	type frame struct {
		ex   *tx.Exercise
		last int
	}
	var open []frame
	for i, id := range ids {
		for len(open) > 0 && id > open[len(open)-1].last {
			open = open[:len(open)-1]
		}
		n, last, err := l.node(events[id])
		if err != nil {
			return nil, err
		}
		t.Nodes[i] = n
		if len(open) == 0 {
			t.Roots = append(t.Roots, tx.NodeID(i))
		} else {
			p := open[len(open)-1].ex
			p.Children = append(p.Children, tx.NodeID(i))
		}
		if ex, ok := n.(*tx.Exercise); ok {
			open = append(open, frame{ex: ex, last: last})
		}
	}
	return t, nil
}

// node reads one event; for an exercise, last is its last descendant.
func (l *Ledger) node(ev ledgerapi.TreeEvent) (tx.Node, int, error) {
	switch {
	case ev.Created != nil:
		c, err := l.contract(ev.Created)
		if err != nil {
			return nil, 0, err
		}
		return &tx.Create{ContractID: c.ID, PackageName: c.PackageName, TemplateID: c.TemplateID, Argument: c.Argument,
			Signatories: c.Signatories, Stakeholders: c.Stakeholders, Key: c.Key}, 0, nil
	case ev.Exercised != nil:
		e := ev.Exercised
		tn, err := typed.ParseTypeConName(e.TemplateID)
		if err != nil {
			return nil, 0, fmt.Errorf("exercised event %d: %w", e.NodeID, err)
		}
		on := value.IdentifierOf(tn)
		ex := &tx.Exercise{ContractID: value.ContractID(e.ContractID), PackageName: e.PackageName, TemplateID: on,
			Choice: e.Choice, Consuming: e.Consuming, ActingParties: e.ActingParties}
		if e.InterfaceID != nil {
			in, err := typed.ParseTypeConName(*e.InterfaceID)
			if err != nil {
				return nil, 0, fmt.Errorf("exercised event %d: %w", e.NodeID, err)
			}
			ex.InterfaceID = value.IdentifierOf(in)
			on = ex.InterfaceID
		}
		ch, err := l.choice(on, e.Choice)
		if err != nil {
			return nil, 0, fmt.Errorf("exercised event %d: %w", e.NodeID, err)
		}
		if ex.ChosenValue, err = l.decode(ch.ArgType, e.ChoiceArgument, "choiceArgument"); err != nil {
			return nil, 0, err
		}
		if ex.Result, err = l.decode(ch.ReturnType, e.ExerciseResult, "exerciseResult"); err != nil {
			return nil, 0, err
		}
		return ex, int(e.LastDescendantNodeID), nil
	}
	return nil, 0, errors.New("a tree event that is neither created nor exercised")
}

// contract reads a created event as a contract, keeping its blob.
func (l *Ledger) contract(ev *ledgerapi.CreatedEvent) (*tx.Contract, error) {
	tn, err := typed.ParseTypeConName(ev.TemplateID)
	if err != nil {
		return nil, fmt.Errorf("created event %s: %w", ev.ContractID, err)
	}
	arg, err := l.decode(lf.TCon{Con: tn}, ev.CreateArgument, "createArgument")
	if err != nil {
		return nil, err
	}
	c := &tx.Contract{ID: value.ContractID(ev.ContractID), PackageName: ev.PackageName, TemplateID: value.IdentifierOf(tn),
		Argument: arg, Signatories: slices.Sorted(slices.Values(ev.Signatories)), CreatedAt: value.Timestamp(ev.CreatedAt.UnixMicro())}
	c.Stakeholders = slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(ev.Signatories), ev.Observers...))))
	if len(ev.ContractKey) > 0 && string(ev.ContractKey) != "null" {
		if t, ok := l.types().Template(tn); ok && t.Key != nil {
			k, err := l.decode(t.Key, ev.ContractKey, "contractKey")
			if err != nil {
				return nil, err
			}
			c.Key = &tx.KeyWithMaintainers{GlobalKey: tx.GlobalKey{TemplateID: c.TemplateID, PackageName: ev.PackageName, Key: k}}
		}
	}
	if len(ev.CreatedEventBlob) > 0 {
		l.mu.Lock()
		if len(l.blobs) < maxBlobs {
			l.blobs[c.ID] = ev.CreatedEventBlob
		}
		l.mu.Unlock()
	}
	return c, nil
}

// ActiveContracts reads the active contracts of the templates visible to
// parties at the ledger end.
func (l *Ledger) ActiveContracts(ctx context.Context, parties []string, templates []*value.Identifier) ([]*tx.Contract, error) {
	end, err := l.c.LedgerEnd(ctx)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, t := range templates {
		ids = append(ids, t.String())
	}
	ef := ledgerapi.EventFormatOf(parties, ids, nil, true)
	rs, err := l.c.ActiveContracts(ctx, ledgerapi.GetActiveContractsRequest{ActiveAtOffset: ledgerapi.Int64(end), EventFormat: &ef}, client.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]*tx.Contract, 0, len(rs))
	for _, r := range rs {
		ac := r.ContractEntry.ActiveContract
		if ac == nil {
			continue
		}
		c, err := l.contract(&ac.CreatedEvent)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// ContractBlob returns the created-event blob of a contract the ledger has
// read, hex-encoded, as queryDisclosure carries it.
func (l *Ledger) ContractBlob(id value.ContractID) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return hex.EncodeToString(l.blobs[id])
}

// AllocateParty allocates a party with the hint.
func (l *Ledger) AllocateParty(ctx context.Context, hint string) (string, error) {
	d, err := l.c.AllocateParty(ctx, ledgerapi.AllocatePartyRequest{PartyIDHint: hint})
	if err != nil {
		return "", err
	}
	return d.Party, nil
}

// ListKnownParties lists the node's parties.
func (l *Ledger) ListKnownParties(ctx context.Context) ([]script.PartyDetails, error) {
	ps, err := l.c.AllParties(ctx, client.ListPartiesOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]script.PartyDetails, len(ps))
	for i, p := range ps {
		out[i] = script.PartyDetails{Party: p.Party, IsLocal: p.IsLocal}
	}
	return out, nil
}

// errNoStaticTime explains a node whose time cannot be read or set.
func errNoStaticTime(err error) error {
	var ae *client.APIError
	if errors.As(err, &ae) && ae.StatusCode == http.StatusNotFound {
		return fmt.Errorf("the node has no settable clock (GET /v2/testing/time answered 404): time commands (getTime, setTime, passTime) need a node started with ledger serve --static-time")
	}
	return err
}

// Time reads the node's static time.
func (l *Ledger) Time(ctx context.Context) (value.Timestamp, error) {
	r, err := l.c.Time(ctx)
	if err != nil {
		return 0, errNoStaticTime(err)
	}
	return value.Timestamp(r.CurrentTime.UnixMicro()), nil
}

// SetTime moves the node's static time.
func (l *Ledger) SetTime(ctx context.Context, t value.Timestamp) error {
	cur, err := l.c.Time(ctx)
	if err != nil {
		return errNoStaticTime(err)
	}
	_, err = l.c.SetTime(ctx, ledgerapi.SetTimeRequest{CurrentTime: cur.CurrentTime, NewTime: ledgerapi.Timestamp{Time: t.Time()}})
	var ae *client.APIError
	if errors.As(err, &ae) && ae.Canton != nil {
		return fmt.Errorf("setTime %s: %s", t, ae.Canton.Cause)
	}
	return errNoStaticTime(err)
}

// userError maps the Ledger API's user errors to script's.
func userError(err error) error {
	var ae *client.APIError
	if errors.As(err, &ae) && ae.Canton != nil {
		switch ae.Canton.Code {
		case ledgerapi.CodeUserNotFound.ID:
			return script.ErrUserNotFound
		case ledgerapi.CodeUserAlreadyExists.ID:
			return script.ErrUserExists
		}
	}
	return err
}

func toRights(rs []script.UserRight) []ledgerapi.Right {
	out := make([]ledgerapi.Right, 0, len(rs))
	for _, r := range rs {
		out = append(out, ledgerapi.Right{Kind: ledgerapi.RightKind(r.Kind), Party: r.Party})
	}
	return out
}

func fromRights(rs []ledgerapi.Right) []script.UserRight {
	out := make([]script.UserRight, 0, len(rs))
	for _, r := range rs {
		switch r.Kind {
		case ledgerapi.RightParticipantAdmin, ledgerapi.RightCanActAs, ledgerapi.RightCanReadAs, ledgerapi.RightCanReadAsAnyParty:
			out = append(out, script.UserRight{Kind: string(r.Kind), Party: r.Party})
		}
	}
	return out
}

// CreateUser creates a user.
func (l *Ledger) CreateUser(ctx context.Context, u script.User, rights []script.UserRight) error {
	_, err := l.c.CreateUser(ctx, ledgerapi.CreateUserRequest{User: &ledgerapi.User{ID: u.ID, PrimaryParty: u.PrimaryParty}, Rights: toRights(rights)})
	return userError(err)
}

// GetUser reads a user.
func (l *Ledger) GetUser(ctx context.Context, id string) (script.User, error) {
	u, err := l.c.GetUser(ctx, id)
	if err != nil {
		return script.User{}, userError(err)
	}
	return script.User{ID: u.ID, PrimaryParty: u.PrimaryParty}, nil
}

// DeleteUser deletes a user.
func (l *Ledger) DeleteUser(ctx context.Context, id string) error {
	return userError(l.c.DeleteUser(ctx, id))
}

// ListUsers lists the users.
func (l *Ledger) ListUsers(ctx context.Context) ([]script.User, error) {
	us, err := l.c.AllUsers(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]script.User, len(us))
	for i, u := range us {
		out[i] = script.User{ID: u.ID, PrimaryParty: u.PrimaryParty}
	}
	return out, nil
}

// GrantUserRights grants rights and returns those newly granted.
func (l *Ledger) GrantUserRights(ctx context.Context, id string, rights []script.UserRight) ([]script.UserRight, error) {
	rs, err := l.c.GrantUserRights(ctx, id, toRights(rights), "")
	return fromRights(rs), userError(err)
}

// RevokeUserRights revokes rights and returns those revoked.
func (l *Ledger) RevokeUserRights(ctx context.Context, id string, rights []script.UserRight) ([]script.UserRight, error) {
	rs, err := l.c.RevokeUserRights(ctx, id, toRights(rights), "")
	return fromRights(rs), userError(err)
}

// ListUserRights lists a user's rights.
func (l *Ledger) ListUserRights(ctx context.Context, id string) ([]script.UserRight, error) {
	rs, err := l.c.ListUserRights(ctx, id)
	return fromRights(rs), userError(err)
}

// MaxSleep bounds one sleep of a script.
const MaxSleep = time.Hour

// Sleep waits d (sleep in a script), at most MaxSleep, or until ctx ends.
func (l *Ledger) Sleep(ctx context.Context, d time.Duration) error {
	if d > MaxSleep {
		return fmt.Errorf("sleep of %s: longer than %s", d, MaxSleep)
	}
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// SubmitsConcurrently says a script's concurrent submissions (concurrently)
// go to the node at once, as Daml's runner sends them.
func (l *Ledger) SubmitsConcurrently() bool { return true }
