package ambient

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/meshscope/meshscope/internal/growth"
	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/internal/longtest"
	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

func TestDiff(t *testing.T) {
	inv := sampleInventory()
	before := meshOf(sampleConfig())
	c := sampleConfig()
	c.Policies = append([]visibility.Policy{{Visibility: visibility.Public, MatchingRules: []visibility.MatchingRule{{NamespaceSelector: &metav1.LabelSelector{
		MatchLabels: map[string]string{visibility.NamespaceNameLabel: "shop"}}}}}}, c.Policies...)
	inv.Namespaces["shop"][visibility.NamespaceNameLabel] = "shop"
	after := meshOf(c)
	a, err := Diff(before, after, &inv)
	require.NoError(t, err)
	var entries []string
	for _, e := range a.Entries {
		entries = append(entries, fmt.Sprintf("%s/%s %s -> %s gained %v lost %v", e.Key.Namespace, e.Key.Name, e.Before, e.After, e.Gained, e.Lost))
	}
	assert.Equal(t, []string{
		"shop/db NAMESPACE (default) -> PUBLIC (policies[0]) gained [*] lost []",
		"shop/github-private NAMESPACE (default) -> PUBLIC (policies[0]) gained [*] lost []",
		"shop/shop-net NAMESPACE (default) -> PUBLIC (policies[0]) gained [*] lost []",
	}, entries)
	var hosts []string
	for _, h := range append(a.Hosts, a.Addresses...) {
		hosts = append(hosts, fmt.Sprintf("%s %v except %v: %v -> %v", h.Key.Query, h.Key.Clients, h.Key.Except, h.Before, h.After))
	}
	assert.Equal(t, []string{
		// "*": every namespace but those named in the query's other changes and in Except,
		// whose answers do not change (their own entries come first).
		"api.github.com [*] except [infra shop]: ServiceEntry infra/github -> ServiceEntry shop/github-private",
		"db.example.com [*] except [shop]: ServiceEntry infra/wild -> ServiceEntry shop/db",
		"10.0.0.0/12 [*] except [infra shop]: ServiceEntry infra/corp-net -> ServiceEntry shop/shop-net",
		"10.0.0.5 [*] except [shop]: ServiceEntry infra/corp-net -> ServiceEntry shop/db",
		"240.240.163.190 [*] except [shop]: <nil> -> ServiceEntry shop/github-private", // the address Istio allocated counts
	}, hosts)
	b, err := json.Marshal(a.Hosts[0])
	require.NoError(t, err)
	assert.JSONEq(t, `{"key": {"query": "api.github.com", "clients": ["*"], "except": ["infra", "shop"]},
		"before": {"kind": "ServiceEntry", "namespace": "infra", "name": "github"},
		"after": {"kind": "ServiceEntry", "namespace": "shop", "name": "github-private"}}`, string(b))
	b, err = json.Marshal(a.Entries[0])
	require.NoError(t, err)
	assert.JSONEq(t, `{"key": {"kind": "ServiceEntry", "namespace": "shop", "name": "db"},
		"before": {"visibility": "NAMESPACE", "policy": -1}, "after": {"visibility": "PUBLIC", "policy": 0}, "gained": ["*"]}`, string(b))

	same, err := Diff(before, before, &inv)
	require.NoError(t, err)
	assert.Empty(t, same.Entries)
	assert.Empty(t, same.Hosts)

	off, err := Diff(before, nil, &inv)
	require.NoError(t, err)
	var lost []string
	for _, e := range off.Entries {
		if len(e.Gained) > 0 {
			lost = append(lost, e.Key.Namespace+"/"+e.Key.Name+fmt.Sprint(e.Gained))
		}
	}
	assert.Contains(t, lost, "sandbox/github-test[sandbox *]", "turning the feature off makes NONE entries public")
}

// TestDiffIsLinear pins Diff's growth in the inventory: at 4x the services, the allocations
// and bytes per client row of the answer may grow at most 1.25x (they would grow with the
// inventory if each row scanned it).
func TestDiffIsLinear(t *testing.T) {
	before := meshOf(benchConfig(20))
	c := benchConfig(20)
	for i := range c.Policies {
		c.Policies[i].Visibility = []visibility.Visibility{visibility.None, visibility.Public}[i%2]
	}
	after := meshOf(c)
	requireDiffFlat(t, "client row", 250, func(n int) inventory.Inventory { return benchInventory(n, 50) }, before, after, func(a Audit) (rows int) {
		for _, h := range append(a.Hosts, a.Addresses...) {
			rows += len(h.Key.Clients)
		}
		return rows
	})
}

