package inventory

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RouteKind is the kind of a Gateway API route.
type RouteKind string

// The kinds of route Load reads (gateway.networking.k8s.io).
const (
	HTTPRouteKind RouteKind = "HTTPRoute"
	GRPCRouteKind RouteKind = "GRPCRoute"
	TCPRouteKind  RouteKind = "TCPRoute"
	TLSRouteKind  RouteKind = "TLSRoute"
)

// GatewayAPIGroup is the API group of the Gateway API: the group of a route, a Gateway and a
// ReferenceGrant, and the group a parentRef has when it names none.
const GatewayAPIGroup = "gateway.networking.k8s.io"

// Route is a Gateway API route — an HTTPRoute, a GRPCRoute, a TCPRoute or a TLSRoute — as far
// as istiod converts it: its parents, hostnames and rules, with the defaults the API server
// writes (see ParentRef, BackendRef, RouteRule and RouteMatch). One type holds the four kinds;
// the fields a kind does not have stay empty.
type Route struct {
	Kind         RouteKind `json:"kind"`
	Namespace    string    `json:"namespace"`
	Name         string    `json:"name"`
	CreationTime time.Time `json:"creationTime,omitzero"`
	// ParentRefs are spec.parentRefs, in order: the Gateways (listeners) or, for the mesh, the
	// Services and ServiceEntries the route attaches to.
	ParentRefs []ParentRef `json:"parentRefs,omitempty"`
	// Hostnames are spec.hostnames (HTTPRoute, GRPCRoute, TLSRoute).
	Hostnames []string    `json:"hostnames,omitempty"`
	Rules     []RouteRule `json:"rules,omitempty"`
}

// ParentRef is one spec.parentRefs entry. Group and Kind are as the API server stores them: a
// parentRef that names neither is a Gateway's (GatewayAPIGroup, "Gateway"), so a mesh parent
// is {Group: "", Kind: "Service"} or {Group: "networking.istio.io", Kind: "ServiceEntry"}.
type ParentRef struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
	// Namespace is the parent's namespace; "" is the route's.
	Namespace   string `json:"namespace,omitempty"`
	Name        string `json:"name"`
	SectionName string `json:"sectionName,omitempty"`
	// Port is the parent's port; 0 means none given.
	Port uint32 `json:"port,omitempty"`
}

// RouteRule is one spec.rules entry. An HTTPRoute written without rules has the one rule
// the API server writes: Matches [{Path: PathPrefix "/"}].
type RouteRule struct {
	// Name is the rule's name, "" when it has none.
	Name string `json:"name,omitempty"`
	// Matches (HTTPRoute, GRPCRoute): an HTTPRoute rule written without matches has the
	// one the API server writes, path prefix "/".
	Matches []RouteMatch `json:"matches,omitempty"`
	// Filters (HTTPRoute, GRPCRoute), in order.
	Filters     []RouteFilter `json:"filters,omitempty"`
	BackendRefs []BackendRef  `json:"backendRefs,omitempty"`
}

// The match types of a path, a header, a query parameter and a gRPC method.
const (
	MatchExact             = "Exact"
	MatchPathPrefix        = "PathPrefix"
	MatchRegularExpression = "RegularExpression"
)

// RouteMatch is one match of a rule: an HTTPRoute's path, headers, query parameters and
// method, or a GRPCRoute's method and headers. Every match type the API server defaults is
// written out: a path without a type is a PathPrefix, a header or query parameter match
// without one Exact, a gRPC method match without one Exact.
type RouteMatch struct {
	// Path (HTTPRoute) is never nil in an HTTPRoute read by Load: a match without a path
	// matches path prefix "/".
	Path *PathMatch `json:"path,omitempty"`
	// Headers (HTTPRoute, GRPCRoute) and QueryParams (HTTPRoute), in order.
	Headers     []ValueMatch `json:"headers,omitempty"`
	QueryParams []ValueMatch `json:"queryParams,omitempty"`
	// Method (HTTPRoute) is an HTTP method such as GET; "" matches any.
	Method string `json:"method,omitempty"`
	// GRPCMethod (GRPCRoute) is the match's method, nil for none.
	GRPCMethod *GRPCMethodMatch `json:"grpcMethod,omitempty"`
}

