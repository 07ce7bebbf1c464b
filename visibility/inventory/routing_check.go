package inventory

import (
	"slices"
	"strconv"
	"strings"

	"github.com/meshscope/meshscope/internal/exportto"
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/names"
)

// The checks of what a VirtualService and a DestinationRule carry: the rules of Istio's
// validation (ValidateVirtualService, ValidateDestinationRule) that concern the fields the
// inventory holds, each problem in Istio's words. Load runs them on each object it reads,
// naming fields as the object spells them ("spec.http[0].route[1].destination.host");
// Validate on each one built in Go, naming fields as the Go value does
// ("HTTP[0].Route[1].Host"). doc.go lists the rules, and those not checked.

// routeAt is the path of spec.http[r] (kind "http"), spec.tls[r] or spec.tcp[r].
func routeAt(spec fielderr.Path, kind string, r int) fielderr.Path {
	return spec.Child(kind).Index(r)
}

// matchAt is the path of spec.http[r].match[m].
func matchAt(spec fielderr.Path, r, m int) fielderr.Path {
	return routeAt(spec, "http", r).Child("match").Index(m)
}

// destRef names a destination of a VirtualService: item i of the list ("route" or "mirrors")
// of route r of a kind ("http", "tls", "tcp"), or an HTTP route's one "mirror" (i unused).
type destRef struct {
	kind string
	r    int
	list string
	i    int
}

// item is the path of the list's item: route[i], which holds the weight; mirror.
func (d destRef) item(spec fielderr.Path) fielderr.Path {
	p := routeAt(spec, d.kind, d.r).Child(d.list)
	if d.list == "mirror" {
		return p
	}
	return p.Index(d.i)
}

// dest is the path of the destination itself: route[i].destination (Route[i] in Go, which
// holds the destination's fields in the route), mirror.
func (d destRef) dest(spec fielderr.Path) fielderr.Path {
	if d.list == "mirror" {
		return d.item(spec)
	}
	return d.item(spec).Field("destination", "")
}

// checkVirtualService checks a VirtualService of a valid namespace as Istio's validation
// does; spec is the path of its spec. mirrors[r] says that spec.http[r] has a list of mirrors
// that is not empty, though an entry of it may have been refused (Load); nil reads the
// value's Mirrors.
func checkVirtualService(errs []*FieldError, spec fielderr.Path, vs *VirtualService, mirrors []bool) []*FieldError {
	if len(vs.Hosts) == 0 { // a delegate
		if len(vs.Gateways) > 0 {
			errs = append(errs, spec.Child("gateways").Problem(vs.Gateways, "delegate virtual service must have no gateways specified"))
		}
		if len(vs.TLS) > 0 {
			errs = append(errs, spec.Child("tls").Problem(nil, "delegate virtual service must have no tls route specified"))
		}
		if len(vs.TCP) > 0 {
			errs = append(errs, spec.Child("tcp").Problem(nil, "delegate virtual service must have no tcp route specified"))
		}
	}
	// Bound to gateways only when it names some and not the mesh.
	toGateways := len(vs.Gateways) > 0 && !slices.Contains(vs.Gateways, "mesh")
	errs = gatewayNamesProblems(errs, func() fielderr.Path { return spec.Child("gateways") }, vs.Gateways)
	if !toGateways {
		for r := range vs.HTTP {
			for m := range vs.HTTP[r].Match {
				errs = jwtClaimProblems(errs, spec, vs, r, m)
			}
		}
	}
	errs = checkVirtualServiceHosts(errs, spec, vs, toGateways)
	if len(vs.HTTP) == 0 && len(vs.TCP) == 0 && len(vs.TLS) == 0 {
		errs = append(errs, spec.Problem(nil, "http, tcp or tls must be provided in virtual service"))
	}
	for r := range vs.HTTP {
		h := &vs.HTTP[r]
		hasMirrors := len(h.Mirrors) > 0
		if mirrors != nil {
			hasMirrors = mirrors[r]
		}
		errs = checkHTTPRoute(errs, spec, h, r, len(vs.Hosts) == 0, hasMirrors)
	}
	for _, kind := range []string{"tls", "tcp"} {
		routes, required := vs.TLS, "TLS route is required"
		if kind == "tcp" {
			routes, required = vs.TCP, "TCP route is required"
		}
		for r := range routes {
			if len(routes[r].Route) == 0 {
				errs = append(errs, routeAt(spec, kind, r).Child("route").Problem(nil, required))
			}
			errs = checkDestinations(errs, spec, kind, r, routes[r].Route)
		}
	}
	if len(vs.ExportTo) > 0 && names.Label(vs.Namespace) == "" {
		errs = append(errs, exportto.Problems(func() fielderr.Path { return spec.Child("exportTo") }, vs.Namespace, vs.ExportTo, exportto.Config)...)
	}
	return errs
}

