//go:build unix

package signer

import (
	"fmt"
	"io/fs"
)

// checkPrivate refuses a key file that group or others may access, as ssh
// does for private keys.
func checkPrivate(path string, mode fs.FileMode) error {
	if mode.Perm()&0o077 != 0 {
		return fmt.Errorf("key file %s may be read by other users (mode %04o); run: chmod 600 %s", path, mode.Perm(), path)
	}
	return nil
}
