package inventory

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/internal/strict"
)

// listOf is a kubectl List of the objects, each written as its lines at the top level.
var listOf = istiotest.ListOf

const (
	shopNamespace = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop\n"
	shopEntry     = "apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata:\n  name: api\n  namespace: shop\nspec:\n  hosts:\n  - api.example.com\n"
)

func TestSkippedObjectsProblemsRefuseNothing(t *testing.T) {
	const deep = strict.MaxPathSteps/2 + 1 // Lists nested so deep, a problem's path is 68 steps
	tests := []struct {
		name string
		in   string
		err  string // "": the inventory loads, with the namespace shop
	}{
		{"an octal file mode in a Deployment", listOf(shopNamespace, istiotest.OctalDeployment), ""},
		{"a key given twice in a ConfigMap", listOf(istiotest.TwiceConfigMap, shopNamespace), ""},
		{"both, in separate documents", shopNamespace + "---\n" + istiotest.OctalDeployment + "---\n" + istiotest.TwiceConfigMap, ""},
		{"in a nested List", listOf(shopNamespace, listOf(istiotest.OctalDeployment)), ""},
		{"in a document only the full reader reads", listOf(shopNamespace, "kind: ConfigMap\ndata:\n  a: &x 1\n  a: *x\n"), ""},
		{"as JSON", `{"kind": "List", "items": [{"kind": "ConfigMap", "data": {"a": 1, "a": 2}}, {"kind": "Namespace", "metadata": {"name": "shop"}}]}`, ""},
		{"a key given twice in a ServiceEntry", listOf(shopNamespace, strings.Replace(shopEntry, "  hosts:\n", "  hosts: []\n  hosts:\n", 1)),
			"items[1].spec.hosts: given twice (lines 14 and 15)"},
		{"an octal number in a Namespace", listOf(strings.Replace(shopNamespace, "name: shop\n", "name: shop\n  generation: 010\n", 1)),
			"items[0].metadata.generation: 010 is ambiguous: YAML 1.1 readers take a leading zero as octal, YAML 1.2 readers as decimal; write it without the zero, or quote it"},
		{"in a read object of a nested List", listOf(istiotest.OctalDeployment, listOf(strings.Replace(shopNamespace, "kind: Namespace\n", "kind: Namespace\nkind: Namespace\n", 1))),
			"items[1].items[0].kind: given twice (lines 20 and 21)"},
		{"in the kind, which decides", listOf(shopNamespace, strings.Replace(istiotest.OctalDeployment, "kind: Deployment\n", "kind: Deployment\nkind: ServiceEntry\n", 1)),
			"items[1].kind: given twice (lines 9 and 10)\nitems[1].spec.template.spec.volumes[0].secret.defaultMode: 0400 is ambiguous: YAML 1.1 readers take a leading zero as octal, YAML 1.2 readers as decimal; write it without the zero, or quote it"},
		{"in the List itself", strings.Replace(listOf(shopNamespace), "kind: List\n", "kind: List\nkind: List\n", 1),
			"kind: given twice (lines 2 and 3)"},
		{"in the second document", shopNamespace + "---\nkind: Namespace\nmetadata:\n  name: x\n  name: y\n",
			"document 2: metadata.name: given twice (lines 8 and 9)"},
		// The apiVersion decides whether a Service or a Sidecar is read: given twice, the
		// first value (another group's) must not make the object, and its problems, vanish.
		{"in a Service's apiVersion, which decides", listOf(shopNamespace, "apiVersion: serving.knative.dev/v1\napiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\nspec: {ports: [{port: 99999}]}\n"),
			"items[1].apiVersion: given twice (lines 8 and 9)"},
		{"in a Sidecar's apiVersion, which decides", listOf(shopNamespace, "apiVersion: example.com/v1\napiVersion: networking.istio.io/v1\nkind: Sidecar\nmetadata: {name: s, namespace: shop}\nspec: {egress: [{hosts: [\"./*\"]}]}\n"),
			"items[1].apiVersion: given twice (lines 8 and 9)"},
		// A problem keeps the first strict.MaxPathSteps steps of its path: in Lists nested
		// deeper than half that, where it is cannot be told, so it is not dropped.
		{"in Lists nested deeper than a problem's path says",
			strings.Repeat(`{kind: List, items: [`, deep) + `{kind: Namespace, metadata: {name: shop}}, {kind: ConfigMap, data: {a: x, a: y}}` + strings.Repeat("]}", deep),
			strings.Repeat("items[0].", 15) + "items[0]…4 steps…" + strings.Repeat(".items[0]", 14) + ".items[1].data.a: given twice (lines 1 and 1)"},
		{"in a Deployment's apiVersion, which decides nothing", listOf(shopNamespace, strings.Replace(istiotest.OctalDeployment, "apiVersion: apps/v1\n", "apiVersion: apps/v1\napiVersion: v1\n", 1)), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inv, err := Load([]byte(tt.in), "")
			if tt.err != "" {
				require.Error(t, err)
				assert.Equal(t, tt.err, err.Error())
				return
			}
			require.NoError(t, err)
			assert.Contains(t, inv.Namespaces, "shop")
		})
	}
}

// TestProblemsInSidecarsAreKept: a Sidecar is an object Load reads, so a problem
// inside it refuses the inventory, where the same problem in a ConfigMap does not.
func TestProblemsInSidecarsAreKept(t *testing.T) {
	const ns = "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n"
	for _, tc := range []struct {
		name, doc string
		wantErr   string
	}{
		{"a key twice in a Sidecar", "apiVersion: networking.istio.io/v1\nkind: Sidecar\nmetadata: {name: default, namespace: shop}\nspec:\n  egress:\n  - hosts: [\"./*\"]\n    hosts: [\"istio-system/*\"]\n", "given twice"},
		{"a key twice in a ConfigMap", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: shop}\ndata:\n  a: b\n  a: c\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load([]byte(ns+"---\n"+tc.doc), "")
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.wantErr)
		})
	}
}

// TestNestedListItemsAreNamedInLinearTime: an item of Lists nested n deep is named in O(n)
// (its path spelt in one pass, and only for a message), so that every loader costs what it
// reads plus what it writes: an inventory with a problem in every item costs what its
// longer message does (package mesh holds its loaders to the same).
func TestNestedListItemsAreNamedInLinearTime(t *testing.T) {
	const badNS = `{"kind": "Namespace", "metadata": {"name": "NS-{i}"}}`
	for _, tc := range []struct {
		name string
		item string
		load func([]byte) error
		fail bool
	}{
		{"Load, a bad name in every item", badNS, func(b []byte) error { _, err := Load(b, ""); return err }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			istiotest.NestedListsGrowth(t, tc.item, tc.load, tc.fail)
		})
	}
}
