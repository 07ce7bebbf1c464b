package chain

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/meshscope/meshscope/internal/entryhead"
	"github.com/meshscope/meshscope/internal/strict"
)

// UnmarshalJSON decodes a resolver as Consul does — field names in any case and Consul's
// snake_case aliases (default_subset, only_passing, service_subset, sameness_group,
// connect_timeout, request_timeout, load_balancer, prioritize_by_locality, ring_hash_config,
// least_request_config, hash_policies, minimum_ring_size, maximum_ring_size, choice_count,
// field_value, cookie_config, source_ip), durations as strings like "5s" or as nanoseconds,
// integers exactly — but strictly: an unknown field, a field given twice, or a value of the
// wrong type is an error naming its path, and every problem is reported. It does not
// validate; call Validate.
func (r *ServiceResolver) UnmarshalJSON(b []byte) error {
	return entryhead.Unmarshal(b, r, decodeResolver)
}

var (
	subsetNames = []string{"ServiceSubset", "service_subset"}
	groupNames  = []string{"SamenessGroup", "sameness_group"}
)

func decodeResolver(d *strict.Decoder, x any, path string) ServiceResolver {
	return entryhead.Object(d, x, path, func(o strict.Object) (r ServiceResolver) {
		lb := []string{"LoadBalancer", "load_balancer"}
		pbl := []string{"PrioritizeByLocality", "prioritize_by_locality"}
		ds := []string{"DefaultSubset", "default_subset"}
		ct := []string{"ConnectTimeout", "connect_timeout"}
		rt := []string{"RequestTimeout", "request_timeout"}
		o.Check(entryhead.With(slices.Concat([]string{"Subsets", "Redirect", "Failover"}, lb, pbl, ds, ct, rt)...)...)
		r.setHead(entryhead.Read(d, o))
		o.String(&r.DefaultSubset, ds...)
		if v, p, ok := o.Get("Subsets"); ok {
			r.Subsets = decodeMap(d, v, p, decodeSubset)
		}
		entryhead.Field(d, o, &r.Redirect, decodeRedirect, "Redirect")
		if v, p, ok := o.Get("Failover"); ok {
			r.Failover = decodeMap(d, v, p, decodeFailover)
		}
		entryhead.Field(d, o, &r.ConnectTimeout, decodeDuration, ct...)
		entryhead.Field(d, o, &r.RequestTimeout, decodeDuration, rt...)
		entryhead.Field(d, o, &r.LoadBalancer, decodeLoadBalancer, lb...)
		entryhead.Field(d, o, &r.PrioritizeByLocality, decodePrioritizeByLocality, pbl...)
		return r
	})
}

func decodePrioritizeByLocality(d *strict.Decoder, x any, path string) *PrioritizeByLocality {
	return entryhead.Object(d, x, path, func(o strict.Object) *PrioritizeByLocality {
		o.Check("Mode")
		pl := &PrioritizeByLocality{}
		o.String(&pl.Mode, "Mode")
		return pl
	})
}

// setHead stores what every config entry has (package entryhead reads it).
func (r *ServiceResolver) setHead(h entryhead.Head) {
	r.Kind, r.Name, r.Namespace, r.Partition, r.Meta, r.CreateIndex, r.ModifyIndex = h.Kind, h.Name, h.Namespace, h.Partition, h.Meta, h.CreateIndex, h.ModifyIndex
}

// decodeMap decodes an object whose keys are names (subsets, failover sections), in key
// order; nil when the object is empty or not an object.
func decodeMap[V any](d *strict.Decoder, x any, path string, decode func(*strict.Decoder, any, string) V) map[string]V {
	o, ok := d.Object(x, path)
	if !ok {
		return nil
	}
	m := x.(strict.Fields)
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]V, len(m))
	for _, f := range m.Sorted() {
		out[f.Key] = decode(d, f.Value, strict.Key(o.Path(), f.Key))
	}
	return out
}

func decodeDuration(d *strict.Decoder, x any, path string) time.Duration {
	switch t := x.(type) {
	case string:
		dur, err := time.ParseDuration(t)
		if err != nil {
			d.Fail(path, t, "%q is not a duration such as \"5s\"", t)
		}
		return dur
	case json.Number:
		ns, err := strconv.ParseInt(string(t), 10, 64)
		if err != nil {
			d.Fail(path, t, "%s is not a whole number of nanoseconds up to %d", t, int64(math.MaxInt64))
		}
		return time.Duration(ns)
	}
	d.Fail(path, x, "must be a duration such as \"5s\", got %s", strict.Describe(x))
	return 0
}

func decodeSubset(d *strict.Decoder, x any, path string) Subset {
	return entryhead.Object(d, x, path, func(o strict.Object) (s Subset) {
		op := []string{"OnlyPassing", "only_passing"}
		o.Check(append([]string{"Filter"}, op...)...)
		o.String(&s.Filter, "Filter")
		entryhead.Field(d, o, &s.OnlyPassing, (*strict.Decoder).Bool, op...)
		return s
	})
}

func decodeRedirect(d *strict.Decoder, x any, path string) *Redirect {
	return entryhead.Object(d, x, path, func(o strict.Object) *Redirect {
		o.Check(slices.Concat([]string{"Service", "Namespace", "Partition", "Datacenter", "Peer"}, subsetNames, groupNames)...)
		r := &Redirect{}
		o.String(&r.Service, "Service")
		o.String(&r.ServiceSubset, subsetNames...)
		o.String(&r.Namespace, "Namespace")
		o.String(&r.Partition, "Partition")
		o.String(&r.Datacenter, "Datacenter")
		o.String(&r.Peer, "Peer")
		o.String(&r.SamenessGroup, groupNames...)
		return r
	})
}

