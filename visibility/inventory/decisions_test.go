package inventory

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/meshscope/meshscope/visibility"
)

// TestDecisions: a ServiceEntry gets the decision of its namespace's labels, a Kubernetes
// Service PUBLIC with no policy, in the order of Services.
func TestDecisions(t *testing.T) {
	r, err := visibility.Compile(&visibility.Config{
		DefaultVisibility: visibility.Namespace,
		Policies: []visibility.Policy{{Visibility: visibility.None, MatchingRules: []visibility.MatchingRule{
			{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}},
		}}},
	})
	require.NoError(t, err)
	inv := &Inventory{
		Namespaces: map[string]map[string]string{"a": {"team": "a"}, "b": {}},
		Services: []Service{
			{Kind: ServiceEntry, Namespace: "a", Name: "x"},
			{Kind: KubernetesService, Namespace: "a", Name: "x"},
			{Kind: ServiceEntry, Namespace: "b", Name: "y"},
			{Kind: ServiceEntry, Namespace: "a", Name: "z"},
			{Kind: ServiceEntry, Namespace: "unlabelled", Name: "w"},
		},
	}
	none := visibility.Decision{Visibility: visibility.None, Policy: 0}
	public := visibility.Decision{Visibility: visibility.Public, Policy: visibility.NoIndex}
	byDefault := visibility.Decision{Visibility: visibility.Namespace, Policy: visibility.NoIndex}
	assert.Equal(t, []visibility.Decision{none, public, byDefault, none, byDefault}, inv.Decisions(r))

	var nilInv *Inventory
	assert.Nil(t, nilInv.Decisions(r))
}
