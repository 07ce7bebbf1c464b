package buckets

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/internal/longtest"
)

// sortMap is the literal reference of Sort: a Go map from each key to its first item, and
// the items whose key it already holds, in list order.
func sortMap(keys []int) (first map[int]int32, repeats [][2]int32) {
	first = map[int]int32{}
	for i, k := range keys {
		if j, ok := first[k]; ok {
			repeats = append(repeats, [2]int32{int32(i), j})
		} else {
			first[k] = int32(i)
		}
	}
	return first, repeats
}

// TestSortMatchesMap: Sort and Repeats, for lists of every length up to a few thousand, with few or many
// repeats, and hashes of every quality — seeded, or so poor that many keys share one — every
// key is found in its bucket as its first item, every bucket holds its items in list order,
// and the repeats are the reference's.
func TestSortMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	seed := maphash.MakeSeed()
	for range longtest.N(300, 10000) {
		keys := istiotest.RepeatingInts(r, 40)
		n := len(keys)
		hash := func(k int) uint64 { return maphash.Comparable(seed, k) }
		if r.IntN(3) == 0 { // a poor hash: keys collide
			hash = func(k int) uint64 { return uint64(k%3) << 62 }
		}
		hashes := make([]uint64, n)
		for i, k := range keys {
			hashes[i] = hash(k)
		}
		tab, reps := Sort(hashes, func(i, j int32) bool { return keys[i] == keys[j] })
		first, want := sortMap(keys)
		var got [][2]int32
		for _, rp := range reps {
			got = append(got, [2]int32{tab.Slots()[rp.Slot].Item, tab.Slots()[rp.First].Item})
		}
		require.Equal(t, want, got, "%v", keys)
		require.Equal(t, want, Repeats(hashes, func(i, j int32) bool { return keys[i] == keys[j] }), "%v", keys)
		require.Len(t, tab.Slots(), n)
		for k, j := range first {
			found := int32(-1)
			for _, s := range tab.Bucket(hash(k)) {
				if s.Hash == hash(k) && keys[s.Item] == k {
					found = s.Item
					break
				}
			}
			require.Equal(t, j, found, "key %d", k)
		}
		for b := 0; b+1 < len(tab.start); b++ {
			bucket := tab.slots[tab.start[b]:tab.start[b+1]]
			for k := 1; k < len(bucket); k++ {
				require.Less(t, bucket[k-1].Item, bucket[k].Item)
			}
		}
		_, none := Sort(hashes, nil)
		require.Empty(t, none)
	}
}

func TestSortEmpty(t *testing.T) {
	tab, reps := Sort(nil, func(i, j int32) bool { return true })
	require.Empty(t, reps)
	require.Empty(t, Repeats(nil, func(i, j int32) bool { return true }))
	require.Empty(t, tab.Bucket(42))
	var zero Table
	require.Empty(t, zero.Bucket(42))
	require.Empty(t, zero.Slots())
}

// TestSortAllocates: Sort and Repeats allocate their two arrays, and one list of repeats when
// there are some, whatever the length.
func TestSortAllocates(t *testing.T) {
	for _, n := range []int{10, 1000, 100_000} {
		hashes := make([]uint64, n)
		seed := maphash.MakeSeed()
		for i := range hashes {
			hashes[i] = maphash.Comparable(seed, i)
		}
		require.Equal(t, 2.0, testing.AllocsPerRun(5, func() { Sort(hashes, func(i, j int32) bool { return false }) }), "n=%d", n)
		require.Equal(t, 2.0, testing.AllocsPerRun(5, func() { Repeats(hashes, func(i, j int32) bool { return false }) }), "n=%d", n)
	}
}

// BenchmarkSort finds 100,000 names (a namespace and a name each, as an inventory's services
// have) by bucket, against the baseline of a pre-sized Go map from each name to its first
// item; both hash each name once, and look every name up once.
func BenchmarkSort(b *testing.B) {
	const n = 100_000
	keys := make([][2]string, n)
	for i := range keys {
		keys[i] = [2]string{fmt.Sprintf("ns-%d", i%1000), fmt.Sprintf("svc-%d", i)}
	}
	found := 0
	b.Run("buckets", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			seed := maphash.MakeSeed()
			hashes := make([]uint64, n)
			for i := range keys {
				hashes[i] = maphash.Comparable(seed, keys[i])
			}
			tab, _ := Sort(hashes, func(i, j int32) bool { return keys[i] == keys[j] })
			for i := range keys {
				h := maphash.Comparable(seed, keys[i])
				for _, s := range tab.Bucket(h) {
					if s.Hash == h && keys[s.Item] == keys[i] {
						found++
						break
					}
				}
			}
		}
	})
	b.Run("map", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			first := make(map[[2]string]int32, n)
			for i, k := range keys {
				if _, ok := first[k]; !ok {
					first[k] = int32(i)
				}
			}
			for i := range keys {
				if _, ok := first[keys[i]]; ok {
					found++
				}
			}
		}
	})
}
