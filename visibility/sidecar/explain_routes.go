package sidecar

import (
	"fmt"
	"iter"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/exportto"
	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// explainRoutes lists, for each listener of the Sidecar sc that imports host (p is the
// proxy's view and routed its listeners, as buildProxy gives them), every VirtualService with
// a host matching it and what became of it.
func (v *View) explainRoutes(sc *inventory.Sidecar, n, host string, p Proxy, routed []routedListener) []Step {
	var out []Step
	for li, rl := range routed {
		eg := rl.l.egress
		owner := ""
		for _, s := range p.Listeners[li].Services {
			if _, h, _ := strings.Cut(s, "/"); h == host {
				owner = s
			}
		}
		if owner == "" {
			continue // Istio routes a host on the listeners that import it
		}
		l, selected := rl.l, rl.vss
		best, bestHost, _ := rl.ix.lookup(host)
		step := Step{Key: listenerKey(sc, li, eg), Candidates: []Candidate{}}
		for k := range v.vss {
			r := &v.vss[k]
			h, ok := mostSpecificOf(slices.Values(r.hosts), host)
			if !ok {
				continue
			}
			c := Candidate{Object: r.ref, Host: h}
			switch {
			case !r.mesh:
				c.Verdict, c.Reason = Hidden, fmt.Sprintf("its gateways %q do not name mesh: it applies to gateways only", r.vs.Gateways)
			case !r.exp.To(n):
				c.Verdict, c.Reason = Hidden, v.vsHiddenReason(r, n)
			case !slices.Contains(selected, int32(k)):
				c.Verdict, c.Reason = v.notSelected(l, r)
			case int32(k) == best:
				c.Verdict, c.Reason = Chosen, fmt.Sprintf("its host %s matches %s most specifically (an exact host, else the longest wildcard), the first in Istio's order among equals", h, host)
			case h == bestHost:
				c.Verdict, c.Reason = Outranked, fmt.Sprintf("%s gives the same host %s and comes first in Istio's order (private to %s, exported to it by name, public; each by creation time)", v.vss[best].ref, h, n)
			default:
				c.Verdict, c.Reason = Outranked, fmt.Sprintf("%s's host %s matches %s more specifically than %s", v.vss[best].ref, bestHost, host, h)
			}
			step.Candidates = append(step.Candidates, c)
		}
		for _, vs := range v.undiscVS {
			var hs []string
			for _, h := range vs.Hosts {
				hs = append(hs, resolveHost(h, vs.Namespace, v.domain))
			}
			if h, ok := mostSpecificOf(slices.Values(hs), host); ok {
				step.Candidates = append(step.Candidates, Candidate{Object: vs.Namespace + "/" + vs.Name, Host: h, Verdict: NotDiscovered,
					Reason: fmt.Sprintf("namespace %s is not discovered: no discoverySelector matches it, so istiod does not see its VirtualServices", vs.Namespace)})
			}
		}
		if len(step.Candidates) > 0 {
			out = append(out, step)
		}
	}
	return out
}

// mostSpecificOf returns, of the rule hosts hs, the one that covers the service host most
// specifically (an exact host equal to it, else the longest wildcard covering it); ok is
// false when none covers it.
func mostSpecificOf(hs iter.Seq[string], host string) (best string, ok bool) {
	for h := range hs {
		if hosts.Covers(h, host) && (!ok || hosts.MoreSpecific(h, best)) {
			best, ok = h, true
		}
	}
	return best, ok
}

// vsHiddenReason says why VirtualService r is not exported to namespace n.
func (v *View) vsHiddenReason(r *virtualService, n string) string {
	if len(r.vs.ExportTo) == 0 {
		return fmt.Sprintf("the mesh's defaultVirtualServiceExportTo %q does not export it to %s", exportto.ListOf(nil, v.defaultVSExport), n)
	}
	return fmt.Sprintf("its exportTo %q does not export it to %s", r.vs.ExportTo, n)
}

// notSelected says why a listener does not select VirtualService r, which is exported to
// the proxy's namespace.
func (v *View) notSelected(l *listener, r *virtualService) (Verdict, string) {
	own, w := l.byNS[r.vs.Namespace], l.byNS[names.Wildcard]
	for _, hc := range []*hostClass{own, w} {
		if hc == nil {
			continue
		}
		for _, h := range r.hosts {
			if hc.vsMatches(h) {
				return Excluded, fmt.Sprintf("an exclusion of the listener covers %s, the host of it an import matches", h)
			}
		}
	}
	return NotImported, fmt.Sprintf("no import of the listener for its namespace %s or for * matches one of its hosts %q", r.vs.Namespace, r.hosts)
}

// rulePool is one of the pools a proxy's rule lookup consults, in order.
type rulePool struct {
	set    *ruleSet
	filter string // "": every rule of the pool; else the client namespace the rules must be exported to
	what   string // for a reason: "shop's own rules"
}

// explainRules lists every DestinationRule whose host matches the service host (of
// namespace svcNS) and what became of it for a proxy in n with labels workload; chosen is
// the rule the proxy gets.
func (v *View) explainRules(n string, workload labels.Set, host, svcNS string, chosen *Rule) []Candidate {
	pools := []rulePool{{v.drLocal[n], "", "the rules " + n + " keeps for its own proxies"}}
	if n == v.root {
		pools[0] = rulePool{v.drRoot, "", "the root namespace's private rules"}
	}
	pools = append(pools, rulePool{v.drExported[svcNS], n, "the rules the service's namespace " + svcNS + " exports to " + n},
		rulePool{v.drExported[v.root], n, "the rules the root namespace " + v.root + " exports to " + n})
	answered, answer := -1, []*mergedRule(nil)
	for i, p := range pools {
		if list := p.answer(host); len(list) > 0 {
			answered, answer = i, list
			break
		}
	}
	var out []Candidate
	for k := range v.drs {
		r := &v.drs[k]
		if !hosts.Covers(r.host, host) {
			continue
		}
		c := Candidate{Object: r.ref, Host: r.host}
		c.Verdict, c.Reason = v.ruleVerdict(int32(k), n, workload, svcNS, chosen, pools, answered, answer)
		out = append(out, c)
	}
	for _, dr := range v.undiscDR {
		if h := resolveHost(dr.Host, dr.Namespace, v.domain); hosts.Covers(h, host) {
			out = append(out, Candidate{Object: dr.Namespace + "/" + dr.Name, Host: h, Verdict: NotDiscovered,
				Reason: fmt.Sprintf("namespace %s is not discovered: no discoverySelector matches it, so istiod does not see its DestinationRules", dr.Namespace)})
		}
	}
	return out
}

// answer is what the pool gives a lookup of host: the merged rules of its most specific
// matching host, those exported to the client namespace when it filters.
func (p rulePool) answer(host string) []*mergedRule {
	list, ok := p.set.mostSpecific(host)
	if !ok || p.filter == "" {
		return list
	}
	var out []*mergedRule
	for _, m := range list {
		if exportedRule(m, p.filter) {
			out = append(out, m)
		}
	}
	return out
}

// exportedRule reports whether a merged rule of an exported pool is exported to n.
//
// istiod counts "*" and n by name: "." does not count for a proxy of the rule's namespace.
func exportedRule(m *mergedRule, n string) bool { return m.exp.ToByName(n) }

// ruleVerdict says what became of DestinationRule k.
func (v *View) ruleVerdict(k int32, n string, workload labels.Set, svcNS string, chosen *Rule, pools []rulePool, answered int, answer []*mergedRule) (Verdict, string) {
	r := &v.drs[k]
	ns := r.dr.Namespace
	if ns != n && ns != svcNS && ns != v.root {
		return Hidden, fmt.Sprintf("a rule of %s applies only to proxies of %s and to services of %s (the root namespace's apply to every namespace); the proxy is in %s and the service in %s, whatever its exportTo", ns, ns, ns, n, svcNS)
	}
	if chosen != nil {
		if i := slices.Index(chosen.From, r.ref); i == 0 {
			return Chosen, fmt.Sprintf("the rule the proxy gets, from %s", pools[answered].what)
		} else if i > 0 {
			return Merged, fmt.Sprintf("merged into %s, an earlier rule of %s for the same host whose exportTo it shares (or contains): its new subsets%s join", chosen.From[0], ns, policyJoins(chosen, r.ref))
		}
	}
	for _, m := range answer {
		if !slices.Contains(m.from, k) {
			continue
		}
		first := v.drs[m.first].dr
		switch {
		case first.WorkloadSelector != nil && first.Namespace != n:
			return Outranked, fmt.Sprintf("its workloadSelector applies only to proxies of %s", first.Namespace)
		case first.WorkloadSelector != nil:
			return Outranked, fmt.Sprintf("its workloadSelector %s does not select the workload", labels.Set(first.WorkloadSelector))
		case chosen != nil && chosen.WorkloadSelector != nil:
			return Outranked, fmt.Sprintf("the workload-selected rule %s applies to the workload", chosen.From[0])
		case chosen != nil:
			return Outranked, fmt.Sprintf("%s, a younger rule without a workloadSelector, is the one the proxy gets: istiod takes the last", chosen.From[0])
		}
	}
	for i, p := range pools {
		if !p.holds(k) {
			continue
		}
		switch {
		case i == answered:
			return Outranked, fmt.Sprintf("a rule of a more specific host answers in %s: %s", p.what, strings.Join(v.refs(answer), ", "))
		case answered >= 0 && i > answered:
			return Outranked, fmt.Sprintf("%s answer first: %s", pools[answered].what, strings.Join(v.refs(answer), ", "))
		}
	}
	switch {
	case n == v.root && ns == n:
		return Hidden, fmt.Sprintf("proxies of the root namespace consult its private rules, then the rules namespaces export to %s by name or to every namespace; this rule's exportTo %q is neither", n, r.dr.ExportTo)
	case len(r.dr.ExportTo) == 0 && r.dr.WorkloadSelector == nil:
		return Hidden, fmt.Sprintf("the mesh's defaultDestinationRuleExportTo keeps it in %s", ns)
	case r.dr.WorkloadSelector != nil:
		return Hidden, fmt.Sprintf("a rule with a workloadSelector applies only to proxies of its namespace %s", ns)
	}
	return Hidden, fmt.Sprintf("its exportTo %q does not export it to %s", r.dr.ExportTo, n)
}

// holds reports whether the pool holds rule k (merged into one of its rules).
func (p rulePool) holds(k int32) bool {
	if p.set == nil {
		return false
	}
	for _, m := range [2]map[string][]*mergedRule{p.set.specific, p.set.wildcard} {
		for _, list := range m {
			for _, mr := range list {
				if slices.Contains(mr.from, k) && (p.filter == "" || exportedRule(mr, p.filter)) {
					return true
				}
			}
		}
	}
	return false
}

// refs names the first rule of each merged rule.
func (v *View) refs(list []*mergedRule) []string {
	var out []string
	for _, m := range list {
		out = append(out, v.drs[m.first].ref)
	}
	return out
}

// policyJoins says whether the merged rule's traffic policy comes from ref.
func policyJoins(r *Rule, ref string) string {
	if r.TrafficPolicyFrom == ref {
		return ", and its traffic policy (the merged rule had none)"
	}
	return ""
}
