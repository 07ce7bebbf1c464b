package ambient

import (
	"fmt"
	"hash/maphash"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
)

func TestNameTable(t *testing.T) {
	tests := []struct {
		name   string
		hashes []uint64
	}{
		{"empty", nil},
		{"one", []uint64{42}},
		{"equal hashes chain in one probe sequence", []uint64{7, 7, 7}},
		{"hashes equal but for the low bit (the kind)", []uint64{8, 9}},
		{"many", func() []uint64 {
			r := rand.New(rand.NewPCG(1, 2))
			hs := make([]uint64, 1000)
			for i := range hs {
				hs[i] = r.Uint64()
			}
			return hs
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := newNameTable(len(tt.hashes))
			require.GreaterOrEqual(t, len(tab.c), 2*len(tt.hashes), "at most half full")
			for k, h := range tt.hashes {
				tab.put(h, int32(k))
			}
			for k, h := range tt.hashes {
				// The first cell of h's sequence holding h|1 holds the first put of that hash.
				c := tab.cell(h)
				require.Equal(t, h|1, tab.c[c].h)
				first := slices.IndexFunc(tt.hashes, func(x uint64) bool { return x|1 == h|1 })
				assert.Equal(t, int32(first), tab.c[c].se, "hash %d (put %d)", h, k)
			}
			assert.Zero(t, tab.c[tab.cell(12345678)].h, "an absent hash finds an empty cell")
		})
	}
}

func TestNamespaceTableGrows(t *testing.T) {
	var nt nsTable
	seed := maphash.MakeSeed()
	for i := range 500 {
		name := fmt.Sprintf("ns%d", i)
		h := maphash.String(seed, name)
		require.Nil(t, nt.find(h, name))
		got := nt.add(nsInfo{name: name, hash: h, decision: visibility.Decision{Policy: i}})
		require.Equal(t, i, got.decision.Policy)
	}
	for i := range 500 {
		name := fmt.Sprintf("ns%d", i)
		info := nt.find(maphash.String(seed, name), name)
		require.NotNil(t, info, name)
		assert.Equal(t, i, info.decision.Policy)
	}
}

func TestHashOrderIsStable(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 3, 100, 5000} {
		hs := make([]uint64, n)
		for i := range hs {
			hs[i] = r.Uint64() & 0xFFFF_0000_0000_00FF // many equal top bits
		}
		order := hashOrder(hs)
		require.Len(t, order, len(hs))
		shift := 64 - min(orderBits, bits.Len(uint(n))) // as many top bits as n needs
		seen := make([]bool, len(hs))
		for k, i := range order {
			require.False(t, seen[i])
			seen[i] = true
			if k > 0 {
				a, b := mix(hs[order[k-1]])>>shift, mix(hs[i])>>shift
				require.LessOrEqual(t, a, b, "n=%d: in order of the bits that choose a cell", n)
				if a == b {
					require.Less(t, order[k-1], i, "n=%d: inventory order among equal bits", n)
				}
			}
		}
	}
}

// benchNames are the namespaces and names of the 100,000 entries of the index benchmarks.
func benchNames() []nsName {
	out := make([]nsName, 100_000)
	for i := range out {
		out[i] = nsName{fmt.Sprintf("ns-%d", i%1000), fmt.Sprintf("entry-%d", i)}
	}
	return out
}

// BenchmarkNameTable100k fills the name table as NewIndex does — hash each name, then place
// in hash order, each placement a lookup and a write of the same cell — and finds every name.
func BenchmarkNameTable100k(b *testing.B) {
	keys := benchNames()
	seed := maphash.MakeSeed()
	b.ReportAllocs()
	for b.Loop() {
		hashes := make([]uint64, len(keys))
		for i, k := range keys {
			hashes[i] = maphash.String(seed, k.namespace)*0x9E3779B97F4A7C15 ^ maphash.String(seed, k.name)
		}
		tab := newNameTable(len(keys))
		for _, i := range hashOrder(hashes) {
			c := tab.cell(hashes[i])
			if tab.c[c].h != 0 {
				b.Fatal("collision in the benchmark's names")
			}
			tab.c[c] = cell{hashes[i] | 1, pair{i, -1}}
		}
		for i := range keys {
			if tab.c[tab.cell(hashes[i])].se != int32(i) {
				b.Fatal(i)
			}
		}
	}
}

