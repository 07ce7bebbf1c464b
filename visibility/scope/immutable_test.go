package visibility

import (
	"encoding/json"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// TestOwnedValuesDoNotAlias mutates every value the caller owns — the Config and
// ScopeConfig given to Compile and CompileScope, and every slice, map and pointer returned
// by the resolver, the index and the scoper other than the documented read-only Service
// views — and checks that no answer changes.
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
	scfg := &ScopeConfig{
		ServiceScopeConfigs: []ServiceScope{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}, Scope: Global}},
		ServiceSettings:     []ServiceSetting{{Settings: ServiceSettingValues{ClusterLocal: true}, Hosts: []string{"*.internal"}}},
	}
	sc, err := CompileScope(scfg)
	require.NoError(t, err)
	inv := Inventory{
		Namespaces: map[string]map[string]string{"a": {"team": "a"}, "b": {"tier": "x"}, "c": {}},
		Services: []Service{
			{Kind: ServiceEntry, Namespace: "a", Name: "db", Hosts: []string{"db.example.com"}, Addresses: pfx("10.0.0.1")},
			{Kind: ServiceEntry, Namespace: "b", Name: "db", Hosts: []string{"db.example.com"}, Addresses: pfx("10.0.0.2")},
			{Kind: ServiceEntry, Namespace: "c", Name: "web", Hosts: []string{"web.example.com"}, Addresses: pfx("10.0.0.3"), ExportTo: []string{"."}},
			{Kind: KubernetesService, Namespace: "c", Name: "api", Addresses: pfx("10.1.0.1")},
		},
	}
	ix, err := NewIndex(r, inv)
	require.NoError(t, err)
	nsLabels := []labels.Set{{"team": "a"}, {"tier": "x"}, {}}
	answers := func() string {
		type all struct {
			Decisions   []Decision
			Explain     []Explanation
			Selectors   [][]string
			Lint        []Finding
			Conditions  []*metav1.Condition
			Namespaces  []string
			Conflicts   []Conflict
			IndexLint   []Finding
			Hosts       []LookupExplanation
			Addresses   []LookupExplanation
			Scopes      []Scope
			ScopeExpl   []ScopeExplanation
			Audit       Audit
			ScopeChange []ScopeChange
		}
		var a all
		for _, l := range nsLabels {
			d := r.Resolve(l)
			a.Decisions = append(a.Decisions, d)
			a.Explain = append(a.Explain, r.Explain(l))
			a.Conditions = append(a.Conditions, r.Condition(d))
			a.Scopes = append(a.Scopes, sc.Scope(l, nil, "x.internal"), sc.Scope(l, nil, "db.c.svc.cluster.local"))
			a.ScopeExpl = append(a.ScopeExpl, sc.Explain(l, nil, "x.internal"))
		}
		for i := range len(cfg0.Policies) {
			a.Selectors = append(a.Selectors, r.PolicySelectors(i))
		}
		a.Lint = r.Lint()
		a.Namespaces = ix.Namespaces()
		a.Conflicts = ix.Conflicts()
		a.IndexLint = ix.Lint()
		for _, client := range []string{"a", "b", "c"} {
			a.Hosts = append(a.Hosts, ix.ExplainHost(client, "db.example.com"), ix.ExplainHost(client, "api"))
			a.Addresses = append(a.Addresses, ix.ExplainAddress(client, netip.MustParseAddr("10.0.0.2")))
		}
		a.Audit, err = Diff(r, nil, inv)
		require.NoError(t, err)
		a.ScopeChange = DiffScope(sc, nil, inv)
		b, err := json.Marshal(a)
		require.NoError(t, err)
		return string(b)
	}
	before := answers()

	// The caller's configurations.
	cfg.Policies[0].MatchingRules[0].NamespaceSelector.MatchLabels["team"] = "evil"
	cfg.Policies[1].MatchingRules[0].NamespaceSelector.MatchExpressions[0].Values[0] = "evil"
	cfg.Policies[1].Visibility = Public
	cfg.Policies = append(cfg.Policies[:0], Policy{Visibility: None})
	scfg.ServiceScopeConfigs[0].NamespaceSelector.MatchLabels["team"] = "evil"
	scfg.ServiceSettings[0].Hosts[0] = "evil"
	assert.Equal(t, before, answers(), "changing the configurations after Compile and CompileScope")

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
	ix.Namespaces()[0] = "evil"
	for _, c := range ix.Conflicts() {
		c.Services[0].Name = "evil"
		for _, a := range c.Answers {
			if a.Service != nil {
				a.Service.Name = "evil"
			}
			a.Clients[0] = "evil"
		}
	}
	for _, client := range []string{"a", "b", "c"} {
		e := ix.ExplainHost(client, "db.example.com")
		if e.Answer != nil {
			e.Answer.Name = "evil"
		}
		for i := range e.Names {
			for j := range e.Names[i].Levels {
				e.Names[i].Levels[j].Candidates = append(e.Names[i].Levels[j].Candidates[:0], Candidate{})
			}
			e.Names[i].Name = "evil"
		}
	}
	audit, err := Diff(r, nil, inv)
	require.NoError(t, err)
	for i := range audit.Entries {
		audit.Entries[i].Key.Name = "evil"
		if len(audit.Entries[i].Lost) > 0 {
			audit.Entries[i].Lost[0] = "evil"
		}
	}
	for _, h := range append(audit.Hosts, audit.Addresses...) {
		h.Key.Clients[0] = "evil"
		for _, ref := range []*ServiceRef{h.Before, h.After} {
			if ref != nil {
				ref.Name = "evil"
			}
		}
	}
	assert.Equal(t, before, answers(), "changing returned values")
}
