package sidecar

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// The alphabets of the random VirtualServices and DestinationRules: few hosts, so that
// VirtualServices overlap, rules of one host meet in a namespace and several namespaces hold
// rules of one host. Short names ("web", "api0") resolve to Kubernetes Service hosts of the
// random inventory; "web.shop" and "*" never match one.
var (
	routeHosts = []string{"api.example.com", "db.example.com", "*.example.com", "a.b.example.com", "*.b.example.com", "mail.corp", "*.corp",
		"web", "api", "web0", "api1", "web.shop", "web.shop.svc.cluster.local", "api.pay.svc.cluster.local", "*.svc.cluster.local",
		"*.shop.svc.cluster.local", "*"}
	routeDestinations = []string{"api.example.com", "db.example.com", "a.b.example.com", "mail.corp", "web", "api", "web0", "db1",
		"web.shop", "web.shop.svc.cluster.local", "api.pay.svc.cluster.local", "*.example.com", "nothing.example",
		"web.shop.svc.cluster.local", "api.pay.svc.cluster.local", "web.shop.svc.cluster.local"}
	ruleHosts = []string{"api.example.com", "*.example.com", "db.example.com", "web", "web0", "api", "web.shop.svc.cluster.local",
		"api.pay.svc.cluster.local", "*.svc.cluster.local", "*.shop.svc.cluster.local", "mail.corp", "*.corp", "*", "web.shop",
		"*.b.example.com", "a.b.example.com"}
	routeExportTo   = [][]string{nil, nil, nil, {"*"}, {"."}, {"shop"}, {"ext", "pay"}, {".", "other"}, {"nowhere"}, {"istio-system"}}
	ruleExportTo    = [][]string{nil, nil, {"*"}, {"."}, {"."}, {".", "pay"}, {".", "pay", "ext"}, {"shop"}, {"ext"}, {"ext", "pay"}, {"istio-system"}, {"nowhere"}}
	routeGateways   = [][]string{nil, nil, nil, {"mesh"}, {"shop/gw"}, {"mesh", "ext/gw"}}
	meshRouteExport = [][]string{{"*"}, {"."}, {"~"}, {"shop"}, {"ext", "pay"}, {".", "other"}, {".", "*"}, {".", "~"}, {"*", "shop"}, {".", "shop", "pay"}}
	routePorts      = []uint32{0, 0, 80, 443, 8080, 9090}
	sourceNS        = []string{"", "", "shop", "ext", "pay", "istio-system"}
	uriMatches      = []inventory.StringMatch{{Prefix: "/"}, {Prefix: "/a"}, {Exact: "/a/b"}, {Prefix: "/a/b"}, {Regex: "/.*"}}
)

