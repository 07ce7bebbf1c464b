package sidecar

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/visibility/inventory"
)

// TestGatewayBesideEmptySelectorSidecar: a Sidecar whose workloadSelector is empty
// (`workloadSelector: {}`) applies to every workload of its namespace, so no sidecar there
// is ever scoped without a Sidecar, istiod never computes the namespace's default scope, and
// a gateway of the namespace never takes it: its view does not depend on who connects first,
// and it carries no note. A selector that leaves workloads out keeps the note.
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
			// Per host the first service exported to pay wins: istio-system's, exported by name.
			require.Equal(t, []Service{{Host: "db.example.com", Kind: inventory.ServiceEntry, Namespace: "istio-system", Name: "db", Ports: []uint32{443}}}, gw.Services)
			if !tc.note {
				require.Empty(t, gw.Notes)
				return
			}
			// A sidecar of pay without a Sidecar prefers pay's own service.
			require.Len(t, gw.Notes, 1)
			require.Equal(t, GatewayScopeOrderDependent, gw.Notes[0].Code)
			require.Contains(t, gw.Notes[0].Message, "db.example.com")
		})
	}
}

// TestGatewayEmptySelectorFromLoad: Load reads `workloadSelector: {}` and
// `workloadSelector: {labels: {}}` as the empty selector, which the gateway's view reads as
// one that selects every workload.
func TestGatewayEmptySelectorFromLoad(t *testing.T) {
	for _, sel := range []string{"{}", "{labels: {}}"} {
		inv, err := inventory.Load([]byte(`kind: List
items:
- {kind: Namespace, metadata: {name: pay}}
- {kind: ServiceEntry, metadata: {name: db, namespace: pay, creationTimestamp: "2026-01-01T00:00:00Z"}, spec: {hosts: [db.example.com], ports: [{number: 80}]}}
- {kind: ServiceEntry, metadata: {name: db, namespace: istio-system, creationTimestamp: "2026-01-01T00:00:01Z"}, spec: {hosts: [db.example.com], exportTo: [pay], ports: [{number: 443}]}}
- {kind: Sidecar, metadata: {name: all, namespace: pay}, spec: {workloadSelector: `+sel+`, egress: [{hosts: ["./*"]}]}}
`), "")
		require.NoError(t, err, sel)
		require.Equal(t, map[string]string{}, inv.Sidecars[0].WorkloadSelector, sel)
		v, err := New(nil, inv)
		require.NoError(t, err, sel)
		require.Empty(t, v.Gateway("pay", nil).Notes, sel)
	}
}
