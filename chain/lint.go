package chain

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/report"
)

// The findings a compiled chain carries besides PeerTargetResolvedLocally (see
// Chain.Findings).
var (
	// HeaderMergePanics (error): flattening the chain's nested splitters merges header
	// changes into a nil map, which crashes Consul 1.16.0's server (MergeHTTPHeaderModifiers):
	// a parent split whose RequestHeaders set no Add (or no Set) map above a split that adds
	// (or sets) request headers, or a split whose ResponseHeaders set no Add (or Set) map
	// below a parent that adds (or sets) response headers. The write that makes such a chain
	// is never stored (the server crashes applying it); meshscope merges the changes as
	// Consul means to.
	HeaderMergePanics = report.NewCode("HeaderMergePanics", report.Error)
	// RouteUnreachable (warning): no request can reach a route, because an earlier route of
	// the router matches every request it matches: a path matcher that covers its path (no
	// path or PathPrefix "/" covers every path; a PathPrefix every path it prefixes; an equal
	// PathExact or PathRegex), no header or query matcher or the same ones, and no methods or
	// a superset of its methods.
	RouteUnreachable = report.NewCode("RouteUnreachable", report.Warning)
	// SplitProtocolDiffers (warning): a splitter of the chain is on a service whose protocol
	// is not the chain's. A splitter records no protocol, so Consul accepts it, but the
	// service's own chain (and a proxy calling it directly) uses the service's protocol.
	SplitProtocolDiffers = report.NewCode("SplitProtocolDiffers", report.Warning)
	// SplitWeightsRounded (note): a splitter's weights sum to 100 only once rounded to 0.01
	// (66.666 and 33.333), or a flattened splitter node's weights, each rounded again,
	// do not sum to 100: the shares a proxy is given are not the ones written.
	SplitWeightsRounded = report.NewCode("SplitWeightsRounded", report.Note)
)

// findings returns everything Chain.Findings says of ch, sorted, once each.
func (c *compiler) findings(ch *Chain) []Finding {
	out := c.peerFindings(ch)
	if c.panicAt != "" {
		out = append(out, report.New(fmt.Sprintf("chain %s", ch.Service), HeaderMergePanics,
			"flattening %s merges header changes into a nil map (Consul's MergeHTTPHeaderModifiers): Consul 1.16.0's server panics compiling this chain; meshscope merges them", c.panicAt))
	}
	if r := c.routers[ch.Service]; r != nil {
		out = append(out, unreachableRoutes(r)...)
	}
	for svc, k := range c.splitNodes {
		s := c.splitters[svc]
		if p := c.protocol(svc); p != c.proto {
			out = append(out, report.New(fmt.Sprintf("%s %s", splitterKind, svc), SplitProtocolDiffers,
				"the chain of %s passes this splitter on protocol %q, but service %s has protocol %q: a splitter records no protocol, so Consul accepts it, and %s's own chain and proxies calling it directly use %q",
				ch.Service.Short(), c.proto, svc.Short(), p, svc.Short(), p))
		}
		if s.roundedTo100 {
			out = append(out, report.New(fmt.Sprintf("%s %s", splitterKind, svc), SplitWeightsRounded,
				"the weights sum to 100 only once each is rounded to 0.01, as Consul rounds them: %s", weights(s.Splits, func(sp *ServiceSplit) float32 { return sp.Weight })))
		}
		if n := ch.Nodes[k]; n != nil {
			sum := 0
			for _, sp := range n.Splits {
				sum += scaledWeight(sp.Weight)
			}
			if sum != 100*100 {
				out = append(out, report.New(fmt.Sprintf("chain %s, %s", ch.Service, k), SplitWeightsRounded,
					"its nested splitters flattened, each weight rounded again to 0.01 as Consul rounds it, the weights sum to %s, not 100: %s",
					fmtWeight(float32(sum)/100), weights(n.Splits, func(sp *Split) float32 { return sp.Weight })))
			}
		}
	}
	slices.SortFunc(out, report.Compare)
	return slices.Compact(out)
}

// weights lists the weights of splits, as weight reads each, for a message: "33.34, 33.34,
// 33.33".
func weights[S any](splits []S, weight func(*S) float32) string {
	parts := make([]string, len(splits))
	for i := range splits {
		parts[i] = fmtWeight(weight(&splits[i]))
	}
	return strings.Join(parts, ", ")
}

