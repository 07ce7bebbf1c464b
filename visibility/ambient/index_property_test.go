package ambient

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/internal/longtest"
	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
)

var (
	propNamespaces = []string{"n0", "n1", "n2", "n3", "n4", "n5"} // n5 has no labels entry
	propHosts      = []string{"a.x", "*.x", "b.a.x", "*.a.x", "A.X.", "y", "*.y", "c.b.a.x", "web.n1.svc.cluster.local", "web.n2.svc.cluster.local", "*.n1.svc.cluster.local", "api.svc.cluster.local", "db.cluster.local",
		"*a.x", "*A.x.", "*x", "*-a.x"} // partial wildcards: *a.x matches ba.x, a.x and c.ba.x; *x every host ending in x
	propAddrs   = []string{"10.0.0.1", "10.0.0.0/24", "10.0.0.0/8", "10.0.0.1/32", "::ffff:10.0.0.1", "10.0.1.0/24", "2001:db8::1", "2001:db8::/64"}
	propQueries = []string{"a.x", "b.a.x", "c.b.a.x", "d.c.b.a.x", "x", "q.x", "y", "q.y", "*.x", "z",
		"web", "web.n1", "web.n2.svc", "web.n1.svc.cluster.local", "a.x.n1.svc.cluster.local", "a.x.svc.cluster.local", "y.cluster.local",
		"web.n1.svc.n1.svc.cluster.local", "api", "db", "other.n1", "api.svc", "db.svc.cluster.local",
		"ba.x", "c.ba.x", "b-a.x", "xx", "*a.x", "ba.x.n1.svc.cluster.local"}
	propAddrQ   = []string{"10.0.0.1", "10.0.0.2", "10.0.1.5", "10.9.9.9", "11.0.0.1", "2001:db8::1", "2001:db8::2", "2001:db9::1", "240.240.0.1", "240.240.0.3"}
	propClients = append(slices.Clone(propNamespaces), "", "elsewhere")
)

func randomInventory(r *rand.Rand) inventory.Inventory {
	inv := inventory.Inventory{Namespaces: map[string]map[string]string{}}
	for _, ns := range propNamespaces[:5] {
		inv.Namespaces[ns] = istiotest.Labels(r)
	}
	for i := range 1 + r.IntN(14) {
		s := inventory.Service{Kind: inventory.Kind(r.IntN(2)), Namespace: propNamespaces[r.IntN(len(propNamespaces))], Name: fmt.Sprintf("s%d", i),
			CreationTime: t0.Add(time.Duration(r.IntN(3)) * time.Hour)}
		for range 1 + r.IntN(3) {
			s.Hosts = append(s.Hosts, propHosts[r.IntN(len(propHosts))])
		}
		for range r.IntN(3) {
			if r.IntN(3) == 0 { // most entries have no address of their own
				s.Addresses = append(s.Addresses, pfx(propAddrs[r.IntN(len(propAddrs))])...)
			}
		}
		switch {
		case s.Kind == inventory.KubernetesService:
			s.Headless = len(s.Addresses) == 0 && r.IntN(2) == 0
		default:
			s.Resolution = []inventory.Resolution{"", inventory.ResolutionNone, inventory.ResolutionDNS, inventory.ResolutionDNS, inventory.ResolutionDynamicDNS, inventory.ResolutionStatic}[r.IntN(6)]
			for _, h := range s.Hosts {
				if r.IntN(4) > 0 {
					if s.AutoAddresses == nil {
						s.AutoAddresses = map[string][]netip.Prefix{}
					}
					key := h
					if r.IntN(5) == 0 { // a host spelled otherwise: Istio does not match it
						key = strings.ToUpper(strings.TrimSuffix(h, ".")) + "."
					}
					s.AutoAddresses[key] = pfx(fmt.Sprintf("240.240.0.%d", r.IntN(4)))
				}
			}
			if r.IntN(6) == 0 {
				s.Labels = map[string]string{autoAllocateLabel: []string{"false", "False", "true"}[r.IntN(3)]}
			}
		}
		inv.Services = append(inv.Services, s)
	}
	return inv
}

// refDecide is the literal decision of a service: Kubernetes Services are PUBLIC.
func refDecide(res *visibility.Resolver, inv inventory.Inventory, s inventory.Service) visibility.Visibility {
	if s.Kind == inventory.KubernetesService {
		return visibility.Public
	}
	return res.Resolve(labels.Set(inv.Namespaces[s.Namespace])).Visibility
}

func refVisible(v visibility.Visibility, s inventory.Service, client string) bool {
	switch v {
	case visibility.None:
		return false
	case visibility.Namespace:
		return client != "" && client == s.Namespace
	}
	return true
}

