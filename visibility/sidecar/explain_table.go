package sidecar

import (
	"fmt"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// routeRef spells route i of the inventory: "HTTPRoute shop/reviews".
func (v *View) routeRef(i int32) string {
	r := &v.inv.Routes[i]
	return string(r.Kind) + " " + r.Namespace + "/" + r.Name
}

// routesBehind spells the routes istiod made VirtualService r from, oldest first, each with
// the rules r's entries come from: "HTTPRoute shop/reviews (rules 0, 1)"; "" for a user's.
func (v *View) routesBehind(r *virtualService) string {
	g := r.gamma
	if g == nil {
		return ""
	}
	rules := map[int32][]int32{}
	add := func(src gammaSource) {
		if !slices.Contains(rules[src.route], src.rule) {
			rules[src.route] = append(rules[src.route], src.rule)
		}
	}
	for _, e := range g.http {
		add(e.src)
	}
	for _, e := range slices.Concat(g.tcp, g.tls) {
		add(e.src)
	}
	parts := make([]string, 0, len(g.routes))
	for _, i := range g.routes {
		rs := rules[i]
		slices.Sort(rs)
		var b strings.Builder
		b.WriteString(v.routeRef(i))
		switch len(rs) {
		case 0:
			b.WriteString(" (no rule: it routes nothing)")
		case 1:
			fmt.Fprintf(&b, " (rule %d)", rs[0])
		default:
			b.WriteString(" (rules ")
			for j, n := range rs {
				if j > 0 {
					b.WriteString(", ")
				}
				fmt.Fprint(&b, n)
			}
			b.WriteString(")")
		}
		parts = append(parts, b.String())
	}
	return strings.Join(parts, ", ")
}

// madeFrom is, for a VirtualService istiod made from routes, what Reason adds: "; istiod made
// it from …"; "" for a user's.
func (v *View) madeFrom(r *virtualService) string {
	if !r.converted() {
		return ""
	}
	return "; istiod made it from " + v.routesBehind(r)
}

// explainUnmade spells the Gateway API routes with a mesh parent for host for which istiod
// makes no VirtualService, and why; nil for none.
func (v *View) explainUnmade(host string) *Step {
	if v.routes == nil {
		return nil
	}
	var cs []Candidate
	for _, u := range v.routes.unmade {
		if u.host != host {
			continue
		}
		cs = append(cs, Candidate{Object: v.routeRef(u.route), Host: host, Verdict: Hidden,
			Reason: fmt.Sprintf("its parentRefs[%d] stands for the host, but istiod makes no VirtualService of it (%s)", u.ref, u.why)})
	}
	if len(cs) == 0 {
		return nil
	}
	return &Step{Key: "Gateway API routes for the host of which istiod makes no VirtualService", Candidates: cs}
}

// explainVirtualHosts spells, for each port of ports (the host's, as the proxy gets it) on
// which Istio routes HTTP, the route table's decision for host, read from the route table
// the builder works out from the proxy's record rec: the VirtualService that builds the
// virtual host (or Istio's default route), and why each other VirtualService of the listener
// with a host matching it builds none.
func (v *View) explainVirtualHosts(rec *record, host string, ports []uint32) []Step {
	var out []Step
	for _, p := range ports {
		t := v.routeTable(rec, p)
		if s, ok := v.explainVirtualHost(rec, &t, host, p); ok {
			out = append(out, s)
		}
	}
	return out
}

// explainVirtualHost spells the decision of route table t (for port p) for host; false when
// the host's port p is not one Istio routes HTTP on.
func (v *View) explainVirtualHost(rec *record, t *routeTable, host string, p uint32) (Step, bool) {
	name := domainName(host, p)
	if t.listener < 0 {
		return Step{Key: "port " + itoa(p), Candidates: []Candidate{{Object: "(no virtual host)", Host: host, Verdict: NotImported,
			Reason: fmt.Sprintf("no egress listener has port %d and none is without a port: the route table for %d holds only the catch-all %s", p, p, v.catchAll(rec.sidecar))}}}, true
	}
	lr := &rec.listeners[t.listener]
	step := Step{Key: "port " + itoa(p) + ", virtual host " + name + ", from " + rec.stepKey(t.listener)}
	i := slices.IndexFunc(t.hosts, func(h vhost) bool { return h.name == name })
	if i < 0 {
		if id, ok := v.tableService(lr, host, p); ok && !v.httpLike(id, p) {
			return Step{}, false
		}
		step.Candidates = append(step.Candidates, Candidate{Object: "(no virtual host)", Host: host, Verdict: NotImported,
			Reason: fmt.Sprintf("the listener does not import the host with port %d (a VirtualService destination's service is no service of the route table): requests for it take the catch-all %s", p, v.catchAll(rec.sidecar))})
		return step, true
	}
	built := t.hosts[i]
	if built.vs < 0 {
		step.Candidates = append(step.Candidates, Candidate{Object: "(Istio's default route)", Host: host, Verdict: Chosen,
			Reason: "no VirtualService of the listener claims the host on this port: its one route sends requests to the service itself"})
	}
	for _, k := range lr.vss {
		r := &v.vss.vss[k]
		h, ok := matchingHost(r, host)
		if !ok {
			continue
		}
		c := Candidate{Object: r.ref, Host: h}
		c.Verdict, c.Reason = v.tableVerdict(rec, t, lr, k, h, host, name, built)
		c.Reason += v.madeFrom(r)
		step.Candidates = append(step.Candidates, c)
	}
	return step, true
}

// tableService returns the service listener lr holds for host with port p (the last of its
// imports with the port), as the route table takes it.
func (v *View) tableService(lr *listenerRecord, host string, p uint32) (int32, bool) {
	id, ok := int32(-1), false
	for _, is := range lr.imported {
		if v.services.svcs[is.id].host == host && slices.Contains(is.ports, p) {
			id, ok = is.id, true
		}
	}
	return id, ok
}

// matchingHost returns the host of VirtualService r that matches a service host: the host
// itself, else a wildcard matching it (either way).
func matchingHost(r *virtualService, host string) (string, bool) {
	if slices.Contains(r.hosts, host) {
		return host, true
	}
	for _, h := range r.hosts {
		if isWildcard(h) && hosts.Matches(h, host) {
			return h, true
		}
	}
	return "", false
}

// tableVerdict says what became of VirtualService k of the listener, whose host h matches
// host, in route table t, whose virtual host name built holds: it built it, a claimant of the
// name before it did, or why it claims nothing (t's outcomes).
func (v *View) tableVerdict(rec *record, t *routeTable, lr *listenerRecord, k int32, h, host, name string, built vhost) (Verdict, string) {
	r := &v.vss.vss[k]
	if built.vs == k {
		return Chosen, fmt.Sprintf("it builds the virtual host %s (%s): the first VirtualService of the listener's order to claim it", name, plural(int(built.routes), "route", "routes"))
	}
	if slices.ContainsFunc(t.dropped, func(d vhost) bool { return d.vs == k && d.name == name }) {
		return Outranked, fmt.Sprintf("%s claims %s first, earlier in the listener's order (Listener.VirtualServices: those made from routes of %s first in each list): a later claimant is dropped", v.vsRef(built.vs), name, rec.ns)
	}
	o := t.outcomes[slices.IndexFunc(t.outcomes, func(o vsOutcome) bool { return o.k == k })]
	switch {
	case o.unmatched:
		return NotImported, fmt.Sprintf("off port 80, a VirtualService builds routes only when one of its hosts matches a service the listener has with port %d", t.port)
	case o.routes == 0 && len(r.http) == 0:
		return Hidden, "it has no HTTP routes (only TCP or TLS ones): it builds no virtual host"
	case o.routes == 0:
		return Hidden, fmt.Sprintf("none of its HTTP routes is for port %d and this proxy: each match names another port, or sourceLabels, a sourceNamespace or gateways the proxy does not satisfy", t.port)
	case r.converted() && isWildcard(h):
		return Hidden, fmt.Sprintf("its host %s is a wildcard: istiod builds no virtual host of a service through a wildcard host of a VirtualService made from routes", h)
	case o.refused:
		return Hidden, fmt.Sprintf("made from routes of %s for a service of another namespace (a consumer route), it routes only the proxies of %s", r.vs.Namespace, r.vs.Namespace)
	case isWildcard(h):
		best, _, _ := lr.routes.lookup(host)
		return Outranked, fmt.Sprintf("its wildcard host %s covers %s, but %s is the listener's Routes answer for it: a wildcard host claims only the services it is that answer for", h, host, v.vsRef(best))
	}
	return Hidden, "it claims no virtual host for " + host
}

// portsHTTP returns the ports, of those given, on which Istio routes HTTP for service s.
func portsHTTP(s *inventory.Service, ports []uint32) []uint32 {
	var out []uint32
	for _, p := range ports {
		if proto, _ := s.Protocol(p); httpProtocol(proto) {
			out = append(out, p)
		}
	}
	return out
}
