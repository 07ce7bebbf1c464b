package scope

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// TestScopeRules has a row per rule of service scope.
func TestScopeRules(t *testing.T) {
	web := "web.shop.svc.cluster.local"
	tests := []struct {
		name string
		c    *settings
		ns   labels.Labels
		svc  labels.Set
		host string
		want mesh.Scope
	}{
		{"no configuration: LOCAL", nil, nil, nil, web, mesh.Local},
		{"LOCAL by default", &settings{}, labels.Set{}, nil, web, mesh.Local},
		{"GLOBAL when both selectors match", &settings{ServiceScopeConfigs: []mesh.ServiceScope{{NamespaceSelector: istiotest.LabelSelector("shared", "yes"), ServicesSelector: istiotest.LabelSelector("app", "web"), Scope: mesh.Global}}},
			labels.Set{"shared": "yes"}, labels.Set{"app": "web"}, web, mesh.Global},
		{"LOCAL when only the namespace matches", &settings{ServiceScopeConfigs: []mesh.ServiceScope{{NamespaceSelector: istiotest.LabelSelector("shared", "yes"), ServicesSelector: istiotest.LabelSelector("app", "web"), Scope: mesh.Global}}},
			labels.Set{"shared": "yes"}, labels.Set{"app": "db"}, web, mesh.Local},
		{"an absent selector matches everything", &settings{ServiceScopeConfigs: []mesh.ServiceScope{{ServicesSelector: istiotest.LabelSelector("app", "web"), Scope: mesh.Global}}},
			labels.Set{}, labels.Set{"app": "web"}, web, mesh.Global},
		{"an empty selector matches everything", &settings{ServiceScopeConfigs: []mesh.ServiceScope{{NamespaceSelector: &metav1.LabelSelector{}, ServicesSelector: &metav1.LabelSelector{}, Scope: mesh.Global}}},
			labels.Set{}, nil, web, mesh.Global},
		{"order does not matter; a LOCAL config never overrides a GLOBAL match", &settings{ServiceScopeConfigs: []mesh.ServiceScope{
			{Scope: mesh.Local}, {Scope: mesh.Global}, {Scope: mesh.Local}}}, labels.Set{}, nil, web, mesh.Global},
		{"an unknown namespace (nil labels) is LOCAL: Istio skips every config", &settings{ServiceScopeConfigs: []mesh.ServiceScope{{Scope: mesh.Global}}},
			nil, nil, web, mesh.Local},
		{"an unknown namespace (a nil labels.Set, as a map lookup gives) is LOCAL", &settings{ServiceScopeConfigs: []mesh.ServiceScope{{Scope: mesh.Global}}},
			labels.Set(nil), nil, web, mesh.Local},
		{"a namespace without labels is known", &settings{ServiceScopeConfigs: []mesh.ServiceScope{{Scope: mesh.Global}}},
			labels.Set{}, nil, web, mesh.Global},
		{"local wins: a cluster-local host stays LOCAL", &settings{ServiceScopeConfigs: []mesh.ServiceScope{{Scope: mesh.Global}},
			ServiceSettings: []mesh.ServiceSetting{{Settings: mesh.ServiceSettingValues{ClusterLocal: true}, Hosts: []string{"*.shop.svc.cluster.local"}}}}, labels.Set{}, nil, web, mesh.Local},
		{"the most specific pattern decides: exact over wildcard", &settings{ServiceScopeConfigs: []mesh.ServiceScope{{Scope: mesh.Global}},
			ServiceSettings: []mesh.ServiceSetting{
				{Settings: mesh.ServiceSettingValues{ClusterLocal: true}, Hosts: []string{"*.svc.cluster.local"}},
				{Settings: mesh.ServiceSettingValues{ClusterLocal: false}, Hosts: []string{web}},
			}}, labels.Set{}, nil, web, mesh.Global},
		{"the longest wildcard decides", &settings{ServiceScopeConfigs: []mesh.ServiceScope{{Scope: mesh.Global}},
			ServiceSettings: []mesh.ServiceSetting{
				{Settings: mesh.ServiceSettingValues{ClusterLocal: false}, Hosts: []string{"*.shop.svc.cluster.local"}},
				{Settings: mesh.ServiceSettingValues{ClusterLocal: true}, Hosts: []string{"*.cluster.local"}},
			}}, labels.Set{}, nil, web, mesh.Global},
		{"a pattern given twice: the later wins", &settings{ServiceScopeConfigs: []mesh.ServiceScope{{Scope: mesh.Global}},
			ServiceSettings: []mesh.ServiceSetting{
				{Settings: mesh.ServiceSettingValues{ClusterLocal: true}, Hosts: []string{"*.shop.svc.cluster.local"}},
				{Settings: mesh.ServiceSettingValues{ClusterLocal: false}, Hosts: []string{"*.shop.svc.cluster.local"}},
			}}, labels.Set{}, nil, web, mesh.Global},
		{"kube-system is cluster-local by default", &settings{ServiceScopeConfigs: []mesh.ServiceScope{{Scope: mesh.Global}}}, labels.Set{}, nil, "kube-dns.kube-system.svc.cluster.local", mesh.Local},
		{"the kubernetes service is cluster-local by default", &settings{ServiceScopeConfigs: []mesh.ServiceScope{{Scope: mesh.Global}}}, labels.Set{}, nil, "kubernetes.default.svc.cluster.local", mesh.Local},
		{"a clusterLocal false naming a host under the default drops it", &settings{ServiceScopeConfigs: []mesh.ServiceScope{{Scope: mesh.Global}},
			ServiceSettings: []mesh.ServiceSetting{{Settings: mesh.ServiceSettingValues{ClusterLocal: false}, Hosts: []string{"metrics.kube-system.svc.cluster.local"}}}},
			labels.Set{}, nil, "kube-dns.kube-system.svc.cluster.local", mesh.Global},
		{"defaults follow the cluster domain", &settings{Domain: "corp.internal", ServiceScopeConfigs: []mesh.ServiceScope{{Scope: mesh.Global}}}, labels.Set{}, nil, "kube-dns.kube-system.svc.corp.internal", mesh.Local},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustScope(t, tt.c)
			assert.Equal(t, tt.want, s.Scope(tt.ns, tt.svc, tt.host))
			assert.Equal(t, tt.want, s.Explain(tt.ns, tt.svc, tt.host).Scope, "the explanation agrees")
		})
	}
}

