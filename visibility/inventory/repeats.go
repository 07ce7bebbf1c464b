package inventory

import "slices"

// scanRepeatsUpTo is the length up to which repeats compares each item with those before it;
// a longer list goes through a map, so that a check stays linear (BenchmarkRepeats gives the
// figures of both on lists of realistic length).
const scanRepeatsUpTo = 8

// repeats calls dup(i, j) for each item i of a list of n whose key is that of an earlier
// item, j the first of them, in the order of i. Both ways of finding them give the same
// calls.
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
