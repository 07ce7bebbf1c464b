package ambient

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// pfx reads IPs and CIDRs as netip prefixes, exactly as written, for New to canonicalize.
var pfx = istiotest.Prefixes

// autos is pfx for allocated addresses by host.
func autos(m map[string][]string) map[string][]netip.Prefix {
	out := make(map[string][]netip.Prefix, len(m))
	for h, a := range m {
		out[h] = pfx(a...)
	}
	return out
}

// se is a ServiceEntry with addrs; without any, it has the addresses Istio would allocate
// for each of its hosts (resolution DYNAMIC_DNS, so wildcards get one too), so that DNS
// answers for it.
func se(ns, name string, age int, hosts []string, addrs ...string) inventory.Service {
	s := inventory.Service{Kind: inventory.ServiceEntry, Namespace: ns, Name: name, Hosts: hosts, Addresses: pfx(addrs...), CreationTime: t0.Add(time.Duration(age) * time.Hour)}
	if len(addrs) == 0 {
		s.Resolution, s.AutoAddresses = inventory.ResolutionDynamicDNS, autoAddresses(ns, name, hosts)
	}
	return s
}

// autoAddresses gives each host an address in 240.240.0.0/16 drawn from the names, as Istio's
// allocator would give one.
func autoAddresses(ns, name string, hosts []string) map[string][]netip.Prefix {
	if len(hosts) == 0 {
		return nil
	}
	out := make(map[string][]string, len(hosts))
	for _, h := range hosts {
		f := fnv.New32a()
		f.Write([]byte(ns + "/" + name + "/" + h))
		v := f.Sum32()
		out[h] = []string{fmt.Sprintf("240.240.%d.%d", v>>8&0xff, v&0xff)}
	}
	return autos(out)
}

func k8s(ns, name string, age int, addrs ...string) inventory.Service {
	return inventory.Service{Kind: inventory.KubernetesService, Namespace: ns, Name: name, Hosts: []string{name + "." + ns + ".svc.cluster.local"}, Addresses: pfx(addrs...),
		CreationTime: t0.Add(time.Duration(age) * time.Hour)}
}

// sampleConfig: entries are NAMESPACE by default, PUBLIC in platform namespaces, NONE in
// sandboxes.
func sampleConfig() *visibility.Config {
	return &visibility.Config{DefaultVisibility: visibility.Namespace, Policies: []visibility.Policy{
		{Visibility: visibility.Public, MatchingRules: []visibility.MatchingRule{matchLabels("team", "platform")}},
		{Visibility: visibility.None, MatchingRules: []visibility.MatchingRule{matchLabels("env", "sandbox")}},
	}}
}

func sampleInventory() inventory.Inventory {
	return inventory.Inventory{
		Namespaces: map[string]map[string]string{
			"shop":    {"team": "shop"},
			"infra":   {"team": "platform"},
			"infra2":  {"team": "platform"},
			"sandbox": {"env": "sandbox"},
			"other":   {},
		},
		Services: []inventory.Service{
			se("infra", "github", 5, []string{"api.github.com"}),
			se("shop", "github-private", 1, []string{"api.github.com"}),
			se("sandbox", "github-test", 0, []string{"api.github.com"}),
			se("shop", "db", 3, []string{"db.example.com"}, "10.0.0.5"),
			k8s("shop", "web", 9, "10.96.0.10"),
			se("infra", "web-shadow", 0, []string{"web.shop.svc.cluster.local"}),
			se("infra", "wild", 2, []string{"*.example.com"}),
			se("other", "only-ns", 2, []string{"internal.corp"}),
			se("infra2", "pkg-new", 8, []string{"pkg.dev"}),
			se("infra", "pkg-old", 7, []string{"pkg.dev"}),
			se("infra2", "same-a", 4, []string{"same.dev"}),
			se("infra", "same-b", 4, []string{"same.dev"}),
			se("infra", "same-a", 4, []string{"same.dev"}),
			se("infra", "corp-net", 1, nil, "10.0.0.0/8"),
			se("infra", "corp-sub", 1, nil, "10.1.0.0/16"),
			se("shop", "shop-net", 1, nil, "10.0.0.0/12"),
			se("infra", "single", 1, nil, "192.168.1.1/32"),
			se("infra", "v6", 1, nil, "2001:db8::/32"),
			se("nowhere", "ghost", 1, []string{"ghost.example.org"}),
			se("infra", "Upper", 1, []string{"Mixed.Case.Example."}),
		},
	}
}

