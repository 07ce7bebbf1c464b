package chain

import (
	"math/rand/v2"

	"github.com/meshscope/meshscope/exports"
)

// The random routing inputs TestGraphAgainstReference compiles with both Compile and the
// literal reference of graph_ref_test.go.

// randomRouting adds routers and splitters over the services of randomResolvers, some of
// them nesting, some splitting to themselves, some with header changes.
func randomRouting(r *rand.Rand) (routers []ServiceRouter, splitters []ServiceSplitter) {
	headers := func() *HTTPHeaderModifiers {
		switch r.IntN(6) {
		case 0:
			return &HTTPHeaderModifiers{Add: map[string]string{"x-a": "1"}}
		case 1:
			return &HTTPHeaderModifiers{Set: map[string]string{"x-s": "2"}}
		case 2:
			return &HTTPHeaderModifiers{Remove: []string{"x-r"}}
		case 3:
			return &HTTPHeaderModifiers{Add: map[string]string{}, Set: map[string]string{"x-s": "3"}}
		}
		return nil
	}
	weightSets := [][]float32{{100}, {50, 50}, {33.335, 33.335, 33.33}, {90, 10}, {99.999, 0.001}, {25, 25, 50}}
	for _, svc := range randServices {
		for _, ns := range randNamespaces {
			if r.IntN(2) == 0 {
				ws := weightSets[r.IntN(len(weightSets))]
				sp := ServiceSplitter{Name: svc, Namespace: ns}
				for _, w := range ws {
					split := ServiceSplit{Weight: w, Service: maybe(r, 0.8, pick(r, randServices...)), ServiceSubset: maybe(r, 0.15, pick(r, randSubsets...))}
					if r.IntN(8) == 0 {
						split.Namespace = pick(r, randNamespaces...)
					}
					split.RequestHeaders, split.ResponseHeaders = headers(), headers()
					sp.Splits = append(sp.Splits, split)
				}
				if sp.Validate() == nil {
					splitters = append(splitters, sp)
				}
			}
			if r.IntN(3) == 0 {
				rt := ServiceRouter{Name: svc, Namespace: ns}
				for range r.IntN(4) {
					route := ServiceRoute{Match: &ServiceRouteMatch{HTTP: &ServiceRouteHTTPMatch{PathPrefix: pick(r, "/", "/a", "/a/b")}}}
					if r.IntN(5) > 0 {
						route.Destination = &ServiceRouteDestination{Service: maybe(r, 0.8, pick(r, randServices...)), ServiceSubset: maybe(r, 0.3, pick(r, randSubsets...))}
						if r.IntN(8) == 0 {
							route.Destination.Namespace = pick(r, randNamespaces...)
						}
					}
					rt.Routes = append(rt.Routes, route)
				}
				routers = append(routers, rt)
			}
		}
	}
	return routers, splitters
}

// randomProtocols gives some services a protocol, mostly http.
func randomProtocols(r *rand.Rand) (map[exports.ServiceName]string, string) {
	protos := map[exports.ServiceName]string{}
	for _, svc := range randServices {
		for _, ns := range randNamespaces {
			if r.IntN(10) == 0 {
				protos[exports.ServiceName{Namespace: ns, Name: svc}] = pick(r, "http", "http", "http", "HTTP2", "tcp", "")
			}
		}
	}
	return protos, pick(r, "http", "http", "http", "http", "grpc", "", "tcp")
}
