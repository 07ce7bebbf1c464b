package sidecar

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// TestSidecarExplainUnclaimedHost: for a host no service has, the explanation says so rather
// than listing listeners with nothing under them, and names what comes near the host.
func TestSidecarExplainUnclaimedHost(t *testing.T) {
	inv := inventory.Inventory{
		Namespaces: map[string]map[string]string{"shop": nil, "partner": nil, "ext": nil},
		Services:   []inventory.Service{se("partner", "wild", 1, []string{"*.partner.example"}), se("ext", "api", 2, []string{"api.example.com"})},
		Sidecars: []inventory.Sidecar{{Namespace: "shop", Name: "default", Egress: []inventory.Egress{{Hosts: []string{"./*", "partner/*.partner.example"}}}},
			{Namespace: "ext", Name: "narrow", Egress: []inventory.Egress{{Hosts: []string{"*/*.corp.example"}}}}},
	}
	v, err := New(nil, &inv)
	require.NoError(t, err)
	for _, tc := range []struct {
		name, namespace, host string
		want                  []string
	}{
		{"a host nothing comes near", "shop", "nothing.example", []string{
			"no service in the inventory has the host nothing.example, so no listener has anything to import for it",
		}},
		{"a host that differs from a service's only in letter case", "shop", "API.example.com", []string{
			"no service in the inventory has the host API.example.com, so no listener has anything to import for it",
			"ServiceEntry ext/api has api.example.com, which differs from it only in letter case: Istio compares hosts as written, case-sensitively",
		}},
		{"a host a wildcard service host and a wildcard import cover", "shop", "foo.partner.example", []string{
			"no service in the inventory has the host foo.partner.example, so no listener has anything to import for it",
			"ServiceEntry partner/wild has the wildcard host *.partner.example, which covers it: a request for this host goes to what the proxy gets for *.partner.example, if anything (explain that host)",
			`egress[0] (./*, partner/*.partner.example) imports "partner/*.partner.example", which covers it, but an import only selects the inventory's services and creates none: a proxy gets a host only from a service (a ServiceEntry) that has it`,
		}},
		{"a wildcard import of every namespace", "ext", "db.corp.example", []string{
			"no service in the inventory has the host db.corp.example, so no listener has anything to import for it",
			`egress[0] (*/*.corp.example) imports "*/*.corp.example", which covers it, but an import only selects the inventory's services and creates none: a proxy gets a host only from a service (a ServiceEntry) that has it`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := v.ExplainHost(tc.namespace, labels.Set{}, tc.host)
			assert.Equal(t, tc.want, e.Unclaimed)
			assert.Empty(t, e.Levels, "no listener has a candidate to list")
			assert.Nil(t, e.Answer)
			assert.NotContains(t, e.String(), "):\n", "no listener printed with nothing under it")
			for _, u := range tc.want {
				assert.Contains(t, e.String(), "\n  "+u)
			}
		})
	}
	e := v.ExplainHost("shop", nil, "api.example.com")
	assert.Nil(t, e.Unclaimed, "a host a service has is explained by its candidates")
	assert.NotEmpty(t, e.Levels)
}

