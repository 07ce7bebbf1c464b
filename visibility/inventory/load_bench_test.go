package inventory

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	yaml "go.yaml.in/yaml/v3"
	kubeyaml "sigs.k8s.io/yaml"

	"github.com/meshscope/meshscope/internal/growth"
)

// kubectlDump is what `kubectl get namespaces,serviceentries,services -A -o yaml` prints for
// n ServiceEntries and n Services over n/10 namespaces, with the metadata a real cluster
// carries (annotations, managed fields are left out as kubectl leaves them out by default).
func kubectlDump(n int) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: List\nmetadata:\n  resourceVersion: \"\"\nitems:\n")
	nss := max(n/10, 1)
	for i := range nss {
		fmt.Fprintf(&b, `- apiVersion: v1
  kind: Namespace
  metadata:
    creationTimestamp: "2024-01-02T03:04:05Z"
    labels:
      kubernetes.io/metadata.name: ns%[1]d
      team: team%[2]d
      istio.io/dataplane-mode: ambient
    name: ns%[1]d
    resourceVersion: "%[1]d1"
    uid: 0d8f1a52-1111-4a4a-8c8c-%012[1]d
  spec:
    finalizers:
    - kubernetes
  status:
    phase: Active
`, i, i%7)
	}
	for i := range n {
		fmt.Fprintf(&b, `- apiVersion: networking.istio.io/v1
  kind: ServiceEntry
  metadata:
    annotations:
      kubectl.kubernetes.io/last-applied-configuration: |
        {"apiVersion":"networking.istio.io/v1","kind":"ServiceEntry","metadata":{"name":"se%[1]d","namespace":"ns%[2]d"}}
    creationTimestamp: "2024-02-03T04:05:06Z"
    generation: 1
    labels:
      app: se%[1]d
    name: se%[1]d
    namespace: ns%[2]d
    resourceVersion: "%[1]d2"
    uid: 1d8f1a52-2222-4a4a-8c8c-%012[1]d
  spec:
    hosts:
    - api%[1]d.example.com
    addresses:
    - 240.0.%[3]d.%[4]d
    ports:
    - name: https
      number: 443
      protocol: TLS
    resolution: DNS
    location: MESH_EXTERNAL
  status:
    addresses:
    - host: api%[1]d.example.com
      value: 240.240.%[3]d.%[4]d
- apiVersion: v1
  kind: Service
  metadata:
    annotations:
      networking.istio.io/exportTo: "*"
    creationTimestamp: "2024-02-03T04:05:06Z"
    labels:
      app: svc%[1]d
    name: svc%[1]d
    namespace: ns%[2]d
    resourceVersion: "%[1]d3"
    uid: 2d8f1a52-3333-4a4a-8c8c-%012[1]d
  spec:
    clusterIP: 10.96.%[3]d.%[4]d
    clusterIPs:
    - 10.96.%[3]d.%[4]d
    internalTrafficPolicy: Cluster
    ipFamilies:
    - IPv4
    ipFamilyPolicy: SingleStack
    ports:
    - name: http
      port: 80
      protocol: TCP
      targetPort: 8080
    selector:
      app: svc%[1]d
    sessionAffinity: None
    type: ClusterIP
  status:
    loadBalancer: {}
`, i, i%nss, i/250%250, i%250)
	}
	return []byte(b.String())
}

func TestKubectlDumpLoads(t *testing.T) {
	inv, err := Load(kubectlDump(100), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Services) != 200 || len(inv.Namespaces) != 10 {
		t.Fatalf("got %d services, %d namespaces", len(inv.Services), len(inv.Namespaces))
	}
}

// loadAllocated is the allocations and bytes Load allocates reading data, failing the test if
// Load refuses it.
func loadAllocated(t *testing.T, data []byte) (allocs, bytes float64) {
	t.Helper()
	return growth.Allocated(func() {
		_, err := Load(data, "")
		require.NoError(t, err)
	})
}

