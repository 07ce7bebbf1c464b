package sidecar

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/meshscope/meshscope/visibility/inventory"
)

// gammaErr is a problem istiod reports on a route, in its words: a parent's (Accepted) or
// the route's (ResolvedRefs) reason and message.
type gammaErr struct{ reason, message string }

// The reasons of istiod's route status.
const (
	gammaNoMatchingParent           = "NoMatchingParent"
	gammaNotAllowedByListeners      = "NotAllowedByListeners"
	gammaNoMatchingListenerHostname = "NoMatchingListenerHostname"
	gammaInvalidDestination         = "InvalidDestination"
	gammaBackendNotFound            = "BackendNotFound"
	gammaInvalidKind                = "InvalidKind"
	gammaRefNotPermitted            = "RefNotPermitted"
	gammaInvalidFilter              = "InvalidFilter"
)

// invalidBackend reports whether e is a backend problem istiod routes around (dropping, or
// keeping empty, the backend): a missing or unsupported backend, one not permitted. Any other
// problem of a rule drops the route's whole conversion.
func (e *gammaErr) invalidBackend() bool {
	return e.reason == gammaBackendNotFound || e.reason == gammaInvalidKind || e.reason == gammaRefNotPermitted
}

// gammaRoute is one route being converted.
type gammaRoute struct {
	ix  *gammaIndex
	idx int32
	r   *inventory.Route
	// parents are the parents its parentRefs resolve to (see resolveParents).
	parents []gammaParent
	// mesh and gw are its rules converted for the mesh and for Gateways (where backends in
	// other namespaces need a ReferenceGrant), each when a parent needs it.
	mesh, gw gammaConversion
}

// gammaConversion is a route's rules converted: the entries, and the last problem (a rule's
// invalid backend, or the problem that dropped every entry).
type gammaConversion struct {
	err  *gammaErr
	http []gammaEntry
	l4   []gammaL4Entry
}

// gammaEntry is an http entry of a converted route.
type gammaEntry struct {
	route inventory.HTTPRoute
	extra gammaHTTP
}

// gammaL4Entry is a tcp or tls entry of a converted route.
type gammaL4Entry struct {
	route inventory.L4Route
	extra gammaL4
}

// route converts route i of the inventory: its parents, and its rules for those that need them.
func (ix *gammaIndex) route(i int32) *gammaRoute {
	c := &gammaRoute{ix: ix, idx: i, r: &ix.inv.Routes[i]}
	c.parents = c.resolveParents()
	needMesh, needGW := false, false
	for _, p := range c.parents {
		needMesh, needGW = needMesh || p.mesh, needGW || !p.mesh
	}
	if needMesh {
		c.mesh = c.convert(false)
	}
	if needGW {
		c.gw = c.convert(true)
	}
	return c
}

// convert converts the route's rules, each match of a rule of an HTTPRoute or a GRPCRoute into
// an entry of its own; enforce says that a backend in another namespace needs a
// ReferenceGrant.
func (c *gammaRoute) convert(enforce bool) gammaConversion {
	var res gammaConversion
	for n := range c.r.Rules {
		rule := &c.r.Rules[n]
		if c.r.Kind == inventory.TCPRouteKind || c.r.Kind == inventory.TLSRouteKind {
			e, err := c.l4Entry(rule, int32(n), enforce)
			if err != nil && !err.invalidBackend() {
				return gammaConversion{err: err}
			}
			res.err = cmpErr(err, res.err)
			res.l4 = append(res.l4, e)
			continue
		}
		for m := -1; m < len(rule.Matches); m++ {
			if m < 0 && len(rule.Matches) > 0 {
				continue
			}
			e, soft, hard := c.httpEntry(rule, int32(n), int32(m), enforce)
			if hard != nil {
				return gammaConversion{err: hard}
			}
			res.err = cmpErr(soft, res.err)
			res.http = append(res.http, e)
		}
	}
	return res
}

// cmpErr returns err, or last when err is nil: the last problem found stands.
func cmpErr(err, last *gammaErr) *gammaErr {
	if err != nil {
		return err
	}
	return last
}

