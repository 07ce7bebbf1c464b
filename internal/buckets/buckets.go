package buckets

import (
	"cmp"
	"math/bits"
	"slices"
)

// Table holds a list's items sorted into buckets by their hashes. The zero Table is empty.
type Table struct {
	shift uint    // 64 - log2(buckets): a hash's top bits choose its bucket
	start []int32 // bucket b is slots[start[b]:start[b+1]]
	slots []Slot
}

// Slot is an item in its bucket.
type Slot struct {
	Hash uint64 // the hash of the item's key
	Item int32  // where the item is in the list
	// Val is the caller's: what the item's key maps to, set after Sort (which leaves 0).
	Val int32
}

// Repeat is a slot whose item's key an earlier item of the list has, and the slot of the
// first item with that key (indexes into Slots).
type Repeat struct{ Slot, First int32 }

// Sort returns the items of a list, hashes[i] the hash of item i's key, in buckets: n+1 to
// 2n buckets for n items, so that a bucket holds about one. It returns too the items whose
// key an earlier item has, in list order: same(i, j) reports whether items i and j, whose
// hashes are equal, have equal keys (Sort asks it only of items sharing a bucket); a nil same
// finds none. The repeats are put in list order by a sort of their own (r log r for r
// repeats). A list of 2^31 items or more cannot be sorted (Item is an int32): Sort panics on
// one.
func Sort(hashes []uint64, same func(i, j int32) bool) (Table, []Repeat) {
	shift, start := count(hashes)
	if start == nil {
		return Table{}, nil
	}
	slots := make([]Slot, len(hashes))
	for i, h := range hashes { // in list order: each bucket lists its items in order
		b := h >> shift
		slots[start[b]] = Slot{Hash: h, Item: int32(i)}
		start[b]++
	}
	// start[b] is now where bucket b+1 starts.
	copy(start[1:], start[:len(start)-1])
	start[0] = 0
	t := Table{shift: shift, start: start, slots: slots}
	return t, t.repeats(same)
}

// count returns the shift that makes a hash's top bits its bucket, for n+1 to 2n buckets,
// and where each bucket starts in a list sorted by bucket (one past the last bucket: n); nil
// for no items.
func count(hashes []uint64) (shift uint, start []int32) {
	n := len(hashes)
	if n == 0 {
		return 0, nil
	}
	if n >= 1<<31-1 {
		panic("buckets: a list of 2^31 items or more")
	}
	shift = uint(64 - bits.Len(uint(n)))
	start = make([]int32, 1<<(64-shift)+1)
	for _, h := range hashes {
		start[h>>shift+1]++
	}
	for b := 1; b < len(start); b++ {
		start[b] += start[b-1]
	}
	return shift, start
}

// Repeats returns the items of a list whose key an earlier item has, each with the first
// item with that key, in list order: what Sort returns, for a caller that looks nothing up
// after. It sorts only the items' places into buckets, a quarter of the slots Sort writes.
func Repeats(hashes []uint64, same func(i, j int32) bool) [][2]int32 {
	shift, start := count(hashes)
	if start == nil {
		return nil
	}
	order := make([]int32, len(hashes))
	for i, h := range hashes {
		b := h >> shift
		order[start[b]] = int32(i)
		start[b]++
	}
	// start[b] is now where bucket b+1 starts.
	var pairs [][2]int32
	for b, end := 0, int32(0); int(end) < len(order); b++ {
		from := end
		end = start[b]
		bucket := order[from:end]
		for k := 1; k < len(bucket); k++ {
			i := bucket[k]
			for _, j := range bucket[:k] {
				if hashes[j] == hashes[i] && same(j, i) {
					pairs = append(pairs, [2]int32{i, j})
					break
				}
			}
		}
	}
	if len(pairs) > 1 {
		slices.SortFunc(pairs, func(a, b [2]int32) int { return cmp.Compare(a[0], b[0]) })
	}
	return pairs
}

// repeats finds the repeats Sort returns: it reads the buckets in turn (the slots in order,
// where the scatter of Sort wrote them at random), comparing each item with the bucket's
// earlier ones.
func (t *Table) repeats(same func(i, j int32) bool) []Repeat {
	if same == nil {
		return nil
	}
	var repeats []Repeat
	for b := 0; b+1 < len(t.start); b++ {
		from, to := t.start[b], t.start[b+1]
		for k := from + 1; k < to; k++ {
			s := &t.slots[k]
			for f := from; f < k; f++ {
				if t.slots[f].Hash == s.Hash && same(t.slots[f].Item, s.Item) {
					repeats = append(repeats, Repeat{k, f})
					break
				}
			}
		}
	}
	if len(repeats) > 1 {
		slices.SortFunc(repeats, func(a, b Repeat) int { return cmp.Compare(t.slots[a.Slot].Item, t.slots[b.Slot].Item) })
	}
	return repeats
}

// Bucket returns the slots of h's bucket, in list order: those whose Hash is h are the items
// whose keys may be the one hashed. The slots are the table's: a caller may set their Val.
func (t *Table) Bucket(h uint64) []Slot {
	if len(t.slots) == 0 {
		return nil
	}
	b := h >> t.shift
	return t.slots[t.start[b]:t.start[b+1]]
}

// Slots returns every slot, bucket by bucket. The slots are the table's: a caller may set
// their Val.
func (t *Table) Slots() []Slot { return t.slots }
