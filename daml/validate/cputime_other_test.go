//go:build !unix

package validate_test

// processCPU is not measured outside Unix; benchmarks then report 0.
func processCPU() int64 { return 0 }
