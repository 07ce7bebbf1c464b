package ambient

import (
	"encoding/json"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// TestOwnedValuesDoNotAlias mutates every value the caller owns — the mesh configuration
// given to New and Diff, and every slice, map and pointer returned by the index and the
// audit other than the documented read-only Service views — and checks that no answer
// changes.
func TestOwnedValuesDoNotAlias(t *testing.T) {
	config := func() *visibility.Config {
		return &visibility.Config{DefaultVisibility: visibility.Public, Policies: []visibility.Policy{
			{Visibility: visibility.Namespace, MatchingRules: []visibility.MatchingRule{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}}}},
			{Visibility: visibility.None, MatchingRules: []visibility.MatchingRule{{NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"x", "y"}},
			}}}}},
		}}
	}
	cfg := config()
	m := &mesh.Config{Visibility: cfg, DefaultServiceExportTo: []string{"a", "nowhere"}}
	inv := inventory.Inventory{
		Namespaces: map[string]map[string]string{"a": {"team": "a"}, "b": {"tier": "x"}, "c": {}},
		Services: []inventory.Service{
			{Kind: inventory.ServiceEntry, Namespace: "a", Name: "db", Hosts: []string{"db.example.com"}, Addresses: pfx("10.0.0.1")},
			{Kind: inventory.ServiceEntry, Namespace: "b", Name: "db", Hosts: []string{"db.example.com"}, Addresses: pfx("10.0.0.2")},
			{Kind: inventory.ServiceEntry, Namespace: "c", Name: "web", Hosts: []string{"web.example.com"}, Addresses: pfx("10.0.0.3"), ExportTo: []string{"."}},
			{Kind: inventory.KubernetesService, Namespace: "c", Name: "api", Addresses: pfx("10.1.0.1")},
		},
	}
	ix, err := New(m, &inv)
	require.NoError(t, err)
	answers := func() string {
		type all struct {
			Decisions []visibility.Decision
			Conflicts []Conflict
			IndexLint []Finding
			Hosts     []Explanation
			Addresses []Explanation
			Audit     Audit
		}
		var a all
		for _, d := range ix.Entries {
			a.Decisions = append(a.Decisions, d)
		}
		a.Conflicts = ix.Conflicts()
		a.IndexLint = ix.Lint()
		for _, client := range []string{"a", "b", "c"} {
			a.Hosts = append(a.Hosts, ix.ExplainHost(client, "db.example.com"), ix.ExplainHost(client, "api"))
			a.Addresses = append(a.Addresses, ix.ExplainAddress(client, netip.MustParseAddr("10.0.0.2")))
		}
		a.Audit, err = Diff(meshOf(config()), nil, &inv) // a configuration no one changes: Diff keeps nothing of its own
		require.NoError(t, err)
		b, err := json.Marshal(a)
		require.NoError(t, err)
		return string(b)
	}
	before := answers()

	// The caller's configuration.
	cfg.Policies[0].MatchingRules[0].NamespaceSelector.MatchLabels["team"] = "evil"
	cfg.Policies[1].MatchingRules[0].NamespaceSelector.MatchExpressions[0].Values[0] = "evil"
	cfg.Policies[1].Visibility = visibility.Public
	cfg.Policies = append(cfg.Policies[:0], visibility.Policy{Visibility: visibility.None})
	m.DefaultServiceExportTo[1] = "evil"
	m.Visibility = nil
	assert.Equal(t, before, answers(), "changing the configuration after New")

	// Everything returned that the caller owns.
	for _, c := range ix.Conflicts() {
		c.Services[0].Name = "evil"
		for _, a := range c.Answers {
			if a.Service != nil {
				a.Service.Name = "evil"
			}
			a.Clients[0] = "evil"
		}
	}
	for _, f := range ix.Lint() {
		f.Message = "evil"
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
	audit, err := Diff(meshOf(config()), nil, &inv)
	require.NoError(t, err)
	for i := range audit.Entries {
		audit.Entries[i].Key.Name = "evil"
		if len(audit.Entries[i].Lost) > 0 {
			audit.Entries[i].Lost[0] = "evil"
		}
	}
	for _, h := range append(audit.Hosts, audit.Addresses...) {
		h.Key.Clients[0] = "evil"
		for _, ref := range []*inventory.ServiceRef{h.Before, h.After} {
			if ref != nil {
				ref.Name = "evil"
			}
		}
	}
	assert.Equal(t, before, answers(), "changing returned values")
}
