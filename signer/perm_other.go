//go:build !unix

package signer

import "io/fs"

// checkPrivate does nothing where file modes do not describe access.
func checkPrivate(string, fs.FileMode) error { return nil }
