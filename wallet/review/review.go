package review

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/proto/damlpb"
)

// Node kinds, as they appear in Node.Kind.
const (
	KindCreate     = "create"
	KindExercise   = "exercise"
	KindFetch      = "fetch"
	KindRollback   = "rollback"
	KindQueryByKey = "queryByKey"
)

// Review is everything a reviewer is shown about one prepared transaction.
// It is plain data: -o json prints it as it is.
type Review struct {
	// Summary says in words what the transaction does, with shortened ids.
	Summary string `json:"summary"`
	// Hash is the hash recomputed here; nil when it could not be computed.
	Hash *Hash `json:"hash"`
	// HashError says why the hash could not be recomputed; the caller that
	// ran the hasher fills it in.
	HashError string `json:"hashError,omitempty"`
	// Warnings are things a reviewer must read before signing.
	Warnings []string `json:"warnings,omitempty"`
	// Reinterpreted says whether the transaction was checked here against
	// its Daml code; nil when it was not (no packages at hand). The caller
	// that re-ran the code fills it in.
	Reinterpreted *Reinterpreted `json:"reinterpreted,omitempty"`

	Submitter          Submitter `json:"submitter"`
	SynchronizerID     string    `json:"synchronizerId"`
	MediatorGroup      uint32    `json:"mediatorGroup"`
	TransactionUUID    string    `json:"transactionUuid"`
	TransactionVersion string    `json:"transactionVersion"`
	Times              Times     `json:"times"`

	Effects Effects `json:"effects"`
	// Nodes are the root nodes, each with its children.
	Nodes []*Node `json:"nodes"`
	// Unreachable are nodes in the transaction that no root reaches, each
	// with its children; they are not rendered (a warning names them).
	Unreachable    []*Node         `json:"unreachable,omitempty"`
	InputContracts []InputContract `json:"inputContracts"`
	// GlobalKeyMapping is the deprecated key mapping of the metadata; it is
	// not signed under V2.
	GlobalKeyMapping []KeyMapping `json:"globalKeyMapping,omitempty"`
	// Parties lists every party the transaction mentions, sorted.
	Parties []string `json:"parties"`
	// Origin is what the input file says beside the transaction; the caller
	// that read the file fills it in.
	Origin *Origin `json:"origin,omitempty"`
}

// Reinterpreted is the outcome of re-running a transaction's Daml code
// offline, as the review shows it.
type Reinterpreted struct {
	// Matches is true when the transaction is exactly what the code makes.
	Matches bool `json:"matches"`
	// Code names the packages the transaction names: "splice-amulet 0.1.14
	// and 3 more".
	Code string `json:"code"`
	// Difference is the first difference, as a custodian reads it.
	Difference string `json:"difference,omitempty"`
	// Packages are the packages the transaction names, as the code was
	// re-run.
	Packages []CodePackage `json:"packages,omitempty"`
}

// CodePackage is a package whose code was re-run, and where it came from:
// "the envelope" (the preparing node sent it) or a file.
type CodePackage struct {
	ID      string `json:"packageId"`
	Name    string `json:"name"`
	Version string `json:"version"`
	From    string `json:"from"`
}

// Origin is the context an envelope or prepare response carries next to the
// prepared transaction. None of it is covered by the signature.
type Origin struct {
	// Form is how the input looked: "envelope", "prepare response", …
	Form       string                    `json:"form"`
	NodeURL    string                    `json:"nodeUrl,omitempty"`
	PreparedAt string                    `json:"preparedAt,omitempty"`
	Cost       *ledgerapi.CostEstimation `json:"costEstimation,omitempty"`
	// Signatures are the party signatures already in the file.
	Signatures []SignatureRef `json:"signatures,omitempty"`
}

// SignatureRef names one signature already present: who signed, with which
// key.
type SignatureRef struct {
	Party    string `json:"party"`
	SignedBy string `json:"signedBy"`
}