func TestScopeExplain(t *testing.T) {
	s := mustScope(t, &settings{ServiceScopeConfigs: []mesh.ServiceScope{{Scope: mesh.Local}, {NamespaceSelector: istiotest.LabelSelector("shared", "yes"), Scope: mesh.Global}},
		ServiceSettings: []mesh.ServiceSetting{{Settings: mesh.ServiceSettingValues{ClusterLocal: true}, Hosts: []string{"*.secret.svc.cluster.local"}}}})
	ns := labels.Set{"shared": "yes"}
	assert.Equal(t, Explanation{Scope: mesh.Global, Config: 1, Setting: -1, Reason: "serviceScopeConfigs[1] (namespaces shared=yes, services all) makes it GLOBAL"},
		s.Explain(ns, nil, "web.shop.svc.cluster.local"))
	assert.Equal(t, Explanation{Scope: mesh.Local, Config: 1, Pattern: "*.secret.svc.cluster.local", ClusterLocal: true,
		Reason: "serviceScopeConfigs[1] makes it GLOBAL, but vault.secret.svc.cluster.local is cluster-local (serviceSettings[0] host *.secret.svc.cluster.local), and local wins"},
		s.Explain(ns, nil, "vault.secret.svc.cluster.local"))
	assert.Contains(t, s.Explain(ns, nil, "coredns.kube-system.svc.cluster.local").Reason, "Istio's default *.kube-system.svc.cluster.local")
	assert.Equal(t, -1, s.Explain(nil, nil, "x").Config)
}

func TestLintAndDiffScope(t *testing.T) {
	c := &settings{
		ServiceScopeConfigs: []mesh.ServiceScope{
			{Scope: mesh.Local},
			{NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "a", Operator: metav1.LabelSelectorOpExists}, {Key: "a", Operator: metav1.LabelSelectorOpDoesNotExist}}}, Scope: mesh.Global},
			{ServicesSelector: istiotest.LabelSelector("app", "web"), Scope: mesh.Global},
		},
		ServiceSettings: []mesh.ServiceSetting{
			{Settings: mesh.ServiceSettingValues{ClusterLocal: true}, Hosts: []string{"*.x.svc.cluster.local"}},
			{Settings: mesh.ServiceSettingValues{ClusterLocal: false}, Hosts: []string{"*.x.svc.cluster.local"}},
		},
	}
	var got []string
	for _, f := range mustScope(t, c).Lint() {
		got = append(got, f.String())
	}
	assert.Equal(t, []string{
		"NOTE ScopeLocalConfig serviceScopeConfigs[0]: a LOCAL config changes nothing: LOCAL is the default and never overrides a GLOBAL match",
		"WARNING ScopeNeverMatches serviceScopeConfigs[1].namespaceSelector: its requirements contradict each other: the config never matches",
		"NOTE ScopeSettingOverridden serviceSettings[0].hosts[0]: *.x.svc.cluster.local is given again by serviceSettings[1], which wins",
	}, got)

	inv := &inventory.Inventory{Namespaces: map[string]map[string]string{"shop": {}}, Services: []inventory.Service{
		{Kind: inventory.KubernetesService, Namespace: "shop", Name: "web", Hosts: []string{"web.shop.svc.cluster.local"}, Labels: map[string]string{"app": "web"}},
		{Kind: inventory.KubernetesService, Namespace: "shop", Name: "db", Hosts: []string{"db.shop.svc.cluster.local"}},
		se("shop", "egress", "api.example.com"),
	}}
	changes := Diff(mustScopeOver(t, nil, inv), mustScopeOver(t, c, inv))
	assert.Equal(t, []Change{{Key: inventory.ServiceRef{Kind: inventory.KubernetesService, Namespace: "shop", Name: "web"}, Before: mesh.Local, After: mesh.Global}}, changes)
	assert.Empty(t, Diff(mustScopeOver(t, c, inv), mustScopeOver(t, c, inv)))
}

func TestNewErrors(t *testing.T) {
	_, err := New(&mesh.Config{DefaultConfig: mesh.ProxyConfig{DiscoveryAddress: "istiod"}, ServiceSettings: []mesh.ServiceSetting{{Hosts: []string{"*", "*.", "a.*.b"}}}},
		&inventory.Inventory{Domain: "*.x"})
	require.Error(t, err)
	assert.Equal(t, strings.Join([]string{
		`serviceSettings[0].hosts[1]: "*." is a wildcard without a domain`,
		`serviceSettings[0].hosts[2]: domain name "*.b" invalid (label "*" invalid)`,
		`defaultConfig.discoveryAddress: "istiod" is not host:port`,
		`Domain: "*.x" is not a DNS name`,
	}, "\n"), err.Error(), "a serviceSettings host may be * alone, as Istio accepts it")
}
