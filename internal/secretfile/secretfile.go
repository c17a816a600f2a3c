// Package secretfile reads files that hold secrets — key files, key
// passphrases, HMAC and OAuth client secrets — and refuses one that other
// users may read, as ssh refuses such a private key: a secret that others
// can read is no longer one, and saying so early beats a leaked key.
package secretfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// CheckMode refuses (on systems where file modes describe access) a file
// whose mode lets group or others read or write it. what names the file
// in the error ("key file", "passphrase file", …).
func CheckMode(what, path string, mode fs.FileMode) error {
	if !modesDescribeAccess {
		return nil
	}
	if mode.Perm()&0o077 != 0 {
		return fmt.Errorf("%s %s may be read by other users (mode %04o); run: chmod 600 %s", what, path, mode.Perm(), path)
	}
	return nil
}

// ReadFile reads at most max bytes of the secret file path after checking
// its mode; a larger file is refused.
func ReadFile(what, path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	if err := CheckMode(what, path, st.Mode()); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s %s is larger than %d bytes; it does not hold a secret", what, path, max)
	}
	return b, nil
}
