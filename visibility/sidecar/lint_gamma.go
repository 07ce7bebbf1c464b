package sidecar

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/report"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// lintGammaRoutes judges the Gateway API routes of the discovered namespaces as istiod
// converts them: their mesh parents (missing, a port the service lacks, a consumer route),
// their backends (every one that does not resolve) and the mesh default exportTo their
// VirtualServices go by.
func (v *View) lintGammaRoutes() []Finding {
	g := v.routes
	if g == nil || g.ix == nil || len(v.inv.Routes) == 0 {
		return nil
	}
	var out []Finding
	for i := range v.inv.Routes {
		r := &v.inv.Routes[i]
		if !v.Discovered(r.Namespace) {
			continue
		}
		c := g.ix.route(int32(i))
		path := v.routeRef(int32(i))
		out = append(out, c.lintParents(path)...)
		out = append(out, c.lintBackends(path)...)
	}
	out = append(out, v.lintRouteExports()...)
	if n := len(g.vss); n > 0 && v.release.Minor() < 31 {
		out = append(out, report.New("Gateway API routes", RouteConversionNotRecorded,
			"%s: the %d VirtualServices made from routes are those the 1.31 build makes; this release's own conversion and route status were not recorded and may differ", v.release, n))
	}
	return out
}

// lintParents finds the route's mesh parents that do not exist, those whose port the service
// does not have, and the services of other namespaces it is a consumer route of.
func (c *gammaRoute) lintParents(path string) []Finding {
	var out []Finding
	for i := range c.parents {
		p := &c.parents[i]
		if !p.mesh {
			continue
		}
		pr := &c.r.ParentRefs[p.ref]
		ns := cmp.Or(pr.Namespace, c.r.Namespace)
		at := fmt.Sprintf("parentRefs[%d]", p.ref)
		if p.denied != nil {
			out = append(out, report.New(path, RouteParentNotFound, "%s: %s (istiod writes Accepted=False, %s): the route routes nothing through it", at, p.denied.message, p.denied.reason))
			continue
		}
		s := c.ix.k8s[gammaNSName{ns, pr.Name}]
		if pr.Kind == "ServiceEntry" {
			s = c.ix.entries[gammaNSName{ns, pr.Name}]
		}
		if pr.Port != 0 && !slices.Contains(s.Ports, pr.Port) {
			out = append(out, report.New(path, RouteParentPortMissing, "%s names port %d, which %s does not have (its ports: %v): istiod does not check it, and the VirtualService it makes matches only requests to port %d, which the service never receives",
				at, pr.Port, s.Ref(), s.Ports, pr.Port))
		}
		if ns != c.r.Namespace {
			out = append(out, report.New(path, ConsumerRouteLocal, "%s is %s, of another namespace: a consumer route, whose routes istiod builds only for the proxies of %s; the proxies of every other namespace, %s included, get %s's own routes for it, if any",
				at, s.Ref(), c.r.Namespace, ns, ns))
		}
	}
	return out
}

// lintBackends finds every backend of the route's rules, and every mirror's, that does not
// resolve as istiod converts it: for the mesh (when a mesh parent takes the route) and, where
// a ReferenceGrant is needed, for a Gateway. istiod's ResolvedRefs names only the last.
func (c *gammaRoute) lintBackends(path string) []Finding {
	mesh, gw := false, false
	for i := range c.parents {
		mesh, gw = mesh || c.parents[i].mesh, gw || !c.parents[i].mesh
	}
	type unresolved struct{ at, what string }
	var found []unresolved
	check := func(at string, b *inventory.BackendRef) {
		for _, enforce := range []bool{false, true} {
			if enforce && !gw || !enforce && !mesh {
				continue
			}
			if _, err := c.backend(b, enforce); err != nil && err.invalidBackend() {
				u := unresolved{at, err.message + " (" + err.reason + ")"}
				if enforce {
					u.what += ", under a Gateway parent"
				}
				if !slices.Contains(found, u) && !slices.Contains(found, unresolved{at, err.message + " (" + err.reason + ")"}) {
					found = append(found, u)
				}
			}
		}
	}
	for n := range c.r.Rules {
		rule := &c.r.Rules[n]
		for j := range rule.BackendRefs {
			if rule.BackendRefs[j].Weight != 0 {
				check(fmt.Sprintf("rules[%d].backendRefs[%d]", n, j), &rule.BackendRefs[j])
			}
		}
		for j := range rule.Filters {
			if f := &rule.Filters[j]; f.Type == inventory.FilterRequestMirror && f.RequestMirror != nil {
				check(fmt.Sprintf("rules[%d].filters[%d].requestMirror", n, j), &f.RequestMirror.BackendRef)
			}
		}
	}
	var out []Finding
	for _, u := range found {
		msg := fmt.Sprintf("%s: %s: requests routed there fail", u.at, u.what)
		if len(found) > 1 {
			msg += fmt.Sprintf(" (one of %d backends that do not resolve; the ResolvedRefs condition istiod writes names only the last)", len(found))
		}
		out = append(out, report.New(path, RouteBackendUnresolved, "%s", msg))
	}
	return out
}

