package sidecar

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/meshscope/meshscope/internal/growth"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// gammaScaleInventory is a cluster of n routes: namespaces of 20 routes each, every one with
// five Services and a ServiceEntry; the routes (HTTP, gRPC, TCP, TLS in turn) have a mesh
// parent of their namespace (a Service, with a port one time in three, or the ServiceEntry)
// and some a Gateway parent, and backends of their namespace, the next namespace (with a
// ReferenceGrant) or missing. HTTP and gRPC routes of one namespace and Service merge.
func gammaScaleInventory(n int) *inventory.Inventory {
	inv := &inventory.Inventory{Namespaces: map[string]map[string]string{}}
	namespaces := (n + 19) / 20
	for k := range namespaces {
		ns := fmt.Sprintf("ns%d", k)
		inv.Namespaces[ns] = map[string]string{"kubernetes.io/metadata.name": ns}
		for s := range 5 {
			name := fmt.Sprintf("svc%d", s)
			inv.Services = append(inv.Services, inventory.Service{Kind: inventory.KubernetesService, Namespace: ns, Name: name,
				Hosts: []string{inventory.ServiceHost(name, ns, "cluster.local")}, Addresses: []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32")}, Ports: []uint32{80, 9090}})
		}
		inv.Services = append(inv.Services, inventory.Service{Kind: inventory.ServiceEntry, Namespace: ns, Name: "ext",
			Hosts: []string{"api." + ns + ".example.com", "*.api." + ns + ".example.com"}, Ports: []uint32{443}})
		inv.ReferenceGrants = append(inv.ReferenceGrants, inventory.ReferenceGrant{Namespace: ns, Name: "g",
			From: []inventory.ReferenceGrantFrom{{Group: inventory.GatewayAPIGroup, Kind: "HTTPRoute", Namespace: fmt.Sprintf("ns%d", (k+namespaces-1)%namespaces)}},
			To:   []inventory.ReferenceGrantTo{{Kind: "Service"}}})
	}
	inv.Gateways = []inventory.Gateway{{Namespace: "ns0", Name: "gw", ClassName: "istio", Listeners: []inventory.Listener{
		{Name: "http", Port: 80, Protocol: "HTTP", AllowedRoutes: inventory.AllowedRoutes{From: "All"}},
		{Name: "tls", Port: 443, Protocol: "TLS", TLSMode: "Passthrough", AllowedRoutes: inventory.AllowedRoutes{From: "All"}}}}}
	kinds := []inventory.RouteKind{inventory.HTTPRouteKind, inventory.GRPCRouteKind, inventory.TCPRouteKind, inventory.TLSRouteKind}
	for i := range n {
		ns := fmt.Sprintf("ns%d", i/20)
		next := fmt.Sprintf("ns%d", (i/20+1)%namespaces)
		kind := kinds[i%4]
		parent := inventory.ParentRef{Kind: "Service", Name: fmt.Sprintf("svc%d", i%5)}
		switch i % 3 {
		case 1:
			parent.Port = 80
		case 2:
			parent = inventory.ParentRef{Group: "networking.istio.io", Kind: "ServiceEntry", Name: "ext"}
		}
		r := inventory.Route{Kind: kind, Namespace: ns, Name: fmt.Sprintf("r%d", i), CreationTime: time.Unix(int64(i), 0),
			ParentRefs: []inventory.ParentRef{parent}}
		if i%7 == 0 {
			r.ParentRefs = append(r.ParentRefs, inventory.ParentRef{Group: inventory.GatewayAPIGroup, Kind: "Gateway", Namespace: "ns0", Name: "gw"})
		}
		backends := []inventory.BackendRef{
			{Kind: "Service", Name: "svc1", Port: 80, Weight: 80},
			{Kind: "Service", Namespace: next, Name: "svc2", Port: 80, Weight: 20},
			{Kind: "Service", Name: "ghost", Port: 80, Weight: 0},
		}
		switch kind {
		case inventory.HTTPRouteKind:
			r.Rules = []inventory.RouteRule{
				{Matches: []inventory.RouteMatch{{Path: &inventory.PathMatch{Type: inventory.MatchPathPrefix, Value: fmt.Sprintf("/api/%d", i%9)},
					Headers: []inventory.ValueMatch{{Type: inventory.MatchExact, Name: "x-user", Value: "a"}}}, {Path: &inventory.PathMatch{Type: inventory.MatchExact, Value: "/"}}},
					Filters:     []inventory.RouteFilter{{Type: inventory.FilterRequestHeaderModifier, RequestHeaderModifier: &inventory.HeaderModifier{Set: []inventory.Header{{Name: "x-from", Value: "mesh"}}}}},
					BackendRefs: backends},
				{Matches: []inventory.RouteMatch{{Path: &inventory.PathMatch{Type: inventory.MatchPathPrefix, Value: "/"}}}, BackendRefs: backends[:1]},
			}
		case inventory.GRPCRouteKind:
			r.Rules = []inventory.RouteRule{{Matches: []inventory.RouteMatch{{GRPCMethod: &inventory.GRPCMethodMatch{Type: inventory.MatchExact, Service: "pkg.Svc", Method: fmt.Sprintf("M%d", i%5)}}}, BackendRefs: backends}}
		default:
			r.Hostnames = []string{"api." + ns + ".example.com"}
			r.Rules = []inventory.RouteRule{{BackendRefs: backends}}
		}
		inv.Routes = append(inv.Routes, r)
	}
	return inv
}

func everyNamespace(string) bool { return true }

// BenchmarkGammaConvert converts n routes with the index built once, beside the baseline
// that looks each route's references up in an index built for that route alone.
func BenchmarkGammaConvert(b *testing.B) {
	for _, n := range []int{200, 2000} {
		inv := gammaScaleInventory(n)
		b.Run(fmt.Sprintf("routes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				convertRoutes(inv, everyNamespace)
			}
		})
		b.Run(fmt.Sprintf("routes=%d/baseline=index-per-route", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				convertRoutesWith(inv, everyNamespace, func() *gammaIndex { return newGammaIndex(inv, everyNamespace) })
			}
		})
	}
}

// TestGammaConvertGrowth: converting 4n routes (with 4n Services) allocates about four times
// what n routes do — linear, not quadratic.
func TestGammaConvertGrowth(t *testing.T) {
	small, large := gammaScaleInventory(500), gammaScaleInventory(2000)
	a1, b1 := growth.Allocated(func() { convertRoutes(small, everyNamespace) })
	a4, b4 := growth.Allocated(func() { convertRoutes(large, everyNamespace) })
	t.Logf("500 routes: %.0f allocations, %.0f bytes; 2000 routes: %.0f allocations, %.0f bytes", a1, b1, a4, b4)
	if a4 > 5*a1 || b4 > 5*b1 {
		t.Errorf("4x the routes cost %.1fx the allocations and %.1fx the bytes", a4/a1, b4/b1)
	}
}
