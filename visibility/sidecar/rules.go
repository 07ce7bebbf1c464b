package sidecar

import (
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/exportto"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// Rule is the DestinationRule a proxy gets for a host: one rule, or several of one namespace
// merged as istiod merges them.
type Rule struct {
	// From are the rules ("namespace/name") merged into it, in merge order: the first is the
	// one whose workload selector, exportTo and host the merged rule keeps.
	From []string `json:"from"`
	// Host is the merged rule's host, short names resolved as Istio resolves them.
	Host string `json:"host"`
	// Subsets are the subsets' names, merged in order: a later rule's subset of a name the
	// merged rule already has is dropped.
	Subsets []string `json:"subsets"`
	// TrafficPolicy is the merged rule's top-level traffic policy (JSON, as written), and
	// TrafficPolicyFrom the rule it comes from: the first of From that has one.
	TrafficPolicy     json.RawMessage `json:"trafficPolicy,omitempty"`
	TrafficPolicyFrom string          `json:"trafficPolicyFrom,omitempty"`
	// WorkloadSelector is the first rule's: the merged rule applies only to the proxies of
	// its namespace carrying these labels. nil: every proxy it is exported to.
	WorkloadSelector map[string]string `json:"workloadSelector,omitempty"`
}

// destRule is a DestinationRule as the view reads it.
type destRule struct {
	ref  string
	dr   *inventory.DestinationRule
	host string // resolved
	// exportTo is the set istiod keys it on when it merges rules: the declared exportTo, or
	// ["."] for a rule with a workload selector; empty: none declared.
	exportTo []string
	// exp is the exportTo it goes by (see exportto.RuleListOf).
	exp exportto.Set
}

// mergedRule is a rule as istiod keeps it after merging (its ConsolidatedDestRule).
type mergedRule struct {
	first    int32    // the rule whose selector, exportTo and host it keeps
	exportTo []string // the first rule's merge key
	exp      exportto.Set
	from     []int32
	subsets  []string
	policy   int32 // the rule whose traffic policy it has; -1: none
}

// ruleSet is the merged rules of one pool, by host: exact hosts and wildcards apart.
type ruleSet struct {
	specific, wildcard map[string][]*mergedRule
}

func newRuleSet() *ruleSet {
	return &ruleSet{specific: map[string][]*mergedRule{}, wildcard: map[string][]*mergedRule{}}
}

// readDestinationRules indexes the discovered DestinationRules as istiod does: ordered with
// the workload-selected ones first, then by creation time, name and namespace, each merged
// into the pool of its namespace (when exported to it: "*", "." or its name, or none
// declared), into its namespace's exported pool unless it is private (only "." or its own
// namespace; or none declared while the mesh default holds "."), and — private and in the
// root namespace — into the root's private pool.
func (v *View) readDestinationRules(list []inventory.DestinationRule, meshDefault []string) {
	v.drHosts = make(map[string]bool, len(list))
	for i := range list {
		dr := &list[i]
		if !v.Discovered(dr.Namespace) {
			v.undiscDR = append(v.undiscDR, dr)
			continue
		}
		r := destRule{ref: dr.Namespace + "/" + dr.Name, dr: dr, host: resolveHost(dr.Host, dr.Namespace, v.domain)}
		if dr.WorkloadSelector != nil {
			r.exportTo = []string{"."}
		} else {
			for _, e := range dr.ExportTo {
				if !slices.Contains(r.exportTo, e) {
					r.exportTo = append(r.exportTo, e)
				}
			}
		}
		r.exp = exportto.Parse(exportto.RuleListOf(dr.ExportTo, meshDefault, dr.WorkloadSelector != nil), dr.Namespace)
		v.drs = append(v.drs, r)
		if isWildcard(r.host) {
			v.drWild = true
		} else {
			v.drHosts[r.host] = true
		}
	}
	slices.SortFunc(v.drs, func(a, b destRule) int { return compareRules(a.dr, b.dr) })
	slices.SortFunc(v.undiscDR, compareRules)
	v.drLocal, v.drExported, v.drRoot = map[string]*ruleSet{}, map[string]*ruleSet{}, newRuleSet()
	for k := range v.drs {
		r := &v.drs[k]
		ns := r.dr.Namespace
		if r.exp.To(ns) {
			v.merge(poolOf(v.drLocal, ns), int32(k))
		}
		switch {
		case !r.exp.OwnOnly():
			v.merge(poolOf(v.drExported, ns), int32(k))
		case ns == v.root:
			v.merge(v.drRoot, int32(k))
		}
	}
}

// compareRules orders DestinationRules as istiod does: those with a workload selector first,
// then by creation time, name, namespace.
func compareRules(a, b *inventory.DestinationRule) int {
	return cmp.Or(cmp.Compare(b2i(a.WorkloadSelector == nil), b2i(b.WorkloadSelector == nil)),
		a.CreationTime.Compare(b.CreationTime), strings.Compare(a.Name, b.Name), strings.Compare(a.Namespace, b.Namespace))
}

func poolOf(m map[string]*ruleSet, ns string) *ruleSet {
	p := m[ns]
	if p == nil {
		p = newRuleSet()
		m[ns] = p
	}
	return p
}

// merge adds rule k to a pool as istiod's (enhanced) merge does. For each rule already
// there for the same host, in order: one with an equal exportTo takes k's subsets (of new
// names) and, if it has none, k's traffic policy; one whose exportTo k's strictly contains
// takes them too, and k also stays whole; with another exportTo k stays whole. Two
// workload-selected rules merge only when their selectors are equal; when only one of the
// two has a selector they merge (if their exportTo allows) and k stays whole only when its
// exportTo contains the other's. Both without a selector, or with equal ones, k does not
// stay whole beside that rule.
func (v *View) merge(p *ruleSet, k int32) {
	r := &v.drs[k]
	pool := p.specific
	if isWildcard(r.host) {
		pool = p.wildcard
	}
	list, exists := pool[r.host]
	if !exists {
		pool[r.host] = []*mergedRule{v.newMerged(k)}
		return
	}
	separately := true
	for _, m := range list {
		switch {
		case sameSet(r.exportTo, m.exportTo):
			separately = false
		case len(m.exportTo) > 0 && supersetOf(r.exportTo, m.exportTo):
			separately = true
		default:
			separately = true
			continue
		}
		first := v.drs[m.first].dr
		mine := r.dr
		bothWith := first.WorkloadSelector != nil && mine.WorkloadSelector != nil
		if bothWith && !maps.Equal(first.WorkloadSelector, mine.WorkloadSelector) {
			separately = true
			continue
		}
		if first.WorkloadSelector == nil && mine.WorkloadSelector == nil || bothWith {
			separately = false
		}
		m.from = append(m.from, k)
		for _, s := range mine.Subsets {
			if !slices.Contains(m.subsets, s.Name) {
				m.subsets = append(m.subsets, s.Name)
			}
		}
		if m.policy < 0 && mine.TrafficPolicy != nil {
			m.policy = k
		}
	}
	if separately {
		pool[r.host] = append(pool[r.host], v.newMerged(k))
	}
}

func (v *View) newMerged(k int32) *mergedRule {
	r := &v.drs[k]
	m := &mergedRule{first: k, exportTo: r.exportTo, exp: r.exp, from: []int32{k}, policy: -1}
	for _, s := range r.dr.Subsets {
		m.subsets = append(m.subsets, s.Name)
	}
	if r.dr.TrafficPolicy != nil {
		m.policy = k
	}
	return m
}

// supersetOf reports whether a holds every element of b.
func supersetOf(a, b []string) bool {
	for _, x := range b {
		if !slices.Contains(a, x) {
			return false
		}
	}
	return true
}

// mostSpecific returns the merged rules of the pool's host that applies most specifically to
// the service host: the exact host, else the longest wildcard covering it.
func (p *ruleSet) mostSpecific(host string) ([]*mergedRule, bool) {
	if p == nil {
		return nil, false
	}
	if !isWildcard(host) {
		if list, ok := p.specific[host]; ok {
			return list, true
		}
	}
	best, found := mostSpecificOf(maps.Keys(p.wildcard), host)
	return p.wildcard[best], found
}

// rulesFor returns the merged rules a proxy in namespace n considers for a service host of
// namespace svcNS, as istiod looks them up: n's pool (for the root namespace, its private
// rules only), else the rules svcNS exports to n, else those the root namespace exports to
// n — the most specific host within the first pool that has one. Rules of any other
// namespace never apply, whatever their exportTo.
func (v *View) rulesFor(n, svcNS, host string) []*mergedRule {
	if !v.drWild && (isWildcard(host) || !v.drHosts[host]) {
		return nil // no rule's host matches it
	}
	local := v.drRoot
	if n != v.root {
		local = v.drLocal[n]
	}
	if list, ok := local.mostSpecific(host); ok {
		return list
	}
	for _, ns := range []string{svcNS, v.root} {
		list, ok := v.drExported[ns].mostSpecific(host)
		if !ok {
			continue
		}
		var out []*mergedRule
		for _, m := range list {
			if exportedRule(m, n) {
				out = append(out, m)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// ruleFor picks, of the merged rules a proxy in namespace n with labels l considers, the
// first workload-selected one of n whose selector l satisfies; else the last one without a
// selector (the youngest wins); nil for none.
func (v *View) ruleFor(list []*mergedRule, n string, l map[string]string) *mergedRule {
	var catchAll *mergedRule
	for _, m := range list {
		first := v.drs[m.first].dr
		if first.WorkloadSelector == nil {
			catchAll = m
			continue
		}
		if first.Namespace == n && subsetOf(first.WorkloadSelector, l) {
			return m
		}
	}
	return catchAll
}

// rule spells a merged rule for a caller.
func (v *View) rule(m *mergedRule) *Rule {
	first := &v.drs[m.first]
	out := &Rule{Host: first.host, Subsets: slices.Clone(m.subsets), WorkloadSelector: first.dr.WorkloadSelector}
	if out.Subsets == nil {
		out.Subsets = []string{}
	}
	for _, k := range m.from {
		out.From = append(out.From, v.drs[k].ref)
	}
	if m.policy >= 0 {
		out.TrafficPolicy, out.TrafficPolicyFrom = v.drs[m.policy].dr.TrafficPolicy, v.drs[m.policy].ref
	}
	return out
}

// sameSet compares two lists as sets.
func sameSet(a, b []string) bool { return supersetOf(a, b) && supersetOf(b, a) }
