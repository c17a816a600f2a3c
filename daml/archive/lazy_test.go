package archive

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/ledger-cli/ledger/daml/lf"
)

// TestLazyValuesAgree: every package of the golden transfer's DAR decoded
// with LazyValues has the eager decoder's definitions, each value's body
// (decoded on first ask, from several goroutines at once) equal to the
// eager one, and dependencies that include the eager ones.
func TestLazyValuesAgree(t *testing.T) {
	dar, err := os.ReadFile(filepath.Join(sharedDars(t), "splice-amulet-0.1.14.dar"))
	if err != nil {
		t.Fatal(err)
	}
	eager, err := DecodeDar(dar, Options{})
	if err != nil {
		t.Fatal(err)
	}
	lazy, err := DecodeDar(dar, Options{LazyValues: true})
	if err != nil {
		t.Fatal(err)
	}
	values := 0
	for i, p := range eager.Packages {
		q := lazy.Packages[i]
		if q.ID != p.ID || len(q.Modules) != len(p.Modules) {
			t.Fatalf("package %d: %s, eagerly %s", i, q.ID, p.ID)
		}
		if len(q.DirectDeps) != len(p.DirectDeps) {
			t.Logf("%s: %d dependencies lazily, %d eagerly", p.Name, len(q.DirectDeps), len(p.DirectDeps))
		}
		for _, dep := range p.DirectDeps {
			if _, found := slicesIndex(q.DirectDeps, dep); !found {
				t.Errorf("%s: lazily decoded, its dependencies %v lack %s", p.ID, q.DirectDeps, dep)
			}
		}
		for j, m := range p.Modules {
			n := q.Modules[j]
			if !reflect.DeepEqual(n.Templates, m.Templates) || !reflect.DeepEqual(n.DataTypes, m.DataTypes) || len(n.Values) != len(m.Values) {
				t.Fatalf("%s %s: the definitions differ", p.ID, m.Name)
			}
			var wg sync.WaitGroup
			for k, v := range m.Values {
				w := n.Values[k]
				if w.Body != nil || w.LazyBody == nil {
					t.Fatalf("%s:%s decoded eagerly", m.Name, v.Name)
				}
				values++
				for range 2 {
					wg.Go(func() {
						body, err := w.Expr()
						if err != nil || !reflect.DeepEqual(body, v.Body) || !reflect.DeepEqual(w.Type, v.Type) || !reflect.DeepEqual(w.Location, v.Location) {
							t.Errorf("%s:%s: lazily %v, %v", m.Name, v.Name, body, err)
						}
					})
				}
			}
			wg.Wait()
		}
	}
	t.Logf("%d values of %d packages agree", values, len(eager.Packages))
}

func slicesIndex(ids []lf.PackageID, id lf.PackageID) (int, bool) {
	for i, x := range ids {
		if x == id {
			return i, true
		}
	}
	return -1, false
}

// TestLazyValueRefusedWhenAsked: illformed.dar (Canton's test DAR whose
// value's body is a literal of another type than declared) is refused
// whole by the eager decoder; with LazyValues it decodes, and that
// value's body is refused when asked for, naming the package, module and
// value, each time it is asked.
func TestLazyValueRefusedWhenAsked(t *testing.T) {
	dar, err := os.ReadFile(filepath.Join(sharedDars(t), "illformed.dar"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeDar(dar, Options{}); err == nil {
		t.Fatal("illformed.dar decodes eagerly")
	}
	d, err := DecodeDar(dar, Options{LazyValues: true})
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, m := range d.MainPackage().Modules {
		for _, v := range m.Values {
			_, err := v.Expr()
			if err == nil {
				continue
			}
			refused++
			for _, want := range []string{string(d.Main), m.Name.String(), v.Name.String(), "declared type Bool does not match its body"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%v: does not say %q", err, want)
				}
			}
			if _, again := v.Expr(); again == nil || again.Error() != err.Error() {
				t.Errorf("asked again: %v", again)
			}
		}
	}
	if refused != 1 {
		t.Errorf("%d values refused, want 1", refused)
	}
}
