package mesh

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/visibility"
)

// listOf is a kubectl List of the objects, each written as its lines at the top level.
var listOf = istiotest.ListOf

const (
	shopNamespace = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n"
)

func TestSkippedObjectsProblemsLeaveTheMeshConfig(t *testing.T) {
	const operator = "apiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\nmetadata:\n  name: istio\nspec:\n  meshConfig:\n    serviceEntryVisibility:\n      defaultVisibility: NAMESPACE\n"
	const istioMap = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: istio\n  namespace: istio-system\ndata:\n  mesh: |\n    serviceEntryVisibility:\n      defaultVisibility: NAMESPACE\n"
	tests := []struct {
		name string
		in   string
		err  string // "": the configuration loads
	}{
		{"an octal file mode in a Deployment", listOf(istiotest.OctalDeployment, operator), ""},
		{"a key given twice in another ConfigMap", listOf(istiotest.TwiceConfigMap, istioMap), ""},
		{"in separate documents", istiotest.OctalDeployment + "---\n" + istioMap, ""},
		{"a key given twice in the istio ConfigMap", listOf(strings.Replace(istioMap, "  name: istio\n", "  name: istio\n  name: istio\n", 1)),
			"items[0].metadata.name: given twice (lines 7 and 8)"},
		{"in the IstioOperator", listOf(istiotest.OctalDeployment, strings.Replace(operator, "spec:\n", "spec:\n  revision: 010\n", 1)),
			"items[1].spec.revision: 010 is ambiguous: YAML 1.1 readers take a leading zero as octal, YAML 1.2 readers as decimal; write it without the zero, or quote it"},
		// A ConfigMap's name decides whether it is read: given twice, the first value must not
		// make the istio ConfigMap, and its problems, vanish.
		{"in a ConfigMap's name, which decides", listOf(strings.Replace(istioMap, "  name: istio\n", "  name: app\n  name: istio\n", 1)),
			"items[0].metadata.name: given twice (lines 7 and 8)"},
		{"in a ConfigMap's metadata, which decides", listOf(strings.Replace(istioMap, "metadata:\n", "metadata: {name: app}\nmetadata:\n", 1)),
			"items[0].metadata: given twice (lines 6 and 7)"},
		{"in another kind's name, which decides nothing", listOf(strings.Replace(istiotest.OctalDeployment, "  name: web\n", "  name: web\n  name: istio\n", 1), operator), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, load := range []func([]byte) (*visibility.Config, error){visibility.LoadConfig, func(b []byte) (*visibility.Config, error) {
				m, err := Load(b)
				if err != nil {
					return nil, err
				}
				return m.Visibility, nil
			}} {
				c, err := load([]byte(tt.in))
				if tt.err != "" {
					require.Error(t, err)
					assert.Equal(t, tt.err, err.Error())
					continue
				}
				require.NoError(t, err)
				require.NotNil(t, c)
				assert.Equal(t, visibility.Namespace, c.DefaultVisibility)
			}
		})
	}
}

// TestNestedListItemsAreNamedInLinearTime: an item of Lists nested n deep is named in O(n)
// (its path spelt in one pass, and only for a message), so that every loader costs what it
// reads plus what it writes: at 4x the depth, a stream of mesh configurations costs 4x, and
// one with a problem in every item costs what its longer message does.
func TestNestedListItemsAreNamedInLinearTime(t *testing.T) {
	const (
		configMap = `{"kind": "ConfigMap", "metadata": {"name": "istio-{i}"}, "data": {"mesh": ""}}`
		brokenMap = `{"kind": "ConfigMap", "metadata": {"name": "istio-{i}"}, "data": {"mesh": "a: ["}}`
	)
	for _, tc := range []struct {
		name string
		item string
		load func([]byte) error
		fail bool
	}{
		{"LoadConfig", configMap, func(b []byte) error { _, err := visibility.LoadConfig(b); return err }, false},
		{"Load", configMap, func(b []byte) error { _, err := Load(b); return err }, false},
		{"LoadConfig, a data.mesh that is not YAML in every item", brokenMap, func(b []byte) error { _, err := visibility.LoadConfig(b); return err }, true},
		{"Load, a data.mesh that is not YAML in every item", brokenMap, func(b []byte) error { _, err := Load(b); return err }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			istiotest.NestedListsGrowth(t, tc.item, tc.load, tc.fail)
		})
	}
}
