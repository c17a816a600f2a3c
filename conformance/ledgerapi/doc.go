// Package ledgerapi is Canton's Ledger API test tool (digital-asset/canton,
// release-line-3.5, community/ledger-test-tool/.../suites/v2_2/*.scala)
// ported to the JSON API and run against `ledger serve`.
//
// Each Go test is one Scala suite (TestActiveContractsServiceIT is
// ActiveContractsServiceIT.scala) and starts one node, in process, over
// real HTTP on a real SQLite file; each subtest is one Scala test case,
// named as in Scala, on parties of its own. The expectations (error ids,
// message fragments, counts) are the Scala ones; the Daml models are the
// generic model of `ledger serve` for the test tool's plain templates
// (Dummy, DummyWithParam, DummyFactory: a signatory and nothing else run)
// and the real DARs of ../shared/dars where Daml code must run.
// docs/conformance.md has the table of suites and the cases skipped, with
// the reason.
package ledgerapi
