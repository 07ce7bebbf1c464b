package sidecar

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/growth"
	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// bigSidecarInventory is a cluster of n services over n/100 namespaces, each with a
// namespace-wide Sidecar: namespace i's imports a few exact hosts of the next namespaces
// (kind 0), its own namespace and the root's (kind 1), or every *.example.com host (kind
// 2), by i mod 3. Within each namespace every tenth service is exported to its namespace
// only, one in twenty to the next namespace by name, one in five is a Kubernetes Service;
// ServiceEntry hosts repeat across namespaces.
func bigSidecarInventory(n int) inventory.Inventory {
	nss := max(n/100, 2)
	inv := inventory.Inventory{Namespaces: make(map[string]map[string]string, nss)}
	ns := func(i int) string { return fmt.Sprintf("ns-%d", i%nss) }
	for i := range nss {
		inv.Namespaces[ns(i)] = map[string]string{visibility.NamespaceNameLabel: ns(i), "team": fmt.Sprint("t", i%7)}
	}
	inv.Namespaces["istio-system"] = map[string]string{visibility.NamespaceNameLabel: "istio-system"}
	host := func(i int) string { return fmt.Sprintf("api%d.example.com", i%(n/3+1)) }
	for i := range n {
		s := inventory.Service{Kind: inventory.ServiceEntry, Namespace: ns(i), Name: fmt.Sprint("s", i), CreationTime: t0.Add(time.Duration(i) * time.Second),
			Hosts: []string{host(i)}, Ports: []uint32{443}}
		switch m := i / nss; {
		case m%10 == 0:
			s.ExportTo = []string{"."}
		case m%20 == 1:
			s.ExportTo = []string{ns(i + 1)}
		case m%5 == 2:
			s.Kind, s.Name = inventory.KubernetesService, fmt.Sprint("web", i)
			s.Hosts = []string{s.Name + "." + s.Namespace + ".svc.cluster.local"}
		}
		inv.Services = append(inv.Services, s)
	}
	for i := range nss {
		sc := inventory.Sidecar{Namespace: ns(i), Name: "default", CreationTime: t0}
		switch i % 3 {
		case 0:
			sc.Egress = []inventory.Egress{{Hosts: []string{ns(i+1) + "/" + host(i+1+3*nss), ns(i+2) + "/" + host(i+2+4*nss), "./" + host(i+5*nss)}}}
		case 1:
			sc.Egress = []inventory.Egress{{Hosts: []string{"./*", "istio-system/*"}}}
		default:
			sc.Egress = []inventory.Egress{{Hosts: []string{"*/*.example.com"}}}
		}
		inv.Sidecars = append(inv.Sidecars, sc)
	}
	return inv
}