// BenchmarkNameTable100kGoMap is the baseline: a Go map keyed by namespace and name, sized
// up front, one lookup and one insert per name, then every name found.
func BenchmarkNameTable100kGoMap(b *testing.B) {
	keys := benchNames()
	b.ReportAllocs()
	for b.Loop() {
		m := make(map[nsName]pair, len(keys))
		for i, k := range keys {
			if _, dup := m[k]; dup {
				b.Fatal("duplicate")
			}
			m[k] = pair{int32(i), -1}
		}
		for i, k := range keys {
			if m[k].se != int32(i) {
				b.Fatal(i)
			}
		}
	}
}

func TestKeyTable(t *testing.T) {
	for _, tc := range []struct {
		name string
		hash func(string) uint64
	}{
		{"distinct hashes", func(k string) uint64 { return maphash.String(maphash.MakeSeed(), k) }},
		{"every hash equal", func(string) uint64 { return 42 }}, // keys told apart by comparing them
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Keys h0..h99: h<i> claimed by entry i; h<i> for i%10 == 0 also by entry 1000+i;
			// h7 by entry 7 twice.
			var l keyList[string]
			hashes := map[string]uint64{}
			add := func(k string, e int32) {
				if _, ok := hashes[k]; !ok {
					hashes[k] = tc.hash(k)
				}
				l.add(hashes[k], k, e)
			}
			for i := range int32(100) {
				k := fmt.Sprintf("h%d.example.com", i)
				add(k, i)
				if i%10 == 0 {
					add(k, 1000+i)
				}
			}
			add("h7.example.com", 7)
			var tab keyTable[string]
			var sets int32
			claims := l.insert(&tab, nil, &sets)
			assert.Equal(t, int32(10), sets, "a set for each key of two entries")
			assert.Len(t, claims, 20)
			bySet := map[int32][]int32{}
			for _, c := range claims {
				bySet[c.set] = append(bySet[c.set], c.entry)
			}
			for i := range int32(100) {
				k := fmt.Sprintf("h%d.example.com", i)
				c, ok := tab.get(hashes[k], k)
				require.True(t, ok, k)
				cb, okb := getBytes(&tab, hashes[k], []byte(k))
				assert.True(t, okb && cb == c, "getBytes(%q) = %d, %v; get gives %d", k, cb, okb, c)
				if i%10 == 0 {
					assert.ElementsMatch(t, []int32{i, 1000 + i}, bySet[c], k)
				} else {
					assert.Equal(t, single+i, c, "%s keeps its one entry in its slot", k)
				}
			}
			if _, ok := tab.get(tc.hash("missing"), "missing"); ok {
				t.Error("found a key never put")
			}
			assert.Len(t, slices.Collect(tab.all), 100, "every key once")
		})
	}
	var empty keyTable[addrKey]
	if _, ok := empty.get(1, addrKey{}); ok {
		t.Error("the zero table found a key")
	}
}

// TestNameHashCollisions forces two names onto one hash: both are recorded, each is found
// by its own names, and of two services of one kind with one name (which inv.Validate
// refuses before the table is built) the first stays.
func TestNameHashCollisions(t *testing.T) {
	services := []inventory.Service{
		{Kind: inventory.ServiceEntry, Namespace: "a", Name: "x"},
		{Kind: inventory.ServiceEntry, Namespace: "b", Name: "y"},
		{Kind: inventory.KubernetesService, Namespace: "b", Name: "y"},
		{Kind: inventory.ServiceEntry, Namespace: "b", Name: "y"},
		{Kind: inventory.KubernetesService, Namespace: "a", Name: "x"},
	}
	ix := &Index{services: services, entries: make([]entry, len(services)), names: newNameTable(len(services))}
	const h = 0xdead_beef_0000 // the same hash for every name; the low bit is the kind
	ix.place(0, h|uint64(inventory.ServiceEntry))
	ix.place(1, h|uint64(inventory.ServiceEntry))
	ix.place(2, h|uint64(inventory.KubernetesService))
	ix.place(3, h|uint64(inventory.ServiceEntry))
	ix.place(4, h|uint64(inventory.KubernetesService))
	assert.Equal(t, &pair{se: 0, svc: 4}, ix.findPair(h|1, "a", "x"))
	assert.Equal(t, &pair{se: 1, svc: 2}, ix.findPair(h|1, "b", "y"))
	assert.Nil(t, ix.findPair(h|1, "c", "z"))
	assert.Nil(t, ix.findPair(h|3, "a", "x"), "another hash finds nothing")
}