// httpEntry converts match m (-1: none) of rule n of an HTTPRoute or a GRPCRoute. soft is an
// invalid backend or mirror (the entry stands), hard a problem that drops the conversion.
func (c *gammaRoute) httpEntry(rule *inventory.RouteRule, n, m int32, enforce bool) (e gammaEntry, soft, hard *gammaErr) {
	e.route.Name = rule.Name
	if e.route.Name == "" {
		e.route.Name = c.r.Namespace + "." + c.r.Name + "." + strconv.Itoa(int(n))
	}
	e.extra.src = gammaSource{route: c.idx, rule: n, match: m}
	if m >= 0 {
		match, prec := c.httpMatch(&rule.Matches[m])
		e.route.Match = []inventory.HTTPMatch{match}
		e.extra.prec = prec
	}
	var mirrorErr *gammaErr
	for i := range rule.Filters {
		f := &rule.Filters[i]
		switch f.Type {
		case inventory.FilterRequestHeaderModifier, inventory.FilterResponseHeaderModifier:
			hm, dst := f.RequestHeaderModifier, &e.extra.request
			if f.Type == inventory.FilterResponseHeaderModifier {
				hm, dst = f.ResponseHeaderModifier, &e.extra.response
			}
			ops, err := gammaHeaders(hm)
			if err != nil {
				return e, nil, err
			}
			if ops != nil {
				*dst = ops
			}
		case inventory.FilterRequestMirror:
			d, pct, err := c.mirror(f.RequestMirror, enforce)
			switch {
			case err != nil && c.r.Kind == inventory.GRPCRouteKind:
				return e, nil, err
			case err != nil:
				mirrorErr = err
			default:
				e.route.Mirrors = append(e.route.Mirrors, d)
				e.extra.mirrorPercent = append(e.extra.mirrorPercent, pct)
			}
		case inventory.FilterRequestRedirect:
			if c.r.Kind == inventory.GRPCRouteKind {
				return e, nil, gammaUnsupportedFilter(f.Type)
			}
			e.extra.redirect = gammaRedirectOf(f.RequestRedirect)
		case inventory.FilterURLRewrite:
			if c.r.Kind == inventory.GRPCRouteKind {
				return e, nil, gammaUnsupportedFilter(f.Type)
			}
			e.extra.rewrite = gammaRewriteOf(f.URLRewrite)
		case inventory.FilterCORS:
			if c.r.Kind == inventory.GRPCRouteKind {
				return e, nil, gammaUnsupportedFilter(f.Type)
			}
		default:
			return e, nil, gammaUnsupportedFilter(f.Type)
		}
	}
	if gammaWeightSum(rule.BackendRefs) == 0 && e.extra.redirect == nil {
		e.extra.directResponse = 500
		return e, mirrorErr, nil
	}
	dests, backendErr, hard := c.destinations(rule.BackendRefs, enforce, true)
	if hard != nil {
		return e, nil, hard
	}
	e.route.Route = dests
	if backendErr != nil && mirrorErr != nil {
		return e, &gammaErr{backendErr.reason, backendErr.message + "; " + mirrorErr.message}, nil
	}
	return e, cmpErr(backendErr, mirrorErr), nil
}

func gammaUnsupportedFilter(t string) *gammaErr {
	return &gammaErr{gammaInvalidFilter, fmt.Sprintf("unsupported filter type %q", t)}
}

// httpMatch converts an HTTPRoute's or a GRPCRoute's match, with its rank in Gateway API
// precedence.
func (c *gammaRoute) httpMatch(rm *inventory.RouteMatch) (inventory.HTTPMatch, gammaPrecedence) {
	var m inventory.HTTPMatch
	var p gammaPrecedence
	if rm.Path != nil {
		m.URI, p = gammaPathURI(rm.Path)
	}
	if g := rm.GRPCMethod; g != nil {
		m.URI, p = gammaGRPCURI(g)
	}
	m.Headers = gammaValueMatches(rm.Headers)
	m.QueryParams = gammaValueMatches(rm.QueryParams)
	if rm.Method != "" {
		m.Method = &inventory.StringMatch{Exact: rm.Method}
		p.method = true
	}
	p.headers, p.queryParams = len(m.Headers), len(m.QueryParams)
	return m, p
}