// PathMatch is an HTTPRoute match's path: Type is MatchExact, MatchPathPrefix or
// MatchRegularExpression.
type PathMatch struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// ValueMatch is a header or query parameter match: Type is MatchExact or
// MatchRegularExpression.
type ValueMatch struct {
	Type  string `json:"type"`
	Name  string `json:"name"`
	Value string `json:"value"`
}

// GRPCMethodMatch is a GRPCRoute match's method: Type is MatchExact or
// MatchRegularExpression; Service or Method ("" for none) or both are given.
type GRPCMethodMatch struct {
	Type    string `json:"type"`
	Service string `json:"service,omitempty"`
	Method  string `json:"method,omitempty"`
}

// BackendRef is a rule's backendRefs entry, or a mirror's backend. Group and Kind are as the
// API server stores them: a backendRef that names neither is a Kubernetes Service's ("",
// "Service").
type BackendRef struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
	// Namespace is the backend's namespace; "" is the route's.
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Port is the backend's port; 0 means none given.
	Port uint32 `json:"port,omitempty"`
	// Weight is the backend's weight, 1 when none is given (a mirror's backend has none).
	Weight int32 `json:"weight"`
	// Filters (HTTPRoute, GRPCRoute) apply to requests sent to this backend.
	Filters []RouteFilter `json:"filters,omitempty"`
}

// The filter types istiod reads (HTTPRoute; a GRPCRoute has the header modifiers, the mirror
// and ExtensionRef).
const (
	FilterRequestHeaderModifier  = "RequestHeaderModifier"
	FilterResponseHeaderModifier = "ResponseHeaderModifier"
	FilterRequestMirror          = "RequestMirror"
	FilterRequestRedirect        = "RequestRedirect"
	FilterURLRewrite             = "URLRewrite"
	FilterExtensionRef           = "ExtensionRef"
	FilterCORS                   = "CORS"
	FilterExternalAuth           = "ExternalAuth"
)

// RouteFilter is a filter of a rule or a backendRef: its type and, for the types istiod
// converts into routes, their settings. A CORS filter's settings, an ExtensionRef's and an
// ExternalAuth's are read (strictly) but not kept.
type RouteFilter struct {
	Type                   string            `json:"type"`
	RequestHeaderModifier  *HeaderModifier   `json:"requestHeaderModifier,omitempty"`
	ResponseHeaderModifier *HeaderModifier   `json:"responseHeaderModifier,omitempty"`
	RequestMirror          *MirrorFilter     `json:"requestMirror,omitempty"`
	RequestRedirect        *RedirectFilter   `json:"requestRedirect,omitempty"`
	URLRewrite             *URLRewriteFilter `json:"urlRewrite,omitempty"`
}

// HeaderModifier sets, adds and removes headers, in the order written.
type HeaderModifier struct {
	Set    []Header `json:"set,omitempty"`
	Add    []Header `json:"add,omitempty"`
	Remove []string `json:"remove,omitempty"`
}

// Header is a header's name and value.
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// MirrorFilter mirrors requests to a backend (its Weight is unused): all of them, a Percent or
// a fraction Numerator/Denominator.
type MirrorFilter struct {
	BackendRef BackendRef `json:"backendRef"`
	// Percent is the share mirrored, nil when not given.
	Percent *int32 `json:"percent,omitempty"`
	// Fraction is numerator/denominator (denominator 100 when not given), nil when not given.
	Fraction *Fraction `json:"fraction,omitempty"`
}

// Fraction is a mirror's numerator/denominator.
type Fraction struct {
	Numerator   int32 `json:"numerator"`
	Denominator int32 `json:"denominator"`
}

