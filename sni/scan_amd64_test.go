//go:build amd64 && !purego

package sni

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestCut32 calls the assembly directly on names of every length it takes, so that a
// machine without AVX2, where split never calls it, says so instead of passing silently.
func TestCut32(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2 on this processor: split reads every name with splitWords, and cut32 is not run")
	}
	r := rand.New(rand.NewPCG(9, 10))
	accepted := 0
	for length := 32; length <= MaxLength; length++ {
		for range 200 {
			b := make([]byte, 0, length+80)
			for len(b) < length { // labels of 1 to 70 bytes, most of them valid
				n := 1 + r.IntN(70)
				for i := range n {
					c := "abc019"[r.IntN(6)]
					if i > 0 && i < n-1 && r.IntN(8) == 0 {
						c = '-'
					}
					b = append(b, c)
				}
				b = append(b, '.')
			}
			b = b[:length]
			if r.IntN(4) == 0 {
				b[r.IntN(length)] = "A/:`{_\x80"[r.IntN(7)]
			}
			name := string(b)
			end := r.IntN(length)
			if i := strings.LastIndexByte(name[:end+1], '.'); i >= 0 && r.IntN(2) == 0 {
				end = i
			}
			want, wantOK := splitReference(name, end)
			var dots [7]int
			n, ok := cut32(name, end, &dots)
			if ok != wantOK || ok && !slices.Equal(dots[:n], want) {
				t.Fatalf("cut32(%q, %d) = %v, %v; want %v, %v", name, end, dots[:n], ok, want, wantOK)
			}
			if ok {
				accepted++
			}
		}
	}
	if accepted < 5000 {
		t.Fatalf("only %d of the random names were valid: the test hardly exercises acceptance", accepted)
	}
	t.Logf("%d names accepted", accepted)
}
