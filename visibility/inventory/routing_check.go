package inventory

import (
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/meshscope/meshscope/internal/exportto"
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/internal/strict"
)

// The checks of what a VirtualService and a DestinationRule carry: the rules of Istio's
// validation (ValidateVirtualService, ValidateDestinationRule) that concern the fields the
// inventory holds, each problem in Istio's words. Load runs them on each object it reads,
// naming fields as the object spells them ("spec.http[0].route[1].destination.host");
// Validate on each one built in Go, naming fields as the Go value does
// ("HTTP[0].Route[1].Host"). doc.go lists the rules, and those not checked.

// routingFields spells the fields of a VirtualService or a DestinationRule for a problem.
type routingFields struct {
	load bool // as the object spells them; else as the Go value does
	// hasMirrors[r] says that spec.http[r] has a list of mirrors that is not empty, though
	// an entry of it may have been refused (Load).
	hasMirrors []bool
}

// pick returns the spelling of a field: the object's or the Go value's.
func (f *routingFields) pick(load, goName string) string {
	if f.load {
		return load
	}
	return goName
}

// route is spec.http[r] (kind "http"), spec.tls[r] or spec.tcp[r].
func (f *routingFields) route(kind string, r int) string {
	return strict.Index(f.pick("spec."+kind, strings.ToUpper(kind)), r)
}

// match is spec.http[r].match[m].
func (f *routingFields) match(r, m int) string {
	return strict.Index(f.route("http", r)+f.pick(".match", ".Match"), m)
}

// dest names a part ("host", "subset", "port" or "weight") of destination i of a route's
// list ("route", or "mirrors"), or of an HTTP route's one "mirror" (i unused).
func (f *routingFields) dest(kind string, r int, list string, i int, part string) string {
	base := f.route(kind, r)
	if !f.load {
		if list == "mirror" {
			return base + ".Mirror." + capitalized(part)
		}
		return strict.Index(base+"."+capitalized(list), i) + "." + capitalized(part)
	}
	if part == "port" {
		part = "port.number"
	}
	if list == "mirror" { // mirror.host: a destination itself
		return base + ".mirror." + part
	}
	base = strict.Index(base+"."+list, i) // route[i].destination.host
	if part == "weight" {
		return base + ".weight"
	}
	return base + ".destination." + part
}

