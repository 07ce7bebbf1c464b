package mesh

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/meshscope/meshscope/visibility"
)

func TestLoad(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     *Config
	}{
		{"an IstioOperator", `apiVersion: install.istio.io/v1alpha1
kind: IstioOperator
spec:
  meshConfig:
    rootNamespace: istio-config
    defaultServiceExportTo: ["."]
    discoverySelectors:
    - matchLabels: {istio-discovery: enabled}
    - matchExpressions: [{key: env, operator: In, values: [prod]}]
    accessLogFile: /dev/stdout`, &Config{RootNamespace: "istio-config", DefaultServiceExportTo: []string{"."}, DiscoverySelectors: []metav1.LabelSelector{
			{MatchLabels: map[string]string{"istio-discovery": "enabled"}},
			{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"prod"}}}},
		}}},
		{"the istio ConfigMap, snake_case", "kind: ConfigMap\nmetadata: {name: istio}\ndata:\n  mesh: |\n    root_namespace: istio-config\n    discovery_selectors: [{}]\n",
			&Config{RootNamespace: "istio-config", DiscoverySelectors: []metav1.LabelSelector{{}}}},
		{"Helm values", "values:\n  meshConfig:\n    defaultServiceExportTo: ['*']\n", &Config{DefaultServiceExportTo: []string{"*"}}},
		{"a mesh configuration without the fields: the defaults", "meshConfig: {accessLogFile: /dev/stdout}\n", &Config{}},
		{"a bare serviceEntryVisibility block: the defaults beside it", "defaultVisibility: NAMESPACE\n", &Config{Visibility: &visibility.Config{DefaultVisibility: visibility.Namespace}}},
		{"in a List", "kind: List\nitems:\n- kind: IstioOperator\n  spec: {meshConfig: {rootNamespace: r}}\n", &Config{RootNamespace: "r"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Load([]byte(tc.in))
			require.NoError(t, err)
			assert.Equal(t, tc.want, m)
		})
	}
}

func TestLoadRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"nothing", "", []string{"no mesh configuration: found nothing: the input is empty"}},
		{"a misspelt field", "meshConfig: {discoverySelector: [{}]}\n", []string{`meshConfig: unknown field "discoverySelector" (did you mean "discoverySelectors"? as written, it is ignored)`}},
		{"match_labels", "meshConfig: {discoverySelectors: [{match_labels: {a: b}}]}\n", []string{`meshConfig.discoverySelectors[0]: unknown field "match_labels" (did you mean "matchLabels"?)`}},
		{"a bad selector", "meshConfig: {discoverySelectors: [{matchExpressions: [{key: a, operator: In}]}]}\n", []string{`meshConfig.discoverySelectors[0].matchExpressions[0].values: Required value: must be specified when`}},
		{"a null selector", "meshConfig: {discoverySelectors: [null]}\n", []string{`meshConfig.discoverySelectors[0]: a discovery selector may not be null`}},
		{"a bad default exportTo", "meshConfig: {defaultServiceExportTo: ['*', Shop]}\n", []string{`meshConfig.defaultServiceExportTo[1]: "Shop" is not "*", ".", "~" or a namespace name`}},
		{"a bad root namespace", "meshConfig: {rootNamespace: Istio_System}\n", []string{`meshConfig.rootNamespace: "Istio_System"`}},
		{"a wrong type", "meshConfig: {rootNamespace: [a]}\n", []string{`meshConfig.rootNamespace: must be a string`}},
		{"given twice", "kind: IstioOperator\nspec: {meshConfig: {rootNamespace: a}, values: {meshConfig: {rootNamespace: b}}}\n", []string{`spec.values.meshConfig.rootNamespace: a second rootNamespace; the first is at spec.meshConfig.rootNamespace`}},
		{"a key twice", "meshConfig: {rootNamespace: a, rootNamespace: b}\n", []string{`given twice`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load([]byte(tc.in))
			require.Error(t, err)
			lines := strings.Split(err.Error(), "\n")
			require.Len(t, lines, len(tc.want), "%v", err)
			for i := range lines {
				assert.Contains(t, lines[i], tc.want[i])
			}
		})
	}
	_, err := Load(nil)
	assert.True(t, errors.Is(err, visibility.ErrNoMeshConfig))
}

