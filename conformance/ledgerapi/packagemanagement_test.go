package ledgerapi

import (
	"regexp"
	"testing"

	"github.com/ledger-cli/ledger/node"
)

// PackageManagementServiceIT.scala. PMLoad (concurrent uploads, then
// listKnownPackages) is GrpcOnly. PMDuplicateSubmissionId uploads one DAR
// on alpha and beta; with one participant, as in Canton's own run of a
// single-participant configuration, both uploads go to the same node.
func TestPackageManagementServiceIT(t *testing.T) {
	p := startParticipant(t, node.Config{})

	t.Run("PMEmptyUpload", func(t *testing.T) {
		e := p.mustFail(t, "POST", "/v2/dars", "", failure{code: "INVALID_DAR"})
		if !regexp.MustCompile("Invalid DAR: package-upload|Dar file is corrupt").MatchString(e.Cause) {
			t.Errorf("cause %q matches neither %q nor %q", e.Cause, "Invalid DAR: package-upload", "Dar file is corrupt")
		}
	})

	t.Run("PMDuplicateSubmissionId", func(t *testing.T) {
		dar := pingDar(t)
		p.upload(t, dar)
		p.upload(t, dar)
	})
}
