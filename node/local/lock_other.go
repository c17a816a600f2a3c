//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package local

import "os"

// tryLock only opens path: this platform has no lock the node uses, so two
// processes are not kept off one database here.
func tryLock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
}
