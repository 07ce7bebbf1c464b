package inventory

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/kube"
	"github.com/meshscope/meshscope/internal/strict"
)

// virtualService reads a VirtualService: its hosts, gateways, exportTo and routes, refusing
// what Istio's validation refuses of them (see routing_check.go).
func (l *inventoryLoader) virtualService(o kube.Object) []error {
	var r routingReader
	ns, name, created, ok := readNamed(&r.d, o, "VirtualServices")
	vs := VirtualService{Namespace: ns, Name: name, CreationTime: created}
	var mirrors []bool // mirrors[r]: spec.http[r] has a list of mirrors that is not empty
	if spec, _ := r.d.Object(o.Fields.Value("spec"), "spec"); ok {
		vs.Hosts = optStrings(&r.d, spec, "hosts")
		vs.Gateways = optStrings(&r.d, spec, "gateways")
		vs.ExportTo = optStrings(&r.d, spec, "exportTo")
		if v, p, ok := spec.Get("http"); ok {
			for i, item := range r.d.List(v, p) {
				h, m := r.httpRoute(item, strict.Index(p, i))
				vs.HTTP = append(vs.HTTP, h)
				mirrors = append(mirrors, m)
			}
		}
		vs.TLS = r.l4Routes(spec, "tls")
		vs.TCP = r.l4Routes(spec, "tcp")
	}
	problems := r.problems(ok, func(errs []*FieldError) []*FieldError { return checkVirtualService(errs, objectSpec, &vs, mirrors) })
	if len(problems) > 0 {
		return problems
	}
	if err := l.firstOfItsName("VirtualService", ns, name); err != nil {
		return []error{err}
	}
	l.inv.VirtualServices = append(l.inv.VirtualServices, vs)
	return nil
}

// destinationRule reads a DestinationRule: its host, exportTo, workload selector, subsets
// and traffic policies, refusing what Istio's validation refuses of them but for the traffic
// policies, which are kept as written.
func (l *inventoryLoader) destinationRule(o kube.Object) []error {
	var r routingReader
	d := &r.d
	ns, name, created, ok := readNamed(d, o, "DestinationRules")
	dr := DestinationRule{Namespace: ns, Name: name, CreationTime: created}
	if spec, _ := d.Object(o.Fields.Value("spec"), "spec"); ok {
		spec.String(&dr.Host, "host")
		dr.ExportTo = optStrings(d, spec, "exportTo")
		if v, p, ok := spec.Get("workloadSelector"); ok {
			if so, ok := d.Object(v, p); ok {
				dr.WorkloadSelector = map[string]string{} // a selector without labels is a selector
				if v, p, ok := so.Get("matchLabels"); ok {
					if m := d.StringMap(v, p); m != nil {
						dr.WorkloadSelector = m
					}
				}
			}
		}
		if v, p, ok := spec.Get("subsets"); ok {
			for i, item := range d.List(v, p) {
				at := strict.Index(p, i)
				so, ok := d.Object(item, at)
				if !ok {
					if item == nil {
						r.refuse(at, nil, "subset may not be null")
					}
					r.skipped = true
					continue
				}
				var s Subset
				so.String(&s.Name, "name")
				if v, p, ok := so.Get("labels"); ok {
					s.Labels = d.StringMap(v, p)
				}
				if v, p, ok := so.Get("trafficPolicy"); ok {
					s.TrafficPolicy = rawObject(d, v, p)
				}
				dr.Subsets = append(dr.Subsets, s)
			}
		}
		if v, p, ok := spec.Get("trafficPolicy"); ok {
			dr.TrafficPolicy = rawObject(d, v, p)
		}
	}
	problems := r.problems(ok, func(errs []*FieldError) []*FieldError {
		return checkDestinationRule(errs, objectSpec, &dr)
	})
	if len(problems) > 0 {
		return problems
	}
	if err := l.firstOfItsName("DestinationRule", ns, name); err != nil {
		return []error{err}
	}
	l.inv.DestinationRules = append(l.inv.DestinationRules, dr)
	return nil
}

// routingReader reads a VirtualService or a DestinationRule, keeping apart the problems of
// the object's shape (a value of the wrong type, an item left out of a list) and what
// Istio's validation refuses in a value the Go type cannot hold (an empty prefix, a port
// object without a number). Istio's rules are checked on the value read (routing_check.go)
// unless its shape was wrong: a value read in part would have problems that are not the
// object's.
type routingReader struct {
	d     strict.Decoder
	istio []error
	// skipped says an item was left out of a list, so that the value's indexes are not the
	// object's.
	skipped bool
}

// refuse records what Istio's validation refuses, at path.
func (r *routingReader) refuse(path string, value any, format string, args ...any) {
	r.istio = append(r.istio, fielderr.New(path, value, fmt.Sprintf(format, args...), nil))
}

// problems returns every problem of the object: its shape's, those found reading it, and,
// when it read whole (named is false when it has no namespace or name), what check finds.
func (r *routingReader) problems(named bool, check func([]*FieldError) []*FieldError) []error {
	errs := append(r.d.Errs(), r.istio...)
	if len(r.d.Errs()) == 0 && !r.skipped && named {
		for _, p := range check(nil) {
			errs = append(errs, p)
		}
	}
	return errs
}

