package scope

import (
	"encoding/json"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// TestOwnedValuesDoNotAlias mutates every value the caller owns — the mesh configuration
// and the inventory given to New, and every slice and pointer returned by the Scoper — and
// checks that no answer changes.
func TestOwnedValuesDoNotAlias(t *testing.T) {
	m := &mesh.Config{
		ServiceScopeConfigs: []mesh.ServiceScope{
			{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}, Scope: mesh.Global},
			{NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"x", "y"}}}}, Scope: mesh.Global},
		},
		ServiceSettings: []mesh.ServiceSetting{
			{Settings: mesh.ServiceSettingValues{ClusterLocal: true}, Hosts: []string{"*.internal"}},
			{Settings: mesh.ServiceSettingValues{ClusterLocal: false}, Hosts: []string{"metrics.kube-system.svc.cluster.local"}},
		},
	}
	inv := &inventory.Inventory{
		Namespaces: map[string]map[string]string{"a": {"team": "a"}, "b": {"tier": "x"}, "c": {}},
		Services: []inventory.Service{
			{Kind: inventory.ServiceEntry, Namespace: "a", Name: "db", Hosts: []string{"db.example.com"}, Addresses: []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32")}},
			{Kind: inventory.KubernetesService, Namespace: "a", Name: "web", Labels: map[string]string{"app": "web"}},
			{Kind: inventory.KubernetesService, Namespace: "c", Name: "api", Addresses: []netip.Prefix{netip.MustParsePrefix("10.1.0.1/32")}},
		},
	}
	sc, err := New(m, inv)
	require.NoError(t, err)
	local, err := New(nil, inv)
	require.NoError(t, err)
	nsLabels := []labels.Set{{"team": "a"}, {"tier": "x"}, {}}
	answers := func() string {
		type all struct {
			Scopes      []mesh.Scope
			ScopeExpl   []Explanation
			Services    []Scoped
			Lint        []Finding
			ScopeChange []Change
		}
		var a all
		for _, l := range nsLabels {
			a.Scopes = append(a.Scopes, sc.Scope(l, nil, "x.internal"), sc.Scope(l, nil, "db.c.svc.cluster.local"))
			a.ScopeExpl = append(a.ScopeExpl, sc.Explain(l, nil, "x.internal"), sc.Explain(l, nil, "kube-dns.kube-system.svc.cluster.local"))
		}
		a.Services = sc.Services()
		a.Lint = sc.Lint()
		a.ScopeChange = Diff(sc, local)
		b, err := json.Marshal(a)
		require.NoError(t, err)
		return string(b)
	}
	before := answers()
	require.Contains(t, before, `"dropped":{`, "an explanation with a pointer to mutate")

	// The caller's configuration and inventory.
	m.ServiceScopeConfigs[0].NamespaceSelector.MatchLabels["team"] = "evil"
	m.ServiceScopeConfigs[0].Scope = mesh.Local
	m.ServiceScopeConfigs[1].NamespaceSelector.MatchExpressions[0].Values[0] = "evil"
	m.ServiceSettings[0].Hosts[0] = "evil"
	m.ServiceSettings[1].Settings.ClusterLocal = true
	m.ServiceSettings = append(m.ServiceSettings[:0], mesh.ServiceSetting{Hosts: []string{"*"}})
	inv.Namespaces["a"]["team"] = "evil"
	inv.Services[1].Name, inv.Services[1].Labels["app"] = "evil", "evil"
	inv.Services = inv.Services[:1]
	assert.Equal(t, before, answers(), "changing the configuration and the inventory after New")

	// Everything returned that the caller owns.
	for _, l := range nsLabels {
		e := sc.Explain(l, nil, "kube-dns.kube-system.svc.cluster.local")
		if e.Dropped != nil {
			e.Dropped.Default, e.Dropped.Setting = "evil", 9
		}
	}
	for _, s := range [][]Scoped{sc.Services(), local.Services()} {
		for i := range s {
			s[i].Service.Name, s[i].Host, s[i].Scope = "evil", "evil", "EVIL"
		}
	}
	for i, f := range sc.Lint() {
		f.Message = "evil"
		sc.Lint()[i].Message = "evil"
	}
	for _, c := range Diff(sc, local) {
		c.Key.Name = "evil"
	}
	if d := Diff(sc, local); len(d) > 0 {
		d[0].Key.Name, d[0].Before = "evil", "EVIL"
	}
	assert.Equal(t, before, answers(), "changing returned values")
}
