package ambient

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/visibility/inventory"
)

// TestAmbientDNSRules has a row per rule of what ztunnel's DNS proxy answers.
func TestAmbientDNSRules(t *testing.T) {
	auto := func(s inventory.Service, res inventory.Resolution, addrs map[string][]string) inventory.Service {
		s.Addresses, s.Resolution, s.AutoAddresses = nil, res, autos(addrs)
		return s
	}
	entry := func(ns, name string, hosts ...string) inventory.Service {
		return inventory.Service{Kind: inventory.ServiceEntry, Namespace: ns, Name: name, Hosts: hosts, CreationTime: t0}
	}
	svc := func(ns, name string, ips ...string) inventory.Service {
		s := k8s(ns, name, 0, ips...)
		return s
	}
	tests := []struct {
		name     string
		services []inventory.Service
		client   string
		query    string
		want     string // namespace/name, or "-" when forwarded upstream
	}{
		{"an entry with spec.addresses answers", []inventory.Service{se("infra", "a", 0, []string{"a.example.com"}, "10.0.0.1")}, "x", "a.example.com", "infra/a"},
		{"no addresses and no resolution: resolution NONE, no answer", []inventory.Service{auto(entry("infra", "a", "a.example.com"), "", map[string][]string{"a.example.com": {"240.240.0.1"}})}, "x", "a.example.com", "-"},
		{"resolution NONE: no address allocated", []inventory.Service{auto(entry("infra", "a", "a.example.com"), inventory.ResolutionNone, map[string][]string{"a.example.com": {"240.240.0.1"}})}, "x", "a.example.com", "-"},
		{"resolution DNS with an allocated address answers", []inventory.Service{auto(entry("infra", "a", "a.example.com"), inventory.ResolutionDNS, map[string][]string{"a.example.com": {"240.240.0.1"}})}, "x", "a.example.com", "infra/a"},
		{"resolution DNS but nothing allocated for the host", []inventory.Service{auto(entry("infra", "a", "a.example.com", "b.example.com"), inventory.ResolutionDNS, map[string][]string{"b.example.com": {"240.240.0.1"}})}, "x", "a.example.com", "-"},
		{"the opt-out label, in any case", []inventory.Service{func() inventory.Service {
			s := auto(entry("infra", "a", "a.example.com"), inventory.ResolutionDNS, map[string][]string{"a.example.com": {"240.240.0.1"}})
			s.Labels = map[string]string{autoAllocateLabel: "FALSE"}
			return s
		}()}, "x", "a.example.com", "-"},
		{"a wildcard host gets no allocated address with DNS", []inventory.Service{auto(entry("infra", "w", "*.example.com"), inventory.ResolutionDNS, map[string][]string{"*.example.com": {"240.240.0.1"}})}, "x", "a.example.com", "-"},
		{"a wildcard host uses its allocated address with DYNAMIC_DNS", []inventory.Service{auto(entry("infra", "w", "*.example.com"), inventory.ResolutionDynamicDNS, map[string][]string{"*.example.com": {"240.240.0.1"}})}, "x", "a.example.com", "infra/w"},
		{"a Kubernetes Service answers with its cluster IP", []inventory.Service{svc("shop", "web", "10.96.0.1")}, "x", "web.shop.svc.cluster.local", "shop/web"},
		{"a headless Service answers without an address", []inventory.Service{func() inventory.Service { s := svc("shop", "db"); s.Headless = true; return s }()}, "x", "db.shop.svc.cluster.local", "shop/db"},
		{"a Service without a cluster IP that is not headless does not", []inventory.Service{svc("shop", "ext")}, "x", "ext.shop.svc.cluster.local", "-"},
		{"an address-less entry does not shadow a PUBLIC twin with one", []inventory.Service{
			entry("x", "mine", "api.example.com"),
			auto(entry("infra", "public", "api.example.com"), inventory.ResolutionDNS, map[string][]string{"api.example.com": {"240.240.0.9"}}),
		}, "x", "api.example.com", "infra/public"},
		{"no address at the exact level: the wildcard level answers", []inventory.Service{
			entry("infra", "exact", "a.example.com"),
			auto(entry("infra", "wild", "*.example.com"), inventory.ResolutionDynamicDNS, map[string][]string{"*.example.com": {"240.240.0.2"}}),
		}, "x", "a.example.com", "infra/wild"},
		{"one label: x.<client ns>.svc.<domain>", []inventory.Service{svc("shop", "payments", "10.96.0.2")}, "shop", "payments", "shop/payments"},
		{"one label from another namespace", []inventory.Service{svc("shop", "payments", "10.96.0.2")}, "billing", "payments", "-"},
		{"one label from a client without a namespace", []inventory.Service{svc("shop", "payments", "10.96.0.2")}, "", "payments", "-"},
		{"two labels: x.y.svc.<domain>", []inventory.Service{svc("shop", "payments", "10.96.0.2")}, "billing", "payments.shop", "shop/payments"},
		{"three labels ending in svc", []inventory.Service{svc("shop", "payments", "10.96.0.2")}, "billing", "payments.shop.svc", "shop/payments"},
		{"three labels not ending in svc: no expansion", []inventory.Service{svc("shop", "payments", "10.96.0.2")}, "billing", "payments.shop.cluster", "-"},
		{"search domain <client>.svc.<domain> stripped", []inventory.Service{se("infra", "gh", 0, []string{"api.github.com"}, "10.0.0.3")},
			"shop", "api.github.com.shop.svc.cluster.local", "infra/gh"},
		{"search domain svc.<domain> stripped, then expanded", []inventory.Service{svc("shop", "payments", "10.96.0.2")}, "billing", "payments.shop.svc.svc.cluster.local", "shop/payments"},
		{"search domain <domain> stripped, then expanded", []inventory.Service{svc("shop", "payments", "10.96.0.2")}, "billing", "payments.shop.cluster.local", "shop/payments"},
		{"no <client>.svc search domain for a client without a namespace", []inventory.Service{se("infra", "gh", 0, []string{"api.github.com"}, "10.0.0.3")},
			"", "api.github.com.shop.svc.cluster.local", "-"},
		{"a stripped name is not stripped again", []inventory.Service{se("infra", "gh", 0, []string{"api.github.com"}, "10.0.0.3")},
			"billing", "api.github.com.cluster.local.cluster.local", "-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix, err := New(nil, &inventory.Inventory{Services: tt.services})
			require.NoError(t, err)
			got := ref(ix.LookupHost(tt.client, tt.query))
			assert.Equal(t, tt.want, got)
			ex := ix.ExplainHost(tt.client, tt.query)
			assert.Equal(t, tt.want != "-", ex.Answer != nil, "the explanation agrees")
		})
	}
}

