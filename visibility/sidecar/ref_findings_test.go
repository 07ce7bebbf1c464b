package sidecar

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/visibility/inventory"
)

// The smallest inventories on which the view and the literal reference disagreed on random
// inventories, each held to Istio's answer as its code gives it.

// TestDestinationOfPortlessService: a VirtualService destination that names a port adds
// a service that declares no ports at all. istiod trims the service to the destination's
// ports and drops it only when it keeps fewer ports than it has (sidecar.go,
// serviceMatchingVirtualServicePorts: the ports found are compared with the service's
// ports, and zero found of zero is all of them), so the portless service is added as it is.
func TestDestinationOfPortlessService(t *testing.T) {
	inv := inventory.Inventory{
		Namespaces: map[string]map[string]string{"shop": nil},
		Services: []inventory.Service{
			// Hidden from everyone, yet a destination of its own namespace's VirtualService.
			{Kind: inventory.ServiceEntry, Namespace: "shop", Name: "cache", Hosts: []string{"cache.example.com"}, ExportTo: []string{"~"}, CreationTime: t0},
		},
		VirtualServices: []inventory.VirtualService{{Namespace: "shop", Name: "api", CreationTime: t0, Hosts: []string{"api.example.com"},
			HTTP: []inventory.HTTPRoute{{Route: []inventory.Destination{{Host: "cache.example.com", Port: 6379}}}}}},
	}
	v, err := New(nil, &inv)
	require.NoError(t, err)
	want := []Service{{Host: "cache.example.com", Kind: inventory.ServiceEntry, Namespace: "shop", Name: "cache", Ports: []uint32{}, AddedBy: "shop/api"}}
	assert.Equal(t, want, v.Proxy("shop", nil).Services)
}

// TestGatewayBesideEmptySelectorSidecar: a Sidecar with an empty workloadSelector applies to
// every workload of its namespace (labels.Instance.SubsetOf: an empty selector is a subset of
// any labels), so no sidecar of the namespace is ever given the namespace's default scope,
// and istiod never hands that scope to a gateway of the namespace
// (push_context.go, doGetSidecarScope: the default scope a gateway may reuse is only
// computed for a sidecar no Sidecar of its namespace applies to). The gateway's view does
// not depend on who connects first: no note. With a selector that leaves workloads out,
// it does.
func TestGatewayBesideEmptySelectorSidecar(t *testing.T) {
	for _, tc := range []struct {
		name     string
		selector map[string]string
		note     bool
	}{
		{"workloadSelector {}", map[string]string{}, false},
		{"workloadSelector app=web", map[string]string{"app": "web"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := inventory.Inventory{
				Namespaces: map[string]map[string]string{"pay": nil, "istio-system": nil},
				Services: []inventory.Service{
					{Kind: inventory.ServiceEntry, Namespace: "pay", Name: "db", Hosts: []string{"db.example.com"}, Ports: []uint32{80}, CreationTime: t0},
					{Kind: inventory.ServiceEntry, Namespace: "istio-system", Name: "db", Hosts: []string{"db.example.com"}, ExportTo: []string{"pay"}, Ports: []uint32{443}, CreationTime: t0.Add(1)},
				},
				Sidecars: []inventory.Sidecar{{Namespace: "pay", Name: "all", WorkloadSelector: tc.selector, CreationTime: t0}},
			}
			v, err := New(nil, &inv)
			require.NoError(t, err)
			gw := v.Gateway("pay", nil)
			require.Equal(t, []Service{{Host: "db.example.com", Kind: inventory.ServiceEntry, Namespace: "istio-system", Name: "db", Ports: []uint32{443}}}, gw.Services)
			if tc.note {
				require.Len(t, gw.Notes, 1)
				assert.Contains(t, gw.Notes[0].Message, "db.example.com")
			} else {
				assert.Empty(t, gw.Notes)
			}
		})
	}
}

// TestExplainHostAnswerIsProxys: ExplainHost's Answer is the entry Proxy lists for the host,
// a host a VirtualService's destination adds and the VirtualServices that route a host
// included.
func TestExplainHostAnswerIsProxys(t *testing.T) {
	inv := inventory.Inventory{
		Namespaces: map[string]map[string]string{"shop": nil},
		Services: []inventory.Service{
			{Kind: inventory.ServiceEntry, Namespace: "shop", Name: "api", Hosts: []string{"api.example.com"}, Ports: []uint32{443}, CreationTime: t0},
			{Kind: inventory.ServiceEntry, Namespace: "shop", Name: "cache", Hosts: []string{"cache.example.com"}, ExportTo: []string{"~"}, Ports: []uint32{6379}, CreationTime: t0},
		},
		VirtualServices: []inventory.VirtualService{{Namespace: "shop", Name: "api", CreationTime: t0, Hosts: []string{"api.example.com"},
			HTTP: []inventory.HTTPRoute{{Route: []inventory.Destination{{Host: "cache.example.com"}}}}}},
	}
	v, err := New(nil, &inv)
	require.NoError(t, err)
	p := v.Proxy("shop", nil)
	require.Equal(t, []Service{
		{Host: "api.example.com", Kind: inventory.ServiceEntry, Namespace: "shop", Name: "api", Ports: []uint32{443}, Routes: []string{"shop/api"}},
		{Host: "cache.example.com", Kind: inventory.ServiceEntry, Namespace: "shop", Name: "cache", Ports: []uint32{6379}, AddedBy: "shop/api"},
	}, p.Services)
	for i, s := range p.Services {
		assert.Equal(t, &p.Services[i], v.ExplainHost("shop", nil, s.Host).Answer, s.Host)
	}
}
