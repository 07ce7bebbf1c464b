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

func TestLoadSentinels(t *testing.T) {
	_, err := LoadConfig([]byte("kind: Deployment\n"))
	assert.ErrorIs(t, err, ErrNoMeshConfig)
	_, err = LoadConfig([]byte("serviceEntryVisibility: {}\n---\nserviceEntryVisibility: {}\n"))
	assert.ErrorIs(t, err, ErrDuplicate)
}
