package ambient

import (
	"fmt"
	"hash/maphash"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/growth"
	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// benchInventory has n ServiceEntries spread over namespaces; namespace j is labelled
// team=t(j%200), env=prod, so with benchConfig(100) half the namespaces match a policy and
// half walk all 100 policies to the default.
func benchInventory(n, namespaces int) inventory.Inventory {
	inv := inventory.Inventory{Namespaces: make(map[string]map[string]string, namespaces), Services: make([]inventory.Service, n)}
	for j := range namespaces {
		ns := fmt.Sprintf("ns-%d", j)
		inv.Namespaces[ns] = map[string]string{"team": fmt.Sprintf("t%d", j%200), "env": "prod", visibility.NamespaceNameLabel: ns}
	}
	for i := range n {
		ns := fmt.Sprintf("ns-%d", i%namespaces)
		inv.Services[i] = inventory.Service{Kind: inventory.ServiceEntry, Namespace: ns, Name: fmt.Sprintf("svc-%d", i),
			Hosts:        []string{fmt.Sprintf("svc-%d.%s.example.com", i, ns)},
			Addresses:    []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 32)},
			CreationTime: t0}
	}
	return inv
}

var benchDecision visibility.Decision

func benchmarkNewIndex(b *testing.B, n int) {
	m := meshOf(benchConfig(100))
	inv := benchInventory(n, 1000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		ix, err := New(m, &inv)
		if err != nil {
			b.Fatal(err)
		}
		for i := range inv.Services {
			benchDecision, _ = ix.Decision(inv.Services[i].Namespace, inv.Services[i].Name)
		}
	}
}

// BenchmarkNewIndex100k builds the index of 100,000 entries over 1,000 namespaces with 100
// policies and asks each entry's decision.
func BenchmarkNewIndex100k(b *testing.B) { benchmarkNewIndex(b, 100_000) }

// BenchmarkNewIndex1M is the same with 1,000,000 entries.
func BenchmarkNewIndex1M(b *testing.B) { benchmarkNewIndex(b, 1_000_000) }

// BenchmarkNewIndex10 builds the index of 10 entries: what a test, a fuzzer or a request
// that indexes a handful of services pays per index.
func BenchmarkNewIndex10(b *testing.B) {
	m := meshOf(benchConfig(100))
	inv := benchInventory(10, 5)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(m, &inv); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPerEntryPolicyWalk100k is the baseline: selectors converted once (a compiled
// Resolver), every entry walks the policies with its namespace's labels — how istiod
// decides. It builds no lookup structures at all.
func BenchmarkPerEntryPolicyWalk100k(b *testing.B) {
	res := mustCompile(b, benchConfig(100))
	inv := benchInventory(100_000, 1000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for i := range inv.Services {
			benchDecision = res.Resolve(labels.Set(inv.Namespaces[inv.Services[i].Namespace]))
		}
	}
}

var benchFound bool

// BenchmarkNewIndex100kAndTables adds what the first lookup costs: building the host and
// address tables of all 100,000 entries.
func BenchmarkNewIndex100kAndTables(b *testing.B) {
	m := meshOf(benchConfig(100))
	inv := benchInventory(100_000, 1000)
	b.ReportAllocs()
	for b.Loop() {
		ix, err := New(m, &inv)
		if err != nil {
			b.Fatal(err)
		}
		_, benchFound = ix.LookupHost("ns-1", "svc-1.ns-1.example.com")
	}
}

// BenchmarkDecision finds the decision of a service by namespace and name in an index of
// 100,000 entries, and misses one.
func BenchmarkDecision(b *testing.B) {
	ix := mustNew(b, benchConfig(100), benchInventory(100_000, 1000))
	names := [][2]string{{"ns-777", "svc-77777"}, {"ns-5", "svc-5"}, {"ns-5", "svc-6"}}
	ix.Decision("", "") // builds the table of names (BenchmarkNewIndex100k counts it)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		n := names[i%len(names)]
		benchDecision, benchFound = ix.Decision(n[0], n[1])
		i++
	}
}

func BenchmarkLookupHost(b *testing.B) {
	ix := mustNew(b, benchConfig(100), benchInventory(100_000, 1000))
	hosts := []string{"svc-77777.ns-777.example.com", "svc-5.ns-5.example.com", "nothing.example.com"}

	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_, benchFound = ix.LookupHost("ns-777", hosts[i%len(hosts)])
		i++
	}
}

