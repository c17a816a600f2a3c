package cmdutil

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ByteSize is a flag value of bytes written with an optional unit: 1048576,
// 64KiB, 512MiB, 1GiB (powers of 1,024) or 64kB, 500MB, 1GB (powers of
// 1,000). It implements pflag.Value.
type ByteSize int64

var byteUnits = []struct {
	suffix string
	factor int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"kB", 1e3}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"B", 1},
}

// ParseByteSize reads a size such as "512MiB".
func ParseByteSize(s string) (ByteSize, error) {
	t := strings.TrimSpace(s)
	factor := int64(1)
	for _, u := range byteUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, factor = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.factor
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a size: write bytes, or a whole number with a unit (64KiB, 512MiB, 1GiB)", s)
	}
	if n > math.MaxInt64/factor {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return ByteSize(n * factor), nil
}

func (b *ByteSize) String() string {
	n := int64(*b)
	for i := 3; i >= 0; i-- { // the largest binary unit that divides n
		if u := byteUnits[i]; n > 0 && n%u.factor == 0 {
			return strconv.FormatInt(n/u.factor, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// Set implements pflag.Value.
func (b *ByteSize) Set(s string) error {
	v, err := ParseByteSize(s)
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// Type implements pflag.Value.
func (b *ByteSize) Type() string { return "size" }
