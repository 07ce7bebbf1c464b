package visibility

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A configuration with one NONE default, in every wrapper LoadConfig reads.
var noneDefault = &Config{DefaultVisibility: None}

// loadConfigWrapperTests: every wrapper LoadConfig reads, holding noneDefault.
var loadConfigWrapperTests = []loadConfigCase{
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
`, noneDefault, nil},
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
`, noneDefault, nil},
	{"nested Lists", "kind: List\nitems:\n- kind: List\n  items:\n  - {kind: IstioOperator, spec: {meshConfig: {serviceEntryVisibility: {defaultVisibility: NONE}}}}\n", noneDefault, nil},
	{"IstioOperator spec.values.meshConfig", "kind: IstioOperator\nspec:\n  values:\n    meshConfig:\n      serviceEntryVisibility: {defaultVisibility: NONE}\n", noneDefault, nil},
	{"Helm values.meshConfig", "values:\n  meshConfig:\n    serviceEntryVisibility: {defaultVisibility: NONE}\n", noneDefault, nil},
	{"document separator carrying content", "--- {kind: IstioOperator, spec: {meshConfig: {serviceEntryVisibility: {defaultVisibility: NONE}}}}\n", noneDefault, nil},
	{"%YAML 1.2 directive", "%YAML 1.2\n---\nserviceEntryVisibility: {defaultVisibility: NONE}\n", noneDefault, nil},
	{"%YAML 1.1 directive", "%YAML 1.1\n---\nserviceEntryVisibility: {defaultVisibility: NONE}\n", noneDefault, nil},
	{"JSON List", `{"kind":"List","items":[{"kind":"IstioOperator","spec":{"meshConfig":{"serviceEntryVisibility":{"defaultVisibility":"NONE"}}}}]}`, noneDefault, nil},
	{"IstioOperator without meshConfig is not configured", "kind: List\nitems:\n- {kind: IstioOperator, spec: {profile: ambient}}\n", nil, nil},
	{"istio ConfigMap without the block is not configured", "kind: ConfigMap\nmetadata: {name: istio}\ndata: {mesh: 'accessLogFile: /dev/stdout'}\n", nil, nil},
	{"empty YAML value for the block", "meshConfig:\n  serviceEntryVisibility:\n", nil, nil},
	{"null meshConfig", "meshConfig: null\n", nil, nil},
	{"merge keys apply", "base: &b {defaultVisibility: NONE}\nserviceEntryVisibility:\n  <<: *b\n", noneDefault, nil},
}

func TestLoadConfigWrappers(t *testing.T) {
	runLoadConfig(t, loadConfigWrapperTests)
}

