package scope

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// sharedShop makes the services labelled export=true in namespaces labelled shared=true
// GLOBAL.
var sharedShop = &settings{ServiceScopeConfigs: []mesh.ServiceScope{{NamespaceSelector: istiotest.LabelSelector("shared", "true"), ServicesSelector: istiotest.LabelSelector("export", "true"), Scope: mesh.Global}}}

func ref(ns, name string) inventory.ServiceRef {
	return inventory.ServiceRef{Kind: inventory.KubernetesService, Namespace: ns, Name: name}
}

// TestServices: every Kubernetes Service of the inventory with its scope, sorted by
// namespace and name, whatever the inventory's order; ServiceEntries are not scoped.
func TestServices(t *testing.T) {
	inv := &inventory.Inventory{Namespaces: map[string]map[string]string{"shop": {"shared": "true"}, "kube-system": {"shared": "true"}, "dev": nil},
		Services: []inventory.Service{
			kubeService("shop", "web", map[string]string{"export": "true"}),
			se("shop", "payments", "payments.example.com"),
			kubeService("kube-system", "kube-dns", map[string]string{"export": "true"}),
			kubeService("dev", "web", map[string]string{"export": "true"}),
			kubeService("ghost", "web", map[string]string{"export": "true"}),
			kubeService("shop", "db", nil),
			{Kind: inventory.KubernetesService, Namespace: "shop", Name: "api", Labels: map[string]string{"export": "true"}}, // no Hosts: Istio's host
		}}
	want := []Scoped{
		{ref("dev", "web"), "web.dev.svc.cluster.local", mesh.Local, "no GLOBAL config matches both the namespace's and the service's labels: LOCAL by default"},
		{ref("ghost", "web"), "web.ghost.svc.cluster.local", mesh.Local,
			"namespace ghost is not in the inventory: Istio skips every serviceScopeConfig for a service whose namespace it does not know, so it is LOCAL"},
		{ref("kube-system", "kube-dns"), "kube-dns.kube-system.svc.cluster.local", mesh.Local,
			"serviceScopeConfigs[0] makes it GLOBAL, but kube-dns.kube-system.svc.cluster.local is cluster-local (Istio's default *.kube-system.svc.cluster.local), and local wins"},
		{ref("shop", "api"), "api.shop.svc.cluster.local", mesh.Global, "serviceScopeConfigs[0] (namespaces shared=true, services export=true) makes it GLOBAL"},
		{ref("shop", "db"), "db.shop.svc.cluster.local", mesh.Local, "no GLOBAL config matches both the namespace's and the service's labels: LOCAL by default"},
		{ref("shop", "web"), "web.shop.svc.cluster.local", mesh.Global, "serviceScopeConfigs[0] (namespaces shared=true, services export=true) makes it GLOBAL"},
	}
	assert.Equal(t, want, mustScopeOver(t, sharedShop, inv).Services())
	for i := range want {
		want[i].Scope, want[i].Reason = mesh.Local, "no serviceScopeConfigs: every service is LOCAL"
	}
	assert.Equal(t, want, mustScopeOver(t, nil, inv).Services(), "no mesh configuration: every service LOCAL")

	inv.Domain = "Corp.Internal."
	for i := range inv.Services {
		inv.Services[i].Hosts = nil
	}
	got := mustScopeOver(t, sharedShop, inv).Services()
	assert.Equal(t, "web.shop.svc.corp.internal", got[len(got)-1].Host, "the cluster domain, normalized")
	assert.Nil(t, mustScope(t, sharedShop).Services(), "no inventory: no services")
	assert.Nil(t, (*Scoper)(nil).Services())
}

// TestNewRefusesAnotherHost: a Kubernetes Service whose Hosts name a host other than the one
// Istio gives it is refused; a host differing only in case or a trailing dot is the same.
func TestNewRefusesAnotherHost(t *testing.T) {
	inv := &inventory.Inventory{Services: []inventory.Service{
		kubeService("shop", "web", nil),
		{Kind: inventory.KubernetesService, Namespace: "shop", Name: "api", Hosts: []string{"API.shop.svc.cluster.local."}},
		{Kind: inventory.KubernetesService, Namespace: "shop", Name: "db", Hosts: []string{"db.shop.svc.cluster.local", "db.shop.svc.corp.internal"}},
		se("shop", "egress", "api.example.com"),
	}}
	_, err := New(nil, inv)
	require.Error(t, err)
	assert.Equal(t, `Services[2] (KubernetesService shop/db): Hosts[1]: "db.shop.svc.corp.internal" is not the host Istio gives the Service, db.shop.svc.cluster.local (<name>.<namespace>.svc.<cluster domain>)`, err.Error())
	var fe *FieldError
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, "db.shop.svc.corp.internal", fe.Value)

	inv.Domain = "corp.internal"
	_, err = New(nil, inv)
	require.Error(t, err)
	assert.Equal(t, 3, strings.Count(err.Error(), "is not the host Istio gives the Service"), "in the domain corp.internal: %v", err)

	inv.Domain = "*.bad"
	_, err = New(&mesh.Config{ServiceScopeConfigs: []mesh.ServiceScope{{Scope: "global"}}}, inv)
	require.Error(t, err)
	assert.Equal(t, strings.Join([]string{
		`serviceScopeConfigs[0].scope: Unsupported value: "global": supported values: "LOCAL", "GLOBAL"`,
		`Domain: "*.bad" is not a DNS name`,
	}, "\n"), err.Error(), "every problem of both at once; hosts are checked against a valid inventory only")
}

