package sidecar

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/visibility/inventory"
)

// bookinfo is Istio's bookinfo sample as a cluster runs it: its four Services in default,
// istiod and the ingress gateway in istio-system, and, with extra, as many ServiceEntries of
// external APIs in default; no Sidecar, so a proxy of default receives every host.
func bookinfo(extra int) inventory.Inventory {
	inv := inventory.Inventory{Namespaces: map[string]map[string]string{"default": nil, "istio-system": nil}}
	for i, name := range []string{"productpage", "reviews", "ratings", "details"} {
		inv.Services = append(inv.Services, kubeService("default", name, i, 9080))
	}
	inv.Services = append(inv.Services, kubeService("istio-system", "istiod", 10, 15010, 15012, 443, 15014), kubeService("istio-system", "istio-ingressgateway", 11, 80, 443, 15021))
	for i := range extra {
		inv.Services = append(inv.Services, se("default", fmt.Sprintf("ext%d", i), 20+i, []string{fmt.Sprintf("api%d.example.com", i)}))
	}
	return inv
}

func kubeService(ns, name string, age int, ports ...uint32) inventory.Service {
	s := se(ns, name, age, []string{name + "." + ns + ".svc.cluster.local"})
	s.Kind, s.Ports = inventory.KubernetesService, ports
	return s
}

// Proxy of bookinfo's default namespace receiving 6 hosts (its Services, istiod and the
// ingress gateway), 8, and 30: the proxies of a small mesh, where a receivedSet holds few
// hosts (BenchmarkReceivedSet measures the set itself, its scan beside a map).
func BenchmarkProxyBookinfo6(b *testing.B)  { benchmarkBookinfo(b, 0) }
func BenchmarkProxyBookinfo8(b *testing.B)  { benchmarkBookinfo(b, 2) }
func BenchmarkProxyBookinfo30(b *testing.B) { benchmarkBookinfo(b, 24) }

func benchmarkBookinfo(b *testing.B, extra int) {
	inv := bookinfo(extra)
	v, err := New(nil, &inv)
	require.NoError(b, err)
	require.Len(b, v.Proxy("default", nil).Services, 6+extra)
	b.ReportAllocs()
	for b.Loop() {
		v.Proxy("default", nil)
	}
}
