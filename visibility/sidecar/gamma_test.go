package sidecar

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/visibility/inventory"
)

// gammaBaseInventory is the cluster the conversion tests route in: namespaces shop (team a)
// and web, Services shop/reviews (80, 9090), shop/ratings (80) and web/ratings (80), and a
// ServiceEntry shop/api for api.example.com and *.api.example.com.
const gammaBaseInventory = `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: shop, labels: {team: a}}}
- {apiVersion: v1, kind: Namespace, metadata: {name: web}}
- {apiVersion: v1, kind: Service, metadata: {name: reviews, namespace: shop}, spec: {clusterIP: 10.0.0.1, ports: [{port: 80}, {port: 9090}]}}
- {apiVersion: v1, kind: Service, metadata: {name: ratings, namespace: shop}, spec: {clusterIP: 10.0.0.2, ports: [{port: 80}]}}
- {apiVersion: v1, kind: Service, metadata: {name: ratings, namespace: web}, spec: {clusterIP: 10.0.0.3, ports: [{port: 80}]}}
- apiVersion: networking.istio.io/v1
  kind: ServiceEntry
  metadata: {name: api, namespace: shop}
  spec: {hosts: [api.example.com, "*.api.example.com"], ports: [{number: 443, name: tls, protocol: TLS}], resolution: DNS}
`

// apiVersions are the apiVersions the tests' objects are written in, by kind (a
// ReferenceGrant in v1beta1, the version the API server serves it in).
var apiVersions = map[string]string{
	"Gateway": gatewayAPIv1, "HTTPRoute": gatewayAPIv1, "GRPCRoute": gatewayAPIv1, "TCPRoute": gatewayAPIv1, "TLSRoute": gatewayAPIv1,
	"ReferenceGrant": "gateway.networking.k8s.io/v1beta1",
	"VirtualService": istioV1, "Sidecar": istioV1, "ServiceEntry": istioV1, "DestinationRule": istioV1,
	"Service": "v1",
}

const (
	gatewayAPIv1 = "gateway.networking.k8s.io/v1"
	istioV1      = "networking.istio.io/v1"
)

// doc spells one YAML document of a test's objects: kind in its apiVersion, named
// "namespace/name", created at created (an RFC 3339 time, or "" for none), and spec — a flow
// mapping, or block lines each indented by two spaces after a newline.
func doc(kind, name, created, spec string) string {
	ns, n, _ := strings.Cut(name, "/")
	meta := "name: " + n + ", namespace: " + ns
	if created != "" {
		meta += ", creationTimestamp: \"" + created + "\""
	}
	return "apiVersion: " + apiVersions[kind] + "\nkind: " + kind + "\nmetadata: {" + meta + "}\nspec: " + spec + "\n"
}

// docs joins documents into one YAML stream.
func docs(d ...string) string { return strings.Join(d, "---\n") }

// gammaConvert converts the routes of the base inventory and objects (YAML documents), every
// namespace discovered but those of undiscovered.
func gammaConvert(t *testing.T, objects string, undiscovered ...string) (*inventory.Inventory, *gammaRoutes) {
	t.Helper()
	inv, err := inventory.Load([]byte(gammaBaseInventory+"---\n"+objects), "")
	require.NoError(t, err)
	g := convertRoutes(inv, func(ns string) bool {
		for _, u := range undiscovered {
			if ns == u {
				return false
			}
		}
		return true
	})
	return inv, g
}

// gammaDescribe spells the VirtualServices made: "namespace/name host gateway: entries".
func gammaDescribe(g *gammaRoutes) []string {
	var out []string
	for _, v := range g.vss {
		var entries []string
		for i, h := range v.vs.HTTP {
			e := h.Name
			for _, d := range h.Route {
				e += fmt.Sprintf(" ->%s:%d/%d", d.Host, d.Port, d.Weight)
			}
			if len(h.Match) > 0 && h.Match[0].Port != 0 {
				e += fmt.Sprintf(" port=%d", h.Match[0].Port)
			}
			if v.http[i].directResponse != 0 {
				e += fmt.Sprintf(" direct=%d", v.http[i].directResponse)
			}
			entries = append(entries, e)
		}
		for i, r := range append(v.vs.TCP, v.vs.TLS...) {
			e := "l4"
			for _, d := range r.Route {
				e += fmt.Sprintf(" ->%s:%d", d.Host, d.Port)
			}
			if ex := append(v.tcp, v.tls...)[i]; ex.match != nil {
				e += fmt.Sprintf(" port=%d sni=%v", ex.match.port, ex.match.sniHosts)
			}
			entries = append(entries, e)
		}
		out = append(out, fmt.Sprintf("%s/%s %s %s: %s", v.vs.Namespace, v.vs.Name, v.vs.Hosts[0], v.vs.Gateways[0], strings.Join(entries, "; ")))
	}
	return out
}