// readNamed reads what VirtualServices and DestinationRules share: the apiVersion (one Istio
// serves the kind in; plural names the kind in a message), namespace, name and creation
// time. ok is false when the namespace or the name is missing.
func readNamed(d *strict.Decoder, o kube.Object, plural string) (ns, name string, created time.Time, ok bool) {
	checkNetworkingVersion(d, o, plural)
	m := readMeta(d, o)
	if !m.named(d) {
		return m.namespace, m.name, created, false
	}
	m.checkNames(d)
	return m.namespace, m.name, m.created(d), true
}

// firstOfItsName refuses a second object of a kind (a ServiceEntry, a Service, a Sidecar,
// a VirtualService, a DestinationRule) with one namespace and name, naming the first:
// which one counts would depend on document order.
func (l *inventoryLoader) firstOfItsName(kind, ns, name string) error {
	key := namedKey{kind, ns, name}
	if first, dup := l.named[key]; dup {
		return &FieldError{Field: "metadata.name", Value: name, Err: ErrDuplicate,
			Detail: fmt.Sprintf("a second %s %s/%s (the first is %s); which one applies would depend on document order", kind, ns, name, cmp.Or(l.objects[first].Where(), "the object"))}
	}
	l.named[key] = l.current
	return nil
}

// optStrings reads spec.<field>, when present, as a list of strings.
func optStrings(d *strict.Decoder, spec strict.Object, field string) []string {
	if v, p, ok := spec.Get(field); ok {
		return d.Strings(v, p)
	}
	return nil
}

// httpRoute reads spec.http[i] at path; mirrors says that it has mirrors (a list that is
// not empty, even when an entry of it is refused).
func (r *routingReader) httpRoute(x any, path string) (h HTTPRoute, mirrors bool) {
	d := &r.d
	o, ok := d.Object(x, path)
	if !ok {
		if x == nil {
			r.refuse(path, nil, "http route may not be null")
		}
		return h, false
	}
	o.String(&h.Name, "name")
	if v, p, ok := o.Get("match"); ok {
		for i, item := range d.List(v, p) {
			h.Match = append(h.Match, r.httpMatch(item, strict.Index(p, i)))
		}
	}
	h.Route = r.routeDestinations(o)
	if v, p, ok := o.Get("mirror"); ok {
		if dst, ok := r.destination(v, p); ok {
			h.Mirror = &dst
		}
	}
	if v, p, ok := o.Get("mirrors"); ok {
		list := d.List(v, p)
		mirrors = len(list) > 0
		h.Mirrors = r.destinations(list, p, "mirror cannot be null", "destination is required for mirrors", false)
	}
	if v, p, ok := o.Get("delegate"); ok {
		if do, ok := d.Object(v, p); ok {
			h.Delegate = &Delegate{}
			do.String(&h.Delegate.Name, "name")
			do.String(&h.Delegate.Namespace, "namespace")
		}
	}
	return h, mirrors
}

// routeDestinations reads the route list of an HTTP, TLS or TCP route: each item's
// destination and weight.
func (r *routingReader) routeDestinations(o strict.Object) []Destination {
	v, p, ok := o.Get("route")
	if !ok {
		return nil
	}
	return r.destinations(r.d.List(v, p), p, "weight may not be nil", "destination is required", true)
}

// destinations reads the items of the list at path — a route's (weighted) or an HTTP
// route's mirrors — each an object with a destination, refusing a null item and an item
// without a destination in Istio's words for the list (null, noDestination). An item that
// is refused is skipped.
func (r *routingReader) destinations(list []any, path, null, noDestination string, weighted bool) []Destination {
	d := &r.d
	var out []Destination
	for i, item := range list {
		at := strict.Index(path, i)
		io, ok := d.Object(item, at)
		if !ok {
			if item == nil {
				r.refuse(at, nil, "%s", null)
			}
			r.skipped = true
			continue
		}
		v, dp, ok := io.Get("destination")
		if !ok {
			r.refuse(at, nil, "%s", noDestination)
			r.skipped = true
			continue
		}
		dst, ok := r.destination(v, dp)
		if !ok {
			r.skipped = true
			continue
		}
		if weighted {
			if v, wp, ok := io.Get("weight"); ok {
				w, _ := d.Int(v, wp, math.MinInt32, math.MaxInt32)
				dst.Weight = int32(w)
			}
		}
		out = append(out, dst)
	}
	return out
}

// destination reads a destination object at path: host, subset and port.number. A port
// without a number is port 0, which Istio refuses.
func (r *routingReader) destination(x any, path string) (Destination, bool) {
	var dst Destination
	o, ok := r.d.Object(x, path)
	if !ok {
		return dst, false
	}
	o.String(&dst.Host, "host")
	o.String(&dst.Subset, "subset")
	if v, p, ok := o.Get("port"); ok {
		if po, ok := r.d.Object(v, p); ok {
			n, np := uint64(0), p
			if v, p, ok := po.Get("number"); ok {
				n, np = r.d.Uint(v, p), p
			}
			if n == 0 || n > math.MaxUint32 {
				r.refuse(np, n, "%s", portProblem(n))
			} else {
				dst.Port = uint32(n)
			}
		}
	}
	return dst, true
}

