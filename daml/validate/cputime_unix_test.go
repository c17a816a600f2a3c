//go:build unix

package validate_test

import "syscall"

// processCPU returns the user and system CPU time of this process in
// nanoseconds: on a shared machine wall time also counts the time spent
// waiting for a core.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
