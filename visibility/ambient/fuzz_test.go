package ambient

import (
	"errors"
	"strings"
	"testing"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// kubectlList is what `kubectl get namespaces,serviceentries,services -A -o yaml` prints.
const kubectlList = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Namespace
  metadata:
    name: shop
    labels:
      kubernetes.io/metadata.name: shop
      team: shop
- apiVersion: v1
  kind: Namespace
  metadata:
    name: legacy
- apiVersion: networking.istio.io/v1
  kind: ServiceEntry
  metadata:
    name: payments
    namespace: shop
    creationTimestamp: "2026-03-01T10:00:00Z"
  spec:
    hosts: [api.payments.example]
    addresses: [203.0.113.0/24]
    exportTo: ["."]
    ports: [{number: 443, name: https, protocol: TLS}]
    resolution: DNS
- apiVersion: v1
  kind: Service
  metadata:
    name: web
    namespace: shop
    creationTimestamp: "2026-02-01T10:00:00Z"
    annotations:
      networking.istio.io/exportTo: "., infra"
  spec:
    type: ClusterIP
    clusterIP: 10.96.0.10
    clusterIPs: [10.96.0.10, "fd00::10"]
- apiVersion: v1
  kind: Service
  metadata: {name: headless, namespace: shop}
  spec: {clusterIP: None}
- apiVersion: v1
  kind: Endpoints
  metadata: {name: web, namespace: shop}
`

// inventorySeeds are inputs that reach the loader's paths, and so the index's: every kind
// and field it reads, Lists nested and typed, several documents, JSON, the full YAML
// reader's constructs (anchors, merge keys, tags), short names to expand, and what it
// refuses. They are small:
// the fuzzer minimizes each input that finds new code in time quadratic in its length, and
// spends that time fuzzing nothing else.
var inventorySeeds = []string{
	"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: shop\n    labels:\n      team: shop\n" +
		"- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: legacy\n",
	"apiVersion: networking.istio.io/v1\nkind: ServiceEntry\nmetadata:\n  name: pay\n  namespace: shop\n  creationTimestamp: \"2026-03-01T10:00:00Z\"\n" +
		"spec:\n  hosts:\n  - api.pay.example\n  - '*.pay.example'\n  addresses:\n  - 203.0.113.0/24\n  exportTo:\n  - .\n  resolution: DNS\n",
	"apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: shop\n  annotations:\n    networking.istio.io/exportTo: ., infra\n" +
		"spec:\n  clusterIP: 10.96.0.10\n  clusterIPs:\n  - 10.96.0.10\n  - fd00::10\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: db\n  namespace: shop\nspec:\n  clusterIP: None\n",
	"kind: ServiceEntry\nmetadata: {name: x, namespace: a}\nspec: {hosts: ['*.x'], addresses: ['::ffff:10.0.0.0/104']}\n",
	"kind: Service\napiVersion: v1\nmetadata: {name: x, namespace: a, annotations: {networking.istio.io/exportTo: '~,*'}}\n",
	`{"kind":"List","items":[{"kind":"Namespace","metadata":{"name":"a"}},{"kind":"ServiceEntry","metadata":{"name":"x","namespace":"a"},` +
		`"spec":{"hosts":["x.example","*.w.example"],"resolution":"DYNAMIC_DNS"},"status":{"addresses":[{"value":"240.240.0.1","host":"x.example"},{"value":"240.240.0.2","host":"*.w.example"}]}}]}`,
	"kind: ServiceEntry\nmetadata:\n  name: gh\n  namespace: infra\n  labels:\n    networking.istio.io/enable-autoallocate-ip: \"false\"\n" +
		"spec:\n  hosts:\n  - api.github.com\n  resolution: DNS\nstatus:\n  addresses:\n  - value: 240.240.0.7\n    host: api.github.com\n",
	"kind: List\nitems:\n- &base {kind: Namespace, metadata: {name: shop}}\n" +
		"- {<<: *base, kind: ServiceEntry, metadata: {name: anchored, namespace: shop}, spec: {hosts: [!!str a.example], addresses: [10.0.0.0/8]}}\n",
	"kind: NamespaceList\nitems:\n- {kind: Namespace, metadata: {name: shop}}\n- kind: List\n  items:\n  - {apiVersion: v1, kind: Service, metadata: {name: payments, namespace: shop}, spec: {clusterIP: None}}\n",
	"kind: ServiceEntry\nmetadata: {name: p, namespace: a}\nspec: {hosts: ['*x.example', '*-Foo.example.', '*x', 'a.x.example'], addresses: [10.0.0.9]}\n",
}

// FuzzNew builds the index of whatever inventory.Load reads from the input and holds its
// lookups to their explanations: for every host of every service (and names a wildcard
// covers, and short names) and every address, LookupHost and ExplainHost, LookupAddress and
// ExplainAddress give one answer; Conflicts and Lint do not fail.
func FuzzNew(f *testing.F) {
	f.Add([]byte(kubectlList))
	for _, s := range inventorySeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		inv, err := inventory.Load(data, "")
		if err != nil {
			return
		}
		// The loader makes every check New makes (inv.Validate), but for two services of one
		// kind with one namespace and name.
		ix, err := New(nil, inv)
		if err != nil {
			for _, e := range fielderr.Split(err) {
				if !errors.Is(e, inventory.ErrDuplicate) {
					t.Fatalf("Load accepted what New refuses: %v", e)
				}
			}
			return
		}
		for _, s := range inv.Services {
			for _, h := range s.Hosts {
				first, _, _ := strings.Cut(h, ".")
				queries := []string{h, first, h + "." + s.Namespace + ".svc.cluster.local"}
				if strings.HasPrefix(h, "*") {
					queries = append(queries, "a"+h[1:], "a.b"+h[1:]) // names the wildcard covers
				}
				for _, q := range queries {
					for _, client := range []string{s.Namespace, ""} {
						got, ok := ix.LookupHost(client, q)
						if e := ix.ExplainHost(client, q); ok != (e.Answer != nil) || ok && got.Ref() != *e.Answer {
							t.Fatalf("%s from %q: LookupHost gives %v %v, ExplainHost %v", q, client, got.Ref(), ok, e.Answer)
						}
					}
				}
				for _, p := range s.AddressesFor(h) {
					got, ok := ix.LookupAddress(s.Namespace, p.Addr())
					if e := ix.ExplainAddress(s.Namespace, p.Addr()); ok != (e.Answer != nil) || ok && got.Ref() != *e.Answer {
						t.Fatalf("%s from %q: LookupAddress gives %v %v, ExplainAddress %v", p.Addr(), s.Namespace, got.Ref(), ok, e.Answer)
					}
				}
			}
		}
		ix.Conflicts()
		ix.Lint()
	})
}