// TestSidecarExplainVisibilityShownOnlyWhereItApplies: a candidate's visibility is shown
// beside it only when it narrows what sidecars get (applyToSidecars); otherwise the
// explanation says visibility does not apply to sidecars, and the verdicts agree with Proxy.
func TestSidecarExplainVisibilityShownOnlyWhereItApplies(t *testing.T) {
	inv := inventory.Inventory{
		Namespaces: map[string]map[string]string{"shop": nil, "ext": nil},
		Services:   []inventory.Service{se("ext", "q", 1, []string{"q.example.com"})},
	}
	const note = "visibility does not apply to sidecars: serviceEntryVisibility's applyToSidecars is off, so each service's exportTo alone decides what the proxy gets (the visibility decisions are ztunnel's, for ambient clients)"
	for _, tc := range []struct {
		name     string
		config   *visibility.Config
		applies  bool
		note     string
		line     string // the candidate's line
		received bool
	}{
		{"visibility configured without applyToSidecars", &visibility.Config{DefaultVisibility: visibility.Namespace}, false, note,
			"\n    ServiceEntry ext/q: chosen: the first service the proxy gets for the host", true},
		{"visibility configured with applyToSidecars", &visibility.Config{DefaultVisibility: visibility.Namespace, ApplyToSidecars: true}, true, "",
			"\n    ServiceEntry ext/q NAMESPACE (default): hidden: the mesh's defaultServiceExportTo [\"*\"], narrowed by visibility NAMESPACE (default) (applyToSidecars) to [\".\"], does not export it to shop", false},
		{"visibility not configured", nil, false, "",
			"\n    ServiceEntry ext/q: chosen: the first service the proxy gets for the host", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := New(&mesh.Config{Visibility: tc.config}, &inv)
			require.NoError(t, err)
			e := v.ExplainHost("shop", nil, "q.example.com")
			assert.Equal(t, tc.applies, e.VisibilityApplies)
			assert.Equal(t, tc.note, e.VisibilityNote)
			assert.Contains(t, e.String(), tc.line)
			if tc.note != "" {
				assert.Contains(t, e.String(), "\n  "+tc.note+"\n")
			}
			if !tc.applies {
				assert.NotContains(t, e.String(), "(default)", "no visibility decision beside a candidate it does not bear on")
			}
			assert.Equal(t, tc.received, e.Answer != nil)
			assert.Equal(t, tc.received, len(v.Proxy("shop", nil).Services) == 1, "the explanation agrees with Proxy")
		})
	}
}

// TestExplainHostAnswerIsProxys: ExplainHost's Answer is the entry Proxy lists for the host —
// its routes, the VirtualService whose destination added it, its ports — and the one
// candidate the explanation chooses is that service: also on a listener of exact hosts,
// which considers the services of several namespaces oldest first, whatever their exportTo
// (here pay's public service, older than ext's one exported to shop by name).
func TestExplainHostAnswerIsProxys(t *testing.T) {
	inv := inventory.Inventory{
		Namespaces: map[string]map[string]string{"shop": nil, "pay": nil, "ext": nil},
		Services: []inventory.Service{
			{Kind: inventory.ServiceEntry, Namespace: "shop", Name: "api", Hosts: []string{"api.example.com"}, Ports: []uint32{443}, CreationTime: t0},
			{Kind: inventory.ServiceEntry, Namespace: "shop", Name: "cache", Hosts: []string{"cache.example.com"}, ExportTo: []string{"~"}, Ports: []uint32{6379, 6380}, CreationTime: t0},
			{Kind: inventory.ServiceEntry, Namespace: "pay", Name: "db", Hosts: []string{"db.example.com"}, Ports: []uint32{80}, CreationTime: t0},
			{Kind: inventory.ServiceEntry, Namespace: "ext", Name: "db", Hosts: []string{"db.example.com"}, ExportTo: []string{"shop"}, Ports: []uint32{443}, CreationTime: t0.Add(time.Hour)},
		},
		Sidecars: []inventory.Sidecar{{Namespace: "shop", Name: "exact", WorkloadSelector: map[string]string{"app": "exact"},
			Egress: []inventory.Egress{{Hosts: []string{"ext/db.example.com", "pay/db.example.com", "./api.example.com"}}}}},
		VirtualServices: []inventory.VirtualService{{Namespace: "shop", Name: "api", CreationTime: t0, Hosts: []string{"api.example.com"},
			HTTP: []inventory.HTTPRoute{{Route: []inventory.Destination{{Host: "cache.example.com", Port: 6379}}}}}},
	}
	v, err := New(nil, &inv)
	require.NoError(t, err)
	cache := Service{Host: "cache.example.com", Kind: inventory.ServiceEntry, Namespace: "shop", Name: "cache", Ports: []uint32{6379}, AddedBy: "shop/api"}
	api := Service{Host: "api.example.com", Kind: inventory.ServiceEntry, Namespace: "shop", Name: "api", Ports: []uint32{443}, Routes: []string{"shop/api"}}
	for _, tc := range []struct {
		workload labels.Set
		want     []Service
	}{
		{nil, []Service{api, cache, {Host: "db.example.com", Kind: inventory.ServiceEntry, Namespace: "ext", Name: "db", Ports: []uint32{443}}}},
		{labels.Set{"app": "exact"}, []Service{api, cache, {Host: "db.example.com", Kind: inventory.ServiceEntry, Namespace: "pay", Name: "db", Ports: []uint32{80}}}},
	} {
		p := v.Proxy("shop", tc.workload)
		require.Equal(t, tc.want, p.Services, "a proxy with %v", tc.workload)
		for i, s := range p.Services {
			e := v.ExplainHost("shop", tc.workload, s.Host)
			require.Equal(t, &p.Services[i], e.Answer, "%s for a proxy with %v", s.Host, tc.workload)
			var chosen []inventory.ServiceRef
			for _, l := range e.Levels {
				for _, c := range l.Candidates {
					if c.Verdict == Chosen {
						chosen = append(chosen, c.Service)
					}
				}
			}
			require.Equal(t, []inventory.ServiceRef{{Kind: s.Kind, Namespace: s.Namespace, Name: s.Name}}, chosen, "%s", e)
		}
	}
}