func refLess(a, b inventory.Service) bool {
	if a.Kind != b.Kind {
		return a.Kind == inventory.KubernetesService
	}
	if !a.CreationTime.Equal(b.CreationTime) {
		return a.CreationTime.Before(b.CreationTime)
	}
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	return a.Name < b.Name
}

// refBest returns the best of the visible candidates: the client's own namespace's first,
// else the best by rank.
func refBest(cands []inventory.Service, client string) (inventory.Service, bool) {
	var own, all []inventory.Service
	for _, c := range cands {
		all = append(all, c)
		if client != "" && c.Namespace == client {
			own = append(own, c)
		}
	}
	pool := all
	if len(own) > 0 {
		pool = own
	}
	if len(pool) == 0 {
		return inventory.Service{}, false
	}
	best := pool[0]
	for _, c := range pool[1:] {
		if refLess(c, best) {
			best = c
		}
	}
	return best, true
}

// refAddresses is the address rule read literally: an entry's own addresses; else, when its
// resolution is not NONE (nor absent) and it has not opted out, those Istio allocated for
// the host — for a wildcard host only with DYNAMIC_DNS.
func refAddresses(s inventory.Service, host string) []netip.Prefix {
	if len(s.Addresses) > 0 || s.Kind == inventory.KubernetesService {
		return s.Addresses
	}
	if s.Resolution == "" || s.Resolution == "NONE" || strings.ToLower(s.Labels[autoAllocateLabel]) == "false" {
		return nil
	}
	if strings.HasPrefix(host, "*") && s.Resolution != "DYNAMIC_DNS" {
		return nil
	}
	return s.AutoAddresses[host]
}

// refNames is the short-name rule read literally: the query, its expansion by label count,
// then for each search domain it ends with, the stripped name and its expansion.
func refNames(client, q, domain string) []string {
	expand := func(n string) []string {
		labels := strings.Split(n, ".")
		switch {
		case len(labels) == 1 && client != "":
			return []string{n + "." + client + ".svc." + domain}
		case len(labels) == 2:
			return []string{n + ".svc." + domain}
		case len(labels) == 3 && labels[2] == "svc":
			return []string{n + "." + domain}
		}
		return nil
	}
	out := append([]string{q}, expand(q)...)
	var sds []string
	if client != "" {
		sds = append(sds, client+".svc."+domain)
	}
	sds = append(sds, "svc."+domain, domain)
	for _, sd := range sds {
		if stripped, ok := strings.CutSuffix(q, "."+sd); ok && stripped != "" {
			out = append(out, stripped)
			out = append(out, expand(stripped)...)
		}
	}
	return out
}

// refLookupHost is the lookup rule read literally, with linear scans: for each name the
// query reaches (refNames), try the exact host, then each wildcard host of the inventory
// that the name ends with what follows its "*" of, the longest first; at a level keep
// the entries with an address for the level's host (or headless Kubernetes Services), drop
// those the client cannot see, prefer one in the client's namespace, else the canonical one
// (a Kubernetes Service, else a PUBLIC entry), ties by kind, age, namespace, name.
func refLookupHost(res *visibility.Resolver, inv inventory.Inventory, client, host string) (inventory.Service, bool) {
	q := strings.ToLower(strings.TrimSuffix(host, "."))
	for _, h := range refNames(client, q, "cluster.local") {
		keys := []string{h}
		var wild []string
		for _, s := range inv.Services {
			for _, sh := range s.Hosts {
				// ztunnel's DNS proxy tries *. wildcards only: never a partial one (*x.b.c).
				if n := strings.ToLower(strings.TrimSuffix(sh, ".")); strings.HasPrefix(n, "*.") && strings.HasSuffix(h, n[1:]) && !slices.Contains(wild, n) {
					wild = append(wild, n)
				}
			}
		}
		slices.SortFunc(wild, func(a, b string) int { return len(b) - len(a) })
		keys = append(keys, wild...)
		for _, k := range keys {
			var vis []inventory.Service
			for _, s := range inv.Services {
				answers := false // some spelling of k in spec.hosts has an address
				for _, sh := range s.Hosts {
					if strings.ToLower(strings.TrimSuffix(sh, ".")) == k && (len(refAddresses(s, sh)) > 0 || s.Kind == inventory.KubernetesService && s.Headless) {
						answers = true
					}
				}
				if answers && refVisible(refDecide(res, inv, s), s, client) {
					vis = append(vis, s)
				}
			}
			if b, ok := refBest(vis, client); ok {
				return b, true
			}
		}
	}
	return inventory.Service{}, false
}

