package visibility

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/meshscope/meshscope/internal/kube"
	"github.com/meshscope/meshscope/internal/report"
)

// policyFinding is a finding of Resolver.Lint about a policy (rule NoIndex) or one of its
// rules, kept by number until the findings are sorted.
type policyFinding struct {
	policy, rule int
	code         report.Code
	message      string
}

func (f policyFinding) finding() Finding {
	path := "policies[" + strconv.Itoa(f.policy) + "]"
	if f.rule >= 0 {
		path += ".matchingRules[" + strconv.Itoa(f.rule) + "]"
	}
	return report.New(path, f.code, "%s", f.message)
}

// Lint reports the policies and rules of the configuration that cannot affect any decision,
// or contradict themselves (codes Unreachable, Shadowed, NeverMatches, Redundant, NoOpRule
// and DuplicateRule), sorted by policy, rule and code. Path is "policies[i]" or
// "policies[i].matchingRules[j]". The checks are sound but not
// complete: a finding is always true, but not every useless policy is found (selectors are
// compared requirement by requirement, with In, NotIn, Exists and DoesNotExist understood).
// A disabled resolver has no findings.
func (r *Resolver) Lint() []Finding {
	found, _ := r.lint()
	if found == nil {
		return nil
	}
	out := make([]Finding, len(found))
	for i, f := range found {
		out[i] = f.finding()
	}
	return out
}

// lint is Lint, also returning how many pairs of policies it compared: the tests hold that
// count linear in the number of policies.
func (r *Resolver) lint() ([]policyFinding, int) {
	if !r.Enabled() {
		return nil, 0
	}
	var out []policyFinding
	reqs := make([][]kube.Requirement, len(r.policies))
	never := make([]bool, len(r.policies)) // matches no namespace whatever comes before it
	catchAll := -1
	// Earlier live policies (those that can decide for some namespace, as far as we know),
	// indexed so that each policy is compared only with those that could shadow it.
	var live shadowIndex
	var cands []int
	compared := 0
	for i := range r.policies {
		p := &r.policies[i]
		reqs[i] = policyReqs(p)
		out = append(out, ruleFindings(i, p)...)
		switch {
		case catchAll >= 0:
			out = append(out, policyFinding{policy: i, rule: NoIndex, code: Unreachable,
				message: fmt.Sprintf("policies[%d] matches every namespace, so this policy is never tried", catchAll)})
			continue
		case kube.Contradict(reqs[i]):
			never[i] = true
			out = append(out, policyFinding{policy: i, rule: NoIndex, code: NeverMatches,
				message: "its rules contradict each other, so it matches no namespace"})
			continue
		}
		shadowedBy := -1
		cands = live.candidates(reqs[i], cands[:0])
		for _, k := range cands { // ascending: the first that implies is the earliest
			compared++
			if kube.Implies(reqs[i], reqs[k]) {
				shadowedBy = k
				break
			}
		}
		if shadowedBy >= 0 {
			out = append(out, policyFinding{policy: i, rule: NoIndex, code: Shadowed,
				message: fmt.Sprintf("policies[%d] matches every namespace this policy matches, so this policy never decides", shadowedBy)})
			continue
		}
		live.add(i, reqs[i])
		if len(reqs[i]) == 0 {
			catchAll = i
		}
	}
	return r.redundant(out, never), compared
}

// redundant adds the trailing policies that give the default visibility, which change
// nothing, to out, and sorts the findings by policy, rule and code.
func (r *Resolver) redundant(out []policyFinding, never []bool) []policyFinding {
	// Trailing policies that give the default visibility change nothing. Unreachable and
	// shadowed policies count here: removing the policy that hides them would let them decide.
	for i := len(r.policies) - 1; i >= 0; i-- {
		if never[i] {
			continue
		}
		if r.policies[i].visibility != r.defaultVis {
			break
		}
		out = append(out, policyFinding{policy: i, rule: NoIndex, code: Redundant,
			message: fmt.Sprintf("it gives the default visibility %s and no later policy gives another, so it changes no entry's visibility", r.defaultVis)})
	}
	sort.Slice(out, func(a, b int) bool {
		x, y := out[a], out[b]
		if x.policy != y.policy {
			return x.policy < y.policy
		}
		if x.rule != y.rule {
			return x.rule < y.rule
		}
		return x.code.Name() < y.code.Name()
	})
	return out
}

