package inventory

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/istiotest"
)

// validHTTPRoute is an HTTPRoute with a field of every kind the checks walk: hostnames,
// parentRefs, rules with matches (path, headers, query parameters, method), filters of
// every kind and backendRefs with filters.
func validHTTPRoute(name string) Route {
	mirror := &MirrorFilter{BackendRef: BackendRef{Kind: "Service", Name: "shadow", Port: 80}}
	return Route{Kind: HTTPRouteKind, Namespace: "shop", Name: name,
		Hostnames:  []string{"reviews.example.com", "*.example.com"},
		ParentRefs: []ParentRef{{Kind: "Service", Name: "reviews", Port: 9080}, {Group: GatewayAPIGroup, Kind: "Gateway", Namespace: "infra", Name: "gw", SectionName: "http"}},
		Rules: []RouteRule{{
			Matches: []RouteMatch{{Path: &PathMatch{Type: MatchPathPrefix, Value: "/api"}, Headers: []ValueMatch{{Type: MatchExact, Name: "x-user", Value: "jason"}},
				QueryParams: []ValueMatch{{Type: MatchRegularExpression, Name: "v", Value: "2.*"}}, Method: "GET"}},
			Filters: []RouteFilter{{Type: FilterRequestHeaderModifier, RequestHeaderModifier: &HeaderModifier{Set: []Header{{Name: "x-route", Value: "a"}}}},
				{Type: FilterRequestMirror, RequestMirror: mirror},
				{Type: FilterURLRewrite, URLRewrite: &URLRewriteFilter{Path: &PathModifier{Type: ReplacePrefixMatch, ReplacePrefixMatch: "/v2"}}}},
			BackendRefs: []BackendRef{{Kind: "Service", Name: "reviews", Port: 9080, Weight: 90,
				Filters: []RouteFilter{{Type: FilterResponseHeaderModifier, ResponseHeaderModifier: &HeaderModifier{Remove: []string{"x-debug"}}}}},
				{Kind: "Service", Namespace: "legacy", Name: "reviews", Port: 9080, Weight: 10}},
		}, {
			Matches: []RouteMatch{{Path: &PathMatch{Type: MatchExact, Value: "/old"}}},
			Filters: []RouteFilter{{Type: FilterRequestRedirect, RequestRedirect: &RedirectFilter{Scheme: "https", StatusCode: 301, Path: &PathModifier{Type: ReplaceFullPath, ReplaceFullPath: "/new"}}}},
		}},
	}
}

// TestCheckRouteSpellsNothingWhenValid: the checks of a valid route build no path and
// allocate nothing, as Load runs them and as Validate does; Validate of n valid routes
// allocates the same at 4n. (Not under the race detector, whose sync.Pool makes the checks'
// regular expressions allocate.)
func TestCheckRouteSpellsNothingWhenValid(t *testing.T) {
	if istiotest.Race {
		t.Skip("the race detector's sync.Pool drops the regular expressions' matchers")
	}
	grpc := Route{Kind: GRPCRouteKind, Namespace: "shop", Name: "g", ParentRefs: []ParentRef{{Kind: "Service", Name: "greeter"}},
		Rules: []RouteRule{{Matches: []RouteMatch{{GRPCMethod: &GRPCMethodMatch{Type: MatchExact, Service: "pkg.Greeter", Method: "Hello"}}},
			BackendRefs: []BackendRef{{Kind: "Service", Name: "greeter", Port: 9090, Weight: 1}}}}}
	grant := ReferenceGrant{Namespace: "legacy", Name: "g", From: []ReferenceGrantFrom{{Group: GatewayAPIGroup, Kind: "HTTPRoute", Namespace: "shop"}}, To: []ReferenceGrantTo{{Kind: "Service"}}}
	for _, r := range []Route{validHTTPRoute("r"), grpc} {
		inv := &Inventory{Routes: []Route{r}}
		require.NoError(t, inv.Validate())
		assert.Zero(t, testing.AllocsPerRun(100, func() { checkRoute(nil, &r, objectSpec) }), "%s, as Load checks it", r.Kind)
		assert.Zero(t, testing.AllocsPerRun(100, func() { checkRoute(nil, &r, goValue) }), "%s, as Validate checks it", r.Kind)
	}
	assert.Zero(t, testing.AllocsPerRun(100, func() { checkReferenceGrant(nil, &grant, objectSpec) }))

	inventoryOf := func(n int) *Inventory {
		inv := &Inventory{Routes: make([]Route, n)}
		for i := range inv.Routes {
			inv.Routes[i] = validHTTPRoute(fmt.Sprintf("r%d", i))
		}
		return inv
	}
	validateAllocs(t, inventoryOf, 500)
}

// BenchmarkValidateRoutes: Validate of 1,000 valid HTTPRoutes.
func BenchmarkValidateRoutes(b *testing.B) {
	inv := &Inventory{Routes: make([]Route, 1000)}
	for i := range inv.Routes {
		inv.Routes[i] = validHTTPRoute(fmt.Sprintf("r%d", i))
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := inv.Validate(); err != nil {
			b.Fatal(err)
		}
	}
}
