package sidecar

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/hosts"
)

// explainRules spells every DestinationRule whose host covers the traced host (a service
// of namespace svcNS) and what became of it in the proxy's lookup; chosen is the rule the
// proxy gets.
func (v *View) explainRules(rec *record, svcNS string, chosen *Rule) []Candidate {
	x, host := &v.rules, rec.trace.host
	var out []Candidate
	for k := range x.drs {
		r := &x.drs[k]
		if !hosts.Covers(r.host, host) {
			continue
		}
		c := Candidate{Object: r.ref, Host: r.host}
		c.Verdict, c.Reason = v.ruleVerdict(rec, int32(k), svcNS, chosen)
		out = append(out, c)
	}
	for _, dr := range x.undisc {
		if h := resolveHost(dr.Host, dr.Namespace, v.domain); hosts.Covers(h, host) {
			out = append(out, Candidate{Object: dr.Namespace + "/" + dr.Name, Host: h, Verdict: NotDiscovered,
				Reason: fmt.Sprintf("namespace %s is not discovered: no discoverySelector matches it, so istiod does not see its DestinationRules", dr.Namespace)})
		}
	}
	return out
}

// what names a pool a lookup consults, for a reason.
func (p rulePool) what(root string) string {
	switch p.kind {
	case ownRules:
		if p.ns == root {
			return "the root namespace's private rules"
		}
		return "the rules " + p.ns + " keeps for its own proxies"
	case serviceRules:
		return "the rules the service's namespace " + p.ns + " exports to " + p.to
	}
	return "the rules the root namespace " + p.ns + " exports to " + p.to
}

// ruleVerdict says what became of DestinationRule k in the traced lookup.
func (v *View) ruleVerdict(rec *record, k int32, svcNS string, chosen *Rule) (Verdict, string) {
	x, n, lk := &v.rules, rec.ns, &rec.trace.rules
	r := &x.drs[k]
	ns := r.dr.Namespace
	if ns != n && ns != svcNS && ns != x.root {
		return Hidden, fmt.Sprintf("a rule of %s applies only to proxies of %s and to services of %s (the root namespace's apply to every namespace); the proxy is in %s and the service in %s, whatever its exportTo", ns, ns, ns, n, svcNS)
	}
	if chosen != nil {
		if i := slices.Index(chosen.From, r.ref); i == 0 {
			return Chosen, fmt.Sprintf("the rule the proxy gets, from %s", lk.pools[lk.answered].what(x.root))
		} else if i > 0 {
			return Merged, fmt.Sprintf("merged into %s, an earlier rule of %s for the same host whose exportTo it shares (or contains): its new subsets%s join", chosen.From[0], ns, policyJoins(chosen, r.ref))
		}
	}
	for _, m := range lk.found {
		if !slices.Contains(m.from, k) {
			continue
		}
		first := x.drs[m.first].dr
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
	for i, p := range lk.pools {
		if !p.holds(k) {
			continue
		}
		switch {
		case i == lk.answered:
			return Outranked, fmt.Sprintf("a rule of a more specific host answers in %s: %s", p.what(x.root), strings.Join(x.refs(lk.found), ", "))
		case lk.answered >= 0 && i > lk.answered:
			return Outranked, fmt.Sprintf("%s answer first: %s", lk.pools[lk.answered].what(x.root), strings.Join(x.refs(lk.found), ", "))
		}
	}
	switch {
	case n == x.root && ns == n:
		return Hidden, fmt.Sprintf("proxies of the root namespace consult its private rules, then the rules namespaces export to %s by name or to every namespace; this rule's exportTo %q is neither", n, r.dr.ExportTo)
	case len(r.dr.ExportTo) == 0 && r.dr.WorkloadSelector == nil:
		return Hidden, fmt.Sprintf("the mesh's defaultDestinationRuleExportTo keeps it in %s", ns)
	case r.dr.WorkloadSelector != nil:
		return Hidden, fmt.Sprintf("a rule with a workloadSelector applies only to proxies of its namespace %s", ns)
	}
	return Hidden, fmt.Sprintf("its exportTo %q does not export it to %s", r.dr.ExportTo, n)
}

// refs names the first rule of each merged rule.
func (x *ruleIndex) refs(list []*mergedRule) []string {
	var out []string
	for _, m := range list {
		out = append(out, x.drs[m.first].ref)
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