func benchmarkNewSidecarView(b *testing.B, n int) {
	inv := bigSidecarInventory(n)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := New(nil, &inv); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewSidecarView100k builds the view of 100,000 services, 1,000 namespaces and
// 1,000 Sidecars; 25k and 400k beside it show the growth.
func BenchmarkNewSidecarView25k(b *testing.B)  { benchmarkNewSidecarView(b, 25_000) }
func BenchmarkNewSidecarView100k(b *testing.B) { benchmarkNewSidecarView(b, 100_000) }

// benchmarkProxy runs Proxy (or, with ref, the literal reference) on inv for the proxies of
// namespace ns-<ns>.
func benchmarkProxy(b *testing.B, inv inventory.Inventory, ns int, ref bool) {
	v, err := New(nil, &inv)
	require.NoError(b, err)
	r := refSidecarView{inv: inv}
	name := fmt.Sprintf("ns-%d", ns)
	b.ReportAllocs()
	for b.Loop() {
		if ref {
			r.proxy(name, nil)
		} else {
			v.Proxy(name, nil)
		}
	}
}

// Proxy for a namespace whose Sidecar imports three exact hosts (Exact), its own namespace
// and the root's (Namespace), or *.example.com (Wildcard: about a third of the services),
// beside the literal reference, at 10,000 services and at 40,000.
func BenchmarkProxyExact10k(b *testing.B) { benchmarkProxy(b, bigSidecarInventory(10_000), 0, false) }
func BenchmarkProxyExact40k(b *testing.B) { benchmarkProxy(b, bigSidecarInventory(40_000), 0, false) }
func BenchmarkProxyExact10kReference(b *testing.B) {
	benchmarkProxy(b, bigSidecarInventory(10_000), 0, true)
}
func BenchmarkProxyNamespace10k(b *testing.B) {
	benchmarkProxy(b, bigSidecarInventory(10_000), 1, false)
}
func BenchmarkProxyNamespace40k(b *testing.B) {
	benchmarkProxy(b, bigSidecarInventory(40_000), 1, false)
}
func BenchmarkProxyNamespace10kReference(b *testing.B) {
	benchmarkProxy(b, bigSidecarInventory(10_000), 1, true)
}
func BenchmarkProxyWildcard10k(b *testing.B) {
	benchmarkProxy(b, bigSidecarInventory(10_000), 2, false)
}
func BenchmarkProxyWildcard10kReference(b *testing.B) {
	benchmarkProxy(b, bigSidecarInventory(10_000), 2, true)
}
func BenchmarkProxyExact100k(b *testing.B) { benchmarkProxy(b, bigSidecarInventory(100_000), 0, false) }

// TestSidecarViewGrowth pins, in counted work, that building the view is linear in the
// inventory and that Proxy costs what it returns: at n and 4n services (4x the namespaces,
// the same services per namespace), building allocates about 4x, and Proxy for a namespace
// whose Sidecar imports exact hosts, or its own namespace, allocates the same.
func TestSidecarViewGrowth(t *testing.T) {
	const n = 2_000
	requireLinearView(t, bigSidecarInventory(n), bigSidecarInventory(4*n), nil)
}

// requireLinearView holds building a view to linear work, from small to large (4x the
// namespaces, the same services per namespace: about 4x the allocations and bytes), and
// Proxy, for the namespaces ns-0 and ns-1, to costing the same at both sizes; more, if not
// nil, holds other questions of the two views for a namespace.
func requireLinearView(t *testing.T, small, large inventory.Inventory, more func(vs, vl *View, ns string)) {
	t.Helper()
	build := func(inv inventory.Inventory) func() {
		return func() {
			if _, err := New(nil, &inv); err != nil {
				t.Fatal(err)
			}
		}
	}
	a1, b1 := growth.Allocated(build(small))
	a4, b4 := growth.Allocated(build(large))
	t.Logf("New: %.0f allocations, %.0f bytes at n; %.1fx and %.1fx at 4n", a1, b1, a4/a1, b4/b1)
	if a4 > 5*a1 || b4 > 5*b1 {
		t.Errorf("New grows %.1fx in allocations and %.1fx in bytes from n to 4n; linear is about 4x", a4/a1, b4/b1)
	}
	vs, err := New(nil, &small)
	require.NoError(t, err)
	vl, err := New(nil, &large)
	require.NoError(t, err)
	for _, ns := range []string{"ns-0", "ns-1"} {
		ps, pl := vs.Proxy(ns, nil), vl.Proxy(ns, nil)
		require.Equal(t, len(ps.Services), len(pl.Services), "the same view at both sizes")
		require.Equal(t, len(ps.Rules), len(pl.Rules))
		requireSameCost(t, fmt.Sprintf("Proxy(%s), %d services", ns, len(ps.Services)), func() { vs.Proxy(ns, nil) }, func() { vl.Proxy(ns, nil) })
		if more != nil {
			more(vs, vl, ns)
		}
	}
}

// requireSameCost holds a question to costing about the same asked of a view of n services
// (small) and of 4n (large).
func requireSameCost(t *testing.T, what string, small, large func()) {
	t.Helper()
	s, sb := growth.Allocated(small)
	l, lb := growth.Allocated(large)
	t.Logf("%s: %.0f allocations, %.0f bytes at n; %.0f, %.0f at 4n", what, s, sb, l, lb)
	if l > 1.2*s+4 || lb > 1.3*sb+256 {
		t.Errorf("%s grows with the inventory: %.0f allocations and %.0f bytes at n, %.0f and %.0f at 4n", what, s, sb, l, lb)
	}
}
