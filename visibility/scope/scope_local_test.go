package scope

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// setting is a serviceSettings entry marking hosts cluster-local or not.
func setting(local bool, hosts ...string) mesh.ServiceSetting {
	return mesh.ServiceSetting{Settings: mesh.ServiceSettingValues{ClusterLocal: local}, Hosts: hosts}
}

// everyServiceGlobal is a scope configuration that makes every service GLOBAL, so that a
// service's scope says whether its host is cluster-local.
func everyServiceGlobal(ss ...mesh.ServiceSetting) *settings {
	return &settings{ServiceScopeConfigs: []mesh.ServiceScope{{Scope: mesh.Global}}, ServiceSettings: ss}
}

// TestClusterLocalRules has a row per rule of cluster-local hosts, as Istio computes them.
func TestClusterLocalRules(t *testing.T) {
	const (
		kubeDNS = "kube-dns.kube-system.svc.cluster.local"
		k8s     = "kubernetes.default.svc.cluster.local"
		istiod  = "istiod.istio-system.svc.cluster.local"
		web     = "web.shop.svc.cluster.local"
	)
	tests := []struct {
		name  string
		c     *settings
		host  string
		local bool
	}{
		// Istio's defaults.
		{"default: *.kube-system.svc.<domain>", everyServiceGlobal(), kubeDNS, true},
		{"default: kubernetes.default.svc.<domain>", everyServiceGlobal(), k8s, true},
		{"default: the discovery address's host, istiod.istio-system.svc:15012 by default", everyServiceGlobal(), istiod, true},
		{"the defaults follow the cluster domain", &settings{Domain: "corp.internal", ServiceScopeConfigs: []mesh.ServiceScope{{Scope: mesh.Global}}},
			"istiod.istio-system.svc.corp.internal", true},
		{"the discovery address given: its host, with the domain appended", &settings{DiscoveryAddress: "istiod-canary.istio-system.svc:15012",
			ServiceScopeConfigs: []mesh.ServiceScope{{Scope: mesh.Global}}}, "istiod-canary.istio-system.svc.cluster.local", true},
		{"the discovery address given: the default istiod is then shared", &settings{DiscoveryAddress: "istiod-canary.istio-system.svc:15012",
			ServiceScopeConfigs: []mesh.ServiceScope{{Scope: mesh.Global}}}, istiod, false},
		{"a discovery host already ending with the domain gets nothing appended", &settings{DiscoveryAddress: istiod + ":15012",
			ServiceScopeConfigs: []mesh.ServiceScope{{Scope: mesh.Global}}}, istiod, true},
		{"a discovery host ending with the domain's text, without a dot, gets nothing appended (as Istio checks it)",
			&settings{DiscoveryAddress: "istiod.mycluster.local:15012", ServiceScopeConfigs: []mesh.ServiceScope{{Scope: mesh.Global}}}, "istiod.mycluster.local", true},
		{"not the bare parent of the wildcard default", everyServiceGlobal(), "kube-system.svc.cluster.local", false},
		{"other hosts are not cluster-local", everyServiceGlobal(), web, false},

		// Which clusterLocal: false settings drop a default.
		{"false on an exact default drops it", everyServiceGlobal(setting(false, k8s)), k8s, false},
		{"false on the discovery host drops it", everyServiceGlobal(setting(false, istiod)), istiod, false},
		{"false on the wildcard default drops it", everyServiceGlobal(setting(false, "*.kube-system.svc.cluster.local")), kubeDNS, false},
		{"false on one host ending in .kube-system.svc.<domain> drops the whole wildcard default",
			everyServiceGlobal(setting(false, "metrics.kube-system.svc.cluster.local")), kubeDNS, false},
		{"false on a narrower wildcard under it drops the wildcard default",
			everyServiceGlobal(setting(false, "*.a.kube-system.svc.cluster.local")), kubeDNS, false},
		{"false on the bare parent kube-system.svc.<domain> drops nothing", everyServiceGlobal(setting(false, "kube-system.svc.cluster.local")), kubeDNS, true},
		{"false on a host under an exact default drops nothing", everyServiceGlobal(setting(false, "x."+k8s)), k8s, true},
		{"false on a wildcard covering an exact default drops nothing: the exact default wins",
			everyServiceGlobal(setting(false, "*.default.svc.cluster.local")), k8s, true},
		{"false on a wildcard covering an exact default: its other hosts are not cluster-local",
			everyServiceGlobal(setting(true, "*.default.svc.cluster.local"), setting(false, "*.default.svc.cluster.local")), "db.default.svc.cluster.local", false},
		{"false on a wider wildcard drops nothing: the longer default wins", everyServiceGlobal(setting(false, "*.svc.cluster.local")), kubeDNS, true},
		{"false in upper case still drops the wildcard default (its suffix matches)",
			everyServiceGlobal(setting(false, "A.kube-system.svc.cluster.local")), kubeDNS, false},
		{"false with a trailing dot drops nothing", everyServiceGlobal(setting(false, "metrics.kube-system.svc.cluster.local.")), kubeDNS, true},
		{"true settings drop nothing", everyServiceGlobal(setting(true, "metrics.kube-system.svc.cluster.local")), kubeDNS, true},
		{"a dropped default stays dropped when a later setting marks its host cluster-local again",
			everyServiceGlobal(setting(false, "metrics.kube-system.svc.cluster.local"), setting(true, "metrics.kube-system.svc.cluster.local")), kubeDNS, false},
		{"... and the later setting marks its own host", everyServiceGlobal(setting(false, "metrics.kube-system.svc.cluster.local"),
			setting(true, "metrics.kube-system.svc.cluster.local")), "metrics.kube-system.svc.cluster.local", true},
		{"a later setting of the default's own pattern brings it back", everyServiceGlobal(setting(false, "*.kube-system.svc.cluster.local"),
			setting(true, "*.kube-system.svc.cluster.local")), kubeDNS, true},

		// How setting hosts match.
		{"an exact setting", everyServiceGlobal(setting(true, web)), web, true},
		{"exactly as written: no case folding", everyServiceGlobal(setting(true, "Web.Shop.svc.cluster.local")), web, false},
		{"exactly as written: a trailing dot stays", everyServiceGlobal(setting(true, web+".")), web, false},
		{"a wildcard does not match its bare parent", everyServiceGlobal(setting(true, "*.shop.svc.cluster.local")), "shop.svc.cluster.local", false},
		{"a partial wildcard matches every host ending with what follows its *", everyServiceGlobal(setting(true, "*-canary.shop.svc.cluster.local")),
			"web-canary.shop.svc.cluster.local", true},
		{"a partial wildcard: another host", everyServiceGlobal(setting(true, "*-canary.shop.svc.cluster.local")), web, false},
		{"* alone matches every host", everyServiceGlobal(setting(true, "*")), web, true},
		{"exact over wildcard", everyServiceGlobal(setting(true, "*"), setting(false, web)), web, false},
		{"the longest wildcard decides", everyServiceGlobal(setting(true, "*.shop.svc.cluster.local"), setting(false, "*.svc.cluster.local")), web, true},
		{"a partial wildcard longer than a full one decides", everyServiceGlobal(setting(false, "*.shop.svc.cluster.local"), setting(true, "*b.shop.svc.cluster.local")),
			web, true},
		{"one pattern given twice: the later wins", everyServiceGlobal(setting(true, web), setting(false, web)), web, false},
		{"a default over a setting of the same pattern: cluster-local", everyServiceGlobal(setting(true, k8s)), k8s, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustScope(t, tt.c)
			want := mesh.Global
			if tt.local {
				want = mesh.Local
			}
			assert.Equal(t, want, s.Scope(labels.Set{}, nil, tt.host))
			e := s.Explain(labels.Set{}, nil, tt.host)
			assert.Equal(t, tt.local, e.ClusterLocal, e.Reason)
			assert.Equal(t, want, e.Scope)
		})
	}
}

