package chain

import (
	"maps"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/strict"
)

// Validate reports every problem in the router, as Consul's server judges it once it has
// normalised it (methods upper-cased), each prefixed by the path of the field, in Consul
// v1.16's words (it reports only the first):
//
//	Routes[0].Match.HTTP.PathExact: Route[0] PathExact doesn't start with '/': "login"
//	Routes[1].Match.HTTP: Route[1] should only contain at most one of PathExact, PathPrefix, or PathRegex
//	Routes[1].Match.HTTP.Header[0]: Route[1] Header[0] should only contain one of Present, Exact, Prefix, Suffix, or Regex
//	Routes[2].Match.HTTP.Methods[0]: Route[2] Methods contains an invalid method "FETCH"
//	Routes[2].Destination.PrefixRewrite: Route[2] cannot make use of PrefixRewrite without configuring either PathExact or PathPrefix
//	Routes[3].Destination.RetryOn[1]: Route[3] contains an invalid retry condition: "bogus"
//
// A Kind other than service-router is meshscope's words. Consul does not check regular
// expressions when it stores a router, and neither does Validate.
func (r *ServiceRouter) Validate() error {
	var p problems
	p.named(routerKind, r.Kind, r.Name)
	metaProblems(&p, r.Meta)
	for i := range r.Routes {
		routeProblems(&p, i, &r.Routes[i])
	}
	return p.Err()
}

// routeProblems checks Routes[i].
func routeProblems(p *problems, i int, route *ServiceRoute) {
	path := strict.Index("Routes", i)
	pathMatch := false // PathExact or PathPrefix: what PrefixRewrite needs
	if route.Match != nil && route.Match.HTTP != nil {
		h, mp := route.Match.HTTP, path+".Match.HTTP"
		paths := 0
		for _, f := range []struct{ name, value string }{{"PathExact", h.PathExact}, {"PathPrefix", h.PathPrefix}} {
			if f.value == "" {
				continue
			}
			pathMatch = true
			paths++
			if !strings.HasPrefix(f.value, "/") {
				p.addValue(mp+"."+f.name, f.value, "Route[%d] %s doesn't start with '/': %q", i, f.name, f.value)
			}
		}
		if h.PathRegex != "" {
			paths++
		}
		if paths > 1 {
			p.add(mp, "Route[%d] should only contain at most one of PathExact, PathPrefix, or PathRegex", i)
		}
		for j, hdr := range h.Header {
			hp := strict.Index(mp+".Header", j)
			if hdr.Name == "" {
				p.add(hp, "Route[%d] Header[%d] missing required Name field", i, j)
			}
			if count(hdr.Present, hdr.Exact != "", hdr.Prefix != "", hdr.Suffix != "", hdr.Regex != "") != 1 {
				p.add(hp, "Route[%d] Header[%d] should only contain one of Present, Exact, Prefix, Suffix, or Regex", i, j)
			}
		}
		for j, q := range h.QueryParam {
			qp := strict.Index(mp+".QueryParam", j)
			if q.Name == "" {
				p.add(qp, "Route[%d] QueryParam[%d] missing required Name field", i, j)
			}
			if count(q.Present, q.Exact != "", q.Regex != "") != 1 {
				p.add(qp, "Route[%d] QueryParam[%d] should only contain one of Present, Exact, or Regex", i, j)
			}
		}
		seen := make(map[string]bool, len(h.Methods))
		for k, written := range h.Methods {
			m := strings.ToUpper(written) // as normalised
			switch {
			case !slices.Contains(httpMethods, m):
				p.addValue(strict.Index(mp+".Methods", k), written, "Route[%d] Methods contains an invalid method %q", i, m)
			case seen[m]:
				p.addValue(strict.Index(mp+".Methods", k), written, "Route[%d] Methods contains %q more than once", i, m)
			}
			seen[m] = true
		}
	}
	if d := route.Destination; d != nil {
		dp := path + ".Destination"
		if d.PrefixRewrite != "" && !pathMatch {
			p.addValue(dp+".PrefixRewrite", d.PrefixRewrite, "Route[%d] cannot make use of PrefixRewrite without configuring either PathExact or PathPrefix", i)
		}
		for k, c := range d.RetryOn {
			if !slices.Contains(retryConditions, c) {
				p.addValue(strict.Index(dp+".RetryOn", k), c, "Route[%d] contains an invalid retry condition: %q", i, c)
			}
		}
	}
}

