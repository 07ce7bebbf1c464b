package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/clitest"
	"github.com/meshscope/meshscope/visibility/sidecar"
)

const (
	reviews = "reviews.default.svc.cluster.local"
	// routeVS is the VirtualService istiod makes of bookinfo-route.yaml's HTTPRoute.
	routeVS = "default/default~9080~" + reviews
)

// bookinfoWithRoute writes a dump holding bookinfo.yaml and bookinfo-route.yaml's HTTPRoute
// as the cluster holds it once applied: with its namespace and creation time.
func bookinfoWithRoute(t *testing.T) string {
	t.Helper()
	dump, err := os.ReadFile("testdata/bookinfo.yaml")
	require.NoError(t, err)
	route, err := os.ReadFile("testdata/bookinfo-route.yaml")
	require.NoError(t, err)
	applied := strings.Replace(string(route), "  name: reviews\n", "  name: reviews\n  namespace: default\n  creationTimestamp: \"2026-04-20T08:10:00Z\"\n", 1)
	require.NotEqual(t, string(route), applied)
	return clitest.Write(t, "bookinfo-both.yaml", string(dump)+"---\n"+applied)
}

// TestBookinfoRoutedByBoth: bookinfo's reviews split 90/10 by a VirtualService and by an
// HTTPRoute whose parent is the reviews Service, both in the dump. For a proxy in default the
// table shows the route's VirtualService routing reviews (a route of the proxy's namespace
// comes first in the listener's order: it builds the virtual host); for one in web, the
// user's VirtualService (a producer route claims the host for its namespace's proxies
// only). Lint says the host is routed by both, and -explain-host names the route behind the
// VirtualService istiod made.
func TestBookinfoRoutedByBoth(t *testing.T) {
	own := []string{"-mesh", "testdata/mesh-bookinfo.yaml", "-inventory", bookinfoWithRoute(t)}
	code, out, errOut := clitest.Call(run, append(own, "-fail-on", "warning")...)
	assert.Equal(t, 3, code, "HostRoutedByBoth is a warning: %s", errOut)
	assert.Contains(t, errOut, "WARNING HostRoutedByBoth VirtualService default/reviews")
	clitest.ContainsWords(t, out,
		"WARNING HostRoutedByBoth VirtualService default/reviews: routes host "+reviews+", as "+routeVS+" does, which istiod made from HTTPRoute default/reviews (rule 0)",
		routeVS+" builds the virtual host "+reviews+":9080 (for the proxies of default)",
		"SIDECAR PROXIES SIDECAR HOST FROM PORTS ROUTED BY DESTINATION RULE",
		reviews+" KubernetesService default/reviews 9080 "+routeVS+" default/reviews [v1,v2,v3] web (none: */*)",
		reviews+" KubernetesService default/reviews 9080 default/reviews default/reviews [v1,v2,v3]")

	rep := clitest.JSON[report](t, run, own...)
	routedBy := map[string]string{}
	for _, row := range rep.Sidecars {
		for _, a := range row.Hosts {
			if a.Host == reviews {
				routedBy[row.Namespace] = a.RoutedBy()
				if row.Namespace == "default" {
					assert.Equal(t, []sidecar.VirtualHost{{Name: reviews + ":9080", VirtualService: routeVS}}, a.VirtualHosts)
				}
			}
		}
	}
	assert.Equal(t, map[string]string{"default": routeVS, "web": "default/reviews"}, routedBy)

	clitest.ContainsWords(t, clitest.OK(t, run, append(own, "-explain-host", reviews, "-proxy", "default")...),
		"Route tables: port 9080, virtual host "+reviews+":9080",
		routeVS+" (host "+reviews+"): chosen: it builds the virtual host "+reviews+":9080 (1 route): the first VirtualService of the listener's order to claim it; istiod made it from HTTPRoute default/reviews (rule 0)",
		"default/reviews (host "+reviews+"): outranked: "+routeVS+" claims "+reviews+":9080 first")
}

