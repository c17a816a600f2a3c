package ledgerapi

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	lb "github.com/ledger-cli/ledger/internal/lfbuild"
)

// The test tool's models that no real DAR has are built here with
// internal/lfbuild, each after its Daml source in Canton's
// community/ledger/ledger-common-dars (same template, choice and field
// names). These are the helpers the models share.

// this is a template's argument in its expressions.
var this = lb.Var("this")

// field is a field of a template's argument.
func field(tpl, name string) lb.Expr { return lb.Proj(tpl, name, this) }

// parties is the list of the given party expressions.
func parties(ps ...lb.Expr) lb.Expr { return lb.List(lb.TParty, ps...) }

// choice is a choice whose argument is the record type of its own name
// (as Daml declares it), bound to "arg".
func choice(name string, consuming bool, controllers lb.Expr, ret lb.Type, update lb.Expr) lb.Choice {
	return lb.Choice{Name: name, Consuming: consuming, Controllers: controllers, ArgName: "arg", ArgType: lb.TCon(name), ReturnType: ret, Update: update}
}

// argField is a field of the choice argument of choice name.
func argField(choice, name string) lb.Expr { return lb.Proj(choice, name, lb.Var("arg")) }

// then is `a >> b` in an update: a of type ta, then b.
func then(ta lb.Type, a, b lb.Expr) lb.Expr {
	return lb.Do([]lb.Binding{{Name: "_ignored", Type: ta, Bound: a}}, b)
}

// catching is `try body catch exc v -> handler` for one exception type
// exc: other exceptions go on up (None).
func catching(ret lb.Type, body lb.Expr, exc, v string, handler lb.Expr) lb.Expr {
	return lb.TryCatch(ret, body, "anyException", lb.Case(lb.FromAnyException(lb.TCon(exc), lb.Var("anyException")),
		lb.SomeAlt(v, lb.Some(lb.TUpdate(ret), handler)), lb.NoneAlt(lb.None(lb.TUpdate(ret)))))
}

// archiveOf is `archive cid` on a contract of template tpl.
func archiveOf(tpl string, cid lb.Expr) lb.Expr {
	return lb.Exercise(tpl, "Archive", cid, lb.Record("Archive"))
}

// withTuple2 adds daml-prim's DA.Types (lb.Tuple2Package, which the by-key
// updates return) to a keyed model's DAR, taken from Canton's Ping DAR.
func withTuple2(t *testing.T, pkg *lb.Package) *lb.Package {
	t.Helper()
	dar := sharedDar(t, "canton-builtin-admin-workflow-ping.dar")
	z, err := zip.NewReader(bytes.NewReader(dar), int64(len(dar)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range z.File {
		if strings.HasSuffix(f.Name, lb.Tuple2Package+".dalf") {
			r, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			dalf, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			pkg.Dependency(f.Name, dalf)
			return pkg
		}
	}
	t.Fatalf("the Ping DAR has no dalf of package %s", lb.Tuple2Package)
	return nil
}

// uploadModel uploads a built package.
func (p *participant) uploadModel(t *testing.T, pkg *lb.Package) {
	t.Helper()
	dar, _ := pkg.DAR()
	p.upload(t, dar)
}

// submitStatus submits commands and returns the HTTP status (0 when the
// request could not be sent): safe to call from goroutines other than the
// test's, where p.do's t.Fatal is not.
func (p *participant) submitStatus(actAs []string, cmd map[string]any) int {
	raw, err := json.Marshal(p.jsCommands(actAs, cmd))
	if err != nil {
		return 0
	}
	req, err := http.NewRequest("POST", p.url+"/v2/commands/submit-and-wait", bytes.NewReader(raw))
	if err != nil {
		return 0
	}
	req.Header.Set("Content-Type", "application/json")
	if p.admin != "" {
		req.Header.Set("Authorization", "Bearer "+p.admin)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}
