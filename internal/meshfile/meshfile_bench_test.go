package meshfile

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/meshscope/meshscope/internal/istiotest"
)

// configMaps writes what `kubectl get configmaps -A -o yaml` prints in a cluster running
// Istio: n ConfigMaps of other names, then the istio ConfigMap, whose data.mesh holds a
// meshConfig with a serviceEntryVisibility block of policies policies.
func configMaps(n, policies int) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: List\nmetadata: {resourceVersion: \"\"}\nitems:\n")
	for i := range n {
		fmt.Fprintf(&b, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: app-config-%d\n    namespace: team-%d\n    resourceVersion: \"%d\"\n    uid: 0b1c%04x-2d3e-4f50-8a9b-c0d1e2f3a4b5\n  data:\n    settings.yaml: |\n      level: info\n      replicas: 2\n    LOG_FORMAT: json\n", i, i%9, 500+i, i)
	}
	b.WriteString("- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: istio\n    namespace: istio-system\n    labels: {istio.io/rev: default}\n  data:\n    meshNetworks: 'networks: {}'\n    mesh: |-\n      accessLogFile: /dev/stdout\n      defaultConfig:\n        discoveryAddress: istiod.istio-system.svc:15012\n      rootNamespace: istio-system\n      serviceEntryVisibility:\n        defaultVisibility: NAMESPACE\n        policies:\n")
	for i := range policies {
		fmt.Fprintf(&b, "        - visibility: PUBLIC\n          matchingRules:\n          - namespaceSelector:\n              matchLabels: {team: t%d}\n              matchExpressions:\n              - {key: env, operator: NotIn, values: [dev, test]}\n", i)
	}
	return []byte(b.String())
}

// naiveRead is the baseline: yaml.v3 decoding every document into map[string]any, Lists
// unwrapped, and the istio ConfigMap's data.mesh decoded again; it returns the meshConfigs
// found, without paths, problems or the other shapes Read knows.
func naiveRead(data []byte) ([]map[string]any, error) {
	objs, err := istiotest.NaiveObjects(data)
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	for _, m := range objs {
		meta, _ := m["metadata"].(map[string]any)
		data, _ := m["data"].(map[string]any)
		mesh, ok := data["mesh"].(string)
		if name, _ := meta["name"].(string); m["kind"] == "ConfigMap" && ok && (name == "istio" || strings.HasPrefix(name, "istio-")) {
			var mc map[string]any
			if err := yaml.Unmarshal([]byte(mesh), &mc); err != nil {
				return nil, err
			}
			out = append(out, mc)
		}
	}
	return out, nil
}

func TestNaiveReadAgrees(t *testing.T) {
	data := configMaps(30, 5)
	mcs, err := naiveRead(data)
	if err != nil {
		t.Fatal(err)
	}
	docs, errs := Read(data)
	if len(errs) > 0 || len(docs) != 1 || len(mcs) != 1 {
		t.Fatalf("Read: %d documents, %v; the baseline: %d", len(docs), errs, len(mcs))
	}
	block, path, found, err := Block(docs[0])
	if err != nil || !found || path != "data.mesh.serviceEntryVisibility" {
		t.Fatalf("block at %q, found %v, %v", path, found, err)
	}
	got, _ := block.(interface{ Value(string) any }).Value("policies").([]any)
	want, _ := mcs[0]["serviceEntryVisibility"].(map[string]any)["policies"].([]any)
	if len(got) != 5 || len(want) != 5 {
		t.Fatalf("%d policies read, %d by the baseline; the file has 5", len(got), len(want))
	}
}

// BenchmarkRead finds the mesh configuration in a dump of 200 ConfigMaps with Read, and
// with yaml.v3 into maps for comparison.
func BenchmarkRead(b *testing.B) {
	data := configMaps(200, 20)
	b.Run("meshfile.Read", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if docs, errs := Read(data); len(docs) != 1 || len(errs) > 0 {
				b.Fatal(len(docs), errs)
			}
		}
	})
	b.Run("yaml.v3-map", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if mcs, err := naiveRead(data); len(mcs) != 1 || err != nil {
				b.Fatal(len(mcs), err)
			}
		}
	})
}
