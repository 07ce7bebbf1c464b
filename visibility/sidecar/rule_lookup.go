package sidecar

// The one lookup a proxy makes for the DestinationRule of a service host.

// poolKind is a pool of rules a lookup consults, in the order it consults them.
type poolKind uint8

const (
	// ownRules: the rules the proxy's namespace keeps for its own proxies; for the root
	// namespace, its private rules.
	ownRules poolKind = iota
	// serviceRules: the rules the service's namespace exports to the proxy's.
	serviceRules
	// rootRules: the rules the root namespace exports to the proxy's.
	rootRules
)

// rulePool is one pool a lookup consults: the merged rules of a namespace, those exported to
// the namespace to only ("": all of them).
type rulePool struct {
	kind poolKind
	ns   string
	set  *ruleSet
	to   string
}

// answer is what the pool gives a lookup of host: the merged rules of its most specific
// matching host, those exported to the proxy's namespace when it filters.
func (p rulePool) answer(host string) []*mergedRule {
	list, ok := p.set.mostSpecific(host)
	if !ok || p.to == "" {
		return list
	}
	var out []*mergedRule
	for _, m := range list {
		if m.exportedTo(p.to) {
			out = append(out, m)
		}
	}
	return out
}

// holds reports whether the pool holds rule k, exported to the proxy's namespace when it
// filters.
func (p rulePool) holds(k int32) bool { return p.set.holds(k, p.to) }

// ruleLookup is a DestinationRule lookup as a proxy makes it for a service host: the pools
// it consults, in order, the one that answered (-1: none), the merged rules found there and
// the one the proxy gets (nil: none).
type ruleLookup struct {
	pools    [3]rulePool
	answered int
	found    []*mergedRule
	chosen   *mergedRule
}

// lookup is the rule lookup of a proxy in namespace n with labels workload for a service
// host of namespace svcNS, as istiod makes it: n's own rules (for the root namespace, its
// private ones), else the rules svcNS exports to n, else those the root namespace exports to
// n — the most specific host within the first pool that has one; rules of any other
// namespace never apply, whatever their exportTo. Of the rules found, the proxy gets the
// first workload-selected one of n whose selector its labels satisfy, else the last one
// without a selector (the youngest wins).
func (x *ruleIndex) lookup(n, svcNS, host string, workload map[string]string) ruleLookup {
	out := ruleLookup{answered: -1}
	if !x.wild && (isWildcard(host) || !x.hosts[host]) {
		return out // no rule's host matches it
	}
	own := x.local[n]
	if n == x.root {
		own = x.rootPrivate
	}
	out.pools = [3]rulePool{{ownRules, n, own, ""}, {serviceRules, svcNS, x.exported[svcNS], n}, {rootRules, x.root, x.exported[x.root], n}}
	for i := range out.pools {
		if found := out.pools[i].answer(host); len(found) > 0 {
			out.answered, out.found = i, found
			break
		}
	}
	for _, m := range out.found {
		first := x.drs[m.first].dr
		if first.WorkloadSelector == nil {
			out.chosen = m
			continue
		}
		if first.Namespace == n && subsetOf(first.WorkloadSelector, workload) {
			out.chosen = m
			break
		}
	}
	return out
}
