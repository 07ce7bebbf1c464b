package chain

import (
	"cmp"
	"maps"
	"math"
	"slices"

	"github.com/meshscope/meshscope/exports"
)

// ServiceSplitter is a Consul service-splitter config entry: how the requests for the
// service Name are shared among services and subsets, by weight. A split to another service
// that has a splitter of its own goes through that splitter (splitters nest); the chain
// holds them flattened. Field names and JSON are Consul's, so `consul config read -kind
// service-splitter` output unmarshals directly (see UnmarshalJSON).
type ServiceSplitter struct {
	Kind        string            `json:"Kind,omitempty"`
	Name        string            `json:"Name"`
	Namespace   string            `json:"Namespace,omitempty"`
	Partition   string            `json:"Partition,omitempty"`
	Splits      []ServiceSplit    `json:"Splits,omitempty"`
	Meta        map[string]string `json:"Meta,omitempty"`
	CreateIndex uint64            `json:"CreateIndex,omitempty"`
	ModifyIndex uint64            `json:"ModifyIndex,omitempty"`
}

// ServiceSplit is one share of a splitter's requests: Weight percent of them go to Service
// (empty: the splitter's) and ServiceSubset, in Namespace and Partition (empty: the
// splitter's), with the header changes a proxy makes on the way. Weights are rounded to
// 0.01 as Consul rounds them — in hundredths of a percent, half away from zero, computed in
// float32 as Consul computes it (99.999 is 100, 0.001 is 0, 33.335 is 33.34) — and the
// rounded weights of a splitter must sum to exactly 100.
type ServiceSplit struct {
	Weight          float32              `json:"Weight"`
	Service         string               `json:"Service,omitempty"`
	ServiceSubset   string               `json:"ServiceSubset,omitempty"`
	Namespace       string               `json:"Namespace,omitempty"`
	Partition       string               `json:"Partition,omitempty"`
	RequestHeaders  *HTTPHeaderModifiers `json:"RequestHeaders,omitempty"`
	ResponseHeaders *HTTPHeaderModifiers `json:"ResponseHeaders,omitempty"`
}

// ServiceName returns the splitter's service, canonical.
func (s *ServiceSplitter) ServiceName() exports.ServiceName {
	return exports.ServiceName{Partition: s.Partition, Namespace: s.Namespace, Name: s.Name}.Canonical()
}

// normalize does what Consul's server does to a splitter before it validates and stores it:
// the Kind is set and every weight is rounded (see ServiceSplit). Compile works on normalised
// copies.
func (s *ServiceSplitter) normalize() {
	s.Kind = splitterKind
	for i := range s.Splits {
		s.Splits[i].Weight = roundWeight(s.Splits[i].Weight)
	}
}

// roundWeight rounds a split weight to 0.01 as Consul does (see ServiceSplit).
func roundWeight(w float32) float32 { return float32(scaledWeight(w)) / 100 }

// scaledWeight is w in hundredths, rounded, as Consul scales a weight.
func scaledWeight(w float32) int { return int(math.Round(float64(w * 100))) }

// service returns where split sends requests: its service (the splitter's when it names
// none), namespace and partition (the splitter's when it names none), canonical.
func (s *ServiceSplitter) service(split *ServiceSplit) exports.ServiceName {
	return exports.ServiceName{Partition: cmp.Or(split.Partition, s.Partition), Namespace: cmp.Or(split.Namespace, s.Namespace), Name: cmp.Or(split.Service, s.Name)}.Canonical()
}

// Related returns the services Consul's server links the splitter to — those it reads next
// when it reads the splitter, and whose writes recompile the splitter's chain: each split's
// service (the service, namespace and partition the split names, the splitter's where it
// names none) other than the splitter's own, canonical, once each, in split order.
func (s *ServiceSplitter) Related() []exports.ServiceName {
	own := s.ServiceName()
	var out []exports.ServiceName
	for i := range s.Splits {
		if t := s.service(&s.Splits[i]); t != own && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// clone returns a deep copy of s.
func (s *ServiceSplitter) clone() ServiceSplitter {
	c := *s
	c.Meta, c.Splits = maps.Clone(s.Meta), cloneEach(s.Splits)
	return c
}

// clone returns a deep copy of split.
func (split ServiceSplit) clone() ServiceSplit {
	split.RequestHeaders = split.RequestHeaders.clone()
	split.ResponseHeaders = split.ResponseHeaders.clone()
	return split
}

// underParent returns split as it is once the parent split, which sent requests to split's
// splitter, is flattened into it: the parent's request header changes first, then split's
// (split's win); the response's the other way round (the parent's win, as a response passes
// the parent last). panics reports whether Consul 1.16.0 panics on this merge: it merges into
// a copy of the first side's maps, and a first side with header changes whose Add (or Set)
// map is nil, merged with a second side that adds (or sets) headers, writes into a nil map.
func (split ServiceSplit) underParent(parent *ServiceSplit) (merged ServiceSplit, panics bool) {
	merged = split
	var p1, p2 bool
	merged.RequestHeaders, p1 = mergeHeaders(parent.RequestHeaders, split.RequestHeaders)
	merged.ResponseHeaders, p2 = mergeHeaders(split.ResponseHeaders, parent.ResponseHeaders)
	return merged, p1 || p2
}

// mergeHeaders returns the header changes of first followed by those of second (second's
// Add and Set win on a name; a Remove first has is not repeated), as new values: nil when
// both are unset. panics is Consul 1.16.0's panic (see underParent).
func mergeHeaders(first, second *HTTPHeaderModifiers) (merged *HTTPHeaderModifiers, panics bool) {
	if first.isZero() {
		return second.clone(), false
	}
	merged = first.clone()
	if second.isZero() {
		return merged, false
	}
	panics = merged.Add == nil && len(second.Add) > 0 || merged.Set == nil && len(second.Set) > 0
	merged.Add = putAll(merged.Add, second.Add)
	merged.Set = putAll(merged.Set, second.Set)
	removed := make(map[string]bool, len(merged.Remove))
	for _, k := range merged.Remove {
		removed[k] = true
	}
	for _, k := range second.Remove {
		if !removed[k] { // as Consul: a name second removes twice is listed twice
			merged.Remove = append(merged.Remove, k)
		}
	}
	return merged, panics
}

// putAll copies src into dst, making dst when it is nil and src is not empty.
func putAll(dst, src map[string]string) map[string]string {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = make(map[string]string, len(src))
	}
	maps.Copy(dst, src)
	return dst
}
