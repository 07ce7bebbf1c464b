package strict

import (
	"encoding/binary"
	"unicode/utf8"
)

// The characters the block reader reads: any UTF-8 text, tabs, and line feeds, alone or
// after a carriage return. Everything else is left to yaml.v3 — bytes that are not UTF-8
// and control characters (which it refuses), the line breaks other than these (a lone
// carriage return, NEL, LS, PS: YAML breaks lines at each) and byte-order marks past the
// start — so that a document holding one is read, or refused, as yaml.v3 does.

// firstOdd returns where the first byte at or after from that the block reader does not
// read is, or the end of the input. Calls with from never decreasing cost, together, one
// pass over the input.
func (r *blockReader) firstOdd(from int) int {
	if r.oddFrom < 0 || from < r.oddFrom || from > r.odd {
		r.oddFrom, r.odd = from, scanOdd(r.data, from)
	}
	return r.odd
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// scanOdd returns where the first byte at or after i that the block reader does not read
// is, or len(s). Eight bytes of printable ASCII are passed over at once.
func scanOdd(s []byte, i int) int {
	for i < len(s) {
		if i+8 <= len(s) {
			w := binary.LittleEndian.Uint64(s[i : i+8])
			// No byte at or above 0x80, none below 0x20, none equal to 0x7f.
			if w&highs == 0 && (w-0x20*ones)&^w&highs == 0 && (w+ones)&highs == 0 {
				i += 8
				continue
			}
		}
		c := s[i]
		switch {
		case c == '\n' || c == '\t' || 0x20 <= c && c < 0x7f:
			i++
		case c == '\r':
			if i+1 == len(s) || s[i+1] != '\n' {
				return i
			}
			i += 2
		case c < 0x80:
			return i
		default:
			ch, n := utf8.DecodeRune(s[i:])
			switch {
			case ch == utf8.RuneError && n == 1, ch < 0xa0, ch == 0x2028, ch == 0x2029, ch == 0xfeff, ch == 0xfffe, ch == 0xffff:
				return i
			}
			i += n
		}
	}
	return len(s)
}
