package value

// ValidParty reports whether s is a party identifier as Daml-LF defines it
// (TEXT_TO_PARTY): 1 to 255 characters, each an ASCII letter or digit or
// one of ':', '-', '_' and ' '.
func ValidParty(s string) bool {
	if len(s) == 0 || len(s) > 255 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == ':', c == '-', c == '_', c == ' ':
		default:
			return false
		}
	}
	return true
}
