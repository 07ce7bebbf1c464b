package inventory

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gwDump is an inventory of namespace shop and the objects given, one document each.
func gwDump(objects ...string) []byte {
	return []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\n" + strings.Join(objects, "\n---\n"))
}

// gwObject is a gateway.networking.k8s.io/version object of namespace shop: its kind, its
// name, and the rest of its document (its spec, if any).
func gwObject(version, kind, name, rest string) string {
	return "apiVersion: " + GatewayAPIGroup + "/" + version + "\nkind: " + kind + "\nmetadata: {name: " + name + ", namespace: shop}\n" + rest
}

// TestLoadRouteDefaults: what a route leaves out is read as the API server writes it.
func TestLoadRouteDefaults(t *testing.T) {
	for _, tc := range gwDefaults {
		t.Run(tc.name, func(t *testing.T) {
			inv, err := Load(gwDump(tc.object), "")
			require.NoError(t, err)
			require.Len(t, inv.Routes, 1)
			assert.Equal(t, tc.want, inv.Routes[0])
			require.NoError(t, inv.Validate())
		})
	}
}

// gwDefaults are routes that leave fields out, and what Load reads.
var gwDefaults = []struct {
	name, object string
	want         Route
}{{
	name:   "an HTTPRoute without rules has one rule matching path prefix /",
	object: gwObject("v1", "HTTPRoute", "r", `spec: {parentRefs: [{name: gw}]}`),
	want: Route{Kind: HTTPRouteKind, Namespace: "shop", Name: "r",
		ParentRefs: []ParentRef{{Group: GatewayAPIGroup, Kind: "Gateway", Name: "gw"}},
		Rules:      []RouteRule{{Matches: []RouteMatch{{Path: &PathMatch{Type: MatchPathPrefix, Value: "/"}}}}}},
}, {
	name: "a Service parent needs group \"\"; a match's path, header and query types; a backend's kind and weight",
	object: gwObject("v1beta1", "HTTPRoute", "r", `spec:
  parentRefs: [{kind: Service, group: "", name: reviews, port: 9080}, {kind: Service, name: reviews}]
  rules:
  - matches: [{headers: [{name: x-user, value: alice}], queryParams: [{name: debug, value: "1"}], method: GET}, {path: {value: /api}}]
    backendRefs: [{name: reviews, port: 9080}]
  - backendRefs: [{name: reviews, port: 9080, weight: 0}]`),
	want: Route{Kind: HTTPRouteKind, Namespace: "shop", Name: "r",
		ParentRefs: []ParentRef{{Kind: "Service", Name: "reviews", Port: 9080}, {Group: GatewayAPIGroup, Kind: "Service", Name: "reviews"}},
		Rules: []RouteRule{{
			Matches: []RouteMatch{
				{Path: &PathMatch{Type: MatchPathPrefix, Value: "/"}, Headers: []ValueMatch{{Type: MatchExact, Name: "x-user", Value: "alice"}},
					QueryParams: []ValueMatch{{Type: MatchExact, Name: "debug", Value: "1"}}, Method: "GET"},
				{Path: &PathMatch{Type: MatchPathPrefix, Value: "/api"}},
			},
			BackendRefs: []BackendRef{{Kind: "Service", Name: "reviews", Port: 9080, Weight: 1}},
		}, {
			Matches:     []RouteMatch{{Path: &PathMatch{Type: MatchPathPrefix, Value: "/"}}},
			BackendRefs: []BackendRef{{Kind: "Service", Name: "reviews", Port: 9080}},
		}}},
}, {
	name: "a GRPCRoute's rule has no match unless given; a method match is Exact",
	object: gwObject("v1", "GRPCRoute", "g", `spec:
  rules:
  - matches: [{method: {service: pkg.Greeter}}]
  - backendRefs: [{group: networking.istio.io, kind: Hostname, name: api.example.com, port: 443}]`),
	want: Route{Kind: GRPCRouteKind, Namespace: "shop", Name: "g", Rules: []RouteRule{
		{Matches: []RouteMatch{{GRPCMethod: &GRPCMethodMatch{Type: MatchExact, Service: "pkg.Greeter"}}}},
		{BackendRefs: []BackendRef{{Group: "networking.istio.io", Kind: "Hostname", Name: "api.example.com", Port: 443, Weight: 1}}},
	}},
}, {
	name: "filters: a mirror fraction's denominator 100, a redirect's status 302",
	object: gwObject("v1", "HTTPRoute", "r", `spec:
  rules:
  - matches: []
    filters:
    - {type: RequestMirror, requestMirror: {backendRef: {name: shadow, port: 80}, fraction: {numerator: 5}}}
    - {type: RequestRedirect, requestRedirect: {scheme: https}}`),
	want: Route{Kind: HTTPRouteKind, Namespace: "shop", Name: "r", Rules: []RouteRule{{Filters: []RouteFilter{
		{Type: FilterRequestMirror, RequestMirror: &MirrorFilter{BackendRef: BackendRef{Kind: "Service", Name: "shadow", Port: 80}, Fraction: &Fraction{Numerator: 5, Denominator: 100}}},
		{Type: FilterRequestRedirect, RequestRedirect: &RedirectFilter{Scheme: "https", StatusCode: 302}},
	}}}},
}, {
	name: "TLSRoute v1alpha2 and TCPRoute v1alpha2",
	object: gwObject("v1alpha2", "TLSRoute", "t", `spec:
  hostnames: [api.example.com]
  rules: [{backendRefs: [{name: api, port: 443}]}]`),
	want: Route{Kind: TLSRouteKind, Namespace: "shop", Name: "t", Hostnames: []string{"api.example.com"},
		Rules: []RouteRule{{BackendRefs: []BackendRef{{Kind: "Service", Name: "api", Port: 443, Weight: 1}}}}},
}}

