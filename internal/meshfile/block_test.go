package meshfile

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/istiotest"
	"github.com/meshscope/meshscope/internal/strict"
)

// errorTexts returns the message of every problem joined in err.
var errorTexts = istiotest.ErrorTexts

// oneDoc reads the only mesh configuration of in.
func oneDoc(t *testing.T, in string) Doc {
	t.Helper()
	docs, errs := Read([]byte(in))
	require.Empty(t, errs)
	require.Len(t, docs, 1)
	return docs[0]
}

func TestBlock(t *testing.T) {
	const off = " (as written, the feature stays off)"
	tests := []struct {
		name  string
		in    string
		block string // as JSON; "" for none
		path  string
		found bool
		errs  []string
	}{
		{name: "IstioOperator", in: "kind: IstioOperator\nspec:\n  meshConfig:\n    accessLogFile: /dev/stdout\n    serviceEntryVisibility: {defaultVisibility: NONE}\n",
			block: `{"defaultVisibility":"NONE"}`, path: "spec.meshConfig.serviceEntryVisibility", found: true},
		{name: "ConfigMap", in: "kind: ConfigMap\nmetadata: {name: istio}\ndata:\n  mesh: |\n    serviceEntryVisibility:\n      policies: []\n",
			block: `{"policies":[]}`, path: "data.mesh.serviceEntryVisibility", found: true},
		{name: "whole meshConfig", in: "serviceEntryVisibility: {applyToSidecars: true}\nrootNamespace: x\n",
			block: `{"applyToSidecars":true}`, path: "serviceEntryVisibility", found: true},
		{name: "snake_case, under the canonical path", in: "meshConfig:\n  service_entry_visibility: {defaultVisibility: NONE}\n",
			block: `{"defaultVisibility":"NONE"}`, path: "meshConfig.serviceEntryVisibility", found: true},
		{name: "null block: not configured", in: "meshConfig:\n  serviceEntryVisibility:\n"},
		{name: "no block", in: "meshConfig: {accessLogFile: /dev/stdout, defaultConfig: {}}\n"},
		{name: "null meshConfig", in: "meshConfig: null\n"},
		{name: "empty data.mesh", in: "kind: ConfigMap\nmetadata: {name: istio}\ndata: {mesh: \"\"}\n"},
		{name: "meshConfig not an object", in: "values: {meshConfig: [a]}\n", errs: []string{"values.meshConfig: must be an object, got a list"}},
		{name: "both spellings", in: "meshConfig: {serviceEntryVisibility: {}, service_entry_visibility: {}}\n", errs: []string{
			`meshConfig: field given twice, as "serviceEntryVisibility" and "service_entry_visibility"`,
		}},
		{name: "block name misspelt", in: "kind: IstioOperator\nspec: {meshConfig: {serviceEntryVisiblity: {}, ServiceEntryVisibility: {}, service_entry_visibilty: {}}}\n", errs: []string{
			`spec.meshConfig: unknown field "ServiceEntryVisibility" (did you mean "serviceEntryVisibility"? as written, the feature stays off)`,
			`spec.meshConfig: unknown field "serviceEntryVisiblity" (did you mean "serviceEntryVisibility"? as written, the feature stays off)`,
			`spec.meshConfig: unknown field "service_entry_visibilty" (did you mean "serviceEntryVisibility"? as written, the feature stays off)`,
		}},
		{name: "block fields in meshConfig", in: "meshConfig:\n  defaultVisibility: NONE\n  apply_to_sidecars: true\n  serviceEntryVisibility: {}\n", errs: []string{
			`meshConfig: unknown field "apply_to_sidecars": it is a field of serviceEntryVisibility` + off,
			`meshConfig: unknown field "defaultVisibility": it is a field of serviceEntryVisibility` + off,
		}},
		{name: "misspelt bare block", in: "defaultVisiblity: NONE\npolices: []\npolicy: []\naccessLogFile: x\n", errs: []string{
			`(top level): unknown field "defaultVisiblity" (did you mean "defaultVisibility", a field of serviceEntryVisibility? as written, the feature stays off)`,
			`(top level): unknown field "polices" (did you mean "policies", a field of serviceEntryVisibility? as written, the feature stays off)`,
		}},
		{name: "abbreviated bare block field", in: "meshConfig: {app: true, applyTo: true}\n", errs: []string{
			`meshConfig: unknown field "applyTo" (did you mean "applyToSidecars", a field of serviceEntryVisibility? as written, the feature stays off)`,
		}},
		{name: "bare block", in: "defaultVisibility: NAMESPACE\npolicies: [{visibility: PUBLIC}]\n",
			block: `{"defaultVisibility":"NAMESPACE","policies":[{"visibility":"PUBLIC"}]}`, found: true},
		{name: "bare block with meshConfig fields", in: "rootNamespace: x\ndefaultVisibility: NONE\ndiscovery_selectors: []\npolicies: []\n",
			block: `{"defaultVisibility":"NONE","policies":[]}`, found: true, errs: []string{
				"rootNamespace: a field of meshConfig, not of serviceEntryVisibility: a file that holds both is a meshConfig, with the block under its name (meshConfig: {serviceEntryVisibility: {policies: …}, rootNamespace: …})",
				"discovery_selectors: a field of meshConfig, not of serviceEntryVisibility: a file that holds both is a meshConfig, with the block under its name (meshConfig: {serviceEntryVisibility: {policies: …}, discovery_selectors: …})",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := oneDoc(t, tt.in)
			block, path, found, err := Block(d)
			assert.Equal(t, tt.errs, errorTexts(err))
			assert.Equal(t, tt.found, found)
			assert.Equal(t, tt.path, path)
			if tt.block == "" {
				assert.Nil(t, block)
				return
			}
			got, jerr := json.Marshal(block)
			require.NoError(t, jerr)
			assert.JSONEq(t, tt.block, string(got))
		})
	}
}