// gammaPathURI is an HTTPRoute path's uri match (a prefix loses one trailing "/", but for "/"
// itself) and its rank and length.
func gammaPathURI(pm *inventory.PathMatch) (*inventory.StringMatch, gammaPrecedence) {
	switch pm.Type {
	case inventory.MatchExact:
		return &inventory.StringMatch{Exact: pm.Value}, gammaPrecedence{rank: gammaRankExact, length: len(pm.Value)}
	case inventory.MatchRegularExpression:
		return &inventory.StringMatch{Regex: pm.Value}, gammaPrecedence{rank: gammaRankRegex, length: len(pm.Value)}
	}
	v := pm.Value
	if v != "/" {
		v = strings.TrimSuffix(v, "/")
	}
	return &inventory.StringMatch{Prefix: v}, gammaPrecedence{rank: gammaRankPrefix, length: len(v)}
}

// gammaGRPCURI is a gRPC method match's uri match: an exact /service/method, a prefix
// /service/ (service only), a regular expression (method only, or of type
// RegularExpression).
func gammaGRPCURI(g *inventory.GRPCMethodMatch) (*inventory.StringMatch, gammaPrecedence) {
	var s inventory.StringMatch
	switch {
	case g.Service == "":
		s.Regex = "/[^/]+/" + g.Method
	case g.Type == inventory.MatchRegularExpression && g.Method == "":
		s.Regex = "/" + g.Service + "/.+"
	case g.Type == inventory.MatchRegularExpression:
		s.Regex = "/" + g.Service + "/" + g.Method
	case g.Method == "":
		s.Prefix = "/" + g.Service + "/"
	default:
		s.Exact = "/" + g.Service + "/" + g.Method
	}
	switch {
	case s.Exact != "":
		return &s, gammaPrecedence{rank: gammaRankExact, length: len(s.Exact)}
	case s.Prefix != "":
		return &s, gammaPrecedence{rank: gammaRankPrefix, length: len(s.Prefix)}
	}
	return &s, gammaPrecedence{rank: gammaRankRegex, length: len(s.Regex)}
}

// gammaValueMatches converts header or query parameter matches into a map by name (a later
// match of a name replaces an earlier one); nil for none.
func gammaValueMatches(vms []inventory.ValueMatch) map[string]inventory.StringMatch {
	if len(vms) == 0 {
		return nil
	}
	out := make(map[string]inventory.StringMatch, len(vms))
	for _, vm := range vms {
		if vm.Type == inventory.MatchRegularExpression {
			out[vm.Name] = inventory.StringMatch{Regex: vm.Value}
		} else {
			out[vm.Name] = inventory.StringMatch{Exact: vm.Value}
		}
	}
	return out
}

// l4Entry converts rule n of a TCPRoute or a TLSRoute. With no backend of weight, the entry
// sends connections to istiod's blackhole (and a TLS entry then has no SNI match).
func (c *gammaRoute) l4Entry(rule *inventory.RouteRule, n int32, enforce bool) (gammaL4Entry, *gammaErr) {
	e := gammaL4Entry{extra: gammaL4{src: gammaSource{route: c.idx, rule: n, match: -1}}}
	if gammaWeightSum(rule.BackendRefs) == 0 {
		e.route.Route = []inventory.Destination{{Host: "internal.cluster.local", Subset: "zero-weight", Port: 65535}}
		return e, nil
	}
	dests, soft, hard := c.destinations(rule.BackendRefs, enforce, false)
	if hard != nil {
		return e, hard
	}
	e.route.Route = dests
	if c.r.Kind == inventory.TLSRouteKind {
		sni := c.r.Hostnames
		if len(sni) == 0 {
			sni = []string{"*"}
		}
		e.extra.match = &gammaL4Match{sniHosts: sni}
	}
	return e, soft
}

// gammaWeightSum is the sum of the backends' weights.
func gammaWeightSum(refs []inventory.BackendRef) int64 {
	var n int64
	for i := range refs {
		n += int64(refs[i].Weight)
	}
	return n
}

