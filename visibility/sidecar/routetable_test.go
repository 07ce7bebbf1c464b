package sidecar

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/visibility/mesh"
)

// spellTable spells a route table a virtual host a line: "name VirtualService".
func spellTable(t []VirtualHost) []string {
	out := []string{}
	for _, vh := range t {
		out = append(out, vh.Name+" "+vh.VirtualService)
	}
	return out
}

// TestRouteTable has a row per rule of the route table: which listener, which services,
// which VirtualService builds each virtual host, the catch-all. The cluster is
// gammaBaseInventory's (shop/reviews 80, 9090; shop/ratings 80; web/ratings 80; the
// ServiceEntry shop/api for api.example.com and *.api.example.com, 443 TLS) and the objects.
func TestRouteTable(t *testing.T) {
	type ask struct {
		ns     string
		labels labels.Set
		port   uint32
		want   []string
	}
	const (
		reviews80   = "reviews.shop.svc.cluster.local:80"
		reviews9090 = "reviews.shop.svc.cluster.local:9090"
		ratings80   = "ratings.shop.svc.cluster.local:80"
		webRatings  = "ratings.web.svc.cluster.local:80 "
	)
	for _, tc := range []struct {
		name, objects string
		mesh          *mesh.Config
		asks          []ask
	}{
		{name: "no VirtualService: Istio's default route for each HTTP service port, the TLS ServiceEntry none", asks: []ask{
			{"shop", nil, 80, []string{ratings80 + " ", webRatings, reviews80 + " ", "allow_any "}},
			{"shop", nil, 9090, []string{reviews9090 + " ", "allow_any "}},
			{"shop", nil, 443, []string{"allow_any "}},
		}},
		{name: "a port's protocol: TCP and TLS ports get no virtual host", objects: doc("Service", "shop/db", "", `{clusterIP: 10.0.0.9, ports: [{name: tcp-db, port: 80}, {name: grpc-web, port: 8080}, {name: x, port: 3306}, {port: 53, protocol: UDP}]}`), asks: []ask{
			{"shop", nil, 80, []string{ratings80 + " ", webRatings, reviews80 + " ", "allow_any "}},
			{"shop", nil, 8080, []string{"db.shop.svc.cluster.local:8080 ", "allow_any "}},
			{"shop", nil, 3306, []string{"allow_any "}},
			{"shop", nil, 53, []string{"allow_any "}},
		}},
		{name: "a host of a VirtualService that is no service: on port 80, and on 9090 only beside a service there", objects: docs(
			doc("VirtualService", "shop/ext", "", `{hosts: [books.example.org], http: [{route: [{destination: {host: reviews}}]}]}`),
			doc("VirtualService", "shop/both", "2026-01-01T00:00:01Z", `{hosts: [reviews, shelf.example.org], http: [{route: [{destination: {host: reviews}}]}]}`)), asks: []ask{
			{"web", nil, 80, []string{"books.example.org:80 shop/ext", ratings80 + " ", webRatings, reviews80 + " shop/both", "shelf.example.org:80 shop/both", "allow_any "}},
			{"web", nil, 9090, []string{reviews9090 + " shop/both", "shelf.example.org:9090 shop/both", "allow_any "}},
		}},
		{name: "a user's wildcard claims only the services it is the Routes answer for", objects: docs(
			doc("VirtualService", "shop/all", "", `{hosts: ["*.shop.svc.cluster.local"], http: [{route: [{destination: {host: reviews}}]}]}`),
			doc("VirtualService", "shop/reviews", "2026-01-01T00:00:01Z", `{hosts: [reviews], http: [{route: [{destination: {host: reviews}}]}]}`)), asks: []ask{
			{"shop", nil, 80, []string{ratings80 + " shop/all", webRatings, reviews80 + " shop/reviews", "allow_any "}},
		}},
		{name: "HTTP routes for another port, another source or none: no claim", objects: docs(
			doc("VirtualService", "shop/on9090", "", `{hosts: [reviews], http: [{match: [{port: 9090}], route: [{destination: {host: reviews}}]}]}`),
			doc("VirtualService", "shop/fromweb", "", `{hosts: [ratings], http: [{match: [{sourceLabels: {app: web}}], route: [{destination: {host: ratings}}]}]}`),
			doc("VirtualService", "web/tcp", "", `{hosts: [ratings], tcp: [{route: [{destination: {host: ratings}}]}]}`)), asks: []ask{
			{"shop", nil, 80, []string{ratings80 + " ", webRatings, reviews80 + " ", "allow_any "}},
			{"shop", labels.Set{"app": "web"}, 80, []string{ratings80 + " shop/fromweb", webRatings, reviews80 + " ", "allow_any "}},
			{"shop", nil, 9090, []string{reviews9090 + " shop/on9090", "allow_any "}},
		}},
		{name: "a consumer route builds for its own namespace's proxies only; a producer route for all", objects: docs(
			doc("HTTPRoute", "web/mine", "", `
  parentRefs: [{group: "", kind: Service, name: reviews, namespace: shop}]
  rules: [{backendRefs: [{name: ratings, namespace: shop, port: 80}]}]`),
			doc("HTTPRoute", "shop/theirs", "", `
  parentRefs: [{group: "", kind: Service, name: ratings, port: 80}]
  rules: [{backendRefs: [{name: ratings, port: 80}]}]`)), asks: []ask{
			{"web", nil, 80, []string{ratings80 + " shop/shop~80~ratings.shop.svc.cluster.local", webRatings, reviews80 + " web/web~reviews.shop.svc.cluster.local", "allow_any "}},
			{"shop", nil, 80, []string{ratings80 + " shop/shop~80~ratings.shop.svc.cluster.local", webRatings, reviews80 + " ", "allow_any "}},
			{"shop", nil, 9090, []string{reviews9090 + " ", "allow_any "}},
		}},
		{name: "a route of a ServiceEntry parent with a wildcard host claims nothing through it", objects: doc("HTTPRoute", "shop/api", "", `
  parentRefs: [{group: networking.istio.io, kind: ServiceEntry, name: api, port: 443}]
  rules: [{backendRefs: [{name: ratings, port: 80}]}]`), asks: []ask{
			{"shop", nil, 443, []string{"allow_any "}},
		}},
		{name: "the listener: the first with the port, else the one without; none, only the catch-all", objects: docs(
			doc("Sidecar", "web/web", "", `
  egress:
  - {port: {number: 9090, protocol: GRPC, name: grpc}, hosts: ["shop/*"]}
  - {hosts: ["./*"]}`),
			doc("Sidecar", "shop/shop", "", `
  egress:
  - {port: {number: 9090, protocol: GRPC, name: grpc}, hosts: ["shop/*"]}`)), asks: []ask{
			{"web", nil, 9090, []string{reviews9090 + " ", "allow_any "}},
			{"web", nil, 80, []string{webRatings, "allow_any "}},
			{"shop", nil, 80, []string{"allow_any "}},
		}},
		{name: "an HTTP_PROXY listener routes every port of its services", objects: doc("Sidecar", "web/proxy", "", `
  egress:
  - {port: {number: 3128, protocol: HTTP_PROXY, name: proxy}, hosts: ["shop/*"]}`), asks: []ask{
			{"web", nil, 3128, []string{ratings80 + " ", reviews80 + " ", reviews9090 + " ", "allow_any "}},
		}},
		{name: "the catch-all: the mesh's mode", mesh: &mesh.Config{OutboundTrafficPolicy: &mesh.OutboundTrafficPolicy{Mode: mesh.OutboundRegistryOnly}}, asks: []ask{
			{"shop", nil, 9090, []string{reviews9090 + " ", "block_all "}},
		}},
		{name: "the catch-all: a policy without a mode is REGISTRY_ONLY", mesh: &mesh.Config{OutboundTrafficPolicy: &mesh.OutboundTrafficPolicy{}}, asks: []ask{
			{"shop", nil, 9090, []string{reviews9090 + " ", "block_all "}},
		}},
		{name: "the catch-all: a Sidecar's mode wins", mesh: &mesh.Config{OutboundTrafficPolicy: &mesh.OutboundTrafficPolicy{Mode: mesh.OutboundAllowAnyDynamicDNS}}, objects: doc("Sidecar", "web/strict", "", `{outboundTrafficPolicy: {egressProxy: {host: egress.example.org}}}`), asks: []ask{
			{"web", nil, 9090, []string{reviews9090 + " ", "block_all "}},
			{"shop", nil, 9090, []string{reviews9090 + " ", "allow_any_dynamic_dns "}},
		}},
		{name: "a host of a VirtualService whose one domain an earlier virtual host has is dropped", objects: docs(
			doc("VirtualService", "shop/full", "", `{hosts: [reviews], http: [{route: [{destination: {host: reviews}}]}]}`),
			doc("VirtualService", "shop/short", "2026-01-01T00:00:01Z", `{hosts: [reviews.shop, reviews.other], http: [{route: [{destination: {host: reviews}}]}]}`)), asks: []ask{
			{"web", nil, 80, []string{ratings80 + " ", webRatings, "reviews.other:80 shop/short", reviews80 + " shop/full", "allow_any "}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := gammaView(t, tc.mesh, tc.objects)
			for _, a := range tc.asks {
				assert.Equal(t, a.want, spellTable(v.RouteTable(a.ns, a.labels, a.port)), "a proxy of %s with %v, port %d", a.ns, a.labels, a.port)
			}
		})
	}
}