// TestDiffInventoriesDiffer: Diff compares the services of both inventories, by namespace
// and name; a service in one of them only is reported with "" on the other side.
func TestDiffInventoriesDiffer(t *testing.T) {
	ns := map[string]map[string]string{"shop": {"shared": "true"}}
	before := &inventory.Inventory{Namespaces: ns, Services: []inventory.Service{
		kubeService("shop", "gone", nil), kubeService("shop", "web", nil), kubeService("shop", "same", map[string]string{"export": "true"}),
	}}
	after := &inventory.Inventory{Namespaces: ns, Services: []inventory.Service{
		kubeService("shop", "same", map[string]string{"export": "true"}), kubeService("shop", "web", map[string]string{"export": "true"}), kubeService("shop", "added", nil),
	}}
	b, a := mustScopeOver(t, sharedShop, before), mustScopeOver(t, sharedShop, after)
	assert.Equal(t, []Change{
		{Key: ref("shop", "added"), After: mesh.Local},
		{Key: ref("shop", "gone"), Before: mesh.Local},
		{Key: ref("shop", "web"), Before: mesh.Local, After: mesh.Global},
	}, Diff(b, a))
	assert.Equal(t, []Change{
		{Key: ref("shop", "added"), Before: mesh.Local},
		{Key: ref("shop", "gone"), After: mesh.Local},
		{Key: ref("shop", "web"), Before: mesh.Global, After: mesh.Local},
	}, Diff(a, b), "the other way round")
	assert.Equal(t, []Change{
		{Key: ref("shop", "gone"), Before: mesh.Local}, {Key: ref("shop", "same"), Before: mesh.Global}, {Key: ref("shop", "web"), Before: mesh.Local},
	}, Diff(b, nil), "a nil Scoper has no services")
	assert.Empty(t, Diff(nil, nil))
	assert.Empty(t, Diff(b, b))
}

// TestNilScoper: a nil *Scoper answers as New(nil, nil) does.
func TestNilScoper(t *testing.T) {
	var s *Scoper
	zero := mustScope(t, nil)
	for _, host := range []string{"web.shop.svc.cluster.local", "kube-dns.kube-system.svc.cluster.local"} {
		for _, ns := range []labels.Labels{nil, labels.Set{}} {
			assert.Equal(t, mesh.Local, s.Scope(ns, nil, host))
			assert.Equal(t, zero.Explain(ns, nil, host), s.Explain(ns, nil, host))
		}
	}
	e := s.Explain(labels.Set{}, nil, "kube-dns.kube-system.svc.cluster.local")
	assert.Equal(t, Explanation{Scope: mesh.Local, Config: -1, Pattern: "*.kube-system.svc.cluster.local", Setting: -1, ClusterLocal: true,
		Reason: "no serviceScopeConfigs: every service is LOCAL"}, e)
	assert.Nil(t, s.Lint())
	assert.Nil(t, zero.Lint(), "Istio's default mesh configuration has nothing to say")
}

// TestMultiNetworkFlag: istiod applies serviceScopeConfigs only with
// AMBIENT_ENABLE_MULTI_NETWORK=true; a release setting it false makes every service LOCAL,
// one setting it true or not saying answers as the configuration does with the flag on.
func TestMultiNetworkFlag(t *testing.T) {
	inv := &inventory.Inventory{
		Namespaces: map[string]map[string]string{"shop": {"shared": "yes"}},
		Services:   []inventory.Service{{Kind: inventory.KubernetesService, Namespace: "shop", Name: "web", Hosts: []string{"web.shop.svc.cluster.local"}}},
	}
	configs := []mesh.ServiceScope{{NamespaceSelector: istiotest.LabelSelector("shared", "yes"), Scope: mesh.Global}}
	for flag, want := range map[string]mesh.Scope{"": mesh.Global, "true": mesh.Global, "1": mesh.Global, "false": mesh.Local} {
		m := &mesh.Config{ServiceScopeConfigs: configs}
		if flag != "" {
			m.PilotEnv = map[string]string{mesh.AmbientMultiNetwork: flag}
		}
		s, err := New(m, inv)
		require.NoError(t, err)
		assert.Equal(t, want, s.Scope(labels.Set{"shared": "yes"}, labels.Set{}, "web.shop.svc.cluster.local"), flag)
		require.Len(t, s.Services(), 1)
		assert.Equal(t, want, s.Services()[0].Scope, flag)
		if want == mesh.Local {
			e := s.Explain(labels.Set{"shared": "yes"}, labels.Set{}, "web.shop.svc.cluster.local")
			assert.Equal(t, -1, e.Config)
			assert.Equal(t, "istiod runs with AMBIENT_ENABLE_MULTI_NETWORK=false: it applies no serviceScopeConfigs, so every service is LOCAL", e.Reason)
			assert.Equal(t, "Istio 1.31 (none given: the newest release meshscope models; AMBIENT_ENABLE_MULTI_NETWORK=false)", s.Release().String())
		}
	}
	assert.Equal(t, mesh.Release{}, (*Scoper)(nil).Release())
}
