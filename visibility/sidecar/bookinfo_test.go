package sidecar

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/visibility/inventory"
)

// bookinfoView reads testdata/bookinfo.yaml, with testdata/bookinfo-route.yaml's HTTPRoute
// when withRoute, and builds its view under Istio's defaults.
func bookinfoView(t *testing.T, withRoute bool) *View {
	t.Helper()
	dump, err := os.ReadFile("testdata/bookinfo.yaml")
	require.NoError(t, err)
	if withRoute {
		route, err := os.ReadFile("testdata/bookinfo-route.yaml")
		require.NoError(t, err)
		dump = append(append(dump, "---\n"...), route...)
	}
	inv, err := inventory.Load(dump, "")
	require.NoError(t, err)
	v, err := New(nil, inv)
	require.NoError(t, err)
	return v
}

// TestBookinfoRouteAndVirtualService: bookinfo's reviews split 90/10 by a VirtualService and
// by an HTTPRoute whose parent is the reviews Service. For a proxy of default, the route's
// VirtualService — istiod's default/default~9080~reviews.default.svc.cluster.local — comes
// first (a route of the proxy's namespace comes before every other VirtualService), so it
// routes reviews: it is the listener's Routes answer and builds the virtual host of port
// 9080, the user's VirtualService's claim dropped. Lint says the host is routed by both; a
// dry run from the dump holding only the VirtualService to one with the route shows the
// route's effect; the route's status is accepted, every reference resolved.
func TestBookinfoRouteAndVirtualService(t *testing.T) {
	const (
		reviews = "reviews.default.svc.cluster.local"
		route   = "default/default~9080~" + reviews
	)
	before, after := bookinfoView(t, false), bookinfoView(t, true)
	productpage := labels.Set{"app": "productpage", "version": "v1"}

	p := after.Proxy("default", productpage)
	require.Len(t, p.Listeners, 1)
	assert.Equal(t, []string{route, "default/reviews"}, p.Listeners[0].VirtualServices)
	assert.Equal(t, map[string]string{reviews: route}, p.Listeners[0].Routes)
	table := after.RouteTable("default", productpage, 9080)
	assert.Contains(t, table, VirtualHost{Name: reviews + ":9080", VirtualService: route})
	assert.Equal(t, VirtualHost{Name: "allow_any"}, table[len(table)-1])
	assert.Contains(t, before.RouteTable("default", productpage, 9080), VirtualHost{Name: reviews + ":9080", VirtualService: "default/reviews"})

	e := after.ExplainHost("default", productpage, reviews)
	require.Len(t, e.VirtualHosts, 1)
	require.Len(t, e.VirtualHosts[0].Candidates, 2)
	assert.Equal(t, []any{route, Chosen}, []any{e.VirtualHosts[0].Candidates[0].Object, e.VirtualHosts[0].Candidates[0].Verdict})
	assert.Contains(t, e.VirtualHosts[0].Candidates[0].Reason, "istiod made it from HTTPRoute default/reviews (rule 0)")
	assert.Equal(t, []any{"default/reviews", Outranked}, []any{e.VirtualHosts[0].Candidates[1].Object, e.VirtualHosts[0].Candidates[1].Verdict})

	var both []Finding
	for _, f := range after.Lint() {
		if f.Code == HostRoutedByBoth {
			both = append(both, f)
		}
	}
	require.Len(t, both, 1, "%v", after.Lint())
	assert.Equal(t, "VirtualService default/reviews", both[0].Path)
	assert.Contains(t, both[0].Message, "routes host "+reviews+", as "+route+" does, which istiod made from HTTPRoute default/reviews (rule 0)")
	assert.Contains(t, both[0].Message, route+" builds the virtual host "+reviews+":9080")
	for _, f := range before.Lint() {
		assert.NotEqual(t, HostRoutedByBoth, f.Code)
	}

	var changed []Change
	for _, c := range Diff(before, after) {
		if c.Key == (ProxyHost{Namespace: "default", Host: reviews}) {
			changed = append(changed, c)
		}
	}
	require.Len(t, changed, 1)
	assert.Equal(t, []string{"default/reviews"}, changed[0].Before.Routes)
	assert.Equal(t, []string{route}, changed[0].After.Routes)
	assert.Equal(t, []VirtualHost{{Name: reviews + ":9080", VirtualService: "default/reviews"}}, changed[0].Before.VirtualHosts)
	assert.Equal(t, []VirtualHost{{Name: reviews + ":9080", VirtualService: route}}, changed[0].After.VirtualHosts)

	status := DiffRouteStatus(before, after)
	require.Len(t, status, 1)
	assert.Equal(t, RouteRef{Kind: "HTTPRoute", Namespace: "default", Name: "reviews"}, status[0].Key)
	assert.Nil(t, status[0].Before)
	assert.Equal(t, []string{
		"Service default/reviews:9080 Accepted=True Accepted: Route was valid",
		"Service default/reviews:9080 ResolvedRefs=True ResolvedRefs: All references resolved",
	}, status[0].Gained)
	s, ok := after.RouteStatus("HTTPRoute", "default", "reviews")
	require.True(t, ok)
	assert.Equal(t, *status[0].After, s)
}