// TestExplainUndiscoveredInIstioOrder: the VirtualServices and DestinationRules of
// undiscovered namespaces that an explanation lists come in Istio's order, whatever the
// inventory's order: the explanation does not depend on how the objects were listed.
func TestExplainUndiscoveredInIstioOrder(t *testing.T) {
	vs := func(name string, age int) inventory.VirtualService {
		return inventory.VirtualService{Namespace: "ext", Name: name, CreationTime: t0.Add(time.Duration(age) * time.Hour), Hosts: []string{"api.example.com"},
			HTTP: []inventory.HTTPRoute{{Route: []inventory.Destination{{Host: "api.example.com"}}}}}
	}
	dr := func(name string, age int) inventory.DestinationRule {
		return inventory.DestinationRule{Namespace: "ext", Name: name, CreationTime: t0.Add(time.Duration(age) * time.Hour), Host: "api.example.com"}
	}
	m := &mesh.Config{DiscoverySelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{visibility.NamespaceNameLabel: "shop"}}}}
	explain := func(vss []inventory.VirtualService, drs []inventory.DestinationRule) Explanation {
		v, err := New(m, &inventory.Inventory{
			Namespaces:       map[string]map[string]string{"shop": {visibility.NamespaceNameLabel: "shop"}, "ext": {visibility.NamespaceNameLabel: "ext"}},
			Services:         []inventory.Service{se("shop", "api", 0, []string{"api.example.com"})},
			VirtualServices:  vss,
			DestinationRules: drs,
		})
		require.NoError(t, err)
		return v.ExplainHost("shop", nil, "api.example.com")
	}
	e := explain([]inventory.VirtualService{vs("b", 0), vs("a", 1)}, []inventory.DestinationRule{dr("b", 0), dr("a", 1)})
	require.Equal(t, e, explain([]inventory.VirtualService{vs("a", 1), vs("b", 0)}, []inventory.DestinationRule{dr("a", 1), dr("b", 0)}))
	names := func(cs []Candidate) (out []string) {
		for _, c := range cs {
			out = append(out, c.Object)
		}
		return out
	}
	require.Len(t, e.Routes, 1)
	require.Equal(t, []string{"ext/b", "ext/a"}, names(e.Routes[0].Candidates), "the oldest first")
	require.Equal(t, []string{"ext/b", "ext/a"}, names(e.Rules), "the oldest first")
}