// jwtClaimProblems refuses, in a VirtualService bound to the mesh, a match on a JWT claim,
// which only gateways route on.
func jwtClaimProblems(errs []*FieldError, spec fielderr.Path, vs *VirtualService, r, m int) []*FieldError {
	mt := &vs.HTTP[r].Match[m]
	start := len(errs)
	for _, hs := range []struct {
		field   string
		headers map[string]StringMatch
	}{{"headers", mt.Headers}, {"withoutHeaders", mt.WithoutHeaders}} {
		for k := range hs.headers {
			if jwtClaimHeader(k) {
				errs = append(errs, matchAt(spec, r, m).Child(hs.field).Key(k).Problemf(k,
					"JWT claim based routing (key: %s) is only supported for gateway, found no gateways: %v", k, vs.Gateways))
			}
		}
	}
	return byField(errs, start)
}

// byField orders the problems appended since start by their fields: those found walking a
// map come out in one order.
func byField(errs []*FieldError, start int) []*FieldError {
	slices.SortStableFunc(errs[start:], func(a, b *FieldError) int { return strings.Compare(a.Field, b.Field) })
	return errs
}

// checkVirtualServiceHosts checks each host (a domain, or an IP; not "*" for the mesh) and,
// when all are valid, that no two overlap.
func checkVirtualServiceHosts(errs []*FieldError, spec fielderr.Path, vs *VirtualService, toGateways bool) []*FieldError {
	field := hosts.MeshVirtualServiceHosts
	if toGateways {
		field = hosts.GatewayVirtualServiceHosts
	}
	valid := true
	for i, h := range vs.Hosts {
		for _, r := range hosts.Problems(h, field) {
			errs = append(errs, spec.Child("hosts").Index(i).Problem(h, r))
			valid = false
		}
	}
	if !valid || len(vs.Hosts) < 2 {
		return errs
	}
	pairs, total := overlaps(vs.Hosts, maxOverlaps)
	for _, p := range pairs {
		errs = append(errs, spec.Child("hosts").Index(p[1]).Problemf(vs.Hosts[p[1]], "duplicate hosts in virtual service: %s & %s", vs.Hosts[p[0]], vs.Hosts[p[1]]))
	}
	if total > len(pairs) {
		errs = append(errs, spec.Child("hosts").Problemf(nil, "and %d more pairs of duplicate hosts in virtual service", total-len(pairs)))
	}
	return errs
}

