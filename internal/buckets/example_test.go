package buckets_test

import (
	"fmt"
	"hash/maphash"

	"github.com/meshscope/meshscope/internal/buckets"
)

func ExampleSort() {
	names := []string{"db", "web", "db", "cache", "web"}
	seed := maphash.MakeSeed()
	hashes := make([]uint64, len(names))
	for i, s := range names {
		hashes[i] = maphash.String(seed, s)
	}
	t, repeats := buckets.Sort(hashes, func(i, j int32) bool { return names[i] == names[j] })
	for _, r := range repeats {
		fmt.Printf("names[%d] repeats names[%d]\n", t.Slots()[r.Slot].Item, t.Slots()[r.First].Item)
	}
	h := maphash.String(seed, "cache")
	for _, s := range t.Bucket(h) {
		if s.Hash == h && names[s.Item] == "cache" {
			fmt.Printf("cache is names[%d]\n", s.Item)
		}
	}
	// Output:
	// names[2] repeats names[0]
	// names[4] repeats names[1]
	// cache is names[3]
}