// lintRouteExports finds the routes whose VirtualService the mesh's
// defaultVirtualServiceExportTo keeps from proxies it would route: a producer route (of its
// service's namespace) from the other namespaces of the inventory, a consumer route from its
// own namespace.
func (v *View) lintRouteExports() []Finding {
	var out []Finding
	namespaces := v.inv.NamespaceNames()
	for k := range v.vss.vss {
		r := &v.vss.vss[k]
		if !r.converted() || r.exp.Public() {
			continue
		}
		c := r.vs.Namespace
		var from string
		switch producer := v.serviceNamespace(r) == c; {
		case r.exp.Hidden():
			from = "every namespace"
		case producer:
			var hidden []string
			for _, n := range namespaces {
				if n != c && v.Discovered(n) && !r.exp.To(n) {
					hidden = append(hidden, n)
				}
			}
			if len(hidden) == 0 {
				continue
			}
			from = "the proxies of " + strings.Join(hidden, ", ")
		case !r.exp.To(c):
			from = "the proxies of " + c + ", the only ones a consumer route routes"
		default:
			continue
		}
		for _, ri := range r.gamma.routes {
			out = append(out, report.New(v.routeRef(ri), RouteHiddenByExportTo, "the mesh's defaultVirtualServiceExportTo %q, which the VirtualService istiod makes of it for %s (%s) goes by, keeps it from %s: they do not get its routes",
				exportToOf(v.vss.meshDefault), r.hosts[0], r.ref, from))
		}
	}
	return out
}

// exportToOf spells a mesh default exportTo list as Istio reads an unset one: ["*"].
func exportToOf(list []string) []string {
	if len(list) == 0 {
		return []string{"*"}
	}
	return list
}

// serviceNamespace is the namespace of the service the VirtualService r, made from routes,
// routes: that of the mesh parent of one of its routes that stands for its host.
func (v *View) serviceNamespace(r *virtualService) string {
	host := r.hosts[0]
	for _, ri := range r.gamma.routes {
		rt := &v.inv.Routes[ri]
		for _, pr := range rt.ParentRefs {
			ns := cmp.Or(pr.Namespace, rt.Namespace)
			switch {
			case pr.Group == "" && pr.Kind == "Service" && inventory.ServiceHost(pr.Name, ns, v.domain) == host:
				return ns
			case pr.Group == gammaServiceEntryGroup && pr.Kind == "ServiceEntry":
				if s := v.routes.ix.entries[gammaNSName{ns, pr.Name}]; s != nil && slices.Contains(s.Hosts, host) {
					return ns
				}
			}
		}
	}
	return r.vs.Namespace
}

