package sidecar

import (
	"cmp"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/meshscope/meshscope/visibility/inventory"
)

// Gateway API routes in the mesh (GAMMA). istiod's Gateway API controller converts every
// HTTPRoute, GRPCRoute, TCPRoute and TLSRoute of a discovered namespace into VirtualServices
// of its own, and writes a status on the route. A route's parentRefs decide where: a
// Service (group "") or a ServiceEntry (networking.istio.io) is a mesh parent, whose
// VirtualServices apply to sidecars (gateways ["mesh"]); a Gateway's listeners are gateway
// parents, whose VirtualServices apply to that gateway only. The files gamma*.go hold that
// conversion: convertRoutes gives the VirtualServices (as inventory.VirtualService values,
// with a record of the routes, rules and matches behind each entry) and the status of every
// route.

// RouteStatus is the status istiod writes on a route: one entry per parentRef it keeps, in
// its order (descending by the string group/kind/name/sectionName/port.namespace of each
// parentRef, the port as decimal text and the namespace the route's when the parentRef
// names none). A parentRef whose kind istiod does not handle, a Gateway that does not exist
// (or is not of istiod's class "istio"), and a mesh parent whose waypoint belongs to another
// controller have no entry.
type RouteStatus struct {
	Parents []RouteParentStatus
}

// RouteParentStatus is one parent's entry of a route's status (its controller is
// istio.io/gateway-controller).
type RouteParentStatus struct {
	// Kind, Namespace and Name are the parentRef's, as written ("" namespace: the route's).
	Kind, Namespace, Name string
	// Port is the parentRef's port, 0 for none.
	Port uint32
	// Conditions are Accepted, then ResolvedRefs: Type, Status, Reason and Message as istiod
	// writes them.
	Conditions []metav1.Condition
}

// gammaRoutes is istiod's conversion of an inventory's routes: the VirtualServices it makes
// and the status it writes.
type gammaRoutes struct {
	// vss are the VirtualServices made from routes, sorted by namespace and name (each name
	// is unique in its namespace).
	vss []gammaVirtualService
	// status is the status of each route of a discovered namespace.
	status map[gammaRouteID]RouteStatus
}

// gammaRouteID names a route.
type gammaRouteID struct {
	kind            inventory.RouteKind
	namespace, name string
}

// gammaVirtualService is a VirtualService istiod makes from routes, with the record of what
// is behind it.
type gammaVirtualService struct {
	// vs is the VirtualService: its namespace, name, creation time, one host, its gateways
	// (["mesh"], or a Gateway listener's internal name), no exportTo (the mesh's
	// defaultVirtualServiceExportTo applies), and its http, tcp or tls entries.
	vs inventory.VirtualService
	// routes are the routes merged into it (indexes into the inventory's Routes), oldest first.
	routes []int32
	// http, tcp and tls say, entry by entry of vs.HTTP, vs.TCP and vs.TLS, where each comes from
	// and what of it inventory's types do not hold.
	http     []gammaHTTP
	tcp, tls []gammaL4
}

// gammaSource is the route, rule and match an entry comes from.
type gammaSource struct {
	route int32 // index into the inventory's Routes
	rule  int32
	match int32 // -1: the rule has no matches
}

// gammaHTTP is what an http entry of a converted VirtualService carries beyond
// inventory.HTTPRoute (its name, matches, destinations and mirrors' destinations).
type gammaHTTP struct {
	src gammaSource
	// prec is the entry's rank in Gateway API precedence (see gammaLess).
	prec gammaPrecedence
	// directResponse is 500 when no backend has weight (and no redirect answers), else 0.
	directResponse uint32
	redirect       *gammaRedirect
	rewrite        *gammaRewrite
	// request and response are the header operations of the rule's header modifiers.
	request, response *gammaHeaderOps
	// mirrorPercent is, per mirror, the share of requests mirrored; nil for all of them.
	mirrorPercent []*float64
}

// gammaL4 is what a tcp or tls entry carries beyond inventory.L4Route (its destinations).
type gammaL4 struct {
	src gammaSource
	// match is the entry's match, nil for none.
	match *gammaL4Match
}

// gammaL4Match is a tcp or tls entry's match: a port (0: any) and, for tls, SNI hosts.
type gammaL4Match struct {
	port     uint32
	sniHosts []string
}

// gammaRedirect is an http entry's redirect, as istiod writes it from a RequestRedirect
// filter: derivePort is FROM_PROTOCOL_DEFAULT or FROM_REQUEST_PORT when no port is given.
type gammaRedirect struct {
	uri, authority, scheme, prefixRewrite, derivePort string
	port, code                                        uint32
}

// gammaRewrite is an http entry's rewrite (URLRewrite filter): a prefix (uri), a full path
// (uriRegexRewrite of match and rewrite), an authority.
type gammaRewrite struct {
	uri, regexMatch, regexRewrite, authority string
}

// gammaHeaderOps are header operations: names lower-cased, the first of a name kept.
type gammaHeaderOps struct {
	set, add map[string]string
	remove   []string
}

// convertRoutes converts the routes of inv as istiod does, for the namespaces discovered
// says istiod discovers (they alone hold objects for it).
func convertRoutes(inv *inventory.Inventory, discovered func(namespace string) bool) *gammaRoutes {
	ix := newGammaIndex(inv, discovered)
	return convertRoutesWith(inv, discovered, func() *gammaIndex { return ix })
}

// convertRoutesWith is convertRoutes looking each route's references up in the index index
// gives (the one built once; a benchmark's baseline builds one per route).
func convertRoutesWith(inv *inventory.Inventory, discovered func(string) bool, index func() *gammaIndex) *gammaRoutes {
	out := &gammaRoutes{status: make(map[gammaRouteID]RouteStatus, len(inv.Routes))}
	var bases []gammaBase
	for i := range inv.Routes {
		r := &inv.Routes[i]
		if !discovered(r.Namespace) {
			continue
		}
		c := index().route(int32(i))
		out.status[gammaRouteID{r.Kind, r.Namespace, r.Name}] = c.status()
		switch r.Kind {
		case inventory.HTTPRouteKind, inventory.GRPCRouteKind:
			bases = c.httpBases(bases)
		default:
			out.vss = c.l4VirtualServices(out.vss)
		}
	}
	out.vss = append(out.vss, gammaMerge(bases)...)
	slices.SortFunc(out.vss, func(a, b gammaVirtualService) int {
		return cmp.Or(cmp.Compare(a.vs.Namespace, b.vs.Namespace), cmp.Compare(a.vs.Name, b.vs.Name))
	})
	return out
}

// routeStatus returns the status istiod writes on the route of kind in namespace with name;
// false when it writes none (no such route, or its namespace is not discovered).
func (g *gammaRoutes) routeStatus(kind, namespace, name string) (RouteStatus, bool) {
	s, ok := g.status[gammaRouteID{inventory.RouteKind(kind), namespace, name}]
	return s, ok
}