func BenchmarkLookupAddress(b *testing.B) {
	inv := benchInventory(100_000, 1000)
	inv.Services = append(inv.Services, inventory.Service{Kind: inventory.ServiceEntry, Namespace: "ns-1", Name: "net", Addresses: pfx("10.0.0.0/8", "172.16.0.0/12")})
	ix := mustNew(b, benchConfig(100), inv)
	addrs := []netip.Addr{netip.MustParseAddr("10.1.2.3"), netip.MustParseAddr("172.16.5.5"), netip.MustParseAddr("192.0.2.1")}

	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_, benchFound = ix.LookupAddress("ns-1", addrs[i%len(addrs)])
		i++
	}
}

// BenchmarkPerEntryWalkWithMaps100k is the baseline for an index ready to answer: every
// entry walks the policies (selectors converted once) and is put in a host map and an
// address map, as a control plane without an index would build them.
func BenchmarkPerEntryWalkWithMaps100k(b *testing.B) {
	res := mustCompile(b, benchConfig(100))
	inv := benchInventory(100_000, 1000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		hosts := map[string][]int{}
		addrs := map[netip.Addr][]int{}
		decisions := make([]visibility.Decision, len(inv.Services))
		for i := range inv.Services {
			s := &inv.Services[i]
			decisions[i] = res.Resolve(labels.Set(inv.Namespaces[s.Namespace]))
			for _, h := range s.Hosts {
				hosts[h] = append(hosts[h], i)
			}
			for _, a := range s.Addresses {
				addrs[a.Addr()] = append(addrs[a.Addr()], i)
			}
		}
		benchDecision = decisions[len(decisions)-1]
	}
}

// claimMap is the baseline of keyTable: entry e's claim on key k of a Go map, a key's first
// entry kept as a set of one (see single) and a second numbering a set, as the index's
// tables were filled before keyTable.
func claimMap[K comparable](m map[K]int32, k K, e int32, sets *int32) {
	switch c, ok := m[k]; {
	case !ok:
		m[k] = single + e
	case c == single+e:
	case c >= single:
		m[k] = *sets
		*sets++
	}
}

// BenchmarkKeyTable builds the exact-host and exact-address tables of 100,000 entries and
// looks every entry's host and address up once: keyTables, and the baseline of pre-sized Go
// maps filled as claimMap fills them. Both read the entries alike (normalized hosts with an
// address, canonical addresses).
func BenchmarkKeyTable(b *testing.B) {
	inv := benchInventory(100_000, 1000)
	b.Run("keyTable", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p := newPending(len(inv.Services), maphash.MakeSeed())
			for i := range inv.Services {
				s := &inv.Services[i]
				for _, h := range s.Hosts {
					p.host(int32(i), s, h)
				}
				for _, a := range s.AllAddresses() {
					p.address(int32(i), a)
				}
			}
			t := p.t
			t.hosts, t.addrs = p.hosts.table(p, hostSet), p.addrs.table(p, addressSet)
			for i := range inv.Services {
				_, benchFound = t.host(hosts.Normalize(inv.Services[i].Hosts[0]))
				_, benchFound = t.addr(inv.Services[i].Addresses[0].Addr())
			}
		}
	})
	b.Run("map", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			hostSets, addrSets := make(map[string]int32, len(inv.Services)), make(map[netip.Addr]int32, len(inv.Services))
			var sets int32
			for i := range inv.Services {
				s := &inv.Services[i]
				for _, spec := range s.Hosts {
					if h := hosts.Normalize(spec); s.AnswersFor(spec) && !strings.HasPrefix(h, "*") {
						claimMap(hostSets, h, int32(i), &sets)
					}
				}
				for _, a := range s.AllAddresses() {
					if a = hosts.Canonical(a); a.IsSingleIP() {
						claimMap(addrSets, a.Addr(), int32(i), &sets)
					}
				}
			}
			for i := range inv.Services {
				_, benchFound = hostSets[hosts.Normalize(inv.Services[i].Hosts[0])]
				_, benchFound = addrSets[inv.Services[i].Addresses[0].Addr()]
			}
		}
	})
}

