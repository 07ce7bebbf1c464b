package kube

import (
	"fmt"
	"strings"
	"testing"

	"github.com/meshscope/meshscope/internal/istiotest"
)

// dump writes n objects as `kubectl get … -A -o yaml` prints them: one List of
// Namespaces, ServiceEntries, Services and Deployments, with the metadata the API server
// adds.
func dump(n int) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: List\nmetadata:\n  resourceVersion: \"\"\nitems:\n")
	for i := range n {
		ns := fmt.Sprintf("team-%d", i/4)
		meta := func(kind, apiVersion, name string) {
			fmt.Fprintf(&b, "- apiVersion: %s\n  kind: %s\n  metadata:\n", apiVersion, kind)
			fmt.Fprintf(&b, "    annotations:\n      kubectl.kubernetes.io/last-applied-configuration: |\n        {\"apiVersion\":%q,\"kind\":%q,\"metadata\":{\"name\":%q}}\n", apiVersion, kind, name)
			fmt.Fprintf(&b, "    creationTimestamp: \"2024-05-%02dT10:%02d:00Z\"\n    generation: 1\n", 1+i%28, i%60)
			fmt.Fprintf(&b, "    labels:\n      app.kubernetes.io/name: %s\n      team: t%d\n", name, i%7)
			if kind != "Namespace" {
				fmt.Fprintf(&b, "    namespace: %s\n", ns)
			}
			fmt.Fprintf(&b, "    name: %s\n    resourceVersion: \"%d\"\n    uid: 5d3c%04x-1b2e-4c8f-9a7d-0c1e2f3a4b5c\n", name, 1000+i, i)
		}
		switch i % 4 {
		case 0:
			meta("Namespace", "v1", ns)
			b.WriteString("  spec:\n    finalizers: [kubernetes]\n  status:\n    phase: Active\n")
		case 1:
			meta("ServiceEntry", "networking.istio.io/v1", fmt.Sprintf("ext-%d", i))
			fmt.Fprintf(&b, "  spec:\n    exportTo: [\".\"]\n    hosts:\n    - api%d.example.com\n    location: MESH_EXTERNAL\n    ports:\n    - {name: https, number: 443, protocol: TLS}\n    resolution: DNS\n", i)
		case 2:
			meta("Service", "v1", fmt.Sprintf("web-%d", i))
			fmt.Fprintf(&b, "  spec:\n    clusterIP: 10.96.%d.%d\n    ports:\n    - name: http\n      port: 80\n      protocol: TCP\n      targetPort: 8080\n    selector: {app: web}\n    type: ClusterIP\n  status:\n    loadBalancer: {}\n", i/256, i%256)
		default:
			meta("Deployment", "apps/v1", fmt.Sprintf("web-%d", i))
			b.WriteString("  spec:\n    replicas: 2\n    selector:\n      matchLabels: {app: web}\n    template:\n      metadata:\n        labels: {app: web}\n      spec:\n        containers:\n        - image: nginx:1.27\n          name: web\n          ports: [{containerPort: 8080}]\n  status:\n    availableReplicas: 2\n    conditions:\n    - {type: Available, status: \"True\", message: \"Deployment has minimum availability.\"}\n")
		}
	}
	return []byte(b.String())
}

// naiveRead is the baseline: yaml.v3 decoding every document into map[string]any, Lists
// unwrapped, without paths, problems or the strictness Read adds.
var naiveRead = istiotest.NaiveObjects

func TestNaiveReadAgrees(t *testing.T) {
	data := dump(40)
	objs, err := naiveRead(data)
	if err != nil {
		t.Fatal(err)
	}
	s := Read(data, always)
	if len(objs) != 40 || len(s.Objects) != 40 {
		t.Fatalf("the baseline reads %d objects, Read %d; the dump holds 40", len(objs), len(s.Objects))
	}
	for i, o := range s.Objects {
		if o.Err != nil || o.Kind != objs[i]["kind"] {
			t.Fatalf("object %d: %v, %q; the baseline reads %v", i, o.Err, o.Kind, objs[i]["kind"])
		}
	}
}

// BenchmarkRead reads a kubectl dump of 400 objects with Read, and with yaml.v3 into maps
// for comparison.
func BenchmarkRead(b *testing.B) {
	data := dump(400)
	b.Run("kube.Read", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if s := Read(data, always); len(s.Objects) != 400 {
				b.Fatal(len(s.Objects))
			}
		}
	})
	b.Run("yaml.v3-map", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if objs, err := naiveRead(data); err != nil || len(objs) != 400 {
				b.Fatal(len(objs), err)
			}
		}
	})
}