func refLookupAddress(res *visibility.Resolver, inv inventory.Inventory, client string, a netip.Addr) (inventory.Service, bool) {
	var exact []inventory.Service
	type hit struct {
		s    inventory.Service
		bits int
	}
	var cidr []hit
	for _, s := range inv.Services {
		if !refVisible(refDecide(res, inv, s), s, client) {
			continue
		}
		isExact, bestBits := false, -1
		addrs := s.Addresses
		if len(addrs) == 0 {
			for _, h := range s.Hosts {
				addrs = append(addrs, refAddresses(s, h)...)
			}
		}
		for _, p := range addrs {
			pa, bits := p.Addr(), p.Bits()
			if bits == pa.BitLen() {
				if pa == a {
					isExact = true
				}
				continue
			}
			if netip.PrefixFrom(pa, bits).Contains(a) && bits > bestBits {
				bestBits = bits
			}
		}
		if isExact {
			exact = append(exact, s)
		}
		if bestBits >= 0 {
			cidr = append(cidr, hit{s, bestBits})
		}
	}
	if b, ok := refBest(exact, client); ok {
		return b, true
	}
	pick := func(hs []hit) (inventory.Service, bool) {
		if len(hs) == 0 {
			return inventory.Service{}, false
		}
		best := hs[0]
		for _, h := range hs[1:] {
			if h.bits > best.bits || h.bits == best.bits && refLess(h.s, best.s) {
				best = h
			}
		}
		return best.s, true
	}
	var own []hit
	for _, h := range cidr {
		if client != "" && h.s.Namespace == client {
			own = append(own, h)
		}
	}
	if s, ok := pick(own); ok {
		return s, true
	}
	return pick(cidr)
}

func ref(s inventory.Service, ok bool) string {
	if !ok {
		return "-"
	}
	return s.Namespace + "/" + s.Name
}

// TestIndexAgainstReference checks every lookup against the literal reference on random
// inventories and configurations, with the properties the package documents (hidden means
// absent; no answer depends on input order).
func TestIndexAgainstReference(t *testing.T) {
	r := newRand(61, 62)
	for iter := range longtest.N(150, 1500) {
		inv := randomInventory(r)
		cfg := istiotest.Config[visibility.Config](r, 4)
		res := mustCompile(t, cfg)
		ix := mustNew(t, cfg, inv)
		for _, c := range propClients {
			for _, q := range propQueries {
				want := ref(refLookupHost(res, inv, c, q))
				got := ref(ix.LookupHost(c, q))
				require.Equal(t, want, got, "iteration %d: host %s from %q", iter, q, c)
				if e, alias := ix.lookupHost(c, q); alias <= 0 {
					l, _ := ix.answer(ix.hostLevels(strings.ToLower(strings.TrimSuffix(q, "."))), c)
					require.Equal(t, ref(entryService(ix, e)), ref(entryService(ix, l)), "answer() agrees with LookupHost")
				}
				ex := ix.ExplainHost(c, q)
				require.Equal(t, got != "-", ex.Answer != nil)
				checkNeverLeaks(t, ix, c, q, got)
			}
			for _, q := range propAddrQ {
				a := netip.MustParseAddr(q)
				want := ref(refLookupAddress(res, inv, c, a))
				got := ref(ix.LookupAddress(c, a))
				require.Equal(t, want, got, "iteration %d: address %s from %q", iter, q, c)
				e, _ := ix.answer(ix.addrLevels(netip.PrefixFrom(a, a.BitLen())), c)
				require.Equal(t, got, ref(entryService(ix, e)))
				checkNeverLeaks(t, ix, c, q, got)
			}
		}
	}
}

func entryService(ix *Index, e int32) (inventory.Service, bool) {
	if e < 0 {
		return inventory.Service{}, false
	}
	return ix.services[e], true
}

// checkNeverLeaks: a NAMESPACE entry is never returned to another namespace, a NONE entry
// never to anyone.
func checkNeverLeaks(t *testing.T, ix *Index, client, query, got string) {
	t.Helper()
	if got == "-" {
		return
	}
	ns, name, _ := strings.Cut(got, "/")
	d, ok := ix.Decision(ns, name)
	require.True(t, ok)
	s, _ := ix.service(ns, name)
	if s.Kind == inventory.KubernetesService {
		return
	}
	switch d.Visibility {
	case visibility.None:
		t.Fatalf("NONE entry %s returned for %s to %q", got, query, client)
	case visibility.Namespace:
		if client != ns {
			t.Fatalf("NAMESPACE entry %s returned for %s to %q", got, query, client)
		}
	}
}

