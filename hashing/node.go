package hashing

import (
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"
)

// Node kinds, in the Node oneof's field numbers, and their hash tags.
const (
	nodeCreate     = 1
	nodeFetch      = 2
	nodeExercise   = 3
	nodeRollback   = 4
	nodeQueryByKey = 5

	// The repeated children fields of Exercise and Rollback.
	exerciseChildren = 12
	rollbackChildren = 1

	tagCreateNode     = 0x00
	tagExerciseNode   = 0x01
	tagFetchNode      = 0x02
	tagRollbackNode   = 0x03
	tagQueryByKeyNode = 0x04
)

// nodeFields holds the singular fields of a create, fetch, exercise or
// query-by-key message as slices of the input; repeated fields are read
// again from msg when they are written.
type nodeFields struct {
	msg         []byte
	lfVersion   []byte
	lf          lfVersion
	contractID  []byte
	packageName []byte
	templateID  []byte
	argument    []byte // create.argument, exercise.chosen_value
	interfaceID []byte
	choiceID    []byte
	result      []byte // exercise.exercise_result
	key         []byte
	consuming   bool
	byKey       bool
	exhaustive  bool

	hasTemplateID, hasArgument, hasInterfaceID, hasResult, hasKey bool

	lists [4][][]byte
}

// Field numbers per message for the fields read by readNodeFields.
type nodeLayout struct {
	lfVersion, contractID, packageName, templateID, argument       protowire.Number
	interfaceID, choiceID, consuming, result, key, byKey, external protowire.Number
	exhaustive                                                     protowire.Number
	// lists are the repeated string fields, collected in the same pass:
	// signatories, stakeholders, acting parties, choice observers (for
	// query-by-key, the result contract ids in lists[0]).
	lists [4]protowire.Number
	// roles maps each field number to what it holds, so that reading a
	// field is one table lookup and one jump; filled by init.
	roles [maxNodeField + 1]fieldRole
}

// maxNodeField is the highest field number of any node message.
const maxNodeField = 17

// fieldRole is what a field of a node message holds.
type fieldRole uint8

const (
	roleNone fieldRole = iota
	roleList0
	roleList1
	roleList2
	roleList3
	roleLFVersion
	roleContractID
	rolePackageName
	roleTemplateID
	roleArgument
	roleInterfaceID
	roleChoiceID
	roleConsuming
	roleResult
	roleKey
	roleByKey
	roleExternal
	roleExhaustive
)

func (l *nodeLayout) fillRoles() {
	set := func(num protowire.Number, r fieldRole) {
		if num != 0 {
			l.roles[num] = r
		}
	}
	set(l.lfVersion, roleLFVersion)
	set(l.contractID, roleContractID)
	set(l.packageName, rolePackageName)
	set(l.templateID, roleTemplateID)
	set(l.argument, roleArgument)
	set(l.interfaceID, roleInterfaceID)
	set(l.choiceID, roleChoiceID)
	set(l.consuming, roleConsuming)
	set(l.result, roleResult)
	set(l.key, roleKey)
	set(l.byKey, roleByKey)
	set(l.external, roleExternal)
	set(l.exhaustive, roleExhaustive)
	for k, num := range l.lists {
		set(num, roleList0+fieldRole(k))
	}
}

func init() {
	for _, l := range []*nodeLayout{&createLayout, &fetchLayout, &exerciseLayout, &queryByKeyLayout} {
		l.fillRoles()
	}
}

// The list slots of nodeLayout.lists.
const (
	listSignatories = iota
	listStakeholders
	listActingParties
	listChoiceObservers
	listResult = 0
)

var (
	createLayout = nodeLayout{lfVersion: 1, contractID: 2, packageName: 3, templateID: 4, argument: 5, key: 8,
		lists: [4]protowire.Number{6, 7}}
	fetchLayout = nodeLayout{lfVersion: 1, contractID: 2, packageName: 3, templateID: 4, interfaceID: 8, key: 9, byKey: 10,
		lists: [4]protowire.Number{5, 6, 7}}
	exerciseLayout = nodeLayout{lfVersion: 1, contractID: 2, packageName: 3, templateID: 4, interfaceID: 8, choiceID: 9,
		argument: 10, consuming: 11, result: 13, key: 15, byKey: 16, external: 17,
		lists: [4]protowire.Number{5, 6, 7, 14}}
	queryByKeyLayout = nodeLayout{lfVersion: 1, packageName: 2, templateID: 3, exhaustive: 4, key: 5,
		lists: [4]protowire.Number{6}}
)

// listNames name the list slots in errors.
var listNames = [4]string{"signatories", "stakeholders", "acting_parties", "choice_observers"}

// nodeScratch backs the lists of one nodeFields without allocating; the
// hasher keeps one per nesting depth, as a parent's lists must outlive the
// hashing of its children.
type nodeScratch struct {
	lists [4][16][]byte
}

