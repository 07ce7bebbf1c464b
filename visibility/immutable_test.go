package visibility

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// TestOwnedValuesDoNotAlias mutates every value the caller owns — the Config given to
// Compile, and every slice, map and pointer the resolver returns — and checks that no answer
// changes.
func TestOwnedValuesDoNotAlias(t *testing.T) {
	cfg := &Config{DefaultVisibility: Public, Policies: []Policy{
		{Visibility: Namespace, MatchingRules: []MatchingRule{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}}}},
		{Visibility: None, MatchingRules: []MatchingRule{{NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"x", "y"}},
		}}}}},
	}}
	r, err := Compile(cfg)
	require.NoError(t, err)
	cfg0 := *cfg // the policies compiled, before the test changes cfg
	nsLabels := []labels.Set{{"team": "a"}, {"tier": "x"}, {}}
	namespaces := map[string]map[string]string{"a": {"team": "a"}, "b": {"tier": "x"}, "c": {}}
	answers := func() string {
		type all struct {
			Decisions  []Decision
			Explain    []Explanation
			Selectors  [][]string
			Lint       []Finding
			Conditions []*metav1.Condition
			Namespaces []Finding
		}
		var a all
		for _, l := range nsLabels {
			d := r.Resolve(l)
			a.Decisions = append(a.Decisions, d)
			a.Explain = append(a.Explain, r.Explain(l))
			a.Conditions = append(a.Conditions, r.Condition(d))
		}
		for i := range len(cfg0.Policies) {
			a.Selectors = append(a.Selectors, r.PolicySelectors(i))
		}
		a.Lint = r.Lint()
		a.Namespaces = r.LintNamespaces(namespaces, []string{"a", "c"})
		b, err := json.Marshal(a)
		require.NoError(t, err)
		return string(b)
	}
	before := answers()

	// The caller's configuration.
	cfg.Policies[0].MatchingRules[0].NamespaceSelector.MatchLabels["team"] = "evil"
	cfg.Policies[1].MatchingRules[0].NamespaceSelector.MatchExpressions[0].Values[0] = "evil"
	cfg.Policies[1].Visibility = Public
	cfg.Policies = append(cfg.Policies[:0], Policy{Visibility: None})
	assert.Equal(t, before, answers(), "changing the configuration after Compile")

	// Everything returned that the caller owns.
	for _, l := range nsLabels {
		e := r.Explain(l)
		for i := range e.Policies {
			e.Policies[i].Selector, e.Policies[i].Matched = "evil", !e.Policies[i].Matched
		}
		c := r.Condition(r.Resolve(l))
		c.Reason, c.Message = "Evil", "evil"
	}
	for i := range len(cfg0.Policies) {
		if s := r.PolicySelectors(i); len(s) > 0 {
			s[0] = "evil"
		}
	}
	for _, f := range r.Lint() {
		f.Message = "evil"
	}
	for _, f := range r.LintNamespaces(namespaces, []string{"a", "c"}) {
		f.Message = "evil"
	}
	namespaces["a"]["team"] = "evil"
	namespaces = map[string]map[string]string{"a": {"team": "a"}, "b": {"tier": "x"}, "c": {}}
	assert.Equal(t, before, answers(), "changing returned values")
}
