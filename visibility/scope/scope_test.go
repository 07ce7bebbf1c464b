package visibility

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

func labelSel(k, v string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{k: v}}
}

func mustScope(t *testing.T, c *ScopeConfig) *Scoper {
	t.Helper()
	s, err := CompileScope(c)
	require.NoError(t, err)
	return s
}

// TestScopeRules has a row per rule of service scope.
func TestScopeRules(t *testing.T) {
	web := "web.shop.svc.cluster.local"
	tests := []struct {
		name string
		c    *ScopeConfig
		ns   labels.Labels
		svc  labels.Set
		host string
		want Scope
	}{
		{"no configuration: LOCAL", nil, nil, nil, web, Local},
		{"LOCAL by default", &ScopeConfig{}, labels.Set{}, nil, web, Local},
		{"GLOBAL when both selectors match", &ScopeConfig{ServiceScopeConfigs: []ServiceScope{{NamespaceSelector: labelSel("shared", "yes"), ServicesSelector: labelSel("app", "web"), Scope: Global}}},
			labels.Set{"shared": "yes"}, labels.Set{"app": "web"}, web, Global},
		{"LOCAL when only the namespace matches", &ScopeConfig{ServiceScopeConfigs: []ServiceScope{{NamespaceSelector: labelSel("shared", "yes"), ServicesSelector: labelSel("app", "web"), Scope: Global}}},
			labels.Set{"shared": "yes"}, labels.Set{"app": "db"}, web, Local},
		{"an absent selector matches everything", &ScopeConfig{ServiceScopeConfigs: []ServiceScope{{ServicesSelector: labelSel("app", "web"), Scope: Global}}},
			labels.Set{}, labels.Set{"app": "web"}, web, Global},
		{"an empty selector matches everything", &ScopeConfig{ServiceScopeConfigs: []ServiceScope{{NamespaceSelector: &metav1.LabelSelector{}, ServicesSelector: &metav1.LabelSelector{}, Scope: Global}}},
			labels.Set{}, nil, web, Global},
		{"order does not matter; a LOCAL config never overrides a GLOBAL match", &ScopeConfig{ServiceScopeConfigs: []ServiceScope{
			{Scope: Local}, {Scope: Global}, {Scope: Local}}}, labels.Set{}, nil, web, Global},
		{"an unknown namespace (nil labels) is LOCAL: Istio skips every config", &ScopeConfig{ServiceScopeConfigs: []ServiceScope{{Scope: Global}}},
			nil, nil, web, Local},
		{"an unknown namespace (a nil labels.Set, as a map lookup gives) is LOCAL", &ScopeConfig{ServiceScopeConfigs: []ServiceScope{{Scope: Global}}},
			labels.Set(nil), nil, web, Local},
		{"a namespace without labels is known", &ScopeConfig{ServiceScopeConfigs: []ServiceScope{{Scope: Global}}},
			labels.Set{}, nil, web, Global},
		{"local wins: a cluster-local host stays LOCAL", &ScopeConfig{ServiceScopeConfigs: []ServiceScope{{Scope: Global}},
			ServiceSettings: []ServiceSetting{{Settings: ServiceSettingValues{ClusterLocal: true}, Hosts: []string{"*.shop.svc.cluster.local"}}}}, labels.Set{}, nil, web, Local},
		{"the most specific pattern decides: exact over wildcard", &ScopeConfig{ServiceScopeConfigs: []ServiceScope{{Scope: Global}},
			ServiceSettings: []ServiceSetting{
				{Settings: ServiceSettingValues{ClusterLocal: true}, Hosts: []string{"*.svc.cluster.local"}},
				{Settings: ServiceSettingValues{ClusterLocal: false}, Hosts: []string{web}},
			}}, labels.Set{}, nil, web, Global},
		{"the longest wildcard decides", &ScopeConfig{ServiceScopeConfigs: []ServiceScope{{Scope: Global}},
			ServiceSettings: []ServiceSetting{
				{Settings: ServiceSettingValues{ClusterLocal: false}, Hosts: []string{"*.shop.svc.cluster.local"}},
				{Settings: ServiceSettingValues{ClusterLocal: true}, Hosts: []string{"*.cluster.local"}},
			}}, labels.Set{}, nil, web, Global},
		{"a pattern given twice: the later wins", &ScopeConfig{ServiceScopeConfigs: []ServiceScope{{Scope: Global}},
			ServiceSettings: []ServiceSetting{
				{Settings: ServiceSettingValues{ClusterLocal: true}, Hosts: []string{"*.shop.svc.cluster.local"}},
				{Settings: ServiceSettingValues{ClusterLocal: false}, Hosts: []string{"*.shop.svc.cluster.local"}},
			}}, labels.Set{}, nil, web, Global},
		{"kube-system is cluster-local by default", &ScopeConfig{ServiceScopeConfigs: []ServiceScope{{Scope: Global}}}, labels.Set{}, nil, "kube-dns.kube-system.svc.cluster.local", Local},
		{"the kubernetes service is cluster-local by default", &ScopeConfig{ServiceScopeConfigs: []ServiceScope{{Scope: Global}}}, labels.Set{}, nil, "kubernetes.default.svc.cluster.local", Local},
		{"a clusterLocal false naming a host under the default drops it", &ScopeConfig{ServiceScopeConfigs: []ServiceScope{{Scope: Global}},
			ServiceSettings: []ServiceSetting{{Settings: ServiceSettingValues{ClusterLocal: false}, Hosts: []string{"metrics.kube-system.svc.cluster.local"}}}},
			labels.Set{}, nil, "kube-dns.kube-system.svc.cluster.local", Global},
		{"defaults follow the cluster domain", &ScopeConfig{Domain: "corp.internal", ServiceScopeConfigs: []ServiceScope{{Scope: Global}}}, labels.Set{}, nil, "kube-dns.kube-system.svc.corp.internal", Local},
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
	s := mustScope(t, &ScopeConfig{ServiceScopeConfigs: []ServiceScope{{Scope: Local}, {NamespaceSelector: labelSel("shared", "yes"), Scope: Global}},
		ServiceSettings: []ServiceSetting{{Settings: ServiceSettingValues{ClusterLocal: true}, Hosts: []string{"*.secret.svc.cluster.local"}}}})
	ns := labels.Set{"shared": "yes"}
	assert.Equal(t, ScopeExplanation{Scope: Global, Config: 1, Setting: -1, Reason: "serviceScopeConfigs[1] (namespaces shared=yes, services all) makes it GLOBAL"},
		s.Explain(ns, nil, "web.shop.svc.cluster.local"))
	assert.Equal(t, ScopeExplanation{Scope: Local, Config: 1, Pattern: "*.secret.svc.cluster.local", ClusterLocal: true,
		Reason: "serviceScopeConfigs[1] makes it GLOBAL, but vault.secret.svc.cluster.local is cluster-local (serviceSettings[0] host *.secret.svc.cluster.local), and local wins"},
		s.Explain(ns, nil, "vault.secret.svc.cluster.local"))
	assert.Contains(t, s.Explain(ns, nil, "coredns.kube-system.svc.cluster.local").Reason, "Istio's default *.kube-system.svc.cluster.local")
	assert.Equal(t, -1, s.Explain(nil, nil, "x").Config)
}

// loadScopeShapes: two spellings of one scope configuration; FuzzLoadScope starts from them
// and from loadScopeRefusals.
var loadScopeShapes = map[string]string{
	"IstioOperator in a List": `kind: List
items:
- kind: IstioOperator
  spec:
    meshConfig:
      serviceScopeConfigs:
      - namespaceSelector: {matchLabels: {shared: "yes"}}
        scope: GLOBAL
      - servicesSelector: {matchLabels: {app: x}}
      serviceSettings:
      - settings: {clusterLocal: true}
        hosts: ["*.secret.svc.cluster.local"]
`,
	"the istio ConfigMap, snake_case and enum numbers": `kind: ConfigMap
metadata: {name: istio}
data:
  mesh: |
    service_scope_configs:
    - namespace_selector: {matchLabels: {shared: "yes"}}
      scope: 1
    - services_selector: {matchLabels: {app: x}}
      scope: 0
    service_settings:
    - settings: {cluster_local: true}
      hosts: ["*.secret.svc.cluster.local"]
`,
}

// loadScopeRefusals: input LoadScope refuses, and its error.
var loadScopeRefusals = map[string]string{
	"kind: Deployment\n":                                                                         "no mesh configuration: found 1 Deployment; expected an IstioOperator, the istio ConfigMap, Helm values with meshConfig, or a meshConfig",
	"meshConfig:\n  serviceScopeConfig: []\n":                                                    `meshConfig: unknown field "serviceScopeConfig" (did you mean "serviceScopeConfigs"? as written, it is ignored)`,
	"serviceScopeConfigs: [{scope: global}]\n":                                                   `serviceScopeConfigs[0].scope: unsupported value "global": enum names are upper case ("GLOBAL")`,
	"serviceScopeConfigs: [{scope: 2}]\n":                                                        "serviceScopeConfigs[0].scope: the number 2 is out of range [0, 1]",
	"serviceScopeConfigs: [{namespace_selector: {match_labels: {a: b}}}]\n":                      `serviceScopeConfigs[0].namespaceSelector: unknown field "match_labels" (did you mean "matchLabels"?)`,
	"serviceSettings: [{settings: {clusterLocal: true}, hosts: [\"bad host\"]}]\n":               `serviceSettings[0].hosts[0]: "bad host" is not a DNS name: label "bad host" must not contain ' ' (allowed: a-z, 0-9 and "-")`,
	"serviceScopeConfigs: [{namespaceSelector: {matchExpressions: [{key: a, operator: In}]}}]\n": `serviceScopeConfigs[0].namespaceSelector.matchExpressions[0].values: Required value: must be specified when ` + "`operator` is 'In' or 'NotIn'",
	"serviceScopeConfigs: []\nserviceScopeConfigs: []\n":                                         "serviceScopeConfigs: given twice (lines 1 and 2)",
}

func TestLoadScope(t *testing.T) {
	want := &ScopeConfig{
		ServiceScopeConfigs: []ServiceScope{{NamespaceSelector: labelSel("shared", "yes"), Scope: Global}, {ServicesSelector: labelSel("app", "x")}},
		ServiceSettings:     []ServiceSetting{{Settings: ServiceSettingValues{ClusterLocal: true}, Hosts: []string{"*.secret.svc.cluster.local"}}},
	}
	for name, in := range loadScopeShapes {
		t.Run(name, func(t *testing.T) {
			got, err := LoadScope([]byte(in))
			require.NoError(t, err)
			want := *want // each case its own copy: the cases run in map order
			want.ServiceScopeConfigs = slices.Clone(want.ServiceScopeConfigs)
			if name == "the istio ConfigMap, snake_case and enum numbers" {
				want.ServiceScopeConfigs[1].Scope = Local
			}
			assert.Equal(t, &want, got)
		})
	}
	got, err := LoadScope([]byte("meshConfig: {accessLogFile: /dev/stdout}\n"))
	require.NoError(t, err)
	assert.Nil(t, got, "a mesh configuration without the fields: every service LOCAL")

	for in, wantErr := range loadScopeRefusals {
		_, err := LoadScope([]byte(in))
		require.Error(t, err, in)
		assert.Equal(t, wantErr, err.Error(), in)
	}
}

func TestLintAndDiffScope(t *testing.T) {
	c := &ScopeConfig{
		ServiceScopeConfigs: []ServiceScope{
			{Scope: Local},
			{NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "a", Operator: metav1.LabelSelectorOpExists}, {Key: "a", Operator: metav1.LabelSelectorOpDoesNotExist}}}, Scope: Global},
			{ServicesSelector: labelSel("app", "web"), Scope: Global},
		},
		ServiceSettings: []ServiceSetting{
			{Settings: ServiceSettingValues{ClusterLocal: true}, Hosts: []string{"*.x.svc.cluster.local"}},
			{Settings: ServiceSettingValues{ClusterLocal: false}, Hosts: []string{"*.x.svc.cluster.local"}},
		},
	}
	var got []string
	for _, f := range LintScope(c) {
		got = append(got, f.String())
	}
	assert.Equal(t, []string{
		"NOTE ScopeLocalConfig serviceScopeConfigs[0]: a LOCAL config changes nothing: LOCAL is the default and never overrides a GLOBAL match",
		"WARNING ScopeNeverMatches serviceScopeConfigs[1].namespaceSelector: its requirements contradict each other: the config never matches",
		"NOTE ScopeSettingOverridden serviceSettings[0].hosts[0]: *.x.svc.cluster.local is given again by serviceSettings[1], which wins",
	}, got)

	inv := Inventory{Namespaces: map[string]map[string]string{"shop": {}}, Services: []Service{
		{Kind: KubernetesService, Namespace: "shop", Name: "web", Hosts: []string{"web.shop.svc.cluster.local"}, Labels: map[string]string{"app": "web"}},
		{Kind: KubernetesService, Namespace: "shop", Name: "db", Hosts: []string{"db.shop.svc.cluster.local"}},
		se("shop", "egress", 0, []string{"api.example.com"}),
	}}
	changes := DiffScope(nil, mustScope(t, c), inv)
	assert.Equal(t, []ScopeChange{{Key: ServiceRef{Kind: KubernetesService, Namespace: "shop", Name: "web"}, Before: Local, After: Global}}, changes)
	assert.Empty(t, DiffScope(mustScope(t, c), mustScope(t, c), inv))
}

