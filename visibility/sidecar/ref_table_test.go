package sidecar

import (
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/meshscope/meshscope/visibility/inventory"
)

// The literal reference's route table for a port (step 10 of refSidecarView), as istiod
// builds a sidecar's outbound route configuration "<port>", written out step by step with no
// index:
//
//  1. the listener: the first egress listener whose port is the port or that has none (a
//     unix domain socket listener has port 0 and a bind: never); none, only the catch-all;
//     an HTTP_PROXY listener builds for port 0, every port;
//  2. the services by host: each service the listener imports, in order, with the port (or
//     all its ports, for port 0), a later one of a host replacing an earlier one;
//  3. off port 80, the listener's VirtualServices a host of which matches a service
//     (either way);
//  4. per VirtualService, in the listener's order: its HTTP routes for the port and proxy
//     (none: it builds nothing); its exact hosts that are services, its wildcard hosts'
//     services of which it is the listener's most specific VirtualService (a wildcard host
//     of one made from routes: none), its other hosts; one made from routes builds nothing
//     unless one of those services is of its namespace or the proxy is; per HTTP port of
//     those services, a group; with none, on port 80, a group of its other hosts alone;
//  5. the services no group has: a group each per HTTP port, Istio's default route;
//  6. the virtual hosts, group by group — hosts before services —, each dropped when its
//     name was made before, or when every one of its domains was (a domain: the host, for a
//     service also the host with a trailing dot, its short names unless another service has
//     them as its host, its addresses);
//  7. port 0: those of VirtualService hosts on port 80 only; sorted by name; the catch-all.
func (v refSidecarView) routeTable(n string, workload map[string]string, port uint32) []VirtualHost {
	chosen := v.sidecarFor(n, workload)
	catchAll := VirtualHost{Name: "allow_any"}
	mode := "ALLOW_ANY"
	if v.m != nil {
		mode = v.m.OutboundMode()
	}
	if chosen != nil && chosen.OutboundTrafficMode != "" {
		mode = chosen.OutboundTrafficMode
	}
	switch mode {
	case "REGISTRY_ONLY":
		catchAll.Name = "block_all"
	case "ALLOW_ANY_DYNAMIC_DNS":
		catchAll.Name = "allow_any_dynamic_dns"
	}
	egress := []inventory.Egress{{Hosts: []string{"*/*"}}}
	if chosen != nil && len(chosen.Egress) > 0 {
		egress = chosen.Egress
	}
	// Step 1.
	var e *inventory.Egress
	for i := range egress {
		if egress[i].Port == port || egress[i].Port == 0 && !strings.HasPrefix(egress[i].Bind, "unix://") {
			e = &egress[i]
			break
		}
	}
	if e == nil {
		return []VirtualHost{catchAll}
	}
	entries := refParseEgress(e.Hosts, n, v.rel())
	imported := refListenerServices(v.services(), entries, *e, n, v.rel())
	selected := refSelectVirtualServices(v.virtualServices(), entries, n)
	listenerVSes := selected
	listenerPort := port
	if strings.EqualFold(e.Protocol, "HTTP_PROXY") {
		listenerPort = 0
	}
	// Step 2.
	type service struct {
		host  string
		s     *inventory.Service
		ports []uint32
	}
	byName := map[string]*service{}
	var names []string // byName's hosts, in the listener's order
	for _, g := range imported {
		var ports []uint32
		switch {
		case listenerPort == 0:
			ports = g.ports
		case slices.Contains(g.ports, listenerPort):
			ports = []uint32{listenerPort}
		default:
			continue
		}
		if _, ok := byName[g.x.host]; !ok {
			names = append(names, g.x.host)
		}
		byName[g.x.host] = &service{g.x.host, g.x.s, ports}
	}
	httpPort := func(s *service, p uint32) bool {
		proto, _ := s.s.Protocol(p)
		switch proto {
		case "", "HTTP", "HTTP2", "HTTP_PROXY", "GRPC", "GRPC-Web":
			return true
		}
		return false
	}
	// Step 3.
	if listenerPort != 80 {
		selected = slices.DeleteFunc(slices.Clone(selected), func(x *refVS) bool {
			for _, h := range x.hosts {
				for _, name := range names {
					if h == name || (strings.HasPrefix(h, "*") || strings.HasPrefix(name, "*")) && refMatches(h, name) {
						return false
					}
				}
			}
			return true
		})
	}
	// Step 4.
	type group struct {
		port     uint32
		vs       string
		services []*service
		hosts    []string
	}
	var groups []group
	claimed := map[string]bool{}
	for _, x := range selected {
		if refHTTPRoutes(x, listenerPort, n, workload) == 0 {
			continue
		}
		var matching []*service
		var other []string
		for _, h := range x.hosts {
			if !strings.HasPrefix(h, "*") {
				if s, ok := byName[h]; ok {
					matching = append(matching, s)
				} else {
					other = append(other, h)
				}
			}
		}
		for _, h := range x.hosts {
			if !strings.HasPrefix(h, "*") {
				continue
			}
			if x.converted {
				other = append(other, h)
				continue
			}
			found := false
			for _, name := range names {
				if !refMatches(name, h) {
					continue
				}
				found = true
				// The most specific VirtualService among all the listener's, for every host it
				// imports (whatever the port).
				if best := refMostSpecificVirtualService(listenerVSes, name); best == x {
					matching = append(matching, byName[name])
				}
			}
			if !found {
				other = append(other, h)
			}
		}
		if x.converted && !slices.ContainsFunc(matching, func(s *service) bool { return s.s.Namespace == x.vs.Namespace || n == x.vs.Namespace }) {
			continue
		}
		byPort := map[uint32][]*service{}
		for _, s := range matching {
			for _, p := range s.ports {
				if httpPort(s, p) {
					byPort[p] = append(byPort[p], s)
				}
			}
		}
		if len(byPort) == 0 && listenerPort == 80 {
			byPort[80] = nil
		}
		for _, p := range slices.Sorted(maps.Keys(byPort)) {
			groups = append(groups, group{p, x.name(), byPort[p], other})
			for _, s := range byPort[p] {
				claimed[s.host] = true
			}
		}
	}
	// Step 5.
	for _, name := range names {
		if claimed[name] {
			continue
		}
		s := byName[name]
		for _, p := range s.ports {
			if httpPort(s, p) {
				groups = append(groups, group{p, "", []*service{s}, nil})
			}
		}
	}
	// Step 6. A service's domains: its host, the host with a trailing dot and its short names
	// (the expanded ones, dropped when a service has one as its host), its addresses; with
	// their ports too for port 0.
	known := map[string]bool{}
	for _, g := range groups {
		for _, s := range g.services {
			known[s.host] = true
			known[s.host+":"+strconv.Itoa(int(g.port))] = true
		}
	}
	made, domains := map[string]bool{}, map[string]bool{}
	var out []VirtualHost
	build := func(host string, p uint32, vs string, ds, expanded []string) {
		name := host + ":" + strconv.Itoa(int(p))
		if made[name] {
			return
		}
		made[name] = true
		var kept []string
		for _, d := range ds {
			if domains[strings.ToLower(d)] || slices.Contains(expanded, d) && known[d] {
				continue
			}
			domains[strings.ToLower(d)] = true
			kept = append(kept, d)
		}
		if len(kept) == 0 {
			return
		}
		if listenerPort == 0 && p != 80 && !slices.ContainsFunc(kept, func(d string) bool { return strings.Contains(d, ":") }) {
			return
		}
		out = append(out, VirtualHost{Name: name, VirtualService: vs})
	}
	withPort := func(ds []string, d string, p uint32) []string {
		if listenerPort != 0 {
			return append(ds, d)
		}
		return append(ds, d, d+":"+strconv.Itoa(int(p)))
	}
	for _, g := range groups {
		for _, h := range g.hosts {
			h = strings.ToLower(h)
			build(h, g.port, g.vs, []string{h}, nil)
		}
		for _, s := range g.services {
			ds := withPort(nil, s.host, g.port)
			var expanded []string
			if net.ParseIP(s.host) == nil {
				expanded = withPort(expanded, s.host+".", g.port)
			}
			for _, alt := range refAltHosts(s.host, n, v.domain()) {
				expanded = withPort(expanded, alt, g.port)
			}
			ds = append(ds, expanded...)
			for _, a := range s.s.Addresses {
				if a.IsSingleIP() {
					ds = withPort(ds, a.Addr().String(), g.port)
				}
			}
			build(s.host, g.port, g.vs, ds, expanded)
		}
	}
	// Step 7.
	slices.SortStableFunc(out, func(a, b VirtualHost) int { return strings.Compare(a.Name, b.Name) })
	return append(out, catchAll)
}

