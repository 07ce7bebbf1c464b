package visibility

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// teamA is the configuration most loadConfigTests hold: default NAMESPACE, PUBLIC for team=a.
var teamA = &Config{DefaultVisibility: Namespace, Policies: []Policy{{Visibility: Public, MatchingRules: []MatchingRule{
	{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}},
}}}}

// teamAYAML is teamA in block YAML, which the rows of loadConfigTests nest in each wrapper.
const teamAYAML = `defaultVisibility: NAMESPACE
policies:
- visibility: PUBLIC
  matchingRules:
  - namespaceSelector:
      matchLabels:
        team: a
`

// nested is the YAML lines of block, each after indent.
func nested(block, indent string) string {
	return indent + strings.ReplaceAll(strings.TrimSuffix(block, "\n"), "\n", "\n"+indent) + "\n"
}

// loadConfigTests are LoadConfig cases; FuzzLoadConfig starts from their inputs (and from
// those of loadConfigWrapperTests and loadConfigRefusals).
var loadConfigTests = []loadConfigCase{
	{"bare block YAML", "\n" + teamAYAML, teamA, nil},
	{"bare block JSON", `{"defaultVisibility":"NAMESPACE","policies":[{"visibility":"PUBLIC","matchingRules":[{"namespaceSelector":{"matchLabels":{"team":"a"}}}]}]}`, teamA, nil},
	{"mesh config", `
accessLogFile: /dev/stdout
defaultConfig:
  holdApplicationUntilProxyStarts: true
serviceEntryVisibility:
  defaultVisibility: NAMESPACE
  policies:
  - visibility: PUBLIC
    matchingRules:
    - namespaceSelector: {matchLabels: {team: a}}
`, teamA, nil},
	{"mesh config snake_case", `
service_entry_visibility:
  default_visibility: 2
  policies:
  - visibility: 3
    matching_rules:
    - namespace_selector: {matchLabels: {team: a}}
`, teamA, nil},
	{"istio operator", `
apiVersion: install.istio.io/v1alpha1
kind: IstioOperator
metadata:
  name: control-plane
spec:
  profile: ambient
  meshConfig:
    serviceEntryVisibility:
` + nested(teamAYAML, "      "), teamA, nil},
	{"helm values", `
meshConfig:
  serviceEntryVisibility:
    defaultVisibility: NAMESPACE
    policies: [{visibility: PUBLIC, matchingRules: [{namespaceSelector: {matchLabels: {team: a}}}]}]
`, teamA, nil},
	{"istio configmap", `
apiVersion: v1
kind: ConfigMap
metadata:
  name: istio
  namespace: istio-system
data:
  mesh: |-
    defaultConfig:
      discoveryAddress: istiod.istio-system.svc:15012
    serviceEntryVisibility:
` + nested(teamAYAML, "      "), teamA, nil},
	{"multi-document with other kinds", `
apiVersion: v1
kind: Namespace
metadata: {name: istio-system}
---
apiVersion: install.istio.io/v1alpha1
kind: IstioOperator
spec:
  meshConfig:
    serviceEntryVisibility:
      defaultVisibility: NAMESPACE
      policies: [{visibility: PUBLIC, matchingRules: [{namespaceSelector: {matchLabels: {team: a}}}]}]
---
`, teamA, nil},
	{"empty block enables the feature", "serviceEntryVisibility: {}\n", &Config{}, nil},
	{"null block is not configured, as in Istio", "serviceEntryVisibility:\n", nil, nil},
	{"explicit null block is not configured", "serviceEntryVisibility: null\n", nil, nil},
	{"mesh config without the block", "accessLogFile: /dev/stdout\n", nil, nil},
	{"operator without mesh config", "kind: IstioOperator\nspec: {profile: default}\n", nil, nil},
	{"operator unknown selector field", `
kind: IstioOperator
spec:
  meshConfig:
    serviceEntryVisibility:
      policies:
      - visibility: NONE
        matchingRules:
        - namespaceSelector:
            match_labels: {team: a}
`, nil, []string{
		`spec.meshConfig.serviceEntryVisibility.policies[0].matchingRules[0].namespaceSelector: unknown field "match_labels" (did you mean "matchLabels"?)`,
	}},
	{"operator invalid operator", `
kind: IstioOperator
spec:
  meshConfig:
    serviceEntryVisibility:
      policies:
      - {}
      - {}
      - matchingRules:
        - namespaceSelector:
            matchExpressions: [{key: team, operator: in, values: [a]}]
`, nil, []string{
		`spec.meshConfig.serviceEntryVisibility.policies[2].matchingRules[0].namespaceSelector.matchExpressions[0].operator: Invalid value: "in": not a valid selector operator`,
	}},
	{"misspelt block name", "serviceEntryVisiblity:\n  defaultVisibility: NONE\n", nil, []string{
		`(top level): unknown field "serviceEntryVisiblity" (did you mean "serviceEntryVisibility"? as written, the feature stays off)`,
	}},
	// A bare block is read when one of its fields is spelt right: a misspelt one alone
	// made the document a meshConfig without the block, the feature silently off.
	{"misspelt field of a bare block", "defaultVisiblity: NAMESPACE\n", nil, []string{
		`(top level): unknown field "defaultVisiblity" (did you mean "defaultVisibility", a field of serviceEntryVisibility? as written, the feature stays off)`,
	}},
	{"bare block field in another case", "DefaultVisibility: NAMESPACE\npolices: []\n", nil, []string{
		`(top level): unknown field "DefaultVisibility" (did you mean "defaultVisibility", a field of serviceEntryVisibility? as written, the feature stays off)`,
		`(top level): unknown field "polices" (did you mean "policies", a field of serviceEntryVisibility? as written, the feature stays off)`,
	}},
	// A bare block beside meshConfig's own fields is a meshConfig with the block out of place.
	{"meshConfig fields beside a bare block", "defaultVisibility: NAMESPACE\nserviceScopeConfigs: []\nrootNamespace: istio-system\npolices: []\n", nil, []string{
		`serviceScopeConfigs: a field of meshConfig, not of serviceEntryVisibility: a file that holds both is a meshConfig, with the block under its name (meshConfig: {serviceEntryVisibility: {policies: …}, serviceScopeConfigs: …})`,
		`rootNamespace: a field of meshConfig, not of serviceEntryVisibility: a file that holds both is a meshConfig, with the block under its name (meshConfig: {serviceEntryVisibility: {policies: …}, rootNamespace: …})`,
		`(top level): unknown field "polices" (did you mean "policies"?)`,
	}},
	{"block fields in meshConfig itself", "kind: IstioOperator\nspec:\n  meshConfig:\n    defaultVisibility: NAMESPACE\n", nil, []string{
		`spec.meshConfig: unknown field "defaultVisibility": it is a field of serviceEntryVisibility (as written, the feature stays off)`,
	}},
	{"block fields beside the block", "meshConfig:\n  serviceEntryVisibility: {}\n  applyToSidecars: true\n", nil, []string{
		`meshConfig: unknown field "applyToSidecars": it is a field of serviceEntryVisibility (as written, the feature stays off)`,
	}},
	{"block given twice", "serviceEntryVisibility: {}\nservice_entry_visibility: {}\n", nil, []string{
		`(top level): field given twice, as "serviceEntryVisibility" and "service_entry_visibility"`,
	}},
	{"two documents configure", "serviceEntryVisibility: {}\n---\ndefaultVisibility: NONE\n", nil, []string{
		`document 2: the top level: a second serviceEntryVisibility configuration; the first is at document 1: serviceEntryVisibility`,
	}},
	{"errors in several documents", "defaultVisibility: public\n---\nkind: IstioOperator\nspec: {meshConfig: {serviceEntryVisibility: {policies: 1}}}\n", nil, []string{
		`document 1: defaultVisibility: unsupported value "public": enum names are upper case ("PUBLIC")`,
		`document 2: spec.meshConfig.serviceEntryVisibility.policies: must be a list, got the number 1`,
	}},
	{"not an object", "- a\n- b\n", nil, []string{"the document must be an object, got a list"}},
	{"configmap mesh not a string", "kind: ConfigMap\nmetadata: {name: istio}\ndata: {mesh: 1}\n", nil, []string{
		"data.mesh: must be a string holding the meshConfig YAML, got the number 1",
	}},
	{"configmap error path", "kind: ConfigMap\nmetadata: {name: istio-1-24}\ndata:\n  mesh: |\n    serviceEntryVisibility: {defaultVisibility: 7}\n", nil, []string{
		"data.mesh.serviceEntryVisibility.defaultVisibility: unsupported value 7: enum numbers are 0 (unspecified), 1 (NONE), 2 (NAMESPACE) and 3 (PUBLIC)",
	}},
}

