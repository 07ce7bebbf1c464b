package visibility

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A configuration with one NONE default, in every wrapper LoadConfig reads.
var noneDefault = &Config{DefaultVisibility: None}

// loadConfigWrapperTests: every wrapper LoadConfig reads, holding noneDefault.
var loadConfigWrapperTests = []struct {
	name string
	in   string
	want *Config
}{
	{"kubectl get istiooperator -o yaml (a List)", `apiVersion: v1
kind: List
items:
- apiVersion: install.istio.io/v1alpha1
  kind: IstioOperator
  metadata: {name: installed-state, namespace: istio-system}
  spec:
    meshConfig:
      serviceEntryVisibility: {defaultVisibility: NONE}
metadata:
  resourceVersion: ""
`, noneDefault},
	{"List of ConfigMaps, the revisioned istio one carries the mesh", `kind: List
items:
- kind: ConfigMap
  metadata: {name: kube-root-ca.crt}
  data: {ca.crt: x}
- kind: ConfigMap
  metadata: {name: istio-sidecar-injector}
  data: {config: x, values: y}
- kind: ConfigMap
  metadata: {name: istio-1-24}
  data:
    mesh: "serviceEntryVisibility: {defaultVisibility: NONE}"
`, noneDefault},
	{"nested Lists", "kind: List\nitems:\n- kind: List\n  items:\n  - {kind: IstioOperator, spec: {meshConfig: {serviceEntryVisibility: {defaultVisibility: NONE}}}}\n", noneDefault},
	{"IstioOperator spec.values.meshConfig", "kind: IstioOperator\nspec:\n  values:\n    meshConfig:\n      serviceEntryVisibility: {defaultVisibility: NONE}\n", noneDefault},
	{"Helm values.meshConfig", "values:\n  meshConfig:\n    serviceEntryVisibility: {defaultVisibility: NONE}\n", noneDefault},
	{"document separator carrying content", "--- {kind: IstioOperator, spec: {meshConfig: {serviceEntryVisibility: {defaultVisibility: NONE}}}}\n", noneDefault},
	{"%YAML 1.2 directive", "%YAML 1.2\n---\nserviceEntryVisibility: {defaultVisibility: NONE}\n", noneDefault},
	{"%YAML 1.1 directive", "%YAML 1.1\n---\nserviceEntryVisibility: {defaultVisibility: NONE}\n", noneDefault},
	{"JSON List", `{"kind":"List","items":[{"kind":"IstioOperator","spec":{"meshConfig":{"serviceEntryVisibility":{"defaultVisibility":"NONE"}}}}]}`, noneDefault},
	{"IstioOperator without meshConfig is not configured", "kind: List\nitems:\n- {kind: IstioOperator, spec: {profile: ambient}}\n", nil},
	{"istio ConfigMap without the block is not configured", "kind: ConfigMap\nmetadata: {name: istio}\ndata: {mesh: 'accessLogFile: /dev/stdout'}\n", nil},
	{"empty YAML value for the block", "meshConfig:\n  serviceEntryVisibility:\n", nil},
	{"null meshConfig", "meshConfig: null\n", nil},
	{"merge keys apply", "base: &b {defaultVisibility: NONE}\nserviceEntryVisibility:\n  <<: *b\n", noneDefault},
}