func decodeFailover(d *strict.Decoder, x any, path string) Failover {
	return entryhead.Object(d, x, path, func(o strict.Object) (f Failover) {
		o.Check(slices.Concat([]string{"Service", "Namespace", "Datacenters", "Targets", "Policy"}, subsetNames, groupNames)...)
		o.String(&f.Service, "Service")
		o.String(&f.ServiceSubset, subsetNames...)
		o.String(&f.Namespace, "Namespace")
		o.String(&f.SamenessGroup, groupNames...)
		entryhead.Field(d, o, &f.Datacenters, (*strict.Decoder).Strings, "Datacenters")
		f.Targets = entryhead.List(d, o, decodeTarget, "Targets")
		entryhead.Field(d, o, &f.Policy, decodeFailoverPolicy, "Policy")
		return f
	})
}

func decodeFailoverPolicy(d *strict.Decoder, x any, path string) *FailoverPolicy {
	return entryhead.Object(d, x, path, func(o strict.Object) *FailoverPolicy {
		o.Check("Mode", "Regions")
		fp := &FailoverPolicy{}
		o.String(&fp.Mode, "Mode")
		entryhead.Field(d, o, &fp.Regions, (*strict.Decoder).Strings, "Regions")
		return fp
	})
}

func decodeTarget(d *strict.Decoder, x any, path string) FailoverTarget {
	return entryhead.Object(d, x, path, func(o strict.Object) (t FailoverTarget) {
		o.Check(slices.Concat([]string{"Service", "Partition", "Namespace", "Datacenter", "Peer"}, subsetNames)...)
		o.String(&t.Service, "Service")
		o.String(&t.ServiceSubset, subsetNames...)
		o.String(&t.Partition, "Partition")
		o.String(&t.Namespace, "Namespace")
		o.String(&t.Datacenter, "Datacenter")
		o.String(&t.Peer, "Peer")
		return t
	})
}

func decodeLoadBalancer(d *strict.Decoder, x any, path string) *LoadBalancer {
	return entryhead.Object(d, x, path, func(o strict.Object) *LoadBalancer {
		rh := []string{"RingHashConfig", "ring_hash_config"}
		lr := []string{"LeastRequestConfig", "least_request_config"}
		hp := []string{"HashPolicies", "hash_policies"}
		o.Check(slices.Concat([]string{"Policy"}, rh, lr, hp)...)
		lb := &LoadBalancer{}
		o.String(&lb.Policy, "Policy")
		entryhead.Field(d, o, &lb.RingHashConfig, decodeRingHashConfig, rh...)
		entryhead.Field(d, o, &lb.LeastRequestConfig, decodeLeastRequestConfig, lr...)
		lb.HashPolicies = entryhead.List(d, o, decodeHashPolicy, hp...)
		return lb
	})
}

func decodeRingHashConfig(d *strict.Decoder, x any, path string) *RingHashConfig {
	return entryhead.Object(d, x, path, func(o strict.Object) *RingHashConfig {
		minS, maxS := []string{"MinimumRingSize", "minimum_ring_size"}, []string{"MaximumRingSize", "maximum_ring_size"}
		o.Check(append(minS, maxS...)...)
		rh := &RingHashConfig{}
		entryhead.Field(d, o, &rh.MinimumRingSize, (*strict.Decoder).Uint, minS...)
		entryhead.Field(d, o, &rh.MaximumRingSize, (*strict.Decoder).Uint, maxS...)
		return rh
	})
}

func decodeLeastRequestConfig(d *strict.Decoder, x any, path string) *LeastRequestConfig {
	return entryhead.Object(d, x, path, func(o strict.Object) *LeastRequestConfig {
		cc := []string{"ChoiceCount", "choice_count"}
		o.Check(cc...)
		lr := &LeastRequestConfig{}
		if v, p, ok := o.Get(cc...); ok {
			if n, ok := d.Int(v, p, 0, math.MaxUint32); ok {
				lr.ChoiceCount = uint32(n)
			}
		}
		return lr
	})
}

func decodeHashPolicy(d *strict.Decoder, x any, path string) HashPolicy {
	return entryhead.Object(d, x, path, func(o strict.Object) (h HashPolicy) {
		fv := []string{"FieldValue", "field_value"}
		cc := []string{"CookieConfig", "cookie_config"}
		sip := []string{"SourceIP", "source_ip"}
		o.Check(slices.Concat([]string{"Field", "Terminal"}, fv, cc, sip)...)
		o.String(&h.Field, "Field")
		o.String(&h.FieldValue, fv...)
		entryhead.Field(d, o, &h.SourceIP, (*strict.Decoder).Bool, sip...)
		entryhead.Field(d, o, &h.Terminal, (*strict.Decoder).Bool, "Terminal")
		entryhead.Field(d, o, &h.CookieConfig, decodeCookieConfig, cc...)
		return h
	})
}

func decodeCookieConfig(d *strict.Decoder, x any, path string) *CookieConfig {
	return entryhead.Object(d, x, path, func(o strict.Object) *CookieConfig {
		o.Check("Session", "TTL", "Path")
		c := &CookieConfig{}
		entryhead.Field(d, o, &c.Session, (*strict.Decoder).Bool, "Session")
		entryhead.Field(d, o, &c.TTL, decodeDuration, "TTL")
		o.String(&c.Path, "Path")
		return c
	})
}