func sampleIndex(t testing.TB) *Index {
	return mustNew(t, sampleConfig(), sampleInventory())
}

// assertAnswer checks a lookup's answer s, ok against want ("namespace/name", "" for none)
// and that its explanation's answer is the same (nil for none).
func assertAnswer(t *testing.T, want string, s inventory.Service, ok bool, explained *inventory.ServiceRef) {
	t.Helper()
	got := ""
	if ok {
		got = s.Namespace + "/" + s.Name
	}
	assert.Equal(t, want, got)
	if want == "" {
		assert.Nil(t, explained)
		return
	}
	require.NotNil(t, explained)
	assert.Equal(t, want, explained.Namespace+"/"+explained.Name)
}

func TestLookupHost(t *testing.T) {
	ix := sampleIndex(t)
	tests := []struct {
		name, client, host, want string // want "ns/name", "" for forwarded upstream
	}{
		{"public is visible to everyone", "other", "api.github.com", "infra/github"},
		{"own namespace comes first", "shop", "api.github.com", "shop/github-private"},
		{"a NONE entry of one's own namespace is absent", "sandbox", "api.github.com", "infra/github"},
		{"client without namespace sees public", "", "api.github.com", "infra/github"},
		{"namespace entry for its namespace", "shop", "db.example.com", "shop/db"},
		{"hidden exact falls through to a visible wildcard", "infra", "db.example.com", "infra/wild"},
		{"client without namespace skips namespace entries", "", "db.example.com", "infra/wild"},
		{"namespace only: others are forwarded upstream", "infra", "internal.corp", ""},
		{"namespace only: its own namespace", "other", "internal.corp", "other/only-ns"},
		{"case and trailing dot do not matter", "other", "API.GitHub.com.", "infra/github"},
		{"a wildcard does not match its own suffix", "other", "example.com", ""},
		{"a wildcard matches several labels", "other", "a.b.example.com", "infra/wild"},
		{"kubernetes services are public", "other", "web.shop.svc.cluster.local", "shop/web"},
		{"a kubernetes service before a service entry", "shop", "web.shop.svc.cluster.local", "shop/web"},
		{"own namespace before a kubernetes service", "infra", "web.shop.svc.cluster.local", "infra/web-shadow"},
		{"older first", "other", "pkg.dev", "infra/pkg-old"},
		{"own namespace before older", "infra2", "pkg.dev", "infra2/pkg-new"},
		{"same age: namespace then name", "other", "same.dev", "infra/same-a"},
		{"same age, own namespace", "infra2", "same.dev", "infra2/same-a"},
		{"unknown namespace gets the default", "other", "ghost.example.org", ""},
		{"unknown namespace sees its own", "nowhere", "ghost.example.org", "nowhere/ghost"},
		{"hosts are normalized in the index too", "other", "mixed.case.example", "infra/Upper"},
		{"unknown host", "other", "nothing.here", ""},
		{"empty host", "other", "", ""},
		{"too long", "other", strings.Repeat("a", 300), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := ix.LookupHost(tt.client, tt.host)
			assertAnswer(t, tt.want, s, ok, ix.ExplainHost(tt.client, tt.host).Answer)
		})
	}
}

func TestLookupAddress(t *testing.T) {
	ix := sampleIndex(t)
	tests := []struct {
		name, client, addr, want string
	}{
		{"exact", "other", "10.96.0.10", "shop/web"},
		{"a queried IPv4 mapped into IPv6 is looked up as IPv4, as ztunnel canonicalises it", "other", "::ffff:10.96.0.10", "shop/web"},
		{"exact namespace entry for its namespace", "shop", "10.0.0.5", "shop/db"},
		{"hidden exact falls to a CIDR", "infra", "10.0.0.5", "infra/corp-net"},
		{"longest prefix", "other", "10.1.2.3", "infra/corp-sub"},
		{"own namespace before a longer prefix", "shop", "10.1.2.3", "shop/shop-net"},
		{"own namespace prefix for its own", "shop", "10.2.0.1", "shop/shop-net"},
		{"outside the own prefix", "shop", "10.200.0.1", "infra/corp-net"},
		{"a /32 is exact", "other", "192.168.1.1", "infra/single"},
		{"IPv6 prefix", "other", "2001:db8::1", "infra/v6"},
		{"pass through", "other", "172.16.0.1", ""},
		{"zone ignored", "other", "2001:db8::1%eth0", "infra/v6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := ix.LookupAddress(tt.client, netip.MustParseAddr(tt.addr))
			assertAnswer(t, tt.want, s, ok, ix.ExplainAddress(tt.client, netip.MustParseAddr(tt.addr)).Answer)
		})
	}
	_, ok := ix.LookupAddress("other", netip.Addr{})
	assert.False(t, ok)
}

