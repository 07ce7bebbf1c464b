package sidecar

// The virtual hosts of a route table: what each VirtualService gives each port, the hosts
// built from that in istiod's order with their duplicates dropped, and their names.

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

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
