package chain

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/growth"
)

// manyRoutes returns web's router with n routes, route i to service si, whose splitter
// shares it between two subsets of si.
func manyRoutes(n int) Entries {
	e := Entries{DefaultProtocol: "http", Routers: []ServiceRouter{{Name: "web"}}}
	for i := range n {
		s := fmt.Sprintf("s%d", i)
		e.Routers[0].Routes = append(e.Routers[0].Routes, ServiceRoute{
			Match:       &ServiceRouteMatch{HTTP: &ServiceRouteHTTPMatch{PathPrefix: "/" + s, Header: []ServiceRouteHTTPMatchHeader{{Name: "x", Exact: s}}}},
			Destination: &ServiceRouteDestination{Service: s}})
		e.Splitters = append(e.Splitters, ServiceSplitter{Name: s, Splits: []ServiceSplit{{Weight: 50, ServiceSubset: "a"}, {Weight: 50, ServiceSubset: "b"}}})
		e.Resolvers = append(e.Resolvers, ServiceResolver{Name: s, Subsets: map[string]Subset{"a": {}, "b": {}}})
	}
	return e
}

// nestedLine returns n splitters s0 … s(n-1), each sending half its requests to its own
// backend and half to the next splitter: one splitter node of n splits once flattened.
func nestedLine(n int) Entries {
	e := Entries{DefaultProtocol: "http"}
	for i := range n {
		e.Splitters = append(e.Splitters, ServiceSplitter{Name: fmt.Sprintf("s%d", i), Splits: []ServiceSplit{
			{Weight: 50, Service: fmt.Sprintf("b%d", i)}, {Weight: 50, Service: fmt.Sprintf("s%d", i+1)}}})
	}
	return e
}

var (
	webRequest = Request{Service: exports.ServiceName{Name: "web"}, Datacenter: "dc1", TrustDomain: td}
	s0Request  = Request{Service: exports.ServiceName{Name: "s0"}, Datacenter: "dc1", TrustDomain: td}
)

// TestRoutingCompileIsLinear pins Compile's growth, counted in allocations, in the entries it
// reads: a router of n routes to n splitters, and n nested splitters flattened into one node.
// At 4n each is at most 5 times what it is at n.
func TestRoutingCompileIsLinear(t *testing.T) {
	for _, w := range []struct {
		name  string
		e     func(int) Entries
		req   Request
		nodes func(int) int
	}{
		{"routes", manyRoutes, webRequest, func(n int) int { return 1 + 3*n + 1 }},
		{"nested splitters", nestedLine, s0Request, func(n int) int { return 1 + n + 1 }},
	} {
		work := func(n int) float64 {
			cc, err := NewCompiler(w.e(n))
			require.NoError(t, err)
			allocs, _ := growth.Allocated(func() {
				c, err := cc.Compile(w.req)
				if err != nil || len(c.Nodes) != w.nodes(n) {
					t.Fatalf("%s at %d: %v, %d nodes", w.name, n, err, len(c.Nodes))
				}
			})
			return allocs
		}
		small, large := work(200), work(800)
		assert.Less(t, large, 5*small, "%s: allocations at n=200: %v, at n=800: %v", w.name, small, large)
	}
}

func benchmarkRouting(b *testing.B, e Entries, req Request) {
	cc, err := NewCompiler(e)
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cc.Compile(req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompileRoutes100(b *testing.B)   { benchmarkRouting(b, manyRoutes(100), webRequest) }
func BenchmarkCompileRoutes1000(b *testing.B)  { benchmarkRouting(b, manyRoutes(1000), webRequest) }
func BenchmarkCompileNested100(b *testing.B)   { benchmarkRouting(b, nestedLine(100), s0Request) }
func BenchmarkCompileNested1000(b *testing.B)  { benchmarkRouting(b, nestedLine(1000), s0Request) }
func BenchmarkReferenceRoutes100(b *testing.B) { benchmarkReference(b, manyRoutes(100), webRequest) }
func BenchmarkReferenceNested100(b *testing.B) { benchmarkReference(b, nestedLine(100), s0Request) }

// benchmarkReference is the baseline: the literal reference (refBuild) on the same entries.
func benchmarkReference(b *testing.B, e Entries, req Request) {
	b.ReportAllocs()
	for b.Loop() {
		if g := refBuild(req, e); g.err != "" {
			b.Fatal(g.err)
		}
	}
}

func BenchmarkReferenceRoutes1000(b *testing.B) { benchmarkReference(b, manyRoutes(1000), webRequest) }
func BenchmarkReferenceNested1000(b *testing.B) { benchmarkReference(b, nestedLine(1000), s0Request) }