func TestDecision(t *testing.T) {
	inv := sampleInventory()
	inv.Services = append(inv.Services,
		inventory.Service{Kind: inventory.ServiceEntry, Namespace: "shop", Name: "web", Hosts: []string{"web.example"}, ExportTo: []string{"*"}},
		inventory.Service{Kind: inventory.ServiceEntry, Namespace: "infra", Name: "scoped", Hosts: []string{"scoped.example"}, ExportTo: []string{"shop"}},
	)
	c := sampleConfig()
	c.ApplyToSidecars = true
	ix, err := New(&mesh.Config{Visibility: c, DefaultServiceExportTo: []string{"*"}}, &inv)
	require.NoError(t, err)

	d, ok := ix.Decision("shop", "web")
	require.True(t, ok)
	assert.Equal(t, visibility.Decision{Visibility: visibility.Namespace, Policy: -1}, d, "the ServiceEntry answers when a Kubernetes Service shares its name")
	d, ok = ix.Decision("infra", "github")
	require.True(t, ok)
	assert.Equal(t, visibility.Decision{Visibility: visibility.Public, Policy: 0}, d)
	d, ok = ix.Decision("sandbox", "github-test")
	require.True(t, ok)
	assert.Equal(t, visibility.Decision{Visibility: visibility.None, Policy: 1}, d)
	_, ok = ix.Decision("shop", "missing")
	assert.False(t, ok)
	var kube []string
	for s, d := range ix.Entries {
		if s.Kind == inventory.KubernetesService {
			kube = append(kube, s.Namespace+"/"+s.Name+" "+d.String())
		}
	}
	assert.Equal(t, []string{"shop/web PUBLIC (default)"}, kube, "a Kubernetes Service is PUBLIC, decided by no policy")
}

func TestDisabledIndex(t *testing.T) {
	ix, err := New(nil, new(sampleInventory()))
	require.NoError(t, err)
	s, ok := ix.LookupHost("infra", "internal.corp")
	require.True(t, ok, "without configuration everything is public")
	assert.Equal(t, "only-ns", s.Name)
	s, ok = ix.LookupHost("other", "api.github.com")
	require.True(t, ok)
	assert.Equal(t, "github-test", s.Name, "the oldest public entry is canonical")
}

func TestNewErrors(t *testing.T) {
	bad33 := netip.PrefixFrom(netip.MustParseAddr("10.0.0.0"), 33) // a length out of range: invalid
	m := &mesh.Config{DefaultServiceExportTo: []string{"*", "Shop"}}
	inv := inventory.Inventory{
		Services: []inventory.Service{
			{Kind: 7, Namespace: "a", Name: "x"},
			{Kind: inventory.ServiceEntry, Name: "noname"},
			{Kind: inventory.ServiceEntry, Namespace: "a", Name: "dup", Hosts: []string{"ok.example"}},
			{Kind: inventory.ServiceEntry, Namespace: "a", Name: "dup"},
			{Kind: inventory.KubernetesService, Namespace: "a", Name: "dup"},
			{Kind: inventory.ServiceEntry, Namespace: "a", Name: "hosts", Hosts: []string{"", "exa mple.com", "*.", "a..b", "*.ok.example", "UPPER.ok."}},
			{Kind: inventory.ServiceEntry, Namespace: "a", Name: "addrs", Addresses: []netip.Prefix{pfx("10.0.0.1")[0], bad33, {}, pfx("::/0")[0]}},
			{Kind: inventory.ServiceEntry, Namespace: "a", Name: "export", ExportTo: []string{"*", "b"}},
		},
	}
	_, err := New(m, &inv)
	require.Error(t, err)
	// The structure: where, which field, which value, which sentinel; Detail is for people.
	s := func(i int, kind, ns, name string) string {
		return fmt.Sprintf("Services[%d] (%s %s/%s)", i, kind, ns, name)
	}
	want := []FieldError{
		{Field: "defaultServiceExportTo[1]", Value: "Shop"}, // as mesh.Config.Validate names it
		{Where: s(0, "Kind(7)", "a", "x"), Field: "Kind", Value: 7},
		{Where: s(1, "ServiceEntry", "", "noname"), Field: "Namespace", Value: ""},
		{Where: s(3, "ServiceEntry", "a", "dup"), Err: inventory.ErrDuplicate},
		{Where: s(5, "ServiceEntry", "a", "hosts"), Field: "Hosts[0]", Value: ""},
		{Where: s(5, "ServiceEntry", "a", "hosts"), Field: "Hosts[1]", Value: "exa mple.com"},
		{Where: s(5, "ServiceEntry", "a", "hosts"), Field: "Hosts[2]", Value: "*."},
		{Where: s(5, "ServiceEntry", "a", "hosts"), Field: "Hosts[3]", Value: "a..b"},
		{Where: s(6, "ServiceEntry", "a", "addrs"), Field: "Addresses[1]", Value: bad33},
		{Where: s(6, "ServiceEntry", "a", "addrs"), Field: "Addresses[2]", Value: netip.Prefix{}},
		{Where: s(7, "ServiceEntry", "a", "export"), Field: "ExportTo[0]", Value: "*"},
	}
	if diff := cmp.Diff(want, fieldErrors(t, err), cmpopts.IgnoreFields(FieldError{}, "Detail"), cmpopts.EquateErrors(), cmpopts.EquateComparable(netip.Prefix{})); diff != "" {
		t.Errorf("New errors (-want +got):\n%s", diff)
	}
	// One golden line: the wording people read.
	assert.Contains(t, err.Error(), "\n"+`Services[5] (ServiceEntry a/hosts): Hosts[1]: domain name "exa mple.com" invalid (label "exa mple" invalid)`+"\n")
}

