package inventory

import (
	"fmt"
	"hash/maphash"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/internal/longtest"
)

// repeatsMap is the literal reference of repeats: a Go map from each key to its first item.
func repeatsMap[K comparable](n int, key func(int) K, dup func(i, j int)) {
	first := make(map[K]int, n)
	for i := range n {
		k := key(i)
		if j, seen := first[k]; seen {
			dup(i, j)
		} else {
			first[k] = i
		}
	}
}

// hashedRepeats finds the repeats of a list of any length by buckets, as repeats finds those
// of a list longer than scanRepeatsUpTo.
func hashedRepeats[K comparable](n int, key func(int) K) [][2]int {
	kh := keyHashes{maphash.MakeSeed(), make([]uint64, n)}
	for i := range n {
		hashKey(kh, i, key(i))
	}
	return bucketRepeats(kh.h, key)
}

// TestRepeatsMatchMap: for lists of every length up to past the scan's, with few or many
// repeats, both ways of finding them make the calls the reference makes.
func TestRepeatsMatchMap(t *testing.T) {
	r := newRand(36, 4)
	for range longtest.N(600, 30000) {
		keys := istiotest.RepeatingInts(r, 3*scanRepeatsUpTo)
		n := len(keys)
		key := func(i int) int { return keys[i] }
		var want, got, bucketed [][2]int
		repeatsMap(n, key, func(i, j int) { want = append(want, [2]int{i, j}) })
		repeats(n, key, func(i, j int) { got = append(got, [2]int{i, j}) })
		require.Equal(t, want, got, "%v", keys)
		if n > 1 {
			bucketed = hashedRepeats(n, key)
			require.Equal(t, want, bucketed, "%v", keys)
		}
	}
}

// BenchmarkRepeats finds the repeated names of lists of realistic lengths — a
// DestinationRule's subsets or a ServiceEntry's ports (2 to 8), a long list (1,000), an
// inventory's services (100,000) — by scanning (up to scanRepeatsUpTo), by buckets, and with
// a Go map (the baseline).
func BenchmarkRepeats(b *testing.B) {
	for _, n := range []int{2, 4, 6, 8, 1000, 100_000} {
		keys := make([][2]string, n)
		for i := range keys {
			keys[i] = [2]string{fmt.Sprintf("ns-%d", i%1000), fmt.Sprintf("svc-%d", i)}
		}
		key := func(i int) [2]string { return keys[i] }
		found := 0
		dup := func(int, int) { found++ }
		if n <= scanRepeatsUpTo {
			b.Run(fmt.Sprintf("%d/scan", n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					repeats(n, key, dup)
				}
			})
		}
		b.Run(fmt.Sprintf("%d/buckets", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, p := range hashedRepeats(n, key) {
					dup(p[0], p[1])
				}
			}
		})
		b.Run(fmt.Sprintf("%d/map", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				repeatsMap(n, key, dup)
			}
		})
	}
}
