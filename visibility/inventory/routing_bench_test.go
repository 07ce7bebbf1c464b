package inventory

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kubectlRoutingDump is kubectlDump(n) with, beside its ServiceEntries and Services, n/2
// VirtualServices and n/2 DestinationRules as `kubectl get
// …,virtualservices,destinationrules -A -o yaml` prints them: the metadata a real cluster
// carries, routes with matches, weights, retries and a mirror, rules with subsets and traffic
// policies.
func kubectlRoutingDump(n int) []byte {
	var b strings.Builder
	b.Write(kubectlDump(n))
	nss := max(n/10, 1)
	for i := range n / 2 {
		fmt.Fprintf(&b, `- apiVersion: networking.istio.io/v1
  kind: VirtualService
  metadata:
    annotations:
      kubectl.kubernetes.io/last-applied-configuration: |
        {"apiVersion":"networking.istio.io/v1","kind":"VirtualService","metadata":{"name":"vs%[1]d","namespace":"ns%[2]d"}}
    creationTimestamp: "2024-02-03T04:05:06Z"
    generation: 2
    name: vs%[1]d
    namespace: ns%[2]d
    resourceVersion: "%[1]d4"
    uid: 3d8f1a52-4444-4a4a-8c8c-%012[1]d
  spec:
    exportTo:
    - .
    - ns%[3]d
    hosts:
    - svc%[1]d
    - api%[1]d.example.com
    http:
    - match:
      - headers:
          end-user:
            exact: jason
        sourceNamespace: ns%[3]d
        uri:
          prefix: /v2
      mirror:
        host: svc%[1]d-shadow
      name: v2
      retries:
        attempts: 3
        perTryTimeout: 2s
      route:
      - destination:
          host: svc%[1]d
          port:
            number: 80
          subset: v2
        weight: 90
      - destination:
          host: svc%[1]d
          subset: v1
        weight: 10
      timeout: 10s
    - route:
      - destination:
          host: svc%[1]d
          subset: v1
    tcp:
    - match:
      - port: 5432
      route:
      - destination:
          host: db%[1]d.ns%[2]d.svc.cluster.local
  status:
    observedGeneration: 2
- apiVersion: networking.istio.io/v1
  kind: DestinationRule
  metadata:
    creationTimestamp: "2024-02-03T04:05:06Z"
    generation: 1
    name: dr%[1]d
    namespace: ns%[2]d
    resourceVersion: "%[1]d5"
    uid: 4d8f1a52-5555-4a4a-8c8c-%012[1]d
  spec:
    exportTo:
    - .
    host: svc%[1]d
    subsets:
    - labels:
        version: v1
      name: v1
    - labels:
        version: v2
      name: v2
      trafficPolicy:
        loadBalancer:
          simple: LEAST_REQUEST
    trafficPolicy:
      connectionPool:
        http:
          http1MaxPendingRequests: 100
        tcp:
          maxConnections: 100
      outlierDetection:
        baseEjectionTime: 30s
        consecutive5xxErrors: 5
        interval: 10s
      tls:
        mode: ISTIO_MUTUAL
`, i, i%nss, (i+1)%nss)
	}
	return []byte(b.String())
}

func TestKubectlRoutingDumpLoads(t *testing.T) {
	inv, err := Load(kubectlRoutingDump(100), "")
	require.NoError(t, err)
	require.NoError(t, inv.Validate())
	assert.Len(t, inv.Services, 200)
	assert.Len(t, inv.VirtualServices, 50)
	assert.Len(t, inv.DestinationRules, 50)
}

// TestLoadRoutingDumpIsLinear: a dump with 4 times the objects costs at most 4.5 times the
// allocations and bytes.
func TestLoadRoutingDumpIsLinear(t *testing.T) {
	sa, sb := loadAllocated(t, kubectlRoutingDump(50))
	la, lb := loadAllocated(t, kubectlRoutingDump(200))
	assert.Less(t, la, 4.5*sa, "allocations at n=50: %v, at n=200: %v", sa, la)
	assert.Less(t, lb, 4.5*sb, "bytes at n=50: %v, at n=200: %v", sb, lb)
}

// BenchmarkLoadInventory: a kubectl dump with n ServiceEntries, n Services, n/2
// VirtualServices and n/2 DestinationRules, beside a generic YAML decode of the same bytes
// (yaml.v3 into interface values), and beside BenchmarkLoad (the dump without them).
func BenchmarkLoadInventory2500(b *testing.B) {
	benchmarkLoad(b, kubectlRoutingDump(2500), false)
}
func BenchmarkLoadInventory10000(b *testing.B) {
	benchmarkLoad(b, kubectlRoutingDump(10000), false)
}
func BenchmarkLoadInventory2500Generic(b *testing.B) {
	benchmarkLoad(b, kubectlRoutingDump(2500), true)
}

var overlapsSink int

// BenchmarkOverlaps finds the overlapping hosts of a VirtualService — 2, 5 and 10 hosts, as
// people write them (one wildcard among exact hosts, the pairs it makes), 128, where overlaps
// changes ways, and 256 — comparing every pair and through the trie.
func BenchmarkOverlaps(b *testing.B) {
	for _, n := range []int{2, 5, 10, 128, 256} {
		hosts := make([]string, n)
		for i := range hosts {
			hosts[i] = fmt.Sprintf("api-%d.shop.example.com", i)
		}
		hosts[n-1] = "*.shop.example.com"
		for _, way := range []struct {
			name string
			find func([]string, int) ([][2]int, int)
		}{{"naive", naiveOverlaps}, {"trie", trieOverlaps}} {
			b.Run(fmt.Sprintf("%d/%s", n, way.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_, overlapsSink = way.find(hosts, maxOverlaps)
				}
			})
		}
	}
}
