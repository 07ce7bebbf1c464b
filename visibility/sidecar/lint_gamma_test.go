package sidecar

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/report"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// gammaView builds the view of the conversion tests' base inventory (gammaBaseInventory) and
// objects, under m.
func gammaView(t *testing.T, m *mesh.Config, objects string) *View {
	t.Helper()
	inv, err := inventory.Load([]byte(gammaBaseInventory+"---\n"+objects), "")
	require.NoError(t, err)
	v, err := New(m, inv)
	require.NoError(t, err)
	return v
}

// routeCodes are the codes of the findings about Gateway API routes.
var routeCodes = []report.Code{HostRoutedByBoth, RouteParentNotFound, RouteBackendUnresolved, RouteParentPortMissing, ConsumerRouteLocal,
	RouteHiddenByExportTo, RoutesAnswerBuildsNothing, RouteConversionNotRecorded}

// TestRouteLint has a row per code about Gateway API routes (and rows where it must not
// fire): the findings of Lint with those codes, exactly.
func TestRouteLint(t *testing.T) {
	reviewsRoute := doc("HTTPRoute", "shop/r", "2026-01-01T00:00:10Z", `
  parentRefs: [{group: "", kind: Service, name: reviews}]
  rules: [{backendRefs: [{name: ratings, port: 80}]}]`)
	consumerRoute := doc("HTTPRoute", "web/mine", "", `
  parentRefs: [{group: "", kind: Service, name: reviews, namespace: shop}]
  rules: [{backendRefs: [{name: ratings, namespace: shop, port: 80}]}]`)
	for _, tc := range []struct {
		name, objects string
		mesh          *mesh.Config
		want          []Finding
	}{
		{name: "a route alone: nothing", objects: reviewsRoute},
		{name: "a VirtualService and a route for one host", objects: reviewsRoute + `---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: reviews, namespace: shop, creationTimestamp: "2026-01-01T00:00:05Z"}
spec: {hosts: [reviews], http: [{route: [{destination: {host: reviews}}]}]}
`, want: []Finding{report.New("VirtualService shop/reviews", HostRoutedByBoth, "routes host reviews.shop.svc.cluster.local, as shop/shop~reviews.shop.svc.cluster.local does, which istiod made from HTTPRoute shop/r (rule 0): Istio calls mixing a VirtualService and a route for one host undefined; the listener's Routes names shop/reviews; shop/reviews builds the virtual host reviews.shop.svc.cluster.local:80; shop/reviews builds the virtual host reviews.shop.svc.cluster.local:9090 (for the proxies of web)"),
			report.New("VirtualService shop/reviews", HostRoutedByBoth, "routes host reviews.shop.svc.cluster.local, as shop/shop~reviews.shop.svc.cluster.local does, which istiod made from HTTPRoute shop/r (rule 0): Istio calls mixing a VirtualService and a route for one host undefined; the listener's Routes names shop/shop~reviews.shop.svc.cluster.local; shop/shop~reviews.shop.svc.cluster.local builds the virtual host reviews.shop.svc.cluster.local:80; shop/shop~reviews.shop.svc.cluster.local builds the virtual host reviews.shop.svc.cluster.local:9090 (for the proxies of shop)")}},
		{name: "a missing parent, and a port the parent lacks", objects: doc("HTTPRoute", "shop/r", "", `
  parentRefs: [{group: "", kind: Service, name: ghost}, {group: "", kind: Service, name: ratings, port: 9080}]
  rules: [{backendRefs: [{name: ratings, port: 80}]}]`), want: []Finding{
			report.New("HTTPRoute shop/r", RouteParentNotFound, `parentRefs[0]: parent service: "ghost" not found (istiod writes Accepted=False, NoMatchingParent): the route routes nothing through it`),
			report.New("HTTPRoute shop/r", RouteParentPortMissing, "parentRefs[1] names port 9080, which KubernetesService shop/ratings does not have (its ports: [80]): istiod does not check it, and the VirtualService it makes matches only requests to port 9080, which the service never receives"),
			report.New("HTTPRoute shop/r", RoutesAnswerBuildsNothing, "the Routes of the default listener (*/*) names shop/shop~9080~ratings.shop.svc.cluster.local for host ratings.shop.svc.cluster.local (its most specific host), but it builds no virtual host of the host for these proxies: on port 80 Istio's default route builds it (none of its HTTP routes is for port 80 and this proxy: each match names another port, or sourceLabels, a sourceNamespace or gateways the proxy does not satisfy); istiod made it from HTTPRoute shop/r (rule 0) (for the proxies of shop; web)"),
		}},
		{name: "every unresolved backend, and a mirror's", objects: doc("HTTPRoute", "shop/r", "", `
  parentRefs: [{group: "", kind: Service, name: reviews}]
  rules:
  - backendRefs: [{name: ghost, port: 80}, {name: ratings, port: 80}]
  - filters: [{type: RequestMirror, requestMirror: {backendRef: {name: shadow, port: 80}}}]
    backendRefs: [{group: example.com, kind: Bucket, name: b, port: 80}, {name: zero, port: 80, weight: 0}]`), want: []Finding{
			report.New("HTTPRoute shop/r", RouteBackendUnresolved, "rules[0].backendRefs[0]: backend(ghost.shop.svc.cluster.local) not found (BackendNotFound): requests routed there fail (one of 3 backends that do not resolve; the ResolvedRefs condition istiod writes names only the last)"),
			report.New("HTTPRoute shop/r", RouteBackendUnresolved, `rules[1].backendRefs[0]: referencing unsupported backendRef: group "example.com" kind "Bucket" (InvalidKind): requests routed there fail (one of 3 backends that do not resolve; the ResolvedRefs condition istiod writes names only the last)`),
			report.New("HTTPRoute shop/r", RouteBackendUnresolved, "rules[1].filters[0].requestMirror: backend(shadow.shop.svc.cluster.local) not found (BackendNotFound): requests routed there fail (one of 3 backends that do not resolve; the ResolvedRefs condition istiod writes names only the last)"),
		}},
		{name: "a consumer route routes only its own namespace", objects: consumerRoute, want: []Finding{
			report.New("HTTPRoute web/mine", ConsumerRouteLocal, "parentRefs[0] is KubernetesService shop/reviews, of another namespace: a consumer route, whose routes istiod builds only for the proxies of web; the proxies of every other namespace, shop included, get shop's own routes for it, if any"),
			report.New("HTTPRoute web/mine", RoutesAnswerBuildsNothing, "the Routes of the default listener (*/*) names web/web~reviews.shop.svc.cluster.local for host reviews.shop.svc.cluster.local (its most specific host), but it builds no virtual host of the host for these proxies: on port 80 Istio's default route builds it (made from routes of web for a service of another namespace (a consumer route), it routes only the proxies of web); on port 9090 Istio's default route builds it (made from routes of web for a service of another namespace (a consumer route), it routes only the proxies of web); istiod made it from HTTPRoute web/mine (rule 0) (for the proxies of shop)"),
		}},
		{name: "a producer route the mesh default keeps in its namespace", mesh: &mesh.Config{DefaultVirtualServiceExportTo: []string{"."}}, objects: reviewsRoute,
			want: []Finding{report.New("HTTPRoute shop/r", RouteHiddenByExportTo, `the mesh's defaultVirtualServiceExportTo ["."], which the VirtualService istiod makes of it for reviews.shop.svc.cluster.local (shop/shop~reviews.shop.svc.cluster.local) goes by, keeps it from the proxies of web: they do not get its routes`)}},
		{name: "every route hidden", mesh: &mesh.Config{DefaultVirtualServiceExportTo: []string{"~"}}, objects: reviewsRoute,
			want: []Finding{report.New("HTTPRoute shop/r", RouteHiddenByExportTo, `the mesh's defaultVirtualServiceExportTo ["~"], which the VirtualService istiod makes of it for reviews.shop.svc.cluster.local (shop/shop~reviews.shop.svc.cluster.local) goes by, keeps it from every namespace: they do not get its routes`)}},
		{name: "a consumer route the mesh default shows only elsewhere", mesh: &mesh.Config{DefaultVirtualServiceExportTo: []string{"shop"}}, objects: consumerRoute, want: []Finding{
			report.New("HTTPRoute web/mine", ConsumerRouteLocal, "parentRefs[0] is KubernetesService shop/reviews, of another namespace: a consumer route, whose routes istiod builds only for the proxies of web; the proxies of every other namespace, shop included, get shop's own routes for it, if any"),
			report.New("HTTPRoute web/mine", RouteHiddenByExportTo, `the mesh's defaultVirtualServiceExportTo ["shop"], which the VirtualService istiod makes of it for reviews.shop.svc.cluster.local (web/web~reviews.shop.svc.cluster.local) goes by, keeps it from the proxies of web, the only ones a consumer route routes: they do not get its routes`),
			report.New("HTTPRoute web/mine", RoutesAnswerBuildsNothing, "the Routes of the default listener (*/*) names web/web~reviews.shop.svc.cluster.local for host reviews.shop.svc.cluster.local (its most specific host), but it builds no virtual host of the host for these proxies: on port 80 Istio's default route builds it (made from routes of web for a service of another namespace (a consumer route), it routes only the proxies of web); on port 9090 Istio's default route builds it (made from routes of web for a service of another namespace (a consumer route), it routes only the proxies of web); istiod made it from HTTPRoute web/mine (rule 0) (for the proxies of shop)"),
		}},
		{name: "a route under 1.31.2: nothing", mesh: &mesh.Config{Istio: "1.31.2"}, objects: reviewsRoute},
		{name: "a route under 1.30: converted as 1.31 converts it, and said", mesh: &mesh.Config{Istio: "1.30"}, objects: reviewsRoute, want: []Finding{
			report.New("Gateway API routes", RouteConversionNotRecorded, "Istio 1.30: the 1 VirtualServices made from routes are those the 1.31 build makes; this release's own conversion and route status were not recorded and may differ")}},
		{name: "no route under 1.29: nothing", mesh: &mesh.Config{Istio: "1.29"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []Finding
			for _, f := range gammaView(t, tc.mesh, tc.objects).Lint() {
				if slices.Contains(routeCodes, f.Code) {
					got = append(got, f)
				}
			}
			assert.Equal(t, tc.want, got)
		})
	}
}
