package ambient

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// meshOf is the mesh configuration whose serviceEntryVisibility is c, every other field
// Istio's default; nil for a nil c.
func meshOf(c *visibility.Config) *mesh.Config {
	if c == nil {
		return nil
	}
	return &mesh.Config{Visibility: c}
}

// mustNew is New of c and inv, failing the test on an error.
func mustNew(t testing.TB, c *visibility.Config, inv inventory.Inventory) *Index {
	t.Helper()
	ix, err := New(meshOf(c), &inv)
	require.NoError(t, err)
	return ix
}

// mustCompile is the resolver the index compiles from c: the references decide with it.
func mustCompile(t testing.TB, c *visibility.Config) *visibility.Resolver {
	t.Helper()
	r, err := visibility.Compile(c)
	require.NoError(t, err)
	return r
}

func matchLabels(kv ...string) visibility.MatchingRule {
	return visibility.MatchingRule{NamespaceSelector: istiotest.LabelSelector(kv...)}
}

func newRand(a, b uint64) *rand.Rand { return rand.New(rand.NewPCG(a, b)) }

// benchConfig has n policies, each matching one team in prod; a namespace of the last team
// walks every policy.
func benchConfig(n int) *visibility.Config { return istiotest.ManyPolicies[visibility.Config](n) }

// autoAllocateLabel is the label with which a ServiceEntry opts out of address
// auto-allocation.
const autoAllocateLabel = "networking.istio.io/enable-autoallocate-ip"
