//go:build !unix

package archive

// processCPU is not measured outside Unix; benchmarks then report 0.
func processCPU() int64 { return 0 }
