package chain

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// realisticRouter is a router of n routes as people write them: paths under a few API
// prefixes, some exact, some with a header or methods, a catch-all last.
func realisticRouter(n int) *router {
	rnd := rand.New(rand.NewPCG(5, 9))
	r := &router{ServiceRouter: ServiceRouter{Name: "web"}}
	for i := range n - 1 {
		h := &ServiceRouteHTTPMatch{}
		base := []string{"/api/v1/", "/api/v2/", "/admin/", "/static/"}[rnd.IntN(4)]
		switch rnd.IntN(4) {
		case 0:
			h.PathExact = fmt.Sprintf("%sitems/%d", base, i)
		default:
			h.PathPrefix = fmt.Sprintf("%sres%d", base, i)
		}
		if rnd.IntN(4) == 0 {
			h.Header = []ServiceRouteHTTPMatchHeader{{Name: "x-canary", Exact: "1"}}
		}
		if rnd.IntN(5) == 0 {
			h.Methods = []string{"GET", "HEAD"}
		}
		r.Routes = append(r.Routes, ServiceRoute{Match: &ServiceRouteMatch{HTTP: h}, Destination: &ServiceRouteDestination{Service: fmt.Sprintf("s%d", i%7)}})
	}
	r.Routes = append(r.Routes, ServiceRoute{Destination: &ServiceRouteDestination{Service: "web"}})
	return r
}

// BenchmarkUnreachableRoutes{5,20,100,1000}: the shadow check of a router of n routes as
// people write them (the one path: each route against every earlier one).
func benchmarkShadow(b *testing.B, n int) {
	r := realisticRouter(n)
	b.ReportAllocs()
	for b.Loop() {
		unreachableRoutes(r)
	}
}

func BenchmarkUnreachableRoutes5(b *testing.B)    { benchmarkShadow(b, 5) }
func BenchmarkUnreachableRoutes20(b *testing.B)   { benchmarkShadow(b, 20) }
func BenchmarkUnreachableRoutes100(b *testing.B)  { benchmarkShadow(b, 100) }
func BenchmarkUnreachableRoutes1000(b *testing.B) { benchmarkShadow(b, 1000) }
