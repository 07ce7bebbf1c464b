package inventory

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// noInventoryHint ends Load's error for input with no Namespace, ServiceEntry or Service:
// what it expected, and the kubectl command that lists it.
const noInventoryHint = "; expected Namespace, ServiceEntry and Service objects (kubectl get namespaces,serviceentries,services,sidecars,virtualservices,destinationrules,httproutes,grpcroutes,tcproutes,tlsroutes,referencegrants,gateways.gateway.networking.k8s.io -A -o yaml)"

// loadInventoryRefusals: input Load refuses, with every line of the error;
// FuzzLoad starts from their inputs and those of loadInventoryShapes.
var loadInventoryRefusals = []struct {
	name string
	in   string
	errs []string
}{
	{"two Namespaces with one name", "kind: List\nitems:\n- {kind: Namespace, metadata: {name: shop, labels: {team: a}}}\n- {kind: Namespace, metadata: {name: shop, labels: {team: b}}}\n", []string{
		"items[1] (Namespace shop): metadata.name: a second Namespace shop (the first is items[0]); which labels apply would depend on document order",
	}},
	{"two Namespaces in two documents", "{kind: Namespace, metadata: {name: shop}}\n---\n{kind: Namespace, metadata: {name: shop}}\n", []string{
		"document 2 (Namespace shop): metadata.name: a second Namespace shop (the first is document 1); which labels apply would depend on document order",
	}},
	{"two objects of a kind with one namespace and name", "kind: List\nitems:\n- {kind: ServiceEntry, metadata: {name: a, namespace: shop}, spec: {hosts: [a.example]}}\n" +
		"- {apiVersion: v1, kind: Service, metadata: {name: a, namespace: shop}}\n- {kind: ServiceEntry, metadata: {name: a, namespace: shop}, spec: {hosts: [b.example]}}\n" +
		"- {apiVersion: v1, kind: Service, metadata: {name: a, namespace: shop}}\n- {kind: Sidecar, metadata: {name: s, namespace: shop}, spec: {egress: [{hosts: [./*]}]}}\n" +
		"- {kind: Sidecar, metadata: {name: s, namespace: shop}, spec: {egress: [{hosts: ['*/*']}]}}\n", []string{
		"items[2] (ServiceEntry shop/a): metadata.name: a second ServiceEntry shop/a (the first is items[0]); which one applies would depend on document order",
		"items[3] (Service shop/a): metadata.name: a second Service shop/a (the first is items[1]); which one applies would depend on document order",
		"items[5] (Sidecar shop/s): metadata.name: a second Sidecar shop/s (the first is items[4]); which one applies would depend on document order",
	}},
	{"empty input", "", []string{
		"no inventory: found nothing: the input is empty" + noInventoryHint,
	}},
	{"empty Lists and an empty document", "apiVersion: v1\nitems: []\nkind: List\n---\n---\n{kind: List, items: [{kind: List}]}\n", []string{
		"no inventory: found 2 empty Lists and an empty document" + noInventoryHint,
	}},
	{"a mesh configuration passed by mistake", "kind: IstioOperator\nspec: {}\n", []string{
		"no inventory: found 1 IstioOperator" + noInventoryHint,
	}},
	{"a Service of another API group only", "apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata: {name: a, namespace: b}\n", []string{
		"no inventory: found 1 Service" + noInventoryHint,
	}},
	{"Sidecars alone: the hint names the kubectl command that lists them too", "apiVersion: networking.istio.io/v1\nkind: Sidecar\nmetadata: {name: default, namespace: istio-system}\nspec: {egress: [{hosts: [\"./*\"]}]}\n", []string{
		"no inventory: found 1 Sidecar" + noInventoryHint,
	}},
	{"label given twice", "kind: Namespace\nmetadata:\n  name: shop\n  labels:\n    team: a\n    team: b\n", []string{
		"metadata.labels.team: given twice (lines 5 and 6)",
	}},
	{"label with a dotted key given twice", "kind: Namespace\nmetadata:\n  name: shop\n  labels: {kubernetes.io/metadata.name: a, kubernetes.io/metadata.name: a}\n", []string{
		`metadata.labels["kubernetes.io/metadata.name"]: given twice (lines 4 and 4)`,
	}},
	{"misspelt kind", "kind: List\nitems:\n- {kind: ServiceEntri, metadata: {name: x, namespace: a}}\n", []string{
		`items[0]: kind: unknown kind "ServiceEntri" (did you mean "ServiceEntry"? as written, the object would be skipped)`,
	}},
	{"values NewIndex would refuse, named as written", `kind: List
items:
- {kind: Namespace, metadata: {name: shop}}
- kind: ServiceEntry
  metadata: {name: api, namespace: shop}
  spec:
    hosts: [api.*.example.com, ok.example.com]
    addresses: [10.0.0.0/33]
    exportTo: ["*", "."]
- apiVersion: v1
  kind: Service
  metadata:
    name: web
    namespace: shop
    annotations: {networking.istio.io/exportTo: "~, shop"}
  spec: {clusterIPs: [10.0.0.1, nope]}
`, []string{
		`items[1] (ServiceEntry shop/api): spec.hosts[0]: domain name "*.example.com" invalid (label "*" invalid)`,
		`items[1] (ServiceEntry shop/api): spec.addresses[0]: "10.0.0.0/33" is not an IP or CIDR`,
		`items[1] (ServiceEntry shop/api): spec.exportTo[0]: cannot have both public (*) and non-public exportTo values for a resource`,
		`items[2] (Service shop/web): spec.clusterIPs[1]: "nope" is not an IP`,
		`items[2] (Service shop/web): metadata.annotations["networking.istio.io/exportTo"][0]: "~" must be the only value`,
	}},
	{"labels not strings", "kind: Namespace\nmetadata: {name: shop, labels: {a: 1, b: true}}\n", []string{
		`Namespace shop: metadata.labels["a"]: must be a string, got the number 1`,
		`Namespace shop: metadata.labels["b"]: must be a string, got the boolean true`,
	}},
}

