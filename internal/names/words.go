package names

// Eight bytes at a time: the helpers of the single-pass check of hosts (visibility's
// quickHost), which reads a name as little-endian words of eight bytes and classifies all
// eight with a few adds and xors, where a byte loop would branch on every byte.

// High has the high bit of each byte of a word set.
const High = 0x8080808080808080

// Word returns the eight bytes of s from i as a little-endian word, and the high bits of the
// bytes of it that are s's from i: where fewer than eight remain, the last eight bytes of s
// are read and shifted down, so that the bytes from i come first and the rest are zero. s
// must be at least eight bytes long.
func Word(s string, i int) (w, valid uint64) {
	j := min(i, len(s)-8) // where the eight bytes read start
	shift := uint(8 * (i - j))
	return load64(s[j:]) >> shift, High >> shift
}

// AtLeast returns, for a word of eight bytes below 0x80, a word whose bytes have their high
// bit set where they are >= c; the other bits are noise. No byte carries into the next, so
// the bytes in a range [lo, hi) are AtLeast(w, lo) ^ AtLeast(w, hi), and a set of ranges is
// the xor of all their bounds.
func AtLeast(w uint64, c byte) uint64 { return w + 0x0101010101010101*uint64(0x80-c) }

// load64 returns the first eight bytes of s as a little-endian word. The compiler makes the
// eight reads one load, in place.
func load64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}