// fieldErrors returns every problem joined in err as a FieldError value.
var fieldErrors = istiotest.FieldErrors

func TestShuffledInventoriesAgree(t *testing.T) {
	r := newRand(51, 52)
	inv := sampleInventory()
	m := meshOf(sampleConfig())
	base, err := New(m, &inv)
	require.NoError(t, err)
	queries := []string{"api.github.com", "db.example.com", "web.shop.svc.cluster.local", "pkg.dev", "same.dev", "x.example.com"}
	addrs := []string{"10.0.0.5", "10.1.2.3", "10.96.0.10", "192.168.1.1"}
	clients := append(inv.NamespaceNames(), "", "elsewhere")
	for range 50 {
		shuffled := inv
		shuffled.Services = istiotest.Shuffled(r, inv.Services)
		ix, err := New(m, &shuffled)
		require.NoError(t, err)
		for _, c := range clients {
			for _, q := range queries {
				a, aok := base.LookupHost(c, q)
				b, bok := ix.LookupHost(c, q)
				require.Equal(t, aok, bok)
				require.Equal(t, a.Ref(), b.Ref(), "%s from %s", q, c)
			}
			for _, q := range addrs {
				a, _ := base.LookupAddress(c, netip.MustParseAddr(q))
				b, _ := ix.LookupAddress(c, netip.MustParseAddr(q))
				require.Equal(t, a.Ref(), b.Ref(), "%s from %s", q, c)
			}
		}
		require.Equal(t, base.Conflicts(), ix.Conflicts())
	}
}

func TestLookupsDoNotAllocate(t *testing.T) {
	ix := sampleIndex(t)
	addr := netip.MustParseAddr("10.1.2.3")
	assert.Zero(t, testing.AllocsPerRun(100, func() { ix.LookupHost("shop", "a.b.example.com") }))
	assert.Zero(t, testing.AllocsPerRun(100, func() { ix.LookupHost("other", "api.github.com") }))
	assert.Zero(t, testing.AllocsPerRun(100, func() { ix.LookupAddress("shop", addr) }))
	assert.Zero(t, testing.AllocsPerRun(100, func() { ix.Decision("shop", "db") }))
}