// TestHiddenEntriesChangeNothing: adding an entry that is hidden from client C never changes
// C's answers.
func TestHiddenEntriesChangeNothing(t *testing.T) {
	r := newRand(63, 64)
	for range longtest.N(150, 1500) {
		inv := randomInventory(r)
		cfg := istiotest.Config[visibility.Config](r, 4)
		res := mustCompile(t, cfg)
		before := mustNew(t, cfg, inv)
		extra := inventory.Service{Kind: inventory.ServiceEntry, Namespace: propNamespaces[r.IntN(len(propNamespaces))], Name: "extra",
			Hosts: []string{propHosts[r.IntN(len(propHosts))]}, Addresses: pfx(propAddrs[r.IntN(len(propAddrs))]), CreationTime: t0}
		grown := inv
		grown.Services = append(slices.Clone(inv.Services), extra)
		after := mustNew(t, cfg, grown)
		v := refDecide(res, inv, extra)
		for _, c := range propClients {
			if refVisible(v, extra, c) {
				continue
			}
			for _, q := range propQueries {
				require.Equal(t, ref(before.LookupHost(c, q)), ref(after.LookupHost(c, q)), "%s from %q", q, c)
			}
			for _, q := range propAddrQ {
				a := netip.MustParseAddr(q)
				require.Equal(t, ref(before.LookupAddress(c, a)), ref(after.LookupAddress(c, a)), "%s from %q", q, c)
			}
		}
	}
}

// TestRandomShuffles: answers, conflicts and audits are identical under shuffled input.
func TestRandomShuffles(t *testing.T) {
	r := newRand(65, 66)
	for range longtest.N(50, 500) {
		inv := randomInventory(r)
		res := meshOf(istiotest.Config[visibility.Config](r, 4))
		other := meshOf(istiotest.Config[visibility.Config](r, 4))
		a, err := New(res, &inv)
		require.NoError(t, err)
		da, err := Diff(res, other, &inv)
		require.NoError(t, err)
		shuffled := inv
		shuffled.Services = istiotest.Shuffled(r, inv.Services)
		b, err := New(res, &shuffled)
		require.NoError(t, err)
		for _, c := range propClients {
			for _, q := range propQueries {
				require.Equal(t, ref(a.LookupHost(c, q)), ref(b.LookupHost(c, q)))
				require.Equal(t, a.ExplainHost(c, q), b.ExplainHost(c, q))
			}
		}
		require.Equal(t, a.Conflicts(), b.Conflicts())
		db, err := Diff(res, other, &shuffled)
		require.NoError(t, err)
		require.Equal(t, da, db)
	}
}

// TestDecisionFindsByName: on random inventories whose services share names — a
// ServiceEntry and a Kubernetes Service may have one namespace and name — Decision finds the
// ServiceEntry of a name, else its Kubernetes Service, else nothing, as a scan of the
// inventory does; asked from several goroutines at once of a fresh index, whose first
// Decision builds the table of names.
func TestDecisionFindsByName(t *testing.T) {
	r := newRand(71, 72)
	names := []string{"a", "b", "c", "d"}
	for range longtest.N(100, 1000) {
		inv := inventory.Inventory{Namespaces: map[string]map[string]string{}}
		seen := map[inventory.ServiceRef]bool{}
		for range r.IntN(3 * len(names) * len(propNamespaces)) {
			ref := inventory.ServiceRef{Kind: inventory.Kind(r.IntN(2)), Namespace: propNamespaces[r.IntN(len(propNamespaces))], Name: names[r.IntN(len(names))]}
			if !seen[ref] {
				seen[ref] = true
				inv.Services = append(inv.Services, inventory.Service{Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name})
			}
		}
		cfg := istiotest.Config[visibility.Config](r, 3)
		decisions := inv.Decisions(mustCompile(t, cfg))
		want := func(ns, name string) (visibility.Decision, bool) {
			found := -1
			for i, s := range inv.Services {
				if s.Namespace == ns && s.Name == name && (found < 0 || s.Kind == inventory.ServiceEntry) {
					found = i
				}
			}
			if found < 0 {
				return visibility.Decision{}, false
			}
			return decisions[found], true
		}
		ix := mustNew(t, cfg, inv)
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for _, ns := range append(propNamespaces, "none") {
					for _, name := range append(names, "e") {
						d, ok := ix.Decision(ns, name)
						wd, wok := want(ns, name)
						assert.Equal(t, wok, ok, "%s/%s", ns, name)
						assert.Equal(t, wd, d, "%s/%s", ns, name)
					}
				}
			})
		}
		wg.Wait()
	}
}
