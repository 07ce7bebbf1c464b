package visibility

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestVisibilityUnmarshal(t *testing.T) {
	tests := []struct {
		name, in string
		want     Visibility
		err      string
	}{
		{"public", `"PUBLIC"`, Public, ""},
		{"namespace", `"NAMESPACE"`, Namespace, ""},
		{"none", `"NONE"`, None, ""},
		{"unspecified name", `"VISIBILITY_UNSPECIFIED"`, Unspecified, ""},
		{"empty string", `""`, "", ""},
		{"null", `null`, "", ""},
		{"number 0", `0`, Unspecified, ""},
		{"number 1", `1`, None, ""},
		{"number 2", `2`, Namespace, ""},
		{"number 3", `3`, Public, ""},
		{"lower case", `"public"`, "", `unsupported value "public": enum names are upper case ("PUBLIC")`},
		{"mixed case", `"Namespace"`, "", `unsupported value "Namespace": enum names are upper case ("NAMESPACE")`},
		{"unknown name", `"PRIVATE"`, "", `unsupported value "PRIVATE": supported values: "PUBLIC", "NAMESPACE", "NONE", "VISIBILITY_UNSPECIFIED"`},
		{"number 4", `4`, "", `unsupported value 4: enum numbers are 0 (unspecified), 1 (NONE), 2 (NAMESPACE) and 3 (PUBLIC)`},
		{"negative", `-1`, "", `unsupported value -1: enum numbers are 0 (unspecified), 1 (NONE), 2 (NAMESPACE) and 3 (PUBLIC)`},
		{"fraction", `1.5`, "", `unsupported value 1.5: enum numbers are 0 (unspecified), 1 (NONE), 2 (NAMESPACE) and 3 (PUBLIC)`},
		{"bool", `true`, "", `must be a string or a number, got the boolean true`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v Visibility
			err := json.Unmarshal([]byte(tt.in), &v)
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, v)
		})
	}
}

func TestEffective(t *testing.T) {
	assert.Equal(t, Public, Visibility("").effective())
	assert.Equal(t, Public, Unspecified.effective())
	assert.Equal(t, None, None.effective())
	assert.Equal(t, Namespace, Namespace.effective())
}

func TestConfigUnmarshal(t *testing.T) {
	sel := func(m map[string]string) *metav1.LabelSelector { return &metav1.LabelSelector{MatchLabels: m} }
	tests := []struct {
		name string
		in   string
		want *Config
		errs []string
	}{
		{"camelCase", `{"defaultVisibility":"NAMESPACE","applyToSidecars":true,"policies":[{"visibility":"PUBLIC","matchingRules":[{"namespaceSelector":{"matchLabels":{"team":"a"}}}]}]}`,
			&Config{DefaultVisibility: Namespace, ApplyToSidecars: true, Policies: []Policy{{Visibility: Public, MatchingRules: []MatchingRule{{NamespaceSelector: sel(map[string]string{"team": "a"})}}}}}, nil},
		{"snake_case and numbers", `{"default_visibility":2,"apply_to_sidecars":false,"policies":[{"visibility":1,"matching_rules":[{"namespace_selector":{}}]}]}`,
			&Config{DefaultVisibility: Namespace, Policies: []Policy{{Visibility: None, MatchingRules: []MatchingRule{{NamespaceSelector: &metav1.LabelSelector{}}}}}}, nil},
		{"expressions", `{"policies":[{"matchingRules":[{"namespaceSelector":{"matchExpressions":[{"key":"env","operator":"In","values":["prod","stage"]}]}}]}]}`,
			&Config{Policies: []Policy{{MatchingRules: []MatchingRule{{NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: "In", Values: []string{"prod", "stage"}}}}}}}}}, nil},
		{"empty object", `{}`, &Config{}, nil},
		{"null fields are absent", `{"defaultVisibility":null,"policies":null}`, &Config{}, nil},
		{"misspelt selector field", `{"policies":[{"visibility":"NONE","matchingRules":[{"namespaceSelector":{"match_labels":{"team":"a"}}}]}]}`, nil, []string{
			`policies[0].matchingRules[0].namespaceSelector: unknown field "match_labels" (did you mean "matchLabels"?)`,
		}},
		{"unknown fields everywhere", `{"defaultVisiblity":"NONE","policies":[{"hostnameSuffix":"x","matchingRules":[{"selector":{}}]}]}`, nil, []string{
			`(top level): unknown field "defaultVisiblity" (did you mean "defaultVisibility"?)`,
			`policies[0]: unknown field "hostnameSuffix"`,
			`policies[0].matchingRules[0]: unknown field "selector"`,
		}},
		{"requirement fields", `{"policies":[{"matchingRules":[{"namespaceSelector":{"matchExpressions":[{"key":"a","op":"In","values":"x"}]}}]}]}`, nil, []string{
			`policies[0].matchingRules[0].namespaceSelector.matchExpressions[0]: unknown field "op"`,
			`policies[0].matchingRules[0].namespaceSelector.matchExpressions[0].values: must be a list, got the string "x"`,
		}},
		{"field twice", `{"defaultVisibility":"NONE","default_visibility":"PUBLIC"}`, nil, []string{
			`(top level): field given twice, as "defaultVisibility" and "default_visibility"`,
		}},
		{"wrong types", `{"defaultVisibility":"public","policies":{},"applyToSidecars":"yes"}`, nil, []string{
			`defaultVisibility: unsupported value "public": enum names are upper case ("PUBLIC")`,
			`policies: must be a list, got an object`,
			`applyToSidecars: must be a boolean, got the string "yes"`,
		}},
		{"label value not a string", `{"policies":[{"matchingRules":[{"namespaceSelector":{"matchLabels":{"n":1}}}]}]}`, nil, []string{
			`policies[0].matchingRules[0].namespaceSelector.matchLabels["n"]: must be a string, got the number 1`,
		}},
		{"policy not an object", `{"policies":["PUBLIC"]}`, nil, []string{
			`policies[0]: must be an object, got the string "PUBLIC"`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Config
			err := json.Unmarshal([]byte(tt.in), &c)
			if tt.errs != nil {
				require.Error(t, err)
				assert.Equal(t, strings.Join(tt.errs, "\n"), err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, &c)
		})
	}
}