// checkHTTPRoute checks http[r]; in a delegate (a VirtualService without hosts), a route
// may not delegate further.
func checkHTTPRoute(errs []*FieldError, spec fielderr.Path, h *HTTPRoute, r int, inDelegate, mirrors bool) []*FieldError {
	switch {
	case inDelegate && h.Delegate != nil:
		errs = append(errs, routeAt(spec, "http", r).Child("delegate").Problem(nil, "delegate HTTP route cannot contain delegate"))
	case !inDelegate && h.Delegate != nil && len(h.Route) > 0:
		errs = append(errs, routeAt(spec, "http", r).Child("route").Problemf(nil, "root HTTP route %s must not specify route", h.Name))
	}
	if h.Mirror != nil && mirrors && (inDelegate || h.Delegate == nil) { // Istio checks a root route for nothing else
		errs = append(errs, routeAt(spec, "http", r).Child("mirrors").Problem(nil, "HTTP route cannot contain both mirror and mirrors"))
	}
	for m := range h.Match {
		errs = checkHTTPMatch(errs, spec, &h.Match[m], r, m)
	}
	if h.Mirror != nil {
		errs = checkMirror(errs, spec, destRef{"http", r, "mirror", 0}, h.Mirror)
	}
	for i := range h.Mirrors {
		errs = checkMirror(errs, spec, destRef{"http", r, "mirrors", i}, &h.Mirrors[i])
	}
	return checkDestinations(errs, spec, "http", r, h.Route)
}

// checkMirror checks a mirror's destination, which has no weight.
func checkMirror(errs []*FieldError, spec fielderr.Path, ref destRef, d *Destination) []*FieldError {
	errs = checkDestination(errs, spec, ref, d)
	if d.Weight != 0 {
		errs = append(errs, ref.item(spec).Child("weight").Problem(d.Weight, "a mirror has no weight"))
	}
	return errs
}

// checkDestinations checks the destinations of a route: each, and their weights.
func checkDestinations(errs []*FieldError, spec fielderr.Path, kind string, r int, ds []Destination) []*FieldError {
	total := int64(0)
	for i := range ds {
		ref := destRef{kind, r, "route", i}
		errs = checkDestination(errs, spec, ref, &ds[i])
		if w := ds[i].Weight; w < 0 {
			errs = append(errs, ref.item(spec).Child("weight").Problemf(w, "weight %d < 0", w))
		}
		total += int64(ds[i].Weight)
	}
	if len(ds) > 1 && int32(total) == 0 { // Istio sums in an int32
		errs = append(errs, routeAt(spec, kind, r).Child("route").Problem(nil, "total destination weight = 0"))
	}
	return errs
}

// checkDestination checks a destination's host (see hosts.RouteDestinationHost), subset and
// port.
func checkDestination(errs []*FieldError, spec fielderr.Path, ref destRef, d *Destination) []*FieldError {
	for _, p := range hosts.Problems(d.Host, hosts.RouteDestinationHost) {
		errs = append(errs, ref.dest(spec).Child("host").Problem(d.Host, p))
	}
	if d.Subset != "" {
		if p := subsetNameProblem(d.Subset); p != "" {
			errs = append(errs, ref.dest(spec).Child("subset").Problem(d.Subset, p))
		}
	}
	if d.Port > 65535 {
		errs = append(errs, portNumberAt(ref.dest(spec)).Problem(d.Port, portProblem(uint64(d.Port))))
	}
	return errs
}

// checkHTTPMatch checks match[m] of http[r]: header names, string matches, port, source
// labels, gateways and source namespace.
func checkHTTPMatch(errs []*FieldError, spec fielderr.Path, mt *HTTPMatch, r, m int) []*FieldError {
	// at is the path of a field of the match, spelt for a problem only.
	at := func(field string) func() fielderr.Path {
		return func() fielderr.Path { return matchAt(spec, r, m).Child(field) }
	}
	start := len(errs)
	for _, hs := range []struct {
		field   string
		headers map[string]StringMatch
	}{{"headers", mt.Headers}, {"withoutHeaders", mt.WithoutHeaders}, {"queryParams", mt.QueryParams}} {
		for k, sm := range hs.headers {
			key := func() fielderr.Path { return at(hs.field)().Key(k) }
			if hs.field != "queryParams" {
				if p := headerNameProblem(k); p != "" {
					errs = append(errs, key().Problem(k, p))
				}
			}
			if hs.field == "withoutHeaders" && sm.Regex == "*" {
				continue // not a regular expression: the header is absent
			}
			errs = checkRegex(errs, key, &sm, hs.field)
		}
	}
	errs = byField(errs, start)
	for _, sm := range []struct {
		field string
		m     *StringMatch
	}{{"uri", mt.URI}, {"scheme", mt.Scheme}, {"method", mt.Method}, {"authority", mt.Authority}} {
		if sm.m != nil {
			errs = checkRegex(errs, at(sm.field), sm.m, sm.field)
		}
	}
	if mt.Port > 65535 {
		errs = append(errs, at("port")().Problem(mt.Port, portProblem(uint64(mt.Port))))
	}
	errs = checkTags(errs, at("sourceLabels"), mt.SourceLabels)
	errs = gatewayNamesProblems(errs, at("gateways"), mt.Gateways)
	if mt.SourceNamespace != "" && !names.IstioLabel(mt.SourceNamespace) {
		errs = append(errs, at("sourceNamespace")().Problemf(mt.SourceNamespace, "sourceNamespace match %s is invalid", mt.SourceNamespace))
	}
	return errs
}

