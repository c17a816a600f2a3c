//go:build unix

package secretfile

const modesDescribeAccess = true
