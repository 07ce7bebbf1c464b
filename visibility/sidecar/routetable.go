package sidecar

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/hosts"
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

// vhost is a virtual host: its name ("<host>:<port>"; its host alone until buildHosts names
// it) and port, the VirtualService whose routes it holds (-1: Istio's default route) and how
// many, and the service it is for (-1: a host of the VirtualService that is no service of the
// listener).
type vhost struct {
	name    string
	port    uint32
	vs      int32
	service int32
	routes  int32
}

// host is the virtual host's host: its name without the port.
func (vh *vhost) host() string { return vh.name[:len(vh.name)-1-digits(vh.port)] }

// tableService is a service of the listener the route table is built from: its host, the
// service the listener holds for it (the last of its imports with the port) and the ports
// routes are built for.
type tableService struct {
	host  string
	id    int32
	ports []uint32
}

// tableServices are the services of the listener a route table is built from, in its order,
// and where each host is: through the proxy's received hosts (got), whose index slot maps to
// the host's in list.
type tableServices struct {
	list     []tableService
	got      *receivedSet
	slot     []int32
	wildcard []int // the indexes in list of wildcard hosts
	// order holds the indexes of list by the listener's Routes answer for their host (answer,
	// -1 for none), and covered whether a wildcard host matches one of them: worked out for
	// the wildcard hosts of users' VirtualServices (see separate), once — so that the cost
	// is not the wildcard hosts times the services (BenchmarkRouteTableRoutedWildcard40k).
	order   []int32
	answer  []int32
	covered []wildcardCover
}

// index returns where host is in list.
func (ts *tableServices) index(host string) (int, bool) {
	gi, ok := ts.got.at[host]
	if !ok || ts.slot[gi] < 0 {
		return -1, false
	}
	return int(ts.slot[gi]), true
}

// wildcardCover is whether a wildcard host matches a service of a route table.
type wildcardCover struct {
	host  string
	found bool
}

// answered returns the services of the table whose host's Routes answer on listener lr is
// VirtualService k, in the table's order.
func (ts *tableServices) answered(lr *listenerRecord, k int32) []int32 {
	if ts.order == nil {
		ts.answer, ts.order = make([]int32, len(ts.list)), make([]int32, len(ts.list))
		for i := range ts.list {
			ts.answer[i], ts.order[i] = -1, int32(i)
			if best, _, ok := lr.routes.lookup(ts.list[i].host); ok {
				ts.answer[i] = best
			}
		}
		slices.SortStableFunc(ts.order, func(a, b int32) int { return cmp.Compare(ts.answer[a], ts.answer[b]) })
	}
	lo, _ := slices.BinarySearchFunc(ts.order, k, func(i, k int32) int { return cmp.Compare(ts.answer[i], k) })
	hi := lo
	for hi < len(ts.order) && ts.answer[ts.order[hi]] == k {
		hi++
	}
	return ts.order[lo:hi]
}

// matchesAny reports whether wildcard host h matches (either way) a service of the table.
func (ts *tableServices) matchesAny(h string) bool {
	if i := slices.IndexFunc(ts.covered, func(c wildcardCover) bool { return c.host == h }); i >= 0 {
		return ts.covered[i].found
	}
	found := slices.ContainsFunc(ts.list, func(s tableService) bool { return hosts.Matches(s.host, h) })
	ts.covered = append(ts.covered, wildcardCover{h, found})
	return found
}

// wrapper is what one VirtualService gives one port: the services it claims there (indexes
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

// tableServices returns the services of listener lr of the proxy of rec routes are built for
// on port (0: every port), in the listener's order, each host once: the last of the
// listener's imports of the host that has the port (all of them for port 0, with all their
// ports).
func (v *View) tableServices(rec *record, lr *listenerRecord, port uint32) tableServices {
	x := &v.services
	ts := tableServices{list: make([]tableService, 0, len(lr.imported)), got: &rec.got, slot: make([]int32, len(rec.got.list))}
	for i := range ts.slot {
		ts.slot[i] = -1
	}
	one := []uint32{port}
	for _, is := range lr.imported {
		ports := is.ports
		if port != 0 {
			if !slices.Contains(is.ports, port) {
				continue
			}
			ports = one
		}
		host := x.svcs[is.id].host
		gi := rec.got.at[host] // every import reached what the proxy has
		if i := ts.slot[gi]; i >= 0 {
			ts.list[i].id, ts.list[i].ports = is.id, ports
			continue
		}
		ts.slot[gi] = int32(len(ts.list))
		if isWildcard(host) {
			ts.wildcard = append(ts.wildcard, len(ts.list))
		}
		ts.list = append(ts.list, tableService{host: host, id: is.id, ports: ports})
	}
	return ts
}