// requireDiffFlat holds Diff from before to after, of the inventories inv makes of n and 4n
// services, to at most 1.25x the allocations and bytes per item of the answer at 4n as at n,
// items counting what each answer has of them.
func requireDiffFlat(t *testing.T, item string, n int, inv func(n int) inventory.Inventory, before, after *mesh.Config, items func(Audit) int) {
	t.Helper()
	per := func(n int) (allocs, bytes float64) {
		inv := inv(n)
		count := 0
		allocs, bytes = growth.Allocated(func() {
			a, err := Diff(before, after, &inv)
			require.NoError(t, err)
			count = items(a)
		})
		require.Positive(t, count)
		return allocs / float64(count), bytes / float64(count)
	}
	a, b := per(n)
	a4, b4 := per(4 * n)
	t.Logf("per %s at n=%d: %.1f allocs, %.0f B; at n=%d: %.1f allocs, %.0f B", item, n, a, b, 4*n, a4, b4)
	assert.Less(t, a4, 1.25*a, "allocations per %s at n=%d: %v, at n=%d: %v", item, n, a, 4*n, a4)
	assert.Less(t, b4, 1.25*b, "bytes per %s at n=%d: %v, at n=%d: %v", item, n, b, 4*n, b4)
}

// halfInventory is benchInventory with a namespace for every ten entries, half of them
// labelled half=yes.
func halfInventory(n int) inventory.Inventory {
	inv := benchInventory(n, n/10)
	for j := range n / 10 {
		inv.Namespaces[fmt.Sprintf("ns-%d", j)]["half"] = []string{"yes", "no"}[j%2]
	}
	return inv
}

// halfConfig gives the namespaces labelled key=value visibility v, the others PUBLIC.
func halfConfig(key, value string, v visibility.Visibility) *visibility.Config {
	return &visibility.Config{DefaultVisibility: visibility.Public, Policies: []visibility.Policy{{Visibility: v, MatchingRules: []visibility.MatchingRule{matchLabels(key, value)}}}}
}

// sharedPathInventory has n namespaces each with an entry on *.example.com and on the CIDR
// 10.0.0.0/8, and n namespaces each with an entry of its own host and address under them:
// every query of the second kind has all n wildcard and CIDR entries on its lookup path.
func sharedPathInventory(n int) inventory.Inventory {
	inv := inventory.Inventory{Namespaces: map[string]map[string]string{}}
	for j := range n {
		holder, owner := fmt.Sprintf("holder-%d", j), fmt.Sprintf("owner-%d", j)
		inv.Namespaces[holder] = map[string]string{"role": "holder"}
		inv.Namespaces[owner] = map[string]string{"role": "owner"}
		inv.Services = append(inv.Services,
			inventory.Service{Kind: inventory.ServiceEntry, Namespace: holder, Name: "wild", Hosts: []string{"*.example.com"},
				Addresses: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, CreationTime: t0},
			inventory.Service{Kind: inventory.ServiceEntry, Namespace: owner, Name: "own", Hosts: []string{fmt.Sprintf("svc-%d.example.com", j)},
				Addresses: []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 1, byte(j >> 8), byte(j)}), 32)}, CreationTime: t0})
	}
	return inv
}

// TestDiffCostPerChangeIsFlat pins Diff's cost per change it reports (EntryChange and
// AnswerChange alike) in counted work, at n and 4n, on inventories where the namespaces grow
// with the entries: the allocations and bytes per change may grow at most 1.25x. It would
// grow with the inventory if a change listed, or asked, every namespace of the inventory, or
// every namespace with a service on a query's path.
func TestDiffCostPerChangeIsFlat(t *testing.T) {
	sel := func(key, value string, v visibility.Visibility) *mesh.Config {
		return meshOf(halfConfig(key, value, v))
	}
	for _, tc := range []struct {
		name          string
		inv           func(n int) inventory.Inventory
		before, after *mesh.Config
	}{
		// Half the namespaces go from PUBLIC to NAMESPACE: each query changes for every
		// namespace but the owner's.
		{"namespaces grow with the entries", halfInventory, sel("half", "yes", visibility.Public), sel("half", "yes", visibility.Namespace)},
		// The owners' entries go from NAMESPACE to NONE: each query changes for its owner
		// alone, with n holders on its path.
		{"a shared wildcard and CIDR on every path", sharedPathInventory, sel("role", "owner", visibility.Namespace), sel("role", "owner", visibility.None)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requireDiffFlat(t, "change", 500, tc.inv, tc.before, tc.after, func(a Audit) int { return len(a.Entries) + len(a.Hosts) + len(a.Addresses) })
		})
	}
}

