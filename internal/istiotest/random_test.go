package istiotest_test

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/internal/kube"
	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// draw is one of everything the package makes, from r.
type draw struct {
	Config   *visibility.Config
	Selector *metav1.LabelSelector
	Labels   map[string]string
}

func drawAll(r *rand.Rand) draw {
	return draw{Config: istiotest.Config[visibility.Config](r, 4), Selector: istiotest.Selector(r), Labels: istiotest.Labels(r)}
}

// TestDeterministic: one seed gives the same values, call after call; another seed other
// values.
func TestDeterministic(t *testing.T) {
	a, b, c := rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(1, 2)), rand.New(rand.NewPCG(3, 4))
	var first, other []draw
	for range 50 {
		da, db := drawAll(a), drawAll(b)
		require.Equal(t, da, db)
		first, other = append(first, da), append(other, drawAll(c))
	}
	assert.NotEqual(t, first, other)

	// Again from the start: the values do not depend on anything but the seed.
	again := rand.New(rand.NewPCG(1, 2))
	for i := range 50 {
		require.Equal(t, first[i], drawAll(again), "draw %d", i)
	}
}

// TestValid: what the package makes passes the validation its callers rely on — a Config
// compiles, a selector is valid as a discovery selector and converts, labels are valid — and
// a Config written as JSON loads back as itself.
func TestValid(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 500 {
		c := istiotest.Config[visibility.Config](r, 3)
		require.NoError(t, c.Validate(), "config %d: %+v", i, c)
		_, err := visibility.Compile(c)
		require.NoError(t, err)

		raw, err := json.Marshal(map[string]any{"meshConfig": map[string]any{"serviceEntryVisibility": c}})
		require.NoError(t, err)
		loaded, err := visibility.LoadConfig(raw)
		require.NoError(t, err, "%s", raw)
		require.Equal(t, c, loaded, "%s", raw)

		s := istiotest.Selector(r)
		require.Empty(t, kube.SelectorProblems(s, func() fielderr.Path { return fielderr.Root(fielderr.Object) }), "%+v", s)
		_, err = metav1.LabelSelectorAsSelector(s)
		require.NoError(t, err)
		require.NoError(t, (&mesh.Config{DiscoverySelectors: []metav1.LabelSelector{*s}}).Validate())

		l := istiotest.Labels(r)
		require.Empty(t, kube.LabelProblems(func() fielderr.Path { return fielderr.Root(fielderr.Object).Child("labels") }, l), "%v", l)
		for k, v := range l {
			require.Contains(t, istiotest.Keys, k)
			require.Contains(t, istiotest.Values, v)
		}
	}
}

// TestShape: configurations keep to their bounds, and over many draws every visibility,
// operator, key and value turns up, and selectors match random labels often but not always.
func TestShape(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const n = 2000
	policies := map[int]int{}
	rules := map[int]int{}
	vis := map[visibility.Visibility]bool{}
	ops := map[metav1.LabelSelectorOperator]bool{}
	keys, values := map[string]bool{}, map[string]bool{}
	matchLabels, nilLabels, matched := 0, 0, 0
	for range n {
		c := istiotest.Config[visibility.Config](r, 3)
		require.LessOrEqual(t, len(c.Policies), 3)
		policies[len(c.Policies)]++
		vis[c.DefaultVisibility] = true
		for _, p := range c.Policies {
			require.LessOrEqual(t, len(p.MatchingRules), 2)
			rules[len(p.MatchingRules)]++
			vis[p.Visibility] = true
			for _, ru := range p.MatchingRules {
				require.NotNil(t, ru.NamespaceSelector)
			}
		}
		require.False(t, c.ApplyToSidecars)

		s := istiotest.Selector(r)
		if len(s.MatchLabels) > 0 {
			matchLabels++
		}
		for k, v := range s.MatchLabels {
			keys[k], values[v] = true, true
		}
		for _, e := range s.MatchExpressions {
			ops[e.Operator] = true
			keys[e.Key] = true
			for _, v := range e.Values {
				values[v] = true
			}
		}
		l := istiotest.Labels(r)
		if l == nil {
			nilLabels++
		}
		sel, err := metav1.LabelSelectorAsSelector(s)
		require.NoError(t, err)
		if sel.Matches(labels.Set(l)) {
			matched++
		}
	}
	assert.Equal(t, []int{0, 1, 2, 3}, sortedKeys(policies), "policies per config")
	assert.Equal(t, []int{0, 1, 2}, sortedKeys(rules), "rules per policy")
	for _, v := range istiotest.Visibilities {
		assert.True(t, vis[visibility.Visibility(v)], "visibility %q never drawn", v)
	}
	for _, op := range []metav1.LabelSelectorOperator{metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn, metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist} {
		assert.True(t, ops[op], "operator %s never drawn", op)
	}
	for _, k := range istiotest.Keys {
		assert.True(t, keys[k], "key %q never drawn", k)
	}
	for _, v := range istiotest.Values {
		assert.True(t, values[v], "value %q never drawn", v)
	}
	assert.Greater(t, matchLabels, n/4)
	assert.InDelta(t, n/10, nilLabels, n/20, "labels are nil one time in ten")
	assert.Greater(t, matched, n/10, "selectors rarely match")
	assert.Less(t, matched, n*9/10, "selectors nearly always match")
}

// TestNoPolicies: with no policies allowed, a configuration has none.
func TestNoPolicies(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 50 {
		assert.Empty(t, istiotest.Config[visibility.Config](r, 0).Policies)
	}
}

func sortedKeys(m map[int]int) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
