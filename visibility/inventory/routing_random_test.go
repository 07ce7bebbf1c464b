package inventory

import (
	"math/rand/v2"
	"slices"
	"strconv"
)

// Random VirtualServices and DestinationRules, and the objects a user writes for them, for
// the tests that hold Load and Validate to each other.

// The values the random VirtualServices and DestinationRules below are drawn from, each
// list valid values first, then invalid ones (as Istio reads them), which are drawn rarely
// so that about half the values are valid.
var (
	routingHosts   = []string{"reviews", "reviews.shop.svc.cluster.local", "*.shop.svc.cluster.local", "api.example.com", "db.example.com", "|", "*.example.com", "*x.example.com", "*", "a_b.example", "10.0.0.1", "x.9", ""}
	routingNames   = []string{"v1", "v2", "a-b", "|", "", "V_1"}
	routingExports = []string{".", "*", "shop", "web", "|", "~", "Web", "a.b"}
	routingKeys    = []string{"app", "version", "x/y", "|", "", "a*", "-a"}
	routingValues  = []string{"web", "v1", "", "|", "v 1", "a*"}
)

// pick draws a value from a list: from those before "|" but once in thirty draws, when
// it draws from those after it.
func pick(r *rand.Rand, from []string) string {
	i := slices.Index(from, "|")
	if i < 0 {
		return from[r.IntN(len(from))]
	}
	if r.IntN(30) == 0 {
		return from[i+1+r.IntN(len(from)-i-1)]
	}
	return from[r.IntN(i)]
}

// pickOf draws a value, the first ones valid and the last invalid: the last once in thirty
// draws.
func pickOf[T any](r *rand.Rand, from ...T) T {
	if r.IntN(30) == 0 {
		return from[len(from)-1]
	}
	return from[r.IntN(len(from)-1)]
}

func some(r *rand.Rand, from []string, most int) []string {
	n := r.IntN(most + 1)
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = pick(r, from)
	}
	return out
}

func randomLabels(r *rand.Rand) map[string]string {
	n := r.IntN(3)
	if n == 0 {
		return nil
	}
	m := map[string]string{}
	for range n {
		m[pick(r, routingKeys)] = pick(r, routingValues)
	}
	return m
}