// addRandomRouting adds VirtualServices (some of them delegates) and DestinationRules to a
// random inventory, and the mesh's defaults for their exportTo. Each object joins only if
// inv.Validate still accepts the inventory, so that what Istio's validation refuses of these
// fields (an exportTo it refuses, overlapping hosts, "*" for the mesh, a delegate that
// delegates, several destinations whose weights total 0, …) and two objects of one kind and
// name never reach a view.
func addRandomRouting(r *rand.Rand, m *mesh.Config, inv *inventory.Inventory) {
	pick := func(l []string) string { return l[r.IntN(len(l))] }
	t := func() time.Time { return t0.Add(time.Duration(r.IntN(6)) * time.Minute) }
	if r.IntN(3) == 0 {
		m.DefaultVirtualServiceExportTo = meshRouteExport[r.IntN(len(meshRouteExport))]
	}
	if r.IntN(3) == 0 {
		m.DefaultDestinationRuleExportTo = meshRouteExport[r.IntN(len(meshRouteExport))]
	}
	dest := func() inventory.Destination {
		d := inventory.Destination{Host: pick(routeDestinations), Port: routePorts[r.IntN(len(routePorts))]}
		if r.IntN(2) == 0 {
			d.Subset = pick([]string{"v1", "v2", "v3"})
		}
		return d
	}
	// A route's destinations, two of them with weights that add up (Istio refuses several
	// whose weights total 0); a mirror's, without weights.
	dests := func() []inventory.Destination {
		var out []inventory.Destination
		for range 1 + r.IntN(2) {
			out = append(out, dest())
		}
		if len(out) > 1 {
			out[0].Weight = int32(r.IntN(101))
			out[1].Weight = 100 - out[0].Weight
		}
		return out
	}
	mirrors := func() []inventory.Destination {
		out := dests()
		for i := range out {
			out[i].Weight = 0
		}
		return out
	}
	match := func() inventory.HTTPMatch {
		m := inventory.HTTPMatch{SourceNamespace: pick(sourceNS)}
		if r.IntN(2) == 0 {
			u := uriMatches[r.IntN(len(uriMatches))]
			m.URI = &u
		}
		if r.IntN(6) == 0 {
			m.Port = 80
		}
		if r.IntN(8) == 0 {
			m.Headers = map[string]inventory.StringMatch{"x-user": {Exact: pick([]string{"a", "b"})}}
		}
		return m
	}
	route := func(delegating bool) inventory.HTTPRoute {
		var h inventory.HTTPRoute
		for range r.IntN(3) {
			h.Match = append(h.Match, match())
		}
		if delegating {
			h.Delegate = &inventory.Delegate{Name: fmt.Sprintf("d%d", r.IntN(3))}
			if r.IntN(3) == 0 {
				h.Delegate.Namespace = pick(sidecarNamespaces)
			}
		} else {
			h.Route = dests()
		}
		switch r.IntN(5) {
		case 0:
			d := dest()
			h.Mirror = &d
		case 1:
			h.Mirrors = mirrors()
		case 2:
			if delegating {
				d := dest()
				h.Mirror = &d
			}
		case 3:
			// Both, which Istio accepts only on a route that delegates: its delegate's routes
			// take each where they have none.
			if delegating {
				d := dest()
				h.Mirror, h.Mirrors = &d, mirrors()
			}
		}
		return h
	}
	keep := func(add, drop func()) {
		add()
		if inv.Validate() != nil {
			drop()
		}
	}
	// Services of the hosts routes name most, in several namespaces and of both kinds, so that
	// which namespace a destination takes is decided often.
	for i := range r.IntN(4) {
		s := inventory.Service{Kind: inventory.Kind(r.IntN(2)), Namespace: pick(sidecarNamespaces), Name: fmt.Sprintf("shared%d", i), CreationTime: t(),
			Hosts: []string{pick([]string{"web.shop.svc.cluster.local", "api.pay.svc.cluster.local"})}, Ports: []uint32{80, 8080}[:1+r.IntN(2)],
			ExportTo: sidecarExportTo[r.IntN(len(sidecarExportTo))]}
		keep(func() { inv.Services = append(inv.Services, s) }, func() { inv.Services = inv.Services[:len(inv.Services)-1] })
	}
	addVS := func(vs inventory.VirtualService) {
		keep(func() { inv.VirtualServices = append(inv.VirtualServices, vs) }, func() { inv.VirtualServices = inv.VirtualServices[:len(inv.VirtualServices)-1] })
	}
	// Delegates first, so that most delegating routes name one.
	for i := range r.IntN(4) {
		vs := inventory.VirtualService{Namespace: pick(sidecarNamespaces), Name: fmt.Sprintf("d%d", i), CreationTime: t(),
			ExportTo: routeExportTo[r.IntN(len(routeExportTo))]}
		for range 1 + r.IntN(3) {
			vs.HTTP = append(vs.HTTP, route(false))
		}
		addVS(vs)
	}
	delegates := slices.Clone(inv.VirtualServices)
	for i := range r.IntN(9) {
		vs := inventory.VirtualService{Namespace: pick(sidecarNamespaces), Name: fmt.Sprintf("vs%d", i%5), CreationTime: t(),
			ExportTo: routeExportTo[r.IntN(len(routeExportTo))], Gateways: routeGateways[r.IntN(len(routeGateways))]}
		for range 1 + r.IntN(2) {
			vs.Hosts = append(vs.Hosts, pick(routeHosts))
		}
		for range r.IntN(3) {
			if r.IntN(3) > 0 || len(delegates) == 0 {
				vs.HTTP = append(vs.HTTP, route(false))
				continue
			}
			h := route(true)
			d := delegates[r.IntN(len(delegates))]
			h.Delegate.Name = d.Name
			if h.Delegate.Namespace = d.Namespace; d.Namespace == vs.Namespace && r.IntN(2) == 0 {
				h.Delegate.Namespace = ""
			}
			vs.HTTP = append(vs.HTTP, h)
		}
		for range r.IntN(2) {
			vs.TCP = append(vs.TCP, inventory.L4Route{Route: dests()})
		}
		if r.IntN(3) == 0 {
			vs.TLS = append(vs.TLS, inventory.L4Route{Route: dests()})
		}
		addVS(vs)
	}
	// Rules crowd onto a few hosts and namespaces, so that they merge.
	tp := 0
	for i := range r.IntN(14) {
		dr := inventory.DestinationRule{Namespace: pick(sidecarNamespaces), Name: fmt.Sprintf("dr%d", i), CreationTime: t(), Host: pick(ruleHosts),
			ExportTo: ruleExportTo[r.IntN(len(ruleExportTo))]}
		if r.IntN(3) > 0 {
			dr.Namespace, dr.Host = pick([]string{"shop", "istio-system"}), pick([]string{"api.example.com", "web", "*.example.com", "web.shop.svc.cluster.local"})
			dr.ExportTo = [][]string{nil, nil, {"."}, {".", "pay"}, {"*"}}[r.IntN(5)]
		}
		switch r.IntN(6) {
		case 0:
			dr.WorkloadSelector = map[string]string{"app": pick([]string{"web", "api"})}
		case 1:
			dr.WorkloadSelector = map[string]string{}
		}
		if dr.WorkloadSelector != nil {
			dr.ExportTo = [][]string{nil, {"."}, {dr.Namespace}}[r.IntN(3)]
		}
		for _, s := range r.Perm(3)[:r.IntN(4)] {
			name := fmt.Sprintf("v%d", s+1)
			dr.Subsets = append(dr.Subsets, inventory.Subset{Name: name, Labels: map[string]string{"version": name}})
		}
		switch r.IntN(4) {
		case 0, 1:
			tp++
			dr.TrafficPolicy = []byte(fmt.Sprintf(`{"connectionPool":{"tcp":{"maxConnections":%d}}}`, 100+tp))
		case 2:
			dr.TrafficPolicy = []byte(`{}`)
		}
		keep(func() { inv.DestinationRules = append(inv.DestinationRules, dr) }, func() { inv.DestinationRules = inv.DestinationRules[:len(inv.DestinationRules)-1] })
	}
	addRandomRoutes(r, inv, keep, t)
}