func readNodeFields(msg []byte, l *nodeLayout, sc *nodeScratch) (n nodeFields, err error) {
	n.msg = msg
	for i := range n.lists {
		n.lists[i] = sc.lists[i][:0]
	}
	var s seen
	r := reader{msg}
	var f field
	for {
		ok, err := r.read(&f)
		if err != nil {
			return n, err
		}
		if !ok {
			break
		}
		role := roleNone
		if f.Num <= maxNodeField {
			role = l.roles[f.Num]
		}
		switch role {
		case roleNone:
		case roleList0, roleList1, roleList2, roleList3:
			k := int(role - roleList0)
			if err := want(f, protowire.BytesType, listNames[k]); err != nil {
				return n, err
			}
			n.lists[k] = append(n.lists[k], f.Bytes)
		case roleLFVersion:
			n.lfVersion, err = s.bytesField(f, "lf_version")
		case roleContractID:
			n.contractID, err = s.bytesField(f, "contract_id")
		case rolePackageName:
			n.packageName, err = s.bytesField(f, "package_name")
		case roleTemplateID:
			n.templateID, err = s.bytesField(f, "template_id")
			n.hasTemplateID = true
		case roleArgument:
			n.argument, err = s.bytesField(f, "argument")
			n.hasArgument = true
		case roleInterfaceID:
			n.interfaceID, err = s.bytesField(f, "interface_id")
			n.hasInterfaceID = true
		case roleChoiceID:
			n.choiceID, err = s.bytesField(f, "choice_id")
		case roleResult:
			n.result, err = s.bytesField(f, "exercise_result")
			n.hasResult = true
		case roleKey:
			n.key, err = s.bytesField(f, "key")
			n.hasKey = true
		case roleConsuming:
			var v uint64
			if v, err = s.varintField(f, "consuming"); err == nil {
				n.consuming, err = boolValue(v, "consuming")
			}
		case roleByKey:
			var v uint64
			if v, err = s.varintField(f, "by_key"); err == nil {
				n.byKey, err = boolValue(v, "by_key")
			}
		case roleExhaustive:
			var v uint64
			if v, err = s.varintField(f, "exhaustive"); err == nil {
				n.exhaustive, err = boolValue(v, "exhaustive")
			}
		case roleExternal:
			err = errorf("external_call_results are only hashed by the development scheme V4; V2 and V3 refuse them")
		}
		if err != nil {
			return n, err
		}
	}
	n.lf = parseLFVersion(n.lfVersion)
	return n, nil
}

// checkVersion refuses node versions the scheme cannot hash and key data on
// nodes whose version cannot carry keys.
func (n *nodeFields) checkVersion(s Scheme) error {
	if n.lf == lfUnknown {
		return errorf("lf_version %q is not a Daml-LF serialization version this tool knows (\"2.1\" or \"2\")", clip(n.lfVersion))
	}
	if n.lf > s.maxLF() {
		return errorf("cannot hash a node with lf_version %q using hashing scheme %s; contract keys need HASHING_SCHEME_VERSION_V3", n.lfVersion, s.Short())
	}
	if n.lf < lf2 && (n.hasKey || n.byKey) {
		return errorf("a node with lf_version %q cannot carry a contract key or by_key", n.lfVersion)
	}
	return nil
}

func (n *nodeFields) requireTemplate() error {
	if !n.hasTemplateID {
		return errorf("template_id is missing")
	}
	return nil
}

// nodeHeader writes the V2 node-encoding version byte, lf_version and the
// tag. lf_version was checked against the known versions, so it is ASCII.
func (e *encoder) nodeHeader(s Scheme, lfVersion []byte, tag byte, name string) {
	if s == V2 {
		e.byte1(0x01, "01 (Node Encoding Version)")
	}
	e.section(name)
	if lfVersion != nil {
		e.section("Node Version")
		e.checkedString(lfVersion)
	}
	if e.trace != nil {
		e.byte1(tag, name+" Tag")
	} else {
		e.buf = append(e.buf, tag)
	}
}

// repeatedStrings writes field num of msg as a list of strings.
func (e *encoder) repeatedStrings(msg []byte, num protowire.Number, name string, sorted bool) error {
	e.section(name)
	var items [8][]byte
	list := items[:0]
	r := reader{msg}
	var f field
	for {
		ok, err := r.read(&f)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if f.Num == num {
			b, err := repeatedBytes(f, name)
			if err != nil {
				return err
			}
			list = append(list, b)
		}
	}
	return e.stringList(list, sorted)
}

// nodeList writes one of the node's party lists, which the participant
// hashes as sorted sets.
func (e *encoder) nodeList(n *nodeFields, k int, section string) error {
	e.section(section)
	return at(e.stringList(n.lists[k], true), listNames[k])
}

