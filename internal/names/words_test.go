package names

import (
	"math/rand/v2"
	"testing"
)

// TestWordsClassifyAsBytesDo holds Word and AtLeast to a byte loop on random strings.
func TestWordsClassifyAsBytesDo(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		b := make([]byte, 8+r.IntN(30))
		for i := range b {
			b[i] = byte(r.IntN(0x80))
		}
		s := string(b)
		c := byte(r.IntN(0x80))
		for i := 0; i < len(s); i += 8 {
			w, valid := Word(s, i)
			ge := AtLeast(w, c)
			for k := 0; k < 8; k++ {
				in := valid>>(8*k+7)&1 == 1
				if in != (i+k < len(s)) {
					t.Fatalf("Word(%q, %d): byte %d in = %v", s, i, k, in)
				}
				if !in {
					continue
				}
				if got, want := ge>>(8*k+7)&1 == 1, s[i+k] >= c; got != want {
					t.Fatalf("AtLeast: byte %q >= %q is %v, want %v", s[i+k], c, got, want)
				}
			}
		}
	}
}