// TestAuditIsExact: on random inventories and two random configurations, for every host and
// address of the inventory, and for every client — each namespace of
// the inventory, one it does not have, and a client without a namespace — the audit's
// changes say exactly what the client gets before and after: a client named by a change
// gets its Before and After; one neither named nor in Except gets the "*" change's, if there
// is one; every other client's answer does not change.
func TestAuditIsExact(t *testing.T) {
	r := newRand(91, 92)
	for iter := range longtest.N(100, 1000) {
		inv := randomInventory(r)
		mb, ma := meshOf(istiotest.Config[visibility.Config](r, 3)), meshOf(istiotest.Config[visibility.Config](r, 3))
		a, err := Diff(mb, ma, &inv)
		require.NoError(t, err)
		before, _ := New(mb, &inv)
		after, _ := New(ma, &inv)
		queries, addrs := map[string]bool{}, map[netip.Prefix]bool{}
		for _, s := range inv.Services { // every query of the inventory: its answer may change through another's entry
			for _, h := range s.Hosts {
				queries[strings.ToLower(strings.TrimSuffix(h, "."))] = true
			}
			for _, p := range s.AllAddresses() {
				addrs[hosts.Canonical(p)] = true
			}
		}
		clients := append(inv.NamespaceNames(), "", "elsewhere")
		check := func(kind, q string, changes []AnswerChange, answer func(ix *Index, client string) *inventory.ServiceRef) {
			var star *AnswerChange
			named, except := map[string]AnswerChange{}, map[string]bool{}
			for _, ch := range changes {
				if ch.Key.Query != q {
					continue
				}
				if slices.Contains(ch.Key.Clients, AllOtherNamespaces) {
					require.Nil(t, star, "iteration %d: %s %s: one * change", iter, kind, q)
					require.Equal(t, []string{AllOtherNamespaces}, ch.Key.Clients, "* stands alone")
					star = &ch
					for _, c := range ch.Key.Except {
						except[c] = true
					}
					continue
				}
				require.Empty(t, ch.Key.Except, "Except only beside *")
				for _, c := range ch.Key.Clients {
					_, dup := named[c]
					require.False(t, dup, "iteration %d: %s %s: %s named twice", iter, kind, q, c)
					named[c] = ch
				}
			}
			for c := range named {
				require.False(t, except[c], "iteration %d: %s %s: %s both named and excepted", iter, kind, q, c)
			}
			for _, c := range clients {
				b, n := answer(before, c), answer(after, c)
				where := fmt.Sprintf("iteration %d: %s %s from %q", iter, kind, q, c)
				if ch, ok := named[c]; ok {
					require.Equal(t, ch.Before, b, where)
					require.Equal(t, ch.After, n, where)
					require.NotEqual(t, b, n, where)
					continue
				}
				if star != nil && !except[c] {
					require.Equal(t, star.Before, b, where+" (the * change)")
					require.Equal(t, star.After, n, where+" (the * change)")
					continue
				}
				require.Equal(t, b, n, where+": not listed, but its answer changes")
			}
		}
		for h := range queries {
			check("host", h, a.Hosts, func(ix *Index, c string) *inventory.ServiceRef {
				return ix.refOf(first(ix.answer(ix.hostLevels(h), c)))
			})
		}
		for p := range addrs {
			q := p.String()
			if p.IsSingleIP() {
				q = p.Addr().String()
			}
			check("address", q, a.Addresses, func(ix *Index, c string) *inventory.ServiceRef {
				return ix.refOf(first(ix.answer(ix.addrLevels(p), c)))
			})
		}
	}
}

func first(e int32, _ int) int32 { return e }

// TestOneNumbering pins what Diff relies on: two indexes of one inventory built with
// different resolvers number every candidate set alike, and hold the same entries in each,
// in the same order.
func TestOneNumbering(t *testing.T) {
	r := newRand(93, 94)
	for range longtest.N(50, 500) {
		inv := randomInventory(r)
		b := build(mustCompile(t, istiotest.Config[visibility.Config](r, 3)), nil, &inv)
		a := build(mustCompile(t, istiotest.Config[visibility.Config](r, 3)), nil, &inv)
		require.Equal(t, hostSets(b), hostSets(a))
		require.Equal(t, b.t.wild, a.t.wild)
		require.Equal(t, addrSets(b), addrSets(a))
		require.Equal(t, b.t.prefixes, a.t.prefixes)
		require.Equal(t, len(b.t.sets), len(a.t.sets))
		for c := range b.t.sets {
			require.Equal(t, b.t.all(int32(c)), a.t.all(int32(c)), "set %d", c)
		}
	}
}

