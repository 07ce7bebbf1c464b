package chain

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/meshscope/meshscope/exports"
)

// ServiceRouter is a Consul service-router config entry: the HTTP routes of the service
// Name, tried in order, each sending the requests it matches to a destination. Requests no
// route matches go to the service itself. Only the requested service's router is read for
// a chain: a route's destination gets that service's splitter or resolver, never its
// router. Field names and JSON are Consul's, so `consul config read -kind service-router`
// output unmarshals directly (see UnmarshalJSON).
type ServiceRouter struct {
	Kind        string            `json:"Kind,omitempty"`
	Name        string            `json:"Name"`
	Namespace   string            `json:"Namespace,omitempty"`
	Partition   string            `json:"Partition,omitempty"`
	Routes      []ServiceRoute    `json:"Routes,omitempty"`
	Meta        map[string]string `json:"Meta,omitempty"`
	CreateIndex uint64            `json:"CreateIndex,omitempty"`
	ModifyIndex uint64            `json:"ModifyIndex,omitempty"`
}

// ServiceRoute is one route: what it matches (nil: every request) and where it sends the
// request (nil: the chain's service).
type ServiceRoute struct {
	Match       *ServiceRouteMatch       `json:"Match,omitempty"`
	Destination *ServiceRouteDestination `json:"Destination,omitempty"`
}

// ServiceRouteMatch is what a route matches; HTTP is the only kind Consul has.
type ServiceRouteMatch struct {
	HTTP *ServiceRouteHTTPMatch `json:"HTTP,omitempty"`
}

// ServiceRouteHTTPMatch matches an HTTP request: at most one of PathExact, PathPrefix and
// PathRegex (an RE2 expression the whole path must match), and every header matcher, every
// query parameter matcher and one of Methods, when given. A match with none of them matches
// every request.
type ServiceRouteHTTPMatch struct {
	PathExact  string                            `json:"PathExact,omitempty"`
	PathPrefix string                            `json:"PathPrefix,omitempty"`
	PathRegex  string                            `json:"PathRegex,omitempty"`
	Header     []ServiceRouteHTTPMatchHeader     `json:"Header,omitempty"`
	QueryParam []ServiceRouteHTTPMatchQueryParam `json:"QueryParam,omitempty"`
	// Methods are upper-cased when the router is normalised, as Consul's server does.
	Methods []string `json:"Methods,omitempty"`
}

// ServiceRouteHTTPMatchHeader matches one request header by exactly one of Present, Exact,
// Prefix, Suffix and Regex (RE2, the whole value); Invert negates the match.
type ServiceRouteHTTPMatchHeader struct {
	Name    string `json:"Name"`
	Present bool   `json:"Present,omitempty"`
	Exact   string `json:"Exact,omitempty"`
	Prefix  string `json:"Prefix,omitempty"`
	Suffix  string `json:"Suffix,omitempty"`
	Regex   string `json:"Regex,omitempty"`
	Invert  bool   `json:"Invert,omitempty"`
}

// ServiceRouteHTTPMatchQueryParam matches one query parameter by exactly one of Present,
// Exact and Regex (RE2, the whole value).
type ServiceRouteHTTPMatchQueryParam struct {
	Name    string `json:"Name"`
	Present bool   `json:"Present,omitempty"`
	Exact   string `json:"Exact,omitempty"`
	Regex   string `json:"Regex,omitempty"`
}

// ServiceRouteDestination is where a route sends what it matches: a service (empty: the
// router's), a subset of it (which goes straight to the resolver: the service's splitter is
// skipped), a namespace and partition (empty: the router's), and what the proxy does on the
// way. RequestTimeout and IdleTimeout encode in JSON as duration strings such as "5s".
type ServiceRouteDestination struct {
	Service               string               `json:"Service,omitempty"`
	ServiceSubset         string               `json:"ServiceSubset,omitempty"`
	Namespace             string               `json:"Namespace,omitempty"`
	Partition             string               `json:"Partition,omitempty"`
	PrefixRewrite         string               `json:"PrefixRewrite,omitempty"`
	RequestTimeout        time.Duration        `json:"-"`
	IdleTimeout           time.Duration        `json:"-"`
	NumRetries            uint32               `json:"NumRetries,omitempty"`
	RetryOnConnectFailure bool                 `json:"RetryOnConnectFailure,omitempty"`
	RetryOn               []string             `json:"RetryOn,omitempty"`
	RetryOnStatusCodes    []uint32             `json:"RetryOnStatusCodes,omitempty"`
	RequestHeaders        *HTTPHeaderModifiers `json:"RequestHeaders,omitempty"`
	ResponseHeaders       *HTTPHeaderModifiers `json:"ResponseHeaders,omitempty"`
}