// TestBlockBareNotObject: a bare block that is not an object is returned as it is, for the
// block's decoder to refuse.
func TestBlockBareNotObject(t *testing.T) {
	block, path, found, err := Block(Doc{Value: "x", Bare: true})
	assert.Equal(t, "x", block)
	assert.Empty(t, path)
	assert.True(t, found)
	assert.NoError(t, err)
}

// TestBlockKeepsDocument: Block does not change the document it reads.
func TestBlockKeepsDocument(t *testing.T) {
	d := oneDoc(t, "rootNamespace: x\ndefaultVisibility: NONE\n")
	before, err := json.Marshal(d.Value)
	require.NoError(t, err)
	_, _, _, berr := Block(d)
	require.Error(t, berr)
	after, err := json.Marshal(d.Value)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))
}

func TestNearMisses(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		path   string
		fields [][]string
		want   []string
	}{
		{name: "nothing near", in: `{"accessLogFile": "x", "rootNamespace": "a"}`, path: "meshConfig", fields: [][]string{RootNamespace, Settings}},
		{name: "misspellings, in key order", in: `{"rootNamespce": "a", "root_namespce": "b", "ServiceSettings": [], "serviceSetting": []}`, path: "spec.meshConfig",
			fields: [][]string{RootNamespace, Settings}, want: []string{
				`spec.meshConfig: unknown field "ServiceSettings" (did you mean "serviceSettings"? as written, it is ignored)`,
				`spec.meshConfig: unknown field "rootNamespce" (did you mean "rootNamespace"? as written, it is ignored)`,
				`spec.meshConfig: unknown field "root_namespce" (did you mean "rootNamespace"? as written, it is ignored)`,
				`spec.meshConfig: unknown field "serviceSetting" (did you mean "serviceSettings"? as written, it is ignored)`,
			}},
		{name: "every spelling is known", in: `{"root_namespace": "a", "rootNamespace": "b", "discoveryAddress": "x"}`, fields: [][]string{RootNamespace, DiscoveryAddress}},
		{name: "at the top level", in: `{"discoveryAdress": "x"}`, fields: [][]string{DiscoveryAddress}, want: []string{
			`(top level): unknown field "discoveryAdress" (did you mean "discoveryAddress"? as written, it is ignored)`,
		}},
		{name: "near two fields", in: `{"routes": 1, "route": 2}`, path: "p", fields: [][]string{{"route"}, {"router"}}, want: []string{
			`p: unknown field "routes" (did you mean "route"? as written, it is ignored)`,
			`p: unknown field "routes" (did you mean "router"? as written, it is ignored)`,
		}},
		{name: "not an object", in: `["rootNamespce"]`, path: "meshConfig", fields: [][]string{RootNamespace}},
		{name: "no fields", in: `{"rootNamespce": "a"}`, path: "meshConfig"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := strict.ParseJSON([]byte(tt.in))
			require.NoError(t, err)
			var d strict.Decoder
			NearMisses(&d, x, tt.path, tt.fields...)
			assert.Equal(t, tt.want, errorTexts(d.Err()))
		})
	}
}
