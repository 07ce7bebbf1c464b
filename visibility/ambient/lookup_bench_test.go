package ambient

import (
	"fmt"
	"strings"
	"testing"

	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// wildcardInventory is benchInventory with every tenth entry a wildcard — a *. wildcard
// (*.svc-i.ns-j.example.com), and for one entry in a hundred a partial one
// (*-canary-i.ns-j.example.com) — all with addresses.
func wildcardInventory(n int) inventory.Inventory {
	inv := benchInventory(n, 1000)
	for i := range inv.Services {
		s := &inv.Services[i]
		switch {
		case i%100 == 1:
			s.Hosts = []string{fmt.Sprintf("*-canary-%d.%s.example.com", i, s.Namespace)}
		case i%10 == 1:
			s.Hosts = []string{fmt.Sprintf("*.svc-%d.%s.example.com", i, s.Namespace)}
		}
	}
	return inv
}

var wildcardQueries = []string{
	"svc-77777.ns-777.example.com",         // exact
	"a.b.svc-5011.ns-11.example.com",       // a *. wildcard, two labels in
	"nothing.at.all.ns-3.example.com",      // a miss, five label boundaries
	"web-canary-4201.ns-201.example.com",   // a miss: only a partial wildcard covers it, and DNS never answers through one
	"svc-5011.ns-11.example.com.n1.svc.cl", // a miss that is not short
}

// BenchmarkLookupHostWildcards looks up exact hosts, *. wildcards and misses (one that only a
// partial wildcard covers) in an index of 100,000 entries, a tenth of them wildcards: each
// query tries only the *. suffix lengths some wildcard has, at its label boundaries.
func BenchmarkLookupHostWildcards(b *testing.B) {
	ix, err := New(nil, new(wildcardInventory(100_000)))
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range wildcardQueries[:2] {
		if _, ok := ix.LookupHost("ns-1", q); !ok {
			b.Fatalf("%s is not answered", q)
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_, benchFound = ix.LookupHost("ns-1", wildcardQueries[i%len(wildcardQueries)])
		i++
	}
}

// BenchmarkLookupNameWildcards is the probing of LookupHostWildcards alone: lookupName on
// the normalized queries, probing the wildcard table only at the label boundaries where some
// *. wildcard's suffix starts.
func BenchmarkLookupNameWildcards(b *testing.B) { benchLookupName(b, false) }

// BenchmarkLookupNameWildcardsEveryBoundary is its baseline: the same lookups probing the
// wildcard table at every label boundary, as a lookup that does not know which lengths exist
// must.
func BenchmarkLookupNameWildcardsEveryBoundary(b *testing.B) { benchLookupName(b, true) }

func benchLookupName(b *testing.B, every bool) {
	ix, err := New(nil, new(wildcardInventory(100_000)))
	if err != nil {
		b.Fatal(err)
	}
	queries := make([][]byte, len(wildcardQueries))
	for i, q := range wildcardQueries {
		queries[i] = []byte(q)
	}
	if every {
		ix.t.dnsLens = lengthSet{}
		for i := range ix.t.dnsLens {
			ix.t.dnsLens[i] = ^uint64(0) // every length: a probe at every label boundary
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		benchFound = ix.lookupName("ns-1", queries[i%len(queries)]) >= 0
		i++
	}
}

// BenchmarkLookupHostManyWildcardLengths is the worst case an inventory can make: *.
// wildcards at every label boundary of a long query, so that a miss probes once per label
// (31 of them). Partial wildcards, whatever their lengths, add no probe: a DNS lookup never
// tries them.
func BenchmarkLookupHostManyWildcardLengths(b *testing.B) {
	labels := make([]string, 32)
	for i := range labels {
		labels[i] = fmt.Sprintf("l%d", i)
	}
	inv := inventory.Inventory{}
	for i := 1; i < len(labels); i++ {
		suffix := "." + strings.Join(labels[i:], ".")
		inv.Services = append(inv.Services,
			inventory.Service{Kind: inventory.ServiceEntry, Namespace: "a", Name: fmt.Sprintf("w%d", i), Hosts: []string{"*" + suffix}, Addresses: pfx("10.0.0.1")},
			inventory.Service{Kind: inventory.ServiceEntry, Namespace: "a", Name: fmt.Sprintf("p%d", i), Hosts: []string{"*q" + suffix}, Addresses: pfx("10.0.0.2")})
	}
	ix := mustNew(b, &visibility.Config{DefaultVisibility: visibility.None}, inv)
	q := strings.Join(labels, ".")
	b.ReportAllocs()
	for b.Loop() {
		_, benchFound = ix.LookupHost("b", q)
	}
}