// HTTPHeaderModifiers are the header changes a proxy makes on the way: Add appends a
// header, Set replaces one, Remove strips one. A nil map and an empty one differ to Consul
// 1.16.0's server (see ServiceSplit), so both are kept as read.
type HTTPHeaderModifiers struct {
	Add    map[string]string `json:"Add,omitempty"`
	Set    map[string]string `json:"Set,omitempty"`
	Remove []string          `json:"Remove,omitempty"`
}

// ServiceName returns the router's service, canonical.
func (r *ServiceRouter) ServiceName() exports.ServiceName {
	return exports.ServiceName{Partition: r.Partition, Namespace: r.Namespace, Name: r.Name}.Canonical()
}

// normalize does what Consul's server does to a router before it validates and stores it:
// the Kind is set, and each route's Methods are upper-cased. Compile works on normalised
// copies; Validate judges the entry as normalised.
func (r *ServiceRouter) normalize() {
	r.Kind = routerKind
	for _, route := range r.Routes {
		if route.Match != nil && route.Match.HTTP != nil {
			for i, m := range route.Match.HTTP.Methods {
				route.Match.HTTP.Methods[i] = strings.ToUpper(m)
			}
		}
	}
}

// destination returns where route sends requests: its service (the router's when it names
// none), namespace and partition (the router's when it names none), canonical, and its
// subset.
func (r *ServiceRouter) destination(route *ServiceRoute) (exports.ServiceName, string) {
	d := route.Destination
	if d == nil {
		return r.ServiceName(), ""
	}
	return exports.ServiceName{Partition: cmp.Or(d.Partition, r.Partition), Namespace: cmp.Or(d.Namespace, r.Namespace), Name: cmp.Or(d.Service, r.Name)}.Canonical(), d.ServiceSubset
}

// Related returns the services Consul's server links the router to — those it reads next
// when it reads the router, and whose writes recompile the router's chain: its own (the
// catch-all route's) and each route destination's (the service, namespace and partition
// the destination names, the router's where it names none), canonical, once each, in route
// order.
func (r *ServiceRouter) Related() []exports.ServiceName {
	out := []exports.ServiceName{r.ServiceName()}
	for i := range r.Routes {
		if r.Routes[i].Destination == nil {
			continue
		}
		if s, _ := r.destination(&r.Routes[i]); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// clone returns a deep copy of r.
func (r *ServiceRouter) clone() ServiceRouter {
	c := *r
	c.Meta, c.Routes = maps.Clone(r.Meta), cloneEach(r.Routes)
	return c
}

// cloneEach returns a deep copy of s: a new slice of its elements' clones.
func cloneEach[T interface{ clone() T }](s []T) []T {
	c := slices.Clone(s)
	for i := range c {
		c[i] = c[i].clone()
	}
	return c
}

// clone returns a deep copy of route.
func (route ServiceRoute) clone() ServiceRoute {
	if m := route.Match; m != nil {
		mc := *m
		if m.HTTP != nil {
			h := *m.HTTP
			h.Header = slices.Clone(h.Header)
			h.QueryParam = slices.Clone(h.QueryParam)
			h.Methods = slices.Clone(h.Methods)
			mc.HTTP = &h
		}
		route.Match = &mc
	}
	if d := route.Destination; d != nil {
		dc := *d
		dc.RetryOn = slices.Clone(d.RetryOn)
		dc.RetryOnStatusCodes = slices.Clone(d.RetryOnStatusCodes)
		dc.RequestHeaders = d.RequestHeaders.clone()
		dc.ResponseHeaders = d.ResponseHeaders.clone()
		route.Destination = &dc
	}
	return route
}

// clone returns a deep copy of m, keeping nil maps nil and empty maps empty; nil stays nil.
func (m *HTTPHeaderModifiers) clone() *HTTPHeaderModifiers {
	if m == nil {
		return nil
	}
	return &HTTPHeaderModifiers{Add: maps.Clone(m.Add), Set: maps.Clone(m.Set), Remove: slices.Clone(m.Remove)}
}

// isZero reports whether m changes nothing: nil, or no Add, Set or Remove.
func (m *HTTPHeaderModifiers) isZero() bool {
	return m == nil || len(m.Add) == 0 && len(m.Set) == 0 && len(m.Remove) == 0
}
