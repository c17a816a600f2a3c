package bench

import "testing"

func TestParseMix(t *testing.T) {
	m, err := parseMix(" prepare=2, submit=1,execute=0 ")
	if err != nil || m["prepare"] != 2 || m["submit"] != 1 || m["execute"] != 0 || len(m) != 3 {
		t.Errorf("parseMix = %v, %v", m, err)
	}
	for _, bad := range []string{"", "prepare=0", "prepare", "prepare=-1", "mixed=1"} {
		if _, err := parseMix(bad); err == nil {
			t.Errorf("parseMix(%q) accepted", bad)
		}
	}
}
