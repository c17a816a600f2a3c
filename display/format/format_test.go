package format

import "testing"

func TestFormat(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Escape("alice"), "alice"},
		{Escape("a\x1b[31mb"), `a\x1b[31mb`},
		{Escape("\xff"), `\xff`},
		{ShortHex("0007e7b5161e3e1c0a9b8b2c21c5", 6, 4), "0007e7…21c5"},
		{ShortHex("short", 6, 4), "short"},
		{ShortHex("ünïcödé-ünïcödé", 2, 2), "ünïcödé-ünïcödé"},
		{ShortParty("alice::1220a1a2a3a4a5a6a7a8bebf", 8, 4), "alice::1220a1a2…bebf"},
		{ShortParty("no-namespace", 8, 4), "no-namespace"},
		{Plural(1, "contract"), "1 contract"},
		{Plural(0, "contract"), "0 contracts"},
		{Plural(2, "node"), "2 nodes"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