// TestLoadGatewayAndGrantDefaults: a listener allows routes of its own namespace; a Gateway of
// networking.istio.io is another kind of object.
func TestLoadGatewayAndGrantDefaults(t *testing.T) {
	inv, err := Load(gwDump(gwObject("v1", "Gateway", "gw", `spec:
  gatewayClassName: istio
  listeners:
  - {name: http, port: 80, protocol: HTTP}
  - {name: tls, port: 443, protocol: TLS, tls: {certificateRefs: [{name: cert}]}, allowedRoutes: {kinds: [{kind: TLSRoute}]}}`),
		`apiVersion: networking.istio.io/v1
kind: Gateway
metadata: {name: gw, namespace: shop}
spec: {servers: []}`,
		gwObject("v1beta1", "ReferenceGrant", "g", `spec:
  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: web}]
  to: [{group: "", kind: Service}]`),
		gwObject("v1", "UDPRoute", "u", "")), "")
	require.NoError(t, err)
	assert.Equal(t, []Gateway{{Namespace: "shop", Name: "gw", ClassName: "istio", Listeners: []Listener{
		{Name: "http", Port: 80, Protocol: "HTTP", AllowedRoutes: AllowedRoutes{From: "Same"}},
		{Name: "tls", Port: 443, Protocol: "TLS", TLSMode: "Terminate", AllowedRoutes: AllowedRoutes{From: "Same", Kinds: []RouteGroupKind{{Group: GatewayAPIGroup, Kind: "TLSRoute"}}}},
	}}}, inv.Gateways)
	assert.Equal(t, []ReferenceGrant{{Namespace: "shop", Name: "g", From: []ReferenceGrantFrom{{Group: GatewayAPIGroup, Kind: "HTTPRoute", Namespace: "web"}},
		To: []ReferenceGrantTo{{Kind: "Service"}}}}, inv.ReferenceGrants)
}

// TestLoadRouteRefusals: what the API server's validation refuses, in its words, every problem
// at once; an unknown field with the field it resembles.
func TestLoadRouteRefusals(t *testing.T) {
	for _, tc := range gwRefusals {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(gwDump(tc.object), "")
			require.Error(t, err)
			assert.Equal(t, tc.want, fieldErrorTexts(t, err))
		})
	}
}

// fieldErrorTexts is the message of every problem joined in err, failing the test if one is
// not a FieldError.
func fieldErrorTexts(t *testing.T, err error) []string {
	t.Helper()
	var out []string
	for _, e := range fieldErrors(t, err) {
		out = append(out, e.Error())
	}
	return out
}