// createNode writes a create node. seed is nil for input contracts.
func (e *encoder) createNode(s Scheme, n *nodeFields, seed []byte, inTransaction bool) error {
	if err := n.checkVersion(s); err != nil {
		return err
	}
	if err := n.requireTemplate(); err != nil {
		return err
	}
	if !n.hasArgument {
		return errorf("argument is missing")
	}
	if inTransaction && seed == nil {
		return errorf("create node has no seed in node_seeds; the participant requires one")
	}
	e.nodeHeader(s, n.lfVersion, tagCreateNode, "Create Node")
	e.section("Node Seed")
	e.some(seed != nil)
	if seed != nil {
		e.raw(seed, "node seed")
	}
	e.section("Contract Id")
	if err := e.hexID(n.contractID); err != nil {
		return at(err, "contract_id")
	}
	e.section("Package Name")
	if err := e.string(n.packageName); err != nil {
		return at(err, "package_name")
	}
	e.section("Template Id")
	if err := e.identifier(n.templateID); err != nil {
		return at(err, "template_id")
	}
	e.section("Arg")
	if err := e.value(n.argument, 1); err != nil {
		return at(err, "argument")
	}
	if err := e.nodeList(n, listSignatories, "Signatories"); err != nil {
		return err
	}
	if err := e.nodeList(n, listStakeholders, "Stakeholders"); err != nil {
		return err
	}
	if s == V3 {
		return at(e.optionalKey(n), "key")
	}
	return nil
}

func (e *encoder) fetchNode(s Scheme, n *nodeFields) error {
	if err := n.checkVersion(s); err != nil {
		return err
	}
	if err := n.requireTemplate(); err != nil {
		return err
	}
	e.nodeHeader(s, n.lfVersion, tagFetchNode, "Fetch Node")
	e.section("Contract Id")
	if err := e.hexID(n.contractID); err != nil {
		return at(err, "contract_id")
	}
	e.section("Package Name")
	if err := e.string(n.packageName); err != nil {
		return at(err, "package_name")
	}
	e.section("Template Id")
	if err := e.identifier(n.templateID); err != nil {
		return at(err, "template_id")
	}
	if err := e.nodeList(n, listSignatories, "Signatories"); err != nil {
		return err
	}
	if err := e.nodeList(n, listStakeholders, "Stakeholders"); err != nil {
		return err
	}
	e.section("Interface Id")
	if err := e.optionalIdentifier(n.interfaceID, n.hasInterfaceID); err != nil {
		return at(err, "interface_id")
	}
	if err := e.nodeList(n, listActingParties, "Acting Parties"); err != nil {
		return err
	}
	if s == V3 {
		e.section("By Key")
		e.bool(n.byKey)
		return at(e.optionalKey(n), "key")
	}
	return nil
}

// exerciseNode writes an exercise node; children are the hashes of its
// children, already computed.
func (e *encoder) exerciseNode(s Scheme, n *nodeFields, seed []byte, children [][32]byte, childTraces []*Trace) error {
	if err := n.checkVersion(s); err != nil {
		return err
	}
	if err := n.requireTemplate(); err != nil {
		return err
	}
	if seed == nil {
		return errorf("exercise node has no seed in node_seeds; the participant requires one")
	}
	if len(n.choiceID) == 0 {
		return at(errorf("choice_id is empty"), "choice_id")
	}
	if !n.hasArgument {
		return at(errorf("chosen_value is missing"), "chosen_value")
	}
	e.nodeHeader(s, n.lfVersion, tagExerciseNode, "Exercise Node")
	e.section("Node Seed")
	e.raw(seed, "node seed")
	e.section("Contract Id")
	if err := e.hexID(n.contractID); err != nil {
		return at(err, "contract_id")
	}
	e.section("Package Name")
	if err := e.string(n.packageName); err != nil {
		return at(err, "package_name")
	}
	e.section("Template Id")
	if err := e.identifier(n.templateID); err != nil {
		return at(err, "template_id")
	}
	if err := e.nodeList(n, listSignatories, "Signatories"); err != nil {
		return err
	}
	if err := e.nodeList(n, listStakeholders, "Stakeholders"); err != nil {
		return err
	}
	if err := e.nodeList(n, listActingParties, "Acting Parties"); err != nil {
		return err
	}
	e.section("Interface Id")
	if err := e.optionalIdentifier(n.interfaceID, n.hasInterfaceID); err != nil {
		return at(err, "interface_id")
	}
	e.section("Choice Id")
	if err := e.string(n.choiceID); err != nil {
		return at(err, "choice_id")
	}
	e.section("Chosen Value")
	if err := e.value(n.argument, 1); err != nil {
		return at(err, "chosen_value")
	}
	e.section("Consuming")
	e.bool(n.consuming)
	e.section("Exercise Result")
	e.some(n.hasResult)
	if n.hasResult {
		if err := e.value(n.result, 1); err != nil {
			return at(err, "exercise_result")
		}
	}
	if err := e.nodeList(n, listChoiceObservers, "Choice Observers"); err != nil {
		return err
	}
	if s == V3 {
		e.section("By Key")
		e.bool(n.byKey)
		if err := e.optionalKey(n); err != nil {
			return at(err, "key")
		}
	}
	e.childHashes(children, childTraces)
	return nil
}

