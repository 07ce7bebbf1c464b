package visibility_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/visibility"
)

// ExampleScoper_Scope_clusterLocalDefaults shows the hosts Istio keeps cluster-local
// without being told: every service in kube-system, the kubernetes API service, and the
// host of the discovery address (istiod). Even a configuration that makes every service
// GLOBAL shares none of them; and a service whose namespace is not known is LOCAL.
func ExampleScoper_Scope_clusterLocalDefaults() {
	c, err := visibility.LoadScope([]byte(`
meshConfig:
  defaultConfig:
    discoveryAddress: istiod-canary.istio-system.svc:15012
  serviceScopeConfigs:
  - scope: GLOBAL
`))
	if err != nil {
		panic(err)
	}
	s, err := visibility.CompileScope(c)
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
// drops nothing. LintScope says so.
func ExampleScoper_Explain_droppedDefault() {
	for _, host := range []string{"metrics.kube-system.svc.cluster.local", "kube-system.svc.cluster.local"} {
		c := &visibility.ScopeConfig{
			ServiceScopeConfigs: []visibility.ServiceScope{{Scope: visibility.Global}},
			ServiceSettings: []visibility.ServiceSetting{{
				Settings: visibility.ServiceSettingValues{ClusterLocal: false},
				Hosts:    []string{host},
			}},
		}
		s, err := visibility.CompileScope(c)
		if err != nil {
			panic(err)
		}
		e := s.Explain(labels.Set{}, nil, "kube-dns.kube-system.svc.cluster.local")
		fmt.Printf("clusterLocal: false on %s: kube-dns is %s\n", host, e.Scope)
		for _, f := range visibility.LintScope(c) {
			fmt.Println(" ", f.Code)
		}
	}
	// Output:
	// clusterLocal: false on metrics.kube-system.svc.cluster.local: kube-dns is GLOBAL
	//   ScopeDefaultDropped
	// clusterLocal: false on kube-system.svc.cluster.local: kube-dns is LOCAL
	//   ScopeDefaultKept
}