// TestBookinfoApplyRoute: -apply bookinfo-route.yaml against a dump holding only the
// VirtualService previews what the route does — reviews routed by the route's VirtualService
// for default's proxies, the status istiod writes on the route, and the finding the change
// introduces — and nothing for web's proxies.
func TestBookinfoApplyRoute(t *testing.T) {
	own := []string{"-mesh", "testdata/mesh-bookinfo.yaml", "-inventory", "testdata/bookinfo.yaml"}
	out := clitest.OK(t, run, append(own, "-apply", "testdata/bookinfo-route.yaml")...)
	clitest.ContainsWords(t, out,
		"LINT OF THE PROPOSED CONFIGURATION (findings the current one does not have) WARNING HostRoutedByBoth proposed testdata/bookinfo.yaml + testdata/bookinfo-route.yaml: VirtualService default/reviews",
		"DRY RUN (nothing is applied) of the proposed Istio 1.31 (none given: the newest release meshscope models); mesh testdata/mesh-bookinfo.yaml, inventory testdata/bookinfo.yaml + testdata/bookinfo-route.yaml",
		"applied testdata/bookinfo-route.yaml: HTTPRoute default/reviews created",
		"default "+reviews+": KubernetesService default/reviews 9080, routed by default/reviews, rule default/reviews [v1,v2,v3] -> "+
			"KubernetesService default/reviews 9080, routed by "+routeVS+", rule default/reviews [v1,v2,v3]",
		"HTTPRoute default/reviews status gains: Service default/reviews:9080 Accepted=True Accepted: Route was valid",
		"HTTPRoute default/reviews status gains: Service default/reviews:9080 ResolvedRefs=True ResolvedRefs: All references resolved")
	assert.NotContains(t, out, "  web ", "web's proxies route reviews by the VirtualService, as before")
	assert.NotContains(t, out, "\nAUDIT", "the mesh configuration does not change: ztunnel's answers are not compared")

	rep := clitest.JSON[report](t, run, append(own, "-apply", "testdata/bookinfo-route.yaml")...)
	require.Len(t, rep.SidecarAudit, 1)
	assert.Equal(t, sidecar.ProxyHost{Namespace: "default", Host: reviews}, rep.SidecarAudit[0].Key)
	assert.Equal(t, []sidecar.VirtualHost{{Name: reviews + ":9080", VirtualService: routeVS}}, rep.SidecarAudit[0].After.VirtualHosts)
	require.Len(t, rep.RouteStatus, 1)
	assert.Equal(t, sidecar.RouteRef{Kind: "HTTPRoute", Namespace: "default", Name: "reviews"}, rep.RouteStatus[0].Key)
	assert.Nil(t, rep.RouteStatus[0].Before)
	assert.Empty(t, rep.GatewayAudit, "a route with a Service parent changes nothing a gateway gets")
}

// TestRoutedByIsTheRouteTables: a consumer route of web, older than shop's VirtualService, is
// the most specific VirtualService of reviews for every proxy (the listener's Routes), but
// builds its virtual host only for web's proxies: ROUTED BY names shop's VirtualService for
// shop's, with the listener's answer beside it, and lint says the Routes answer builds
// nothing.
func TestRoutedByIsTheRouteTables(t *testing.T) {
	inv := clitest.Write(t, "consumer.yaml", `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: shop}}
- {apiVersion: v1, kind: Namespace, metadata: {name: web}}
- apiVersion: v1
  kind: Service
  metadata: {name: reviews, namespace: shop, creationTimestamp: "2026-05-01T10:00:00Z"}
  spec: {clusterIP: 10.96.0.4, ports: [{name: http, port: 9080}]}
- apiVersion: v1
  kind: Service
  metadata: {name: reviews-v2, namespace: shop, creationTimestamp: "2026-05-01T10:00:01Z"}
  spec: {clusterIP: 10.96.0.5, ports: [{name: http, port: 9080}]}
- apiVersion: gateway.networking.k8s.io/v1
  kind: HTTPRoute
  metadata: {name: reviews-v2, namespace: web, creationTimestamp: "2026-05-01T10:01:00Z"}
  spec:
    parentRefs: [{group: "", kind: Service, name: reviews, namespace: shop, port: 9080}]
    rules: [{backendRefs: [{name: reviews-v2, namespace: shop, port: 9080}]}]
- apiVersion: networking.istio.io/v1
  kind: VirtualService
  metadata: {name: reviews, namespace: shop, creationTimestamp: "2026-05-01T10:05:00Z"}
  spec: {hosts: [reviews], http: [{route: [{destination: {host: reviews}}]}]}
`)
	const consumer = "web/web~9080~reviews.shop.svc.cluster.local"
	clitest.ContainsWords(t, clitest.OK(t, run, "-mesh", "testdata/mesh-bookinfo.yaml", "-inventory", inv),
		"WARNING RoutesAnswerBuildsNothing HTTPRoute web/reviews-v2",
		"shop (none: */*) reviews-v2.shop.svc.cluster.local KubernetesService shop/reviews-v2 9080 - - reviews.shop.svc.cluster.local KubernetesService shop/reviews 9080 shop/reviews (listener: "+consumer+") -",
		"web (none: */*) reviews-v2.shop.svc.cluster.local KubernetesService shop/reviews-v2 9080 - - reviews.shop.svc.cluster.local KubernetesService shop/reviews 9080 "+consumer+" -")
}