// httpLike reports whether Istio routes HTTP for port of service id (httpProtocol).
func (v *View) httpLike(id int32, port uint32) bool {
	p, _ := v.services.service(id).Protocol(port)
	return httpProtocol(p)
}

// httpProtocol reports whether Istio routes HTTP on a port of protocol p: HTTP, HTTP2,
// HTTP_PROXY, GRPC, GRPC-Web, or one it does not recognise ("": it sniffs).
func httpProtocol(p string) bool {
	switch p {
	case "", inventory.ProtocolHTTP, inventory.ProtocolHTTP2, inventory.ProtocolHTTPProxy, inventory.ProtocolGRPC, inventory.ProtocolGRPCWeb:
		return true
	}
	return false
}

// matchesService reports whether a host of VirtualService r matches a service of the
// listener routes are built for (Istio's host.Name.Matches, either way).
func (v *View) matchesService(r *virtualService, ts *tableServices) bool {
	for _, h := range r.hosts {
		if _, ok := ts.index(h); ok {
			return true
		}
		candidates := ts.wildcard
		if isWildcard(h) {
			for i := range ts.list {
				if hosts.Matches(h, ts.list[i].host) {
					return true
				}
			}
			continue
		}
		for _, i := range candidates {
			if hosts.Matches(h, ts.list[i].host) {
				return true
			}
		}
	}
	return false
}

// httpRoutes counts the HTTP routes of r istiod builds for port (0: only those no match
// limits to a port) and a proxy in namespace n with labels w: every entry without a match, and
// every match without a port or with this one whose gateways name mesh — or, naming none,
// whose sourceLabels the proxy carries and whose sourceNamespace is "" or n —, up to the
// first that matches every request (and no further).
func (r *virtualService) httpRoutes(port uint32, n string, w labels.Set) int {
	count := 0
	for _, h := range r.http {
		if len(h.match) == 0 {
			return count + 1
		}
		for i := range h.match {
			m := &h.match[i]
			if m.Port != 0 && m.Port != port || !sourceMatches(m, n, w) {
				continue
			}
			count++
			if catchAllMatch(m) {
				return count
			}
		}
	}
	return count
}

// sourceMatches reports whether a match applies to a sidecar in namespace n with labels w:
// its gateways name mesh, or it names none and w carries its sourceLabels, and its
// sourceNamespace is "" or n.
func sourceMatches(m *inventory.HTTPMatch, n string, w labels.Set) bool {
	if len(m.Gateways) > 0 {
		return slices.Contains(m.Gateways, meshGateway)
	}
	return subsetOf(m.SourceLabels, w) && (m.SourceNamespace == "" || m.SourceNamespace == n)
}

// catchAllMatch reports whether Envoy's route of a match matches every request: no header,
// query parameter, method, authority or scheme condition, and a uri of prefix "/", regex ".*"
// or none.
func catchAllMatch(m *inventory.HTTPMatch) bool {
	if len(m.Headers)+len(m.WithoutHeaders)+len(m.QueryParams) > 0 || m.Method != nil || m.Authority != nil || m.Scheme != nil {
		return false
	}
	u := m.URI
	return u == nil || *u == (inventory.StringMatch{}) || u.Prefix == "/" || u.Regex == ".*"
}

