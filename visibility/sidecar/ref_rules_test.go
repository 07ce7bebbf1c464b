package sidecar

import (
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/visibility/inventory"
)

// The literal reference's DestinationRules (step 9 of refSidecarView), as istiod's
// PushContext and SidecarScope take them:
//
//   - the discovered rules, those with a workload selector first, then by creation time,
//     name, namespace; each rule's host resolved as a VirtualService's;
//   - a rule's exportTo is its own list as written (empty when it has none), and ["."] when
//     it has a workload selector;
//   - three pools of merged rules: a namespace's local pool takes its rules exported to it
//     (an empty list, "*", "." or its name); its exported pool takes every rule that is not
//     private only — private only is one entry, "." or its name, or an empty list when the
//     mesh's defaultDestinationRuleExportTo holds "."; the root namespace's private-only
//     rules make a pool of their own;
//   - a rule entering a pool beside rules of its host is merged into each one its exportTo
//     equals, or (then also kept whole) is a strict superset of, unless both have workload
//     selectors that differ; it stays whole too when it merged into none, or when the last
//     one it was held against kept it whole. Merging appends the subsets of names not yet
//     there and takes the traffic policy when there is none yet;
//   - a proxy in n, for a service of namespace s: n's local pool (the root's private pool
//     when n is the root namespace), else the rules of s's exported pool exported to n, else
//     those of the root namespace's exported pool: in each, the rules of the most specific
//     host (exact, else the longest wildcard, the alphabetically first among equally long
//     ones) that covers the service's host;
//   - of those, the first whose workload selector (a rule of n only) the proxy's labels
//     satisfy, else the last one without a selector.

// refRule is a rule in a pool: one rule, or several merged into it.
type refRule struct {
	first    *inventory.DestinationRule
	host     string
	exportTo []string
	from     []string
	subsets  []string
	tp       json.RawMessage
	tpFrom   string
}

type refPool map[string][]*refRule

func refSetEqual(a, b []string) bool {
	return len(a) == len(b) && !slices.ContainsFunc(a, func(x string) bool { return !slices.Contains(b, x) })
}

func refSuperset(a, b []string) bool {
	return !slices.ContainsFunc(b, func(x string) bool { return !slices.Contains(a, x) })
}

// merge is a rule entering a pool, with its exportTo.
func (p refPool) merge(dr *inventory.DestinationRule, host string, exportTo []string) {
	whole := func() *refRule {
		r := &refRule{first: dr, host: host, exportTo: exportTo, from: []string{dr.Namespace + "/" + dr.Name}, tp: dr.TrafficPolicy}
		for _, s := range dr.Subsets {
			r.subsets = append(r.subsets, s.Name)
		}
		if len(dr.TrafficPolicy) > 0 {
			r.tpFrom = r.from[0]
		}
		return r
	}
	list, ok := p[host]
	if !ok {
		p[host] = []*refRule{whole()}
		return
	}
	separately := true
	for _, mr := range list {
		switch {
		case refSetEqual(exportTo, mr.exportTo):
			separately = false
		case len(mr.exportTo) > 0 && refSuperset(exportTo, mr.exportTo):
			separately = true
		default:
			separately = true
			continue
		}
		had, has := mr.first.WorkloadSelector != nil, dr.WorkloadSelector != nil
		same := maps.Equal(mr.first.WorkloadSelector, dr.WorkloadSelector)
		if had && has && !same {
			separately = true
			continue
		}
		if !had && !has || had && has && same {
			separately = false
		}
		mr.from = append(mr.from, dr.Namespace+"/"+dr.Name)
		names := slices.Clone(mr.subsets)
		for _, s := range dr.Subsets {
			if !slices.Contains(names, s.Name) {
				mr.subsets = append(mr.subsets, s.Name)
			}
		}
		if len(mr.tp) == 0 && len(dr.TrafficPolicy) > 0 {
			mr.tp, mr.tpFrom = dr.TrafficPolicy, dr.Namespace+"/"+dr.Name
		}
	}
	if separately {
		p[host] = append(p[host], whole())
	}
}