// httpMatch reads spec.http[r].match[m] at path.
func (r *routingReader) httpMatch(x any, path string) HTTPMatch {
	d := &r.d
	var m HTTPMatch
	o, ok := d.Object(x, path)
	if !ok {
		if x == nil {
			d.Errorf(path, "a match may not be null")
		}
		return m
	}
	o.String(&m.Name, "name")
	o.String(&m.SourceNamespace, "sourceNamespace")
	var stat string
	o.String(&stat, "statPrefix")
	for _, sm := range []struct {
		key string
		dst **StringMatch
	}{{"uri", &m.URI}, {"scheme", &m.Scheme}, {"method", &m.Method}, {"authority", &m.Authority}} {
		if v, p, ok := o.Get(sm.key); ok {
			if s, ok := r.stringMatch(v, p, sm.key, false); ok {
				*sm.dst = &s
			}
		}
	}
	m.Headers = r.stringMatches(o, "headers")
	m.WithoutHeaders = r.stringMatches(o, "withoutHeaders")
	m.QueryParams = r.stringMatches(o, "queryParams")
	if v, p, ok := o.Get("ignoreUriCase"); ok {
		m.IgnoreURICase = d.Bool(v, p)
	}
	if v, p, ok := o.Get("port"); ok {
		if n := d.Uint(v, p); n <= math.MaxUint32 {
			m.Port = uint32(n)
		} else {
			r.refuse(p, n, "%s", portProblem(n))
		}
	}
	if v, p, ok := o.Get("sourceLabels"); ok {
		m.SourceLabels = d.StringMap(v, p)
	}
	if v, p, ok := o.Get("gateways"); ok {
		m.Gateways = d.Strings(v, p)
	}
	return m
}

// stringMatches reads the map of string matches at the field key of a match (headers,
// withoutHeaders, queryParams). Istio refuses a null header match; the others it reads as
// matching nothing in particular.
func (r *routingReader) stringMatches(o strict.Object, key string) map[string]StringMatch {
	v, p, ok := o.Get(key)
	if !ok {
		return nil
	}
	if _, ok := r.d.Object(v, p); !ok {
		return nil
	}
	fs := v.(strict.Fields) // d.Object read it as one
	out := make(map[string]StringMatch, len(fs))
	for _, f := range fs {
		at := strict.Key(p, f.Key)
		if f.Value == nil {
			if key == "headers" {
				r.refuse(at, nil, "header match %v cannot be null", f.Key)
			}
			out[f.Key] = StringMatch{}
			continue
		}
		if s, ok := r.stringMatch(f.Value, at, key, true); ok {
			out[f.Key] = s
		}
	}
	return out
}

// stringMatch reads a StringMatch at path: one of exact, prefix or regex. where names it in
// Istio's words ("uri", "headers"): an empty prefix is refused but for a uri, an empty regex
// always. unknown says the object's fields are checked here (a map's values, which the
// schema does not describe).
func (r *routingReader) stringMatch(x any, path, where string, unknown bool) (StringMatch, bool) {
	var s StringMatch
	o, ok := r.d.Object(x, path)
	if !ok {
		return s, false
	}
	if unknown {
		o.Check("exact", "prefix", "regex")
	}
	var set []string // the fields given, not null
	for _, k := range []struct {
		key string
		dst *string
	}{{"exact", &s.Exact}, {"prefix", &s.Prefix}, {"regex", &s.Regex}} {
		if v, p, ok := o.Get(k.key); ok {
			set = append(set, k.key)
			*k.dst = r.d.String(v, p)
		}
	}
	switch {
	case len(set) > 1:
		r.d.Errorf(path, "%s are one of exact, prefix and regex: only one may be set", strings.Join(set, " and "))
	case len(set) == 0:
	case set[0] == "prefix" && s.Prefix == "" && where != "uri":
		r.refuse(path+".prefix", "", "%q: prefix string match should not be empty", where)
	case set[0] == "regex" && s.Regex == "":
		r.refuse(path+".regex", "", "%q: regex string match should not be empty", where)
	}
	return s, true
}

// l4Routes reads spec.tls or spec.tcp: each route's destinations.
func (r *routingReader) l4Routes(spec strict.Object, key string) []L4Route {
	v, p, ok := spec.Get(key)
	if !ok {
		return nil
	}
	var out []L4Route
	for i, item := range r.d.List(v, p) {
		at := strict.Index(p, i)
		o, ok := r.d.Object(item, at)
		if !ok {
			if item == nil {
				r.d.Errorf(at, "a %s route may not be null", key)
			}
			out = append(out, L4Route{})
			continue
		}
		out = append(out, L4Route{Route: r.routeDestinations(o)})
	}
	return out
}

// rawObject keeps an object as written, as JSON.
func rawObject(d *strict.Decoder, x any, path string) json.RawMessage {
	if _, ok := d.Object(x, path); !ok {
		return nil
	}
	return appendJSON(nil, x)
}