// gammaDescribeStatus spells a route's status: one line per parent, "Kind ns/name:port
// Accepted=… (reason: message) ResolvedRefs=… (reason: message)".
func gammaDescribeStatus(t *testing.T, g *gammaRoutes, kind, ns, name string) []string {
	t.Helper()
	s, ok := g.routeStatus(kind, ns, name)
	require.True(t, ok, "%s %s/%s: no status", kind, ns, name)
	out := []string{}
	for _, p := range s.Parents {
		line := fmt.Sprintf("%s %s/%s:%d", p.Kind, p.Namespace, p.Name, p.Port)
		for _, c := range p.Conditions {
			line += fmt.Sprintf(" %s=%s (%s: %s)", c.Type, c.Status, c.Reason, c.Message)
		}
		out = append(out, line)
	}
	return out
}

const gammaValid = "Accepted=True (Accepted: Route was valid) ResolvedRefs=True (ResolvedRefs: All references resolved)"

func TestGammaConversion(t *testing.T) {
	tests := []struct {
		name, objects string
		undiscovered  []string
		vss           []string
		status        map[string][]string // "Kind/ns/name" → its parents
	}{{
		name: "a gRPC mirror to a missing Service drops the route's conversion; an HTTP one drops the mirror",
		objects: docs(
			doc("GRPCRoute", "shop/g", "", `
  parentRefs: [{group: "", kind: Service, name: reviews}]
  rules: [{filters: [{type: RequestMirror, requestMirror: {backendRef: {name: ghost, port: 80}}}], backendRefs: [{name: ratings, port: 80}]}]`),
			doc("HTTPRoute", "shop/h", "", `
  parentRefs: [{group: "", kind: Service, name: ratings}]
  rules: [{filters: [{type: RequestMirror, requestMirror: {backendRef: {name: ghost, port: 80}}}], backendRefs: [{name: ratings, port: 80}, {name: nope, port: 80}]}]`)),
		vss: []string{"shop/shop~ratings.shop.svc.cluster.local ratings.shop.svc.cluster.local mesh: shop.h.0 ->ratings.shop.svc.cluster.local:80/1 ->nope.shop.svc.cluster.local:80/1"},
		status: map[string][]string{
			"GRPCRoute/shop/g": {"Service /reviews:0 Accepted=True (Accepted: Route was valid) ResolvedRefs=False (BackendNotFound: backend(ghost.shop.svc.cluster.local) not found)"},
			"HTTPRoute/shop/h": {"Service /ratings:0 Accepted=True (Accepted: Route was valid) ResolvedRefs=False (BackendNotFound: backend(nope.shop.svc.cluster.local) not found; backend(ghost.shop.svc.cluster.local) not found)"},
		},
	}, {
		name: "a Service backend named by its host drops the conversion: an HTTPRoute makes nothing, a TCPRoute a VirtualService without routes",
		objects: docs(
			doc("TCPRoute", "shop/t", "", `
  parentRefs: [{group: "", kind: Service, name: reviews, port: 9090}]
  rules: [{backendRefs: [{name: ratings.shop, port: 80}]}]`),
			doc("HTTPRoute", "shop/h", "", `
  parentRefs: [{group: "", kind: Service, name: reviews}]
  rules: [{name: canary, backendRefs: [{name: ratings.shop, port: 80}]}]`)),
		vss: []string{"shop/t~tcp~0~istio-autogenerated-k8s-gateway reviews.shop.svc.cluster.local mesh: "},
		status: map[string][]string{
			"TCPRoute/shop/t":  {"Service /reviews:9090 Accepted=True (Accepted: Route was valid) ResolvedRefs=False (InvalidDestination: service name invalid; the name of the Service must be used, not the hostname.)"},
			"HTTPRoute/shop/h": {"Service /reviews:0 Accepted=True (Accepted: Route was valid) ResolvedRefs=False (InvalidDestination: service name invalid; the name of the Service must be used, not the hostname.)"},
		},
	}, {
		name: "a rule's name names its entries; a ServiceEntry parent gives each of its hosts a VirtualService; a port joins every match",
		objects: doc("HTTPRoute", "shop/h", "", `
  parentRefs: [{group: networking.istio.io, kind: ServiceEntry, name: api, port: 443}]
  rules:
  - {name: canary, matches: [{path: {value: /a/}}, {path: {type: Exact, value: /b}}], backendRefs: [{name: ratings, port: 80, weight: 0}]}`),
		vss: []string{
			"shop/shop~443~*.api.example.com *.api.example.com mesh: canary port=443 direct=500; canary port=443 direct=500",
			"shop/shop~443~api.example.com api.example.com mesh: canary port=443 direct=500; canary port=443 direct=500",
		},
		status: map[string][]string{"HTTPRoute/shop/h": {"ServiceEntry /api:443 " + gammaValid}},
	}, {
		name: "a parent whose waypoint belongs to another controller is left alone; a route of an undiscovered namespace has no status",
		objects: docs(
			doc("Gateway", "shop/wp", "", `{gatewayClassName: other, listeners: [{name: mesh, port: 15008, protocol: HBONE}]}`),
			`apiVersion: v1
kind: Service
metadata: {name: cart, namespace: shop, labels: {istio.io/use-waypoint: wp}}
spec: {clusterIP: 10.0.0.9, ports: [{port: 80}]}
`,
			doc("HTTPRoute", "shop/h", "", `
  parentRefs: [{group: "", kind: Service, name: cart}]
  rules: [{backendRefs: [{name: cart, port: 80}]}]`),
			doc("HTTPRoute", "web/h", "", `
  parentRefs: [{group: "", kind: Service, name: ratings}]
  rules: [{backendRefs: [{name: ratings, port: 80}]}]`)),
		undiscovered: []string{"web"},
		status:       map[string][]string{"HTTPRoute/shop/h": {}},
	}, {
		name: "a Gateway's listeners: a wildcard listener leaves a more specific one's hosts to it; a backend elsewhere needs a ReferenceGrant under a Gateway only",
		objects: docs(
			doc("Gateway", "shop/gw", "", `
  gatewayClassName: istio
  listeners:
  - {name: a, port: 80, protocol: HTTP, hostname: "*.example.com", allowedRoutes: {namespaces: {from: All}}}
  - {name: b, port: 80, protocol: HTTP, hostname: reviews.example.com}`),
			doc("HTTPRoute", "shop/h", "", `
  parentRefs: [{name: gw}, {group: "", kind: Service, name: reviews}]
  hostnames: [reviews.example.com, x.example.com]
  rules: [{backendRefs: [{name: ratings, namespace: web, port: 80}]}]`)),
		vss: []string{
			"shop/shop~gw~istio-autogenerated-k8s-gateway~a~x.example.com x.example.com shop/gw~istio-autogenerated-k8s-gateway~a: shop.h.0 ->:0/0",
			"shop/shop~gw~istio-autogenerated-k8s-gateway~b~reviews.example.com reviews.example.com shop/gw~istio-autogenerated-k8s-gateway~b: shop.h.0 ->:0/0",
			"shop/shop~gw~istio-autogenerated-k8s-gateway~b~x.example.com x.example.com shop/gw~istio-autogenerated-k8s-gateway~b: shop.h.0 ->:0/0",
			"shop/shop~reviews.shop.svc.cluster.local reviews.shop.svc.cluster.local mesh: shop.h.0 ->ratings.web.svc.cluster.local:80/0",
		},
		status: map[string][]string{"HTTPRoute/shop/h": {
			`Gateway /gw:0 Accepted=True (Accepted: Route was valid, bound to 2 parents) ResolvedRefs=False (RefNotPermitted: backendRef ratings/web not accessible to a HTTPRoute in namespace "shop" (missing a ReferenceGrant?))`,
			"Service /reviews:0 " + gammaValid,
		}},
	}, {
		name: "with a ReferenceGrant; a listener that does not take the kind or the section",
		objects: docs(
			doc("Gateway", "shop/gw", "", `
  gatewayClassName: istio
  listeners: [{name: a, port: 80, protocol: HTTP}]`),
			doc("ReferenceGrant", "web/g", "", `{from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: shop}], to: [{group: "", kind: Service}]}`),
			doc("HTTPRoute", "shop/h", "", `
  parentRefs: [{name: gw, sectionName: a}, {name: gw, sectionName: b}]
  rules: [{backendRefs: [{name: ratings, namespace: web, port: 80}]}]`),
			doc("TCPRoute", "shop/t", "", `
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: ratings, port: 80}]}]`)),
		vss: []string{"shop/shop~gw~istio-autogenerated-k8s-gateway~a~* * shop/gw~istio-autogenerated-k8s-gateway~a: shop.h.0 ->ratings.web.svc.cluster.local:80/0"},
		status: map[string][]string{
			"HTTPRoute/shop/h": {
				`Gateway /gw:0 Accepted=False (NoMatchingParent: sectionName "b" not found) ResolvedRefs=True (ResolvedRefs: All references resolved)`,
				`Gateway /gw:0 ` + gammaValid,
			},
			"TCPRoute/shop/t": {"Gateway /gw:0 Accepted=False (NotAllowedByListeners: kind gateway.networking.k8s.io/v1/TCPRoute is not allowed) ResolvedRefs=True (ResolvedRefs: All references resolved)"},
		},
	}, {
		name: "an entry without a match goes last, but with a port it is a match without a path",
		objects: docs(
			doc("GRPCRoute", "shop/g", "", `
  parentRefs: [{group: "", kind: Service, name: reviews}, {group: "", kind: Service, name: ratings, port: 80}]
  rules: [{backendRefs: [{name: ratings, port: 80}]}, {matches: [{}], backendRefs: [{name: reviews, port: 9090}]}]`),
			doc("TLSRoute", "shop/t", "", `
  parentRefs: [{group: networking.istio.io, kind: ServiceEntry, name: api}]
  hostnames: [api.example.com, v1.api.example.com, other.example.com]
  rules: [{backendRefs: [{name: ratings, port: 443}]}]`)),
		vss: []string{
			"shop/shop~80~ratings.shop.svc.cluster.local ratings.shop.svc.cluster.local mesh: shop.g.0 ->ratings.shop.svc.cluster.local:80/0 port=80; shop.g.1 ->reviews.shop.svc.cluster.local:9090/0 port=80",
			"shop/shop~reviews.shop.svc.cluster.local reviews.shop.svc.cluster.local mesh: shop.g.1 ->reviews.shop.svc.cluster.local:9090/0; shop.g.0 ->ratings.shop.svc.cluster.local:80/0",
			"shop/t~tls~0~istio-autogenerated-k8s-gateway api.example.com mesh: l4 ->ratings.shop.svc.cluster.local:443 port=0 sni=[api.example.com]",
			"shop/t~tls~1~istio-autogenerated-k8s-gateway *.api.example.com mesh: l4 ->ratings.shop.svc.cluster.local:443 port=0 sni=[v1.api.example.com]",
		},
		status: map[string][]string{
			"GRPCRoute/shop/g": {"Service /reviews:0 " + gammaValid, "Service /ratings:80 " + gammaValid},
			"TLSRoute/shop/t":  {"ServiceEntry /api:0 " + gammaValid},
		},
	}, {
		name: "an HTTPS listener without tls settings is no parent",
		objects: docs(
			doc("Gateway", "shop/gw", "", `{gatewayClassName: istio, listeners: [{name: https, port: 443, protocol: HTTPS}]}`),
			doc("HTTPRoute", "shop/h", "", `
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: ratings, port: 80}]}]`)),
		status: map[string][]string{"HTTPRoute/shop/h": {}},
	}, {
		name: "a mesh parent without a port before one with: the entries of the second start from the first's order",
		objects: doc("GRPCRoute", "shop/g", "", `
  parentRefs: [{group: "", kind: Service, name: ratings}, {group: "", kind: Service, name: reviews, port: 9090}]
  rules: [{backendRefs: [{name: ratings, port: 80}]}, {matches: [{}], backendRefs: [{name: reviews, port: 9090}]}]`),
		vss: []string{
			"shop/shop~9090~reviews.shop.svc.cluster.local reviews.shop.svc.cluster.local mesh: shop.g.1 ->reviews.shop.svc.cluster.local:9090/0 port=9090; shop.g.0 ->ratings.shop.svc.cluster.local:80/0 port=9090",
			"shop/shop~ratings.shop.svc.cluster.local ratings.shop.svc.cluster.local mesh: shop.g.1 ->reviews.shop.svc.cluster.local:9090/0; shop.g.0 ->ratings.shop.svc.cluster.local:80/0",
		},
		status: map[string][]string{"GRPCRoute/shop/g": {"Service /reviews:9090 " + gammaValid, "Service /ratings:0 " + gammaValid}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, g := gammaConvert(t, tc.objects, tc.undiscovered...)
			assert.Equal(t, tc.vss, gammaDescribe(g))
			for route, want := range tc.status {
				kind, rest, _ := strings.Cut(route, "/")
				ns, name, _ := strings.Cut(rest, "/")
				assert.Equal(t, want, gammaDescribeStatus(t, g, kind, ns, name), route)
			}
			assert.Len(t, g.status, len(tc.status), "the routes with a status")
		})
	}
}