// Hash is the recomputed hash and, once CompareNodeHash ran, how it compares
// with the hash the preparing node sent.
type Hash struct {
	Scheme string `json:"scheme"`
	Base64 string `json:"base64"`
	Hex    string `json:"hex"`
	// NodeHash is the node's preparedTransactionHash (base64), when known.
	NodeHash string `json:"nodeHash,omitempty"`
	// MatchesNode is set when NodeHash is.
	MatchesNode *bool `json:"matchesNode,omitempty"`
}

// Submitter is the metadata's submitter info.
type Submitter struct {
	ActAs     []string `json:"actAs"`
	CommandID string   `json:"commandId"`
}

// Times holds the metadata's times as UTC RFC 3339 text, and the deadlines
// measured from EvaluatedAt.
type Times struct {
	// EvaluatedAt is the "now" the time left was measured from.
	EvaluatedAt            string    `json:"evaluatedAt"`
	PreparationTime        string    `json:"preparationTime"`
	MinLedgerEffectiveTime string    `json:"minLedgerEffectiveTime,omitempty"`
	MaxLedgerEffectiveTime *Deadline `json:"maxLedgerEffectiveTime,omitempty"`
	MaxRecordTime          *Deadline `json:"maxRecordTime,omitempty"`
	// Prepared is the deadline the preparation time sets: Canton refuses a
	// transaction recorded more than preparationTimeRecordTimeTolerance
	// after it was prepared (LOCAL_VERDICT_PREPARATION_TIME_OUT_OF_BOUND),
	// 24 hours by default.
	Prepared *Deadline `json:"prepared"`
	// SignWithin is the earliest deadline: the time left to sign and
	// execute.
	SignWithin *Deadline `json:"signWithin"`
	// MiningRounds are the Canton Coin mining rounds the transaction uses,
	// whose closing is a deadline too (rounds.go).
	MiningRounds []MiningRound `json:"miningRounds,omitempty"`
}

// Deadline is a time after which the transaction can no longer be executed.
type Deadline struct {
	// Field names the metadata field: max_ledger_effective_time or max_record_time.
	Field string `json:"field"`
	Time  string `json:"time"`
	// TimeLeft is the time until the deadline in words ("1h05m"), or how
	// long ago it passed ("expired 3m10s ago").
	TimeLeft    string `json:"timeLeft"`
	SecondsLeft int64  `json:"secondsLeft"`
	Expired     bool   `json:"expired"`
	// Signed says whether the hash covers this time under the scheme used.
	Signed bool `json:"signed"`
	// GraceLeft, for a max_ledger_effective_time that passed less than the
	// ledger-time tolerance (LedgerTimeTolerance) ago, is the time left
	// within it ("40s"): Canton clamps the ledger time to the bound and
	// accepts a record time up to the tolerance after it.
	GraceLeft string `json:"graceLeft,omitempty"`
}

// Canton's default synchronizer parameters that bound when a prepared
// transaction can still be recorded. A synchronizer may set others; the
// review says "by default" wherever it relies on them.
const (
	// PreparationTimeTolerance is preparationTimeRecordTimeTolerance.
	PreparationTimeTolerance = 24 * time.Hour
	// LedgerTimeTolerance is ledgerTimeRecordTimeTolerance.
	LedgerTimeTolerance = 60 * time.Second
)

// Effects lists what the transaction changes on the ledger. Nodes under a
// rollback change nothing and are only counted in RolledBack.
type Effects struct {
	Created    []ContractRef `json:"created"`
	Archived   []ContractRef `json:"archived"`
	Exercised  int           `json:"exercised"`
	Fetched    int           `json:"fetched"`
	KeyLookups int           `json:"keyLookups"`
	// RolledBack counts create, exercise, fetch and key lookup nodes whose
	// effects a rollback undoes.
	RolledBack int `json:"rolledBack"`
}