func randomDestinations(r *rand.Rand, mirrors bool, least int) []Destination {
	out := make([]Destination, least+r.IntN(3))
	for i := range out {
		out[i] = Destination{Host: pick(r, routingHosts), Port: pickOf[uint32](r, 0, 80, 70000)}
		if r.IntN(2) == 0 {
			out[i].Subset = pick(r, routingNames)
		}
		switch {
		case mirrors:
		case len(out) > 1:
			out[i].Weight = pickOf[int32](r, 50, 25, -1)
		default:
			out[i].Weight = pickOf[int32](r, 0, 100, -1)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func randomVirtualService(r *rand.Rand) VirtualService {
	vs := VirtualService{Namespace: "shop", Name: "vs", ExportTo: some(r, routingExports, 1)}
	if r.IntN(10) > 0 {
		vs.Hosts = some(r, routingHosts, 2)
		vs.Gateways = some(r, []string{"mesh", "istio-system/gw", "|", "a/B_c", "/x"}, 1)
	}
	for range r.IntN(3) {
		h := HTTPRoute{Name: pick(r, routingNames)}
		switch r.IntN(5) {
		case 0:
			h.Delegate = &Delegate{Name: "d"}
		default:
			h.Route = randomDestinations(r, false, 1)
		}
		if r.IntN(3) == 0 {
			h.Mirrors = randomDestinations(r, true, 0)
		}
		if r.IntN(4) == 0 {
			m := randomDestinations(r, true, 1)[0]
			h.Mirror = &m
		}
		for range r.IntN(2) {
			h.Match = append(h.Match, HTTPMatch{SourceNamespace: pick(r, []string{"", "web", "|", "Web_1"}), Port: pickOf[uint32](r, 0, 80, 70000),
				SourceLabels: randomLabels(r), Gateways: some(r, []string{"mesh", "|", "a/B"}, 1),
				URI:     pickOf(r, nil, &StringMatch{Prefix: "/a"}, &StringMatch{Regex: "a+"}, &StringMatch{Regex: "a("}),
				Headers: pickOf(r, nil, map[string]StringMatch{"x-a": {Exact: "1"}}, map[string]StringMatch{"@request.auth.claims.sub": {Exact: "u"}}, map[string]StringMatch{"a b": {Regex: "("}})})
		}
		vs.HTTP = append(vs.HTTP, h)
	}
	if len(vs.Hosts) > 0 {
		for range r.IntN(2) {
			vs.TCP = append(vs.TCP, L4Route{Route: randomDestinations(r, false, pickOf(r, 1, 0))})
		}
		for range r.IntN(2) {
			vs.TLS = append(vs.TLS, L4Route{Route: randomDestinations(r, false, pickOf(r, 1, 0))})
		}
	}
	return vs
}

func randomDestinationRule(r *rand.Rand) DestinationRule {
	dr := DestinationRule{Namespace: "shop", Name: "dr", Host: pick(r, routingHosts), ExportTo: some(r, routingExports, 1)}
	if r.IntN(3) == 0 {
		dr.WorkloadSelector = randomLabels(r)
		if dr.WorkloadSelector == nil {
			dr.WorkloadSelector = map[string]string{}
		}
	}
	for i := range r.IntN(3) {
		dr.Subsets = append(dr.Subsets, Subset{Name: pickOf(r, "v"+strconv.Itoa(i), pick(r, routingNames)), Labels: randomLabels(r)})
	}
	return dr
}

// The objects of Go values, as a user writes them.
func destinationsObject(ds []Destination, weights bool) []any {
	var out []any
	for _, d := range ds {
		dst := map[string]any{"host": d.Host}
		if d.Subset != "" {
			dst["subset"] = d.Subset
		}
		if d.Port != 0 {
			dst["port"] = map[string]any{"number": d.Port}
		}
		item := map[string]any{"destination": dst}
		if weights && d.Weight != 0 {
			item["weight"] = d.Weight
		}
		out = append(out, item)
	}
	return out
}

func stringMatchObject(s StringMatch) map[string]any {
	switch {
	case s.Exact != "":
		return map[string]any{"exact": s.Exact}
	case s.Prefix != "":
		return map[string]any{"prefix": s.Prefix}
	case s.Regex != "":
		return map[string]any{"regex": s.Regex}
	}
	return map[string]any{}
}

func virtualServiceObject(vs VirtualService) map[string]any {
	spec := map[string]any{}
	for k, l := range map[string][]string{"hosts": vs.Hosts, "gateways": vs.Gateways, "exportTo": vs.ExportTo} {
		if l != nil {
			spec[k] = l
		}
	}
	var http []any
	for _, h := range vs.HTTP {
		ho := map[string]any{}
		if h.Name != "" {
			ho["name"] = h.Name
		}
		if h.Route != nil {
			ho["route"] = destinationsObject(h.Route, true)
		}
		if h.Mirror != nil {
			ho["mirror"] = destinationsObject([]Destination{*h.Mirror}, false)[0].(map[string]any)["destination"]
		}
		if h.Mirrors != nil {
			ho["mirrors"] = destinationsObject(h.Mirrors, false)
		}
		if h.Delegate != nil {
			ho["delegate"] = map[string]any{"name": h.Delegate.Name}
		}
		var match []any
		for _, m := range h.Match {
			mo := map[string]any{}
			if m.SourceNamespace != "" {
				mo["sourceNamespace"] = m.SourceNamespace
			}
			if m.Port != 0 {
				mo["port"] = m.Port
			}
			if m.SourceLabels != nil {
				mo["sourceLabels"] = m.SourceLabels
			}
			if m.Gateways != nil {
				mo["gateways"] = m.Gateways
			}
			if m.URI != nil {
				mo["uri"] = stringMatchObject(*m.URI)
			}
			if m.Headers != nil {
				hs := map[string]any{}
				for k, v := range m.Headers {
					hs[k] = stringMatchObject(v)
				}
				mo["headers"] = hs
			}
			match = append(match, mo)
		}
		if match != nil {
			ho["match"] = match
		}
		http = append(http, ho)
	}
	if http != nil {
		spec["http"] = http
	}
	for k, routes := range map[string][]L4Route{"tcp": vs.TCP, "tls": vs.TLS} {
		var l []any
		for _, rt := range routes {
			ro := map[string]any{}
			if rt.Route != nil {
				ro["route"] = destinationsObject(rt.Route, true)
			}
			l = append(l, ro)
		}
		if l != nil {
			spec[k] = l
		}
	}
	return map[string]any{"apiVersion": "networking.istio.io/v1", "kind": "VirtualService", "metadata": map[string]any{"name": vs.Name, "namespace": vs.Namespace}, "spec": spec}
}

func destinationRuleObject(dr DestinationRule) map[string]any {
	spec := map[string]any{"host": dr.Host}
	if dr.ExportTo != nil {
		spec["exportTo"] = dr.ExportTo
	}
	if dr.WorkloadSelector != nil {
		spec["workloadSelector"] = map[string]any{"matchLabels": dr.WorkloadSelector}
	}
	var subsets []any
	for _, s := range dr.Subsets {
		so := map[string]any{"name": s.Name}
		if s.Labels != nil {
			so["labels"] = s.Labels
		}
		subsets = append(subsets, so)
	}
	if subsets != nil {
		spec["subsets"] = subsets
	}
	return map[string]any{"apiVersion": "networking.istio.io/v1", "kind": "DestinationRule", "metadata": map[string]any{"name": dr.Name, "namespace": dr.Namespace}, "spec": spec}
}
