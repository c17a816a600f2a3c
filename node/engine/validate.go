package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ledger-cli/ledger/daml/contract"
	"github.com/ledger-cli/ledger/daml/engine/preprocess"
	"github.com/ledger-cli/ledger/daml/interp"
	"github.com/ledger-cli/ledger/hashing"
	"github.com/ledger-cli/ledger/ledgerapi"
	"github.com/ledger-cli/ledger/node/generic"
	"github.com/ledger-cli/ledger/node/ledger"
)

// The request checks below follow Canton's validators: an empty mandatory
// field is MISSING_FIELD, a malformed one INVALID_FIELD, a malformed party
// INVALID_ARGUMENT.

func validateUserID(userID string) error {
	if userID == "" {
		return missingField("user_id")
	}
	if err := ledgerapi.ValidateUserID("user_id", userID); err != nil {
		return invalidField("user_id", "%s", reason(err))
	}
	return nil
}

func validateRequiredLedgerString(field, s string) error {
	if s == "" {
		return missingField(field)
	}
	if err := ledgerapi.ValidateLedgerString(field, s); err != nil {
		return invalidField(field, "%s", reason(err))
	}
	return nil
}

// reason is the message of a ledgerapi.FieldError without the field name.
func reason(err error) string {
	var fe *ledgerapi.FieldError
	if errors.As(err, &fe) {
		return fe.Reason
	}
	return err.Error()
}

// validateSubmitters checks party syntax and returns actAs sorted without
// repeats, and readAs without the actAs parties.
func validateSubmitters(actAs, readAs []string) ([]string, []string, error) {
	act := map[string]bool{}
	for _, p := range actAs {
		if err := ledgerapi.ValidatePartyID("actAs", p); err != nil {
			return nil, nil, invalidArgument("%s", reason(err))
		}
		act[p] = true
	}
	read := map[string]bool{}
	for _, p := range readAs {
		if err := ledgerapi.ValidatePartyID("readAs", p); err != nil {
			return nil, nil, invalidArgument("%s", reason(err))
		}
		if !act[p] {
			read[p] = true
		}
	}
	if len(act) == 0 {
		return nil, nil, missingField("party or act_as")
	}
	return sortedSet(act), sortedSet(read), nil
}

// checkKnownSubmitters refuses actAs parties the node does not know.
func (e *Engine) checkKnownSubmitters(ctx context.Context, actAs []string) error {
	var unknown []string
	for _, p := range actAs {
		ok, err := e.parties.IsKnownParty(ctx, p)
		if err != nil {
			return err
		}
		if !ok {
			unknown = append(unknown, p)
		}
	}
	if len(unknown) > 0 {
		return ledgerapi.NewError(CodeUnknownSubmitters,
			"The participant is not connected to any synchronizer where the given submitters are known.",
			map[string]string{"unknownSubmitters": strings.Join(unknown, ",")})
	}
	return nil
}

// checkSynchronizer accepts "" (the node picks), the node's synchronizer id,
// or its logical part when the configured id is a physical one.
func (e *Engine) checkSynchronizer(field, s string) error {
	if s == "" || s == e.cfg.SynchronizerID {
		return nil
	}
	// Canton parses the id as a unique identifier (name::namespace), then
	// routing resolves it to a synchronizer the participant is connected to.
	switch pos := strings.Index(s, "::"); {
	case ledgerapi.ValidateLedgerString(field, s) != nil:
		return invalidField(field, "%q is not a synchronizer id (name::namespace)", clip(s))
	case pos < 0:
		return invalidField(field, "Invalid unique identifier `%s` with missing namespace.", clip(s))
	case pos == 0:
		return invalidField(field, "Invalid unique identifier `%s` with empty identifier.", clip(s))
	}
	if strings.HasPrefix(e.cfg.SynchronizerID, s+"::") {
		return nil
	}
	return ledgerapi.NewError(CodeInvalidPrescribedSynchronizerID,
		fmt.Sprintf("Cannot submit transaction to prescribed synchronizer `%s` because: cannot resolve %s to a physical synchronizer id", s, s),
		map[string]string{"synchronizer_id": s})
}

// commands are the commands of a request, read: by the types of their
// packages (daml, the interpreter's), or by the generic contract model
// (generic). run refuses a request with both.
type commands struct {
	daml    []interp.Command
	generic []generic.Command
}

func (c *commands) len() int { return len(c.daml) + len(c.generic) }