// ContractRef names one contract.
type ContractRef struct {
	ContractID string      `json:"contractId"`
	Template   *Identifier `json:"template"`
}

// Identifier is a Daml type or template identifier.
type Identifier struct {
	// Name is "Module.Path:Entity".
	Name       string `json:"name"`
	PackageID  string `json:"packageId"`
	ModuleName string `json:"moduleName"`
	EntityName string `json:"entityName"`
}

// Node is one transaction node with its children.
type Node struct {
	NodeID      string      `json:"nodeId"`
	Kind        string      `json:"kind"`
	LFVersion   string      `json:"lfVersion,omitempty"`
	ContractID  string      `json:"contractId,omitempty"`
	Template    *Identifier `json:"template,omitempty"`
	PackageName string      `json:"packageName,omitempty"`
	Interface   *Identifier `json:"interface,omitempty"`
	Choice      string      `json:"choice,omitempty"`
	// Consuming exercises archive the contract they act on.
	Consuming       bool     `json:"consuming,omitempty"`
	ByKey           bool     `json:"byKey,omitempty"`
	ActingParties   []string `json:"actingParties,omitempty"`
	Signatories     []string `json:"signatories,omitempty"`
	Stakeholders    []string `json:"stakeholders,omitempty"`
	ChoiceObservers []string `json:"choiceObservers,omitempty"`
	Key             *Key     `json:"key,omitempty"`
	// Argument is the create argument or the exercise's choice argument.
	Argument *Value `json:"argument,omitempty"`
	// Result is the exercise result, when the node carries one.
	Result        *Value         `json:"result,omitempty"`
	Lookup        *KeyLookup     `json:"lookup,omitempty"`
	ExternalCalls []ExternalCall `json:"externalCalls,omitempty"`
	// RolledBack marks nodes under a rollback: their effects are undone.
	RolledBack bool `json:"rolledBack,omitempty"`
	// Repeated marks a node id already shown earlier in the tree (the
	// transaction is then not a tree; hashing warns about it too).
	Repeated bool    `json:"repeated,omitempty"`
	Children []*Node `json:"children,omitempty"`
}

// Key is a contract key with its maintainers.
type Key struct {
	Value       *Value   `json:"value"`
	Maintainers []string `json:"maintainers"`
	Hash        string   `json:"hash,omitempty"`
}

// KeyLookup is the outcome of a query-by-key node.
type KeyLookup struct {
	Exhaustive bool     `json:"exhaustive"`
	Found      []string `json:"found"`
}

// ExternalCall names an external call whose result an exercise carries.
type ExternalCall struct {
	ExtensionID string `json:"extensionId"`
	FunctionID  string `json:"functionId"`
}

// InputContract is a contract the transaction reads or acts on, as the
// preparing node disclosed it.
type InputContract struct {
	ContractID   string      `json:"contractId"`
	Template     *Identifier `json:"template"`
	PackageName  string      `json:"packageName"`
	LFVersion    string      `json:"lfVersion,omitempty"`
	CreatedAt    string      `json:"createdAt"`
	Signatories  []string    `json:"signatories"`
	Stakeholders []string    `json:"stakeholders"`
	Key          *Key        `json:"key,omitempty"`
	Argument     *Value      `json:"argument"`
}

// KeyMapping is one entry of the metadata's global key mapping.
type KeyMapping struct {
	Template *Identifier `json:"template"`
	Key      *Value      `json:"key"`
	// Value is the contract id the key maps to; nil when it maps to none.
	Value *Value `json:"value,omitempty"`
}

// maxNodeDepth bounds the node tree: deeper nesting is refused rather than
// risking a stack overflow on hostile input.
const maxNodeDepth = 1000

