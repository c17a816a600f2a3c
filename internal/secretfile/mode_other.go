//go:build !unix

package secretfile

// On Windows and Plan 9 the permission bits do not describe who may read.
const modesDescribeAccess = false
