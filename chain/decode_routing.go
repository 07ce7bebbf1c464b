package chain

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"

	"github.com/meshscope/meshscope/internal/entryhead"
	"github.com/meshscope/meshscope/internal/strict"
)

// UnmarshalJSON decodes a router as Consul does — field names in any case and Consul's
// snake_case aliases (path_exact, path_prefix, path_regex, query_param, service_subset,
// prefix_rewrite, request_timeout, idle_timeout, num_retries, retry_on_connect_failure,
// retry_on, retry_on_status_codes, request_headers, response_headers), durations as strings
// like "5s" or as nanoseconds — but strictly: an unknown field, a field given twice, or a
// value of the wrong type is an error naming its path, and every problem is reported. It
// keeps the entry as written (Validate and Compile judge it as Consul's server normalises
// it: methods upper-cased) and does not validate; call Validate.
func (r *ServiceRouter) UnmarshalJSON(b []byte) error { return entryhead.Unmarshal(b, r, decodeRouter) }

// UnmarshalJSON decodes a splitter as ServiceRouter.UnmarshalJSON decodes a router (aliases
// service_subset, request_headers, response_headers). A Weight is a number a float32 holds,
// read as Consul reads it, and kept as written (Validate and Compile judge the weights
// rounded, as Consul's server stores them); it does not validate: call Validate.
func (s *ServiceSplitter) UnmarshalJSON(b []byte) error {
	return entryhead.Unmarshal(b, s, decodeSplitter)
}

// setHead stores what every config entry has (package entryhead reads it).
func (r *ServiceRouter) setHead(h entryhead.Head) {
	r.Kind, r.Name, r.Namespace, r.Partition, r.Meta, r.CreateIndex, r.ModifyIndex = h.Kind, h.Name, h.Namespace, h.Partition, h.Meta, h.CreateIndex, h.ModifyIndex
}

// setHead stores what every config entry has (package entryhead reads it).
func (s *ServiceSplitter) setHead(h entryhead.Head) {
	s.Kind, s.Name, s.Namespace, s.Partition, s.Meta, s.CreateIndex, s.ModifyIndex = h.Kind, h.Name, h.Namespace, h.Partition, h.Meta, h.CreateIndex, h.ModifyIndex
}

func decodeRouter(d *strict.Decoder, x any, path string) ServiceRouter {
	return entryhead.Object(d, x, path, func(o strict.Object) (r ServiceRouter) {
		o.Check(entryhead.With("Routes")...)
		r.setHead(entryhead.Read(d, o))
		r.Routes = entryhead.List(d, o, decodeRoute, "Routes")
		return r
	})
}

func decodeRoute(d *strict.Decoder, x any, path string) ServiceRoute {
	return entryhead.Object(d, x, path, func(o strict.Object) (route ServiceRoute) {
		o.Check("Match", "Destination")
		entryhead.Field(d, o, &route.Match, decodeMatch, "Match")
		entryhead.Field(d, o, &route.Destination, decodeDestination, "Destination")
		return route
	})
}

func decodeMatch(d *strict.Decoder, x any, path string) *ServiceRouteMatch {
	return entryhead.Object(d, x, path, func(o strict.Object) *ServiceRouteMatch {
		o.Check("HTTP")
		m := &ServiceRouteMatch{}
		entryhead.Field(d, o, &m.HTTP, decodeHTTPMatch, "HTTP")
		return m
	})
}

func decodeHTTPMatch(d *strict.Decoder, x any, path string) *ServiceRouteHTTPMatch {
	return entryhead.Object(d, x, path, func(o strict.Object) *ServiceRouteHTTPMatch {
		pe, pp, pr := []string{"PathExact", "path_exact"}, []string{"PathPrefix", "path_prefix"}, []string{"PathRegex", "path_regex"}
		qp := []string{"QueryParam", "query_param"}
		o.Check(slices.Concat(pe, pp, pr, qp, []string{"Header", "Methods"})...)
		m := &ServiceRouteHTTPMatch{}
		o.String(&m.PathExact, pe...)
		o.String(&m.PathPrefix, pp...)
		o.String(&m.PathRegex, pr...)
		if v, p, ok := o.Get("Header"); ok {
			for i, item := range d.List(v, p) {
				ho, ok := d.Object(item, strict.Index(p, i))
				if !ok {
					continue
				}
				ho.Check("Name", "Present", "Exact", "Prefix", "Suffix", "Regex", "Invert")
				var h ServiceRouteHTTPMatchHeader
				ho.String(&h.Name, "Name")
				ho.String(&h.Exact, "Exact")
				ho.String(&h.Prefix, "Prefix")
				ho.String(&h.Suffix, "Suffix")
				ho.String(&h.Regex, "Regex")
				entryhead.Field(d, ho, &h.Present, (*strict.Decoder).Bool, "Present")
				entryhead.Field(d, ho, &h.Invert, (*strict.Decoder).Bool, "Invert")
				m.Header = append(m.Header, h)
			}
		}
		if v, p, ok := o.Get(qp...); ok {
			for i, item := range d.List(v, p) {
				qo, ok := d.Object(item, strict.Index(p, i))
				if !ok {
					continue
				}
				qo.Check("Name", "Present", "Exact", "Regex")
				var q ServiceRouteHTTPMatchQueryParam
				qo.String(&q.Name, "Name")
				qo.String(&q.Exact, "Exact")
				qo.String(&q.Regex, "Regex")
				entryhead.Field(d, qo, &q.Present, (*strict.Decoder).Bool, "Present")
				m.QueryParam = append(m.QueryParam, q)
			}
		}
		entryhead.Field(d, o, &m.Methods, (*strict.Decoder).Strings, "Methods")
		return m
	})
}