// Recomputed is the hash recomputed from a prepared transaction's bytes, as
// the hasher reports it. The review package does not hash: the caller that
// ran the hasher fills this in.
type Recomputed struct {
	// Scheme is the enum name of the scheme, e.g. HASHING_SCHEME_VERSION_V2.
	Scheme string
	Sum    [32]byte
	// SignsMaxRecordTime says whether the scheme covers max_record_time and
	// the global key mapping (V3 does, V2 does not).
	SignsMaxRecordTime bool
	// Warnings are the hasher's own (a node referenced twice, …).
	Warnings []string
}

// Summarize builds the review of pt. res is the hash recomputed from the same
// bytes (nil when it could not be computed); now is the time the time left
// to sign is measured from.
func Summarize(pt *damlpb.PreparedTransaction, res *Recomputed, now time.Time) (*Review, error) {
	if pt == nil || pt.GetTransaction() == nil {
		return nil, fmt.Errorf("prepared transaction has no transaction")
	}
	meta := pt.GetMetadata()
	if meta == nil {
		return nil, fmt.Errorf("prepared transaction has no metadata")
	}
	b := &builder{nodes: map[string]*damlpb.Node{}, shown: map[string]bool{}}
	for i, n := range pt.GetTransaction().GetNodes() {
		if n.GetV1() == nil {
			return nil, fmt.Errorf("transaction.nodes[%d] (node %q) is not a v1 node", i, n.GetNodeId())
		}
		if _, dup := b.nodes[n.GetNodeId()]; dup {
			return nil, fmt.Errorf("transaction.nodes[%d]: node id %q appears twice", i, n.GetNodeId())
		}
		b.nodes[n.GetNodeId()] = n.GetV1()
	}

	r := &Review{
		Submitter: Submitter{
			ActAs:     nonNil(meta.GetSubmitterInfo().GetActAs()),
			CommandID: meta.GetSubmitterInfo().GetCommandId(),
		},
		SynchronizerID:     meta.GetSynchronizerId(),
		MediatorGroup:      meta.GetMediatorGroup(),
		TransactionUUID:    meta.GetTransactionUuid(),
		TransactionVersion: pt.GetTransaction().GetVersion(),
		Nodes:              []*Node{},
		InputContracts:     []InputContract{},
		Effects:            Effects{Created: []ContractRef{}, Archived: []ContractRef{}},
	}
	for _, id := range pt.GetTransaction().GetRoots() {
		n, err := b.node(id, false, 0, "transaction.roots")
		if err != nil {
			return nil, err
		}
		r.Nodes = append(r.Nodes, n)
	}
	// Nodes no root reaches are not part of the transaction the ledger
	// sees, but they are in the bytes: keep them (not rendered) so a
	// policy can refuse what it cannot vouch for.
	for id := range b.nodes {
		if !b.shown[id] {
			b.unreached = append(b.unreached, id)
		}
	}
	sort.Strings(b.unreached)
	for _, id := range b.unreached {
		if b.shown[id] {
			continue // a child of an earlier unreachable node
		}
		n, err := b.node(id, false, 0, "transaction.nodes")
		if err != nil {
			return nil, err
		}
		r.Unreachable = append(r.Unreachable, n)
	}
	countEffects(r.Nodes, &r.Effects)
	for i, ic := range meta.GetInputContracts() {
		c := ic.GetV1()
		if c == nil {
			return nil, fmt.Errorf("metadata.input_contracts[%d] has no v1 contract", i)
		}
		in := InputContract{
			ContractID:   c.GetContractId(),
			Template:     identifier(c.GetTemplateId()),
			PackageName:  c.GetPackageName(),
			LFVersion:    c.GetLfVersion(),
			CreatedAt:    formatMicros(ic.GetCreatedAt()),
			Signatories:  nonNil(c.GetSignatories()),
			Stakeholders: nonNil(c.GetStakeholders()),
		}
		var err error
		if in.Key, err = key(c.GetKey()); err != nil {
			return nil, fmt.Errorf("metadata.input_contracts[%d].key: %w", i, err)
		}
		if in.Argument, err = decodeValue(c.GetArgument(), 0); err != nil {
			return nil, fmt.Errorf("metadata.input_contracts[%d].argument: %w", i, err)
		}
		r.InputContracts = append(r.InputContracts, in)
	}
	for i, e := range meta.GetGlobalKeyMapping() {
		m := KeyMapping{Template: identifier(e.GetKey().GetTemplateId())}
		var err error
		if m.Key, err = decodeValue(e.GetKey().GetKey(), 0); err != nil {
			return nil, fmt.Errorf("metadata.global_key_mapping[%d].key: %w", i, err)
		}
		if e.Value != nil {
			if m.Value, err = decodeValue(e.GetValue(), 0); err != nil {
				return nil, fmt.Errorf("metadata.global_key_mapping[%d].value: %w", i, err)
			}
		}
		r.GlobalKeyMapping = append(r.GlobalKeyMapping, m)
	}

	if res != nil {
		r.Hash = &Hash{
			Scheme: res.Scheme,
			Base64: base64.StdEncoding.EncodeToString(res.Sum[:]),
			Hex:    hex.EncodeToString(res.Sum[:]),
		}
	}
	r.Times = times(meta, res != nil && res.SignsMaxRecordTime, now)
	r.Times.MiningRounds = miningRounds(r.InputContracts, now)
	r.Parties = collectParties(r)
	r.Warnings = warnings(r, b, res)
	r.Summary = SummaryLine(r, NewNames(r, false))
	return r, nil
}

