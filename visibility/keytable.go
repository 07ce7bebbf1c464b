package visibility

import (
	"hash/maphash"
	"net/netip"
)

// keyTable is an open-addressing hash table from a host or an address to its candidate set
// (an index into tables.sets): one flat array of slots, each holding the key's 64-bit hash,
// the set and the key. A lookup reads one slot in the common case, with no pointer to chase
// but the key's bytes; the table grows by doubling when half full.
//
// Why not a Go map: the index's tables were Go maps, and building them was most of the cost
// of an index ready to answer. The keys are put in in the order of the bits that choose
// their slots (keyList.insert), so a table is written front to back, which a Go map cannot
// offer, and its slots hold no pointer but a host's string. Measured on the benchmarks'
// 100,000 entries with a host and an address each (BenchmarkNewIndex100kAndTables, 2-core
// VM, medians of 3): 67 ms with Go maps, 44 ms with these tables.
type keyTable[K comparable] struct {
	slots []slot[K]
	mask  uint64
	shift uint // 64 - log2(len(slots))
	n     int
}

type slot[K comparable] struct {
	h   uint64 // 0: empty; stored hashes have their low bit set
	set int32
	key K
}

// addrKey is an address as a table key: its 16 bytes (an IPv4 address in its IPv4-mapped
// form). The index holds only unmapped addresses without a zone, so no two keys collide.
type addrKey [16]byte

func newKeyTable[K comparable](n int) keyTable[K] {
	size, shift := uint64(8), uint(61)
	for size < uint64(2*n) {
		size, shift = size<<1, shift-1
	}
	return keyTable[K]{slots: make([]slot[K], size), mask: size - 1, shift: shift}
}

// find returns the slot holding key (whose hash is h), or the empty slot where it would go.
func (t *keyTable[K]) find(h uint64, key K) uint64 {
	i := mix(h) >> t.shift
	for t.slots[i].h != 0 && (t.slots[i].h != h || t.slots[i].key != key) {
		i = (i + 1) & t.mask
	}
	return i
}

// setOf returns the candidate set of key, numbering a new one from *sets.
func (t *keyTable[K]) setOf(h uint64, key K, sets *int32) int32 {
	h |= 1
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	i := t.find(h, key)
	if t.slots[i].h == 0 {
		t.slots[i] = slot[K]{h: h, set: *sets, key: key}
		t.n++
		*sets++
	}
	return t.slots[i].set
}

func (t *keyTable[K]) grow() {
	old := t.slots
	*t = newKeyTable[K](max(len(old), 4))
	for _, s := range old {
		if s.h != 0 {
			i := mix(s.h) >> t.shift
			for t.slots[i].h != 0 {
				i = (i + 1) & t.mask
			}
			t.slots[i] = s
			t.n++
		}
	}
}

// get returns key's set.
func (t *keyTable[K]) get(h uint64, key K) (int32, bool) {
	if t.n == 0 {
		return -1, false
	}
	s := &t.slots[t.find(h|1, key)]
	return s.set, s.h != 0
}

// getBytes is get for a string table and a key given as bytes, without allocating.
func getBytes(t *keyTable[string], h uint64, key []byte) (int32, bool) {
	if t.n == 0 {
		return -1, false
	}
	h |= 1
	i := mix(h) >> t.shift
	for t.slots[i].h != 0 {
		if t.slots[i].h == h && t.slots[i].key == string(key) {
			return t.slots[i].set, true
		}
		i = (i + 1) & t.mask
	}
	return -1, false
}

// keys yields every key, in no particular order.
func (t *keyTable[K]) keys(yield func(K) bool) {
	for _, s := range t.slots {
		if s.h != 0 && !yield(s.key) {
			return
		}
	}
}

// hostHash and addrHash hash keys with the index's seed, so that which keys share a slot
// cannot be chosen by whoever writes the inventory.
func (ix *Index) hostHash(h string) uint64  { return maphash.String(ix.seed, h) }
func (ix *Index) bytesHash(h []byte) uint64 { return maphash.Bytes(ix.seed, h) }

func (ix *Index) addrHash(a addrKey) uint64 { return maphash.Bytes(ix.seed, a[:]) }

func addrKeyOf(a netip.Addr) addrKey { return a.As16() }

// addrOf is addrKeyOf reversed.
func addrOf(k addrKey) netip.Addr { return netip.AddrFrom16(k).Unmap() }

// keyList collects the keys of one table, each with its hash and the entry claiming it,
// before they are put in the table.
type keyList[K comparable] struct {
	hashes  []uint64
	keys    []K
	entries []int32
}

func (l *keyList[K]) grow(n int) {
	l.hashes, l.keys, l.entries = make([]uint64, 0, n), make([]K, 0, n), make([]int32, 0, n)
}

func (l *keyList[K]) add(h uint64, key K, entry int32) {
	l.hashes = append(l.hashes, h|1)
	l.keys = append(l.keys, key)
	l.entries = append(l.entries, entry)
}

// insert builds t from the keys, in the order of the top bits of their mixed hashes (the
// bits that choose a slot), and returns each key's set.
func (l *keyList[K]) insert(t *keyTable[K], sets *int32) []int32 {
	*t = newKeyTable[K](len(l.keys))
	out := make([]int32, len(l.keys))
	for _, k := range hashOrder(l.hashes) {
		out[k] = t.setOf(l.hashes[k], l.keys[k], sets)
	}
	return out
}

// renumber replaces each slot's set s by to[s].
func (t *keyTable[K]) renumber(to []int32) {
	for i := range t.slots {
		if t.slots[i].h != 0 {
			t.slots[i].set = to[t.slots[i].set]
		}
	}
}