func capitalized(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// checkVirtualService checks a VirtualService of a valid namespace as Istio's validation
// does.
func checkVirtualService(errs []*FieldError, vs *VirtualService, f *routingFields) []*FieldError {
	if len(vs.Hosts) == 0 { // a delegate
		if len(vs.Gateways) > 0 {
			errs = append(errs, fielderr.Newf("", f.pick("spec.gateways", "Gateways"), vs.Gateways, "delegate virtual service must have no gateways specified"))
		}
		if len(vs.TLS) > 0 {
			errs = append(errs, fielderr.Newf("", f.pick("spec.tls", "TLS"), nil, "delegate virtual service must have no tls route specified"))
		}
		if len(vs.TCP) > 0 {
			errs = append(errs, fielderr.Newf("", f.pick("spec.tcp", "TCP"), nil, "delegate virtual service must have no tcp route specified"))
		}
	}
	// Bound to gateways only when it names some and not the mesh.
	toGateways := len(vs.Gateways) > 0 && !slices.Contains(vs.Gateways, "mesh")
	errs = gatewayNamesProblems(errs, func() string { return f.pick("spec.gateways", "Gateways") }, vs.Gateways)
	if !toGateways {
		for r := range vs.HTTP {
			for m := range vs.HTTP[r].Match {
				errs = jwtClaimProblems(errs, f, vs, r, m)
			}
		}
	}
	errs = checkVirtualServiceHosts(errs, vs, f, toGateways)
	if len(vs.HTTP) == 0 && len(vs.TCP) == 0 && len(vs.TLS) == 0 {
		errs = append(errs, fielderr.Newf("", f.pick("spec", ""), nil, "http, tcp or tls must be provided in virtual service"))
	}
	for r := range vs.HTTP {
		errs = checkHTTPRoute(errs, f, &vs.HTTP[r], r, len(vs.Hosts) == 0)
	}
	for _, kind := range []string{"tls", "tcp"} {
		routes, required := vs.TLS, "TLS route is required"
		if kind == "tcp" {
			routes, required = vs.TCP, "TCP route is required"
		}
		for r := range routes {
			if len(routes[r].Route) == 0 {
				errs = append(errs, fielderr.Newf("", f.route(kind, r)+f.pick(".route", ".Route"), nil, "%s", required))
			}
			errs = checkDestinations(errs, f, kind, r, routes[r].Route)
		}
	}
	if names.Label(vs.Namespace) == "" {
		errs = append(errs, exportto.Problems(f.pick("spec.exportTo", "ExportTo"), vs.Namespace, vs.ExportTo, exportto.Config)...)
	}
	return errs
}

// jwtClaimProblems refuses, in a VirtualService bound to the mesh, a match on a JWT claim,
// which only gateways route on.
func jwtClaimProblems(errs []*FieldError, f *routingFields, vs *VirtualService, r, m int) []*FieldError {
	mt := &vs.HTTP[r].Match[m]
	start := len(errs)
	for _, hs := range []struct {
		load, goName string
		headers      map[string]StringMatch
	}{{"headers", "Headers", mt.Headers}, {"withoutHeaders", "WithoutHeaders", mt.WithoutHeaders}} {
		for k := range hs.headers {
			if jwtClaimHeader(k) {
				errs = append(errs, fielderr.Newf("", strict.Key(f.match(r, m)+"."+f.pick(hs.load, hs.goName), k), k,
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
func checkVirtualServiceHosts(errs []*FieldError, vs *VirtualService, f *routingFields, toGateways bool) []*FieldError {
	field := f.pick("spec.hosts", "Hosts")
	valid := true
	for i, h := range vs.Hosts {
		if toGateways && strings.HasPrefix(h, "outbound_") {
			continue // an SNI host a gateway passes through (see doc.go: not checked)
		}
		if r := wildcardDomainProblem(h); r != "" {
			if _, err := netip.ParseAddr(h); err != nil {
				errs = append(errs, fielderr.Newf("", strict.Index(field, i), h, "%s", r))
				valid = false
			}
		} else if !toGateways && h == "*" {
			errs = append(errs, fielderr.Newf("", strict.Index(field, i), h, "wildcard host * is not allowed for virtual services bound to the mesh gateway"))
			valid = false
		}
	}
	if !valid || len(vs.Hosts) < 2 {
		return errs
	}
	pairs, total := overlaps(vs.Hosts, maxOverlaps)
	for _, p := range pairs {
		errs = append(errs, fielderr.Newf("", strict.Index(field, p[1]), vs.Hosts[p[1]], "duplicate hosts in virtual service: %s & %s", vs.Hosts[p[0]], vs.Hosts[p[1]]))
	}
	if total > len(pairs) {
		errs = append(errs, fielderr.Newf("", field, nil, "and %d more pairs of duplicate hosts in virtual service", total-len(pairs)))
	}
	return errs
}

// checkHTTPRoute checks http[r]; in a delegate (a VirtualService without hosts), a route
// may not delegate further.
func checkHTTPRoute(errs []*FieldError, f *routingFields, h *HTTPRoute, r int, inDelegate bool) []*FieldError {
	switch {
	case inDelegate && h.Delegate != nil:
		errs = append(errs, fielderr.Newf("", f.route("http", r)+f.pick(".delegate", ".Delegate"), nil, "delegate HTTP route cannot contain delegate"))
	case !inDelegate && h.Delegate != nil && len(h.Route) > 0:
		errs = append(errs, fielderr.Newf("", f.route("http", r)+f.pick(".route", ".Route"), nil, "root HTTP route %s must not specify route", h.Name))
	}
	mirrors := len(h.Mirrors) > 0
	if f.load {
		mirrors = f.hasMirrors[r]
	}
	if h.Mirror != nil && mirrors && (inDelegate || h.Delegate == nil) { // Istio checks a root route for nothing else
		errs = append(errs, fielderr.Newf("", f.route("http", r)+f.pick(".mirrors", ".Mirrors"), nil, "HTTP route cannot contain both mirror and mirrors"))
	}
	for m := range h.Match {
		errs = checkHTTPMatch(errs, f, &h.Match[m], r, m)
	}
	if h.Mirror != nil {
		errs = checkDestination(errs, f, "http", r, "mirror", 0, h.Mirror)
		if h.Mirror.Weight != 0 {
			errs = append(errs, fielderr.Newf("", f.dest("http", r, "mirror", 0, "weight"), h.Mirror.Weight, "a mirror has no weight"))
		}
	}
	for i := range h.Mirrors {
		errs = checkDestination(errs, f, "http", r, "mirrors", i, &h.Mirrors[i])
		if h.Mirrors[i].Weight != 0 {
			errs = append(errs, fielderr.Newf("", f.dest("http", r, "mirrors", i, "weight"), h.Mirrors[i].Weight, "a mirror has no weight"))
		}
	}
	return checkDestinations(errs, f, "http", r, h.Route)
}

// checkDestinations checks the destinations of a route: each, and their weights.
func checkDestinations(errs []*FieldError, f *routingFields, kind string, r int, ds []Destination) []*FieldError {
	total := int64(0)
	for i := range ds {
		errs = checkDestination(errs, f, kind, r, "route", i, &ds[i])
		if w := ds[i].Weight; w < 0 {
			errs = append(errs, fielderr.Newf("", f.dest(kind, r, "route", i, "weight"), w, "weight %d < 0", w))
		}
		total += int64(ds[i].Weight)
	}
	if len(ds) > 1 && int32(total) == 0 { // Istio sums in an int32
		errs = append(errs, fielderr.Newf("", f.route(kind, r)+f.pick(".route", ".Route"), nil, "total destination weight = 0"))
	}
	return errs
}

// checkDestination checks a destination's host, subset and port.
func checkDestination(errs []*FieldError, f *routingFields, kind string, r int, list string, i int, d *Destination) []*FieldError {
	if d.Host == "*" {
		errs = append(errs, fielderr.Newf("", f.dest(kind, r, list, i, "host"), d.Host, "invalid destination host *"))
	} else if p := wildcardDomainProblem(d.Host); p != "" {
		errs = append(errs, fielderr.Newf("", f.dest(kind, r, list, i, "host"), d.Host, "%s", p))
	}
	if d.Subset != "" {
		if p := subsetNameProblem(d.Subset); p != "" {
			errs = append(errs, fielderr.Newf("", f.dest(kind, r, list, i, "subset"), d.Subset, "%s", p))
		}
	}
	if d.Port > 65535 {
		errs = append(errs, fielderr.Newf("", f.dest(kind, r, list, i, "port"), d.Port, "%s", portProblem(uint64(d.Port))))
	}
	return errs
}

// checkHTTPMatch checks match[m] of http[r]: header names, string matches, port, source
// labels, gateways and source namespace.
func checkHTTPMatch(errs []*FieldError, f *routingFields, mt *HTTPMatch, r, m int) []*FieldError {
	// at names a field of the match, spelt for a problem only.
	at := func(load, goName string) func() string {
		return func() string { return f.match(r, m) + "." + f.pick(load, goName) }
	}
	key := func(load, goName, k string) func() string {
		return func() string { return strict.Key(at(load, goName)(), k) }
	}
	start := len(errs)
	for _, hs := range []struct {
		load, goName string
		headers      map[string]StringMatch
	}{{"headers", "Headers", mt.Headers}, {"withoutHeaders", "WithoutHeaders", mt.WithoutHeaders}, {"queryParams", "QueryParams", mt.QueryParams}} {
		for k, sm := range hs.headers {
			if hs.load != "queryParams" {
				if p := headerNameProblem(k); p != "" {
					errs = append(errs, fielderr.Newf("", key(hs.load, hs.goName, k)(), k, "%s", p))
				}
			}
			if hs.load == "withoutHeaders" && sm.Regex == "*" {
				continue // not a regular expression: the header is absent
			}
			errs = checkRegex(errs, f, key(hs.load, hs.goName, k), &sm, hs.load)
		}
	}
	errs = byField(errs, start)
	for _, sm := range []struct {
		load, goName string
		m            *StringMatch
	}{{"uri", "URI", mt.URI}, {"scheme", "Scheme", mt.Scheme}, {"method", "Method", mt.Method}, {"authority", "Authority", mt.Authority}} {
		if sm.m != nil {
			errs = checkRegex(errs, f, at(sm.load, sm.goName), sm.m, sm.load)
		}
	}
	if mt.Port > 65535 {
		errs = append(errs, fielderr.Newf("", at("port", "Port")(), mt.Port, "%s", portProblem(uint64(mt.Port))))
	}
	errs = checkTags(errs, at("sourceLabels", "SourceLabels"), mt.SourceLabels)
	errs = gatewayNamesProblems(errs, at("gateways", "Gateways"), mt.Gateways)
	if mt.SourceNamespace != "" && !names.IstioLabel(mt.SourceNamespace) {
		errs = append(errs, fielderr.Newf("", at("sourceNamespace", "SourceNamespace")(), mt.SourceNamespace, "sourceNamespace match %s is invalid", mt.SourceNamespace))
	}
	return errs
}

// checkRegex checks the regular expression of a string match at path, named where.
func checkRegex(errs []*FieldError, f *routingFields, path func() string, sm *StringMatch, where string) []*FieldError {
	if sm.Regex == "" {
		return errs
	}
	if p := regexProblem(sm.Regex, where); p != "" {
		errs = append(errs, fielderr.Newf("", path()+f.pick(".regex", ".Regex"), sm.Regex, "%s", p))
	}
	return errs
}

// checkDestinationRule checks a DestinationRule of a valid namespace as Istio's validation
// does, but for its traffic policies.
func checkDestinationRule(errs []*FieldError, dr *DestinationRule, f *routingFields) []*FieldError {
	if p := wildcardDomainProblem(dr.Host); p != "" {
		errs = append(errs, fielderr.Newf("", f.pick("spec.host", "Host"), dr.Host, "%s", p))
	}
	var seen map[string]int // for many subsets; few are scanned
	if len(dr.Subsets) > 8 {
		seen = make(map[string]int, len(dr.Subsets))
	}
	name := func(i int) string {
		return strict.Index(f.pick("spec.subsets", "Subsets"), i) + f.pick(".name", ".Name")
	}
	for i := range dr.Subsets {
		s := &dr.Subsets[i]
		j := -1
		if seen != nil {
			if first, dup := seen[s.Name]; dup {
				j = first
			} else {
				seen[s.Name] = i
			}
		} else {
			j = slices.IndexFunc(dr.Subsets[:i], func(o Subset) bool { return o.Name == s.Name })
		}
		if j >= 0 {
			errs = append(errs, fielderr.Newf("", name(i), s.Name, "duplicate subset names: %s (it repeats %s)", s.Name, name(j)))
		}
		if p := subsetNameProblem(s.Name); p != "" {
			errs = append(errs, fielderr.Newf("", name(i), s.Name, "%s", p))
		}
		errs = checkTags(errs, func() string {
			return strict.Index(f.pick("spec.subsets", "Subsets"), i) + f.pick(".labels", ".Labels")
		}, s.Labels)
	}
	if names.Label(dr.Namespace) == "" {
		rule := exportto.Config
		if dr.WorkloadSelector != nil {
			rule = exportto.SelectorRule
		}
		errs = append(errs, exportto.Problems(f.pick("spec.exportTo", "ExportTo"), dr.Namespace, dr.ExportTo, rule)...)
	}
	return checkRuleSelector(errs, f.pick("spec.workloadSelector.matchLabels", "WorkloadSelector"), dr.WorkloadSelector)
}

// checkRuleSelector checks a DestinationRule's workloadSelector.matchLabels at path: no
// empty key, no "*" in a key or value.
func checkRuleSelector(errs []*FieldError, path string, ls map[string]string) []*FieldError {
	start := len(errs)
	for k, v := range ls {
		kv := func() string { return strconv.Quote(k + "=" + v) }
		if k == "" {
			errs = append(errs, fielderr.Newf("", strict.Key(path, k), k, "empty key is not supported in selector: %s", kv()))
		}
		if strings.Contains(k, "*") || strings.Contains(v, "*") {
			errs = append(errs, fielderr.Newf("", strict.Key(path, k), k+"="+v, "wildcard is not supported in selector: %s", kv()))
		}
	}
	return byField(errs, start)
}