// gwRefusals are Gateway API objects the API server refuses, and Load's problems.
var gwRefusals = []struct {
	name, object string
	want         []string
}{{
	name:   "an unknown field",
	object: gwObject("v1", "HTTPRoute", "r", `spec: {parentRef: [{name: gw}]}`),
	want:   []string{`document 2 (HTTPRoute shop/r): spec: unknown field "parentRef" (did you mean "parentRefs"?)`},
}, {
	name: "enums, a Service backend without a port, a relative path",
	object: gwObject("v1", "HTTPRoute", "r", `spec:
  rules:
  - matches: [{path: {type: Prefix, value: /a}, headers: [{type: Glob, name: x, value: y}], method: FETCH}, {path: {type: Exact, value: a//b}}]
    backendRefs: [{name: reviews}]
    filters: [{type: Mirror}]`),
	want: []string{
		`document 2 (HTTPRoute shop/r): spec.rules[0].matches[0].headers[0].type: Unsupported value: "Glob": supported values: "Exact", "RegularExpression"`,
		`document 2 (HTTPRoute shop/r): spec.rules[0].matches[0].method: Unsupported value: "FETCH": supported values: "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"`,
		`document 2 (HTTPRoute shop/r): spec.rules[0].matches[0].path.type: Unsupported value: "Prefix": supported values: "Exact", "PathPrefix", "RegularExpression"`,
		`document 2 (HTTPRoute shop/r): spec.rules[0].matches[1].path: Invalid value: "object": value must be an absolute path and start with '/' when type one of ['Exact', 'PathPrefix']`,
		`document 2 (HTTPRoute shop/r): spec.rules[0].matches[1].path: Invalid value: "object": must not contain '//' when type one of ['Exact', 'PathPrefix']`,
		`document 2 (HTTPRoute shop/r): spec.rules[0].filters[0].type: Unsupported value: "Mirror": supported values: "RequestHeaderModifier", "ResponseHeaderModifier", "RequestMirror", "RequestRedirect", "URLRewrite", "ExtensionRef", "CORS", "ExternalAuth"`,
		`document 2 (HTTPRoute shop/r): spec.rules[0].backendRefs[0]: Invalid value: "object": Must have port for Service reference`,
	},
}, {
	name: "two references to one parent, a port 0, a namespace that is no label, a weight out of range",
	object: gwObject("v1", "TCPRoute", "t", `spec:
  parentRefs: [{kind: Service, group: "", name: db, port: 5432}, {kind: Service, group: "", name: db, port: 5432}, {name: gw, port: 0}]
  rules: [{backendRefs: [{name: db, namespace: Data, port: 5432, weight: 1000001}]}]`),
	want: []string{
		`document 2 (TCPRoute shop/t): spec.parentRefs[2].port: Invalid value: 0: spec.parentRefs[2].port in body should be greater than or equal to 1`,
	},
}, {
	name: "the same without the port 0",
	object: gwObject("v1", "TCPRoute", "t", `spec:
  parentRefs: [{kind: Service, group: "", name: db, port: 5432}, {kind: Service, group: "", name: db, port: 5432}]
  rules: [{backendRefs: [{name: db, namespace: Data, port: 5432, weight: 1000001}]}]`),
	want: []string{
		`document 2 (TCPRoute shop/t): spec.parentRefs: Invalid value: "array": sectionName or port must be unique when parentRefs includes 2 or more references to the same parent`,
		`document 2 (TCPRoute shop/t): spec.rules[0].backendRefs[0].namespace: Invalid value: "Data": spec.rules[0].backendRefs[0].namespace in body should match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'`,
		`document 2 (TCPRoute shop/t): spec.rules[0].backendRefs[0].weight: Invalid value: 1000001: spec.rules[0].backendRefs[0].weight in body should be less than or equal to 1000000`,
	},
}, {
	name: "a gRPC method match naming neither service nor method; a filter without its settings; a version not served",
	object: gwObject("v1beta1", "GRPCRoute", "g", `spec:
  rules: [{matches: [{method: {type: Exact}}], filters: [{type: ExtensionRef}]}]`),
	want: []string{
		`document 2 (GRPCRoute shop/g): apiVersion: "gateway.networking.k8s.io/v1beta1" is not a version clusters serve GRPCRoute in (gateway.networking.k8s.io/v1, gateway.networking.k8s.io/v1alpha2)`,
		`document 2 (GRPCRoute shop/g): spec.rules[0].filters[0]: Invalid value: "object": filter.extensionRef must be specified for ExtensionRef filter.type`,
	},
}, {
	name: "a gRPC method match naming neither service nor method",
	object: gwObject("v1", "GRPCRoute", "g", `spec:
  rules: [{matches: [{method: {type: Exact}}]}]`),
	want: []string{`document 2 (GRPCRoute shop/g): spec.rules[0].matches[0].method: Invalid value: "object": One or both of 'service' or 'method' must be specified`},
}, {
	name:   "an HTTPRoute with no rules, a hostname with upper case, a redirect beside backends",
	object: gwObject("v1", "HTTPRoute", "r", `spec: {hostnames: [Api.example.com], rules: []}`),
	want: []string{
		`document 2 (HTTPRoute shop/r): spec.hostnames[0]: Invalid value: "Api.example.com": spec.hostnames[0] in body should match '^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'`,
		`document 2 (HTTPRoute shop/r): spec.rules: Invalid value: 0: spec.rules in body should have at least 1 items`,
	},
}, {
	name: "a redirect beside backends; header modifiers repeated",
	object: gwObject("v1", "HTTPRoute", "r", `spec:
  rules:
  - filters:
    - {type: RequestRedirect, requestRedirect: {statusCode: 304}}
    - {type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: a, value: b}]}}
    - {type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: a, value: c}]}}
    backendRefs: [{name: reviews, port: 80}]`),
	want: []string{
		`document 2 (HTTPRoute shop/r): spec.rules[0].filters[0].requestRedirect.statusCode: Unsupported value: 304: supported values: "301", "302", "303", "307", "308"`,
		`document 2 (HTTPRoute shop/r): spec.rules[0].filters: Invalid value: "array": RequestHeaderModifier filter cannot be repeated`,
		`document 2 (HTTPRoute shop/r): spec.rules[0]: Invalid value: "object": RequestRedirect filter must not be used together with backendRefs`,
	},
}, {
	name: "a Gateway: listener names twice, a from not known",
	object: gwObject("v1", "Gateway", "gw", `spec:
  gatewayClassName: istio
  listeners:
  - {name: http, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: Everywhere}}}
  - {name: http, port: 8080, protocol: HTTP}`),
	want: []string{
		`document 2 (Gateway shop/gw): spec.listeners[0].allowedRoutes.namespaces.from: Unsupported value: "Everywhere": supported values: "All", "Selector", "Same"`,
		`document 2 (Gateway shop/gw): spec.listeners: Invalid value: "array": Listener name must be unique within the Gateway`,
	},
}, {
	name:   "a near miss of a kind",
	object: gwObject("v1", "HTTPRoutes", "r", ""),
	want:   []string{`document 2: kind: unknown kind "HTTPRoutes" (did you mean "HTTPRoute"? as written, the object would be skipped)`},
}}