// fmtWeight writes a weight as a person does: 33.34, 50, 0.01.
func fmtWeight(w float32) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", w), "0"), ".")
}

// roundedTo100 reports whether the weights of splits as written do not sum to 100 and their
// rounded values do.
func roundedTo100(splits []ServiceSplit) bool {
	exact, sum := 0.0, 0
	for i := range splits {
		w := splits[i].Weight
		exact += float64(w)
		sum += scaledWeight(w)
	}
	return sum == 100*100 && math.Abs(exact-100) > 1e-4
}

// A route's match, as the shadow check reads it: its path matcher, a key of its header and
// query matchers (which an earlier route must have the same of, or none), and its methods.
type routeMatch struct {
	kind    pathKind
	path    string
	other   string // the header and query matchers, encoded; "" for none
	methods uint16 // a bit per method of httpMethods; 0 for every method
}

type pathKind uint8

const (
	pathAny pathKind = iota // no path matcher, or PathPrefix "/"
	pathPrefix
	pathExact
	pathRegex
)

// matchOf reads route's match for the shadow check. The route is normalised: its methods are
// upper case. A method's bit is 1 shifted by its place in httpMethods.
func matchOf(route *ServiceRoute) routeMatch {
	var m routeMatch
	if route.Match == nil || route.Match.HTTP == nil {
		return m
	}
	h := route.Match.HTTP
	switch {
	case h.PathExact != "":
		m.kind, m.path = pathExact, h.PathExact
	case h.PathPrefix != "" && h.PathPrefix != "/":
		m.kind, m.path = pathPrefix, h.PathPrefix
	case h.PathRegex != "":
		m.kind, m.path = pathRegex, h.PathRegex
	}
	if len(h.Header)+len(h.QueryParam) > 0 {
		var b strings.Builder
		for _, x := range h.Header {
			fmt.Fprintf(&b, "h%q%t%q%q%q%q%t;", x.Name, x.Present, x.Exact, x.Prefix, x.Suffix, x.Regex, x.Invert)
		}
		for _, x := range h.QueryParam {
			fmt.Fprintf(&b, "q%q%t%q%q;", x.Name, x.Present, x.Exact, x.Regex)
		}
		m.other = b.String()
	}
	for _, meth := range h.Methods {
		if b := slices.Index(httpMethods, meth); b >= 0 {
			m.methods |= 1 << b
		}
	}
	return m
}

// unreachableRoutes reports each route of r that an earlier route shadows, naming the first
// earlier route that covers it. Each route is compared with every earlier one: routers hold
// tens of routes, and on routers of 5 to 100 routes an index of the earlier routes' paths (a
// byte trie per header key and method set) was 2 to 10 times slower and allocated 5 to 14
// times as much; only past several hundred routes was it faster.
func unreachableRoutes(r *router) []Finding {
	ms := make([]routeMatch, len(r.Routes))
	var out []Finding
	for i := range r.Routes {
		ms[i] = matchOf(&r.Routes[i])
		if by := slices.IndexFunc(ms[:i], func(e routeMatch) bool { return e.covers(ms[i]) }); by >= 0 {
			out = append(out, report.New(fmt.Sprintf("%s %s: Routes[%d]", routerKind, r.ServiceName(), i), RouteUnreachable,
				"no request can reach this route: Routes[%d] before it matches every request it matches", by))
		}
	}
	return out
}

// covers reports whether every request m matches, e matches too: e has no header or query
// matchers or the same ones as m, no methods or a superset of m's, and a path matcher that
// covers m's — none, a PathPrefix that prefixes m's PathPrefix or PathExact, or the same
// PathExact or PathRegex.
func (e routeMatch) covers(m routeMatch) bool {
	if e.other != "" && e.other != m.other || e.methods != 0 && (m.methods == 0 || m.methods&^e.methods != 0) {
		return false
	}
	switch e.kind {
	case pathAny:
		return true
	case pathPrefix:
		return (m.kind == pathPrefix || m.kind == pathExact) && strings.HasPrefix(m.path, e.path)
	}
	return e.kind == m.kind && e.path == m.path
}