func TestLoadConfigWrappers(t *testing.T) {
	tests := loadConfigWrapperTests
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LoadConfig([]byte(tt.in))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// loadConfigRefusals: input LoadConfig refuses, with every line of the error.
var loadConfigRefusals = []struct {
	name string
	in   string
	errs []string
}{
	{"empty input", "", []string{
		"no mesh configuration: found nothing: the input is empty; expected an IstioOperator, the istio ConfigMap, Helm values with meshConfig, or a meshConfig",
	}},
	{"only a separator", "---\n", []string{
		"no mesh configuration: found an empty document; expected an IstioOperator, the istio ConfigMap, Helm values with meshConfig, or a meshConfig",
	}},
	{"only a Deployment", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n", []string{
		"no mesh configuration: found 1 Deployment; expected an IstioOperator, the istio ConfigMap, Helm values with meshConfig, or a meshConfig",
	}},
	// What kubectl prints when nothing matches (the wrong context, the wrong namespace) is
	// not empty input.
	{"an empty List", "apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: \"\"\n", []string{
		"no mesh configuration: found an empty List; expected an IstioOperator, the istio ConfigMap, Helm values with meshConfig, or a meshConfig",
	}},
	{"an inventory passed by mistake", "kind: List\nitems:\n- {kind: Namespace, metadata: {name: a}}\n- {kind: Namespace, metadata: {name: b}}\n- {kind: ServiceEntry, metadata: {name: x, namespace: a}}\n- {kind: ConfigMap, metadata: {name: other}}\n", []string{
		"no mesh configuration: found 1 ConfigMap, 2 Namespace, 1 ServiceEntry; expected an IstioOperator, the istio ConfigMap, Helm values with meshConfig, or a meshConfig",
	}},
	{"misspelt meshConfig in Helm values", "meshconfig:\n  serviceEntryVisibility: {defaultVisibility: NONE}\n", []string{
		`(top level): unknown field "meshconfig" (did you mean "meshConfig"? as written, the mesh configuration is not read)`,
	}},
	{"misspelt values.meshConfig", "values:\n  mesh_config: {}\n", []string{
		`values: unknown field "mesh_config" (did you mean "meshConfig"? as written, the mesh configuration is not read)`,
	}},
	{"misspelt spec.meshConfig", "kind: IstioOperator\nspec:\n  meshconfig: {}\n", []string{
		`spec: unknown field "meshconfig" (did you mean "meshConfig"? as written, the mesh configuration is not read)`,
	}},
	{"misspelt data.mesh", "kind: ConfigMap\nmetadata: {name: istio}\ndata:\n  Mesh: 'serviceEntryVisibility: {}'\n", []string{
		`data: unknown field "Mesh" (did you mean "mesh"? as written, the mesh configuration is not read)`,
	}},
	{"misspelt kind", "kind: List\nitems:\n- kind: istiooperator\n  spec: {meshConfig: {serviceEntryVisibility: {}}}\n", []string{
		`items[0]: kind: unknown kind "istiooperator" (did you mean "IstioOperator"? as written, the object would be skipped)`,
	}},
	{"key given twice", "serviceEntryVisibility:\n  policies: []\n  defaultVisibility: NONE\n  policies: []\n", []string{
		"serviceEntryVisibility.policies: given twice (lines 2 and 4)",
	}},
	{"key given twice inside data.mesh", "kind: ConfigMap\nmetadata: {name: istio}\ndata:\n  mesh: |\n    serviceEntryVisibility: {}\n    serviceEntryVisibility: {}\n", []string{
		"data.mesh.serviceEntryVisibility: given twice (lines 1 and 2)",
	}},
	{"label given twice in a selector", "policies:\n- matchingRules:\n  - namespaceSelector:\n      matchLabels: {team: a, team: b}\n", []string{
		"policies[0].matchingRules[0].namespaceSelector.matchLabels.team: given twice (lines 4 and 4)",
	}},
	{"JSON key given twice", `{"serviceEntryVisibility": {"defaultVisibility": "NONE", "defaultVisibility": "PUBLIC"}}`, []string{
		"serviceEntryVisibility.defaultVisibility: given twice (lines 1 and 1)",
	}},
	{"data after a JSON document", `{"serviceEntryVisibility": {}} {"x": 1}`, []string{
		"document 2: not YAML or JSON: data after the end of document 1 (a second JSON value, or text after the document without a --- line)",
	}},
	{"octal-looking number", "defaultVisibility: 01\n", []string{
		"defaultVisibility: 01 is ambiguous: YAML 1.1 readers take a leading zero as octal, YAML 1.2 readers as decimal; write it without the zero, or quote it",
	}},
	{"block in spec.meshConfig and spec.values.meshConfig", "kind: IstioOperator\nspec:\n  meshConfig: {serviceEntryVisibility: {}}\n  values: {meshConfig: {serviceEntryVisibility: {}}}\n", []string{
		"spec.values.meshConfig.serviceEntryVisibility: a second serviceEntryVisibility configuration; the first is at spec.meshConfig.serviceEntryVisibility",
	}},
	{"data.mesh with two documents", "kind: ConfigMap\nmetadata: {name: istio}\ndata: {mesh: \"a: 1\\n---\\nb: 2\\n\"}\n", []string{
		"data.mesh: holds 2 YAML documents; the meshConfig is one",
	}},
	{"a List item that is not an object", "kind: List\nitems: [1]\n", []string{"items[0]: must be an object, got the number 1"}},
	{"items not a list", "kind: List\nitems: {}\n", []string{"items: must be a list, got an object"}},
}

func TestLoadConfigRefuses(t *testing.T) {
	tests := loadConfigRefusals
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LoadConfig([]byte(tt.in))
			require.Error(t, err)
			assert.Nil(t, got)
			assert.Equal(t, strings.Join(tt.errs, "\n"), err.Error())
		})
	}
}

