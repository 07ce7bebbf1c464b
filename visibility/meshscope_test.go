package visibility

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestLoadMeshScope(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     *MeshScope
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
    accessLogFile: /dev/stdout`, &MeshScope{RootNamespace: "istio-config", DefaultServiceExportTo: []string{"."}, DiscoverySelectors: []metav1.LabelSelector{
			{MatchLabels: map[string]string{"istio-discovery": "enabled"}},
			{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"prod"}}}},
		}}},
		{"the istio ConfigMap, snake_case", "kind: ConfigMap\nmetadata: {name: istio}\ndata:\n  mesh: |\n    root_namespace: istio-config\n    discovery_selectors: [{}]\n",
			&MeshScope{RootNamespace: "istio-config", DiscoverySelectors: []metav1.LabelSelector{{}}}},
		{"Helm values", "values:\n  meshConfig:\n    defaultServiceExportTo: ['*']\n", &MeshScope{DefaultServiceExportTo: []string{"*"}}},
		{"a mesh configuration without the fields: the defaults", "meshConfig: {accessLogFile: /dev/stdout}\n", &MeshScope{}},
		{"a bare serviceEntryVisibility block: the defaults", "defaultVisibility: NAMESPACE\n", &MeshScope{}},
		{"in a List", "kind: List\nitems:\n- kind: IstioOperator\n  spec: {meshConfig: {rootNamespace: r}}\n", &MeshScope{RootNamespace: "r"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := LoadMeshScope([]byte(tc.in))
			require.NoError(t, err)
			assert.Equal(t, tc.want, m)
		})
	}
}

func TestLoadMeshScopeRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"nothing", "", []string{"no mesh configuration: found nothing: the input is empty"}},
		{"a misspelt field", "meshConfig: {discoverySelector: [{}]}\n", []string{`meshConfig: unknown field "discoverySelector" (did you mean "discoverySelectors"? as written, it is ignored)`}},
		{"match_labels", "meshConfig: {discoverySelectors: [{match_labels: {a: b}}]}\n", []string{`meshConfig.discoverySelectors[0]: unknown field "match_labels" (did you mean "matchLabels"?)`}},
		{"a bad selector", "meshConfig: {discoverySelectors: [{matchExpressions: [{key: a, operator: In}]}]}\n", []string{`meshConfig.discoverySelectors[0].matchExpressions[0].values: Required value: must be specified when`}},
		{"a null selector", "meshConfig: {discoverySelectors: [null]}\n", []string{`meshConfig.discoverySelectors[0]: a discovery selector may not be null`}},
		{"a bad default exportTo", "meshConfig: {defaultServiceExportTo: ['*', '.']}\n", []string{`meshConfig.defaultServiceExportTo[0]: "*" must be the only value`}},
		{"a bad root namespace", "meshConfig: {rootNamespace: Istio_System}\n", []string{`meshConfig.rootNamespace: "Istio_System"`}},
		{"a wrong type", "meshConfig: {rootNamespace: [a]}\n", []string{`meshConfig.rootNamespace: must be a string`}},
		{"given twice", "kind: IstioOperator\nspec: {meshConfig: {rootNamespace: a}, values: {meshConfig: {rootNamespace: b}}}\n", []string{`spec.values.meshConfig: a second mesh scope`}},
		{"a key twice", "meshConfig: {rootNamespace: a, rootNamespace: b}\n", []string{`given twice`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadMeshScope([]byte(tc.in))
			require.Error(t, err)
			lines := strings.Split(err.Error(), "\n")
			require.Len(t, lines, len(tc.want), "%v", err)
			for i := range lines {
				assert.Contains(t, lines[i], tc.want[i])
			}
		})
	}
	_, err := LoadMeshScope(nil)
	assert.True(t, errors.Is(err, ErrNoMeshConfig))
}

func TestMeshScopeJSON(t *testing.T) {
	var m MeshScope
	require.NoError(t, json.Unmarshal([]byte(`{"rootNamespace": "r", "discovery_selectors": [{"matchLabels": {"a": "b"}}]}`), &m))
	assert.Equal(t, MeshScope{RootNamespace: "r", DiscoverySelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"a": "b"}}}}, m)
	err := json.Unmarshal([]byte(`{"rootNamespce": "r"}`), &m)
	assert.ErrorContains(t, err, `unknown field "rootNamespce" (did you mean "rootNamespace"?)`)
	b, err := json.Marshal(MeshScope{RootNamespace: "r"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"rootNamespace": "r"}`, string(b))
	assert.NoError(t, (*MeshScope)(nil).Validate())
	assert.ErrorContains(t, (&MeshScope{DefaultServiceExportTo: []string{"Shop"}}).Validate(), `defaultServiceExportTo[0]: "Shop" is not`)
}

