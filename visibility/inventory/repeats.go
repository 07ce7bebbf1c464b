package inventory

import (
	"cmp"
	"hash/maphash"
	"math/bits"
	"slices"
)

// scanRepeatsUpTo is the length up to which repeats compares each item with those before it,
// without allocating; a longer list is bucketed by hash, in time linear in its length
// (BenchmarkRepeats gives the figures of both, and of a Go map, at the lengths people write).
const scanRepeatsUpTo = 8

// repeats calls dup(i, j) for each item i of a list of n whose key is that of an earlier
// item, j the first of them, in the order of i. Both ways of finding them make the same calls.
func repeats[K comparable](n int, key func(int) K, dup func(i, j int)) {
	if n <= scanRepeatsUpTo {
		var keys [scanRepeatsUpTo]K
		for i := range n {
			keys[i] = key(i)
			if j := slices.Index(keys[:i], keys[i]); j >= 0 {
				dup(i, j)
			}
		}
		return
	}
	for _, p := range bucketRepeats(n, key) {
		dup(p[0], p[1])
	}
}

// bucketRepeats finds the pairs repeats reports, sorted by their first item: it sorts the
// items into n to 2n buckets by the top bits of their keys' hashes (a counting sort, which
// keeps each bucket's items in their order), and compares the items of a bucket only with one
// another. Two equal keys share a bucket; a bucket holds few items, the hash being seeded at
// random for each call.
func bucketRepeats[K comparable](n int, key func(int) K) [][2]int {
	shift := 64 - bits.Len(uint(n))
	seed := maphash.MakeSeed()
	hashes := make([]uint64, n)
	start := make([]int32, 1<<(64-shift)+1) // bucket b's items are order[start[b]:start[b+1]]
	for i := range n {
		hashes[i] = maphash.Comparable(seed, key(i))
		start[hashes[i]>>shift+1]++
	}
	for b := 1; b < len(start); b++ {
		start[b] += start[b-1]
	}
	order := make([]int32, n)
	for i := range n { // in order, so that each bucket lists its items in order
		b := hashes[i] >> shift
		order[start[b]] = int32(i)
		start[b]++
	}
	// start[b] is now where bucket b+1 starts.
	var pairs [][2]int
	for b, end := 0, 0; end < n; b++ {
		from := end
		end = int(start[b])
		bucket := order[from:end]
		for k := 1; k < len(bucket); k++ {
			i := int(bucket[k])
			for _, j := range bucket[:k] {
				if hashes[j] == hashes[i] && key(int(j)) == key(i) {
					pairs = append(pairs, [2]int{i, int(j)})
					break
				}
			}
		}
	}
	slices.SortFunc(pairs, func(a, b [2]int) int { return cmp.Compare(a[0], b[0]) })
	return pairs
}
