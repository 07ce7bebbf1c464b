package sidecar

import (
	"cmp"
	"net/netip"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/exportto"
	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// vsIndex is the VirtualServices of a view — the users' and those istiod makes from Gateway
// API routes for the mesh — that apply to sidecars in Istio's order, in the three lists a
// proxy's namespace n draws on — private to n, exported to n by name, public — and, per
// namespace, by host; and those of undiscovered namespaces.
type vsIndex struct {
	vss         []virtualService // every discovered VirtualService with hosts, in Istio's order
	meshDefault []string         // the mesh's defaultVirtualServiceExportTo
	// lists holds, per namespace n, those private to n (group 0; those made from routes
	// first) and those exported to n by name (group 1); public those exported to every
	// namespace (group 2), and convertedPublic those of them made from routes, by namespace.
	lists           [2]map[string][]int32
	public          []int32
	convertedPublic map[string][]int32
	byNS            map[string]*vsNamespace
	undisc          []*inventory.VirtualService // of undiscovered namespaces, in Istio's order
}

// virtualService is a VirtualService as a sidecar reads it: its hosts and destination hosts
// with short names resolved, its exportTo, and its destinations per route.
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
	// gamma is what is behind a VirtualService istiod made from routes (their conversion);
	// nil for a user's.
	gamma *gammaVirtualService
}

// converted reports whether istiod made the VirtualService from Gateway API routes: its
// hosts and destinations are kept as written, it is selected with Gateway API semantics
// (vsIndex.rank, hostClass.vsMatches), and it routes only some proxies (routeTable).
func (r *virtualService) converted() bool { return r.gamma != nil }

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

// newVSIndex reads the discovered VirtualServices of list (meshDefault: the mesh's
// defaultVirtualServiceExportTo, and defaultList the list the release makes of it for a
// VirtualService without its own, exportto.DefaultList; short hosts resolve into domain) and
// those istiod makes from routes (converted, of discovered namespaces: their hosts and
// destinations are kept as written, as istiod keeps them; they declare no exportTo), and
// indexes those that apply to sidecars.
func newVSIndex(list []inventory.VirtualService, converted []gammaVirtualService, disc discovery, domain string, meshDefault, defaultList []string) vsIndex {
	x := vsIndex{meshDefault: meshDefault, lists: [2]map[string][]int32{{}, {}}, convertedPublic: map[string][]int32{}, byNS: map[string]*vsNamespace{}}
	rd := routeReader{disc: disc, domain: domain, meshDefault: meshDefault, byRef: make(map[string]*inventory.VirtualService, len(list))}
	for i := range list {
		rd.byRef[list[i].Namespace+"/"+list[i].Name] = &list[i]
	}
	for i := range list {
		vs := &list[i]
		if !disc.discovered(vs.Namespace) {
			x.undisc = append(x.undisc, vs)
			continue
		}
		if len(vs.Hosts) == 0 {
			continue // a delegate: it applies through its roots only
		}
		r := virtualService{ref: vs.Namespace + "/" + vs.Name, vs: vs, mesh: len(vs.Gateways) == 0 || slices.Contains(vs.Gateways, meshGateway),
			exp: exportto.Parse(exportto.ListOf(vs.ExportTo, defaultList), vs.Namespace)}
		for _, h := range vs.Hosts {
			r.hosts = append(r.hosts, resolveHost(h, vs.Namespace, domain))
		}
		rd.read(&r)
		x.vss = append(x.vss, r)
	}
	for i := range converted {
		g := &converted[i]
		if !slices.Contains(g.vs.Gateways, meshGateway) {
			continue // a Gateway's: never a sidecar's
		}
		r := virtualService{ref: g.vs.Namespace + "/" + g.vs.Name, vs: &g.vs, mesh: true, hosts: g.vs.Hosts, gamma: g,
			exp: exportto.Parse(defaultList, g.vs.Namespace)}
		rd.read(&r)
		x.vss = append(x.vss, r)
	}
	slices.SortFunc(x.vss, func(a, b virtualService) int { return compareVirtualServices(a.vs, b.vs) })
	slices.SortFunc(x.undisc, compareVirtualServices)
	for k := range x.vss {
		r := &x.vss[k]
		if !r.mesh || r.exp.Hidden() {
			continue
		}
		x.index(r, int32(k))
		if r.exp.Public() {
			x.public = append(x.public, int32(k))
			if r.converted() {
				x.convertedPublic[r.vs.Namespace] = append(x.convertedPublic[r.vs.Namespace], int32(k))
			}
			continue
		}
		for n := range r.exp.Namespaces() {
			g := x.group(int32(k), n)
			x.lists[g][n] = append(x.lists[g][n], int32(k))
		}
	}
	for n, list := range x.lists[0] { // every one of n's: those made from routes first
		slices.SortStableFunc(list, func(a, b int32) int { return cmp.Compare(x.rank(a, n), x.rank(b, n)) })
	}
	return x
}

// compareVirtualServices orders VirtualServices as Istio does: by creation time, name,
// namespace.
func compareVirtualServices(a, b *inventory.VirtualService) int {
	return cmp.Or(a.CreationTime.Compare(b.CreationTime), strings.Compare(a.Name, b.Name), strings.Compare(a.Namespace, b.Namespace))
}

// group is the list of a listener's candidates for a proxy in n VirtualService k, exported to
// n, comes in: private to n (0), exported to n by name (1), public (2).
func (x *vsIndex) group(k int32, n string) int {
	switch r := &x.vss[k]; {
	case r.exp.Public():
		return 2
	case r.vs.Namespace == n:
		return 0
	}
	return 1
}