func TestLoadRefuses(t *testing.T) {
	tests := loadInventoryRefusals
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load([]byte(tt.in), "")
			require.Error(t, err)
			assert.Equal(t, strings.Join(tt.errs, "\n"), err.Error())
		})
	}
}

// loadInventoryShapes: the shapes of input holding Namespace a and ServiceEntry a/x.
var loadInventoryShapes = map[string]string{
	"nested Lists":                   "kind: List\nitems:\n- kind: NamespaceList\n  items:\n  - {kind: Namespace, metadata: {name: a}}\n- kind: List\n  items:\n  - kind: List\n    items: [{kind: ServiceEntry, metadata: {name: x, namespace: a}, spec: {hosts: [x.example]}}]\n",
	"separator with content":         "--- {kind: Namespace, metadata: {name: a}}\n--- {kind: ServiceEntry, metadata: {name: x, namespace: a}, spec: {hosts: [x.example]}}\n",
	"%YAML directive":                "%YAML 1.2\n--- {kind: Namespace, metadata: {name: a}}\n---\n{kind: ServiceEntry, metadata: {name: x, namespace: a}, spec: {hosts: [x.example]}}\n",
	"unquoted timestamp and yes/no":  "{kind: Namespace, metadata: {name: a, labels: {legacy: yes}}}\n---\n{kind: ServiceEntry, metadata: {name: x, namespace: a, creationTimestamp: 2026-03-01T10:00:00Z}, spec: {hosts: [x.example]}}\n",
	"JSON from kubectl get -o json":  `{"apiVersion":"v1","kind":"List","items":[{"kind":"Namespace","metadata":{"name":"a"}},{"kind":"ServiceEntry","metadata":{"name":"x","namespace":"a"},"spec":{"hosts":["x.example"]}}]}`,
	"Namespace and entry, no others": "kind: Namespace\nmetadata: {name: a}\n---\nkind: ServiceEntry\nmetadata: {name: x, namespace: a}\nspec: {hosts: [x.example]}\n",
}

func TestLoadShapes(t *testing.T) {
	for name, in := range loadInventoryShapes {
		t.Run(name, func(t *testing.T) {
			inv, err := Load([]byte(in), "")
			require.NoError(t, err)
			require.Contains(t, inv.Namespaces, "a")
			require.Len(t, inv.Services, 1)
			assert.Equal(t, []string{"x.example"}, inv.Services[0].Hosts)
		})
	}
	inv, err := Load([]byte("{kind: Namespace, metadata: {name: a, labels: {legacy: yes}}}\n"), "")
	require.NoError(t, err)
	assert.Equal(t, "yes", inv.Namespaces["a"]["legacy"], "yes stays the string it is in every YAML reader a label goes through")
}

func TestLoadSentinels(t *testing.T) {
	_, err := Load([]byte("kind: Deployment\n"), "")
	assert.ErrorIs(t, err, ErrNoInventory)
	_, err = Load([]byte("kind: List\nitems:\n- {kind: Namespace, metadata: {name: a}}\n- {kind: Namespace, metadata: {name: a}}\n"), "")
	assert.ErrorIs(t, err, ErrDuplicate)
	var fe *FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, FieldError{Where: "items[1] (Namespace a)", Field: "metadata.name", Value: "a", Detail: fe.Detail, Err: ErrDuplicate}, *fe)
}
