package sidecar

import (
	"cmp"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/visibility/inventory"
)

// The literal reference's VirtualServices (steps 7 and 8 of refSidecarView), as istiod's
// VirtualService controller and SidecarScope take them:
//
//   - a host without a dot (and not "*", not an IP) is name.<namespace>.svc.<domain>;
//     every other host is kept as written;
//   - exportTo is the VirtualService's own list, else the mesh default (nil: "*"), with "."
//     read as its namespace; "*" makes it public, "~" hides it, and otherwise it is exported
//     to each namespace named;
//   - a VirtualService without hosts is a delegate: it applies to nothing itself; an http
//     route naming one takes its routes instead, each merged with the delegating route
//     (matches combined unless they conflict, the delegating route's mirror and mirrors kept
//     where the delegate's route has none), when the delegate exists and is exported to the
//     delegating VirtualService's namespace; otherwise the route is dropped;
//   - a listener selects, among those bound to the mesh — those private to n, then those
//     exported to n by name, then the public ones, each by creation time, name, namespace —
//     the ones with a host an import of their own namespace's or of "*" matches (exactly, or
//     either way when one of them is a wildcard) and no exclusion covers;
//   - the VirtualService that routes a host is the one with the most specific host matching
//     it (an exact one, else the longest wildcard, the alphabetically first among equally
//     long ones), the first of the listener's order among those with that very host;
//   - the destinations a proxy in n takes from a VirtualService are those of its http routes
//     (route, mirror, mirrors) not meant for other namespaces' sources only, and those of its
//     tcp and tls routes, each host with the ports named (0: one names none);
//   - the VirtualServices istiod makes from Gateway API routes for the mesh (convertRoutes,
//     held to Istio's by TestGammaAgainstIstio) join them, hosts and destinations as
//     written, exportTo the mesh default; in each of a listener's three lists those of the
//     proxy's namespace come first, and a wildcard host of one is selected only by an import
//     that covers it.

// refVS is a VirtualService as the controller hands it on; converted: one istiod made from
// Gateway API routes.
type refVS struct {
	vs        *inventory.VirtualService
	hosts     []string
	exportTo  []string
	http      []refRoute
	l4        []refDest
	converted bool
}

// refRoute is an http route as far as destinations go: its matches and where it sends.
type refRoute struct {
	match []inventory.HTTPMatch
	dests []refDest
}

type refDest struct {
	host string
	port uint32
}

func (x *refVS) name() string { return x.vs.Namespace + "/" + x.vs.Name }

func (x *refVS) mesh() bool { return len(x.vs.Gateways) == 0 || slices.Contains(x.vs.Gateways, "mesh") }

// resolve is Istio's short name resolution of a host written in namespace ns.
func (v refSidecarView) resolve(h, ns string) string {
	if h == "" || h == "*" || strings.Contains(h, ".") {
		return h
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return h
	}
	return h + "." + ns + ".svc." + v.domain()
}

// vsExportTo is a VirtualService's exportTo as the controller sets it.
func (v refSidecarView) vsExportTo(vs *inventory.VirtualService) []string {
	return v.vsList(vs, vs.ExportTo)
}

// vsSelectable is a VirtualService's exportTo as a listener selects by it: the mesh default
// as the release reads it for one without its own.
func (v refSidecarView) vsSelectable(vs *inventory.VirtualService) []string {
	if len(vs.ExportTo) > 0 || v.m == nil {
		return v.vsExportTo(vs)
	}
	return v.vsList(vs, v.defaultList(v.m.DefaultVirtualServiceExportTo))
}

