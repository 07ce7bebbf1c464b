package meshfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/istiotest"
)

// expected ends the message of input holding no mesh configuration.
const expected = "; expected an IstioOperator, the istio ConfigMap, Helm values with meshConfig, or a meshConfig"

// spellDoc renders a document for comparison: "where | path | value as JSON", with "bare"
// before the value of a bare block and "-" for an empty where or path.
func spellDoc(t *testing.T, d Doc) string {
	t.Helper()
	v, err := json.Marshal(d.Value)
	require.NoError(t, err)
	where, path := d.Where(), d.Path
	if where == "" {
		where = "-"
	}
	if path == "" {
		path = "-"
	}
	if d.Bare {
		path += " bare"
	}
	return where + " | " + path + " | " + string(v)
}

func TestRead(t *testing.T) {
	tests := []struct {
		name string
		in   string
		docs []string
		errs []string
	}{
		{name: "empty input", in: "", errs: []string{"no mesh configuration: found nothing: the input is empty" + expected}},
		{name: "other kinds", in: "kind: Namespace\nmetadata: {name: a}\n---\nkind: Namespace\n---\nkind: Service\n", errs: []string{"no mesh configuration: found 2 Namespace, 1 Service" + expected}},
		{name: "empty List and document", in: "kind: List\nitems: []\n---\n", errs: []string{"no mesh configuration: found an empty List and an empty document" + expected}},
		{name: "IstioOperator", in: "apiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\nspec:\n  meshConfig:\n    serviceEntryVisibility: {defaultVisibility: NAMESPACE}\n",
			docs: []string{`- | spec.meshConfig | {"serviceEntryVisibility":{"defaultVisibility":"NAMESPACE"}}`}},
		{name: "IstioOperator, both places", in: "kind: IstioOperator\nspec:\n  meshConfig: {rootNamespace: x}\n  values:\n    meshConfig: {a: 1}\n", docs: []string{
			`- | spec.meshConfig | {"rootNamespace":"x"}`, `- | spec.values.meshConfig | {"a":1}`,
		}},
		{name: "IstioOperator, null meshConfig", in: "kind: IstioOperator\nspec: {meshConfig: null}\n", docs: []string{"- | spec.meshConfig | null"}},
		{name: "IstioOperator without meshConfig", in: "kind: IstioOperator\nspec: {profile: demo}\n"},
		{name: "IstioOperator without spec", in: "kind: IstioOperator\n"},
		{name: "spec not an object", in: "kind: IstioOperator\nspec: 3\n", errs: []string{"spec: must be an object, got the number 3"}},
		{name: "spec.values not an object", in: "kind: IstioOperator\nspec: {meshConfig: {}, values: [a]}\n", errs: []string{"spec.values: must be an object, got a list"}},
		{name: "spec.meshConfig misspelt", in: "kind: IstioOperator\nspec: {meshconfig: {}, mesh_Config: {}}\n", errs: []string{
			`spec: unknown field "mesh_Config" (did you mean "meshConfig"? as written, the mesh configuration is not read)`,
			`spec: unknown field "meshconfig" (did you mean "meshConfig"? as written, the mesh configuration is not read)`,
		}},
		{name: "spec.values.meshConfig misspelt", in: "kind: IstioOperator\nspec: {values: {meshConfg: {}}}\n", errs: []string{
			`spec.values: unknown field "meshConfg" (did you mean "meshConfig"? as written, the mesh configuration is not read)`,
		}},
		{name: "kind misspelt", in: "kind: istiooperator\nspec: {}\n", errs: []string{
			`kind: unknown kind "istiooperator" (did you mean "IstioOperator"? as written, the object would be skipped)`,
		}},
		{name: "ConfigMap", in: "kind: ConfigMap\nmetadata: {name: istio, namespace: istio-system}\ndata:\n  mesh: |\n    serviceEntryVisibility:\n      defaultVisibility: NONE\n",
			docs: []string{`- | data.mesh | {"serviceEntryVisibility":{"defaultVisibility":"NONE"}}`}},
		{name: "revision ConfigMap, empty mesh", in: "kind: ConfigMap\nmetadata: {name: istio-1-24}\ndata: {mesh: \"\"}\n", docs: []string{"- | data.mesh | null"}},
		{name: "ConfigMap of another name", in: "kind: ConfigMap\nmetadata: {name: istio-ca-root-cert}\n---\nkind: ConfigMap\nmetadata: {name: other}\ndata: {mesh: x}\n",
			errs: []string{"no mesh configuration: found 2 ConfigMap" + expected}},
		{name: "ConfigMap whose name only starts with istio", in: "kind: ConfigMap\nmetadata: {name: istiod}\ndata: {mesh: x}\n", errs: []string{"no mesh configuration: found 1 ConfigMap" + expected}},
		{name: "istio ConfigMap without data", in: "kind: ConfigMap\nmetadata: {name: istio}\n", errs: []string{"no mesh configuration: found 1 ConfigMap" + expected}},
		{name: "data not an object", in: "kind: ConfigMap\nmetadata: {name: istio}\ndata: 3\n", errs: []string{"data: must be an object, got the number 3"}},
		{name: "data.mesh misspelt", in: "kind: ConfigMap\nmetadata: {name: istio}\ndata: {Mesh: x, meshNetworks: y}\n", errs: []string{
			`data: unknown field "Mesh" (did you mean "mesh"? as written, the mesh configuration is not read)`,
		}},
		{name: "data.mesh not a string", in: "kind: ConfigMap\nmetadata: {name: istio}\ndata: {mesh: {a: 1}}\n", errs: []string{
			"data.mesh: must be a string holding the meshConfig YAML, got an object",
		}},
		{name: "data.mesh two documents", in: "kind: ConfigMap\nmetadata: {name: istio}\ndata: {mesh: \"a: 1\\n---\\nb: 2\\n\"}\n", errs: []string{
			"data.mesh: holds 2 YAML documents; the meshConfig is one",
		}},
		{name: "data.mesh not YAML", in: "kind: ConfigMap\nmetadata: {name: istio}\ndata: {mesh: \"a: [\"}\n", errs: []string{
			"data.mesh: document 1: not YAML or JSON: line 1: did not find expected node content",
		}},
		{name: "data.mesh key given twice", in: "kind: ConfigMap\nmetadata: {name: istio}\ndata:\n  mesh: |\n    a: 1\n    a: 2\n", errs: []string{
			"data.mesh.a: given twice (lines 1 and 2)",
		}},
		{name: "ConfigMap name given twice", in: "kind: ConfigMap\nmetadata: {name: other, name: istio}\ndata: {mesh: x}\n", errs: []string{
			"metadata.name: given twice (lines 2 and 2)",
		}},
		{name: "problem in a skipped object", in: "kind: Deployment\nspec: {replicas: 1, replicas: 2}\n---\nmeshConfig: {}\n", docs: []string{"document 2 | meshConfig | {}"}},
		{name: "problem in a mesh object", in: "kind: IstioOperator\nspec: {meshConfig: {}, meshConfig: {}}\n", errs: []string{"spec.meshConfig: given twice (lines 2 and 2)"}},
		{name: "Helm values", in: "meshConfig:\n  rootNamespace: istio-config\n", docs: []string{`- | meshConfig | {"rootNamespace":"istio-config"}`}},
		{name: "Helm values, null", in: "meshConfig:\n", docs: []string{"- | meshConfig | null"}},
		{name: "Helm values under values", in: "values: {meshConfig: {}}\n", docs: []string{"- | values.meshConfig | {}"}},
		{name: "values not an object", in: "values: 3\n", errs: []string{"values: must be an object, got the number 3"}},
		{name: "meshConfig misspelt", in: "meshconfig: {}\n", errs: []string{
			`(top level): unknown field "meshconfig" (did you mean "meshConfig"? as written, the mesh configuration is not read)`,
		}},
		{name: "values.meshConfig misspelt", in: "values: {mesh_config: {}}\n", errs: []string{
			`values: unknown field "mesh_config" (did you mean "meshConfig"? as written, the mesh configuration is not read)`,
		}},
		{name: "bare block", in: "defaultVisibility: NONE\npolicies: []\n", docs: []string{`- | - bare | {"defaultVisibility":"NONE","policies":[]}`}},
		{name: "bare block, snake_case", in: "apply_to_sidecars: true\n", docs: []string{`- | - bare | {"apply_to_sidecars":true}`}},
		{name: "whole meshConfig", in: "rootNamespace: x\nserviceEntryVisibility: {}\n", docs: []string{`- | - | {"rootNamespace":"x","serviceEntryVisibility":{}}`}},
		{name: "empty object", in: "{}\n", docs: []string{"- | - | {}"}},
		{name: "in a List and a stream", in: "kind: Namespace\n---\nkind: List\nitems:\n- kind: ConfigMap\n  metadata: {name: istio}\n  data: {mesh: 'rootNamespace: a'}\n- meshConfig: {}\n", docs: []string{
			`document 2: items[0] | data.mesh | {"rootNamespace":"a"}`, "document 2: items[1] | meshConfig | {}",
		}},
		{name: "problems in their places", in: "kind: IstioOperator\nspec: 3\n---\nkind: List\nitems:\n- kind: ConfigMap\n  metadata: {name: istio}\n  data: {mesh: 3}\n- meshConfig: {}\n", docs: []string{
			"document 2: items[1] | meshConfig | {}",
		}, errs: []string{
			"document 1: spec: must be an object, got the number 3",
			"document 2: items[0]: data.mesh: must be a string holding the meshConfig YAML, got the number 3",
		}},
		{name: "not an object", in: "- 1\n", errs: []string{"the document must be an object, got a list"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, errs := Read([]byte(tt.in))
			var got []string
			for _, d := range docs {
				got = append(got, spellDoc(t, d))
			}
			assert.Equal(t, tt.docs, got)
			var texts []string
			for _, e := range errs {
				for _, p := range fielderr.Split(e) {
					texts = append(texts, p.Error())
				}
			}
			assert.Equal(t, tt.errs, texts)
			for _, e := range errs {
				if strings.HasPrefix(e.Error(), "no mesh configuration") {
					assert.ErrorIs(t, e, ErrNoMeshConfig)
					assert.Len(t, errs, 1)
				} else {
					assert.NotErrorIs(t, e, ErrNoMeshConfig)
				}
			}
		})
	}
}

