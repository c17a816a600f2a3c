// Package engine is the command engine of the participant node. It turns
// JSON Ledger API commands into Canton PreparedTransactions (prepare), checks
// and interprets prepared transactions signed by external parties (execute),
// and interprets ordinary submissions (submit-and-wait and friends). It
// knows neither HTTP nor SQL: it reads contracts and parties through the
// small interfaces in engine.go, and returns an Outcome whose records are
// package ledger's. The node service commits that outcome through the
// store, which assigns offsets and record times, deduplicates and checks
// that contracts are still active.
//
// # Typed commands
//
// A command whose template id names an uploaded package (Config.Packages)
// is typed, and read by the engine's command preprocessing
// (daml/engine/preprocess, which the client's type check shares):
// "pkg:M:E" when package pkg was uploaded, "#name:M:E"
// by the preferred vetted package of that name (the packageIdSelectionPreference
// entry of that name, else the highest version). Its create and choice
// arguments are read by the package's Daml-LF types as Canton's JSON API
// reads them (package daml/typed), written into the transaction as Canton's
// engine writes values (record, variant and enum ids, field labels, trailing
// None fields left out), and shown in events by their types (ArgumentJSON).
// A template or choice the package lacks, and an argument that does not fit
// its type, get Canton's errors with the field path. With
// Config.StrictPackages, templates of packages never uploaded are refused
// (TEMPLATES_OR_INTERFACES_NOT_FOUND, or JSON_API_PACKAGE_SELECTION_FAILED
// for a package name) instead of being served by the generic model.
//
// # Daml commands
//
// Typed commands run in the Daml engine (package daml/engine, over the
// interpreter daml/interp) with every uploaded package (daml.go): ensure clauses, signatories, observers,
// controllers, choice observers, authorization, child nodes, node seeds and
// contract ids are the package's and Canton's. The interpreter's
// submission has a fresh 32-byte submission seed, Config.ParticipantID,
// the preparation time (now) and the ledger time (now, or the request's
// minimum ledger time when later); it reads the node's active contracts
// visible to actAs and readAs (a stakeholder among them) or disclosed,
// their arguments typed by their template. A contract created by the
// generic model of a package uploaded since does not fit its template and
// is refused (DAML_INTERPRETATION_ERROR). Interpretation failures answer
// the interpreter's Canton error id, category and cause; the context adds
// the error's metadata (error_id of DAML_FAILURE) and where it happened
// (template, choice, location). The transaction's nodes become
// PreparedTransaction nodes as Canton's interactive submission service
// writes them: pre-order node ids, values with type ids and labels and no
// trailing None fields, parties as sorted sets, lf_version per node, a
// seed per create and exercise node, fetch nodes included; its ledger-time
// bounds become min/max_ledger_effective_time (nothing when it does not
// read the time: the request's minLedgerTime only sets the ledger time);
// the contracts it read from the ledger are the input contracts. Exercises
// and fetches through an interface name it (interface_id) beside the
// contract's template. A try block that was rolled back is a rollback node
// holding what it did; an exercise it cut short has no result. Events
// keep node ids (fetch, query-by-key and rollback nodes make none but keep
// their id; nothing under a rollback makes an event or has an effect, as
// Canton's indexer skips them), lastDescendantNodeId over every descendant
// but rollbacks and what they hold, arguments and results shown by their
// types, interfaceId on exercises through an interface, and witnesses as
// Canton's disclosure: a node's informees and whoever sees its parent. An
// exception no handler catches answers DAML_FAILURE with error_id
// UNHANDLED_EXCEPTION/… and the exception's message. Commands on uploaded
// and on never uploaded packages cannot be mixed in one submission
// (COMMAND_PREPROCESSING_FAILED).
//
// The interpreter runs with Canton 3.5's contract state (protocol version
// 35: a rollback of a created or consumed contract is
// DAML_EFFECTFUL_ROLLBACK_ERROR) and resolves package names as the node
// does: packageIdSelectionPreference, else the highest vetted version
// valid now; execute re-interprets with the packages the prepared
// transaction names.
//
// # Contract keys
//
// Keys are Canton 3.5's (Daml-LF 2.3, not unique). A create of a keyed
// template carries its key and maintainers, and every node of a keyed
// template (and the input contract of a keyed contract) has lf_version "2"
// with its key; the transaction's version is then "2", which only hashing
// scheme V3 hashes: prepare under V2 answers Canton's
// FAILED_TO_PREPARE_TRANSACTION "Cannot hash node with LF serialization
// version V2 using hashing scheme V2. Does the transaction use contract
// keys? Please using hashing scheme V3 or higher." (execute likewise, with
// FAILED_TO_EXECUTE_TRANSACTION). ExerciseByKeyCommand runs on typed
// templates; prefetchContractKeys are checked against the key type and
// otherwise ignored. The interpreter finds contracts by key through the
// store (ContractReader.ActiveContractsByKey): the disclosed contracts with
// the key first, then the active ones the submitters see, most recently
// created first, as Canton's participant answers; re-interpreting, among
// the input contracts. Events show contractKey and contractKeyHash.
//
// # The generic contract model
//
// Templates of packages never uploaded run no Daml code: the node accepts
// any such template id and applies one fixed model to it, package
// node/generic: its rule from JSON to values and back, its commands, its
// template ids and contract ids, and the transactions it makes
// (generic.Build). Its values are the engine's (daml/value) and its
// transactions daml/tx transactions, as the interpreter's are; they become
// protobuf only where a prepared transaction is written
// (daml/engine.EncodeUntypedTransaction: every record field kept, trailing
// None ones too) and where an argument is stored (stored.go). The pipeline
// gives it the node's contracts and checks a prepared transaction of the
// model at execute (execute.go), comparing the transaction it rebuilds, so
// written, with the prepared one:
//
//   - Commands. CreateCommand, ExerciseCommand and CreateAndExerciseCommand.
//     ExerciseByKeyCommand is refused with COMMAND_PREPROCESSING_FAILED (the
//     model has no contract keys); prefetchContractKeys are checked and
//     otherwise ignored. Prepare takes exactly one command, as Canton does
//     (FAILED_TO_PREPARE_TRANSACTION otherwise); submissions may carry
//     several, each adding its nodes as further roots.
//
//   - Template ids. "pkg:Module:Entity" has package id pkg and the package
//     name Config.PackageNames gives pkg, else pkg itself.
//     "#name:Module:Entity" has package name name and package id
//     generic.PackageIDForName(name), the lower-case hex SHA-256 of the name, unless
//     packageIdSelectionPreference lists a package id that
//     Config.PackageNames maps to name. Events show the package-id form.
//
//   - Arguments. JSON becomes a Daml value by one rule: an object becomes a
//     record whose fields are its members sorted by key (JSON objects are
//     unordered; sorting makes the value, hence the hash, deterministic;
//     keys must be Daml names [A-Za-z$_][A-Za-z0-9$_]*, none twice); an
//     array a list; a string a party when it is a party id the node knows,
//     otherwise text (contract ids stay text); a number an int64 when it is
//     an integer that fits (parsed from its text, never through float64),
//     otherwise a numeric in canonical form with the scale it is written
//     with ("1.50" → 1.50, "1.5e-3" → 0.0015, an integer beyond int64 →
//     scale 0), at most 38 digits and scale 37; true/false a bool; null an
//     empty optional. Values nest at most 100 deep. The create argument must
//     be an object; its record carries the template as type id. A choice
//     argument may be any JSON; in a CreateAndExerciseCommand an object gets
//     the type id Module:Choice of the template's package. The inverse,
//     ValueToJSON, writes Daml-LF JSON as Canton's events show it (int64
//     and numerics as strings), so a number does not come back as a number.
//
//   - Parties. The signatories of a new contract are the acting parties
//     (actAs); its stakeholders are the signatories and every party value in
//     its argument; observers are stakeholders minus signatories.
//
//   - Choices. Any choice name may be exercised on any active contract of
//     the named template that one of actAs and readAs sees (a stakeholder)
//     or that disclosedContracts hands in. The acting parties are actAs,
//     there are no choice observers, no child nodes, and the result is unit.
//     A choice is consuming (archives the contract) unless
//     Config.NonconsumingChoices names it; "Archive" always consumes.
//     Exercising an unknown, archived or invisible contract is
//     CONTRACT_NOT_FOUND; a template other than the contract's is
//     WRONGLY_TYPED_CONTRACT (interface choices are not supported).
//
//   - Contract ids. Canton's V1 form: a local id ("00" and a 32-byte
//     discriminator in lower-case hex, the discriminator being
//     SHA-256("ledger-serve/contract-id" ‖ seed of the create node)) in
//     the prepared transaction, suffixed at commit (ca11; see Contract
//     ids below).
//
// # Contract ids
//
// Transactions are built and prepared with local ids, as Canton's
// interactive submission shows them. When a transaction is accepted
// (submit, execute), each contract it creates gets Canton's suffixed id
// (canton.go, daml/contract): ca12 for templates of uploaded packages, ca11
// for the generic model, from a salt derived from a fresh 16-byte seed
// (Config.Rand), the create's root view and index, the transaction's UUID
// (the prepared transaction's for execute) and the synchronizer id; local
// ids inside later arguments, choice arguments and results, events and
// archives are rewritten. The salt is stored with the contract; its
// createdEventBlob is Canton's FatContractInstance (blob.go). Executing a
// prepared transaction whose creates exist already (by discriminator) is
// refused.
//
// # Disclosed contracts
//
// A disclosed contract's blob must decode to Canton's FatContractInstance,
// agree with the contract and template ids sent beside it, and
// authenticate against its contract id (contract.Authenticate, typed by
// its creating package when uploaded): the suffix's version picks the
// hash, the unicum is recomputed from the salt, created_at, parties, key
// and hash. A blob that does not is DISCLOSED_CONTRACT_AUTHENTICATION_FAILED,
// the same answer whether or not the node holds that id; the store is only
// asked whether a contract is still active. The interpreter and the
// generic model use the authenticated content, so contracts from a real
// Canton participant work: a disclosed contract the node does not hold is
// taken as active (the synchronizer it comes from is the judge of that; it
// is left out of the inputs the store checks), its stakeholders count as
// known informees, and it may not name a party of this node as a
// stakeholder (CONTRACT_NOT_FOUND: this node would hold it). Contracts stored before schema version 8 have
// ids without a suffix: their blobs are taken only from a submission with
// a stakeholder among its parties, and only when they describe the stored
// contract exactly. Execute holds a prepared transaction's input contracts
// to the same rule, authenticating each blob before the store is asked; an
// input contract of another participant is used as its blob describes it,
// when re-interpreting on the Daml path as when the generic model rebuilds
// the transaction.
//
// # Prepared transactions
//
// Of the generic model: node ids are 0, 1, … in pre-order; every create and exercise node is a
// root (no Daml code means no children), a CreateAndExerciseCommand making
// two roots. Prepare answers it, as Canton does; execute refuses a
// transaction with several roots unless Config.AllowMultipleRoots (Canton's
// enforceSingleRootNode). Node seeds are 32
// random bytes per node; lf_version and the transaction version are "2.1"
// under both V2 and V3. The metadata holds act_as sorted, the command id,
// the configured synchronizer id, mediator group 0, a random lower-case
// UUID, the preparation time (now, µs), the contracts exercised as input
// contracts sorted by contract id with their created_at and their blob
// (CreatedEventBlob, Canton's FatContractInstance), min_ledger_effective_time from minLedgerTime (absolute,
// or now plus the relative duration), no max_ledger_effective_time, and
// max_record_time from the request. Every list the hash treats as a set is
// sorted and free of repeats (docs/hashing.md §6). The hash comes from the hashing
// package; verboseHashing returns its trace as hashingDetails.
//
// The cost estimate (EstimateCost) is a model, not Canton's traffic
// formula: the confirmation request costs the size of the prepared
// transaction plus CostEnvelopeBytes plus CostSignatureBytes per expected
// signature (the expectedSignatures hint, else one per actAs party); the
// confirmation response costs CostResponseBytes; the total is their sum.
//
// # Execute
//
// Execute never trusts the client: it decodes the bytes, recomputes the hash
// under the requested scheme, and requires for every act_as party at least
// its threshold of valid ed25519 signatures by distinct registered keys
// (signedBy = key fingerprint, format CONCAT or legacy RAW, algorithm
// ED25519, verified over the 32 hash bytes). Then the transaction must be
// byte for byte what the model makes from its own root commands, node seeds
// and the stored input contracts. A changed byte, party or value therefore
// fails the signature or this check. Signature and model failures are
// FAILED_TO_EXECUTE_TRANSACTION, the id a Canton 3.5 participant answers
// execute with (INVALID_EXTERNAL_SIGNATURE and INVALID_EXTERNAL_TRANSACTION
// are raised later in Canton's protocol, which this node does not have). An
// input contract archived since prepare is CONTRACT_NOT_ACTIVE; a passed
// max_record_time is the asynchronous LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED
// rejection (it is enforced under V2 too, though only V3 signs it).
//
// # Outcomes and events
//
// Execute and Submit return an Outcome: the completion's fields and either
// an asynchronous Rejection or a Transaction (created, archived and used
// contracts, and Events). Events (package node/events) record the nodes;
// once the store has given the transaction an offset and record time,
// Events.Tree makes the transaction tree Canton 3.4+ returns (eventsById
// keyed by node id, lastDescendantNodeId, witnesses, acsDelta, createdAt =
// ledger effective time, empty interface views and key fields) and
// Events.Transaction the flat or ledger-effects transaction.
//
// # Interfaces on the read side
//
// A PackageSet (daml/engine's) resolves the interfaces of read filters
// (ResolveInterface: by package name, every uploaded package of that name
// defining it) and the templates they select (Implementors: the direct
// implementors with every version of them); InterfaceView computes
// interface views with the
// highest vetted package implementing the interface, a failure becoming
// the view's status; see interfaces.go. The node fills the events' views
// and implementedInterfaces from them.
package engine