// destinations converts the backends of weight: with one, its weight is left out. An
// invalid backend stays (soft, the last one's problem); any other problem drops them all
// (hard). filters says that the backends' own filters are checked (HTTP and gRPC).
func (c *gammaRoute) destinations(refs []inventory.BackendRef, enforce, filters bool) (out []inventory.Destination, soft, hard *gammaErr) {
	weighted := 0
	for i := range refs {
		if refs[i].Weight != 0 {
			weighted++
		}
	}
	for i := range refs {
		b := &refs[i]
		if b.Weight == 0 {
			continue
		}
		d, err := c.backend(b, enforce)
		switch {
		case err != nil && err.invalidBackend():
			soft = err
		case err != nil:
			return nil, nil, err
		}
		if weighted > 1 {
			d.Weight = b.Weight
		}
		if filters {
			for j := range b.Filters {
				if err := gammaBackendFilter(&b.Filters[j]); err != nil {
					return nil, nil, err
				}
			}
		}
		out = append(out, d)
	}
	return out, soft, nil
}

// gammaBackendFilter checks a backend's filter as istiod reads it: header modifiers (their
// values), nothing else.
func gammaBackendFilter(f *inventory.RouteFilter) *gammaErr {
	switch f.Type {
	case inventory.FilterRequestHeaderModifier:
		_, err := gammaHeaders(f.RequestHeaderModifier)
		return err
	case inventory.FilterResponseHeaderModifier:
		_, err := gammaHeaders(f.ResponseHeaderModifier)
		return err
	}
	return gammaUnsupportedFilter(f.Type)
}

// The backend kinds istiod reads besides Kubernetes Services.
const (
	gammaHostnameKind   = "Hostname"
	gammaMCSGroup       = "multicluster.x-k8s.io"
	gammaInferenceGroup = "inference.networking.k8s.io"
)

// backend is a backend's destination, as istiod builds it: a Service's host and port (kept,
// with a problem, when the Service is missing), a Hostname's (networking.istio.io), an empty
// destination for a kind istiod does not route to or a backend not permitted.
func (c *gammaRoute) backend(b *inventory.BackendRef, enforce bool) (inventory.Destination, *gammaErr) {
	if enforce && b.Namespace != "" && b.Namespace != c.r.Namespace &&
		!c.ix.granted(c.r.Kind, c.r.Namespace, b.Group, b.Kind, b.Name, b.Namespace) {
		return inventory.Destination{}, &gammaErr{gammaRefNotPermitted,
			fmt.Sprintf("backendRef %s/%s not accessible to a %s in namespace %q (missing a ReferenceGrant?)", b.Name, b.Namespace, c.r.Kind, c.r.Namespace)}
	}
	ns := b.Namespace
	if ns == "" {
		ns = c.r.Namespace
	}
	var host string
	var err *gammaErr
	switch {
	case b.Group == "" && b.Kind == "Service", b.Group == gammaMCSGroup && b.Kind == "ServiceImport":
		if b.Kind == "Service" && strings.Contains(b.Name, ".") {
			return inventory.Destination{}, &gammaErr{gammaInvalidDestination, "service name invalid; the name of the Service must be used, not the hostname."}
		}
		host = inventory.ServiceHost(b.Name, ns, c.ix.domain)
		if c.ix.k8s[gammaNSName{ns, b.Name}] == nil {
			err = &gammaErr{gammaBackendNotFound, fmt.Sprintf("backend(%s) not found", host)}
		}
	case b.Group == gammaServiceEntryGroup && b.Kind == gammaHostnameKind:
		if b.Namespace != "" {
			return inventory.Destination{}, &gammaErr{gammaInvalidDestination, "namespace may not be set with Hostname type"}
		}
		host = b.Name
		if !c.ix.hosts[gammaHostNS{host, ns}] {
			err = &gammaErr{gammaBackendNotFound, fmt.Sprintf("backend(%s) not found", host)}
		}
	case b.Group == gammaInferenceGroup && b.Kind == "InferencePool":
		return inventory.Destination{}, &gammaErr{gammaInvalidKind, "InferencePool is not enabled. To enable, set ENABLE_GATEWAY_API_INFERENCE_EXTENSION to true in istiod"}
	default:
		return inventory.Destination{}, &gammaErr{gammaInvalidKind, fmt.Sprintf("referencing unsupported backendRef: group %q kind %q", b.Group, b.Kind)}
	}
	if b.Port == 0 {
		return inventory.Destination{}, &gammaErr{gammaInvalidDestination, "port is required in backendRef"}
	}
	return inventory.Destination{Host: host, Port: b.Port}, err
}