// CompareNodeHash records the hash the preparing node sent and reports
// whether it equals the recomputed one. It returns false when there is no
// recomputed hash.
func (r *Review) CompareNodeHash(nodeHash []byte) bool {
	if r.Hash == nil {
		return false
	}
	ours, err := hex.DecodeString(r.Hash.Hex)
	match := err == nil && bytes.Equal(ours, nodeHash)
	r.Hash.NodeHash = base64.StdEncoding.EncodeToString(nodeHash)
	r.Hash.MatchesNode = &match
	if !match {
		r.Warnings = append([]string{"the hash the preparing node sent differs from the one recomputed here: do not sign"}, r.Warnings...)
	}
	return match
}

// builder turns the flat node list into a tree.
type builder struct {
	nodes map[string]*damlpb.Node
	shown map[string]bool
	// path holds the node ids from the root to the current node.
	path []string
	// unreached are the node ids no root reaches, sorted.
	unreached []string
}

func (b *builder) node(id string, rolledBack bool, depth int, from string) (*Node, error) {
	if depth > maxNodeDepth {
		return nil, fmt.Errorf("node tree is deeper than %d levels", maxNodeDepth)
	}
	v1, ok := b.nodes[id]
	if !ok {
		return nil, fmt.Errorf("%s names node %q, which is not in transaction.nodes", from, id)
	}
	for _, p := range b.path {
		if p == id {
			return nil, fmt.Errorf("node %q contains itself (through %s)", id, strings.Join(b.path, " → "))
		}
	}
	b.path = append(b.path, id)
	defer func() { b.path = b.path[:len(b.path)-1] }()

	n := &Node{NodeID: id, RolledBack: rolledBack, Repeated: b.shown[id]}
	b.shown[id] = true
	var children []string
	var err error
	switch {
	case v1.GetCreate() != nil:
		c := v1.GetCreate()
		n.Kind = KindCreate
		n.LFVersion, n.ContractID, n.PackageName = c.GetLfVersion(), c.GetContractId(), c.GetPackageName()
		n.Template = identifier(c.GetTemplateId())
		n.Signatories, n.Stakeholders = c.GetSignatories(), c.GetStakeholders()
		if n.Key, err = key(c.GetKey()); err == nil {
			n.Argument, err = decodeValue(c.GetArgument(), 0)
		}
	case v1.GetExercise() != nil:
		e := v1.GetExercise()
		n.Kind = KindExercise
		n.LFVersion, n.ContractID, n.PackageName = e.GetLfVersion(), e.GetContractId(), e.GetPackageName()
		n.Template, n.Interface = identifier(e.GetTemplateId()), identifier(e.GetInterfaceId())
		n.Choice, n.Consuming, n.ByKey = e.GetChoiceId(), e.GetConsuming(), e.GetByKey()
		n.ActingParties, n.Signatories, n.Stakeholders = e.GetActingParties(), e.GetSignatories(), e.GetStakeholders()
		n.ChoiceObservers = e.GetChoiceObservers()
		for _, x := range e.GetExternalCallResults() {
			n.ExternalCalls = append(n.ExternalCalls, ExternalCall{ExtensionID: x.GetExtensionId(), FunctionID: x.GetFunctionId()})
		}
		if n.Key, err = key(e.GetKey()); err == nil {
			if n.Argument, err = decodeValue(e.GetChosenValue(), 0); err == nil && e.GetExerciseResult() != nil {
				n.Result, err = decodeValue(e.GetExerciseResult(), 0)
			}
		}
		children = e.GetChildren()
	case v1.GetFetch() != nil:
		f := v1.GetFetch()
		n.Kind = KindFetch
		n.LFVersion, n.ContractID, n.PackageName = f.GetLfVersion(), f.GetContractId(), f.GetPackageName()
		n.Template, n.Interface = identifier(f.GetTemplateId()), identifier(f.GetInterfaceId())
		n.ByKey = f.GetByKey()
		n.ActingParties, n.Signatories, n.Stakeholders = f.GetActingParties(), f.GetSignatories(), f.GetStakeholders()
		n.Key, err = key(f.GetKey())
	case v1.GetRollback() != nil:
		n.Kind = KindRollback
		children = v1.GetRollback().GetChildren()
		rolledBack = true
	case v1.GetQueryByKey() != nil:
		q := v1.GetQueryByKey()
		n.Kind = KindQueryByKey
		n.LFVersion, n.PackageName = q.GetLfVersion(), q.GetPackageName()
		n.Template = identifier(q.GetTemplateId())
		n.Lookup = &KeyLookup{Exhaustive: q.GetExhaustive(), Found: nonNil(q.GetResult())}
		n.Key, err = key(q.GetKey())
	default:
		return nil, fmt.Errorf("node %q has no node type set", id)
	}
	if err != nil {
		return nil, fmt.Errorf("node %q: %w", id, err)
	}
	for _, c := range children {
		child, err := b.node(c, rolledBack, depth+1, "children of node "+id)
		if err != nil {
			return nil, err
		}
		n.Children = append(n.Children, child)
	}
	return n, nil
}

