package validate_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ledger-cli/ledger/daml/validate"
)

// BenchmarkValidateAmulet checks splice-amulet 0.1.14 and every package of
// its DAR (its dependencies), as an upload does. The target is 200 ms on
// one core: go test -bench ValidateAmulet -cpu 1 ./daml/validate/
func BenchmarkValidateAmulet(b *testing.B) {
	d := readDar(b, filepath.Join(sharedDars(b), "splice-amulet-0.1.14.dar"))
	lookup := lookupIn(d.Packages...)
	b.ReportAllocs()
	b.ResetTimer()
	start := processCPU()
	for i := 0; i < b.N; i++ {
		c := validate.NewChecker(lookup, validate.Options{})
		for _, p := range d.Packages {
			if err := c.Check(context.Background(), p); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
}