// TestClusterLocalExplain: the explanation names the default or setting that decided, and
// the setting that dropped a default.
func TestClusterLocalExplain(t *testing.T) {
	tests := []struct {
		name string
		c    *settings
		host string
		want Explanation
	}{
		{"a default", everyServiceGlobal(), "kube-dns.kube-system.svc.cluster.local", Explanation{Scope: mesh.Local, Config: 0,
			Pattern: "*.kube-system.svc.cluster.local", Setting: -1, ClusterLocal: true,
			Reason: "serviceScopeConfigs[0] makes it GLOBAL, but kube-dns.kube-system.svc.cluster.local is cluster-local (Istio's default *.kube-system.svc.cluster.local), and local wins"}},
		{"the discovery address", everyServiceGlobal(), "istiod.istio-system.svc.cluster.local", Explanation{Scope: mesh.Local, Config: 0,
			Pattern: "istiod.istio-system.svc.cluster.local", Setting: -1, ClusterLocal: true,
			Reason: "serviceScopeConfigs[0] makes it GLOBAL, but istiod.istio-system.svc.cluster.local is cluster-local (Istio's default istiod.istio-system.svc.cluster.local (the host of defaultConfig.discoveryAddress istiod.istio-system.svc:15012)), and local wins"}},
		{"a default over a setting of the same pattern", everyServiceGlobal(setting(true, "kubernetes.default.svc.cluster.local")), "kubernetes.default.svc.cluster.local",
			Explanation{Scope: mesh.Local, Config: 0, Pattern: "kubernetes.default.svc.cluster.local", Setting: -1, ClusterLocal: true,
				Reason: "serviceScopeConfigs[0] makes it GLOBAL, but kubernetes.default.svc.cluster.local is cluster-local (Istio's default kubernetes.default.svc.cluster.local), and local wins"}},
		{"a setting", everyServiceGlobal(setting(false, "*.shop.svc.cluster.local")), "web.shop.svc.cluster.local", Explanation{Scope: mesh.Global, Config: 0,
			Pattern: "*.shop.svc.cluster.local", Setting: 0,
			Reason: "serviceScopeConfigs[0] (namespaces all, services all) makes it GLOBAL; web.shop.svc.cluster.local is not cluster-local (serviceSettings[0] host *.shop.svc.cluster.local)"}},
		{"a dropped default", everyServiceGlobal(setting(false, "metrics.kube-system.svc.cluster.local")), "kube-dns.kube-system.svc.cluster.local",
			Explanation{Scope: mesh.Global, Config: 0, Setting: -1,
				Dropped: &DroppedDefault{Default: "*.kube-system.svc.cluster.local", Setting: 0, Host: 0},
				Reason: "serviceScopeConfigs[0] (namespaces all, services all) makes it GLOBAL; kube-dns.kube-system.svc.cluster.local is not cluster-local (no pattern matches); " +
					"Istio's default *.kube-system.svc.cluster.local would make it cluster-local, but serviceSettings[0] host metrics.kube-system.svc.cluster.local (clusterLocal: false) dropped it"}},
		{"a false on the default's own host drops it, and says so", everyServiceGlobal(setting(false, "kubernetes.default.svc.cluster.local")), "kubernetes.default.svc.cluster.local",
			Explanation{Scope: mesh.Global, Config: 0, Pattern: "kubernetes.default.svc.cluster.local", Setting: 0,
				Dropped: &DroppedDefault{Default: "kubernetes.default.svc.cluster.local", Setting: 0, Host: 0},
				Reason: "serviceScopeConfigs[0] (namespaces all, services all) makes it GLOBAL; kubernetes.default.svc.cluster.local is not cluster-local (serviceSettings[0] host kubernetes.default.svc.cluster.local); " +
					"Istio's default kubernetes.default.svc.cluster.local would make it cluster-local, but serviceSettings[0] host kubernetes.default.svc.cluster.local (clusterLocal: false) dropped it"}},
		{"a dropped default under a less specific setting", everyServiceGlobal(setting(false, "*.svc.cluster.local"), setting(false, "a.kube-system.svc.cluster.local")),
			"kube-dns.kube-system.svc.cluster.local", Explanation{Scope: mesh.Global, Config: 0, Pattern: "*.svc.cluster.local", Setting: 0,
				Dropped: &DroppedDefault{Default: "*.kube-system.svc.cluster.local", Setting: 1, Host: 0},
				Reason: "serviceScopeConfigs[0] (namespaces all, services all) makes it GLOBAL; kube-dns.kube-system.svc.cluster.local is not cluster-local (serviceSettings[0] host *.svc.cluster.local); " +
					"Istio's default *.kube-system.svc.cluster.local would make it cluster-local, but serviceSettings[1] host a.kube-system.svc.cluster.local (clusterLocal: false) dropped it"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, mustScope(t, tt.c).Explain(labels.Set{}, nil, tt.host))
		})
	}
	e := mustScope(t, everyServiceGlobal()).Explain(nil, nil, "web.shop.svc.cluster.local")
	assert.Equal(t, Explanation{Scope: mesh.Local, NamespaceUnknown: true, Config: -1, Setting: -1,
		Reason: "the namespace is not known (no labels): Istio skips every serviceScopeConfig for a service whose namespace it has not seen, so it is LOCAL"}, e)
}

