package scope

import (
	"testing"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/visibility/mesh"
)

// FuzzScoper: every mesh configuration mesh.Load accepts compiles (New), and for it Scope
// and Explain agree with each other and with the reference, for the setting hosts, Istio's
// defaults and a service host, in a known and an unknown namespace; Lint does not fail.
// (FuzzLoadScope in package mesh fuzzes the loading.)
func FuzzScoper(f *testing.F) {
	f.Add([]byte("serviceScopeConfigs: [{scope: GLOBAL, namespaceSelector: {matchLabels: {a: b}}}]\nserviceSettings: [{settings: {clusterLocal: true}, hosts: ['*.x']}]\n"))
	f.Add([]byte("kind: IstioOperator\nspec: {meshConfig: {service_scope_configs: [{scope: 1}]}}\n"))
	f.Add([]byte("meshConfig:\n  defaultConfig: {discoveryAddress: 'istiod-1.istio-system.svc:15012'}\n  serviceScopeConfigs: [{scope: GLOBAL, servicesSelector: {matchExpressions: [{key: app, operator: In, values: [x]}]}}]\n"))
	f.Add([]byte("serviceScopeConfigs: [{scope: GLOBAL}]\nserviceSettings: [{settings: {clusterLocal: false}, hosts: [metrics.kube-system.svc.cluster.local, '*.svc.cluster.local']}, {settings: {clusterLocal: true}, hosts: ['*-canary.shop.svc.cluster.local', Web.shop.svc.cluster.local.]}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := mesh.Load(data)
		if err != nil {
			return
		}
		s, err := New(m, nil)
		if err != nil {
			t.Fatalf("mesh.Load accepted a config that does not compile: %v", err)
		}
		hosts := []string{"a.b.svc.cluster.local", "kube-dns.kube-system.svc.cluster.local", "kubernetes.default.svc.cluster.local", "istiod.istio-system.svc.cluster.local"}
		for _, st := range m.ServiceSettings {
			hosts = append(hosts, st.Hosts...)
		}
		for _, h := range hosts {
			for _, ls := range []labels.Set{nil, {"shared": "yes", "app": "x"}} {
				got, e := s.Scope(ls, ls, h), s.Explain(ls, ls, h)
				if got != e.Scope {
					t.Fatalf("Scope(%v, %s) = %s, Explain says %s", ls, h, got, e.Scope)
				}
				if want, local := refScope(t, m, "cluster.local", ls, ls, h); got != want || e.ClusterLocal != local {
					t.Fatalf("Scope(%v, %s) = %s (cluster-local %t); the reference says %s (%t)", ls, h, got, e.ClusterLocal, want, local)
				}
			}
		}
		s.Lint()
	})
}
