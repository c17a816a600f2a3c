// Package atomicfile replaces files so that a crash leaves either the old
// content or the new, never part of either.
package atomicfile

import (
	"os"
	"path/filepath"
)

// WriteFile writes data to path atomically with permissions perm: a
// temporary file beside path is written, synced and renamed over it, and the
// directory is synced so that the rename survives a crash where the system
// allows it. perm is applied before any data is written.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly after the rename
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // not every system can sync a directory
		d.Close()
	}
	return nil
}