// checkRegex checks the regular expression of a string match at path, named where (the
// match's field: "uri", "headers").
func checkRegex(errs []*FieldError, path func() fielderr.Path, sm *StringMatch, where string) []*FieldError {
	if sm.Regex == "" {
		return errs
	}
	if p := regexProblem(sm.Regex, where); p != "" {
		errs = append(errs, path().Child("regex").Problem(sm.Regex, p))
	}
	return errs
}

// checkDestinationRule checks a DestinationRule of a valid namespace as Istio's validation
// does, but for its traffic policies.
func checkDestinationRule(errs []*FieldError, spec fielderr.Path, dr *DestinationRule) []*FieldError {
	for _, p := range hosts.Problems(dr.Host, hosts.DestinationRuleHost) {
		errs = append(errs, spec.Child("host").Problem(dr.Host, p))
	}
	subset := func(i int) fielderr.Path { return spec.Child("subsets").Index(i) }
	// Each subset's problems in its order: a repeated name, then the subset's own.
	checked := 0 // the subsets before it are checked
	check := func(upTo int) {
		for ; checked < upTo; checked++ {
			s := &dr.Subsets[checked]
			if p := subsetNameProblem(s.Name); p != "" {
				errs = append(errs, subset(checked).Child("name").Problem(s.Name, p))
			}
			errs = checkTags(errs, func() fielderr.Path { return subset(checked).Child("labels") }, s.Labels)
		}
	}
	repeats(len(dr.Subsets), func(i int) string { return dr.Subsets[i].Name }, func(i, j int) {
		check(i)
		errs = append(errs, subset(i).Child("name").Problemf(dr.Subsets[i].Name, "duplicate subset names: %s (it repeats %s)", dr.Subsets[i].Name, subset(j).Child("name")))
	})
	check(len(dr.Subsets))
	if len(dr.ExportTo) > 0 && names.Label(dr.Namespace) == "" {
		rule := exportto.Config
		if dr.WorkloadSelector != nil {
			rule = exportto.SelectorRule
		}
		errs = append(errs, exportto.Problems(func() fielderr.Path { return spec.Child("exportTo") }, dr.Namespace, dr.ExportTo, rule)...)
	}
	return checkRuleSelector(errs, func() fielderr.Path { return spec.Child("workloadSelector").Field("matchLabels", "") }, dr.WorkloadSelector)
}

// checkRuleSelector checks a DestinationRule's workloadSelector.matchLabels, at the path at
// gives: no empty key, no "*" in a key or value.
func checkRuleSelector(errs []*FieldError, at func() fielderr.Path, ls map[string]string) []*FieldError {
	start := len(errs)
	for k, v := range ls {
		kv := func() string { return strconv.Quote(k + "=" + v) }
		if k == "" {
			errs = append(errs, at().Key(k).Problemf(k, "empty key is not supported in selector: %s", kv()))
		}
		if strings.Contains(k, "*") || strings.Contains(v, "*") {
			errs = append(errs, at().Key(k).Problemf(k+"="+v, "wildcard is not supported in selector: %s", kv()))
		}
	}
	return byField(errs, start)
}
