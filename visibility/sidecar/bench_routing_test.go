package sidecar

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/visibility/inventory"
)

// bigRoutedInventory is bigSidecarInventory(n) with routes and rules: per namespace a
// VirtualService for one of its hosts (exported to every namespace), routing to a host of
// the next namespace's by subset and mirroring to a Kubernetes Service of its own, and two
// DestinationRules for that host (one exported everywhere, one workload-selected), so that
// every Proxy selects VirtualServices, pulls in destinations and looks up merged rules.
func bigRoutedInventory(n int) inventory.Inventory {
	inv := bigSidecarInventory(n)
	nss := max(n/100, 2)
	ns := func(i int) string { return fmt.Sprintf("ns-%d", i%nss) }
	host := func(i int) string { return fmt.Sprintf("api%d.example.com", i%(n/3+1)) }
	for i := range nss {
		inv.VirtualServices = append(inv.VirtualServices, inventory.VirtualService{Namespace: ns(i), Name: "routes", CreationTime: t0,
			Hosts: []string{host(i + 5*nss), "*.svc.cluster.local"}, ExportTo: []string{"*"},
			HTTP: []inventory.HTTPRoute{{
				Route:  []inventory.Destination{{Host: host(i + 1 + 3*nss), Subset: "v1", Weight: 90}, {Host: host(i + 1 + 3*nss), Subset: "v2", Weight: 10}},
				Mirror: &inventory.Destination{Host: fmt.Sprintf("web%d", i+2*nss)},
			}}})
		for k, sel := range []map[string]string{nil, {"app": "web"}} {
			inv.DestinationRules = append(inv.DestinationRules, inventory.DestinationRule{Namespace: ns(i), Name: fmt.Sprint("rule", k), CreationTime: t0,
				Host: host(i + 1 + 3*nss), WorkloadSelector: sel, Subsets: []inventory.Subset{{Name: "v1"}, {Name: "v2"}}})
		}
	}
	return inv
}

// bigGammaInventory is bigRoutedInventory(n) with, per namespace, an HTTPRoute whose parent
// is the ServiceEntry of the VirtualService's host, splitting 90/10 between two backends of
// the host the VirtualService routes to (a Hostname) and mirroring to the same Kubernetes
// Service: istiod makes one VirtualService of each. With keep false the routes replace the
// VirtualServices, so that the inventory has as many VirtualServices as bigRoutedInventory(n).
func bigGammaInventory(n int, keep bool) inventory.Inventory {
	inv := bigRoutedInventory(n)
	if !keep {
		inv.VirtualServices = nil
	}
	nss := max(n/100, 2)
	ns := func(i int) string { return fmt.Sprintf("ns-%d", i%nss) }
	host := func(i int) string { return fmt.Sprintf("api%d.example.com", i%(n/3+1)) }
	for i := range nss {
		backend := func(w int32) inventory.BackendRef {
			return inventory.BackendRef{Group: gammaServiceEntryGroup, Kind: gammaHostnameKind, Name: host(i + 1 + 3*nss), Port: 443, Weight: w}
		}
		inv.Routes = append(inv.Routes, inventory.Route{Kind: inventory.HTTPRouteKind, Namespace: ns(i), Name: "routes", CreationTime: t0,
			ParentRefs: []inventory.ParentRef{{Group: gammaServiceEntryGroup, Kind: "ServiceEntry", Name: fmt.Sprint("s", i+5*nss)}},
			Rules: []inventory.RouteRule{{
				Matches: []inventory.RouteMatch{{Path: &inventory.PathMatch{Type: inventory.MatchPathPrefix, Value: "/"}}},
				Filters: []inventory.RouteFilter{{Type: inventory.FilterRequestMirror, RequestMirror: &inventory.MirrorFilter{
					BackendRef: inventory.BackendRef{Kind: "Service", Name: fmt.Sprint("web", i+2*nss), Port: 443}}}},
				BackendRefs: []inventory.BackendRef{backend(90), backend(10)},
			}}})
	}
	return inv
}