// genericTemplates are the templates the generic contract model serves in
// these commands (package-id form, sorted, each once): the node says so in
// its answer, since no Daml code of theirs runs.
func (c *commands) genericTemplates() []string {
	var out []string
	for _, g := range c.generic {
		t := g.TemplateRef
		if g.Template.ID != nil {
			t = g.Template.String()
		}
		out = append(out, t)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// parseCommands checks the syntax of each command and turns its JSON
// arguments into Daml values: by the Daml-LF types of the template's
// package when it was uploaded (daml/engine/preprocess), else by the
// generic rule.
func (e *Engine) parseCommands(ctx context.Context, cmds []ledgerapi.Command, preference []string) (commands, error) {
	if len(cmds) == 0 {
		return commands{}, missingField("commands")
	}
	budget := e.cfg.MaxValueNodes
	p := commandParser{e: e, preference: preference, check: e.partyCheck(ctx), budget: &budget,
		typed: preprocess.Reader{Packages: e.cfg.Packages(), Preference: preference, Now: e.now(), Budget: &budget}}
	var out commands
	for i, c := range cmds {
		path := fmt.Sprintf("commands[%d]", i)
		tc, typed, err := p.typed.Command(c, path)
		if err != nil {
			return commands{}, err
		}
		if typed {
			e.logModel(tc.Template.String(), tc.Template.PackageName, true)
			out.daml = append(out.daml, tc.Daml)
			continue
		}
		t, err := p.template(tc.TemplateID)
		if err != nil {
			return commands{}, err
		}
		cmd, err := generic.ReadCommand(c, t, path, p.check, p.budget)
		if err != nil {
			return commands{}, err
		}
		out.generic = append(out.generic, cmd)
	}
	return out, nil
}

// commandParser is what parsing the commands of one request shares.
type commandParser struct {
	e          *Engine
	preference []string
	check      generic.PartyCheck
	budget     *int
	typed      preprocess.Reader
}

// template resolves the template id of a command no uploaded package
// serves: refused when StrictPackages, else by the generic model.
func (p *commandParser) template(tid ledgerapi.TemplateID) (generic.Template, error) {
	if p.e.cfg.StrictPackages {
		return generic.Template{}, preprocess.StrictRefusal(tid, p.preference)
	}
	t := generic.ResolveTemplate(tid, p.preference, p.e.cfg.PackageNames)
	p.e.logModel(t.String(), t.PackageName, false)
	return t, nil
}

// checkDisclosed validates disclosed contracts and returns them, in the
// order given (repeats left out), as their authenticated blobs describe
// them. A blob must decode to Canton's FatContractInstance, agree with the
// contract and template ids sent beside it, and authenticate against its
// contract id (blob.go); what the node holds under that id only says
// whether the contract is still active.
func (e *Engine) checkDisclosed(ctx context.Context, dcs []ledgerapi.DisclosedContract, actAs, readAs []string) (*disclosedSet, error) {
	out := &disclosedSet{byID: map[string]*ledger.Contract{}}
	blobs := map[string][]byte{}
	for _, dc := range dcs {
		if len(dc.CreatedEventBlob) == 0 {
			return nil, missingField("DisclosedContract.createdEventBlob")
		}
		var tmplID *ledgerapi.TemplateID
		if dc.TemplateID != "" {
			t, err := ledgerapi.ParseTemplateID(dc.TemplateID)
			if err != nil {
				return nil, invalidField("DisclosedContract.template_id", "%s", reason(err))
			}
			tmplID = &t
		}
		if dc.ContractID != "" {
			if err := ValidateContractID(dc.ContractID); err != nil {
				return nil, invalidField("DisclosedContract.contract_id", "%v", err)
			}
		}
		if err := e.checkSynchronizer("DisclosedContract.synchronizer_id", dc.SynchronizerID); err != nil {
			return nil, err
		}
		c, err := contract.DecodeBlob(dc.CreatedEventBlob)
		if err != nil {
			return nil, invalidArgument("Unable to decode disclosed contract event payload: DecodeError(%v)", err)
		}
		cid := string(c.ID)
		if dc.ContractID != "" && dc.ContractID != cid {
			return nil, invalidArgument("Mismatch between DisclosedContract.contract_id (%s) and contract_id from decoded DisclosedContract.created_event_blob (%s)", dc.ContractID, cid)
		}
		if tmplID != nil {
			got := c.TemplateID
			same := tmplID.Module == got.ModuleName && tmplID.Entity == got.EntityName &&
				(tmplID.ByName() && tmplID.PackageName == c.PackageName || !tmplID.ByName() && tmplID.PackageID == got.PackageID)
			if !same {
				return nil, invalidArgument("Mismatch between DisclosedContract.template_id (%s) and template_id from decoded DisclosedContract.created_event_blob (%s:%s:%s)",
					dc.TemplateID, got.PackageID, got.ModuleName, got.EntityName)
			}
		}
		if prev, dup := blobs[cid]; dup {
			if !bytes.Equal(prev, dc.CreatedEventBlob) {
				return nil, invalidArgument("Disclosed contract %s is given twice with different payloads", cid)
			}
			continue
		}
		blobs[cid] = dc.CreatedEventBlob
		if err := ValidateContractID(cid); err != nil {
			return nil, invalidArgument("Unable to decode disclosed contract event payload: DecodeError(%v)", err)
		}
		stored, err := e.contracts.LookupContract(ctx, cid)
		if err != nil {
			return nil, err
		}
		if err := e.authenticate(c, dc.CreatedEventBlob, stored, actAs, readAs, "the created_event_blob of contract"); err != nil {
			return nil, err
		}
		if stored == nil {
			// A contract this node never held may come from another
			// participant, but not one with a party of this node among
			// its stakeholders: that participant is this node, which
			// would hold it (Canton's confirming participant refuses
			// such a contract as inactive).
			for _, p := range c.Stakeholders {
				known, err := e.parties.IsKnownParty(ctx, p)
				if err != nil {
					return nil, err
				}
				if known {
					return nil, ContractNotFound(cid)
				}
			}
			out.foreign = append(out.foreign, c.Stakeholders...)
			out.notHeld = append(out.notHeld, cid)
		}
		lc, err := e.ledgerContractOf(c, stored)
		if err != nil {
			return nil, invalidArgument("Unable to decode disclosed contract event payload: DecodeError(%v)", err)
		}
		if stored != nil && (stored.Salt == nil || e.typesOf(c) == nil) {
			// Created before Canton's ids, the blob was its exact
			// description; of the generic model, the authenticated blob
			// is its content but for the field labels, which the blob
			// does not carry and the stored copy keeps.
			lc = stored
		}
		out.ids = append(out.ids, cid)
		out.byID[cid] = lc
	}
	return out, nil
}

// disclosedSet are the disclosed contracts of a request, authenticated,
// in the order given.
type disclosedSet struct {
	ids  []string
	byID map[string]*ledger.Contract
	// foreign are the stakeholders of the disclosed contracts this node
	// does not hold: parties of other participants, known to the
	// synchronizer the contracts come from.
	foreign []string
	// notHeld are the ids of the disclosed contracts this node does not
	// hold: the node cannot tell whether they are active (the synchronizer
	// they come from does), so a transaction that uses them does not ask
	// the store to check them.
	notHeld []string
}

// held returns ids without those of disclosed contracts the node does not
// hold.
func (d *disclosedSet) held(ids []string) []string {
	if d == nil || len(d.notHeld) == 0 {
		return ids
	}
	out := ids[:0:0]
	for _, id := range ids {
		if !slices.Contains(d.notHeld, id) {
			out = append(out, id)
		}
	}
	return out
}

// Foreign returns the stakeholders of disclosed contracts the node does
// not hold (nil for a nil set).
func (d *disclosedSet) Foreign() []string {
	if d == nil {
		return nil
	}
	return d.foreign
}

// IDs returns the contract ids in order (nil for a nil set).
func (d *disclosedSet) IDs() []string {
	if d == nil {
		return nil
	}
	return d.ids
}

// lookupContract finds a contract for a command: a disclosed one as its
// blob describes it, else the store's.
func (e *Engine) lookupContract(ctx context.Context, d *disclosedSet, id string) (*ledger.Contract, error) {
	if d != nil {
		if c := d.byID[id]; c != nil {
			cp := *c
			return &cp, nil
		}
	}
	return e.contracts.LookupContract(ctx, id)
}

func validatePackagePreference(prefs []string) error {
	for _, p := range prefs {
		if err := validatePackageID(p); err != nil {
			return invalidField("package_id_selection_preference", "%v", err)
		}
	}
	return nil
}

// validatePrefetch checks prefetchContractKeys as Canton does: a template
// of an uploaded package must have a key and the key must be a value of
// its key type (COMMAND_PREPROCESSING_FAILED otherwise); a template of the
// generic model takes any JSON. Prefetching only warms Canton's caches, so
// valid entries have no effect here.
func (e *Engine) validatePrefetch(keys []ledgerapi.PrefetchContractKey, preference []string) error {
	set := e.cfg.Packages()
	budget := e.cfg.MaxValueNodes
	for i, k := range keys {
		if k.TemplateID == "" {
			return missingField("template_id")
		}
		tid, err := ledgerapi.ParseTemplateID(k.TemplateID)
		if err != nil {
			return invalidField("template_id", "%s", reason(err))
		}
		if len(bytes.TrimSpace(k.ContractKey)) == 0 {
			return missingField("contract_key")
		}
		if k.Limit != nil && *k.Limit == 0 {
			return invalidArgument("limit must be a positive integer, but got 0")
		}
		r := preprocess.Reader{Packages: set, Preference: preference, Now: e.now(), Budget: &budget}
		t, typed, err := r.Template(tid, false)
		if err != nil {
			return err
		}
		if !typed {
			if _, err := generic.ValueFromJSON(k.ContractKey, "prefetchContractKeys.contractKey", nil); err != nil {
				return generic.ArgumentError(err)
			}
			continue
		}
		if sig, _ := set.Env.Template(t.Con); sig.Key == nil {
			return preprocessingFailed("Template of prefetched contract key does not define a key: %s (%s)", k.TemplateID, bytes.TrimSpace(k.ContractKey))
		}
		if _, err := r.ContractKey(t, k.ContractKey, fmt.Sprintf("prefetchContractKeys[%d].contractKey", i)); err != nil {
			return err
		}
	}
	return nil
}

func (e *Engine) validateTaps(taps *ledgerapi.Int32) error {
	if taps == nil {
		return nil
	}
	if *taps <= 0 {
		return invalidArgument("taps_max_passes must be strictly positive, but got %d.", *taps)
	}
	if int32(*taps) > e.cfg.TapsMaxPassesLimit {
		return invalidArgument("taps_max_passes %d exceeds the participant-configured limit %d.", *taps, e.cfg.TapsMaxPassesLimit)
	}
	return nil
}

// parseScheme reads hashingSchemeVersion. In prepare an absent value means
// V2; execute needs one.
func parseScheme(v ledgerapi.HashingSchemeVersion, required bool) (hashing.Scheme, error) {
	switch v {
	case "":
		if required {
			return 0, missingField("hashing_scheme_version")
		}
		return hashing.V2, nil
	case ledgerapi.HashingSchemeVersionV2:
		return hashing.V2, nil
	case ledgerapi.HashingSchemeVersionV3:
		return hashing.V3, nil
	case ledgerapi.HashingSchemeVersionUnspecified:
		return 0, invalidField("hashing_scheme_version", "Unspecified version")
	}
	return 0, invalidField("hashing_scheme_version", "Unrecognized version %s", v)
}

// checkDedup validates a deduplication period. A well-formed period longer
// than the node's maximum is not an error here: Canton reports it as a
// rejected completion, so it comes back as the rejection to record.
func (e *Engine) checkDedup(p ledgerapi.DeduplicationPeriod) (rejection *ledgerapi.JsCantonError, err error) {
	switch {
	case p.Duration != nil:
		d := p.Duration.Std()
		if p.Duration.Seconds < 0 || p.Duration.Nanos < 0 {
			return nil, invalidField("deduplication_period", "Duration must be positive")
		}
		if d > e.cfg.MaxDeduplication {
			return ledgerapi.NewError(ledgerapi.CodeInvalidDeduplicationPeriod,
				fmt.Sprintf("The submitted command had an invalid deduplication period: The given deduplication duration of %s exceeds the maximum deduplication duration of %s",
					d, e.cfg.MaxDeduplication),
				map[string]string{"longest_duration": e.cfg.MaxDeduplication.String()}), nil
		}
	case p.Offset != nil:
		if *p.Offset < 0 {
			return nil, ledgerapi.NewError(ledgerapi.CodeNegativeOffset,
				fmt.Sprintf("Offset %d in deduplication_period is a negative integer: the deduplication offset has to be a non-negative integer and not %d", *p.Offset, *p.Offset),
				map[string]string{"field_name": "deduplication_period", "offset_value": fmt.Sprint(*p.Offset)})
		}
	}
	return nil, nil
}
