package sidecar

import (
	"cmp"
	"iter"
	"net/netip"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/exportto"
	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// virtualService is a VirtualService as a sidecar reads it: its hosts and destination hosts
// with short names resolved, its effective exportTo, and its destinations per route.
type virtualService struct {
	ref string // "namespace/name"
	vs  *inventory.VirtualService
	// hosts are spec.hosts, short names resolved.
	hosts []string
	// exp is the exportTo it goes by: its own, else the mesh default.
	exp exportto.Set
	// mesh: it applies to sidecars (no gateways, or "mesh" among them).
	mesh bool
	// http are the destinations of each HTTP route (delegation applied), with the source
	// namespaces its matches name; l4 those of the TLS and TCP routes.
	http []httpDests
	l4   []destination
	// dests are destinationPorts for every namespace, when no HTTP route names a source
	// namespace (sourced: one does).
	dests   []hostPorts
	sourced bool
}

// httpDests are the destinations of one HTTP route and the source namespaces its matches
// name.
type httpDests struct {
	sources []string // non-empty sourceNamespace of the matches; none: every namespace
	dests   []destination
}

// destination is a route destination, its host resolved; port 0: none given.
type destination struct {
	host   string
	subset string
	port   uint32
}

// meshGateway is the gateway name that stands for every sidecar.
const meshGateway = "mesh"

// resolveHost is Istio's short-name resolution of a host written in a resource of
// namespace ns: a host without a dot (but "*" and IP addresses) is name.ns.svc.<domain>;
// any other is kept as written.
func resolveHost(h, ns, domain string) string {
	if h == "" || h == names.Wildcard || strings.Contains(h, ".") {
		return h
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return h
	}
	return inventory.ServiceHost(h, ns, domain)
}

// readVirtualServices reads the discovered VirtualServices of the inventory and indexes
// those that apply to sidecars, each list in Istio's order (creation time, name, namespace):
// by namespace those exported to their own namespace, by namespace those exported to it by
// name, and those exported to every namespace.
func (v *View) readVirtualServices(list []inventory.VirtualService, defaultTo []string) {
	byRef := make(map[string]*inventory.VirtualService, len(list))
	for i := range list {
		byRef[list[i].Namespace+"/"+list[i].Name] = &list[i]
	}
	for i := range list {
		vs := &list[i]
		if !v.Discovered(vs.Namespace) {
			v.undiscVS = append(v.undiscVS, vs)
			continue
		}
		if len(vs.Hosts) == 0 {
			continue // a delegate: it applies through its roots only
		}
		r := virtualService{ref: vs.Namespace + "/" + vs.Name, vs: vs, mesh: len(vs.Gateways) == 0 || slices.Contains(vs.Gateways, meshGateway)}
		for _, h := range vs.Hosts {
			r.hosts = append(r.hosts, resolveHost(h, vs.Namespace, v.domain))
		}
		r.exp = exportto.Parse(exportto.ListOf(vs.ExportTo, defaultTo), vs.Namespace)
		r.http = v.httpDestinations(vs, byRef)
		for _, routes := range [][]inventory.L4Route{vs.TLS, vs.TCP} {
			for _, rt := range routes {
				for _, d := range rt.Route {
					r.l4 = append(r.l4, v.destinationOf(d, vs.Namespace))
				}
			}
		}
		r.sourced = slices.ContainsFunc(r.http, func(h httpDests) bool { return len(h.sources) > 0 })
		if !r.sourced {
			r.dests = r.collectDestinations("")
		}
		v.vss = append(v.vss, r)
	}
	slices.SortFunc(v.vss, func(a, b virtualService) int { return compareVirtualServices(a.vs, b.vs) })
	slices.SortFunc(v.undiscVS, compareVirtualServices)
	v.vsPrivate, v.vsExported = map[string][]int32{}, map[string][]int32{}
	v.vsIx = map[string]*vsNamespace{}
	for k := range v.vss {
		r := &v.vss[k]
		if !r.mesh || r.exp.Hidden() {
			continue
		}
		v.indexVirtualService(r, int32(k))
		if r.exp.Public() {
			v.vsPublic = append(v.vsPublic, int32(k))
			continue
		}
		for n := range r.exp.Namespaces() {
			if n == r.vs.Namespace {
				v.vsPrivate[n] = append(v.vsPrivate[n], int32(k))
			} else {
				v.vsExported[n] = append(v.vsExported[n], int32(k))
			}
		}
	}
}

// compareVirtualServices orders VirtualServices as Istio does: by creation time, name,
// namespace.
func compareVirtualServices(a, b *inventory.VirtualService) int {
	return cmp.Or(a.CreationTime.Compare(b.CreationTime), strings.Compare(a.Name, b.Name), strings.Compare(a.Namespace, b.Namespace))
}

// destinationOf resolves a route destination written in namespace ns.
func (v *View) destinationOf(d inventory.Destination, ns string) destination {
	return destination{host: resolveHost(d.Host, ns, v.domain), subset: d.Subset, port: d.Port}
}

// httpDestinations returns the destinations of each HTTP route of vs. A route that
// delegates is replaced by the delegate's routes, as istiod merges them: the delegate
// (namespace "" is vs's) must exist with hosts empty and be exported to vs's namespace; each
// of its routes is kept when its matches and the root route's do not conflict, with the
// merged matches, and inherits the root route's mirrors when it has none. Each destination
// is resolved in the namespace of the VirtualService that names it.
func (v *View) httpDestinations(vs *inventory.VirtualService, byRef map[string]*inventory.VirtualService) []httpDests {
	var out []httpDests
	for i := range vs.HTTP {
		rt := &vs.HTTP[i]
		if rt.Delegate == nil {
			h := httpDests{sources: sourceNamespaces(rt.Match)}
			h.dests = v.appendDests(h.dests, rt.Route, rt.Mirror, rt.Mirrors, vs.Namespace)
			out = append(out, h)
			continue
		}
		dns := cmp.Or(rt.Delegate.Namespace, vs.Namespace)
		d := byRef[dns+"/"+rt.Delegate.Name]
		if d == nil || len(d.Hosts) != 0 || !v.Discovered(dns) || !delegateExportedTo(d, vs.Namespace, v.defaultVSExport) {
			continue // istiod drops the route
		}
		for j := range d.HTTP {
			sub := &d.HTTP[j]
			matches, ok := mergeMatches(rt.Match, sub.Match)
			if !ok {
				continue
			}
			h := httpDests{sources: sourceNamespaces(matches)}
			h.dests = v.appendDests(h.dests, sub.Route, nil, nil, dns)
			mirror, mirrorNS := sub.Mirror, dns
			if mirror == nil {
				mirror, mirrorNS = rt.Mirror, vs.Namespace
			}
			h.dests = v.appendDests(h.dests, nil, mirror, nil, mirrorNS)
			mirrors, mirrorsNS := sub.Mirrors, dns
			if mirrors == nil {
				mirrors, mirrorsNS = rt.Mirrors, vs.Namespace
			}
			h.dests = v.appendDests(h.dests, nil, nil, mirrors, mirrorsNS)
			out = append(out, h)
		}
	}
	return out
}

// appendDests appends the destinations of a route, its mirror and its mirrors, written in
// namespace ns.
func (v *View) appendDests(out []destination, route []inventory.Destination, mirror *inventory.Destination, mirrors []inventory.Destination, ns string) []destination {
	for _, d := range route {
		out = append(out, v.destinationOf(d, ns))
	}
	if mirror != nil {
		out = append(out, v.destinationOf(*mirror, ns))
	}
	for _, d := range mirrors {
		out = append(out, v.destinationOf(d, ns))
	}
	return out
}

// sourceNamespaces returns the non-empty source namespaces the matches name.
func sourceNamespaces(matches []inventory.HTTPMatch) []string {
	var out []string
	for _, m := range matches {
		if m.SourceNamespace != "" {
			out = append(out, m.SourceNamespace)
		}
	}
	return out
}

// delegateExportedTo reports whether a delegate VirtualService is exported to namespace n
// by its exportTo, else the mesh default.
func delegateExportedTo(d *inventory.VirtualService, n string, defaultTo []string) bool {
	return exportto.Parse(exportto.ListOf(d.ExportTo, defaultTo), d.Namespace).To(n)
}

// destinationsFor yields the destinations of r's routes that count for a proxy in namespace
// n: those of each HTTP route whose matches name no source namespace or n among those they
// name, then those of its TCP and TLS routes.
func (r *virtualService) destinationsFor(n string) iter.Seq[destination] {
	return func(yield func(destination) bool) {
		for k := range r.http {
			h := &r.http[k]
			if len(h.sources) != 0 && !slices.Contains(h.sources, n) {
				continue
			}
			for _, d := range h.dests {
				if !yield(d) {
					return
				}
			}
		}
		for _, d := range r.l4 {
			if !yield(d) {
				return
			}
		}
	}
}

// destinationPorts returns the hosts the routes of r send a proxy in namespace n to, sorted,
// each with the ports the routes give (0 among them: some route gives none). What it
// returns is r's when it is the same for every namespace: not to be modified.
func (r *virtualService) destinationPorts(n string) []hostPorts {
	if !r.sourced {
		return r.dests
	}
	return r.collectDestinations(n)
}

// collectDestinations works out destinationPorts(n).
func (r *virtualService) collectDestinations(n string) []hostPorts {
	var out []hostPorts
	for d := range r.destinationsFor(n) {
		i := slices.IndexFunc(out, func(hp hostPorts) bool { return hp.host == d.host })
		if i < 0 {
			out = append(out, hostPorts{host: d.host})
			i = len(out) - 1
		}
		if !slices.Contains(out[i].ports, d.port) {
			out[i].ports = append(out[i].ports, d.port)
		}
	}
	slices.SortFunc(out, func(a, b hostPorts) int { return strings.Compare(a.host, b.host) })
	return out
}

// hostPorts is a destination host and the ports routes give for it.
type hostPorts struct {
	host  string
	ports []uint32
}

// vsNamespace finds, for the imports of one namespace, the VirtualServices of that
// namespace whose hosts may match them (of those that apply to sidecars and are exported
// somewhere).
type vsNamespace struct {
	all    []int32
	exact  map[string][]int32 // an exact host -> the VirtualServices giving it
	suffix map[string][]int32 // ".b.c" -> those giving the wildcard *.b.c
	other  []int32            // those giving another wildcard ("*", "*b.c")
}

// indexVirtualService adds VirtualService k to the index of its namespace.
func (v *View) indexVirtualService(r *virtualService, k int32) {
	x := v.vsIx[r.vs.Namespace]
	if x == nil {
		x = &vsNamespace{exact: map[string][]int32{}, suffix: map[string][]int32{}}
		v.vsIx[r.vs.Namespace] = x
	}
	x.all = append(x.all, k)
	for _, h := range r.hosts {
		switch {
		case !isWildcard(h):
			x.exact[h] = append(x.exact[h], k)
		case strings.HasPrefix(h, "*."):
			x.suffix[h[1:]] = append(x.suffix[h[1:]], k)
		default:
			x.other = append(x.other, k)
		}
	}
}

// selectVirtualServices returns the VirtualServices a listener selects for a proxy in
// namespace n, in Istio's order: those private to n, then those exported to n by name, then
// the public ones (each by creation time). One is selected when one of its hosts matches an
// import of the listener for the VirtualService's own namespace, or of "*": an exact import
// equal to it, or an import of which one side is a wildcard covering the other (either
// way); a host an exclusion of its namespace or of "*" covers does not select it.
//
// A listener that imports from "*" looks at every VirtualService exported to n; any other
// looks only at those of the namespaces it names, and for exact imports only at those whose
// host equals one or is a wildcard that may cover one.
func (v *View) selectVirtualServices(l *listener, n string) []int32 {
	w := l.byNS[names.Wildcard]
	if w != nil && len(w.all) > 0 {
		return v.scanVirtualServices(l, n)
	}
	var cands []int32
	for _, hc := range l.classes {
		x := v.vsIx[hc.ns]
		switch {
		case x == nil || hc.ns == names.Wildcard:
			continue
		case slices.ContainsFunc(hc.all, isWildcard):
			cands = append(cands, x.all...)
			continue
		}
		cands = append(cands, x.other...)
		for _, o := range hc.exact {
			cands = append(cands, x.exact[o]...)
			for i := 0; i < len(o) && len(x.suffix) > 0; i++ {
				if o[i] == '.' {
					cands = append(cands, x.suffix[o[i:]]...)
				}
			}
		}
	}
	slices.Sort(cands)
	cands = slices.Compact(cands)
	out := cands[:0]
	for _, k := range cands {
		r := &v.vss[k]
		hc := l.byNS[r.vs.Namespace]
		if r.exp.To(n) && r.selectedBy(hc, hc, w) {
			out = append(out, k)
		}
	}
	slices.SortStableFunc(out, func(a, b int32) int { return cmp.Compare(v.vsGroup(a, n), v.vsGroup(b, n)) })
	return out
}

// vsGroup is where VirtualService k, exported to n, comes in Istio's order for a proxy in
// n: private to n (0), exported to n by name (1), public (2).
func (v *View) vsGroup(k int32, n string) int {
	switch r := &v.vss[k]; {
	case r.exp.Public():
		return 2
	case r.vs.Namespace == n:
		return 0
	}
	return 1
}

// scanVirtualServices is selectVirtualServices looking at every VirtualService exported to
// n.
func (v *View) scanVirtualServices(l *listener, n string) []int32 {
	var out []int32
	w := l.byNS[names.Wildcard]
	for _, list := range [][]int32{v.vsPrivate[n], v.vsExported[n], v.vsPublic} {
		for _, k := range list {
			r := &v.vss[k]
			hc := l.byNS[r.vs.Namespace]
			if r.selectedBy(hc, hc, w) || r.selectedBy(w, hc, w) {
				out = append(out, k)
			}
		}
	}
	return out
}

// selectedBy reports whether one of r's hosts matches an import of hc and no exclusion of
// its namespace (own) or of "*" (w) covers it.
func (r *virtualService) selectedBy(hc, own, w *hostClass) bool {
	if hc == nil {
		return false
	}
	for _, h := range r.hosts {
		if hc.vsMatches(h) && !own.excludes(h) && !w.excludes(h) {
			return true
		}
	}
	return false
}

// vsMatches reports whether the class imports a VirtualService host h: an exact import
// equal to it, or one of which one side is a wildcard that matches the other either way
// (Istio's host.Name.Matches).
func (hc *hostClass) vsMatches(h string) bool {
	if slices.Contains(hc.exact, h) {
		return true
	}
	for _, o := range hc.all {
		if !isWildcard(h) && !isWildcard(o) {
			continue
		}
		if hosts.Matches(h, o) {
			return true
		}
	}
	return false
}

// routeIndex is the hosts of a listener's VirtualServices, each with the first
// VirtualService (in Istio's order) that gives it: exact hosts sorted, wildcards most
// specific (longest) first.
type routeIndex struct {
	exact, wild []routeHost
}

type routeHost struct {
	host string
	vs   int32
}

// routesOf indexes the hosts of VirtualServices vss, in Istio's order.
func (v *View) routesOf(vss []int32) routeIndex {
	n, wild := 0, 0
	for _, k := range vss {
		n += len(v.vss[k].hosts)
		for _, h := range v.vss[k].hosts {
			wild += b2i(isWildcard(h))
		}
	}
	all := make([]routeHost, 0, n)
	ix := routeIndex{exact: all[: 0 : n-wild], wild: all[n-wild : n-wild]}
	for _, k := range vss {
		for _, h := range v.vss[k].hosts {
			if isWildcard(h) {
				ix.wild = append(ix.wild, routeHost{h, k})
			} else {
				ix.exact = append(ix.exact, routeHost{h, k})
			}
		}
	}
	// Stable sorts keep a host's VirtualServices in Istio's order, and Compact its first.
	same := func(a, b routeHost) bool { return a.host == b.host }
	slices.SortStableFunc(ix.exact, func(a, b routeHost) int { return strings.Compare(a.host, b.host) })
	ix.exact = slices.CompactFunc(ix.exact, same)
	slices.SortStableFunc(ix.wild, func(a, b routeHost) int {
		return cmp.Or(cmp.Compare(len(b.host), len(a.host)), strings.Compare(a.host, b.host))
	})
	ix.wild = slices.CompactFunc(ix.wild, same)
	return ix
}

// lookup returns the VirtualService that routes a service host, and its host that matches
// it: the one whose host matches it most specifically — an exact host equal to it, else the
// longest wildcard covering it — the first in Istio's order among those giving that host;
// ok is false when none does.
func (ix *routeIndex) lookup(host string) (int32, string, bool) {
	if !isWildcard(host) {
		if i, ok := slices.BinarySearchFunc(ix.exact, host, func(r routeHost, h string) int { return strings.Compare(r.host, h) }); ok {
			return ix.exact[i].vs, host, true
		}
	}
	for _, w := range ix.wild {
		if hosts.Covers(w.host, host) {
			return w.vs, w.host, true
		}
	}
	return -1, "", false
}