func (e *encoder) childHashes(children [][32]byte, traces []*Trace) {
	e.section("Children")
	e.int32(uint32(len(children)))
	for i := range children {
		if traces != nil {
			e.trace.nest(traces[i])
		}
		e.raw(children[i][:], "(Hashed Inner Node)")
	}
}

func (e *encoder) rollbackNode(s Scheme, children [][32]byte, childTraces []*Trace) {
	e.nodeHeader(s, nil, tagRollbackNode, "Rollback Node")
	e.childHashes(children, childTraces)
}

func (e *encoder) queryByKeyNode(s Scheme, n *nodeFields) error {
	if s != V3 {
		return errorf("query-by-key nodes exist only in hashing scheme V3")
	}
	if err := n.checkVersion(s); err != nil {
		return err
	}
	if n.lf < lf2 {
		return errorf("a query-by-key node needs lf_version \"2\", not %q", n.lfVersion)
	}
	if err := n.requireTemplate(); err != nil {
		return err
	}
	if !n.hasKey {
		return at(errorf("key is missing"), "key")
	}
	e.nodeHeader(s, n.lfVersion, tagQueryByKeyNode, "QueryByKey Node")
	e.section("Package Name")
	if err := e.string(n.packageName); err != nil {
		return at(err, "package_name")
	}
	e.section("Template Id")
	if err := e.identifier(n.templateID); err != nil {
		return at(err, "template_id")
	}
	e.section("Exhaustive")
	e.bool(n.exhaustive)
	e.section("Key")
	if err := e.keyWithMaintainers(n.key); err != nil {
		return at(err, "key")
	}
	e.section("Result")
	e.int32(uint32(len(n.lists[listResult])))
	for i, cid := range n.lists[listResult] {
		if err := e.hexID(cid); err != nil {
			return atIndex(err, "result", i)
		}
	}
	return nil
}

func (e *encoder) optionalKey(n *nodeFields) error {
	e.section("Key")
	e.some(n.hasKey)
	if n.hasKey {
		return e.keyWithMaintainers(n.key)
	}
	return nil
}

// keyWithMaintainers writes a GlobalKeyWithMaintainers: string(package_name)
// ‖ Identifier(template_id) ‖ Value(key) ‖ hash (32 raw bytes) ‖ maintainers.
func (e *encoder) keyWithMaintainers(b []byte) error {
	var s seen
	var gk []byte
	hasKey := false
	r := reader{b}
	var f field
	for {
		ok, err := r.read(&f)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if f.Num == 1 {
			if gk, err = s.bytesField(f, "key"); err != nil {
				return err
			}
			hasKey = true
		}
	}
	if !hasKey {
		return errorf("global key is missing")
	}
	var gs seen
	var tmpl, pkg, val, hash []byte
	var hasTmpl, hasVal bool
	r = reader{gk}
	for {
		ok, err := r.read(&f)
		if err != nil {
			return at(err, "key")
		}
		if !ok {
			break
		}
		switch f.Num {
		case 1:
			tmpl, err = gs.bytesField(f, "template_id")
			hasTmpl = true
		case 2:
			pkg, err = gs.bytesField(f, "package_name")
		case 3:
			val, err = gs.bytesField(f, "key")
			hasVal = true
		case 4:
			hash, err = gs.bytesField(f, "hash")
		}
		if err != nil {
			return at(err, "key")
		}
	}
	if !hasTmpl {
		return at(errorf("template_id is missing"), "key")
	}
	if !hasVal {
		return at(errorf("key value is missing"), "key")
	}
	if len(hash) != 32 {
		return at(errorf("key hash has %d bytes, want 32", len(hash)), "key.hash")
	}
	e.section("Key Package Name")
	if err := e.string(pkg); err != nil {
		return at(err, "key.package_name")
	}
	e.section("Key Template Id")
	if err := e.identifier(tmpl); err != nil {
		return at(err, "key.template_id")
	}
	e.section("Key Value")
	if err := e.value(val, 1); err != nil {
		return at(err, "key.key")
	}
	e.raw(hash, "key hash")
	return at(e.repeatedStrings(b, 2, "Maintainers", true), "maintainers")
}

func nodeIDText(id int32) string { return strconv.FormatInt(int64(id), 10) }