// loadInventoryRefusals: input LoadInventory refuses, with every line of the error;
// FuzzLoadInventory starts from their inputs and those of loadInventoryShapes.
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
	{"empty input", "", []string{
		"no inventory: found nothing: the input is empty; expected Namespace, ServiceEntry and Service objects (kubectl get namespaces,serviceentries,services,sidecars -A -o yaml)",
	}},
	{"empty Lists and an empty document", "apiVersion: v1\nitems: []\nkind: List\n---\n---\n{kind: List, items: [{kind: List}]}\n", []string{
		"no inventory: found 2 empty Lists and an empty document; expected Namespace, ServiceEntry and Service objects (kubectl get namespaces,serviceentries,services,sidecars -A -o yaml)",
	}},
	{"a mesh configuration passed by mistake", "kind: IstioOperator\nspec: {}\n", []string{
		"no inventory: found 1 IstioOperator; expected Namespace, ServiceEntry and Service objects (kubectl get namespaces,serviceentries,services,sidecars -A -o yaml)",
	}},
	{"a Service of another API group only", "apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata: {name: a, namespace: b}\n", []string{
		"no inventory: found 1 Service; expected Namespace, ServiceEntry and Service objects (kubectl get namespaces,serviceentries,services,sidecars -A -o yaml)",
	}},
	{"Sidecars alone: the hint names the kubectl command that lists them too", "apiVersion: networking.istio.io/v1\nkind: Sidecar\nmetadata: {name: default, namespace: istio-system}\nspec: {egress: [{hosts: [\"./*\"]}]}\n", []string{
		"no inventory: found 1 Sidecar; expected Namespace, ServiceEntry and Service objects (kubectl get namespaces,serviceentries,services,sidecars -A -o yaml)",
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
		`items[1] (ServiceEntry shop/api): spec.hosts[0]: "api.*.example.com" is not a DNS name: label "*" must not contain '*' (allowed: a-z, 0-9 and "-")`,
		`items[1] (ServiceEntry shop/api): spec.addresses[0]: "10.0.0.0/33" is not an IP or CIDR`,
		`items[1] (ServiceEntry shop/api): spec.exportTo[0]: "*" must be the only value`,
		`items[2] (Service shop/web): spec.clusterIPs[1]: "nope" is not an IP`,
		`items[2] (Service shop/web): metadata.annotations["networking.istio.io/exportTo"][0]: "~" must be the only value`,
	}},
	{"labels not strings", "kind: Namespace\nmetadata: {name: shop, labels: {a: 1, b: true}}\n", []string{
		`Namespace shop: metadata.labels["a"]: must be a string, got the number 1`,
		`Namespace shop: metadata.labels["b"]: must be a string, got the boolean true`,
	}},
}

func TestLoadInventoryRefuses(t *testing.T) {
	tests := loadInventoryRefusals
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadInventory([]byte(tt.in), "")
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

func TestLoadInventoryShapes(t *testing.T) {
	for name, in := range loadInventoryShapes {
		t.Run(name, func(t *testing.T) {
			inv, err := LoadInventory([]byte(in), "")
			require.NoError(t, err)
			require.Contains(t, inv.Namespaces, "a")
			require.Len(t, inv.Services, 1)
			assert.Equal(t, []string{"x.example"}, inv.Services[0].Hosts)
		})
	}
	inv, err := LoadInventory([]byte("{kind: Namespace, metadata: {name: a, labels: {legacy: yes}}}\n"), "")
	require.NoError(t, err)
	assert.Equal(t, "yes", inv.Namespaces["a"]["legacy"], "yes stays the string it is in every YAML reader a label goes through")
}

func TestLoadSentinels(t *testing.T) {
	_, err := LoadConfig([]byte("kind: Deployment\n"))
	assert.ErrorIs(t, err, ErrNoMeshConfig)
	_, err = LoadConfig([]byte("serviceEntryVisibility: {}\n---\nserviceEntryVisibility: {}\n"))
	assert.ErrorIs(t, err, ErrDuplicate)
	_, err = LoadInventory([]byte("kind: Deployment\n"), "")
	assert.ErrorIs(t, err, ErrNoInventory)
	_, err = LoadInventory([]byte("kind: List\nitems:\n- {kind: Namespace, metadata: {name: a}}\n- {kind: Namespace, metadata: {name: a}}\n"), "")
	assert.ErrorIs(t, err, ErrDuplicate)
	var fe *FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, FieldError{Where: "items[1] (Namespace a)", Field: "metadata.name", Value: "a", Detail: fe.Detail, Err: ErrDuplicate}, *fe)
}