func TestNewSidecarViewRefuses(t *testing.T) {
	nss := map[string]map[string]string{"shop": nil}
	_, err := NewSidecarView(nil, &MeshScope{DefaultServiceExportTo: []string{"."}}, Inventory{Namespaces: nss, DefaultExportTo: []string{"*"},
		Services: []Service{{Kind: ServiceEntry, Namespace: "shop", Name: "a", Hosts: []string{"a..b"}}},
		Sidecars: []Sidecar{
			{Namespace: "shop", Name: "s", WorkloadSelector: map[string]string{"a b": "c"}, Egress: []SidecarEgress{{Hosts: []string{"shop"}}, {}}},
			{Namespace: "shop", Name: "s"},
			{Namespace: "", Name: ""},
		}})
	require.Error(t, err)
	assert.Equal(t, []string{
		`DefaultExportTo: ["*"] differs from the mesh scope's defaultServiceExportTo ["."]; give it in one place`,
		`Services[0] (ServiceEntry shop/a): Hosts[0]: "a..b" is not a DNS name: must not have an empty label (a leading, trailing or doubled ".")`,
		`Sidecars[0] (Sidecar shop/s): WorkloadSelector: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
		`Sidecars[0] (Sidecar shop/s): Egress[0].Hosts[0]: "shop" is not of the form namespace/host`,
		`Sidecars[0] (Sidecar shop/s): Egress[1].Hosts: an egress listener imports at least one host`,
		`Sidecars[1] (Sidecar shop/s): a second Sidecar shop/s (the first is Sidecars[0])`,
		`Sidecars[2] (Sidecar /): Namespace: must not be empty`,
		`Sidecars[2] (Sidecar /): Name: must not be empty`,
	}, strings.Split(err.Error(), "\n"))
}

func FuzzLoadMeshScope(f *testing.F) {
	for _, s := range []string{"meshConfig: {rootNamespace: a, defaultServiceExportTo: ['.'], discoverySelectors: [{matchLabels: {a: b}}]}",
		"kind: ConfigMap\nmetadata: {name: istio}\ndata: {mesh: 'root_namespace: x'}", "{\"values\": {\"meshConfig\": {\"discovery_selectors\": [{}]}}}", "", "meshConfig: {discoverySelector: []}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := LoadMeshScope(data)
		if err != nil {
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("LoadMeshScope returned a MeshScope that does not validate: %v", err)
		}
		if _, err := NewSidecarView(nil, m, Inventory{}); err != nil {
			t.Fatalf("a loaded MeshScope is refused by NewSidecarView: %v", err)
		}
	})
}

// FuzzMeshScopeUnmarshal holds json.Unmarshal into a MeshScope to LoadMeshScope: a value it
// reads, and that validates, reads the same when it is the meshConfig of a mesh
// configuration file; and it never panics.
func FuzzMeshScopeUnmarshal(f *testing.F) {
	for _, s := range []string{`{"rootNamespace": "a", "defaultServiceExportTo": ["."], "discoverySelectors": [{"matchLabels": {"a": "b"}}]}`,
		`{"root_namespace": "x", "discovery_selectors": [{"matchExpressions": [{"key": "k", "operator": "In", "values": ["v"]}]}]}`,
		`{"rootNamespace": "a", "rootNamespace": "b"}`, `{"discoverySelector": []}`, `{"defaultServiceExportTo": "."}`, `null`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m MeshScope
		if err := json.Unmarshal(data, &m); err != nil || m.Validate() != nil {
			return
		}
		if m.RootNamespace == "" && m.DefaultServiceExportTo == nil && m.DiscoverySelectors == nil {
			return // nothing given: LoadMeshScope reads that as no mesh scope
		}
		loaded, err := LoadMeshScope([]byte(`{"meshConfig": ` + string(data) + `}`))
		if err != nil {
			t.Fatalf("json.Unmarshal read %s, LoadMeshScope refused it as a meshConfig: %v", data, err)
		}
		if loaded == nil {
			t.Fatalf("json.Unmarshal read %s, LoadMeshScope found no mesh scope in it", data)
		}
		if b1, b2 := mustJSON(t, &m), mustJSON(t, loaded); b1 != b2 {
			t.Fatalf("json.Unmarshal read %s, LoadMeshScope %s", b1, b2)
		}
	})
}