// mirror is a mirror filter's destination and share; any problem of its backend drops it.
func (c *gammaRoute) mirror(m *inventory.MirrorFilter, enforce bool) (inventory.Destination, *float64, *gammaErr) {
	d, err := c.backend(&m.BackendRef, enforce)
	if err != nil {
		return d, nil, err
	}
	var pct *float64
	switch {
	case m.Fraction != nil:
		v := 100 * float64(m.Fraction.Numerator) / float64(m.Fraction.Denominator)
		pct = &v
	case m.Percent != nil:
		v := float64(*m.Percent)
		pct = &v
	}
	return d, pct, nil
}

// gammaHeaders converts a header modifier: names lower-cased, the first of a name kept; a
// value with a control character is a problem.
func gammaHeaders(hm *inventory.HeaderModifier) (*gammaHeaderOps, *gammaErr) {
	if hm == nil {
		return nil, nil
	}
	for _, list := range [][]inventory.Header{hm.Set, hm.Add} {
		for _, h := range list {
			if !gammaHeaderValue(h.Value) {
				return nil, &gammaErr{gammaInvalidFilter, fmt.Sprintf("header %q value contains invalid characters", h.Name)}
			}
		}
	}
	return &gammaHeaderOps{set: gammaHeaderMap(hm.Set), add: gammaHeaderMap(hm.Add), remove: hm.Remove}, nil
}

func gammaHeaderMap(hs []inventory.Header) map[string]string {
	if len(hs) == 0 {
		return nil
	}
	out := make(map[string]string, len(hs))
	for _, h := range hs {
		k := strings.ToLower(h.Name)
		if _, ok := out[k]; !ok {
			out[k] = h.Value
		}
	}
	return out
}

// gammaHeaderValue reports whether a header value has only tabs and visible characters.
func gammaHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c != '\t' && (c < 0x20 || c == 0x7f) {
			return false
		}
	}
	return true
}

// gammaRedirectOf converts a RequestRedirect filter.
func gammaRedirectOf(f *inventory.RedirectFilter) *gammaRedirect {
	r := &gammaRedirect{code: uint32(f.StatusCode), authority: f.Hostname, scheme: f.Scheme, port: f.Port}
	switch {
	case f.Port != 0:
	case f.Scheme != "":
		r.derivePort = "FROM_PROTOCOL_DEFAULT"
	default:
		r.derivePort = "FROM_REQUEST_PORT"
	}
	if p := f.Path; p != nil {
		switch p.Type {
		case inventory.ReplaceFullPath:
			r.uri = p.ReplaceFullPath
		case inventory.ReplacePrefixMatch:
			r.prefixRewrite = p.ReplacePrefixMatch
		}
	}
	return r
}

// gammaRewriteOf converts a URLRewrite filter; nil when it rewrites nothing.
func gammaRewriteOf(f *inventory.URLRewriteFilter) *gammaRewrite {
	r := &gammaRewrite{authority: f.Hostname}
	if p := f.Path; p != nil {
		switch p.Type {
		case inventory.ReplacePrefixMatch:
			r.uri = strings.TrimSuffix(p.ReplacePrefixMatch, "/")
			if r.uri == "" {
				r.uri = "/"
			}
		case inventory.ReplaceFullPath:
			r.regexMatch, r.regexRewrite = "/.*", p.ReplaceFullPath
		}
	}
	if r.uri == "" && r.regexMatch == "" && r.authority == "" {
		return nil
	}
	return r
}
