package sidecar

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/longtest"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// TestDestinationOfPortlessService: a VirtualService destination naming a port still adds a
// service that declares no ports. istiod narrows a destination's service to the ports the
// routes name, and leaves the service out only when it declares ports and the routes name
// none of them; a service without ports loses nothing, so it comes as it is. The first
// VirtualService to name it is the one that adds it, even when a younger one names it
// without a port.
func TestDestinationOfPortlessService(t *testing.T) {
	cache := inventory.Service{Kind: inventory.ServiceEntry, Namespace: "shop", Name: "cache", Hosts: []string{"cache.example.com"}, ExportTo: []string{"~"}, CreationTime: t0}
	toCache := func(name string, age int, port uint32) inventory.VirtualService {
		return inventory.VirtualService{Namespace: "shop", Name: name, CreationTime: t0.Add(time.Duration(age) * time.Minute), Hosts: []string{name + ".example.com"},
			HTTP: []inventory.HTTPRoute{{Route: []inventory.Destination{{Host: "cache.example.com", Port: port}}}}}
	}
	for _, tc := range []struct {
		name  string
		vss   []inventory.VirtualService
		added string
	}{
		{"one VirtualService naming a port", []inventory.VirtualService{toCache("api", 0, 6379)}, "shop/api"},
		{"a younger one naming none", []inventory.VirtualService{toCache("api", 0, 6379), toCache("web", 1, 0)}, "shop/api"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := inventory.Inventory{Namespaces: map[string]map[string]string{"shop": nil}, Services: []inventory.Service{cache}, VirtualServices: tc.vss}
			v, err := New(nil, &inv)
			require.NoError(t, err)
			want := []Service{{Host: "cache.example.com", Kind: inventory.ServiceEntry, Namespace: "shop", Name: "cache", Ports: []uint32{}, AddedBy: tc.added}}
			require.Equal(t, want, v.Proxy("shop", nil).Services)
			require.Equal(t, &want[0], v.ExplainHost("shop", nil, "cache.example.com").Answer)
		})
	}
}

// TestDelegateMirrorAndRootMirrors: a delegate's route keeps its own mirror and, having no
// mirrors of its own, takes the mirrors of the route that delegates to it (istiod fills
// each of the two fields apart), so a proxy gets the hosts of both, read through Load.
func TestDelegateMirrorAndRootMirrors(t *testing.T) {
	inv, err := inventory.Load([]byte(`kind: List
items:
- {kind: Namespace, metadata: {name: shop}}
- {kind: ServiceEntry, metadata: {name: api, namespace: shop}, spec: {hosts: [api.example.com], exportTo: ["~"], ports: [{number: 80, name: http}]}}
- {kind: ServiceEntry, metadata: {name: x, namespace: shop}, spec: {hosts: [x.example.com], exportTo: ["~"], ports: [{number: 80, name: http}]}}
- {kind: ServiceEntry, metadata: {name: z, namespace: shop}, spec: {hosts: [z.example.com], exportTo: ["~"], ports: [{number: 80, name: http}]}}
- {kind: Sidecar, metadata: {name: default, namespace: shop}, spec: {egress: [{hosts: [./web.example.com]}]}}
- kind: VirtualService
  metadata: {name: root, namespace: shop}
  spec:
    hosts: [web.example.com]
    http: [{delegate: {name: leaf}, mirrors: [{destination: {host: z.example.com}}]}]
- kind: VirtualService
  metadata: {name: leaf, namespace: shop}
  spec:
    http: [{route: [{destination: {host: api.example.com}}], mirror: {host: x.example.com}}]
`), "")
	require.NoError(t, err)
	v, err := New(nil, inv)
	require.NoError(t, err)
	var got []string
	for _, s := range v.Proxy("shop", nil).Services {
		got = append(got, s.Host+" "+s.AddedBy)
	}
	require.Equal(t, []string{"api.example.com shop/root", "x.example.com shop/root", "z.example.com shop/root"}, got)
}

// TestSelectVirtualServicesIndex: on random inventories, the VirtualServices every listener
// of every Sidecar selects for a proxy of every namespace, found through the index, are
// those a look at every VirtualService exported to the namespace finds, in the same order.
func TestSelectVirtualServicesIndex(t *testing.T) {
	rng := newRand(71, 72)
	indexed := 0
	for i := range longtest.N(300, 5000) {
		m, inv := randomSidecarInventory(rng)
		v, err := New(m, &inv)
		require.NoError(t, err)
		scs := []*inventory.Sidecar{nil}
		for k := range inv.Sidecars {
			scs = append(scs, &inv.Sidecars[k])
		}
		for _, sc := range scs {
			for li, e := range egressOf(sc) {
				for _, n := range append(slices.Clone(sidecarNamespaces), "nowhere") {
					l := v.sidecars.reading.listener(e, li, n)
					got, want := v.vss.selectFor(&l, n), v.vss.scan(&l, n)
					if !slices.Equal(want, got) {
						t.Fatalf("got %v, want %v: inventory %d, %s listener %d for %s:\n%s", got, want, i, sidecarName(sc), li, n, dumpInventory(m, inv))
					}
					if w := l.wildcard(); len(want) > 0 && (w == nil || len(w.all) == 0) {
						indexed++
					}
				}
			}
		}
	}
	t.Logf("%d listeners selected VirtualServices through the index", indexed)
	require.Positive(t, indexed)
}

// TestSelectByPartialWildcard: a VirtualService whose host is a wildcard cut inside a label
// ("*ample.com") is selected by a listener of exact imports when its host covers one of
// them, as Istio's host matching has it, and routes that host.
func TestSelectByPartialWildcard(t *testing.T) {
	inv := inventory.Inventory{
		Namespaces: map[string]map[string]string{"shop": nil},
		Services:   []inventory.Service{se("shop", "api", 0, []string{"api.example.com"}), se("shop", "db", 1, []string{"db.example.org"})},
		Sidecars:   []inventory.Sidecar{{Namespace: "shop", Name: "default", CreationTime: t0, Egress: []inventory.Egress{{Hosts: []string{"./api.example.com", "./db.example.org"}}}}},
		VirtualServices: []inventory.VirtualService{{Namespace: "shop", Name: "partial", CreationTime: t0, Hosts: []string{"*ample.com"},
			HTTP: []inventory.HTTPRoute{{Route: []inventory.Destination{{Host: "api.example.com"}}}}}},
	}
	v, err := New(nil, &inv)
	require.NoError(t, err)
	got := v.Proxy("shop", nil)
	require.Equal(t, []string{"shop/partial"}, got.Listeners[0].VirtualServices)
	require.Equal(t, map[string]string{"api.example.com": "shop/partial"}, got.Listeners[0].Routes)
	requireProxy(t, refSidecarView{inv: inv}.proxy("shop", nil), got, "shop")
}