// rulePools are the local and exported pools of every namespace, and the root namespace's
// private one.
func (v refSidecarView) rulePools() (local, exported map[string]refPool, rootLocal refPool) {
	var drs []*inventory.DestinationRule
	for i := range v.inv.DestinationRules {
		if v.discovered(v.inv.DestinationRules[i].Namespace) {
			drs = append(drs, &v.inv.DestinationRules[i])
		}
	}
	slices.SortStableFunc(drs, func(a, b *inventory.DestinationRule) int {
		if (a.WorkloadSelector != nil) != (b.WorkloadSelector != nil) {
			if a.WorkloadSelector != nil {
				return -1
			}
			return 1
		}
		return cmp.Or(a.CreationTime.Compare(b.CreationTime), strings.Compare(a.Name, b.Name), strings.Compare(a.Namespace, b.Namespace))
	})
	var meshDefault []string
	if v.m != nil {
		meshDefault = v.m.DefaultDestinationRuleExportTo
	}
	local, exported, rootLocal = map[string]refPool{}, map[string]refPool{}, refPool{}
	pool := func(m map[string]refPool, ns string) refPool {
		if m[ns] == nil {
			m[ns] = refPool{}
		}
		return m[ns]
	}
	for _, dr := range drs {
		ns := dr.Namespace
		host := v.resolve(dr.Host, ns)
		exportTo := slices.Clone(dr.ExportTo)
		if dr.WorkloadSelector != nil {
			exportTo = []string{"."}
		}
		if len(exportTo) == 0 || slices.Contains(exportTo, "*") || slices.Contains(exportTo, ".") || slices.Contains(exportTo, ns) {
			pool(local, ns).merge(dr, host, exportTo)
		}
		privateOnly := len(exportTo) == 0 && slices.Contains(meshDefault, ".") ||
			len(exportTo) == 1 && (exportTo[0] == "." || exportTo[0] == ns)
		switch {
		case !privateOnly:
			pool(exported, ns).merge(dr, host, exportTo)
		case ns == v.root():
			rootLocal.merge(dr, host, exportTo)
		}
	}
	return local, exported, rootLocal
}

// mostSpecific is the list of p under the most specific host that covers service host h.
func (p refPool) mostSpecific(h string) ([]*refRule, bool) {
	if list, ok := p[h]; ok {
		return list, true
	}
	needle := h
	if strings.HasPrefix(h, "*") {
		needle = h[1:]
	}
	best := ""
	for k := range p {
		if !strings.HasPrefix(k, "*") || !strings.HasSuffix(needle, k[1:]) {
			continue
		}
		if best == "" || len(k) > len(best) || len(k) == len(best) && k < best {
			best = k
		}
	}
	if best == "" {
		return nil, false
	}
	return p[best], true
}

// refPools are the pools of rules, as rulePools makes them.
type refPools struct {
	local, exported map[string]refPool
	rootLocal       refPool
}

func (v refSidecarView) pools() refPools {
	local, exported, rootLocal := v.rulePools()
	return refPools{local, exported, rootLocal}
}

// rulesFor is the list of rules a proxy in n chooses from for service x.
func (v refSidecarView) rulesFor(p refPools, n string, x refService) []*refRule {
	local, exported, rootLocal := p.local, p.exported, p.rootLocal
	first := rootLocal
	if n != v.root() {
		first = local[n]
	}
	if list, ok := first.mostSpecific(x.host); ok {
		return list
	}
	for _, ns := range []string{x.s.Namespace, v.root()} {
		list, ok := exported[ns].mostSpecific(x.host)
		if !ok {
			continue
		}
		var out []*refRule
		for _, r := range list {
			if len(r.exportTo) == 0 || slices.Contains(r.exportTo, "*") || slices.Contains(r.exportTo, n) {
				out = append(out, r)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// ruleFor is the DestinationRule a proxy in n with the labels workload gets for service x.
func (v refSidecarView) ruleFor(p refPools, n string, workload map[string]string, x refService) *Rule {
	var pick *refRule
	for _, r := range v.rulesFor(p, n, x) {
		sel := r.first.WorkloadSelector
		if sel == nil {
			pick = r
			continue
		}
		if r.first.Namespace == n && labels.SelectorFromSet(sel).Matches(labels.Set(workload)) {
			pick = r
			break
		}
	}
	if pick == nil {
		return nil
	}
	out := &Rule{From: slices.Clone(pick.from), Host: pick.host, Subsets: slices.Clone(pick.subsets), TrafficPolicyFrom: pick.tpFrom}
	if out.Subsets == nil {
		out.Subsets = []string{}
	}
	if len(pick.tp) > 0 {
		out.TrafficPolicy = slices.Clone(pick.tp)
	}
	if pick.first.WorkloadSelector != nil {
		out.WorkloadSelector = maps.Clone(pick.first.WorkloadSelector)
	}
	return out
}
