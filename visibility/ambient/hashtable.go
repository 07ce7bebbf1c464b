package ambient

import (
	"math/bits"

	"github.com/meshscope/meshscope/visibility"
)

// pair holds the services with one namespace and name: a ServiceEntry and a Kubernetes
// Service, -1 where there is none.
type pair struct{ se, svc int32 }

// first returns the pair's ServiceEntry, else its Kubernetes Service.
func (p *pair) first() int32 {
	if p.se >= 0 {
		return p.se
	}
	return p.svc
}

type nsName struct{ namespace, name string }

// nsInfo is what New knows of a namespace: its decision and the hash of its name.
type nsInfo struct {
	name     string
	decision visibility.Decision
	hash     uint64
}

// nsTable finds a namespace's nsInfo by the hash of its name; it is small enough to stay in
// cache while a million entries stream past.
type nsTable struct {
	cells nameTable
	list  []nsInfo
}

// find returns the namespace's info, or nil.
func (t *nsTable) find(h uint64, name string) *nsInfo {
	if len(t.cells.c) == 0 {
		return nil
	}
	for c := t.cells.cell(h); t.cells.c[c].h != 0; c = (c + 1) & t.cells.mask {
		if info := &t.list[t.cells.c[c].se]; t.cells.c[c].h == h|1 && info.name == name {
			return info
		}
	}
	return nil
}

func (t *nsTable) add(info nsInfo) *nsInfo {
	if 2*(len(t.list)+1) > len(t.cells.c) {
		t.cells = newNameTable(2 * (len(t.list) + 1))
		for k, old := range t.list {
			t.cells.put(old.hash, int32(k))
		}
	}
	t.list = append(t.list, info)
	t.cells.put(info.hash, int32(len(t.list)-1))
	return &t.list[len(t.list)-1]
}

// nameTable is an open-addressing hash table from a 64-bit hash to a pair of services, sized
// once: a lookup reads one cell, and the insertion that follows it writes the same cell,
// where a Go map would probe twice. New fills it in hash order (hashOrder), so that it
// is written front to back rather than at random.
//
// Why not a Go map: New fills and searches this table once per entry, and
// BenchmarkNameTable100k, beside BenchmarkNameTable100kGoMap (a pre-sized map[nsName]pair
// doing the same), says what this one saves in time and allocations.
type nameTable struct {
	c     []cell
	mask  uint64
	shift uint // 64 - log2(len(c))
}

// cell is a hash (0 when empty; stored hashes have their low bit set) and what it maps to:
// one cache line holds both. (The namespace table keeps an index in se.)
type cell struct {
	h uint64
	pair
}

func newNameTable(n int) nameTable {
	size, shift := uint64(8), uint(61)
	for size < uint64(2*n) {
		size, shift = size<<1, shift-1
	}
	return nameTable{c: make([]cell, size), mask: size - 1, shift: shift}
}

// mix scrambles a hash so that its top bits are well spread; a table's first probe is the
// top bits of the mixed hash, so that cells are in hash order.
func mix(h uint64) uint64 { return (h | 1) * 0x9E3779B97F4A7C15 }

// put stores k for h in the first empty cell of h's probe sequence (after any cells holding
// an equal hash).
func (t *nameTable) put(h uint64, k int32) {
	h |= 1
	i := mix(h) >> t.shift
	for t.c[i].h != 0 {
		i = (i + 1) & t.mask
	}
	t.c[i] = cell{h, pair{k, -1}}
}

// cell returns the cell holding h, or the empty cell where h would go.
func (t *nameTable) cell(h uint64) uint64 {
	h |= 1
	i := mix(h) >> t.shift
	for t.c[i].h != 0 && t.c[i].h != h {
		i = (i + 1) & t.mask
	}
	return i
}

// hashOrder returns the indexes of hashes ordered by the top bits of their mixed value — the
// bits that choose a cell of a table sized for them — keeping inventory order among equal
// bits. It is a counting sort on as many top bits as len(hashes) needs (at most 12), so that a
// small inventory costs a small sort.
func hashOrder(hashes []uint64) []int32 {
	order := make([]int32, len(hashes))
	if len(hashes) < 2 {
		return order // nil or [0]
	}
	shift := 64 - min(orderBits, bits.Len(uint(len(hashes))))
	var counts [1<<orderBits + 1]int32
	count := counts[:1<<(64-shift)+1]
	for _, h := range hashes {
		count[mix(h)>>shift+1]++
	}
	for b := 1; b < len(count); b++ {
		count[b] += count[b-1]
	}
	for i, h := range hashes {
		b := mix(h) >> shift
		order[count[b]] = int32(i)
		count[b]++
	}
	return order
}

// orderBits is the most top bits hashOrder sorts on.
const orderBits = 12