// TestLintScopeSettings has a row per setting lint.
func TestLintScopeSettings(t *testing.T) {
	tests := []struct {
		name string
		c    *settings
		want []string
	}{
		{"nothing to say", &settings{ServiceSettings: []mesh.ServiceSetting{setting(true, "*.shop.svc.cluster.local"), setting(false, "*.kube-system.svc.cluster.local")}}, nil},
		{"a false on the bare parent", &settings{ServiceSettings: []mesh.ServiceSetting{setting(false, "kube-system.svc.cluster.local")}}, []string{
			"WARNING ScopeDefaultKept serviceSettings[0].hosts[0]: clusterLocal: false on kube-system.svc.cluster.local does not drop Istio's default *.kube-system.svc.cluster.local: " +
				"only a host equal to an exact default, or ending in what follows a wildcard default's *, drops it, so it stays cluster-local"}},
		{"a false wildcard covering defaults", &settings{ServiceSettings: []mesh.ServiceSetting{setting(false, "*.svc.cluster.local")}}, []string{
			"WARNING ScopeDefaultKept serviceSettings[0].hosts[0]: clusterLocal: false on *.svc.cluster.local does not drop Istio's default *.kube-system.svc.cluster.local, " +
				"kubernetes.default.svc.cluster.local, istiod.istio-system.svc.cluster.local: only a host equal to an exact default, or ending in what follows a wildcard default's *, drops it, so it stays cluster-local"}},
		{"a false on one host drops the wildcard default", &settings{ServiceSettings: []mesh.ServiceSetting{setting(false, "metrics.kube-system.svc.cluster.local")}}, []string{
			"WARNING ScopeDefaultDropped serviceSettings[0].hosts[0]: clusterLocal: false on metrics.kube-system.svc.cluster.local drops Istio's default *.kube-system.svc.cluster.local " +
				"for every host under it, not only for this one: no host ending in .kube-system.svc.cluster.local is cluster-local by default any more"}},
		{"a true after the false that dropped the default", &settings{ServiceSettings: []mesh.ServiceSetting{
			setting(false, "metrics.kube-system.svc.cluster.local"), setting(true, "metrics.kube-system.svc.cluster.local")}}, []string{
			"NOTE ScopeSettingOverridden serviceSettings[0].hosts[0]: metrics.kube-system.svc.cluster.local is given again by serviceSettings[1], which wins",
			"WARNING ScopeDefaultDropped serviceSettings[0].hosts[0]: clusterLocal: false on metrics.kube-system.svc.cluster.local drops Istio's default *.kube-system.svc.cluster.local " +
				"for every host under it, not only for this one: no host ending in .kube-system.svc.cluster.local is cluster-local by default any more",
			"WARNING ScopeDefaultStaysDropped serviceSettings[1].hosts[0]: metrics.kube-system.svc.cluster.local is cluster-local again, but serviceSettings[0] host " +
				"metrics.kube-system.svc.cluster.local dropped Istio's default *.kube-system.svc.cluster.local, which stays dropped: the other hosts ending in .kube-system.svc.cluster.local are not cluster-local"}},
		{"the default's own pattern again brings it back", &settings{ServiceSettings: []mesh.ServiceSetting{
			setting(false, "*.kube-system.svc.cluster.local"), setting(true, "*.kube-system.svc.cluster.local")}}, []string{
			"NOTE ScopeSettingOverridden serviceSettings[0].hosts[0]: *.kube-system.svc.cluster.local is given again by serviceSettings[1], which wins"}},
		{"a false on a default in upper case", &settings{ServiceSettings: []mesh.ServiceSetting{setting(false, "Kubernetes.default.svc.cluster.local")}}, []string{
			"ERROR ScopeHostNeverMatches serviceSettings[0].hosts[0]: Kubernetes.default.svc.cluster.local has an upper-case letter: hosts match exactly as written, and a Kubernetes Service's host is lower case without one, so it matches no service",
			"WARNING ScopeDefaultKept serviceSettings[0].hosts[0]: clusterLocal: false on Kubernetes.default.svc.cluster.local does not drop Istio's default kubernetes.default.svc.cluster.local: " +
				"it has upper-case letters, and Istio compares hosts as written, so the default stays cluster-local"}},
		{"a false on a default with a trailing dot", &settings{ServiceSettings: []mesh.ServiceSetting{setting(false, "metrics.kube-system.svc.cluster.local.")}}, []string{
			"ERROR ScopeHostNeverMatches serviceSettings[0].hosts[0]: metrics.kube-system.svc.cluster.local. ends with a dot: hosts match exactly as written, and a Kubernetes Service's host is lower case without one, so it matches no service",
			"WARNING ScopeDefaultKept serviceSettings[0].hosts[0]: clusterLocal: false on metrics.kube-system.svc.cluster.local. does not drop Istio's default *.kube-system.svc.cluster.local: " +
				"it ends with a dot, and Istio compares hosts as written, so the default stays cluster-local"}},
		{"a false on a default without the cluster domain", &settings{ServiceSettings: []mesh.ServiceSetting{setting(false, "istiod.istio-system.svc")}}, []string{
			"WARNING ScopeDefaultKept serviceSettings[0].hosts[0]: clusterLocal: false on istiod.istio-system.svc does not drop Istio's default istiod.istio-system.svc.cluster.local (the host of defaultConfig.discoveryAddress istiod.istio-system.svc:15012): " +
				"it leaves out the cluster domain .cluster.local, and Istio compares hosts as written, so the default stays cluster-local"}},
		{"case and a trailing dot", &settings{ServiceSettings: []mesh.ServiceSetting{setting(true, "Web.Shop.svc.cluster.local", "web.shop.svc.cluster.local.")}}, []string{
			"ERROR ScopeHostNeverMatches serviceSettings[0].hosts[0]: Web.Shop.svc.cluster.local has an upper-case letter: hosts match exactly as written, and a Kubernetes Service's host is lower case without one, so it matches no service",
			"ERROR ScopeHostNeverMatches serviceSettings[0].hosts[1]: web.shop.svc.cluster.local. ends with a dot: hosts match exactly as written, and a Kubernetes Service's host is lower case without one, so it matches no service"}},
		{"patterns given twice compare as written", &settings{ServiceSettings: []mesh.ServiceSetting{setting(true, "a.x"), setting(false, "a.x.")}}, []string{
			"ERROR ScopeHostNeverMatches serviceSettings[1].hosts[0]: a.x. ends with a dot: hosts match exactly as written, and a Kubernetes Service's host is lower case without one, so it matches no service"}},
		{"the discovery address in upper case", &settings{DiscoveryAddress: "Istiod.istio-system.svc:15012"}, []string{
			"ERROR ScopeHostNeverMatches defaultConfig.discoveryAddress: Istiod.istio-system.svc:15012 makes Istiod.istio-system.svc.cluster.local cluster-local, which has an upper-case letter: " +
				"hosts match exactly as written, so it matches no Kubernetes Service (istiod is shared like any other service)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range mustScope(t, tt.c).Lint() {
				got = append(got, f.String())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestDiffScopeUnknownNamespace: a service whose namespace the inventory lacks is LOCAL on
// both sides, so it never changes.
func TestDiffScopeUnknownNamespace(t *testing.T) {
	inv := &inventory.Inventory{Namespaces: map[string]map[string]string{"shop": nil}, Services: []inventory.Service{
		{Kind: inventory.KubernetesService, Namespace: "shop", Name: "web", Hosts: []string{"web.shop.svc.cluster.local"}},
		{Kind: inventory.KubernetesService, Namespace: "ghost", Name: "web", Hosts: []string{"web.ghost.svc.cluster.local"}},
	}}
	assert.Equal(t, []Change{{Key: inventory.ServiceRef{Kind: inventory.KubernetesService, Namespace: "shop", Name: "web"}, Before: mesh.Local, After: mesh.Global}},
		Diff(mustScopeOver(t, nil, inv), mustScopeOver(t, everyServiceGlobal(), inv)), "a namespace without labels (nil) is known; one missing is not")
}

// TestDiscoveryAddress: the host of defaultConfig.discoveryAddress, read by mesh.Load from
// the same mesh configuration, is cluster-local; the discovery address alone changes no
// scope.
func TestDiscoveryAddress(t *testing.T) {
	m, err := mesh.Load([]byte("meshConfig:\n  defaultConfig: {discoveryAddress: 'istiod-1.istio-system.svc:15012', holdApplicationUntilProxyStarts: true}\n  serviceScopeConfigs: [{scope: GLOBAL}]\n"))
	require.NoError(t, err)
	s, err := New(m, nil)
	require.NoError(t, err)
	assert.Equal(t, mesh.Local, s.Scope(labels.Set{}, nil, "istiod-1.istio-system.svc.cluster.local"))
	assert.Equal(t, mesh.Global, s.Scope(labels.Set{}, nil, "istiod.istio-system.svc.cluster.local"))

	m, err = mesh.Load([]byte("meshConfig:\n  defaultConfig: {discoveryAddress: 'istiod-1.istio-system.svc:15012'}\n"))
	require.NoError(t, err)
	s, err = New(m, nil)
	require.NoError(t, err)
	for _, host := range []string{"istiod.istio-system.svc.cluster.local", "web.shop.svc.cluster.local"} {
		assert.Equal(t, mesh.Local, s.Scope(labels.Set{}, nil, host), "the discovery address alone changes no scope")
	}
}