func TestCompileScopeErrors(t *testing.T) {
	_, err := CompileScope(&ScopeConfig{Domain: "*.x", DiscoveryAddress: "istiod", ServiceSettings: []ServiceSetting{{Hosts: []string{"*", "*.", "a.*.b"}}}})
	require.Error(t, err)
	assert.Equal(t, strings.Join([]string{
		`serviceSettings[0].hosts[1]: "*." is a wildcard without a domain`,
		`serviceSettings[0].hosts[2]: "a.*.b" is not a DNS name: label "*" must not contain '*' (allowed: a-z, 0-9 and "-")`,
		`DiscoveryAddress: "istiod" is not host:port`,
		`Domain: "*.x" is not a DNS name`,
	}, "\n"), err.Error(), "a serviceSettings host may be * alone, as Istio accepts it")
}

func FuzzLoadScope(f *testing.F) {
	f.Add([]byte("serviceScopeConfigs: [{scope: GLOBAL, namespaceSelector: {matchLabels: {a: b}}}]\nserviceSettings: [{settings: {clusterLocal: true}, hosts: ['*.x']}]\n"))
	f.Add([]byte("kind: IstioOperator\nspec: {meshConfig: {service_scope_configs: [{scope: 1}]}}\n"))
	for _, name := range slices.Sorted(maps.Keys(loadScopeShapes)) {
		f.Add([]byte(loadScopeShapes[name]))
	}
	for _, in := range slices.Sorted(maps.Keys(loadScopeRefusals)) {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := LoadScope(data)
		if err != nil {
			return
		}
		s, err := CompileScope(c)
		if err != nil {
			t.Fatalf("LoadScope accepted a config that does not compile: %v", err)
		}
		hosts := []string{"a.b.svc.cluster.local", "kube-dns.kube-system.svc.cluster.local", "kubernetes.default.svc.cluster.local"}
		if c != nil {
			for _, st := range c.ServiceSettings {
				hosts = append(hosts, st.Hosts...)
			}
		}
		for _, h := range hosts {
			for _, ls := range []labels.Set{nil, {"shared": "yes", "app": "x"}} {
				if got, e := s.Scope(ls, ls, h), s.Explain(ls, ls, h); got != e.Scope {
					t.Fatalf("Scope(%v, %s) = %s, Explain says %s", ls, h, got, e.Scope)
				}
			}
		}
		LintScope(c)
	})
}