// shadowIndex indexes policies by one of their requirements, the anchor, so that a policy
// is compared only with the earlier policies whose anchor it can imply. A requirement In V
// is implied only by a requirement In W with W ⊆ V, so an In anchor is found through the
// first value of the other policy's In requirements on its key; other anchors are found
// through the key. A policy is shadowed only when every one of its requirements is implied,
// its anchor included, so no candidate is missed. With anchors that are equalities or In
// lists the comparisons are linear in the number of policies; only policies whose every
// requirement is Exists, NotIn or DoesNotExist on one shared key are compared with each
// other.
type shadowIndex struct {
	byValue map[[2]string][]int // key and value of an In anchor -> policies
	byKey   map[string][]int    // key of any other anchor -> policies
}

// add indexes policy k, whose requirements rs are not empty; an In requirement with the
// fewest values is the anchor when there is one.
func (x *shadowIndex) add(k int, rs []kube.Requirement) {
	if len(rs) == 0 {
		return // matches every namespace: the policies after it are unreachable
	}
	anchor := -1
	for j, r := range rs {
		if r.Op == selection.In && (anchor < 0 || len(r.Values) < len(rs[anchor].Values)) {
			anchor = j
		}
	}
	if anchor < 0 {
		if x.byKey == nil {
			x.byKey = map[string][]int{}
		}
		x.byKey[rs[0].Key] = append(x.byKey[rs[0].Key], k)
		return
	}
	if x.byValue == nil {
		x.byValue = map[[2]string][]int{}
	}
	for _, v := range rs[anchor].Values {
		kv := [2]string{rs[anchor].Key, v}
		x.byValue[kv] = append(x.byValue[kv], k)
	}
}

// candidates appends to buf, ascending and once each, the indexed policies whose anchor one
// of rs can imply.
func (x *shadowIndex) candidates(rs []kube.Requirement, buf []int) []int {
	for _, r := range rs {
		buf = append(buf, x.byKey[r.Key]...)
		if r.Op == selection.In && len(r.Values) > 0 {
			buf = append(buf, x.byValue[[2]string{r.Key, r.Values[0]}]...)
		}
	}
	slices.Sort(buf)
	return slices.Compact(buf)
}

func ruleFindings(i int, p *policy) []policyFinding {
	var out []policyFinding
	var seen [][]kube.Requirement
	for j, ru := range p.rules {
		rs := kube.RequirementsOf(ru.selector)
		if len(rs) == 0 && len(p.rules) > 1 {
			out = append(out, policyFinding{policy: i, rule: j, code: NoOpRule,
				message: "the empty selector matches every namespace; it adds nothing to the other rules"})
			continue
		}
		for k, prev := range seen {
			if kube.Implies(prev, rs) {
				out = append(out, policyFinding{policy: i, rule: j, code: DuplicateRule,
					message: fmt.Sprintf("matchingRules[%d] already requires everything this rule does", k)})
				break
			}
		}
		seen = append(seen, rs)
	}
	return out
}

func policyReqs(p *policy) []kube.Requirement {
	var out []kube.Requirement
	for _, ru := range p.rules {
		out = append(out, kube.RequirementsOf(ru.selector)...)
	}
	return out
}

// LintNamespaces reads the configuration against a cluster: namespaces maps each of its
// namespaces to its labels (nil for one without a Namespace object), and entries are the
// namespaces of its ServiceEntries, one per entry. It reports rules whose selector selects
// none of the namespaces (SelectorMatchesNoNamespace: a typo such as tema: platform) and
// policies that decide none of the entries (PolicyDecidesNoEntry), in policy order, with
// Path "policies[i].matchingRules[j]" or "policies[i]". A disabled resolver reports nothing.
func (r *Resolver) LintNamespaces(namespaces map[string]map[string]string, entries []string) []Finding {
	if !r.Enabled() {
		return nil
	}
	decided := make([]bool, len(r.policies))
	seen := make(map[string]bool, len(namespaces))
	for _, ns := range entries {
		if !seen[ns] {
			seen[ns] = true
			if p := r.Resolve(labels.Set(namespaces[ns])).Policy; p >= 0 {
				decided[p] = true
			}
		}
	}
	names := slices.Sorted(maps.Keys(namespaces))
	var out []Finding
	for i, p := range r.policies {
		for j, ru := range p.rules {
			if ru.selector.Empty() || slices.ContainsFunc(names, func(ns string) bool { return ru.selector.Matches(labels.Set(namespaces[ns])) }) {
				continue
			}
			out = append(out, report.New(fmt.Sprintf("policies[%d].matchingRules[%d]", i, j), SelectorMatchesNoNamespace,
				"the selector %s selects none of the inventory's %d namespaces", ru.text, len(namespaces)))
		}
		if !decided[i] {
			out = append(out, report.New(fmt.Sprintf("policies[%d]", i), PolicyDecidesNoEntry, "decides none of the inventory's ServiceEntries"))
		}
	}
	return out
}