func countEffects(nodes []*Node, e *Effects) {
	for _, n := range nodes {
		if n.RolledBack && n.Kind != KindRollback {
			e.RolledBack++
		} else {
			ref := ContractRef{ContractID: n.ContractID, Template: n.Template}
			switch n.Kind {
			case KindCreate:
				e.Created = append(e.Created, ref)
			case KindExercise:
				e.Exercised++
				if n.Consuming {
					e.Archived = append(e.Archived, ref)
				}
			case KindFetch:
				e.Fetched++
			case KindQueryByKey:
				e.KeyLookups++
			}
		}
		countEffects(n.Children, e)
	}
}

func identifier(id *damlpb.Identifier) *Identifier {
	if id == nil {
		return nil
	}
	return &Identifier{
		Name:       id.GetModuleName() + ":" + id.GetEntityName(),
		PackageID:  id.GetPackageId(),
		ModuleName: id.GetModuleName(),
		EntityName: id.GetEntityName(),
	}
}

func key(k *damlpb.GlobalKeyWithMaintainers) (*Key, error) {
	if k == nil {
		return nil, nil
	}
	out := &Key{Maintainers: nonNil(k.GetMaintainers())}
	if h := k.GetKey().GetHash(); len(h) > 0 {
		out.Hash = hex.EncodeToString(h)
	}
	v, err := decodeValue(k.GetKey().GetKey(), 0)
	if err != nil {
		return nil, fmt.Errorf("key: %w", err)
	}
	out.Value = v
	return out, nil
}