// benchmarkLoad loads data, or with generic decodes it with yaml.v3 into interface values.
func benchmarkLoad(b *testing.B, data []byte, generic bool) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if generic {
			var x any
			if err := yaml.Unmarshal(data, &x); err != nil {
				b.Fatal(err)
			}
			continue
		}
		if _, err := Load(data, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// kubectlJSON is kubectlDump as `kubectl get … -o json` prints it.
func kubectlJSON(tb testing.TB, n int) []byte {
	var v any
	require.NoError(tb, yaml.Unmarshal(kubectlDump(n), &v))
	js, err := json.MarshalIndent(v, "", "    ")
	require.NoError(tb, err)
	return js
}

// BenchmarkLoadJSON: the same dump as JSON, beside a generic YAML decode of it.
func BenchmarkLoadJSON2500(b *testing.B)  { benchmarkLoad(b, kubectlJSON(b, 2500), false) }
func BenchmarkLoadJSON10000(b *testing.B) { benchmarkLoad(b, kubectlJSON(b, 10000), false) }
func BenchmarkLoadJSON2500Generic(b *testing.B) {
	benchmarkLoad(b, kubectlJSON(b, 2500), true)
}

// BenchmarkLoad: a kubectl dump with n ServiceEntries and n Services, beside a
// generic YAML decode of the same bytes (yaml.v3 into interface values).
func BenchmarkLoad2500(b *testing.B)         { benchmarkLoad(b, kubectlDump(2500), false) }
func BenchmarkLoad10000(b *testing.B)        { benchmarkLoad(b, kubectlDump(10000), false) }
func BenchmarkLoad2500Generic(b *testing.B)  { benchmarkLoad(b, kubectlDump(2500), true) }
func BenchmarkLoad10000Generic(b *testing.B) { benchmarkLoad(b, kubectlDump(10000), true) }

// nestedLists is a kubectl List nested n deep, each level holding one Namespace and the next
// List, the innermost a Namespace named "last"; the namespaces carry a description in
// UTF-8, as real ones do.
func nestedLists(n int) []byte {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns%d", "annotations": {"description": "Überweisungen"}}}, `, i)
	}
	b.WriteString(`{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "last"}}`)
	b.WriteString(strings.Repeat("]}", n))
	b.WriteString("\n")
	return []byte(b.String())
}

// nestedListsYAML is nestedLists as kubectl's printer writes it in YAML.
func nestedListsYAML(tb testing.TB, n int) []byte {
	y, err := kubeyaml.JSONToYAML(nestedLists(n))
	require.NoError(tb, err)
	return y
}

// TestNestedListsAreLinear: a List nested 4n deep costs 4 times the allocations of one n
// deep and at most 4 times the bytes per byte of input (n = 100 and 400), within what the
// block reader costs (the full reader allocates several times more), and Load does not grow
// the goroutine's stack with the depth: the Lists still to read wait on a stack of their own.
func TestNestedListsAreLinear(t *testing.T) {
	inv, err := Load(nestedLists(5), "")
	require.NoError(t, err)
	require.Len(t, inv.Namespaces, 6)
	for _, tc := range []struct {
		name string
		data func(n int) []byte
	}{
		{"json", nestedLists},
		{"yaml", func(n int) []byte { return nestedListsYAML(t, n) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work := func(n int) (allocs, bytes, size float64) {
				data := tc.data(n)
				allocs, bytes = loadAllocated(t, data)
				return allocs, bytes, float64(len(data))
			}
			sa, sb, ss := work(100)
			la, lb, ls := work(400)
			t.Logf("depth 100: %v allocations, %v bytes, %v input bytes; depth 400: %v, %v, %v", sa, sb, ss, la, lb, ls)
			// 4 times the objects; for YAML more than 4 times the input, whose lines are
			// indented by the depth.
			assert.Less(t, la/sa, 4.6, "allocations")
			assert.Less(t, lb/sb, 1.15*ls/ss, "bytes")
			// The block reader's costs: the full reader allocates several times more.
			assert.Less(t, la/400, 40.0, "allocations per level")
			assert.Less(t, lb/ls, 25.0, "bytes allocated per input byte")
			shallow, deep := tc.data(100), tc.data(400)
			shallowStack := growth.StackGrown(t, func() { _, _ = Load(shallow, "") })
			deepStack := growth.StackGrown(t, func() { _, _ = Load(deep, "") })
			assert.Less(t, deepStack, shallowStack+64<<10, "goroutine stack grown 100 deep: %v bytes; 400 deep: %v", shallowStack, deepStack)
		})
	}
}

// BenchmarkLoadNestedLists: Lists nested n deep, beside a generic YAML decode.
func BenchmarkLoadNestedLists100(b *testing.B)        { benchmarkLoad(b, nestedLists(100), false) }
func BenchmarkLoadNestedLists400(b *testing.B)        { benchmarkLoad(b, nestedLists(400), false) }
func BenchmarkLoadNestedLists100Generic(b *testing.B) { benchmarkLoad(b, nestedLists(100), true) }
func BenchmarkLoadNestedLists400Generic(b *testing.B) { benchmarkLoad(b, nestedLists(400), true) }

// TestLoadAllocatesLittle pins the loader's memory on what kubectl prints: at most
// 8 bytes allocated per input byte, YAML or JSON, and linear growth (4x the objects, at most
// 4.5x the bytes).
func TestLoadAllocatesLittle(t *testing.T) {
	perByte := func(data []byte) (float64, float64) {
		_, bytes := loadAllocated(t, data)
		return bytes / float64(len(data)), bytes
	}
	for _, tc := range []struct {
		name string
		data func(n int) []byte
	}{
		{"yaml", kubectlDump},
		{"json", func(n int) []byte { return kubectlJSON(t, n) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			small, smallBytes := perByte(tc.data(100))
			_, largeBytes := perByte(tc.data(400))
			assert.LessOrEqual(t, small, 8.0, "bytes allocated per input byte")
			assert.Less(t, largeBytes, 4.5*smallBytes, "bytes at n=100: %v, at n=400: %v", smallBytes, largeBytes)
		})
	}
}