// rootNamespace is an extract for LoadOne: a meshConfig's rootNamespace, which must be a
// string; "bad" is refused.
func rootNamespace(d Doc) (*string, string, error) {
	m, ok := d.Value.(interface{ Value(string) any })
	if !ok || d.Bare {
		return nil, "", nil
	}
	v := m.Value("rootNamespace")
	if v == nil {
		return nil, "", nil
	}
	s, ok := v.(string)
	if !ok || s == "bad" {
		return nil, "", &fielderr.Error{Field: d.Path + ".rootNamespace", Value: v, Detail: "not a namespace"}
	}
	return &s, d.Path + ".rootNamespace", nil
}

func TestLoadOne(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		want      string // "" for nil
		errs      []string
		duplicate bool
	}{
		{name: "none holds it", in: "meshConfig: {accessLogFile: /dev/stdout}\n"},
		{name: "one", in: "meshConfig: {rootNamespace: cfg}\n", want: "cfg"},
		{name: "one of several documents", in: "meshConfig: {}\n---\nkind: IstioOperator\nspec: {meshConfig: {rootNamespace: cfg}}\n", want: "cfg"},
		{name: "twice in one object", in: "kind: IstioOperator\nspec:\n  meshConfig: {rootNamespace: a}\n  values: {meshConfig: {rootNamespace: b}}\n", duplicate: true, errs: []string{
			"spec.values.meshConfig.rootNamespace: a second root namespace; the first is at spec.meshConfig.rootNamespace",
		}},
		{name: "in two documents", in: "meshConfig: {rootNamespace: a}\n---\nkind: List\nitems: [{kind: IstioOperator, spec: {meshConfig: {rootNamespace: b}}}]\n", duplicate: true, errs: []string{
			"document 2: items[0]: spec.meshConfig.rootNamespace: a second root namespace; the first is at document 1: meshConfig.rootNamespace",
		}},
		{name: "extract's error, placed", in: "kind: Namespace\n---\nmeshConfig: {rootNamespace: bad}\n", errs: []string{
			"document 2: meshConfig.rootNamespace: not a namespace",
		}},
		{name: "every problem at once", in: "meshConfig: {rootNamespace: 3}\n---\nkind: IstioOperator\nspec: 3\n---\nmeshConfig: {rootNamespace: a}\n---\nmeshConfig: {rootNamespace: b}\n", duplicate: true, errs: []string{
			"document 2: spec: must be an object, got the number 3",
			"document 1: meshConfig.rootNamespace: not a namespace",
			"document 4: meshConfig.rootNamespace: a second root namespace; the first is at document 3: meshConfig.rootNamespace",
		}},
		{name: "no mesh configuration", in: "kind: Namespace\n", errs: []string{"no mesh configuration: found 1 Namespace" + expected}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LoadOne([]byte(tt.in), "root namespace", rootNamespace)
			if tt.errs != nil {
				require.Error(t, err)
				assert.Nil(t, got)
				texts := istiotest.ErrorTexts(err)
				assert.Equal(t, tt.errs, texts)
				assert.Equal(t, tt.duplicate, errors.Is(err, ErrDuplicate))
				return
			}
			require.NoError(t, err)
			if tt.want == "" {
				assert.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			assert.Equal(t, tt.want, *got)
		})
	}
}

// TestFieldNames: each list names a field camelCase first, then the snake_case spelling
// protobuf also accepts.
func TestFieldNames(t *testing.T) {
	snake := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			if 'A' <= r && r <= 'Z' {
				b.WriteByte('_')
				r += 'a' - 'A'
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	for _, names := range append([][]string{BlockName, DefaultVis, Policies, ApplyToSidecars, DiscoveryAddress}, meshFields...) {
		require.NotEmpty(t, names)
		first := names[0]
		assert.Equal(t, strings.ToLower(first[:1]), first[:1], "%q is not camelCase", first)
		if snake(first) == first {
			assert.Len(t, names, 1, "%v", names)
			continue
		}
		assert.Equal(t, []string{first, snake(first)}, names)
	}
	assert.Equal(t, []string{"defaultVisibility", "default_visibility", "policies", "applyToSidecars", "apply_to_sidecars"}, blockKeys)
	assert.Len(t, meshFields, 9, fmt.Sprint(meshFields))
}
