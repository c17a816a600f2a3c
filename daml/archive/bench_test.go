package archive

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkDecodeAmulet decodes splice-amulet-0.1.14.dar (37 dalfs) into the
// typed view: every package fully decoded, every template signature built.
func BenchmarkDecodeAmulet(b *testing.B) {
	dar, err := os.ReadFile(filepath.Join(sharedDars(b), "splice-amulet-0.1.14.dar"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(dar)))
	b.ReportAllocs()
	cpu := processCPU()
	for b.Loop() {
		d, err := DecodeDar(dar, Options{})
		if err != nil {
			b.Fatal(err)
		}
		templates := 0
		for _, p := range d.Packages {
			templates += len(p.Templates())
		}
		if templates == 0 {
			b.Fatal("no templates")
		}
	}
	reportCPU(b, cpu)
}

// BenchmarkDecodePingMain decodes the Ping package alone (LF 2.2, interned
// expressions), without zip or the other dalfs.
func BenchmarkDecodePingMain(b *testing.B) {
	dar, err := os.ReadFile("testdata/canton-builtin-admin-workflow-ping.dar")
	if err != nil {
		b.Fatal(err)
	}
	d, err := decodeDar(context.Background(), dar, Options{})
	if err != nil {
		b.Fatal(err)
	}
	entries := zipEntries(b, dar)
	dalf := entries[d.Manifest.MainDalf]
	b.SetBytes(int64(len(dalf)))
	b.ReportAllocs()
	cpu := processCPU()
	for b.Loop() {
		if _, err := DecodeArchive(dalf, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu)
}

// reportCPU adds the process CPU time per operation since start: with -cpu 1
// on a machine shared with other jobs it is steadier than ns/op. (With
// GOMAXPROCS 1 the garbage collector runs on the same core, so it counts.)
func reportCPU(b *testing.B, start int64) {
	if end := processCPU(); end > start && b.N > 0 {
		b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkDecodeAmuletDalfs decodes the 37 dalfs of splice-amulet-0.1.14.dar
// already out of the zip: BenchmarkDecodeAmulet less inflating.
func BenchmarkDecodeAmuletDalfs(b *testing.B) {
	dar, err := os.ReadFile(filepath.Join(sharedDars(b), "splice-amulet-0.1.14.dar"))
	if err != nil {
		b.Fatal(err)
	}
	d, err := decodeDar(context.Background(), dar, Options{})
	if err != nil {
		b.Fatal(err)
	}
	entries := zipEntries(b, dar)
	var dalfs [][]byte
	size := 0
	for _, name := range d.Manifest.Dalfs {
		dalfs = append(dalfs, entries[name])
		size += len(entries[name])
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	cpu := processCPU()
	for b.Loop() {
		for _, dalf := range dalfs {
			if _, err := DecodeArchive(dalf, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	reportCPU(b, cpu)
}
