package typed

import (
	"syscall"
	"testing"
)

// processCPU returns the user and system CPU time of this process in
// nanoseconds: on a shared machine wall time also counts the time spent
// waiting for a core, so benchmarks report throughput per CPU second too.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// reportCPU adds cpu-ns/op and cpu-MB/s (bytes per op over CPU time) to b.
func reportCPU(b *testing.B, start int64, bytes int) {
	cpu := float64(processCPU()-start) / float64(b.N)
	b.ReportMetric(cpu, "cpu-ns/op")
	if cpu > 0 {
		b.ReportMetric(float64(bytes)/cpu*1e3, "cpu-MB/s")
	}
}