func TestExplainHost(t *testing.T) {
	ix := sampleIndex(t)
	assert.Equal(t, `api.github.com from namespace sandbox: answered by ServiceEntry infra/github
  api.github.com:
    ServiceEntry sandbox/github-test NONE (policies[1]): hidden: visibility NONE (policies[1]): delivered to no data plane
    ServiceEntry shop/github-private NAMESPACE (default): hidden: visibility NAMESPACE (the default): only namespace shop sees it
    ServiceEntry infra/github PUBLIC (policies[0]): chosen: the canonical service: the highest-ranked PUBLIC entry`, ix.ExplainHost("sandbox", "api.github.com").String())
	assert.Equal(t, `db.example.com from namespace infra: answered by ServiceEntry infra/wild
  db.example.com:
    ServiceEntry shop/db NAMESPACE (default): hidden: visibility NAMESPACE (the default): only namespace shop sees it
  *.example.com:
    ServiceEntry infra/wild PUBLIC (policies[0]): chosen: the client's own namespace's entry comes first`, ix.ExplainHost("infra", "db.example.com").String())
	assert.Equal(t, `pkg.dev from namespace other: answered by ServiceEntry infra/pkg-old
  pkg.dev:
    ServiceEntry infra/pkg-old PUBLIC (policies[0]): chosen: the canonical service: the highest-ranked PUBLIC entry
    ServiceEntry infra2/pkg-new PUBLIC (policies[0]): outranked: ServiceEntry infra/pkg-old is older (created 2026-01-01T07:00:00Z) and comes first`, ix.ExplainHost("other", "pkg.dev").String())
	assert.Equal(t, `web.shop.svc.cluster.local from namespace infra: answered by ServiceEntry infra/web-shadow
  web.shop.svc.cluster.local:
    KubernetesService shop/web PUBLIC (default): outranked: ServiceEntry infra/web-shadow of the client's own namespace comes first
    ServiceEntry infra/web-shadow PUBLIC (policies[0]): chosen: the client's own namespace's entry comes first`, ix.ExplainHost("infra", "web.shop.svc.cluster.local").String())
	assert.Equal(t, `shop.db.example.com from namespace "": answered by ServiceEntry infra/wild
  *.example.com:
    ServiceEntry infra/wild PUBLIC (policies[0]): chosen: the canonical service: the highest-ranked PUBLIC entry`, ix.ExplainHost("", "shop.db.example.com").String())
	assert.Equal(t, `internal.corp from namespace shop: no visible service with an address; ztunnel forwards the query to the upstream resolver
  internal.corp (the query as given)
    internal.corp:
      ServiceEntry other/only-ns NAMESPACE (default): hidden: visibility NAMESPACE (the default): only namespace other sees it
  internal.corp.svc.cluster.local (short name internal.corp expanded): no service claims it`, ix.ExplainHost("shop", "internal.corp").String())
}

func TestExplainAddress(t *testing.T) {
	ix := sampleIndex(t)
	assert.Equal(t, `10.1.2.3 from namespace shop: answered by ServiceEntry shop/shop-net
  10.1.0.0/16:
    ServiceEntry infra/corp-sub PUBLIC (policies[0]): outranked: ServiceEntry shop/shop-net of the client's own namespace comes first
  10.0.0.0/12:
    ServiceEntry shop/shop-net NAMESPACE (default): chosen: the client's own namespace's entry comes first
  10.0.0.0/8:
    ServiceEntry infra/corp-net PUBLIC (policies[0]): outranked: ServiceEntry shop/shop-net of the client's own namespace comes first`, ix.ExplainAddress("shop", netip.MustParseAddr("10.1.2.3")).String())
	assert.Equal(t, `10.0.0.5 from namespace shop: answered by ServiceEntry shop/db
  10.0.0.5:
    ServiceEntry shop/db NAMESPACE (default): chosen: the client's own namespace's entry comes first
  10.0.0.0/12:
    ServiceEntry shop/shop-net NAMESPACE (default): not reached: 10.0.0.5 answered first
  10.0.0.0/8:
    ServiceEntry infra/corp-net PUBLIC (policies[0]): not reached: 10.0.0.5 answered first`, ix.ExplainAddress("shop", netip.MustParseAddr("10.0.0.5")).String())
	assert.Equal(t, `172.16.0.1 from namespace other: no visible service; the traffic passes through to its original destination`, ix.ExplainAddress("other", netip.MustParseAddr("172.16.0.1")).String())
}

func TestConflicts(t *testing.T) {
	ix := sampleIndex(t)
	var got []string
	for _, c := range ix.Conflicts() {
		var answers []string
		for _, a := range c.Answers {
			to := "upstream"
			if a.Service != nil {
				to = a.Service.Namespace + "/" + a.Service.Name
			}
			answers = append(answers, fmt.Sprintf("%v->%s", a.Clients, to))
		}
		got = append(got, c.Key+": "+strings.Join(answers, " "))
	}
	assert.Equal(t, []string{
		"api.github.com: [infra sandbox *]->infra/github [shop]->shop/github-private",
		"db.example.com: [infra *]->infra/wild [shop]->shop/db",
		"pkg.dev: [infra *]->infra/pkg-old [infra2]->infra2/pkg-new",
		"same.dev: [infra *]->infra/same-a [infra2]->infra2/same-a",
		"web.shop.svc.cluster.local: [infra]->infra/web-shadow [shop *]->shop/web",
		"10.0.0.5: [infra *]->infra/corp-net [shop]->shop/db",
		"10.0.0.0/12: [infra *]->infra/corp-net [shop]->shop/shop-net",
		"10.1.0.0/16: [infra *]->infra/corp-sub [shop]->shop/shop-net",
	}, got)
}

