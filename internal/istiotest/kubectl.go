package istiotest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KubectlObject is an object as `kubectl get -o yaml` prints it: apiVersion, kind, the
// metadata the API server sets (no namespace for "", as a cluster-scoped object has none),
// and spec (left out when nil).
func KubectlObject(apiVersion, kind, namespace, name, created string, spec map[string]any) map[string]any {
	meta := map[string]any{"name": name, "namespace": namespace, "creationTimestamp": created, "generation": 1,
		"resourceVersion": "4711", "uid": "0d8f1a52-1111-4a4a-8c8c-000000000001"}
	if namespace == "" {
		delete(meta, "namespace")
	}
	o := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": meta}
	if spec != nil {
		o["spec"] = spec
	}
	return o
}

// NamespaceObject is a Namespace with labels as kubectl prints it.
func NamespaceObject(name string, labels map[string]string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name, "labels": labels},
		"spec": map[string]any{"finalizers": []any{"kubernetes"}}, "status": map[string]any{"phase": "Active"}}
}

// List returns items as a kubectl List, as `kubectl get … -o json` prints it when asJSON is
// set, else as `-o yaml` does.
func List(items []any, asJSON bool) ([]byte, error) {
	list := map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{"resourceVersion": ""}, "items": items}
	if asJSON {
		return json.MarshalIndent(list, "", "    ")
	}
	return yaml.Marshal(list)
}

// ListOf is a kubectl List in YAML of the objects, each written as its YAML lines at the top
// level.
func ListOf(objects ...string) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: List\nitems:\n")
	for _, o := range objects {
		for i, line := range strings.Split(strings.TrimSuffix(o, "\n"), "\n") {
			if i == 0 {
				b.WriteString("- " + line + "\n")
			} else {
				b.WriteString("  " + line + "\n")
			}
		}
	}
	return b.String()
}

// MeshFileAs writes a mesh configuration in one of the shapes a user has it in, chosen by
// k%4: the meshConfig alone in JSON, an IstioOperator in YAML, the istio ConfigMap (its
// data.mesh YAML inside JSON), or Helm values in YAML.
func MeshFileAs(meshConfig map[string]any, k int) ([]byte, error) {
	switch k % 4 {
	case 0:
		return json.Marshal(meshConfig)
	case 1:
		return yaml.Marshal(map[string]any{"apiVersion": "install.istio.io/v1alpha1", "kind": "IstioOperator",
			"metadata": map[string]any{"name": "installed-state", "namespace": "istio-system"}, "spec": map[string]any{"meshConfig": meshConfig}})
	case 2:
		m, err := yaml.Marshal(meshConfig)
		if err != nil {
			return nil, err
		}
		return json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "istio", "namespace": "istio-system"},
			"data": map[string]any{"mesh": string(m)}})
	}
	return yaml.Marshal(map[string]any{"meshConfig": meshConfig})
}

// Objects of kinds no meshscope loader reads, whose problems the loaders must not report: a
// Deployment as `kubectl get all -A -o yaml` prints one a person wrote, with an octal file
// mode the strict reader refuses as ambiguous, and a ConfigMap with a key given twice.
const (
	OctalDeployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  template:\n    spec:\n      volumes:\n      - name: certs\n        secret:\n          defaultMode: 0400\n"
	TwiceConfigMap  = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: shop\ndata:\n  a: x\n  a: y\n"
)

// NestedLists is a JSON stream of kubectl Lists nested n deep, each level holding item (its
// "{i}" replaced by the level) and the next List, the innermost empty.
func NestedLists(n int, item string) []byte {
	var b strings.Builder
	for i := range n {
		b.WriteString(`{"kind": "List", "items": [` + strings.ReplaceAll(item, "{i}", strconv.Itoa(i)) + ", ")
	}
	b.WriteString(`{}` + strings.Repeat("]}", n))
	return []byte(b.String())
}

// SidecarList is a kubectl List with Sidecars of every API version, one with a
// workloadSelector of no labels (which selects every workload) and one of another API group
// (which is no Istio Sidecar).
const SidecarList = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Namespace
  metadata: {name: shop}
- apiVersion: networking.istio.io/v1
  kind: Sidecar
  metadata: {name: default, namespace: shop, creationTimestamp: "2026-01-01T00:00:00Z"}
  spec:
    egress:
    - port: {number: 8080, protocol: HTTP, name: http}
      hosts: ["./*"]
    - hosts: ["./*", "istio-system/*", "~/*.internal.example.com"]
- apiVersion: networking.istio.io/v1beta1
  kind: Sidecar
  metadata: {name: web, namespace: shop}
  spec:
    workloadSelector: {labels: {app: web}}
    egress: [{hosts: ["*/api.example.com"]}]
- apiVersion: networking.istio.io/v1alpha3
  kind: Sidecar
  metadata: {name: all, namespace: shop}
  spec:
    workloadSelector: {}
    ingress: [{port: {number: 9080, protocol: HTTP, name: http}, defaultEndpoint: "127.0.0.1:8080"}]
- apiVersion: example.com/v1
  kind: Sidecar
  metadata: {name: other, namespace: shop}
  spec: {anything: goes}
`

// NaiveObjects is the baseline a reader of kubectl output is benchmarked beside: yaml.v3
// decoding every document into map[string]any, Lists unwrapped, without paths, problems or
// strictness.
func NaiveObjects(data []byte) ([]map[string]any, error) {
	var out []map[string]any
	var add func(x any)
	add = func(x any) {
		m, ok := x.(map[string]any)
		if !ok {
			return
		}
		if k, _ := m["kind"].(string); strings.HasSuffix(k, "List") {
			items, _ := m["items"].([]any)
			for _, it := range items {
				add(it)
			}
			return
		}
		out = append(out, m)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var x any
		if err := dec.Decode(&x); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, err
		}
		add(x)
	}
}

// LabelSelector is a label selector of the match labels kv gives, key then value.
func LabelSelector(kv ...string) *metav1.LabelSelector {
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return &metav1.LabelSelector{MatchLabels: m}
}

// JSON returns v as JSON, for a failure message, failing the test if v has none.
func JSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
