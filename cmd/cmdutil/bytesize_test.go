package cmdutil

import "testing"

func TestParseByteSize(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "1048576": 1 << 20, "64KiB": 64 << 10, "512MiB": 512 << 20, "1GiB": 1 << 30,
		"1 GiB": 1 << 30, "64kB": 64_000, "500MB": 500_000_000, "2GB": 2_000_000_000, "10B": 10,
	} {
		got, err := ParseByteSize(in)
		if err != nil || int64(got) != want {
			t.Errorf("%q: %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-1", "1.5GiB", "lots", "GiB", "9999999999TiB"} {
		if _, err := ParseByteSize(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
	for n, want := range map[int64]string{1 << 30: "1GiB", 64 << 20: "64MiB", 1536 << 20: "1536MiB", 1000: "1000"} {
		b := ByteSize(n)
		if got := b.String(); got != want {
			t.Errorf("%d prints %q, want %q", n, got, want)
		}
	}
}
