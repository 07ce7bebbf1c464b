package visibility

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/internal/kube"
	"github.com/meshscope/meshscope/internal/longtest"
)

func TestLint(t *testing.T) {
	in, notIn := metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn
	exists, dne := metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist
	pol := func(v Visibility, rules ...MatchingRule) Policy { return Policy{Visibility: v, MatchingRules: rules} }
	tests := []struct {
		name string
		c    *Config
		want []string
	}{
		{"clean", &Config{DefaultVisibility: Namespace, Policies: []Policy{
			pol(Public, matchLabels("team", "a")),
			pol(None, matchLabels("team", "b")),
		}}, nil},
		{"after a catch-all", &Config{DefaultVisibility: Namespace, Policies: []Policy{
			pol(Public, matchLabels("team", "a")),
			pol(None),
			pol(Public, matchLabels("team", "b")),
		}}, []string{
			"WARNING Unreachable policies[2]: policies[1] matches every namespace, so this policy is never tried",
		}},
		{"empty selector is a catch-all", &Config{DefaultVisibility: Namespace, Policies: []Policy{
			pol(None, everything()),
			pol(Public, matchLabels("team", "b")),
		}}, []string{
			"WARNING Unreachable policies[1]: policies[0] matches every namespace, so this policy is never tried",
		}},
		{"identical selector shadows", &Config{DefaultVisibility: Namespace, Policies: []Policy{
			pol(Public, matchLabels("team", "a")),
			pol(None, matchExpr("team", in, "a")),
		}}, []string{
			"WARNING Shadowed policies[1]: policies[0] matches every namespace this policy matches, so this policy never decides",
		}},
		{"narrower later policy is shadowed", &Config{DefaultVisibility: Namespace, Policies: []Policy{
			pol(Public, matchExpr("env", exists)),
			pol(None, matchLabels("env", "prod", "team", "a")),
		}}, []string{
			"WARNING Shadowed policies[1]: policies[0] matches every namespace this policy matches, so this policy never decides",
		}},
		{"wider later policy is fine", &Config{DefaultVisibility: Namespace, Policies: []Policy{
			pol(Public, matchLabels("env", "prod", "team", "a")),
			pol(None, matchExpr("env", exists)),
		}}, nil},
		{"NotIn implications", &Config{DefaultVisibility: Namespace, Policies: []Policy{
			pol(None, matchExpr("trusted", notIn, "true")),
			pol(Public, matchExpr("trusted", dne)),
			pol(Public, matchExpr("trusted", in, "no", "false")),
		}}, []string{
			"WARNING Shadowed policies[1]: policies[0] matches every namespace this policy matches, so this policy never decides",
			"WARNING Shadowed policies[2]: policies[0] matches every namespace this policy matches, so this policy never decides",
		}},
		{"contradiction", &Config{DefaultVisibility: Namespace, Policies: []Policy{
			pol(Public, matchLabels("team", "a"), matchLabels("team", "b")),
			pol(None, matchExpr("x", exists), matchExpr("x", dne)),
			pol(None, matchExpr("y", in, "1"), matchExpr("y", notIn, "1", "2")),
		}}, []string{
			"WARNING NeverMatches policies[0]: its rules contradict each other, so it matches no namespace",
			"WARNING NeverMatches policies[1]: its rules contradict each other, so it matches no namespace",
			"WARNING NeverMatches policies[2]: its rules contradict each other, so it matches no namespace",
		}},
		{"trailing default visibility is redundant", &Config{DefaultVisibility: Namespace, Policies: []Policy{
			pol(Namespace, matchLabels("team", "a")),
			pol(Public, matchLabels("team", "b")),
			pol(Namespace, matchLabels("team", "c")),
			pol(Namespace, matchLabels("team", "d")),
		}}, []string{
			"NOTE Redundant policies[2]: it gives the default visibility NAMESPACE and no later policy gives another, so it changes no entry's visibility",
			"NOTE Redundant policies[3]: it gives the default visibility NAMESPACE and no later policy gives another, so it changes no entry's visibility",
		}},
		{"unspecified counts as public", &Config{Policies: []Policy{pol("", matchLabels("team", "a"))}}, []string{
			"NOTE Redundant policies[0]: it gives the default visibility PUBLIC and no later policy gives another, so it changes no entry's visibility",
		}},
		{"no-op and duplicate rules", &Config{DefaultVisibility: Namespace, Policies: []Policy{
			pol(Public, matchLabels("team", "a"), everything(), matchExpr("team", in, "a"), matchLabels("env", "prod")),
		}}, []string{
			"NOTE NoOpRule policies[0].matchingRules[1]: the empty selector matches every namespace; it adds nothing to the other rules",
			"NOTE DuplicateRule policies[0].matchingRules[2]: matchingRules[0] already requires everything this rule does",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustCompile(t, tt.c)
			var got []string
			for _, f := range r.Lint() {
				got = append(got, f.String())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestLintIsSound checks on random configurations that a policy reported Unreachable,
// Shadowed or NeverMatches never decides, and that removing a Redundant policy changes no
// visibility, for random namespaces.
func TestLintIsSound(t *testing.T) {
	r := newRand(21, 22)
	for range longtest.N(200, 2000) {
		c := istiotest.Config[Config](r, 6)
		res := mustCompile(t, c)
		findings := res.Lint()
		dead := map[int]bool{}
		redundant := map[int]bool{}
		for _, f := range findings {
			switch f.Code {
			case Unreachable, Shadowed, NeverMatches:
				dead[policyOf(t, f)] = true
			case Redundant:
				redundant[policyOf(t, f)] = true
			}
		}
		trimmed := &Config{DefaultVisibility: c.DefaultVisibility}
		for i, p := range c.Policies {
			if !redundant[i] {
				trimmed.Policies = append(trimmed.Policies, p)
			}
		}
		tr := mustCompile(t, trimmed)
		for range 40 {
			ls := labels.Set(istiotest.Labels(r))
			d := res.Resolve(ls)
			if dead[d.Policy] {
				t.Fatalf("policy %d was reported %v but decided for %v in %+v", d.Policy, findings, ls, c)
			}
			if got := tr.Resolve(ls).Visibility; got != d.Visibility {
				t.Fatalf("removing redundant policies changed %v from %s to %s: %v", ls, d.Visibility, got, findings)
			}
		}
	}
}

// policyOf returns the index of the policy a finding of Resolver.Lint is about, read from
// its path: "policies[3]" or "policies[3].matchingRules[1]".
func policyOf(t *testing.T, f Finding) int {
	t.Helper()
	var i int
	_, err := fmt.Sscanf(f.Path, "policies[%d]", &i)
	require.NoError(t, err, f.Path)
	return i
}

// refShadowed is the literal rule the index in Lint speeds up: policy i is shadowed by the
// first earlier policy that is live (neither unreachable, contradictory nor shadowed itself)
// and whose every requirement one of i's implies.
func refShadowed(r *Resolver) map[int]int {
	out := map[int]int{}
	reqs := make([][]kube.Requirement, len(r.policies))
	for i := range r.policies {
		reqs[i] = policyReqs(&r.policies[i])
	}
	var live []int
	for i := range r.policies {
		if slices.ContainsFunc(live, func(k int) bool { return len(reqs[k]) == 0 }) || kube.Contradict(reqs[i]) {
			continue
		}
		shadowed := false
		for _, k := range live {
			if kube.Implies(reqs[i], reqs[k]) {
				out[i], shadowed = k, true
				break
			}
		}
		if !shadowed {
			live = append(live, i)
		}
	}
	return out
}

func TestLintMatchesReference(t *testing.T) {
	r := newRand(31, 32)
	for range longtest.N(300, 3000) {
		c := istiotest.Config[Config](r, 8)
		res := mustCompile(t, c)
		got := map[int]int{}
		for _, f := range res.Lint() {
			if f.Code == Shadowed {
				var k int
				_, err := fmt.Sscanf(f.Message, "policies[%d]", &k)
				require.NoError(t, err)
				got[policyOf(t, f)] = k
			}
		}
		require.Equal(t, refShadowed(res), got, "%+v", c)
	}
}

// lintConfig has n policies, each on its own team, half of them shadowed by an earlier one
// with fewer requirements.
func lintConfig(n int) *Config {
	c := &Config{DefaultVisibility: Namespace}
	for i := range n {
		sel := &metav1.LabelSelector{MatchLabels: map[string]string{"team": fmt.Sprintf("t%d", i/2)}}
		if i%2 == 1 {
			sel.MatchLabels["env"] = "prod"
		}
		vis := Public
		if i%3 == 0 {
			vis = None
		}
		c.Policies = append(c.Policies, Policy{Visibility: vis, MatchingRules: []MatchingRule{{NamespaceSelector: sel}}})
	}
	return c
}

func TestLintIsLinear(t *testing.T) {
	compared := func(n int) int {
		res := mustCompile(t, lintConfig(n))
		findings, k := res.lint()
		require.Len(t, findings, n/2, "every second policy is shadowed")
		return k
	}
	small, large := compared(500), compared(2000)
	assert.LessOrEqual(t, large, 4*small+4, "policy pairs compared at n=500: %d, at n=2000: %d", small, large)
}

// TestLintNamespaces reads a configuration against a cluster's namespaces and entries.
func TestLintNamespaces(t *testing.T) {
	r, err := Compile(&Config{Policies: []Policy{
		{Visibility: Public, MatchingRules: []MatchingRule{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"tema": "platform"}}}}},
		{Visibility: None, MatchingRules: []MatchingRule{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "sandbox"}}}}},
		{Visibility: Namespace},
	}})
	require.NoError(t, err)
	namespaces := map[string]map[string]string{"platform": {"team": "platform"}, "play": {"env": "sandbox"}, "shop": nil}
	got := r.LintNamespaces(namespaces, []string{"shop", "shop", "platform"})
	var lines []string
	for _, f := range got {
		lines = append(lines, f.String())
	}
	assert.Equal(t, []string{
		"WARNING SelectorMatchesNoNamespace policies[0].matchingRules[0]: the selector tema=platform selects none of the inventory's 3 namespaces",
		"WARNING PolicyDecidesNoEntry policies[0]: decides none of the inventory's ServiceEntries",
		"WARNING PolicyDecidesNoEntry policies[1]: decides none of the inventory's ServiceEntries",
	}, lines)
	disabled, err := Compile(nil)
	require.NoError(t, err)
	assert.Empty(t, disabled.LintNamespaces(namespaces, []string{"shop"}))
}