func TestEmptyInventory(t *testing.T) {
	ix, err := New(nil, &inventory.Inventory{})
	require.NoError(t, err)
	requireAnswersNothing(t, ix)
	assert.Zero(t, len(ix.decisions))
	assert.Empty(t, ix.Lint())
	a, err := Diff(nil, nil, &inventory.Inventory{})
	require.NoError(t, err)
	assert.Empty(t, a.Entries)
}

func TestExplanationJSON(t *testing.T) {
	ix := sampleIndex(t)
	b, err := json.Marshal(ix.ExplainHost("sandbox", "api.github.com"))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"answer":{"kind":"ServiceEntry","namespace":"infra","name":"github"}`)
	assert.Contains(t, string(b), `"verdict":"hidden"`)
	var back Explanation
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, ix.ExplainHost("sandbox", "api.github.com"), back)
}

// TestIndexCanonicalAddresses: New keys a Service built in Go on the canonical form of
// each address — host bits cleared — and an entry's IPv4 mapped into IPv6 stays IPv6, as in
// the configuration Istio sends ztunnel; a queried address is canonicalised as ztunnel does
// (an IPv4 mapped into IPv6 is IPv4), so no query reaches a mapped entry address.
func TestIndexCanonicalAddresses(t *testing.T) {
	ix, err := New(nil, &inventory.Inventory{Services: []inventory.Service{
		{Kind: inventory.ServiceEntry, Namespace: "a", Name: "mapped", Hosts: []string{"m.example"}, Addresses: pfx("::ffff:10.0.0.1")},
		{Kind: inventory.ServiceEntry, Namespace: "a", Name: "unmasked", Hosts: []string{"u.example"}, Addresses: pfx("10.1.2.3/16")},
		{Kind: inventory.ServiceEntry, Namespace: "a", Name: "mapped-cidr", Hosts: []string{"c.example"}, Addresses: pfx("::ffff:10.2.0.0/112")},
	}})
	require.NoError(t, err)
	for addr, want := range map[string]string{"10.0.0.1": "-", "::ffff:10.0.0.1": "-", "10.1.200.200": "a/unmasked", "10.2.3.4": "-", "::ffff:10.2.3.4": "-", "::ffff:10.1.200.9": "a/unmasked"} {
		assert.Equal(t, want, ref(ix.LookupAddress("x", netip.MustParseAddr(addr))), addr)
	}
}

// TestNewOfNothing: a nil mesh configuration is Istio's defaults and a nil inventory an
// empty one.
func TestNewOfNothing(t *testing.T) {
	ix, err := New(nil, nil)
	require.NoError(t, err)
	_, ok := ix.LookupHost("a", "x.y")
	assert.False(t, ok)
	assert.Empty(t, ix.Lint())
	assert.Empty(t, ix.Conflicts())
	a, err := Diff(nil, nil, nil)
	require.NoError(t, err)
	assert.Empty(t, a.Entries)
}

// TestDiffErrors: Diff reports every problem at once — each configuration's, placed under
// "before" or "after", then the inventory's, once.
func TestDiffErrors(t *testing.T) {
	bad := &mesh.Config{RootNamespace: "Not A Namespace", Visibility: &visibility.Config{DefaultVisibility: "public"}}
	inv := inventory.Inventory{Services: []inventory.Service{{Kind: inventory.ServiceEntry, Namespace: "a", Name: "x", Hosts: []string{"a..b"}}}}
	_, err := Diff(bad, meshOf(&visibility.Config{DefaultVisibility: "NONE?"}), &inv)
	require.Error(t, err)
	var where, fields []string
	for _, fe := range fieldErrors(t, err) {
		where, fields = append(where, fe.Where), append(fields, fe.Field)
	}
	assert.Equal(t, []string{"before", "before", "after", "Services[0] (ServiceEntry a/x)"}, where)
	assert.Equal(t, []string{"serviceEntryVisibility.defaultVisibility", "rootNamespace", "serviceEntryVisibility.defaultVisibility", "Hosts[0]"}, fields)
}