// hostSets and addrSets return the candidate set of every exact host and address of ix.
func hostSets(ix *Index) map[string]int32 {
	out := map[string]int32{}
	for h := range ix.t.hosts.all {
		out[h], _ = ix.t.host(h)
	}
	return out
}

func addrSets(ix *Index) map[netip.Addr]int32 {
	out := map[netip.Addr]int32{}
	for a := range ix.t.addrs.all {
		out[a], _ = ix.t.addr(a)
	}
	return out
}

// TestDiffFallsThrough: a query of the inventory whose own level holds nothing a client
// sees falls through to a wildcard host or a containing CIDR; when that one's visibility
// changes, so does the query's answer, though the query's own entries do not change.
func TestDiffFallsThrough(t *testing.T) {
	nss := map[string]map[string]string{"shop": {"team": "shop"}, "infra": {"team": "infra"}, "web": {}}
	mirror := inventory.Service{Kind: inventory.ServiceEntry, Namespace: "shop", Name: "mirror", Hosts: []string{"api.example.com"}, Addresses: pfx("10.1.2.3", "10.1.2.0/24"), CreationTime: t0}
	wild := inventory.Service{Kind: inventory.ServiceEntry, Namespace: "infra", Name: "wild", Hosts: []string{"*.example.com"}, Addresses: pfx("10.0.0.0/8"), CreationTime: t0}
	noAddr := inventory.Service{Kind: inventory.ServiceEntry, Namespace: "shop", Name: "no-addr", Hosts: []string{"db.example.com"}, CreationTime: t0}
	deeper := inventory.Service{Kind: inventory.ServiceEntry, Namespace: "shop", Name: "deeper", Hosts: []string{"*.eu.example.com"}, Addresses: pfx("10.9.9.9"), CreationTime: t0}
	// Before: shop's entries are NAMESPACE, infra's PUBLIC. After: infra's NONE.
	before := meshOf(&visibility.Config{DefaultVisibility: visibility.Namespace, Policies: []visibility.Policy{{Visibility: visibility.Public, MatchingRules: []visibility.MatchingRule{matchLabels("team", "infra")}}}})
	after := meshOf(&visibility.Config{DefaultVisibility: visibility.Namespace, Policies: []visibility.Policy{{Visibility: visibility.None, MatchingRules: []visibility.MatchingRule{matchLabels("team", "infra")}}}})
	wildRef := &inventory.ServiceRef{Kind: inventory.ServiceEntry, Namespace: "infra", Name: "wild"}
	for _, tc := range []struct {
		name     string
		services []inventory.Service
		query    string
		hosts    bool     // a host query; else an address
		except   []string // the namespaces whose own entry answers them, before and after
	}{
		{"an exact host whose NAMESPACE entry leaves the others to a changed wildcard", []inventory.Service{mirror, wild}, "api.example.com", true, []string{"shop"}},
		{"an exact host whose entry has no address", []inventory.Service{noAddr, wild}, "db.example.com", true, nil},
		{"a wildcard host under a changed wildcard", []inventory.Service{deeper, wild}, "*.eu.example.com", true, []string{"shop"}},
		{"an address whose NAMESPACE entry leaves the others to a changed CIDR", []inventory.Service{mirror, wild}, "10.1.2.3", false, []string{"shop"}},
		{"a CIDR inside a changed CIDR", []inventory.Service{mirror, wild}, "10.1.2.0/24", false, []string{"shop"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Diff(before, after, &inventory.Inventory{Namespaces: nss, Services: tc.services})
			require.NoError(t, err)
			changes := a.Addresses
			if tc.hosts {
				changes = a.Hosts
			}
			var got []AnswerChange
			for _, ch := range changes {
				if ch.Key.Query == tc.query {
					got = append(got, ch)
				}
			}
			require.Len(t, got, 1, "the changes of %s, in %v", tc.query, changes)
			assert.Equal(t, AnswerChange{Key: Question{Query: tc.query, Clients: []string{AllOtherNamespaces}, Except: tc.except}, Before: wildRef}, got[0])
		})
	}
}
