package visibility

import (
	"fmt"
	"strings"
	"testing"
)

// wildcardInventory is benchInventory with every tenth entry a wildcard — a *. wildcard
// (*.svc-i.ns-j.example.com), and for one entry in a hundred a partial one
// (*-canary-i.ns-j.example.com) — all with addresses.
func wildcardInventory(n int) Inventory {
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
	"web-canary-4201.ns-201.example.com",   // a partial wildcard
	"nothing.at.all.ns-3.example.com",      // a miss, five label boundaries
	"svc-5011.ns-11.example.com.n1.svc.cl", // a miss that is not short
}

// BenchmarkLookupHostWildcards looks up exact hosts, *. and partial wildcards and misses in
// an index of 100,000 entries, a tenth of them wildcards: each query tries only the suffix
// lengths some wildcard has, and at each only the kind of wildcard the query allows there.
func BenchmarkLookupHostWildcards(b *testing.B) {
	ix, err := NewIndex(nil, wildcardInventory(100_000))
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range wildcardQueries[:3] {
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

// BenchmarkLookupHostWildcardsEverySuffix is the baseline: the same lookups probing the
// wildcard table with every suffix of the query, as a lookup that does not know which
// lengths exist must.
func BenchmarkLookupHostWildcardsEverySuffix(b *testing.B) {
	ix, err := NewIndex(nil, wildcardInventory(100_000))
	if err != nil {
		b.Fatal(err)
	}
	queries := make([][]byte, len(wildcardQueries))
	for i, q := range wildcardQueries {
		queries[i] = []byte(q)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		h := queries[i%len(queries)]
		benchFound = false
		if c, ok := getBytes(&ix.t.hosts, ix.bytesHash(h), h); ok && ix.pick(c, "ns-1") >= 0 {
			benchFound = true
		}
		for k := 0; k < len(h) && !benchFound; k++ {
			if c, ok := getBytes(&ix.t.wild, ix.bytesHash(h[k:]), h[k:]); ok && ix.pick(c, "ns-1") >= 0 {
				benchFound = true
			}
		}
		i++
	}
}

// BenchmarkLookupHostManyWildcardLengths is the worst case an inventory can make: partial
// wildcards of every suffix length from 13 to 200, so that a miss of 60 bytes tries each of
// the 47 lengths up to its own (a probe each, as every byte of it but the dots allows a
// partial wildcard).
func BenchmarkLookupHostManyWildcardLengths(b *testing.B) {
	inv := Inventory{}
	for n := 13; n <= 200; n++ {
		rest := n - len(".example.com")
		tail := rest % 41 // the partial label's characters after its "*", then labels of 40
		if tail == 0 {
			tail = 41
		}
		suffix := strings.Repeat("q", tail) + strings.Repeat("."+strings.Repeat("r", 40), (rest-tail)/41) + ".example.com"
		inv.Services = append(inv.Services, Service{Kind: ServiceEntry, Namespace: "a", Name: fmt.Sprintf("w%d", n), Hosts: []string{"*" + suffix}, Addresses: pfx("10.0.0.1")})
	}
	ix, err := NewIndex(nil, inv)
	if err != nil {
		b.Fatal(err)
	}
	q := "no-such-service-running-here.in-any-namespace-at.example.com"
	b.ReportAllocs()
	for b.Loop() {
		_, benchFound = ix.LookupHost("a", q)
	}
}
