//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package local

import (
	"errors"
	"os"
	"syscall"
)

// tryLock opens (creating, mode 0600) and flocks path. flock belongs to the
// open file, so a second open in the same process conflicts too, and the
// kernel releases it when the process dies.
func tryLock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errLockHeld
		}
		return nil, err
	}
	return f, nil
}
