package ambient

import (
	"hash/maphash"
	"net/netip"
)

// keyTable is an open-addressing hash table from a host or an address to its candidate set:
// one flat array of 16-byte slots, each holding a key's 64-bit hash, its set and where the
// key is in keys. A set is an index into tables.sets, or, for the many keys with one entry,
// the entry itself (see single). The table is built once, by keyList.insert, and never
// grows.
//
// Why not a Go map: the index's tables were Go maps, and building them was most of the cost
// of an index ready to answer. Here the keys are put in in the order of the bits that choose
// their slots, so that a table is written front to back (a Go map is written at random),
// its slots hold no pointer, and a key of one entry needs no set.
// BenchmarkNewIndex100kAndTables, beside BenchmarkPerEntryWalkWithMaps100k (Go maps of the
// same hosts and addresses), says what that buys.
type keyTable[K comparable] struct {
	slots []slot
	keys  []K // the keys, as keyList collected them (a key claimed twice is there twice)
	mask  uint64
	shift uint // 64 - log2(len(slots))
	n     int  // keys in the table
}

type slot struct {
	h   uint64 // 0: empty; stored hashes have their low bit set
	set int32
	ref int32 // the key is keys[ref]
}

// addrKey is an address as a table key: its 16 bytes (an IPv4 address in its IPv4-mapped
// form). The index holds only unmapped addresses without a zone, so no two keys collide.
type addrKey [16]byte

// newKeyTable returns a table of at least twice n slots: a lookup of a missing key probes
// a couple of slots on average.
func newKeyTable[K comparable](n int, keys []K) keyTable[K] {
	size, shift := uint64(8), uint(61)
	for size < uint64(2*n) {
		size, shift = size<<1, shift-1
	}
	return keyTable[K]{slots: make([]slot, size), keys: keys, mask: size - 1, shift: shift}
}

// find returns the slot holding key (whose hash is h, low bit set), or the empty slot where
// it would go.
func (t *keyTable[K]) find(h uint64, key K) uint64 {
	i := mix(h) >> t.shift
	for t.slots[i].h != 0 && (t.slots[i].h != h || t.keys[t.slots[i].ref] != key) {
		i = (i + 1) & t.mask
	}
	return i
}

// findRef is find for the key keys[ref], read only to tell apart keys of one hash.
func (t *keyTable[K]) findRef(h uint64, ref int32) uint64 {
	i := mix(h) >> t.shift
	for t.slots[i].h != 0 && (t.slots[i].h != h || t.keys[t.slots[i].ref] != t.keys[ref]) {
		i = (i + 1) & t.mask
	}
	return i
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
	for i := mix(h) >> t.shift; t.slots[i].h != 0; i = (i + 1) & t.mask {
		if t.slots[i].h == h && t.keys[t.slots[i].ref] == string(key) {
			return t.slots[i].set, true
		}
	}
	return -1, false
}

// all yields every key, once, in no particular order.
func (t *keyTable[K]) all(yield func(K) bool) {
	for _, s := range t.slots {
		if s.h != 0 && !yield(t.keys[s.ref]) {
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
// bits that choose a slot, so that the table is written front to back). A key of one entry
// keeps it in its slot (see single); a key of more gets a set, numbered from *sets, and a
// claim for each of its entries.
func (l *keyList[K]) insert(t *keyTable[K], claims []claim, sets *int32) []claim {
	*t = newKeyTable(len(l.keys), l.keys)
	for _, k := range hashOrder(l.hashes) {
		h, e := l.hashes[k], l.entries[k]
		s := &t.slots[t.findRef(h, k)]
		switch {
		case s.h == 0:
			*s = slot{h: h, set: single + e, ref: k}
			t.n++
		case s.set == single+e: // the entry lists the key twice
		case s.set >= single:
			claims = append(claims, claim{*sets, s.set - single}, claim{*sets, e})
			s.set = *sets
			*sets++
		default:
			claims = append(claims, claim{s.set, e})
		}
	}
	return claims
}