// RedirectFilter answers a redirect. StatusCode is 302 when none is given; Port 0 means none
// given.
type RedirectFilter struct {
	Scheme     string        `json:"scheme,omitempty"`
	Hostname   string        `json:"hostname,omitempty"`
	Path       *PathModifier `json:"path,omitempty"`
	Port       uint32        `json:"port,omitempty"`
	StatusCode int32         `json:"statusCode"`
}

// URLRewriteFilter rewrites a request's host and path.
type URLRewriteFilter struct {
	Hostname string        `json:"hostname,omitempty"`
	Path     *PathModifier `json:"path,omitempty"`
}

// The types of a path modifier.
const (
	ReplaceFullPath    = "ReplaceFullPath"
	ReplacePrefixMatch = "ReplacePrefixMatch"
)

// PathModifier replaces a request's path: Type is ReplaceFullPath (with ReplaceFullPath set)
// or ReplacePrefixMatch (with ReplacePrefixMatch set).
type PathModifier struct {
	Type               string `json:"type"`
	ReplaceFullPath    string `json:"replaceFullPath,omitempty"`
	ReplacePrefixMatch string `json:"replacePrefixMatch,omitempty"`
}

// ReferenceGrant is a gateway.networking.k8s.io ReferenceGrant: it lets objects of the kinds
// and namespaces of From refer to the objects of its own namespace of the kinds (and names)
// of To.
type ReferenceGrant struct {
	Namespace    string               `json:"namespace"`
	Name         string               `json:"name"`
	CreationTime time.Time            `json:"creationTime,omitzero"`
	From         []ReferenceGrantFrom `json:"from,omitempty"`
	To           []ReferenceGrantTo   `json:"to,omitempty"`
}

// ReferenceGrantFrom is a kind of object of a namespace that a ReferenceGrant trusts.
type ReferenceGrantFrom struct {
	Group     string `json:"group"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
}

// ReferenceGrantTo is a kind of object (and, with a Name, one object) of the ReferenceGrant's
// namespace that may be referred to.
type ReferenceGrantTo struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
	// Name is the one object that may be referred to; "" means every object of the kind.
	Name string `json:"name,omitempty"`
}

// Gateway is a gateway.networking.k8s.io Gateway, as far as it is a route's parent: its class
// and listeners.
type Gateway struct {
	Namespace    string     `json:"namespace"`
	Name         string     `json:"name"`
	CreationTime time.Time  `json:"creationTime,omitzero"`
	ClassName    string     `json:"gatewayClassName"`
	Listeners    []Listener `json:"listeners,omitempty"`
}

// Listener is one of a Gateway's listeners.
type Listener struct {
	Name string `json:"name"`
	// Hostname is the listener's hostname, "" for none (every host).
	Hostname string `json:"hostname,omitempty"`
	Port     uint32 `json:"port"`
	Protocol string `json:"protocol"`
	// TLSMode is tls.mode ("Terminate" when tls is given without a mode), "" without tls.
	TLSMode string `json:"tlsMode,omitempty"`
	// AllowedRoutes are the routes that may attach: as the API server defaults it, from the
	// Gateway's own namespace ("Same"), of any kind the protocol carries.
	AllowedRoutes AllowedRoutes `json:"allowedRoutes"`
}

// AllowedRoutes is a listener's allowedRoutes.
type AllowedRoutes struct {
	// From is namespaces.from: "Same", "All", "Selector" or "None".
	From string `json:"from"`
	// Selector is namespaces.selector, the namespaces allowed for From "Selector".
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
	// Kinds are the route kinds allowed; none means those of the protocol.
	Kinds []RouteGroupKind `json:"kinds,omitempty"`
}

// RouteGroupKind is a kind of route a listener allows (Group GatewayAPIGroup when none is
// given).
type RouteGroupKind struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
}