func TestConfigRoundTrip(t *testing.T) {
	in := `{"defaultVisibility":"NAMESPACE","policies":[{"visibility":"PUBLIC","matchingRules":[{"namespaceSelector":{"matchLabels":{"team":"a"}}}]}],"applyToSidecars":true}`
	var c Config
	require.NoError(t, json.Unmarshal([]byte(in), &c))
	out, err := json.Marshal(&c)
	require.NoError(t, err)
	assert.JSONEq(t, in, string(out))
}

func TestPolicyAndRuleUnmarshal(t *testing.T) {
	var p Policy
	require.NoError(t, json.Unmarshal([]byte(`{"visibility":3,"matching_rules":[{"namespaceSelector":{}}]}`), &p))
	assert.Equal(t, Policy{Visibility: Public, MatchingRules: []MatchingRule{{NamespaceSelector: &metav1.LabelSelector{}}}}, p)
	assert.EqualError(t, json.Unmarshal([]byte(`{"visiblity":3}`), &p), `(top level): unknown field "visiblity" (did you mean "visibility"?)`)
	var r MatchingRule
	assert.EqualError(t, json.Unmarshal([]byte(`{"namespaceSelector":{"matchlabels":{}}}`), &r), `namespaceSelector: unknown field "matchlabels" (did you mean "matchLabels"?)`)
}

func TestValidate(t *testing.T) {
	expr := func(key, op string, values ...string) MatchingRule {
		return MatchingRule{NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: key, Operator: metav1.LabelSelectorOperator(op), Values: values}}}}
	}
	tests := []struct {
		name string
		in   *Config
		errs []string
	}{
		{"nil", nil, nil},
		{"empty", &Config{}, nil},
		{"unspecified is fine", &Config{DefaultVisibility: Unspecified, Policies: []Policy{{}}}, nil},
		{"bad visibilities", &Config{DefaultVisibility: "public", Policies: []Policy{{Visibility: "HIDDEN"}}}, []string{
			`defaultVisibility: Invalid value: "public": enum names are upper case ("PUBLIC")`,
			`policies[0].visibility: Unsupported value: "HIDDEN": supported values: "PUBLIC", "NAMESPACE", "NONE", "VISIBILITY_UNSPECIFIED"`,
		}},
		{"rule without selector", &Config{Policies: []Policy{{MatchingRules: []MatchingRule{{}}}}}, []string{
			`policies[0].matchingRules[0].namespaceSelector: Required value: a rule without a selector would never match (Istio drops it); use {} to match every namespace`,
		}},
		{"lower-case operator", &Config{Policies: []Policy{{}, {}, {MatchingRules: []MatchingRule{expr("team", "in", "a")}}}}, []string{
			`policies[2].matchingRules[0].namespaceSelector.matchExpressions[0].operator: Invalid value: "in": not a valid selector operator`,
		}},
		{"In without values and Exists with values", &Config{Policies: []Policy{{MatchingRules: []MatchingRule{expr("a", "In"), expr("b", "Exists", "x")}}}}, []string{
			"policies[0].matchingRules[0].namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
			"policies[0].matchingRules[1].namespaceSelector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
		}},
		{"bad key and value", &Config{Policies: []Policy{{MatchingRules: []MatchingRule{expr("bad key", "In", "bad value!")}}}}, []string{
			`policies[0].matchingRules[0].namespaceSelector.matchExpressions[0].key: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
			`policies[0].matchingRules[0].namespaceSelector.matchExpressions[0].values[0]: Invalid value: "bad value!": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.in.Validate()
			_, cerr := Compile(tt.in)
			if tt.errs == nil {
				require.NoError(t, err)
				require.NoError(t, cerr)
				return
			}
			require.Error(t, err)
			assert.Equal(t, strings.Join(tt.errs, "\n"), err.Error())
			require.Error(t, cerr)
			assert.Equal(t, err.Error(), cerr.Error())
		})
	}
}

func TestValidateDeterministic(t *testing.T) {
	c := &Config{Policies: []Policy{{MatchingRules: []MatchingRule{{NamespaceSelector: &metav1.LabelSelector{
		MatchLabels: map[string]string{"a b": "1", "c d": "2", "e f": "3", "g h": "4"},
	}}}}}}
	first := c.Validate().Error()
	for range 20 {
		require.Equal(t, first, c.Validate().Error())
	}
}
