package ambient

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

func TestIndexLint(t *testing.T) {
	c := &visibility.Config{DefaultVisibility: visibility.Namespace, Policies: []visibility.Policy{
		{Visibility: visibility.Public, MatchingRules: []visibility.MatchingRule{matchLabels("tema", "platform")}}, // a typo
		{Visibility: visibility.None, MatchingRules: []visibility.MatchingRule{matchLabels("env", "sandbox")}},
		{Visibility: visibility.Public, MatchingRules: []visibility.MatchingRule{matchLabels("team", "platform")}},
	}}
	inv := inventory.Inventory{
		Namespaces: map[string]map[string]string{"platform": {"team": "platform"}, "sandbox": {"env": "sandbox"}},
		Services: []inventory.Service{
			se("platform", "github", 0, []string{"api.github.com"}),
			{Kind: inventory.ServiceEntry, Namespace: "platform", Name: "quiet", Hosts: []string{"quiet.example"}, ExportTo: []string{".", "shpo"}},
			// An annotation may repeat a namespace (Istio reads it as a set): one finding.
			{Kind: inventory.KubernetesService, Namespace: "platform", Name: "web", Hosts: []string{"web.platform.svc.cluster.local"}, Headless: true, ExportTo: []string{"shpo", "shpo"}},
		},
	}
	m := &mesh.Config{Visibility: c, DefaultServiceExportTo: []string{".", "platfrom"}} // a typo in the mesh default
	ix, err := New(m, &inv)
	require.NoError(t, err)
	var got []string
	for _, f := range ix.Lint() {
		got = append(got, f.String())
	}
	assert.Equal(t, []string{
		"WARNING SelectorMatchesNoNamespace policies[0].matchingRules[0]: the selector tema=platform selects none of the inventory's 2 namespaces",
		"WARNING PolicyDecidesNoEntry policies[0]: decides none of the inventory's ServiceEntries",
		"WARNING PolicyDecidesNoEntry policies[1]: decides none of the inventory's ServiceEntries",
		`ERROR ExportToUnknownNamespace defaultServiceExportTo: the mesh's default exportTo names namespace "platfrom", which the inventory does not have: it is the exportTo of every service that gives none`,
		`ERROR ExportToUnknownNamespace ServiceEntry platform/quiet: exportTo names namespace "shpo", which the inventory does not have: sidecars there see nothing of it`,
		"WARNING NoAddressForDNS ServiceEntry platform/quiet: no address for any of its hosts: ztunnel's DNS proxy forwards every query for them upstream",
		`ERROR ExportToUnknownNamespace KubernetesService platform/web: exportTo names namespace "shpo", which the inventory does not have: sidecars there see nothing of it`,
	}, got)
	var zero *Index
	assert.Nil(t, zero.Lint())
}