// separate splits the hosts of VirtualService k (r) into the services of the listener it
// claims (indexes into ts.list) and its hosts that are no service there: an exact host claims
// the service of that host; a wildcard host of a user's VirtualService claims the services it
// covers (either way) of which r is the listener's Routes answer, and is a host of its own
// when it covers none; a wildcard host of one made from routes claims nothing.
func (v *View) separate(r *virtualService, k int32, lr *listenerRecord, ts *tableServices) (nonService []string, matching []int) {
	for _, h := range r.hosts {
		if isWildcard(h) {
			continue
		}
		if i, ok := ts.index(h); ok {
			matching = append(matching, i)
		} else {
			nonService = append(nonService, h)
		}
	}
	for _, h := range r.hosts {
		if !isWildcard(h) {
			continue
		}
		if r.converted() {
			nonService = append(nonService, h)
			continue
		}
		if !ts.matchesAny(h) {
			nonService = append(nonService, h)
			continue
		}
		for _, i := range ts.answered(lr, k) {
			if hosts.Matches(ts.list[i].host, h) {
				matching = append(matching, int(i))
			}
		}
	}
	return nonService, matching
}

// appendWrappers appends what VirtualService k, with routes routes, gives each port: the
// services it claims whose port is HTTP-like, with its hosts that are no service; on port 80
// those hosts alone when it claims no service.
func (v *View) appendWrappers(ws []wrapper, port uint32, k int32, routes int, svcs []tableService, matching []int, nonService []string) []wrapper {
	start := len(ws)
	for _, i := range matching {
		for _, p := range svcs[i].ports {
			if !v.httpLike(svcs[i].id, p) {
				continue
			}
			j := slices.IndexFunc(ws[start:], func(w wrapper) bool { return w.port == p })
			if j < 0 {
				ws = append(ws, wrapper{port: p, vs: k, routes: routes})
				j = len(ws) - 1 - start
			}
			ws[start+j].services = append(ws[start+j].services, i)
		}
	}
	if len(ws) == start && port == 80 {
		ws = append(ws, wrapper{port: 80, vs: k, routes: routes})
	}
	slices.SortFunc(ws[start:], func(a, b wrapper) int { return cmp.Compare(a.port, b.port) })
	for i := start; i < len(ws); i++ {
		ws[i].hosts = nonService
	}
	return ws
}

// hostPort is a virtual host's host and port, which name it.
type hostPort struct {
	host string
	port uint32
}

// buildHosts makes the virtual hosts of wrappers ws, in order — of each, its hosts that are
// no service, then its services —, then Istio's default route for every HTTP port of the
// services none claims; a name made before is dropped, and so is a host whose one domain
// (itself) an earlier virtual host has — a service's other names for a proxy of namespace n,
// its addresses. For an HTTP_PROXY listener (t.port 0), the hosts of VirtualServices stay on
// port 80 only. Named, then sorted by name.
func (v *View) buildHosts(t *routeTable, n string, ws []wrapper, ts *tableServices) {
	svcs := ts.list
	// What is built: per service, its port's virtual host (t.port 0: a name set), and the
	// hosts that are no service.
	built := make([]bool, len(svcs))
	var names map[hostPort]bool
	seen := func(hp hostPort, service int) bool {
		if service >= 0 && t.port != 0 {
			return built[service]
		}
		return names[hp]
	}
	mark := func(hp hostPort, service int) {
		if service >= 0 && t.port != 0 {
			built[service] = true
			return
		}
		if names == nil {
			names = map[hostPort]bool{}
		}
		names[hp] = true
	}
	var earlier []vhost // the virtual hosts made before a host that is no service
	for wi := range ws {
		w := &ws[wi]
		for _, h := range w.hosts {
			h = strings.ToLower(h)
			vh := vhost{name: h, port: w.port, vs: w.vs, service: -1, routes: int32(w.routes)}
			hp := hostPort{h, w.port}
			if seen(hp, -1) || v.domainTaken(h, n, earlier, ts) {
				t.dropped = append(t.dropped, vh)
				continue
			}
			mark(hp, -1)
			earlier = append(earlier, vh)
			if t.port != 0 || w.port == 80 {
				t.hosts = append(t.hosts, vh)
			}
		}
		for _, i := range w.services {
			vh := vhost{name: svcs[i].host, port: w.port, vs: w.vs, service: int32(i), routes: int32(w.routes)}
			hp := hostPort{vh.name, w.port}
			if seen(hp, i) {
				t.dropped = append(t.dropped, vh)
				continue
			}
			mark(hp, i)
			t.hosts = append(t.hosts, vh)
			earlier = append(earlier, vh)
		}
	}
	claimed := make([]bool, len(svcs))
	for _, w := range ws {
		for _, i := range w.services {
			claimed[i] = true
		}
	}
	for i := range svcs {
		if claimed[i] {
			continue
		}
		for _, p := range svcs[i].ports {
			if v.httpLike(svcs[i].id, p) {
				t.hosts = append(t.hosts, vhost{name: svcs[i].host, port: p, vs: -1, service: int32(i), routes: 1})
			}
		}
	}
	nameHosts(t.hosts)
	slices.SortFunc(t.hosts, func(a, b vhost) int { return strings.Compare(a.name, b.name) })
	nameHosts(t.dropped)
}

