package inventory

import (
	"cmp"
	"slices"
	"sort"
	"strings"

	"github.com/meshscope/meshscope/internal/hosts"
)

// maxOverlaps is how many pairs of overlapping hosts the problems of one VirtualService
// name; the rest are counted in one more problem.
const maxOverlaps = 10

// naiveOverlapsUpTo is the number of hosts up to which overlaps compares every pair, as
// Istio does; more hosts go through a trie, in time linear in their length. Both find the
// same pairs (BenchmarkOverlaps gives the figures of both at the lengths people write).
const naiveOverlapsUpTo = 128

// overlaps finds the pairs (i < j) of hosts that overlap (hosts.Matches), as Istio's
// validation looks for them among a VirtualService's hosts. It returns the first limit pairs
// in Istio's order (by i, then j), whatever the number of hosts, and how many pairs there are
// in all. limit is small: the problems of one VirtualService name a few.
func overlaps(hosts []string, limit int) (pairs [][2]int, total int) {
	if len(hosts) <= naiveOverlapsUpTo {
		return naiveOverlaps(hosts, limit)
	}
	return trieOverlaps(hosts, limit)
}

// naiveOverlaps compares every pair.
func naiveOverlaps(list []string, limit int) (pairs [][2]int, total int) {
	for i := range list {
		for j := i + 1; j < len(list); j++ {
			if hosts.Matches(list[i], list[j]) {
				if total < limit {
					pairs = append(pairs, [2]int{i, j})
				}
				total++
			}
		}
	}
	return pairs, total
}

// hostTrie holds the wildcard hosts by their rest ("*.foo.com" by ".foo.com", "*" by ""),
// read backwards from the end: a host overlaps every wildcard whose rest ends it, and those
// are the ones on its path from the root.
type hostTrie struct {
	next map[trieEdge]int32
	ends map[int32][]int // node -> the wildcards whose rest ends there, in order
	size int32
}

type trieEdge struct {
	node int32
	b    byte
}

// trieOverlaps finds the pairs in time linear in the hosts' length and the pairs it
// returns: a pair of hosts overlaps when one is a wildcard whose rest ends the other's rest
// (the host itself, for one that is not a wildcard), or when the two are equal; a host meets
// the first kind of partner walking its rest backwards in the trie of wildcards, and the
// second in a map.
func trieOverlaps(hosts []string, limit int) (pairs [][2]int, total int) {
	t := hostTrie{next: map[trieEdge]int32{}, ends: map[int32][]int{}, size: 1}
	exact := map[string][]int{}
	for i, h := range hosts {
		if rest, wild := strings.CutPrefix(h, "*"); wild {
			node := int32(0)
			for k := len(rest) - 1; k >= 0; k-- {
				e := trieEdge{node, rest[k]}
				n, ok := t.next[e]
				if !ok {
					n = t.size
					t.size++
					t.next[e] = n
				}
				node = n
			}
			t.ends[node] = append(t.ends[node], i)
		} else {
			exact[h] = append(exact[h], i)
		}
	}
	// take records the pairs of j with the partners in list (in order), counting them all but
	// keeping only the first limit pairs of all, in order. A list's pairs come in order (those
	// of earlier partners, (i, j), before those of later ones, (j, i)), so its walk stops at
	// the first pair after the last kept.
	take := func(list []int, j int) {
		total += len(list)
		for _, i := range list {
			p := [2]int{min(i, j), max(i, j)}
			at, _ := slices.BinarySearchFunc(pairs, p, comparePairs)
			if at >= limit {
				break
			}
			pairs = slices.Insert(pairs, at, p)
			if len(pairs) > limit {
				pairs = pairs[:limit]
			}
		}
	}
	for j, h := range hosts {
		rest, wild := strings.CutPrefix(h, "*")
		node := int32(0)
		for d := 0; ; d++ {
			if w := t.ends[node]; len(w) > 0 {
				if d == len(rest) && wild {
					w = w[:sort.SearchInts(w, j)] // an equal wildcard: each pair once, from the later host
				}
				take(w, j)
			}
			if d == len(rest) {
				break
			}
			n, ok := t.next[trieEdge{node, rest[len(rest)-1-d]}]
			if !ok {
				break
			}
			node = n
		}
		if !wild {
			same := exact[h]
			take(same[:sort.SearchInts(same, j)], j)
		}
	}
	return pairs, total
}

// comparePairs orders pairs of hosts as Istio names them: by the first, then the second.
func comparePairs(a, b [2]int) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) }