func TestConfigJSON(t *testing.T) {
	var m Config
	require.NoError(t, json.Unmarshal([]byte(`{"rootNamespace": "r", "discovery_selectors": [{"matchLabels": {"a": "b"}}]}`), &m))
	assert.Equal(t, Config{RootNamespace: "r", DiscoverySelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"a": "b"}}}}, m)
	err := json.Unmarshal([]byte(`{"rootNamespce": "r"}`), &m)
	assert.ErrorContains(t, err, `unknown field "rootNamespce" (did you mean "rootNamespace"?)`)
	b, err := json.Marshal(Config{RootNamespace: "r"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"rootNamespace": "r"}`, string(b))
	assert.NoError(t, (*Config)(nil).Validate())
	assert.ErrorContains(t, (&Config{DefaultServiceExportTo: []string{"Shop"}}).Validate(), `defaultServiceExportTo[0]: "Shop" is not`)
}

func FuzzLoad(f *testing.F) {
	for _, s := range []string{"meshConfig: {rootNamespace: a, defaultServiceExportTo: ['.'], discoverySelectors: [{matchLabels: {a: b}}]}",
		"kind: ConfigMap\nmetadata: {name: istio}\ndata: {mesh: 'root_namespace: x'}", "{\"values\": {\"meshConfig\": {\"discovery_selectors\": [{}]}}}", "", "meshConfig: {discoverySelector: []}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Load(data)
		if err != nil {
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("Load returned a Config that does not validate: %v", err)
		}
	})
}

// FuzzConfigUnmarshal holds json.Unmarshal into a Config to Load: a value it
// reads, and that validates, reads the same when it is the meshConfig of a mesh
// configuration file; and it never panics.
func FuzzConfigUnmarshal(f *testing.F) {
	for _, s := range []string{`{"rootNamespace": "a", "defaultServiceExportTo": ["."], "discoverySelectors": [{"matchLabels": {"a": "b"}}]}`,
		`{"root_namespace": "x", "discovery_selectors": [{"matchExpressions": [{"key": "k", "operator": "In", "values": ["v"]}]}]}`,
		`{"rootNamespace": "a", "rootNamespace": "b"}`, `{"discoverySelector": []}`, `{"defaultServiceExportTo": "."}`, `null`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m Config
		if err := json.Unmarshal(data, &m); err != nil || m.Validate() != nil {
			return
		}
		loaded, err := Load([]byte(`{"meshConfig": ` + string(data) + `}`))
		if err != nil {
			t.Fatalf("json.Unmarshal read %s, Load refused it as a meshConfig: %v", data, err)
		}
		if b1, b2 := mustJSON(t, &m), mustJSON(t, loaded); b1 != b2 {
			t.Fatalf("json.Unmarshal read %s, Load %s", b1, b2)
		}
	})
}

// TestLoadEveryField reads every field at once, and each given in two places.
func TestLoadEveryField(t *testing.T) {
	m, err := Load([]byte(`kind: ConfigMap
metadata: {name: istio, namespace: istio-system}
data:
  mesh: |
    serviceEntryVisibility: {defaultVisibility: NONE}
    rootNamespace: r
    defaultServiceExportTo: [.]
    defaultVirtualServiceExportTo: ['~']
    defaultDestinationRuleExportTo: ['*']
    discoverySelectors: [{}]
    serviceScopeConfigs: [{scope: GLOBAL}]
    serviceSettings: [{settings: {clusterLocal: true}, hosts: [a.b]}]
    defaultConfig: {discoveryAddress: 'istiod.r.svc:15012', proxyMetadata: {X: y}}
`))
	require.NoError(t, err)
	assert.Equal(t, &Config{
		Visibility: &visibility.Config{DefaultVisibility: visibility.None}, RootNamespace: "r",
		DefaultServiceExportTo: []string{"."}, DefaultVirtualServiceExportTo: []string{"~"}, DefaultDestinationRuleExportTo: []string{"*"},
		DiscoverySelectors:  []metav1.LabelSelector{{}},
		ServiceScopeConfigs: []ServiceScope{{Scope: Global}}, ServiceSettings: []ServiceSetting{setting(true, "a.b")},
		DefaultConfig: ProxyConfig{DiscoveryAddress: "istiod.r.svc:15012"},
	}, m)
	assert.Equal(t, "r", m.Root())
	assert.Equal(t, "istiod.r.svc:15012", m.Discovery())
	assert.Equal(t, DefaultRootNamespace, (*Config)(nil).Root())

	_, err = Load([]byte("serviceEntryVisibility: {}\n---\nmeshConfig: {serviceEntryVisibility: {defaultVisibility: NONE}, defaultVirtualServiceExportTo: [.]}\n---\nmeshConfig: {defaultVirtualServiceExportTo: ['*']}\n"))
	require.Error(t, err)
	assert.Equal(t, []string{
		"document 2: meshConfig.serviceEntryVisibility: a second serviceEntryVisibility configuration; the first is at document 1: serviceEntryVisibility",
		"document 3: meshConfig.defaultVirtualServiceExportTo: a second defaultVirtualServiceExportTo; the first is at document 2: meshConfig.defaultVirtualServiceExportTo",
	}, strings.Split(err.Error(), "\n"))
	assert.ErrorIs(t, err, visibility.ErrDuplicate)

	_, err = Load([]byte("meshConfig: {serviceEntryVisibility: {policies: [{visibility: public}]}, defaultDestinationRuleExportTo: [a, a], defaultConfig: {discoveryAddress: x}}\n"))
	require.Error(t, err)
	assert.Equal(t, []string{
		`meshConfig.serviceEntryVisibility.policies[0].visibility: unsupported value "public": enum names are upper case ("PUBLIC"); ` + refusedBy31 +
			`unknown value "\"public\"" for enum istio.mesh.v1alpha1.ServiceEntryVisibility.Visibility; ` + runsOnDefault,
		`meshConfig.defaultDestinationRuleExportTo[1]: "a" repeats meshConfig.defaultDestinationRuleExportTo[0] ("a")`,
		`meshConfig.defaultConfig.discoveryAddress: "x" is not host:port`,
	}, strings.Split(err.Error(), "\n"), "every problem at once")
	_, err = Load([]byte("meshConfig: {serviceEntryVisibility: {policies: [{matchingRules: [{}]}]}, defaultDestinationRuleExportTo: [a, a], defaultConfig: {discoveryAddress: x}}\n"))
	require.Error(t, err)
	assert.Equal(t, []string{
		"meshConfig.serviceEntryVisibility.policies[0].matchingRules[0].namespaceSelector: Required value: a rule without a selector would never match (Istio drops it); use {} to match every namespace",
		`meshConfig.defaultDestinationRuleExportTo[1]: "a" repeats meshConfig.defaultDestinationRuleExportTo[0] ("a")`,
		`meshConfig.defaultConfig.discoveryAddress: "x" is not host:port`,
	}, strings.Split(err.Error(), "\n"))
}
