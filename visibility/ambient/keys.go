package ambient

import (
	"hash/maphash"
	"net/netip"

	"github.com/meshscope/meshscope/internal/buckets"
)

// keyTable maps each exact host, or each exact address, the entries claim to its candidate
// set. It is built once, from every claim at once: the claims are appended in inventory
// order, then sorted into buckets by their keys' hashes (buckets.Sort), which finds the
// claims of one key among the few of its bucket. A key's first claim holds the key's set in
// its slot's Val; a later claim of the key holds repeated.
//
// Why not a Go map: filling Go maps of 100,000 hosts and 100,000 addresses was most of what
// New cost. A map reads the group each claim goes to, at random in a table larger than the
// cache, before it writes the claim there; here the counting sort's scattered writes are not
// waited for, and the buckets are then read in order. BenchmarkKeyTable gives the figures of
// both (pre-sized Go maps filled as the index filled them before), and
// BenchmarkNewIndex100kAndTables, beside BenchmarkPerEntryWalkWithMaps100k, those of New.
type keyTable[K comparable] struct {
	b    buckets.Table
	keys []K // by claim, in inventory order: a slot's Item
}

// repeated is the Val of a slot whose key an earlier claim has: the first claim's slot holds
// the key's set.
const repeated = -1

// get returns the set of key, whose hash is h.
func (t *keyTable[K]) get(h uint64, key K) (int32, bool) {
	for _, s := range t.b.Bucket(h) {
		if s.Hash == h && t.keys[s.Item] == key {
			return s.Val, true
		}
	}
	return -1, false
}

// getBytes is get for a host given as bytes, without allocating.
func getBytes(t *keyTable[string], h uint64, key []byte) (int32, bool) {
	for _, s := range t.b.Bucket(h) {
		if s.Hash == h && t.keys[s.Item] == string(key) {
			return s.Val, true
		}
	}
	return -1, false
}

// all yields every key, once, in no particular order.
func (t *keyTable[K]) all(yield func(K) bool) {
	for _, s := range t.b.Slots() {
		if s.Val != repeated && !yield(t.keys[s.Item]) {
			return
		}
	}
}

// host returns the candidate set of the exact host h (normalized).
func (t *tables) host(h string) (int32, bool) { return t.hosts.get(hostHash(t.seed, h), h) }

// hostBytes is host for a host given as bytes, without allocating.
func (t *tables) hostBytes(h []byte) (int32, bool) {
	return getBytes(&t.hosts, maphash.Bytes(t.seed, h), h)
}

// addr returns the candidate set of the exact address a (without a zone).
func (t *tables) addr(a netip.Addr) (int32, bool) { return t.addrs.get(addrHash(t.seed, a), a) }

// claimList gathers the claims on the keys of one table, in inventory order, before the
// table is built.
type claimList[K comparable] struct {
	hashes  []uint64
	keys    []K
	entries []int32
}

func newClaimList[K comparable](n int) claimList[K] {
	return claimList[K]{make([]uint64, 0, n), make([]K, 0, n), make([]int32, 0, n)}
}

func (l *claimList[K]) add(h uint64, key K, entry int32) {
	l.hashes = append(l.hashes, h)
	l.keys = append(l.keys, key)
	l.entries = append(l.entries, entry)
}

// table builds the table of the claims: a key of one entry keeps it in its slot (as single
// plus the entry); a key of more gets a set of kind, numbered from p.sets, and a claim in
// p.claims for each of its entries.
func (l *claimList[K]) table(p *pending, kind setKind) keyTable[K] {
	b, reps := buckets.Sort(l.hashes, func(i, j int32) bool { return l.keys[i] == l.keys[j] })
	t := keyTable[K]{b: b, keys: l.keys}
	slots := t.b.Slots()
	for k := range slots {
		slots[k].Val = single + l.entries[slots[k].Item]
	}
	for _, r := range reps { // in the order of the claims
		e, first := l.entries[slots[r.Slot].Item], &slots[r.First]
		switch c := first.Val; {
		case c == single+e: // the entry lists the key twice
		case c >= single:
			p.claims = append(p.claims, claim{p.sets, c - single}, claim{p.sets, e})
			first.Val = p.sets
			p.t.kinds = append(p.t.kinds, kind)
			p.sets++
		default:
			p.claims = append(p.claims, claim{c, e})
		}
		slots[r.Slot].Val = repeated
	}
	return t
}

// hostHash and addrHash hash the keys of the tables with the index's seed, so that which keys
// share a bucket cannot be chosen by whoever writes the inventory. hostHash of a host and
// maphash.Bytes of its bytes are equal.
func hostHash(seed maphash.Seed, h string) uint64 { return maphash.String(seed, h) }

// addrHash hashes an address's 16 bytes: 10.0.0.1 and ::ffff:10.0.0.1, two keys, share a
// hash.
func addrHash(seed maphash.Seed, a netip.Addr) uint64 { return maphash.Comparable(seed, a.As16()) }