// times reads the metadata's times; signsMRT says whether the hash covers
// max_record_time.
func times(meta *damlpb.Metadata, signsMRT bool, now time.Time) Times {
	t := Times{
		EvaluatedAt:     now.UTC().Format(time.RFC3339),
		PreparationTime: formatMicros(meta.GetPreparationTime()),
	}
	if meta.MinLedgerEffectiveTime != nil {
		t.MinLedgerEffectiveTime = formatMicros(meta.GetMinLedgerEffectiveTime())
	}
	// The earliest deadline signs within; on a tie the metadata's own
	// bounds come first.
	earliest := uint64(math.MaxUint64)
	consider := func(d *Deadline, us uint64) {
		if us < earliest {
			earliest, t.SignWithin = us, d
		}
	}
	if meta.MaxLedgerEffectiveTime != nil {
		mlet := meta.GetMaxLedgerEffectiveTime()
		t.MaxLedgerEffectiveTime = deadline("max_ledger_effective_time", mlet, now, true)
		if d := t.MaxLedgerEffectiveTime; d.Expired && mlet <= math.MaxInt64 {
			if past := now.Sub(time.UnixMicro(int64(mlet))); past < LedgerTimeTolerance {
				d.GraceLeft = humanDuration(LedgerTimeTolerance - past)
			}
		}
		consider(t.MaxLedgerEffectiveTime, mlet)
	}
	if meta.MaxRecordTime != nil {
		// Only V3 signs max_record_time; under V2 the node may change it.
		t.MaxRecordTime = deadline("max_record_time", meta.GetMaxRecordTime(), now, signsMRT)
		consider(t.MaxRecordTime, meta.GetMaxRecordTime())
	}
	prep := meta.GetPreparationTime()
	limit := uint64(math.MaxUint64)
	if tol := uint64(PreparationTimeTolerance / time.Microsecond); prep <= math.MaxUint64-tol {
		limit = prep + tol
	}
	// Both schemes hash the preparation time.
	t.Prepared = deadline("preparation_time + 24 h", limit, now, true)
	consider(t.Prepared, limit)
	return t
}

func deadline(field string, us uint64, now time.Time, signed bool) *Deadline {
	d := &Deadline{Field: field, Time: formatMicros(us), Signed: signed}
	if us > math.MaxInt64 {
		d.TimeLeft, d.SecondsLeft = "beyond any representable time", math.MaxInt64
		return d
	}
	d.TimeLeft, d.SecondsLeft, d.Expired = timeLeft(time.UnixMicro(int64(us)), now, "expired")
	return d
}

// timeLeft measures from now to at: "4m09s left", or, once at has passed,
// "<passed> 3m10s ago", with the seconds left (negative once passed).
func timeLeft(at, now time.Time, passed string) (text string, seconds int64, past bool) {
	left := at.Sub(now)
	if left <= 0 {
		return passed + " " + humanDuration(-left) + " ago", int64(left / time.Second), true
	}
	return humanDuration(left) + " left", int64(left / time.Second), false
}