// TestValidateRoutes: an inventory built in Go is checked by the same rules, naming fields as
// the Go value does.
func TestValidateRoutes(t *testing.T) {
	inv := &Inventory{Routes: []Route{{
		Kind: HTTPRouteKind, Namespace: "shop", Name: "r",
		ParentRefs: []ParentRef{{Kind: "Service", Name: "reviews", Port: 70000}},
		Rules: []RouteRule{{
			Matches:     []RouteMatch{{Path: &PathMatch{Type: "Glob", Value: "/"}}, {}},
			Filters:     []RouteFilter{{Type: FilterURLRewrite}},
			BackendRefs: []BackendRef{{Kind: "Service", Name: "reviews", Weight: 1}},
		}},
	}, {Kind: GRPCRouteKind, Namespace: "shop", Name: "g", Rules: []RouteRule{{Matches: []RouteMatch{
		{GRPCMethod: &GRPCMethodMatch{Type: MatchExact}}, {GRPCMethod: &GRPCMethodMatch{Type: "Glob", Service: "pkg.Greeter"}}}}}},
		{Kind: HTTPRouteKind, Namespace: "shop", Name: "r", Rules: []RouteRule{{}}},
		{Kind: "UDPRoute", Namespace: "shop", Name: "u"},
	}, Gateways: []Gateway{{Namespace: "shop", Name: "gw"}}}
	err := inv.Validate()
	require.Error(t, err)
	assert.Equal(t, []string{
		`Routes[0] (HTTPRoute shop/r): ParentRefs[0].Port: Invalid value: 70000: ParentRefs[0].Port in body should be less than or equal to 65535`,
		`Routes[0] (HTTPRoute shop/r): Rules[0].Matches[0].Path.Type: Unsupported value: "Glob": supported values: "Exact", "PathPrefix", "RegularExpression"`,
		`Routes[0] (HTTPRoute shop/r): Rules[0].Matches[1].Path: Required value`,
		`Routes[0] (HTTPRoute shop/r): Rules[0].Filters[0]: Invalid value: "object": filter.urlRewrite must be specified for URLRewrite filter.type`,
		`Routes[0] (HTTPRoute shop/r): Rules[0].BackendRefs[0]: Invalid value: "object": Must have port for Service reference`,
		`Routes[1] (GRPCRoute shop/g): Rules[0].Matches[0].GRPCMethod: Invalid value: "object": One or both of 'service' or 'method' must be specified`,
		`Routes[1] (GRPCRoute shop/g): Rules[0].Matches[1].GRPCMethod.Type: Unsupported value: "Glob": supported values: "Exact", "RegularExpression"`,
		`Routes[2] (HTTPRoute shop/r): a second HTTPRoute shop/r (the first is Routes[0])`,
		`Routes[3] (UDPRoute shop/u): Kind: Unsupported value: "UDPRoute": supported values: "HTTPRoute", "GRPCRoute", "TCPRoute", "TLSRoute"`,
		`Routes[3] (UDPRoute shop/u): Rules: Invalid value: 0: Rules in body should have at least 1 items`,
		`Gateways[0] (Gateway shop/gw): ClassName: Required value`,
		`Gateways[0] (Gateway shop/gw): Listeners: Invalid value: 0: Listeners in body should have at least 1 items`,
	}, fieldErrorTexts(t, err))
	assert.True(t, errors.Is(err, ErrDuplicate))
}
