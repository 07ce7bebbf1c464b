package sni

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/meshscope/meshscope/internal/longtest"
)

// splitReference is split written out literally: split the name at every dot, check each
// label against the DNS label pattern, and collect the dots up to end.
func splitReference(name string, end int) (dots []int, ok bool) {
	at := -1
	for _, l := range strings.Split(name, ".") {
		if !dnsLabel.MatchString(l) {
			return nil, false
		}
		at += len(l) + 1
		if at <= end && at < len(name) {
			dots = append(dots, at)
		}
	}
	return dots, len(dots) <= len([7]int{})
}

// checkSplit holds split to splitReference on one input.
func checkSplit(t *testing.T, name string, end int) {
	t.Helper()
	want, wantOK := splitReference(name, end)
	var dots [7]int
	n, ok := split(&dots, name, end)
	if ok != wantOK || ok && !slices.Equal(dots[:n], want) {
		t.Fatalf("split(%q, %d) = %v, %v; want %v, %v", name, end, dots[:max(n, 0)], ok, want, wantOK)
	}
}

// TestSplitAgreesWithReference compares split with the literal one on random names of every
// length split reads (8 to 253 bytes), made mostly of label bytes and dots with a few of the
// bytes just outside the label ranges, so that labels are valid or almost.
func TestSplitAgreesWithReference(t *testing.T) {
	const near = "/:`{AZ_\x80\xff\x00 " // next to the label ranges, or far outside
	r := rand.New(rand.NewPCG(7, 8))
	for range longtest.N(4000, 40000) {
		b := make([]byte, 8+r.IntN(MaxLength-7))
		pDot, pDash, pBad := r.Float64()*0.3, r.Float64()*0.1, []float64{0, 0, 0.001, 0.02}[r.IntN(4)]
		for i := range b {
			switch x := r.Float64(); {
			case x < pBad:
				b[i] = near[r.IntN(len(near))]
			case x < pBad+pDot:
				b[i] = '.'
			case x < pBad+pDot+pDash:
				b[i] = '-'
			default:
				b[i] = "abcxyz0189"[r.IntN(10)]
			}
		}
		name := string(b)
		checkSplit(t, name, r.IntN(len(name)))
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			checkSplit(t, name, i)
		}
	}
}

func TestSplit(t *testing.T) {
	long := strings.Repeat("a", 63)
	for _, tc := range []struct{ name, in string }{
		{"service", benchService.String()},
		{"labels of 63", long + "." + long + "." + long + ".internal.td"},
		{"label of 64", long + "a.b.internal.td"},
		{"label of 64 last", "b.internal." + long + "a"},
		{"empty label", "a..b.internal.td.example"},
		{"leading dot", ".a.b.internal.td.example"},
		{"trailing dot", "a.b.internal.td.example."},
		{"label starts with a dash", "a.-b.internal.td.example"},
		{"label ends with a dash", "a.b-.internal.td.example"},
		{"name starts with a dash", "-a.b.internal.td.example"},
		{"name ends with a dash", "a.b.internal.td.example-"},
		{"dash at byte 63 then dot", strings.Repeat("a", 62) + "-.b.internal.td.example"},
		{"dot at byte 63 then dash", strings.Repeat("a", 63) + ".-b.internal.td.example"},
		{"dots at 63 and 64", strings.Repeat("a", 63) + "..b.internal.td.example"},
		{"upper case", "a.B.internal.td.example.longer.than.32"},
		{"non-ASCII", "a.b\xc3\xa9.internal.td.example.longer.than.32"},
		{"eight labels before the end", "a.b.c.d.e.f.g.h.td.example.longer.than.32"},
		{"seven labels before the end", "a.b.c.d.e.f.g.td.example.longer.than.32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for n := min(8, len(tc.in)); n <= len(tc.in); n++ {
				s := tc.in[len(tc.in)-n:]
				for end := range len(s) {
					if longtest.Long() || nearDot(s, end) {
						checkSplit(t, s, end)
					}
				}
			}
		})
	}
}

// nearDot reports whether end is the first or last byte of s or next to a dot: the ends
// that split treats differently (every other end gives the answer of a neighbour). The
// short run checks only these; MESHSCOPE_LONG=1 checks every end.
func nearDot(s string, end int) bool {
	if end == 0 || end >= len(s)-1 {
		return true
	}
	return s[end-1] == '.' || s[end] == '.' || s[end+1] == '.'
}

func FuzzSplit(f *testing.F) {
	f.Add(benchService.String(), 40)
	f.Add(strings.Repeat("a", 63)+".-b.internal.td.example", 64)
	f.Fuzz(func(t *testing.T, name string, end int) {
		if len(name) < 8 || len(name) > MaxLength || end < 0 || end >= len(name) {
			return
		}
		checkSplit(t, name, end)
	})
}