// humanDuration writes d in its two largest units: "2d03h", "1h05m",
// "4m09s", "12s".
func humanDuration(d time.Duration) string {
	s := int64(d / time.Second)
	switch {
	case s >= 48*3600:
		return fmt.Sprintf("%dd%02dh", s/86400, s%86400/3600)
	case s >= 3600:
		return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
	case s >= 60:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%ds", s)
}

func warnings(r *Review, b *builder, res *Recomputed) []string {
	var w []string
	if res == nil {
		w = append(w, "the hash could not be recomputed: do not sign this transaction")
	}
	if mrt := r.Times.MaxRecordTime; mrt != nil && mrt.Expired {
		w = append(w, "max_record_time has passed: the synchronizer will reject this transaction")
	}
	if mlet := r.Times.MaxLedgerEffectiveTime; mlet != nil && mlet.Expired {
		// Canton clamps the ledger time into the bounds and accepts the
		// transaction while the record time is within the synchronizer's
		// ledgerTimeRecordTimeTolerance of it: passed is not yet too late.
		w = append(w, "max_ledger_effective_time has passed: Canton accepts the transaction only while its record time is within the ledger-time tolerance of it (60 s by default)")
	}
	if p := r.Times.Prepared; p != nil && p.Expired {
		w = append(w, "the transaction was prepared more than 24 hours ago: Canton refuses it (LOCAL_VERDICT_PREPARATION_TIME_OUT_OF_BOUND) unless the synchronizer's preparation-time tolerance is longer than its default; prepare again")
	}
	w = append(w, roundWarnings(r.Times)...)
	unsigned := res != nil && !res.SignsMaxRecordTime
	if r.Times.MaxRecordTime != nil && unsigned {
		w = append(w, "max_record_time is NOT covered by the signature under V2: whoever submits can change it; use V3 to sign it")
	}
	if len(r.GlobalKeyMapping) > 0 && unsigned {
		w = append(w, "the global key mapping is NOT covered by the signature under V2")
	}
	if len(r.Nodes) > 1 {
		w = append(w, fmt.Sprintf("the transaction has %d root nodes: participants refuse more than one by default", len(r.Nodes)))
	}
	if len(b.unreached) > 0 {
		w = append(w, "node(s) "+strings.Join(b.unreached, ", ")+" are not reachable from any root and are not shown")
	}
	if hasHiddenCharacters(r) {
		w = append(w, "some text in this transaction contains control or invisible characters; they are shown escaped (\\u…)")
	}
	if res != nil {
		w = append(w, res.Warnings...)
	}
	return w
}

// collectParties returns every party id the review mentions, sorted.
func collectParties(r *Review) []string {
	set := map[string]bool{}
	Walk(r, func(p string) { set[p] = true }, func(string) {})
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// walkReview calls party for every party id and contract for every contract
// id in r, in display order.
func Walk(r *Review, party, contract func(string)) {
	parties := func(ps []string) {
		for _, p := range ps {
			party(p)
		}
	}
	var value func(v *Value)
	value = func(v *Value) {
		if v == nil {
			return
		}
		switch v.Kind {
		case ValueParty:
			party(v.Scalar())
		case ValueContractID:
			contract(v.Scalar())
		}
		for _, f := range v.Fields {
			value(f.Value)
		}
		for _, e := range v.Elements {
			value(e)
		}
		for _, e := range v.Entries {
			value(e.Key)
			value(e.Value)
		}
		value(v.Inner)
	}
	key := func(k *Key) {
		if k != nil {
			value(k.Value)
			parties(k.Maintainers)
		}
	}
	parties(r.Submitter.ActAs)
	var node func(n *Node)
	node = func(n *Node) {
		if n.ContractID != "" {
			contract(n.ContractID)
		}
		parties(n.ActingParties)
		parties(n.Signatories)
		parties(n.Stakeholders)
		parties(n.ChoiceObservers)
		key(n.Key)
		value(n.Argument)
		value(n.Result)
		if n.Lookup != nil {
			for _, c := range n.Lookup.Found {
				contract(c)
			}
		}
		for _, c := range n.Children {
			node(c)
		}
	}
	for _, n := range r.Nodes {
		node(n)
	}
	for _, c := range r.InputContracts {
		contract(c.ContractID)
		parties(c.Signatories)
		parties(c.Stakeholders)
		key(c.Key)
		value(c.Argument)
	}
	for _, m := range r.GlobalKeyMapping {
		value(m.Key)
		value(m.Value)
	}
	if r.Origin != nil {
		for _, s := range r.Origin.Signatures {
			party(s.Party)
		}
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