// loadConfigRefusals: input LoadConfig refuses, with every line of the error.
var loadConfigRefusals = []loadConfigCase{
	{"empty input", "", nil, []string{
		"no mesh configuration: found nothing: the input is empty; expected an IstioOperator, the istio ConfigMap, Helm values with meshConfig, or a meshConfig",
	}},
	{"only a separator", "---\n", nil, []string{
		"no mesh configuration: found an empty document; expected an IstioOperator, the istio ConfigMap, Helm values with meshConfig, or a meshConfig",
	}},
	{"only a Deployment", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n", nil, []string{
		"no mesh configuration: found 1 Deployment; expected an IstioOperator, the istio ConfigMap, Helm values with meshConfig, or a meshConfig",
	}},
	// What kubectl prints when nothing matches (the wrong context, the wrong namespace) is
	// not empty input.
	{"an empty List", "apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: \"\"\n", nil, []string{
		"no mesh configuration: found an empty List; expected an IstioOperator, the istio ConfigMap, Helm values with meshConfig, or a meshConfig",
	}},
	{"an inventory passed by mistake", "kind: List\nitems:\n- {kind: Namespace, metadata: {name: a}}\n- {kind: Namespace, metadata: {name: b}}\n- {kind: ServiceEntry, metadata: {name: x, namespace: a}}\n- {kind: ConfigMap, metadata: {name: other}}\n", nil, []string{
		"no mesh configuration: found 1 ConfigMap, 2 Namespace, 1 ServiceEntry; expected an IstioOperator, the istio ConfigMap, Helm values with meshConfig, or a meshConfig",
	}},
	{"misspelt meshConfig in Helm values", "meshconfig:\n  serviceEntryVisibility: {defaultVisibility: NONE}\n", nil, []string{
		`(top level): unknown field "meshconfig" (did you mean "meshConfig"? as written, the mesh configuration is not read)`,
	}},
	{"misspelt values.meshConfig", "values:\n  mesh_config: {}\n", nil, []string{
		`values: unknown field "mesh_config" (did you mean "meshConfig"? as written, the mesh configuration is not read)`,
	}},
	{"misspelt spec.meshConfig", "kind: IstioOperator\nspec:\n  meshconfig: {}\n", nil, []string{
		`spec: unknown field "meshconfig" (did you mean "meshConfig"? as written, the mesh configuration is not read)`,
	}},
	{"misspelt data.mesh", "kind: ConfigMap\nmetadata: {name: istio}\ndata:\n  Mesh: 'serviceEntryVisibility: {}'\n", nil, []string{
		`data: unknown field "Mesh" (did you mean "mesh"? as written, the mesh configuration is not read)`,
	}},
	{"misspelt kind", "kind: List\nitems:\n- kind: istiooperator\n  spec: {meshConfig: {serviceEntryVisibility: {}}}\n", nil, []string{
		`items[0]: kind: unknown kind "istiooperator" (did you mean "IstioOperator"? as written, the object would be skipped)`,
	}},
	{"key given twice", "serviceEntryVisibility:\n  policies: []\n  defaultVisibility: NONE\n  policies: []\n", nil, []string{
		"serviceEntryVisibility.policies: given twice (lines 2 and 4)",
	}},
	{"key given twice inside data.mesh", "kind: ConfigMap\nmetadata: {name: istio}\ndata:\n  mesh: |\n    serviceEntryVisibility: {}\n    serviceEntryVisibility: {}\n", nil, []string{
		"data.mesh.serviceEntryVisibility: given twice (lines 1 and 2)",
	}},
	{"label given twice in a selector", "policies:\n- matchingRules:\n  - namespaceSelector:\n      matchLabels: {team: a, team: b}\n", nil, []string{
		"policies[0].matchingRules[0].namespaceSelector.matchLabels.team: given twice (lines 4 and 4)",
	}},
	{"JSON key given twice", `{"serviceEntryVisibility": {"defaultVisibility": "NONE", "defaultVisibility": "PUBLIC"}}`, nil, []string{
		"serviceEntryVisibility.defaultVisibility: given twice (lines 1 and 1)",
	}},
	{"data after a JSON document", `{"serviceEntryVisibility": {}} {"x": 1}`, nil, []string{
		"document 2: not YAML or JSON: data after the end of document 1 (a second JSON value, or text after the document without a --- line)",
	}},
	{"octal-looking number", "defaultVisibility: 01\n", nil, []string{
		"defaultVisibility: 01 is ambiguous: YAML 1.1 readers take a leading zero as octal, YAML 1.2 readers as decimal; write it without the zero, or quote it",
	}},
	{"block in spec.meshConfig and spec.values.meshConfig", "kind: IstioOperator\nspec:\n  meshConfig: {serviceEntryVisibility: {}}\n  values: {meshConfig: {serviceEntryVisibility: {}}}\n", nil, []string{
		"spec.values.meshConfig.serviceEntryVisibility: a second serviceEntryVisibility configuration; the first is at spec.meshConfig.serviceEntryVisibility",
	}},
	{"data.mesh with two documents", "kind: ConfigMap\nmetadata: {name: istio}\ndata: {mesh: \"a: 1\\n---\\nb: 2\\n\"}\n", nil, []string{
		"data.mesh: holds 2 YAML documents; the meshConfig is one",
	}},
	{"a List item that is not an object", "kind: List\nitems: [1]\n", nil, []string{"items[0]: must be an object, got the number 1"}},
	{"items not a list", "kind: List\nitems: {}\n", nil, []string{"items: must be a list, got an object"}},
}

func TestLoadConfigRefuses(t *testing.T) {
	runLoadConfig(t, loadConfigRefusals)
}

func TestLoadSentinels(t *testing.T) {
	_, err := LoadConfig([]byte("kind: Deployment\n"))
	assert.ErrorIs(t, err, ErrNoMeshConfig)
	_, err = LoadConfig([]byte("serviceEntryVisibility: {}\n---\nserviceEntryVisibility: {}\n"))
	assert.ErrorIs(t, err, ErrDuplicate)
}
