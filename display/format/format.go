// Package format holds the text helpers every rendering shares: escaping
// what a terminal would not show as itself, shortening ids, plurals. It
// depends on nothing of ours, so both display and the review model it
// renders (wallet/review, whose summary sentence is text too) use it.
package format

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape makes a string from the transaction safe to print: runes a terminal
// would not show as themselves are written as Go escapes.
func Escape(s string) string {
	if Printable(s) {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// Printable reports whether s is valid UTF-8 made of printable runes only,
// so Escape leaves it as it is.
func Printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// ShortHex keeps the first head and last tail characters of an ASCII id.
func ShortHex(s string, head, tail int) string {
	if len(s) <= head+tail+1 || !isASCII(s) {
		return s
	}
	return s[:head] + "…" + s[len(s)-tail:]
}

// ShortParty shortens the namespace part of "hint::namespace".
func ShortParty(p string, head, tail int) string {
	i := strings.LastIndex(p, "::")
	if i < 0 {
		return p
	}
	return p[:i+2] + ShortHex(p[i+2:], head, tail)
}

// Plural writes n and the noun, with an s unless n is 1.
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
