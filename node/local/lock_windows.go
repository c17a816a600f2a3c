//go:build windows

package local

import (
	"errors"
	"os"
	"syscall"
)

// errorSharingViolation is Windows' ERROR_SHARING_VIOLATION, which package
// syscall does not name.
const errorSharingViolation syscall.Errno = 32

// tryLock opens path (creating it) for writing while letting others only
// read it: a second writer gets a sharing violation until this handle is
// closed, which Windows does when the process ends, however it ends.
func tryLock(path string) (*os.File, error) {
	p, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return nil, err
	}
	h, err := syscall.CreateFile(p, syscall.GENERIC_READ|syscall.GENERIC_WRITE, syscall.FILE_SHARE_READ,
		nil, syscall.OPEN_ALWAYS, syscall.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		if errors.Is(err, errorSharingViolation) {
			return nil, errLockHeld
		}
		return nil, err
	}
	return os.NewFile(uintptr(h), path), nil
}