func decodeDestination(d *strict.Decoder, x any, path string) *ServiceRouteDestination {
	return entryhead.Object(d, x, path, func(o strict.Object) *ServiceRouteDestination {
		pr := []string{"PrefixRewrite", "prefix_rewrite"}
		rt, it := []string{"RequestTimeout", "request_timeout"}, []string{"IdleTimeout", "idle_timeout"}
		nr, rcf := []string{"NumRetries", "num_retries"}, []string{"RetryOnConnectFailure", "retry_on_connect_failure"}
		ro, rsc := []string{"RetryOn", "retry_on"}, []string{"RetryOnStatusCodes", "retry_on_status_codes"}
		rq, rs := []string{"RequestHeaders", "request_headers"}, []string{"ResponseHeaders", "response_headers"}
		o.Check(slices.Concat([]string{"Service", "Namespace", "Partition"}, subsetNames, pr, rt, it, nr, rcf, ro, rsc, rq, rs)...)
		dst := &ServiceRouteDestination{}
		o.String(&dst.Service, "Service")
		o.String(&dst.ServiceSubset, subsetNames...)
		o.String(&dst.Namespace, "Namespace")
		o.String(&dst.Partition, "Partition")
		o.String(&dst.PrefixRewrite, pr...)
		entryhead.Field(d, o, &dst.RequestTimeout, decodeDuration, rt...)
		entryhead.Field(d, o, &dst.IdleTimeout, decodeDuration, it...)
		if v, p, ok := o.Get(nr...); ok {
			if n, ok := d.Int(v, p, 0, math.MaxUint32); ok {
				dst.NumRetries = uint32(n)
			}
		}
		entryhead.Field(d, o, &dst.RetryOnConnectFailure, (*strict.Decoder).Bool, rcf...)
		entryhead.Field(d, o, &dst.RetryOn, (*strict.Decoder).Strings, ro...)
		if v, p, ok := o.Get(rsc...); ok {
			for i, item := range d.List(v, p) {
				if n, ok := d.Int(item, strict.Index(p, i), 0, math.MaxUint32); ok {
					dst.RetryOnStatusCodes = append(dst.RetryOnStatusCodes, uint32(n))
				}
			}
		}
		entryhead.Field(d, o, &dst.RequestHeaders, decodeHeaders, rq...)
		entryhead.Field(d, o, &dst.ResponseHeaders, decodeHeaders, rs...)
		return dst
	})
}

// decodeHeaders reads header modifiers; an empty Add or Set object stays an empty map,
// distinct from an absent one, as it is to Consul.
func decodeHeaders(d *strict.Decoder, x any, path string) *HTTPHeaderModifiers {
	return entryhead.Object(d, x, path, func(o strict.Object) *HTTPHeaderModifiers {
		o.Check("Add", "Set", "Remove")
		h := &HTTPHeaderModifiers{}
		entryhead.Field(d, o, &h.Add, (*strict.Decoder).StringMap, "Add")
		entryhead.Field(d, o, &h.Set, (*strict.Decoder).StringMap, "Set")
		entryhead.Field(d, o, &h.Remove, (*strict.Decoder).Strings, "Remove")
		return h
	})
}

func decodeSplitter(d *strict.Decoder, x any, path string) ServiceSplitter {
	return entryhead.Object(d, x, path, func(o strict.Object) (s ServiceSplitter) {
		o.Check(entryhead.With("Splits")...)
		s.setHead(entryhead.Read(d, o))
		s.Splits = entryhead.List(d, o, decodeSplit, "Splits")
		return s
	})
}

func decodeSplit(d *strict.Decoder, x any, path string) ServiceSplit {
	return entryhead.Object(d, x, path, func(o strict.Object) (split ServiceSplit) {
		rq, rs := []string{"RequestHeaders", "request_headers"}, []string{"ResponseHeaders", "response_headers"}
		o.Check(slices.Concat([]string{"Weight", "Service", "Namespace", "Partition"}, subsetNames, rq, rs)...)
		entryhead.Field(d, o, &split.Weight, decodeWeight, "Weight")
		o.String(&split.Service, "Service")
		o.String(&split.ServiceSubset, subsetNames...)
		o.String(&split.Namespace, "Namespace")
		o.String(&split.Partition, "Partition")
		entryhead.Field(d, o, &split.RequestHeaders, decodeHeaders, rq...)
		entryhead.Field(d, o, &split.ResponseHeaders, decodeHeaders, rs...)
		return split
	})
}

// decodeWeight reads a weight as a float32, as Consul's decoder does: the number as a
// float64, then converted. A number a float32 does not hold (beyond ±3.4e38) is refused.
func decodeWeight(d *strict.Decoder, x any, path string) float32 {
	n, ok := x.(json.Number)
	if !ok {
		d.Fail(path, x, "must be a number, got %s", strict.Describe(x))
		return 0
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.Abs(f) > math.MaxFloat32 {
		d.Fail(path, n, "the number %s is out of range for a weight", n)
		return 0
	}
	return float32(f)
}