// benchmarkDiff audits a change from benchConfig(100) to the same with every policy's
// visibility flipped, over n entries in 250 namespaces. Every entry changes, and so does the
// answer for its host and its address, each listing the client namespaces it changes for:
// the output grows with the entries.
func benchmarkDiff(b *testing.B, n int) {
	before := meshOf(benchConfig(100))
	c := benchConfig(100)
	for i := range c.Policies {
		c.Policies[i].Visibility = []visibility.Visibility{visibility.None, visibility.Public}[i%2]
	}
	after := meshOf(c)
	inv := benchInventory(n, 250)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		a, err := Diff(before, after, &inv)
		if err != nil {
			b.Fatal(err)
		}
		if len(a.Entries) == 0 {
			b.Fatal("no changes")
		}
		rows := 0
		for _, h := range append(a.Hosts, a.Addresses...) {
			rows += len(h.Key.Clients)
		}
		b.ReportMetric(float64(rows), "clients/op")
	}
}

// BenchmarkDiff: the audit of a change over n entries; linear in the entries and the rows.
func BenchmarkDiff2500(b *testing.B)  { benchmarkDiff(b, 2_500) }
func BenchmarkDiff10000(b *testing.B) { benchmarkDiff(b, 10_000) }

// benchmarkDiffPerChange audits before to after over inv and reports the cost per change
// Diff writes (EntryChange and AnswerChange alike).
func benchmarkDiffPerChange(b *testing.B, inv inventory.Inventory, before, after *visibility.Config) {
	mb, ma := meshOf(before), meshOf(after)
	b.ReportAllocs()
	changes := 0
	for b.Loop() {
		a, err := Diff(mb, ma, &inv)
		if err != nil {
			b.Fatal(err)
		}
		changes = len(a.Entries) + len(a.Hosts) + len(a.Addresses)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(changes), "ns/change")
}

// BenchmarkDiffNamespaces: n entries in n/10 namespaces, half of which go from PUBLIC to
// NAMESPACE, so each answer changes for every namespace but one: the cost per change stays
// flat as the namespaces grow (a change says "every namespace but …", it does not list them).
func BenchmarkDiffNamespaces2500(b *testing.B) {
	benchmarkDiffPerChange(b, halfInventory(2_500), halfConfig("half", "yes", visibility.Public), halfConfig("half", "yes", visibility.Namespace))
}
func BenchmarkDiffNamespaces10000(b *testing.B) {
	benchmarkDiffPerChange(b, halfInventory(10_000), halfConfig("half", "yes", visibility.Public), halfConfig("half", "yes", visibility.Namespace))
}

// BenchmarkDiffSharedPath: n namespaces share a wildcard host and a CIDR on every query's
// path, and n owners' entries go from NAMESPACE to NONE: each answer changes for its owner
// alone, and costs the same whatever n.
func BenchmarkDiffSharedPath1000(b *testing.B) {
	benchmarkDiffPerChange(b, sharedPathInventory(1_000), halfConfig("role", "owner", visibility.Namespace), halfConfig("role", "owner", visibility.None))
}
func BenchmarkDiffSharedPath4000(b *testing.B) {
	benchmarkDiffPerChange(b, sharedPathInventory(4_000), halfConfig("role", "owner", visibility.Namespace), halfConfig("role", "owner", visibility.None))
}

// TestNewIsLinear pins New's growth, tables included: 4x the entries may cost at most 5x
// the allocations and 5x the bytes allocated (tables are sized in powers of two), and so may
// the first Decision, which builds the table of names.
func TestNewIsLinear(t *testing.T) {
	m := meshOf(benchConfig(100))
	measure := func(n int, first bool) (allocs, bytes float64) {
		inv := benchInventory(n, 1000)
		return growth.Allocated(func() {
			ix, err := New(m, &inv)
			require.NoError(t, err)
			if first {
				ix.Decision("ns-1", "svc-1")
			}
		})
	}
	for _, first := range []bool{false, true} {
		smallA, smallB := measure(5000, first)
		largeA, largeB := measure(20000, first)
		assert.Less(t, largeA, 5*smallA, "allocations at n=5000: %v, at n=20000: %v (and a Decision: %v)", smallA, largeA, first)
		assert.Less(t, largeB, 5*smallB, "bytes at n=5000: %v, at n=20000: %v (and a Decision: %v)", smallB, largeB, first)
	}
}