// rank is where VirtualService k, exported to n, comes among a listener's candidates for a
// proxy in n: by its group (private to n, exported to n by name, public) and, within it,
// those istiod made from routes of n first, then all others — users' VirtualServices of n
// included —, each part in Istio's order (by creation time, name, namespace). It is the one
// ranking of VirtualServices istiod applies: a consumer's route comes before an older route
// or VirtualService of the service's namespace.
func (x *vsIndex) rank(k int32, n string) int {
	r := &x.vss[k]
	return 2*x.group(k, n) + b2i(!r.converted() || r.vs.Namespace != n)
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

// index adds VirtualService k to the index of its namespace.
func (x *vsIndex) index(r *virtualService, k int32) {
	ix := x.byNS[r.vs.Namespace]
	if ix == nil {
		ix = &vsNamespace{exact: map[string][]int32{}, suffix: map[string][]int32{}}
		x.byNS[r.vs.Namespace] = ix
	}
	ix.all = append(ix.all, k)
	for _, h := range r.hosts {
		switch {
		case !isWildcard(h):
			ix.exact[h] = append(ix.exact[h], k)
		case strings.HasPrefix(h, "*."):
			ix.suffix[h[1:]] = append(ix.suffix[h[1:]], k)
		default:
			ix.other = append(ix.other, k)
		}
	}
}

// selectFor returns the VirtualServices a listener selects for a proxy in namespace n, in
// Istio's order (see group): those exported to n of which the listener selects one host
// (listener.selects).
//
// A listener that imports from "*" looks at every VirtualService exported to n; any other
// looks only at those of the namespaces it names, and for exact imports only at those whose
// host equals one or is a wildcard that may cover one.
func (x *vsIndex) selectFor(l *listener, n string) []int32 {
	if w := l.wildcard(); w != nil && len(w.all) > 0 {
		return x.scan(l, n)
	}
	var cands []int32
	for _, hc := range l.classes {
		ix := x.byNS[hc.ns]
		switch {
		case ix == nil || hc.ns == names.Wildcard:
			continue
		case slices.ContainsFunc(hc.all, isWildcard):
			cands = append(cands, ix.all...)
			continue
		}
		cands = append(cands, ix.other...)
		for _, o := range hc.exact {
			cands = append(cands, ix.exact[o]...)
			for i := 0; i < len(o) && len(ix.suffix) > 0; i++ {
				if o[i] == '.' {
					cands = append(cands, ix.suffix[o[i:]]...)
				}
			}
		}
	}
	slices.Sort(cands)
	cands = slices.Compact(cands)
	out := cands[:0]
	for _, k := range cands {
		if r := &x.vss[k]; r.exp.To(n) && l.selected(r) {
			out = append(out, k)
		}
	}
	slices.SortStableFunc(out, func(a, b int32) int { return cmp.Compare(x.rank(a, n), x.rank(b, n)) })
	return out
}

// scan is selectFor looking at every VirtualService exported to n, in rank order: the
// private ones (those made from routes first, as New sorted them), those exported by name,
// then the public ones made from routes of n before all other public ones.
func (x *vsIndex) scan(l *listener, n string) []int32 {
	var out []int32
	add := func(list []int32, skipOwn bool) {
		for _, k := range list {
			if r := &x.vss[k]; (!skipOwn || !r.converted() || r.vs.Namespace != n) && l.selected(r) {
				out = append(out, k)
			}
		}
	}
	add(x.lists[0][n], false)
	add(x.lists[1][n], false)
	add(x.convertedPublic[n], false)
	add(x.public, true)
	return out
}

// selects decides whether the listener selects VirtualService r (exported to the proxy's
// namespace): one of r's hosts matches an import of the listener for r's own namespace or
// for "*" — an exact import equal to it, or an import of which one side is a wildcard
// covering the other (either way; for a VirtualService made from routes, only an import
// covering its host) — and no exclusion of r's namespace or of "*" covers that host. Else:
// excluded when an exclusion is why (matched: the first host an import matches), notCovered
// when no import matches.
func (l *listener) selects(r *virtualService) (why refusal, matched string) {
	own, w := l.byNS[r.vs.Namespace], l.wildcard()
	oneWay := r.converted()
	why = notCovered
	for _, h := range r.hosts {
		if !own.vsMatches(h, oneWay) && !w.vsMatches(h, oneWay) {
			continue
		}
		if !own.excludes(h) && !w.excludes(h) {
			return admitted, h
		}
		if why == notCovered {
			why, matched = excluded, h
		}
	}
	return why, matched
}

// selected reports whether the listener selects VirtualService r (see selects).
func (l *listener) selected(r *virtualService) bool {
	why, _ := l.selects(r)
	return why == admitted
}

// vsMatches reports whether the class imports a VirtualService host h: an exact import
// equal to it, or one of which one side is a wildcard that matches the other either way
// (Istio's host.Name.Matches) — or, oneWay (a VirtualService istiod made from routes, read
// with Gateway API semantics), an import that covers h as it would cover a service host: a
// wildcard host is taken only inside an imported one.
func (hc *hostClass) vsMatches(h string, oneWay bool) bool {
	if hc == nil {
		return false
	}
	if slices.Contains(hc.exact, h) {
		return true
	}
	for _, o := range hc.all {
		if !isWildcard(h) && !isWildcard(o) {
			continue
		}
		if oneWay && hosts.Covers(o, h) || !oneWay && hosts.Matches(h, o) {
			return true
		}
	}
	return false
}
