package mesh

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/istiotest"
)

// Load reading the scope settings — serviceScopeConfigs, serviceSettings and
// defaultConfig.discoveryAddress — which package visibility/scope compiles.

// loadScopeShapes: two spellings of one scope configuration; FuzzLoadScope starts from them
// and from loadScopeRefusals.
var loadScopeShapes = map[string]string{
	"IstioOperator in a List": `kind: List
items:
- kind: IstioOperator
  spec:
    meshConfig:
      serviceScopeConfigs:
      - namespaceSelector: {matchLabels: {shared: "yes"}}
        scope: GLOBAL
      - servicesSelector: {matchLabels: {app: x}}
      serviceSettings:
      - settings: {clusterLocal: true}
        hosts: ["*.secret.svc.cluster.local"]
`,
	"the istio ConfigMap, snake_case and enum numbers": `kind: ConfigMap
metadata: {name: istio}
data:
  mesh: |
    service_scope_configs:
    - namespace_selector: {matchLabels: {shared: "yes"}}
      scope: 1
    - services_selector: {matchLabels: {app: x}}
      scope: 0
    service_settings:
    - settings: {cluster_local: true}
      hosts: ["*.secret.svc.cluster.local"]
`,
}

// loadScopeRefusals: scope settings Load refuses, and its error.
// refusedBy31 and runsOnDefault frame how Istio refuses a mesh configuration, in its words.
const (
	refusedBy31   = "Istio 1.31 refuses the whole mesh configuration: failed to convert to proto. "
	runsOnDefault = "istiod then runs on " + defaultMeshConfig
)

var loadScopeRefusals = map[string]string{
	"kind: Deployment\n":                                                                         "no mesh configuration: found 1 Deployment; expected an IstioOperator, the istio ConfigMap, Helm values with meshConfig, or a meshConfig",
	"meshConfig:\n  serviceScopeConfig: []\n":                                                    `meshConfig: unknown field "serviceScopeConfig" (did you mean "serviceScopeConfigs"? as written, it is ignored)`,
	"serviceScopeConfigs: [{scope: global}]\n":                                                   `serviceScopeConfigs[0].scope: unsupported value "global": enum names are upper case ("GLOBAL"); ` + refusedBy31 + `unknown value "\"global\"" for enum istio.mesh.v1alpha1.MeshConfig.ServiceScopeConfigs.Scope; ` + runsOnDefault,
	"serviceScopeConfigs: [{scope: 2}]\n":                                                        "serviceScopeConfigs[0].scope: the number 2 is out of range [0, 1]",
	"serviceScopeConfigs: [{namespace_selector: {match_labels: {a: b}}}]\n":                      `serviceScopeConfigs[0].namespaceSelector: unknown field "match_labels" (did you mean "matchLabels"?)`,
	"serviceSettings: [{settings: {clusterLocal: true}, hosts: [\"bad host\"]}]\n":               `serviceSettings[0].hosts[0]: domain name "bad host" invalid (label "bad host" invalid)`,
	"serviceScopeConfigs: [{namespaceSelector: {matchExpressions: [{key: a, operator: In}]}}]\n": `serviceScopeConfigs[0].namespaceSelector.matchExpressions[0].values: Required value: must be specified when ` + "`operator` is 'In' or 'NotIn'",
	"serviceScopeConfigs: []\nserviceScopeConfigs: []\n":                                         "serviceScopeConfigs: given twice (lines 1 and 2)",
}

func TestLoadScope(t *testing.T) {
	want := &Config{
		ServiceScopeConfigs: []ServiceScope{{NamespaceSelector: istiotest.LabelSelector("shared", "yes"), Scope: Global}, {ServicesSelector: istiotest.LabelSelector("app", "x")}},
		ServiceSettings:     []ServiceSetting{setting(true, "*.secret.svc.cluster.local")},
	}
	for name, in := range loadScopeShapes {
		t.Run(name, func(t *testing.T) {
			got, err := Load([]byte(in))
			require.NoError(t, err)
			want := *want // each case its own copy: the cases run in map order
			want.ServiceScopeConfigs = slices.Clone(want.ServiceScopeConfigs)
			if name == "the istio ConfigMap, snake_case and enum numbers" {
				want.ServiceScopeConfigs[1].Scope = Local
			}
			assert.Equal(t, &want, got)
		})
	}
	got, err := Load([]byte(listOf(shopNamespace, "kind: ConfigMap\nmetadata: {name: istio, namespace: istio-system}\ndata:\n  mesh: |\n    serviceSettings: [{settings: {clusterLocal: true}, hosts: ['*.secret.svc.cluster.local']}]\n")))
	require.NoError(t, err)
	assert.Equal(t, &Config{ServiceSettings: want.ServiceSettings}, got, "among a cluster's other objects, which Load skips")

	got, err = Load([]byte("meshConfig: {accessLogFile: /dev/stdout}\n"))
	require.NoError(t, err)
	assert.Equal(t, &Config{}, got, "a mesh configuration without the fields: no serviceScopeConfigs, so every service LOCAL")

	for in, wantErr := range loadScopeRefusals {
		_, err := Load([]byte(in))
		require.Error(t, err, in)
		assert.Equal(t, wantErr, err.Error(), in)
	}
}

