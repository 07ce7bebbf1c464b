package inventory

import (
	"hash/maphash"
	"slices"

	"github.com/meshscope/meshscope/internal/buckets"
)

// scanRepeatsUpTo is the length up to which repeats compares each item with those before it,
// without allocating; a longer list is sorted into buckets by its keys' hashes
// (buckets.Sort), in time linear in its length (BenchmarkRepeats gives the figures of both,
// and of a Go map, at the lengths people write).
const scanRepeatsUpTo = 8

// repeats calls dup(i, j) for each item i of a list of n whose key is that of an earlier
// item, j the first of them, in the order of i. Both ways of finding them make the same calls.
func repeats[K comparable](n int, key func(int) K, dup func(i, j int)) {
	kh := newKeyHashes(n)
	for i := range n {
		hashKey(kh, i, key(i))
	}
	repeatsOf(kh, n, key, dup)
}

// keyHashes holds the hashes of a list's keys, put by hashKey as a loop over the list reads
// each item, for repeatsOf: a check of a long list reads each item once. A list of up to
// scanRepeatsUpTo items is scanned instead, and has none.
type keyHashes struct {
	seed maphash.Seed
	h    []uint64
}

func newKeyHashes(n int) keyHashes {
	if n <= scanRepeatsUpTo {
		return keyHashes{}
	}
	return keyHashes{maphash.MakeSeed(), make([]uint64, n)}
}

// hashKey records the key of item i.
func hashKey[K comparable](kh keyHashes, i int, k K) {
	if kh.h != nil {
		kh.h[i] = maphash.Comparable(kh.seed, k)
	}
}

// repeatsOf is repeats for a list whose keys kh holds.
func repeatsOf[K comparable](kh keyHashes, n int, key func(int) K, dup func(i, j int)) {
	if kh.h == nil {
		var keys [scanRepeatsUpTo]K
		for i := range n {
			keys[i] = key(i)
			if j := slices.Index(keys[:i], keys[i]); j >= 0 {
				dup(i, j)
			}
		}
		return
	}
	for _, p := range bucketRepeats(kh.h, key) {
		dup(p[0], p[1])
	}
}

// bucketRepeats finds the pairs repeats reports, in order, from the hashes of the keys: it
// sorts the items into buckets by their hashes (buckets.Repeats), and compares the items of a
// bucket only with one another. Two equal keys share a bucket; a bucket holds few items, the
// hash being seeded at random for each list.
func bucketRepeats[K comparable](hashes []uint64, key func(int) K) [][2]int {
	reps := buckets.Repeats(hashes, func(i, j int32) bool { return key(int(i)) == key(int(j)) })
	if len(reps) == 0 {
		return nil
	}
	pairs := make([][2]int, len(reps))
	for k, r := range reps {
		pairs[k] = [2]int{int(r[0]), int(r[1])}
	}
	return pairs
}
