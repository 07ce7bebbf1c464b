package scope_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
	"github.com/meshscope/meshscope/visibility/scope"
)

// ExampleScoper_Services reads a mesh configuration and a cluster's objects, and lists
// which Kubernetes Services the cluster shares with the other clusters of the mesh: those
// labelled export=true in a namespace labelled shared=true, but not kube-dns, which Istio
// keeps cluster-local whatever the configuration says. Diff says what a change of the
// configuration would flip.
func ExampleScoper_Services() {
	m, err := mesh.Load([]byte(`
meshConfig:
  serviceScopeConfigs:
  - namespaceSelector: {matchLabels: {shared: "true"}}
    servicesSelector: {matchLabels: {export: "true"}}
    scope: GLOBAL
`))
	if err != nil {
		panic(err)
	}
	inv, err := inventory.Load([]byte(`
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: orders, labels: {shared: "true"}}}
- {apiVersion: v1, kind: Namespace, metadata: {name: kube-system, labels: {shared: "true"}}}
- {apiVersion: v1, kind: Namespace, metadata: {name: billing}}
- {apiVersion: v1, kind: Service, metadata: {name: api, namespace: orders, labels: {export: "true"}}, spec: {clusterIP: 10.0.0.1}}
- {apiVersion: v1, kind: Service, metadata: {name: db, namespace: orders}, spec: {clusterIP: 10.0.0.2}}
- {apiVersion: v1, kind: Service, metadata: {name: kube-dns, namespace: kube-system, labels: {export: "true"}}, spec: {clusterIP: 10.0.0.10}}
- {apiVersion: v1, kind: Service, metadata: {name: api, namespace: billing, labels: {export: "true"}}, spec: {clusterIP: 10.0.0.3}}
`), "cluster.local")
	if err != nil {
		panic(err)
	}
	s, err := scope.New(m, inv)
	if err != nil {
		panic(err)
	}
	for _, svc := range s.Services() {
		fmt.Printf("%-20s %s\n", svc.Service.Namespace+"/"+svc.Service.Name, svc.Scope)
	}

	none, err := scope.New(nil, inv) // no serviceScopeConfigs: every service LOCAL
	if err != nil {
		panic(err)
	}
	for _, c := range scope.Diff(none, s) {
		fmt.Printf("%s: %s -> %s\n", c.Key, c.Before, c.After)
	}
	// Output:
	// billing/api          LOCAL
	// kube-system/kube-dns LOCAL
	// orders/api           GLOBAL
	// orders/db            LOCAL
	// KubernetesService orders/api: LOCAL -> GLOBAL
}

// ExampleScoper_Scope_clusterLocalDefaults shows the hosts Istio keeps cluster-local
// without being told: every service in kube-system, the kubernetes API service, and the
// host of the discovery address (istiod). Even a configuration that makes every service
// GLOBAL shares none of them; and a service whose namespace is not known is LOCAL.
func ExampleScoper_Scope_clusterLocalDefaults() {
	m, err := mesh.Load([]byte(`
meshConfig:
  defaultConfig:
    discoveryAddress: istiod-canary.istio-system.svc:15012
  serviceScopeConfigs:
  - scope: GLOBAL
`))
	if err != nil {
		panic(err)
	}
	s, err := scope.New(m, nil)
	if err != nil {
		panic(err)
	}
	for _, host := range []string{
		"kube-dns.kube-system.svc.cluster.local",
		"kubernetes.default.svc.cluster.local",
		"istiod-canary.istio-system.svc.cluster.local",
		"istiod.istio-system.svc.cluster.local",
		"web.shop.svc.cluster.local",
	} {
		fmt.Printf("%-45s %s\n", host, s.Scope(labels.Set{}, nil, host))
	}
	fmt.Println(s.Explain(nil, nil, "web.shop.svc.cluster.local").Reason)
	// Output:
	// kube-dns.kube-system.svc.cluster.local        LOCAL
	// kubernetes.default.svc.cluster.local          LOCAL
	// istiod-canary.istio-system.svc.cluster.local  LOCAL
	// istiod.istio-system.svc.cluster.local         GLOBAL
	// web.shop.svc.cluster.local                    GLOBAL
	// the namespace is not known (no labels): Istio skips every serviceScopeConfig for a service whose namespace it has not seen, so it is LOCAL
}

// ExampleScoper_Explain_droppedDefault shows which clusterLocal: false settings drop one of
// Istio's defaults: a host under *.kube-system.svc.cluster.local drops the whole wildcard
// default, for every kube-system service, while the bare parent kube-system.svc.cluster.local
// drops nothing. Lint says so.
func ExampleScoper_Explain_droppedDefault() {
	for _, host := range []string{"metrics.kube-system.svc.cluster.local", "kube-system.svc.cluster.local"} {
		m := &mesh.Config{
			ServiceScopeConfigs: []mesh.ServiceScope{{Scope: mesh.Global}},
			ServiceSettings: []mesh.ServiceSetting{{
				Settings: mesh.ServiceSettingValues{ClusterLocal: false},
				Hosts:    []string{host},
			}},
		}
		s, err := scope.New(m, nil)
		if err != nil {
			panic(err)
		}
		e := s.Explain(labels.Set{}, nil, "kube-dns.kube-system.svc.cluster.local")
		fmt.Printf("clusterLocal: false on %s: kube-dns is %s\n", host, e.Scope)
		for _, f := range s.Lint() {
			fmt.Println(" ", f.Code)
		}
	}
	// Output:
	// clusterLocal: false on metrics.kube-system.svc.cluster.local: kube-dns is GLOBAL
	//   ScopeDefaultDropped
	// clusterLocal: false on kube-system.svc.cluster.local: kube-dns is LOCAL
	//   ScopeDefaultKept
}