func TestAmbientAddressesAndExplanations(t *testing.T) {
	gh := inventory.Service{Kind: inventory.ServiceEntry, Namespace: "infra", Name: "gh", Hosts: []string{"api.github.com"}, Resolution: inventory.ResolutionDNS,
		AutoAddresses: autos(map[string][]string{"api.github.com": {"240.240.0.7"}}), CreationTime: t0}
	quiet := inventory.Service{Kind: inventory.ServiceEntry, Namespace: "infra", Name: "quiet", Hosts: []string{"quiet.example.com"}, CreationTime: t0}
	ix, err := New(nil, &inventory.Inventory{Services: []inventory.Service{gh, quiet}, Domain: "corp.internal"})
	require.NoError(t, err)

	s, ok := ix.LookupAddress("x", netip.MustParseAddr("240.240.0.7"))
	require.True(t, ok, "ztunnel captures traffic to an allocated address")
	assert.Equal(t, "gh", s.Name)

	ex := ix.ExplainHost("shop", "api.github.com.shop.svc.corp.internal")
	require.NotNil(t, ex.Answer)
	assert.Equal(t, "api.github.com", ex.CNAME)
	assert.Contains(t, ex.String(), "answered by ServiceEntry infra/gh, as a CNAME to api.github.com")
	assert.Contains(t, ex.String(), "api.github.com (search domain shop.svc.corp.internal stripped)")

	ex = ix.ExplainHost("shop", "quiet.example.com")
	assert.Nil(t, ex.Answer)
	assert.Contains(t, ex.String(), "ServiceEntry infra/quiet PUBLIC (default): no address: ztunnel forwards the query (no spec.addresses, and resolution NONE gets none allocated)")
	require.Len(t, ex.Names[0].Levels, 1)
	assert.Equal(t, NoAddress, ex.Names[0].Levels[0].Candidates[0].Verdict)

	// An allocation recorded for another spelling of the host is not the host's: Istio looks
	// allocations up by the exact string of spec.hosts.
	upper := inventory.Service{Kind: inventory.ServiceEntry, Namespace: "infra", Name: "upper", Hosts: []string{"db.example.com"}, Resolution: inventory.ResolutionDNS,
		AutoAddresses: autos(map[string][]string{"DB.example.com": {"240.240.0.9"}}), CreationTime: t0}
	ix2, err := New(nil, &inventory.Inventory{Services: []inventory.Service{upper}})
	require.NoError(t, err)
	_, ok = ix2.LookupHost("shop", "db.example.com")
	assert.False(t, ok)
	_, ok = ix2.LookupAddress("shop", netip.MustParseAddr("240.240.0.9"))
	assert.False(t, ok)
	assert.Contains(t, ix2.ExplainHost("shop", "db.example.com").String(), `no address: ztunnel forwards the query (no spec.addresses, and status.addresses allocates for "DB.example.com", not "db.example.com": Istio compares the hosts exactly, so none is allocated for this one)`)

	_, err = New(nil, &inventory.Inventory{Services: []inventory.Service{{Kind: inventory.ServiceEntry, Namespace: "a", Name: "b", Hosts: []string{"h.example"},
		Resolution: "dns", AutoAddresses: autos(map[string][]string{"other.example": {"10.0.0.0/8"}})}}})
	require.Error(t, err)
	assert.Equal(t, `Services[0] (ServiceEntry a/b): Resolution: "dns" is not one of NONE, STATIC, DNS, DNS_ROUND_ROBIN, DYNAMIC_DNS
Services[0] (ServiceEntry a/b): AutoAddresses["other.example"]: "other.example" is none of the service's hosts
Services[0] (ServiceEntry a/b): AutoAddresses["other.example"][0]: 10.0.0.0/8 is not an IP`, err.Error())
}

