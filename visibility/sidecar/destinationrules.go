package sidecar

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/exportto"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// ruleIndex is the DestinationRules of a view, merged into the pools a proxy's lookup
// consults: per namespace the rules it keeps for its own proxies (local) and those it
// exports (exported), and the root namespace's private rules; and those of undiscovered
// namespaces.
type ruleIndex struct {
	drs             []destRule // the discovered rules, in Istio's order
	root            string
	local, exported map[string]*ruleSet
	rootPrivate     *ruleSet
	// The exact hosts of the discovered rules, and whether one has a wildcard.
	hosts  map[string]bool
	wild   bool
	undisc []*inventory.DestinationRule // of undiscovered namespaces, in Istio's order
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

// newRuleIndex indexes the discovered DestinationRules of list as istiod does: ordered with
// the workload-selected ones first, then by creation time, name and namespace, each merged
// into the local pool of its namespace when exported to it, into its namespace's exported
// pool unless it stays in its namespace, and — staying in the root namespace — into the
// root's private pool. meshDefault is the mesh's defaultDestinationRuleExportTo; short hosts
// resolve into domain.
func newRuleIndex(list []inventory.DestinationRule, disc discovery, domain string, meshDefault []string, root string) ruleIndex {
	x := ruleIndex{root: root, hosts: make(map[string]bool, len(list)), local: map[string]*ruleSet{}, exported: map[string]*ruleSet{}, rootPrivate: newRuleSet()}
	for i := range list {
		dr := &list[i]
		if !disc.discovered(dr.Namespace) {
			x.undisc = append(x.undisc, dr)
			continue
		}
		r := destRule{ref: dr.Namespace + "/" + dr.Name, dr: dr, host: resolveHost(dr.Host, dr.Namespace, domain),
			exp: exportto.Parse(exportto.RuleListOf(dr.ExportTo, meshDefault, dr.WorkloadSelector != nil), dr.Namespace)}
		if dr.WorkloadSelector != nil {
			r.exportTo = []string{exportto.Own}
		} else {
			for _, e := range dr.ExportTo {
				if !slices.Contains(r.exportTo, e) {
					r.exportTo = append(r.exportTo, e)
				}
			}
		}
		x.drs = append(x.drs, r)
		if isWildcard(r.host) {
			x.wild = true
		} else {
			x.hosts[r.host] = true
		}
	}
	slices.SortFunc(x.drs, func(a, b destRule) int { return compareRules(a.dr, b.dr) })
	slices.SortFunc(x.undisc, compareRules)
	for k := range x.drs {
		r := &x.drs[k]
		ns := r.dr.Namespace
		if r.exp.To(ns) {
			x.merge(poolOf(x.local, ns), int32(k))
		}
		switch {
		case !r.exp.OwnOnly():
			x.merge(poolOf(x.exported, ns), int32(k))
		case ns == root:
			x.merge(x.rootPrivate, int32(k))
		}
	}
	return x
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
func (x *ruleIndex) merge(p *ruleSet, k int32) {
	r := &x.drs[k]
	pool := p.specific
	if isWildcard(r.host) {
		pool = p.wildcard
	}
	list, exists := pool[r.host]
	if !exists {
		pool[r.host] = []*mergedRule{x.newMerged(k)}
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
		first := x.drs[m.first].dr
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
		pool[r.host] = append(pool[r.host], x.newMerged(k))
	}
}

func (x *ruleIndex) newMerged(k int32) *mergedRule {
	r := &x.drs[k]
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

// sameSet compares two lists as sets.
func sameSet(a, b []string) bool { return supersetOf(a, b) && supersetOf(b, a) }

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

// holds reports whether the set holds rule k (merged into one of its rules), exported to
// namespace n unless n is "".
func (p *ruleSet) holds(k int32, n string) bool {
	if p == nil {
		return false
	}
	for _, m := range [2]map[string][]*mergedRule{p.specific, p.wildcard} {
		for _, list := range m {
			for _, mr := range list {
				if slices.Contains(mr.from, k) && (n == "" || mr.exportedTo(n)) {
					return true
				}
			}
		}
	}
	return false
}

// exportedTo reports whether a merged rule of an exported pool is exported to n. istiod
// counts "*" and n by name: "." does not count for a proxy of the rule's namespace.
func (m *mergedRule) exportedTo(n string) bool { return m.exp.ToByName(n) }