// nameHosts names each virtual host, named by its host until then, "<host>:<port>", the names
// cut from one string.
func nameHosts(vhs []vhost) {
	n := 0
	for i := range vhs {
		n += len(vhs[i].name) + 1 + digits(vhs[i].port)
	}
	var b strings.Builder
	b.Grow(n)
	for i := range vhs {
		b.WriteString(vhs[i].name)
		b.WriteByte(':')
		writeUint(&b, vhs[i].port)
	}
	all, at := b.String(), 0
	for i := range vhs {
		end := at + len(vhs[i].name) + 1 + digits(vhs[i].port)
		vhs[i].name, at = all[at:end], end
	}
}

// digits is the number of decimal digits of p.
func digits(p uint32) int {
	d := 1
	for p >= 10 {
		p /= 10
		d++
	}
	return d
}

// writeUint writes p in decimal.
func writeUint(b *strings.Builder, p uint32) {
	var buf [10]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + p%10)
		p /= 10
		if p == 0 {
			break
		}
	}
	b.Write(buf[i:])
}

// domainName is Envoy's name of a virtual host: "<host>:<port>".
func domainName(host string, port uint32) string {
	return host + ":" + itoa(port)
}

func itoa(p uint32) string { return strconv.FormatUint(uint64(p), 10) }

// domainTaken reports whether an earlier virtual host (not yet named: its name is its host)
// answers for h already, as istiod
// dedupes the domains of virtual hosts: an earlier VirtualService host that is no service
// (of another port) is h, or an earlier service's virtual host has h among its names for a
// proxy of namespace n — its host, the host with a trailing dot, its short names (name,
// name.namespace, name.namespace.svc for a Kubernetes host; those another service has as its
// host excepted) and its addresses.
func (v *View) domainTaken(h, n string, earlier []vhost, ts *tableServices) bool {
	for _, e := range earlier {
		if e.service < 0 {
			if e.name == h {
				return true
			}
			continue
		}
		if e.name == h || e.name+"." == h {
			return true
		}
		for _, alt := range altHosts(e.name, n, v.domain) {
			if _, known := ts.index(alt); alt == h && !known {
				return true
			}
		}
		for _, a := range v.services.service(ts.list[e.service].id).Addresses {
			if a.IsSingleIP() && a.Addr().String() == h {
				return true
			}
		}
	}
	return false
}

// altHosts are the short names Istio gives a Kubernetes service host in the virtual host of a
// proxy of namespace n (cluster domain domain): name, name.ns.svc and name.ns for a service
// of n; name.ns and name.ns.svc for another namespace's; none for a host that is not
// <name>.<ns>.svc.<domain>.
func altHosts(host, n, domain string) []string {
	if !strings.HasSuffix(host, ".svc."+domain) {
		return nil
	}
	ih := strings.Index(host, ".svc.")
	dot := strings.IndexByte(host, '.')
	if dot+1 >= len(host) || dot+1 > ih {
		return nil
	}
	if host[dot+1:ih] == n {
		return []string{host[:dot], host[:ih] + ".svc", host[:ih]}
	}
	return []string{host[:ih], host[:ih] + ".svc"}
}