// addRandomRoutes adds Gateway API routes to a random inventory: HTTPRoutes, GRPCRoutes and
// TCPRoutes of any namespace whose parent is one of its Kubernetes Services (of their
// namespace or another, with a port or not) or one that does not exist, matching paths,
// methods or nothing, sending to its Services; each only if inv.Validate still accepts the
// inventory (keep).
func addRandomRoutes(r *rand.Rand, inv *inventory.Inventory, keep func(add, drop func()), t func() time.Time) {
	var names []string
	for _, s := range inv.Services {
		if s.Kind == inventory.KubernetesService && !slices.Contains(names, s.Name) {
			names = append(names, s.Name)
		}
	}
	names = append(names, "ghost")
	pick := func(l []string) string { return l[r.IntN(len(l))] }
	kinds := []inventory.RouteKind{inventory.HTTPRouteKind, inventory.HTTPRouteKind, inventory.GRPCRouteKind, inventory.TCPRouteKind}
	for i := range r.IntN(5) {
		rt := inventory.Route{Kind: kinds[r.IntN(len(kinds))], Namespace: pick(sidecarNamespaces[:4]), Name: fmt.Sprintf("r%d", i), CreationTime: t()}
		for range 1 + r.IntN(2) {
			pr := inventory.ParentRef{Kind: "Service", Name: pick(names), Port: []uint32{0, 0, 80, 8080}[r.IntN(4)]}
			if r.IntN(2) == 0 {
				pr.Namespace = pick(sidecarNamespaces[:4])
			}
			rt.ParentRefs = append(rt.ParentRefs, pr)
		}
		for range 1 + r.IntN(2) {
			var rule inventory.RouteRule
			for range r.IntN(3) {
				b := inventory.BackendRef{Kind: "Service", Name: pick(names), Port: []uint32{80, 8080}[r.IntN(2)], Weight: int32(r.IntN(3))}
				if r.IntN(2) == 0 {
					b.Namespace = pick(sidecarNamespaces[:4])
				}
				rule.BackendRefs = append(rule.BackendRefs, b)
			}
			switch rt.Kind {
			case inventory.HTTPRouteKind:
				m := inventory.RouteMatch{Path: &inventory.PathMatch{Type: inventory.MatchPathPrefix, Value: pick([]string{"/", "/a", "/a/b"})}}
				if r.IntN(3) == 0 {
					m.Method = "GET"
				}
				rule.Matches = []inventory.RouteMatch{m}
			case inventory.GRPCRouteKind:
				if r.IntN(2) == 0 {
					rule.Matches = []inventory.RouteMatch{{GRPCMethod: &inventory.GRPCMethodMatch{Type: inventory.MatchExact, Service: "pkg.Svc"}}}
				}
			}
			rt.Rules = append(rt.Rules, rule)
		}
		keep(func() { inv.Routes = append(inv.Routes, rt) }, func() { inv.Routes = inv.Routes[:len(inv.Routes)-1] })
	}
}