// vsList is list, or the mesh default as given when it is empty, "." read as vs's namespace.
func (v refSidecarView) vsList(vs *inventory.VirtualService, list []string) []string {
	if len(list) == 0 && v.m != nil {
		list = v.m.DefaultVirtualServiceExportTo
	}
	if len(list) == 0 {
		list = []string{"*"}
	}
	var out []string
	for _, e := range list {
		if e == "." {
			e = vs.Namespace
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// virtualServices are the discovered VirtualServices with hosts, delegates merged in, in
// creation order.
func (v refSidecarView) virtualServices() []*refVS {
	var out []*refVS
	for i := range v.inv.VirtualServices {
		vs := &v.inv.VirtualServices[i]
		if len(vs.Hosts) == 0 || !v.discovered(vs.Namespace) {
			continue
		}
		x := &refVS{vs: vs, exportTo: v.vsSelectable(vs)}
		for _, h := range vs.Hosts {
			x.hosts = append(x.hosts, v.resolve(h, vs.Namespace))
		}
		for _, r := range vs.HTTP {
			if r.Delegate == nil {
				x.http = append(x.http, v.route(r, vs.Namespace))
				continue
			}
			d := v.delegate(r.Delegate, vs.Namespace)
			if d == nil {
				continue
			}
			for _, sub := range d.HTTP {
				match, ok := refMergeMatches(r.Match, sub.Match)
				if !ok {
					continue
				}
				m := refRoute{match: match}
				for _, dst := range sub.Route {
					m.dests = append(m.dests, refDest{v.resolve(dst.Host, d.Namespace), dst.Port})
				}
				// The delegate's route keeps its own mirror, and its own mirrors; where it has
				// none, the delegating route's.
				switch {
				case sub.Mirror != nil:
					m.dests = append(m.dests, refDest{v.resolve(sub.Mirror.Host, d.Namespace), sub.Mirror.Port})
				case r.Mirror != nil:
					m.dests = append(m.dests, refDest{v.resolve(r.Mirror.Host, vs.Namespace), r.Mirror.Port})
				}
				mirrors, ns := sub.Mirrors, d.Namespace
				if len(mirrors) == 0 {
					mirrors, ns = r.Mirrors, vs.Namespace
				}
				for _, dst := range mirrors {
					m.dests = append(m.dests, refDest{v.resolve(dst.Host, ns), dst.Port})
				}
				x.http = append(x.http, m)
			}
		}
		for _, r := range append(slices.Clone(vs.TCP), vs.TLS...) {
			for _, dst := range r.Route {
				x.l4 = append(x.l4, refDest{v.resolve(dst.Host, vs.Namespace), dst.Port})
			}
		}
		out = append(out, x)
	}
	g := convertRoutes(&v.inv, v.discovered)
	for i := range g.vss {
		vs := &g.vss[i].vs
		if !slices.Contains(vs.Gateways, "mesh") {
			continue
		}
		x := &refVS{vs: vs, hosts: vs.Hosts, exportTo: v.vsSelectable(vs), converted: true}
		for _, r := range vs.HTTP {
			m := refRoute{match: r.Match}
			for _, d := range append(slices.Clone(r.Route), r.Mirrors...) {
				m.dests = append(m.dests, refDest{d.Host, d.Port})
			}
			x.http = append(x.http, m)
		}
		for _, r := range append(slices.Clone(vs.TCP), vs.TLS...) {
			for _, d := range r.Route {
				x.l4 = append(x.l4, refDest{d.Host, d.Port})
			}
		}
		out = append(out, x)
	}
	slices.SortStableFunc(out, func(a, b *refVS) int {
		return cmp.Or(a.vs.CreationTime.Compare(b.vs.CreationTime), strings.Compare(a.vs.Name, b.vs.Name), strings.Compare(a.vs.Namespace, b.vs.Namespace))
	})
	return out
}

// route is an http route without a delegate, its hosts resolved in namespace ns.
func (v refSidecarView) route(r inventory.HTTPRoute, ns string) refRoute {
	out := refRoute{match: r.Match}
	for _, dst := range r.Route {
		out.dests = append(out.dests, refDest{v.resolve(dst.Host, ns), dst.Port})
	}
	if r.Mirror != nil {
		out.dests = append(out.dests, refDest{v.resolve(r.Mirror.Host, ns), r.Mirror.Port})
	}
	for _, dst := range r.Mirrors {
		out.dests = append(out.dests, refDest{v.resolve(dst.Host, ns), dst.Port})
	}
	return out
}

// delegate is the delegate VirtualService d names from a route of namespace ns, when it
// exists (discovered, without hosts) and is exported to ns.
func (v refSidecarView) delegate(d *inventory.Delegate, ns string) *inventory.VirtualService {
	dns := d.Namespace
	if dns == "" {
		dns = ns
	}
	for i := range v.inv.VirtualServices {
		x := &v.inv.VirtualServices[i]
		if x.Namespace != dns || x.Name != d.Name || len(x.Hosts) > 0 || !v.discovered(x.Namespace) {
			continue
		}
		if e := v.vsExportTo(x); slices.Contains(e, "*") || slices.Contains(e, ns) {
			return x
		}
	}
	return nil
}

// refMergeMatches combines a delegating route's matches with a delegate route's: either
// list empty gives the other; else every delegate match must agree with some root match,
// and each agreeing pair gives one match (the delegate's fields, the root's where the
// delegate has none). false: a conflict, and the delegate route is dropped.
func refMergeMatches(root, leaf []inventory.HTTPMatch) ([]inventory.HTTPMatch, bool) {
	if len(root) == 0 {
		return leaf, true
	}
	if len(leaf) == 0 {
		return root, true
	}
	var out []inventory.HTTPMatch
	for _, l := range leaf {
		agreed := false
		for _, r := range root {
			if refMatchesConflict(r, l) {
				continue
			}
			out = append(out, refMergeMatch(r, l))
			agreed = true
		}
		if !agreed {
			return nil, false
		}
	}
	return out, len(out) > 0
}

// refMergeMatch is a delegate's match l with what it leaves unset taken from the delegating
// route's r: each string match, port, source namespace and gateways it has none of; headers,
// query parameters and source labels of both, l's winning.
func refMergeMatch(r, l inventory.HTTPMatch) inventory.HTTPMatch {
	m := l
	if m.URI == nil {
		m.URI = r.URI
	}
	if m.Scheme == nil {
		m.Scheme = r.Scheme
	}
	if m.Method == nil {
		m.Method = r.Method
	}
	if m.Authority == nil {
		m.Authority = r.Authority
	}
	both := func(a, b map[string]inventory.StringMatch) map[string]inventory.StringMatch {
		out := maps.Clone(a)
		if out == nil {
			out = map[string]inventory.StringMatch{}
		}
		maps.Copy(out, b)
		return out
	}
	m.Headers, m.WithoutHeaders, m.QueryParams = both(r.Headers, l.Headers), both(r.WithoutHeaders, l.WithoutHeaders), both(r.QueryParams, l.QueryParams)
	if m.Port == 0 {
		m.Port = r.Port
	}
	m.SourceLabels = maps.Clone(r.SourceLabels)
	if m.SourceLabels == nil {
		m.SourceLabels = map[string]string{}
	}
	maps.Copy(m.SourceLabels, l.SourceLabels)
	if m.SourceNamespace == "" {
		m.SourceNamespace = r.SourceNamespace
	}
	if len(m.Gateways) == 0 {
		m.Gateways = r.Gateways
	}
	return m
}

// refMatchesConflict: a delegate's match l asks for what the delegating route's match r
// rules out.
func refMatchesConflict(r, l inventory.HTTPMatch) bool {
	for _, pair := range [][2]*inventory.StringMatch{{r.URI, l.URI}, {r.Scheme, l.Scheme}, {r.Method, l.Method}, {r.Authority, l.Authority}} {
		if refStringConflict(pair[0], pair[1]) {
			return true
		}
	}
	for _, kv := range []struct {
		r, l map[string]inventory.StringMatch
	}{{r.Headers, l.Headers}, {r.WithoutHeaders, l.WithoutHeaders}, {r.QueryParams, l.QueryParams}} {
		for k, lv := range kv.l {
			var rp *inventory.StringMatch
			if rv, ok := kv.r[k]; ok {
				rp = &rv
			}
			if refStringConflict(rp, &lv) {
				return true
			}
		}
	}
	if r.IgnoreURICase != l.IgnoreURICase {
		return true
	}
	if r.Port > 0 && l.Port > 0 && r.Port != l.Port {
		return true
	}
	if r.SourceNamespace != "" && l.SourceNamespace != r.SourceNamespace {
		return true
	}
	for k, lv := range l.SourceLabels {
		if rv, ok := r.SourceLabels[k]; ok && rv != lv {
			return true
		}
	}
	if len(r.Gateways) > 0 && len(l.Gateways) > 0 {
		if len(r.Gateways) < len(l.Gateways) {
			return true
		}
		for _, g := range l.Gateways {
			if !slices.Contains(r.Gateways, g) {
				return true
			}
		}
	}
	return false
}

// refStringConflict: the delegate's string match l is not within the root's r. Either
// missing: no conflict; a regex on either side beside anything on the other: conflict; an
// exact root takes the same exact; a prefix root takes a prefix or an exact under it;
// anything else conflicts.
func refStringConflict(r, l *inventory.StringMatch) bool {
	if r == nil || l == nil {
		return false
	}
	any := func(m *inventory.StringMatch) bool { return m.Regex != "" || m.Prefix != "" || m.Exact != "" }
	if r.Regex != "" && any(l) || l.Regex != "" && any(r) {
		return true
	}
	if r.Exact != "" {
		return l.Prefix != "" || l.Exact != r.Exact
	}
	if r.Prefix != "" {
		if l.Prefix != "" {
			return !strings.HasPrefix(l.Prefix, r.Prefix)
		}
		if l.Exact != "" {
			return !strings.HasPrefix(l.Exact, r.Prefix)
		}
	}
	return true
}

// destinations are the destination hosts a proxy in n takes from x, each with the ports
// its destinations name (0 for one naming none).
func (x *refVS) destinations(n string) map[string][]uint32 {
	out := map[string][]uint32{}
	add := func(d refDest) {
		if !slices.Contains(out[d.host], d.port) {
			out[d.host] = append(out[d.host], d.port)
		}
	}
	for _, r := range x.http {
		// Skipped when a match names another source namespace and none names n.
		skip := false
		for _, m := range r.match {
			if m.SourceNamespace == n {
				skip = false
				break
			}
			if m.SourceNamespace != "" {
				skip = true
			}
		}
		if skip {
			continue
		}
		for _, d := range r.dests {
			add(d)
		}
	}
	for _, d := range x.l4 {
		add(d)
	}
	return out
}

// refMatches is Istio's host.Name.Matches: either host covers the other. It restates
// hosts.Matches on purpose: the reference stands apart from the code the view uses.
func refMatches(a, b string) bool {
	aw, bw := strings.HasPrefix(a, "*"), strings.HasPrefix(b, "*")
	switch {
	case aw && bw:
		if len(a) < len(b) {
			return strings.HasSuffix(b[1:], a[1:])
		}
		return strings.HasSuffix(a[1:], b[1:])
	case aw:
		return strings.HasSuffix(b, a[1:])
	case bw:
		return strings.HasSuffix(a, b[1:])
	}
	return a == b
}

// refSelectVirtualServices are the VirtualServices a listener with entries selects for a
// proxy in n, in order.
func refSelectVirtualServices(vses []*refVS, entries []refEgressHost, n string) []*refVS {
	var private, exported, public []*refVS
	for _, x := range vses {
		switch {
		case !x.mesh():
		case slices.Contains(x.exportTo, "*"):
			public = append(public, x)
		case slices.Contains(x.exportTo, "~"):
		case !slices.Contains(x.exportTo, n):
		case x.vs.Namespace == n:
			private = append(private, x)
		default:
			exported = append(exported, x)
		}
	}
	has := func(ns string) bool {
		return slices.ContainsFunc(entries, func(en refEgressHost) bool { return en.ns == ns })
	}
	// matches: an import of namespace ns matches host h of x — exactly, or either way when
	// one of them is a wildcard (one made from routes: only an import covering h).
	matches := func(x *refVS, ns, h string) bool {
		for _, en := range entries {
			if !en.exclude && en.ns == ns && en.host == h && !strings.HasPrefix(h, "*") {
				return true
			}
		}
		for _, en := range entries {
			if en.exclude || en.ns != ns || !strings.HasPrefix(h, "*") && !strings.HasPrefix(en.host, "*") {
				continue
			}
			if x.converted && refSubset(h, en.host) || !x.converted && refMatches(h, en.host) {
				return true
			}
		}
		return false
	}
	var out []*refVS
	add := func(x *refVS, ns string) {
		if slices.Contains(out, x) {
			return
		}
		for _, h := range x.hosts {
			if !matches(x, ns, h) || refExcluded(entries, x.vs.Namespace, h) || refExcluded(entries, "*", h) {
				continue
			}
			out = append(out, x)
			return
		}
	}
	for _, list := range [][]*refVS{private, exported, public} {
		// Those made from routes of n first.
		slices.SortStableFunc(list, func(a, b *refVS) int {
			return cmp.Compare(b2i(!a.converted || a.vs.Namespace != n), b2i(!b.converted || b.vs.Namespace != n))
		})
		for _, x := range list {
			if has(x.vs.Namespace) {
				add(x, x.vs.Namespace)
			}
			if has("*") {
				add(x, "*")
			}
		}
	}
	return out
}

// refMostSpecificVirtualService is the VirtualService of selected that routes service host
// h, or nil.
func refMostSpecificVirtualService(selected []*refVS, h string) *refVS {
	// The first VirtualService with each host.
	first := map[string]*refVS{}
	for _, x := range selected {
		for _, vh := range x.hosts {
			if _, ok := first[vh]; !ok {
				first[vh] = x
			}
		}
	}
	// A host a VirtualService has as it is: an exact one among the exact hosts, a wildcard
	// among the wildcards.
	if x, ok := first[h]; ok {
		return x
	}
	needle := h
	if strings.HasPrefix(h, "*") {
		needle = h[1:]
	}
	best := ""
	for _, vh := range slices.Sorted(maps.Keys(first)) {
		if !strings.HasPrefix(vh, "*") || !strings.HasSuffix(needle, vh[1:]) {
			continue
		}
		if best == "" || len(vh) > len(best) || len(vh) == len(best) && vh < best {
			best = vh
		}
	}
	if best == "" {
		return nil
	}
	return first[best]
}
