package mesh

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/meshscope/meshscope/internal/istiotest"
)

// scopeJSON: scope configurations in JSON, and what json.Unmarshal into a Config and
// Load both read from them.
var scopeJSON = map[string]struct {
	in   string
	want *Config
}{
	"enum names": {`{"serviceScopeConfigs": [{"scope": "GLOBAL", "namespaceSelector": {"matchLabels": {"a": "b"}}}, {"scope": "LOCAL"}]}`,
		&Config{ServiceScopeConfigs: []ServiceScope{{Scope: Global, NamespaceSelector: istiotest.LabelSelector("a", "b")}, {Scope: Local}}}},
	"enum numbers": {`{"serviceScopeConfigs": [{"scope": 1}, {"scope": 0}]}`,
		&Config{ServiceScopeConfigs: []ServiceScope{{Scope: Global}, {Scope: Local}}}},
	"snake_case names": {`{"service_scope_configs": [{"services_selector": {"matchExpressions": [{"key": "app", "operator": "Exists"}]}, "scope": 1}],
		"service_settings": [{"settings": {"cluster_local": true}, "hosts": ["*.x.svc.cluster.local"]}]}`,
		&Config{ServiceScopeConfigs: []ServiceScope{{Scope: Global, ServicesSelector: &metav1.LabelSelector{
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpExists}}}}},
			ServiceSettings: []ServiceSetting{setting(true, "*.x.svc.cluster.local")}}},
	"settings without values, partial wildcards and * alone": {`{"serviceSettings": [{"settings": {}, "hosts": ["*-canary.example.com", "*"]}]}`,
		&Config{ServiceSettings: []ServiceSetting{setting(false, "*-canary.example.com", "*")}}},
	"nulls are absent": {`{"serviceScopeConfigs": [{"scope": null, "namespaceSelector": null}], "serviceSettings": null}`,
		&Config{ServiceScopeConfigs: []ServiceScope{{}}}},
}

// scopeJSONRefusals: JSON both refuse, and what the error of each says.
var scopeJSONRefusals = map[string]string{
	`{"serviceScopeConfigs": [{"scope": "global"}]}`:                                 `serviceScopeConfigs[0].scope: unsupported value "global": enum names are upper case ("GLOBAL")`,
	`{"serviceScopeConfigs": [{"scope": 2}]}`:                                        "serviceScopeConfigs[0].scope: the number 2 is out of range [0, 1]",
	`{"serviceScopeConfigs": [{"scope": true}]}`:                                     "serviceScopeConfigs[0].scope: must be a whole number, got the boolean true",
	`{"serviceScopeConfigs": [{"scpoe": "GLOBAL"}]}`:                                 `serviceScopeConfigs[0]: unknown field "scpoe" (did you mean "scope"?)`,
	`{"serviceScopeConfigs": [{"namespaceSelector": {"match_labels": {"a": "b"}}}]}`: `serviceScopeConfigs[0].namespaceSelector: unknown field "match_labels" (did you mean "matchLabels"?)`,
	`{"serviceSettings": [{"settings": {"clusterlocal": true}}]}`:                    `serviceSettings[0].settings: unknown field "clusterlocal" (did you mean "clusterLocal"?)`,
	`{"serviceSettings": [{"host": ["a.b"]}]}`:                                       `serviceSettings[0]: unknown field "host" (did you mean "hosts"?)`,
	`{"serviceScopeConfigs": [], "serviceScopeConfigs": []}`:                         "serviceScopeConfigs: given twice",
	`{"serviceScopeConfigs": [], "service_scope_configs": []}`:                       `field given twice, as "serviceScopeConfigs" and "service_scope_configs"`,
}

// TestConfigUnmarshal: json.Unmarshal decodes a Config as strictly as Load
// reads one, and the two agree.
func TestScopeUnmarshal(t *testing.T) {
	for name, tt := range scopeJSON {
		t.Run(name, func(t *testing.T) {
			var got Config
			require.NoError(t, json.Unmarshal([]byte(tt.in), &got))
			assert.Equal(t, tt.want, &got)
			loaded, err := Load([]byte(tt.in))
			require.NoError(t, err)
			assert.Equal(t, tt.want, loaded, "Load agrees")
		})
	}
	for in, want := range scopeJSONRefusals {
		var got Config
		err := json.Unmarshal([]byte(in), &got)
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), want, in)
		_, err = Load([]byte(in))
		require.Error(t, err, in)
		assert.Contains(t, err.Error(), want, "Load agrees: %s", in)
	}
	var c Config
	err := json.Unmarshal([]byte(`{"serviceScopeConfig": [], "accessLogFile": "/dev/stdout"}`), &c)
	require.Error(t, err)
	assert.Equal(t, "(top level): unknown field \"accessLogFile\"\n(top level): unknown field \"serviceScopeConfig\" (did you mean \"serviceScopeConfigs\"?)", err.Error(),
		"a Config is the fields meshscope reads: a whole meshConfig goes through Load")

	var s Scope
	require.NoError(t, json.Unmarshal([]byte("1"), &s))
	assert.Equal(t, Global, s)
	var sc ServiceScope
	assert.EqualError(t, json.Unmarshal([]byte(`{"scope": "Global"}`), &sc), `scope: unsupported value "Global": enum names are upper case ("GLOBAL")`)
	var st ServiceSetting
	assert.EqualError(t, json.Unmarshal([]byte(`{"settings": {"clusterLocal": "yes"}}`), &st), `settings.clusterLocal: must be a boolean, got the string "yes"`)

	// A round trip through json.Marshal.
	for _, tt := range scopeJSON {
		b, err := json.Marshal(tt.want)
		require.NoError(t, err)
		var back Config
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, tt.want, &back, "%s", b)
	}
}

// FuzzScopeUnmarshal holds json.Unmarshal into a Config and Load, on scope settings, to one
// reading: whatever one accepts and validates, the other reads alike.
func FuzzScopeUnmarshal(f *testing.F) {
	for _, tt := range scopeJSON {
		f.Add([]byte(tt.in))
	}
	for in := range scopeJSONRefusals {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Config
		if err := json.Unmarshal(data, &c); err != nil {
			return
		}
		if c.Validate() != nil || c.ServiceScopeConfigs == nil && c.ServiceSettings == nil {
			return // Load validates; and it reads neither field as no configuration
		}
		loaded, err := Load(data)
		if err != nil {
			t.Fatalf("json.Unmarshal read %s, Load refused it: %v", data, err)
		}
		if b1, b2 := mustJSON(t, &c), mustJSON(t, loaded); b1 != b2 {
			t.Fatalf("json.Unmarshal read %s, Load %s", b1, b2)
		}
	})
}

var mustJSON = istiotest.JSON

func setting(local bool, hosts ...string) ServiceSetting {
	return ServiceSetting{Settings: ServiceSettingValues{ClusterLocal: local}, Hosts: hosts}
}
