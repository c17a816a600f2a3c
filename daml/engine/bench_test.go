package engine

import (
	"context"
	"testing"
)

// BenchmarkReinterpretPingFlow re-interprets and compares the Ping flow
// (a create and a consuming exercise), packages already decoded.
func BenchmarkReinterpretPingFlow(b *testing.B) {
	set, pt := pingFlow(b)
	b.ReportAllocs()
	for b.Loop() {
		r, err := Reinterpret(context.Background(), pt, Reinterpretation{Packages: set})
		if err != nil || r.Difference != nil {
			b.Fatal(err, r.Difference)
		}
	}
}

// BenchmarkInputContractsGolden authenticates the five input contracts of
// the golden Canton Coin transfer from their blobs (ca10 and ca11 ids,
// arguments typed by splice-amulet).
func BenchmarkInputContractsGolden(b *testing.B) {
	set := amuletSet(b)
	md := golden(b).GetMetadata()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := InputContracts(md, set); err != nil {
			b.Fatal(err)
		}
	}
}
