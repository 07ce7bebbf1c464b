package sidecar

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// VirtualHost is one virtual host of the route configuration a sidecar gets for a port
// (View.RouteTable).
type VirtualHost struct {
	// Name is "<host>:<port>", or the catch-all's: "allow_any" ("block_all" under
	// REGISTRY_ONLY, "allow_any_dynamic_dns" under ALLOW_ANY_DYNAMIC_DNS).
	Name string `json:"name"`
	// VirtualService is the VirtualService ("namespace/name") whose routes the virtual host
	// holds — one istiod made from Gateway API routes is named as istiod names it
	// ("shop/shop~reviews.shop.svc.cluster.local") —; "" for Istio's default route (a host no
	// VirtualService claims) and for the catch-all. A sidecar's virtual host takes its routes
	// from one VirtualService: istiod joins no two, so it never names several.
	VirtualService string `json:"virtualService"`
}

// The names of Istio's catch-all virtual host, by the outbound traffic policy's mode.
const (
	catchAllAllowAny   = "allow_any"
	catchAllBlockAll   = "block_all"
	catchAllDynamicDNS = "allow_any_dynamic_dns"
)

// RouteTable returns the route configuration a sidecar in namespace with the workload labels
// workload gets for port, as istiod builds it: its virtual hosts sorted by name (byte order),
// then Istio's catch-all.
//
//   - The listener: the proxy's first egress listener whose port is port, else its first
//     without a port (a unix domain socket listener is neither); with none, the table holds
//     only the catch-all.
//   - Each service the listener imports (not those VirtualService destinations add) with an
//     HTTP-like port port — HTTP, HTTP2, HTTP_PROXY, GRPC, GRPC-Web, or one Istio sniffs —
//     becomes the virtual host "<host>:<port>", built by the first VirtualService in the
//     listener's order (Listener.VirtualServices) that claims the host; a later one is
//     dropped. A host nothing claims gets Istio's default route (VirtualService "").
//   - A VirtualService claims nothing unless it has an HTTP route for this port and proxy:
//     an entry without a match, or a match without a port or with this one, whose
//     sourceLabels and sourceNamespace the proxy satisfies (gateways naming mesh, when it
//     names gateways). TCP- and TLS-only VirtualServices never build a virtual host. Off port
//     80, a VirtualService none of whose hosts matches a service of the listener on the port
//     claims nothing either.
//   - A user's VirtualService claims the services its exact hosts name, and those its
//     wildcard hosts cover of which it is the listener's Routes answer; each of its hosts
//     that is no service of the listener on the port (a wildcard covering none) becomes a
//     virtual host of its own — on port 80; on another port only when it also claims a
//     service there.
//   - A VirtualService istiod made from routes claims the service its host names, for
//     proxies of its own namespace or of the namespace of that service (the listener's, for
//     the host), and nothing through a wildcard host; it makes no virtual host of a host that
//     is no service.
//
// A listener whose protocol is HTTP_PROXY gets the routes of every port of its services: a
// virtual host per service port, and those of VirtualService hosts on port 80.
func (v *View) RouteTable(namespace string, workload labels.Set, port uint32) []VirtualHost {
	var rec record
	sc := v.sidecars.forProxy(namespace, workload)
	v.buildListeners(&rec, sidecarKind, sc, namespace, workload, nil, nil)
	t := v.routeTable(&rec, port)
	out := make([]VirtualHost, 0, len(t.hosts)+1)
	for _, h := range t.hosts {
		out = append(out, VirtualHost{Name: h.name, VirtualService: v.vsRef(h.vs)})
	}
	return append(out, VirtualHost{Name: v.catchAll(sc)})
}

// vsRef names VirtualService k; "" for -1 (Istio's default route).
func (v *View) vsRef(k int32) string {
	if k < 0 {
		return ""
	}
	return v.vss.vss[k].ref
}

// catchAll is the name of Istio's catch-all virtual host for the proxies the Sidecar sc
// applies to (nil: none): by its outbound traffic mode, else the mesh's.
func (v *View) catchAll(sc *inventory.Sidecar) string {
	mode := v.outbound
	if sc != nil && sc.OutboundTrafficMode != "" {
		mode = sc.OutboundTrafficMode
	}
	switch mode {
	case inventory.OutboundRegistryOnly:
		return catchAllBlockAll
	case mesh.OutboundAllowAnyDynamicDNS:
		return catchAllDynamicDNS
	}
	return catchAllAllowAny
}

// routeTable is the route configuration a proxy gets for a port, as the builder worked it out
// from the proxy's record: the listener it comes from, what became of each of its
// VirtualServices, and the virtual hosts, with every claimant dropped.
type routeTable struct {
	listener int    // the listener's index in the record; -1: none
	port     uint32 // the port routes are built for: the one asked, or 0 (every port) for an HTTP_PROXY listener
	// outcomes are the listener's VirtualServices, in its order, and what each did.
	outcomes []vsOutcome
	// hosts are the virtual hosts, sorted by name; dropped the later claimants of their names
	// and the hosts of VirtualServices whose one domain an earlier virtual host had.
	hosts   []vhost
	dropped []vhost
}

// vsOutcome is what one VirtualService of the listener did for the route table.
type vsOutcome struct {
	k int32
	// unmatched: off port 80, none of its hosts matches a service of the listener on the port.
	unmatched bool
	// routes are its HTTP routes for the port and the proxy (as Envoy gets them: up to the
	// first catch-all); none, and it claims nothing.
	routes int
	// refused: made from routes, it claims no service, none being of its namespace or of the
	// proxy's.
	refused bool
}

// into the listener's tableServices) and its hosts that are no service.
type wrapper struct {
	port     uint32
	vs       int32
	routes   int
	services []int
	hosts    []string
}

// routeTable works out the route configuration the proxy of rec gets for port.
func (v *View) routeTable(rec *record, port uint32) routeTable {
	t := routeTable{listener: -1, port: port}
	for i := range rec.listeners {
		e := rec.listeners[i].l.egress
		if e.Port == port || e.Port == 0 && !strings.HasPrefix(e.Bind, "unix://") {
			t.listener = i
			break
		}
	}
	if t.listener < 0 {
		return t
	}
	lr := &rec.listeners[t.listener]
	if strings.EqualFold(lr.l.egress.Protocol, inventory.ProtocolHTTPProxy) {
		t.port = 0
	}
	ts := v.tableServices(rec, lr, t.port)
	var ws []wrapper
	for _, k := range lr.vss {
		o := vsOutcome{k: k}
		r := &v.vss.vss[k]
		switch {
		case t.port != 80 && !v.matchesService(r, &ts):
			o.unmatched = true
		default:
			o.routes = r.httpRoutes(t.port, rec.ns, rec.workload)
		}
		t.outcomes = append(t.outcomes, o)
		if o.routes == 0 {
			continue
		}
		nonService, matching := v.separate(r, k, lr, &ts)
		if r.converted() && !slices.ContainsFunc(matching, func(i int) bool {
			return v.services.service(ts.list[i].id).Namespace == r.vs.Namespace || rec.ns == r.vs.Namespace
		}) {
			t.outcomes[len(t.outcomes)-1].refused = true
			continue
		}
		ws = v.appendWrappers(ws, t.port, k, o.routes, ts.list, matching, nonService)
	}
	v.buildHosts(&t, rec.ns, ws, &ts)
	return t
}