// lintClassRoutes judges, for one class of proxies (c, whose record rec is), the hosts its
// listeners route with both a VirtualService and a Gateway API route, and the listeners'
// Routes answers that build no virtual host of their host: reading the route tables the
// builder works out from the record.
func (v *View) lintClassRoutes(fs *classFindings, c Class, rec *record) {
	tables := map[uint32]*routeTable{}
	table := func(p uint32) *routeTable {
		if t, ok := tables[p]; ok {
			return t
		}
		t := v.routeTable(rec, p)
		tables[p] = &t
		return &t
	}
	for li := range rec.listeners {
		lr := &rec.listeners[li]
		if len(lr.vss) == 0 {
			continue
		}
		seen := map[string]bool{}
		for _, is := range lr.imported {
			host := v.services.svcs[is.id].host
			if seen[host] {
				continue
			}
			seen[host] = true
			best, _, ok := lr.routes.lookup(host)
			if !ok {
				continue
			}
			var ports []uint32 // the host's HTTP ports whose route table this listener makes
			for _, p := range portsHTTP(v.services.service(is.id), is.ports) {
				if table(p).listener == li {
					ports = append(ports, p)
				}
			}
			v.lintRoutedByBoth(fs, c, lr, host, best, ports, table)
			v.lintRoutesAnswer(fs, c, rec, li, host, best, ports, table)
		}
	}
}

// lintRoutedByBoth notes host when the listener routes it with both a user's VirtualService
// and one istiod made from routes: each giving the host itself, or the one that routes it
// (best).
func (v *View) lintRoutedByBoth(fs *classFindings, c Class, lr *listenerRecord, host string, best int32, ports []uint32, table func(uint32) *routeTable) {
	user, conv := int32(-1), int32(-1)
	for claim := range lr.routes.claims(host) {
		if claim.host != host && claim.vs != best {
			continue
		}
		switch r := &v.vss.vss[claim.vs]; {
		case r.converted() && conv < 0:
			conv = claim.vs
		case !r.converted() && user < 0:
			user = claim.vs
		}
	}
	if user < 0 || conv < 0 {
		return
	}
	fs.note("VirtualService "+v.vss.vss[user].ref, HostRoutedByBoth, fmt.Sprintf("routes host %s, as %s does, which istiod made from %s: Istio calls mixing a VirtualService and a route for one host undefined; %s",
		host, v.vss.vss[conv].ref, v.routesBehind(&v.vss.vss[conv]), v.builders(host, best, ports, table)), c)
}

// builders says which VirtualService builds the virtual host of host on each of ports, and
// which the listener's Routes names (best).
func (v *View) builders(host string, best int32, ports []uint32, table func(uint32) *routeTable) string {
	parts := []string{"the listener's Routes names " + v.vsRef(best)}
	for _, p := range ports {
		name := domainName(host, p)
		t := table(p)
		if i := slices.IndexFunc(t.hosts, func(h vhost) bool { return h.name == name }); i >= 0 {
			b := "Istio's default route"
			if t.hosts[i].vs >= 0 {
				b = v.vsRef(t.hosts[i].vs)
			}
			parts = append(parts, fmt.Sprintf("%s builds the virtual host %s", b, name))
		}
	}
	return strings.Join(parts, "; ")
}

// lintRoutesAnswer notes the listener's Routes answer for host (best) when it has HTTP
// routes but builds the host's virtual host on none of ports, the HTTP ports whose route
// table listener li makes.
func (v *View) lintRoutesAnswer(fs *classFindings, c Class, rec *record, li int, host string, best int32, ports []uint32, table func(uint32) *routeTable) {
	r := &v.vss.vss[best]
	if len(r.http) == 0 || len(ports) == 0 {
		return
	}
	lr := &rec.listeners[li]
	var why []string
	for _, p := range ports {
		t := table(p)
		name := domainName(host, p)
		i := slices.IndexFunc(t.hosts, func(h vhost) bool { return h.name == name })
		if i < 0 {
			return // (the service's port p always has a virtual host)
		}
		built := t.hosts[i]
		if built.vs == best {
			return
		}
		h, _ := matchingHost(r, host)
		_, reason := v.tableVerdict(rec, t, lr, best, h, host, name, built)
		b := "Istio's default route"
		if built.vs >= 0 {
			b = v.vsRef(built.vs)
		}
		why = append(why, fmt.Sprintf("on port %d %s builds it (%s)", p, b, reason))
	}
	path := "VirtualService " + r.ref
	if r.converted() {
		path = v.routeRef(r.gamma.routes[0])
	}
	fs.note(path, RoutesAnswerBuildsNothing, fmt.Sprintf("the Routes of %s names %s for host %s (its most specific host), but it builds no virtual host of the host for these proxies: %s%s",
		rec.stepKey(li), r.ref, host, strings.Join(why, "; "), v.madeFrom(r)), c)
}