// TestLoadScopeDiscoveryAddress: Load reads defaultConfig.discoveryAddress from the same
// mesh configuration as the scope settings, and refuses one Istio refuses.
func TestLoadScopeDiscoveryAddress(t *testing.T) {
	c, err := Load([]byte("meshConfig:\n  defaultConfig: {discoveryAddress: 'istiod-1.istio-system.svc:15012', holdApplicationUntilProxyStarts: true}\n  serviceScopeConfigs: [{scope: GLOBAL}]\n"))
	require.NoError(t, err)
	assert.Equal(t, &Config{ServiceScopeConfigs: []ServiceScope{{Scope: Global}}, DefaultConfig: ProxyConfig{DiscoveryAddress: "istiod-1.istio-system.svc:15012"}}, c)
	assert.Equal(t, "istiod-1.istio-system.svc:15012", c.Discovery())

	c, err = Load([]byte("meshConfig:\n  defaultConfig: {discoveryAddress: 'istiod-1.istio-system.svc:15012'}\n"))
	require.NoError(t, err)
	assert.Equal(t, &Config{DefaultConfig: ProxyConfig{DiscoveryAddress: "istiod-1.istio-system.svc:15012"}}, c,
		"the discovery address alone: no serviceScopeConfigs, so every service LOCAL")

	for in, want := range map[string]string{
		"meshConfig:\n  defaultConfig: {discoveryAddress: istiod}\n  serviceScopeConfigs: []\n":            `meshConfig.defaultConfig.discoveryAddress: "istiod" is not host:port`,
		"meshConfig:\n  defaultConfig: {discoveryAddress: 'istiod:http'}\n  serviceScopeConfigs: []\n":     `meshConfig.defaultConfig.discoveryAddress: "istiod:http" has port "http", not a number from 1 to 65535`,
		"meshConfig:\n  defaultConfig: {discoveryAddress: 'a b:15012'}\n  serviceScopeConfigs: []\n":       `meshConfig.defaultConfig.discoveryAddress: "a b:15012" has host "a b", neither a DNS name nor an IP`,
		"meshConfig:\n  defaultConfig: {discoveryAdress: 'istiod:15012'}\n  serviceScopeConfigs: []\n":     `meshConfig.defaultConfig: unknown field "discoveryAdress" (did you mean "discoveryAddress"? as written, it is ignored)`,
		"meshConfig:\n  defaultConfg: {discoveryAddress: 'istiod:15012'}\n  serviceScopeConfigs: []\n":     `meshConfig: unknown field "defaultConfg" (did you mean "defaultConfig"? as written, it is ignored)`,
		"meshConfig:\n  defaultConfig: {discoveryAddress: '10.0.0.1:15012'}\n  serviceScopeConfigs: [x]\n": `meshConfig.serviceScopeConfigs[0]: must be an object, got the string "x"; ` + refusedBy31 + `json: cannot unmarshal string into Go value of type map[string]json.RawMessage; ` + runsOnDefault,
	} {
		_, err := Load([]byte(in))
		require.Error(t, err, in)
		assert.Equal(t, want, err.Error(), in)
	}
	_, err = Load([]byte("meshConfig:\n  defaultConfig: {discoveryAddress: '10.0.0.1:15012'}\n  serviceSettings: []\n"))
	assert.NoError(t, err, "an IP is a discovery address Istio accepts")
	assert.True(t, strings.HasPrefix(DefaultDiscoveryAddress, "istiod.istio-system.svc:"))
}

// FuzzLoadScope: whatever scope settings Load accepts, Validate accepts (so every view
// compiles them); package visibility/scope fuzzes what its Scoper answers for them.
func FuzzLoadScope(f *testing.F) {
	f.Add([]byte("serviceScopeConfigs: [{scope: GLOBAL, namespaceSelector: {matchLabels: {a: b}}}]\nserviceSettings: [{settings: {clusterLocal: true}, hosts: ['*.x']}]\n"))
	f.Add([]byte("kind: IstioOperator\nspec: {meshConfig: {service_scope_configs: [{scope: 1}]}}\n"))
	for _, name := range slices.Sorted(maps.Keys(loadScopeShapes)) {
		f.Add([]byte(loadScopeShapes[name]))
	}
	for _, in := range slices.Sorted(maps.Keys(loadScopeRefusals)) {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Load(data)
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("Load accepted a config that does not validate: %v", err)
		}
		for _, s := range c.ServiceScopeConfigs {
			if s.Scope != "" && s.Scope != Local && s.Scope != Global {
				t.Fatalf("Load accepted the scope %q", s.Scope)
			}
		}
	})
}