// count returns how many of the conditions hold.
func count(conds ...bool) int {
	n := 0
	for _, c := range conds {
		if c {
			n++
		}
	}
	return n
}

// httpMethods are the methods Consul accepts in a route's match, upper case.
var httpMethods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "CONNECT", "OPTIONS", "TRACE"}

// retryConditions are the RetryOn values Consul accepts.
var retryConditions = []string{"5xx", "gateway-error", "reset", "connect-failure", "envoy-ratelimited", "retriable-4xx",
	"refused-stream", "cancelled", "deadline-exceeded", "internal", "resource-exhausted", "unavailable"}

// Validate reports every problem in the splitter, each prefixed by the path of the field, in
// Consul v1.16's words (it reports only the first):
//
//	Splits: no splits configured
//	Splits[2]: split destination occurs more than once: service="api", subset="v1", namespace="", partition=""
//	Splits: the sum of all split weights must be 100, not 99.989998
//
// Weights are judged as Consul judges them once rounded (see ServiceSplit): 33.333 three times is
// 99.99, which is refused, and 33.335, 33.335 and 33.33 sum to 100.01. As in Consul, two
// splits are the same destination when their service (the splitter's when empty), subset,
// namespace and partition are spelt the same and neither has header changes: Consul tells
// splits apart by their header modifiers too, so two splits to one service that each change
// headers are accepted. A Kind other than service-splitter is meshscope's words.
func (s *ServiceSplitter) Validate() error {
	var p problems
	p.named(splitterKind, s.Kind, s.Name)
	if len(s.Splits) == 0 {
		p.add("Splits", "no splits configured")
	}
	metaProblems(&p, s.Meta)
	type dest struct{ service, subset, namespace, partition string }
	seen := make(map[dest]bool, len(s.Splits))
	sum := 0
	for i, split := range s.Splits {
		sum += scaledWeight(split.Weight)
		if split.RequestHeaders != nil || split.ResponseHeaders != nil {
			continue // never the same destination as another split, to Consul
		}
		k := dest{split.Service, split.ServiceSubset, split.Namespace, split.Partition}
		if k.service == "" {
			k.service = s.Name
		}
		if seen[k] {
			p.add(strict.Index("Splits", i), "split destination occurs more than once: service=%q, subset=%q, namespace=%q, partition=%q", k.service, k.subset, k.namespace, k.partition)
		}
		seen[k] = true
	}
	if len(s.Splits) > 0 && sum != 100*100 {
		p.addValue("Splits", float32(sum)/100, "the sum of all split weights must be 100, not %f", float32(sum)/100)
	}
	return p.Err()
}

// named checks what every discovery-chain entry is first judged by: a Kind, when given, that
// is kind (meshscope's words: Consul's decoder takes the kind from the request), and a Name.
func (p *problems) named(kind, given, name string) {
	if given != "" && given != kind {
		p.addValue("Kind", given, "must be %q, got %q", kind, given)
	}
	if name == "" {
		p.add("Name", "Name is required")
	}
}

// metaProblems checks an entry's Meta as Consul does: at most 64 keys, each key at most 128
// bytes and each value at most 512.
func metaProblems(p *problems, meta map[string]string) {
	if len(meta) == 0 {
		return
	}
	if len(meta) > 64 {
		p.add("Meta", "Meta exceeds maximum element count 64")
	}
	for _, k := range slices.Sorted(maps.Keys(meta)) {
		if len(k) > 128 {
			p.add(strict.Key("Meta", k), "Meta key %q exceeds maximum length 128", k)
		}
		if len(meta[k]) > 512 {
			p.add(strict.Key("Meta", k), "Meta value for key %q exceeds maximum length 512", k)
		}
	}
}