// loadConfigCase is a LoadConfig case: the input, and the configuration it holds (nil: not
// configured) or every line of the error it is refused with.
type loadConfigCase struct {
	name string
	in   string
	want *Config
	errs []string
}

// runLoadConfig runs each case as a subtest: LoadConfig refuses it with exactly errs, or
// returns want, which Compile takes.
func runLoadConfig(t *testing.T, cases []loadConfigCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LoadConfig([]byte(tt.in))
			if tt.errs != nil {
				require.Error(t, err)
				assert.Equal(t, strings.Join(tt.errs, "\n"), err.Error())
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			_, err = Compile(got)
			require.NoError(t, err)
		})
	}
}

func TestLoadConfig(t *testing.T) { runLoadConfig(t, loadConfigTests) }

func TestLoadConfigBadYAML(t *testing.T) {
	_, err := LoadConfig([]byte("a: [b\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not YAML or JSON")
}

func FuzzLoadConfig(f *testing.F) {
	for _, s := range []string{
		"defaultVisibility: NAMESPACE\npolicies:\n- visibility: PUBLIC\n  matchingRules:\n  - namespaceSelector: {matchLabels: {team: a}}\n",
		`{"default_visibility":2,"policies":[{"visibility":1,"matching_rules":[{"namespace_selector":{"matchExpressions":[{"key":"a","operator":"NotIn","values":["x"]}]}}]}]}`,
		"kind: IstioOperator\nspec:\n  meshConfig:\n    serviceEntryVisibility: {policies: [{}]}\n",
		"kind: ConfigMap\ndata:\n  mesh: 'serviceEntryVisibility: {defaultVisibility: NONE}'\n",
		"serviceEntryVisibility: {}\n---\nserviceEntryVisibility: {}\n",
		"policies: [{matchingRules: [{namespaceSelector: {matchExpressions: [{key: a, operator: in}]}}]}]",
	} {
		f.Add([]byte(s))
	}
	// Every wrapper, spelling and refusal the tests know.
	for _, tt := range loadConfigTests {
		f.Add([]byte(tt.in))
	}
	for _, tt := range loadConfigWrapperTests {
		f.Add([]byte(tt.in))
	}
	for _, tt := range loadConfigRefusals {
		f.Add([]byte(tt.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := LoadConfig(data)
		if err != nil {
			if c != nil {
				t.Fatal("a config returned with an error")
			}
			return
		}
		// Whatever LoadConfig accepts compiles, and resolving never panics.
		r, err := Compile(c)
		if err != nil {
			t.Fatalf("LoadConfig accepted a config that does not compile: %v", err)
		}
		for _, ls := range []labels.Set{nil, {"team": "a"}, {"env": "sandbox", NamespaceNameLabel: "shop"}} {
			if d, e := r.Resolve(ls), r.Explain(ls); d != e.Decision {
				t.Fatalf("Resolve(%v) = %v, Explain says %v", ls, d, e.Decision)
			}
		}
		r.Lint()
		if c == nil {
			return
		}
		// What it accepts survives a round trip through its JSON.
		js, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var back Config
		if err := json.Unmarshal(js, &back); err != nil {
			t.Fatalf("%s does not decode: %v", js, err)
		}
		if !reflect.DeepEqual(*c, back) {
			t.Fatalf("round trip through %s: %+v, then %+v", js, *c, back)
		}
	})
}
