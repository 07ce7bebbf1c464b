package sidecar

import (
	"cmp"
	"iter"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/exportto"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// The destinations of a VirtualService's routes: the hosts a sidecar's listener goes on to
// receive services for.

// httpDests are the destinations of one HTTP route, its matches (a delegate's merged with its
// root's) and the source namespaces they name.
type httpDests struct {
	match   []inventory.HTTPMatch
	sources []string // non-empty sourceNamespace of the matches; none: every namespace
	dests   []destination
}

// destination is a route destination, its host resolved; port 0: none given.
type destination struct {
	host   string
	subset string
	port   uint32
}

// hostPorts is a destination host and the ports routes give for it.
type hostPorts struct {
	host  string
	ports []uint32
}

// routeReader reads the routes of the VirtualServices of a view: short hosts resolve into
// domain (but in those istiod made from routes: literal), and a delegate is found by
// "namespace/name" among the inventory's.
type routeReader struct {
	disc        discovery
	domain      string
	meshDefault []string // the mesh's defaultVirtualServiceExportTo
	byRef       map[string]*inventory.VirtualService
	literal     bool
}

// read fills in the destinations of r's routes.
func (rd *routeReader) read(r *virtualService) {
	vs := r.vs
	rd.literal = r.converted()
	r.http = rd.httpDestinations(vs)
	for _, routes := range [][]inventory.L4Route{vs.TLS, vs.TCP} {
		for _, rt := range routes {
			for _, d := range rt.Route {
				r.l4 = append(r.l4, rd.destinationOf(d, vs.Namespace))
			}
		}
	}
	r.sourced = slices.ContainsFunc(r.http, func(h httpDests) bool { return len(h.sources) > 0 })
	if !r.sourced {
		r.dests = r.collectDestinations("")
	}
}

// destinationOf resolves a route destination written in namespace ns (literal: keeps it).
func (rd *routeReader) destinationOf(d inventory.Destination, ns string) destination {
	if rd.literal {
		return destination{host: d.Host, subset: d.Subset, port: d.Port}
	}
	return destination{host: resolveHost(d.Host, ns, rd.domain), subset: d.Subset, port: d.Port}
}

// httpDestinations returns the destinations of each HTTP route of vs. A route that
// delegates is replaced by the delegate's routes, as istiod merges them: the delegate
// (namespace "" is vs's) must exist with hosts empty and its exportTo hold "*" or vs's
// namespace (the mesh default read as written, whatever the release); each
// of its routes is kept when its matches and the root route's do not conflict, with the
// merged matches, and inherits the root route's mirrors when it has none. Each destination
// is resolved in the namespace of the VirtualService that names it.
func (rd *routeReader) httpDestinations(vs *inventory.VirtualService) []httpDests {
	var out []httpDests
	for i := range vs.HTTP {
		rt := &vs.HTTP[i]
		if rt.Delegate == nil {
			h := httpDests{match: rt.Match, sources: sourceNamespaces(rt.Match)}
			h.dests = rd.appendDests(h.dests, rt.Route, rt.Mirror, rt.Mirrors, vs.Namespace)
			out = append(out, h)
			continue
		}
		dns := cmp.Or(rt.Delegate.Namespace, vs.Namespace)
		d := rd.byRef[dns+"/"+rt.Delegate.Name]
		// The delegate's list as given (the mesh default as written, in every release) holds
		// "*" or the root's namespace.
		if d == nil || len(d.Hosts) != 0 || !rd.disc.discovered(dns) || !exportto.Parse(exportto.ListOf(d.ExportTo, rd.meshDefault), d.Namespace).Holds(vs.Namespace) {
			continue // istiod drops the route
		}
		for j := range d.HTTP {
			sub := &d.HTTP[j]
			matches, ok := mergeMatches(rt.Match, sub.Match)
			if !ok {
				continue
			}
			h := httpDests{match: matches, sources: sourceNamespaces(matches)}
			h.dests = rd.appendDests(h.dests, sub.Route, nil, nil, dns)
			mirror, mirrorNS := sub.Mirror, dns
			if mirror == nil {
				mirror, mirrorNS = rt.Mirror, vs.Namespace
			}
			h.dests = rd.appendDests(h.dests, nil, mirror, nil, mirrorNS)
			mirrors, mirrorsNS := sub.Mirrors, dns
			if mirrors == nil {
				mirrors, mirrorsNS = rt.Mirrors, vs.Namespace
			}
			h.dests = rd.appendDests(h.dests, nil, nil, mirrors, mirrorsNS)
			out = append(out, h)
		}
	}
	return out
}

// appendDests appends the destinations of a route, its mirror and its mirrors, written in
// namespace ns.
func (rd *routeReader) appendDests(out []destination, route []inventory.Destination, mirror *inventory.Destination, mirrors []inventory.Destination, ns string) []destination {
	for _, d := range route {
		out = append(out, rd.destinationOf(d, ns))
	}
	if mirror != nil {
		out = append(out, rd.destinationOf(*mirror, ns))
	}
	for _, d := range mirrors {
		out = append(out, rd.destinationOf(d, ns))
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

// subsetDestinations returns r's route destinations that name a subset, for proxies of
// namespace n, each once.
func (r *virtualService) subsetDestinations(n string) []destination {
	var out []destination
	for d := range r.destinationsFor(n) {
		if d.subset != "" && !slices.ContainsFunc(out, func(o destination) bool { return o.host == d.host && o.subset == d.subset }) {
			out = append(out, d)
		}
	}
	return out
}