// Proxy and RouteTable (port 443, every service's) where the VirtualServices are made from
// routes (bigGammaInventory: as many as bigRoutedInventory's), for the three Sidecars of
// BenchmarkProxyRoutedExact10k and the others; and RouteTable on bigRoutedInventory.
func BenchmarkProxyGammaExact10k(b *testing.B) {
	benchmarkProxy(b, bigGammaInventory(10_000, false), 0, false)
}
func BenchmarkProxyGammaNamespace10k(b *testing.B) {
	benchmarkProxy(b, bigGammaInventory(10_000, false), 1, false)
}
func BenchmarkProxyGammaWildcard10k(b *testing.B) {
	benchmarkProxy(b, bigGammaInventory(10_000, false), 2, false)
}
func BenchmarkRouteTableGammaExact10k(b *testing.B) {
	benchmarkRouteTable(b, bigGammaInventory(10_000, false), 0)
}
func BenchmarkRouteTableGammaNamespace10k(b *testing.B) {
	benchmarkRouteTable(b, bigGammaInventory(10_000, false), 1)
}
func BenchmarkRouteTableGammaWildcard10k(b *testing.B) {
	benchmarkRouteTable(b, bigGammaInventory(10_000, false), 2)
}
func BenchmarkRouteTableRoutedExact10k(b *testing.B) {
	benchmarkRouteTable(b, bigRoutedInventory(10_000), 0)
}
func BenchmarkRouteTableRoutedNamespace10k(b *testing.B) {
	benchmarkRouteTable(b, bigRoutedInventory(10_000), 1)
}
func BenchmarkRouteTableRoutedWildcard10k(b *testing.B) {
	benchmarkRouteTable(b, bigRoutedInventory(10_000), 2)
}

// BenchmarkRouteTableRoutedWildcard40k: every VirtualService of bigRoutedInventory has the
// wildcard host *.svc.cluster.local; the route table looks each service's Routes answer up
// once rather than per wildcard host and service.
func BenchmarkRouteTableRoutedWildcard40k(b *testing.B) {
	benchmarkRouteTable(b, bigRoutedInventory(40_000), 2)
}

// benchmarkRouteTable runs RouteTable for port 443 on inv for the proxies of namespace
// ns-<ns>.
func benchmarkRouteTable(b *testing.B, inv inventory.Inventory, ns int) {
	v, err := New(nil, &inv)
	require.NoError(b, err)
	name := fmt.Sprintf("ns-%d", ns)
	b.ReportAllocs()
	for b.Loop() {
		v.RouteTable(name, nil, 443)
	}
}

// Proxy on an inventory with VirtualServices and DestinationRules, for a namespace whose
// Sidecar imports three exact hosts (Exact), its own namespace and the root's (Namespace),
// or *.example.com (Wildcard), at 10,000 services and at 40,000, beside the literal
// reference. BenchmarkProxyExact10k and the others of bench_test.go run Proxy on the same
// inventory without its VirtualServices and DestinationRules.
func BenchmarkProxyRoutedExact10k(b *testing.B) {
	benchmarkProxy(b, bigRoutedInventory(10_000), 0, false)
}
func BenchmarkProxyRoutedExact40k(b *testing.B) {
	benchmarkProxy(b, bigRoutedInventory(40_000), 0, false)
}
func BenchmarkProxyRoutedExact10kReference(b *testing.B) {
	benchmarkProxy(b, bigRoutedInventory(10_000), 0, true)
}
func BenchmarkProxyRoutedNamespace10k(b *testing.B) {
	benchmarkProxy(b, bigRoutedInventory(10_000), 1, false)
}
func BenchmarkProxyRoutedNamespace40k(b *testing.B) {
	benchmarkProxy(b, bigRoutedInventory(40_000), 1, false)
}
func BenchmarkProxyRoutedNamespace10kReference(b *testing.B) {
	benchmarkProxy(b, bigRoutedInventory(10_000), 1, true)
}
func BenchmarkProxyRoutedWildcard10k(b *testing.B) {
	benchmarkProxy(b, bigRoutedInventory(10_000), 2, false)
}
func BenchmarkProxyRoutedWildcard10kReference(b *testing.B) {
	benchmarkProxy(b, bigRoutedInventory(10_000), 2, true)
}

// BenchmarkNewSidecarViewRouted100k builds the view of bigRoutedInventory(100,000).
func BenchmarkNewSidecarViewRouted100k(b *testing.B) {
	inv := bigRoutedInventory(100_000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(nil, &inv); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRoutedViewGrowth pins, in counted work, that building a view with VirtualServices,
// Gateway API routes and rules is linear in the inventory, and that Proxy and RouteTable with
// them cost what they return.
func TestRoutedViewGrowth(t *testing.T) {
	const n = 2_000
	requireLinearView(t, bigGammaInventory(n, true), bigGammaInventory(4*n, true), func(vs, vl *View, ns string) {
		require.Equal(t, len(vs.RouteTable(ns, nil, 443)), len(vl.RouteTable(ns, nil, 443)), "the same route table at both sizes")
		requireSameCost(t, "RouteTable("+ns+")", func() { vs.RouteTable(ns, nil, 443) }, func() { vl.RouteTable(ns, nil, 443) })
	})
}