func TestLoadInventoryAmbient(t *testing.T) {
	inv, err := inventory.Load([]byte(`kind: List
items:
- kind: ServiceEntry
  metadata: {name: gh, namespace: infra, labels: {networking.istio.io/enable-autoallocate-ip: "true"}}
  spec: {hosts: [api.github.com], resolution: DNS}
  status:
    addresses: [{value: 240.240.0.7, host: api.github.com}]
- apiVersion: v1
  kind: Service
  metadata: {name: db, namespace: shop, labels: {app: db}}
  spec: {clusterIP: None}
`), "corp.internal")
	require.NoError(t, err)
	assert.Equal(t, "corp.internal", inv.Domain)
	assert.Equal(t, inventory.ResolutionDNS, inv.Services[0].Resolution)
	assert.Equal(t, autos(map[string][]string{"api.github.com": {"240.240.0.7"}}), inv.Services[0].AutoAddresses)
	assert.Equal(t, map[string]string{autoAllocateLabel: "true"}, inv.Services[0].Labels)
	assert.True(t, inv.Services[1].Headless)
	assert.Equal(t, map[string]string{"app": "db"}, inv.Services[1].Labels)

	_, err = inventory.Load([]byte(`kind: ServiceEntry
metadata: {name: gh, namespace: infra}
spec: {hosts: [api.github.com], resolution: dns}
status: {addresses: [{value: nope, host: api.github.com}, {value: 240.240.0.1, host: other}]}
`), "")
	require.Error(t, err)
	assert.Equal(t, `ServiceEntry infra/gh: spec.resolution: "dns" is not one of NONE, STATIC, DNS, DNS_ROUND_ROBIN, DYNAMIC_DNS
ServiceEntry infra/gh: status.addresses[0].value: "nope" is not an IP
ServiceEntry infra/gh: status.addresses[1].host: "other" is none of the service's hosts`, err.Error())
}

func TestZeroIndex(t *testing.T) {
	for _, ix := range []*Index{nil, {}} {
		requireAnswersNothing(t, ix)
	}
}

// requireAnswersNothing holds an index of no services to answering no lookup, decision or
// explanation, and finding no conflict.
func requireAnswersNothing(t *testing.T, ix *Index) {
	t.Helper()
	_, ok := ix.LookupHost("a", "b.example")
	assert.False(t, ok)
	_, ok = ix.LookupAddress("a", netip.MustParseAddr("10.0.0.1"))
	assert.False(t, ok)
	_, ok = ix.Decision("a", "b")
	assert.False(t, ok)
	assert.Nil(t, ix.ExplainHost("a", "b.example").Answer)
	assert.Empty(t, ix.Conflicts())
}