// refHTTPRoutes counts the HTTP routes Envoy gets of x for port (0: routes without a port
// only) and a proxy of namespace n with labels workload: an entry without a match is one route
// and the last; a match is one when its port is none or the port and its gateways name mesh
// or, naming none, its source labels and namespace fit the proxy; one matching every request
// is the last.
func refHTTPRoutes(x *refVS, port uint32, n string, workload map[string]string) int {
	count := 0
	for _, r := range x.http {
		if len(r.match) == 0 {
			return count + 1
		}
		for _, m := range r.match {
			if m.Port != 0 && m.Port != port {
				continue
			}
			if len(m.Gateways) > 0 {
				if !slices.Contains(m.Gateways, "mesh") {
					continue
				}
			} else if !subsetOf(m.SourceLabels, workload) || m.SourceNamespace != "" && m.SourceNamespace != n {
				continue
			}
			count++
			if len(m.Headers) == 0 && len(m.WithoutHeaders) == 0 && len(m.QueryParams) == 0 && m.Method == nil && m.Authority == nil && m.Scheme == nil &&
				(m.URI == nil || *m.URI == inventory.StringMatch{} || m.URI.Prefix == "/" || m.URI.Regex == ".*") {
				return count
			}
		}
	}
	return count
}

// refAltHosts are the short names of a Kubernetes service host for a proxy of namespace n.
func refAltHosts(host, n, domain string) []string {
	if !strings.HasSuffix(host, ".svc."+domain) {
		return nil
	}
	ih := strings.Index(host, ".svc.")
	dot := strings.Index(host, ".")
	if dot+1 >= len(host) || dot+1 > ih {
		return nil
	}
	name, ns := host[:dot], host[dot+1:ih]
	if ns == n {
		return []string{name, name + "." + ns + ".svc", name + "." + ns}
	}
	return []string{name + "." + ns, name + "." + ns + ".svc"}
}
