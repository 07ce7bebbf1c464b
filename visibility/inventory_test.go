package visibility

import (
	"encoding/json"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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

func TestLoadInventory(t *testing.T) {
	inv, err := LoadInventory([]byte(kubectlList), "")
	require.NoError(t, err)
	assert.Equal(t, map[string]map[string]string{
		"shop":   {"kubernetes.io/metadata.name": "shop", "team": "shop"},
		"legacy": {"kubernetes.io/metadata.name": "legacy"},
	}, inv.Namespaces)
	assert.Equal(t, []Service{
		{Kind: ServiceEntry, Namespace: "shop", Name: "payments", Hosts: []string{"api.payments.example"}, Addresses: pfx("203.0.113.0/24"),
			ExportTo: []string{"."}, CreationTime: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC), Resolution: ResolutionDNS, Ports: []uint32{443}},
		{Kind: KubernetesService, Namespace: "shop", Name: "web", Hosts: []string{"web.shop.svc.cluster.local"}, Addresses: pfx("10.96.0.10", "fd00::10"),
			ExportTo: []string{".", "infra"}, CreationTime: time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC)},
		{Kind: KubernetesService, Namespace: "shop", Name: "headless", Hosts: []string{"headless.shop.svc.cluster.local"}, Headless: true},
	}, inv.Services)
	assert.Equal(t, "cluster.local", inv.Domain)
	_, err = NewIndex(nil, inv)
	require.NoError(t, err)

	other, err := LoadInventory([]byte(kubectlList), "corp.internal")
	require.NoError(t, err)
	assert.Equal(t, []string{"web.shop.svc.corp.internal"}, other.Services[1].Hosts)
}

func TestLoadInventoryDocuments(t *testing.T) {
	inv, err := LoadInventory([]byte("kind: Namespace\nmetadata: {name: a}\n---\nkind: ServiceEntry\nmetadata: {name: x, namespace: a}\nspec: {hosts: [x.example]}\n---\n"), "")
	require.NoError(t, err)
	assert.Len(t, inv.Namespaces, 1)
	assert.Len(t, inv.Services, 1)
	js, err := json.Marshal(map[string]any{"kind": "List", "items": []any{map[string]any{"kind": "Namespace", "metadata": map[string]any{"name": "j"}}}})
	require.NoError(t, err)
	inv, err = LoadInventory(js, "")
	require.NoError(t, err)
	assert.Contains(t, inv.Namespaces, "j")
}

func TestLoadInventoryErrors(t *testing.T) {
	in := `kind: List
items:
- kind: ServiceEntry
  metadata: {name: bad-hosts, namespace: shop}
  spec: {hosts: web.example}
- kind: ServiceEntry
  metadata: {name: no-namespace}
- kind: Namespace
  metadata: {}
- kind: ServiceEntry
  metadata: {name: when, namespace: shop, creationTimestamp: yesterday}
---
kind: [not, a, string]
---
a: [b
`
	_, err := LoadInventory([]byte(in), "")
	require.Error(t, err)
	assert.Equal(t, strings.Join([]string{
		`document 1: items[0] (ServiceEntry shop/bad-hosts): spec.hosts: must be a list, got the string "web.example"`,
		`document 1: items[1] (ServiceEntry no-namespace): metadata: namespace and name must be set (dump with -A so that objects carry their namespace)`,
		`document 1: items[2] (Namespace (no name)): metadata.name: must not be empty`,
		`document 1: items[3] (ServiceEntry shop/when): metadata.creationTimestamp: "yesterday" is not an RFC 3339 time`,
		`document 2: kind: must be a string, got a list`,
		`document 3: not YAML or JSON: line 14: did not find expected ',' or ']'`,
	}, "\n"), err.Error())
}

func FuzzLoadInventory(f *testing.F) {
	f.Add([]byte(kubectlList))
	f.Add([]byte("kind: ServiceEntry\nmetadata: {name: x, namespace: a}\nspec: {hosts: ['*.x'], addresses: ['::ffff:10.0.0.0/104']}\n"))
	f.Add([]byte("kind: Service\napiVersion: v1\nmetadata: {name: x, namespace: a, annotations: {networking.istio.io/exportTo: '~,*'}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		inv, err := LoadInventory(data, "")
		if err != nil {
			return
		}
		ix, err := NewIndex(nil, inv)
		if err != nil {
			return
		}
		for _, s := range inv.Services {
			for _, h := range s.Hosts {
				ix.LookupHost(s.Namespace, h)
				ix.ExplainHost("", h)
			}
		}
		ix.Conflicts()
	})
}

func TestExplanationJSON(t *testing.T) {
	ix := sampleIndex(t)
	b, err := json.Marshal(ix.ExplainHost("sandbox", "api.github.com"))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"answer":{"kind":"ServiceEntry","namespace":"infra","name":"github"}`)
	assert.Contains(t, string(b), `"verdict":"hidden"`)
	var back LookupExplanation
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, ix.ExplainHost("sandbox", "api.github.com"), back)
}

// TestLoaderAndIndexCheckAlike: LoadInventory and NewIndex refuse the same values with the
// same words, each naming the field as its input spells it.
func TestLoaderAndIndexCheckAlike(t *testing.T) {
	tests := []struct {
		name                  string
		yamlSpec              string // the ServiceEntry's spec
		svc                   Service
		loadField, indexField string
	}{
		{"a host", "{hosts: [ok.example, 'a..b']}", Service{Hosts: []string{"ok.example", "a..b"}}, "spec.hosts[1]", "Hosts[1]"},
		{"a wildcard without a domain", "{hosts: ['*']}", Service{Hosts: []string{"*"}}, "spec.hosts[0]", "Hosts[0]"},
		{"exportTo * with others", "{exportTo: ['.', '*']}", Service{ExportTo: []string{".", "*"}}, "spec.exportTo[1]", "ExportTo[1]"},
		{"exportTo repeating the own namespace", "{exportTo: ['.', shop]}", Service{ExportTo: []string{".", "shop"}}, "spec.exportTo[1]", "ExportTo[1]"},
		{"exportTo not a namespace name", "{exportTo: [Infra]}", Service{ExportTo: []string{"Infra"}}, "spec.exportTo[0]", "ExportTo[0]"},
		{"a resolution", "{resolution: dns}", Service{Resolution: "dns"}, "spec.resolution", "Resolution"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, lerr := LoadInventory([]byte("kind: ServiceEntry\nmetadata: {name: api, namespace: shop}\nspec: "+tt.yamlSpec+"\n"), "")
			s := tt.svc
			s.Kind, s.Namespace, s.Name = ServiceEntry, "shop", "api"
			_, ierr := NewIndex(nil, Inventory{Services: []Service{s}})
			l, i := fieldErrors(t, lerr), fieldErrors(t, ierr)
			require.Len(t, l, 1, "%v", lerr)
			require.Len(t, i, 1, "%v", ierr)
			// The words are the same, but for the fields they name, each as its input spells it.
			list := func(field string) string { l, _, _ := strings.Cut(field, "["); return l + "[" }
			detail := strings.ReplaceAll(i[0].Detail, list(tt.indexField), list(tt.loadField))
			assert.Equal(t, FieldError{Where: "ServiceEntry shop/api", Field: tt.loadField, Value: i[0].Value, Detail: detail}, l[0])
			assert.Equal(t, "Services[0] (ServiceEntry shop/api)", i[0].Where)
			assert.Equal(t, tt.indexField, i[0].Field)
		})
	}
}

// TestLoadInventoryAddresses: addresses are decoded once, into canonical prefixes.
func TestLoadInventoryAddresses(t *testing.T) {
	inv, err := LoadInventory([]byte(`kind: List
items:
- kind: ServiceEntry
  metadata: {name: a, namespace: shop}
  spec: {hosts: [a.example], addresses: ['::ffff:10.0.0.1', 10.1.2.3/8, '2001:db8::1', '::ffff:10.2.0.0/112', 10.3.0.1/32]}
- apiVersion: v1
  kind: Service
  metadata: {name: web, namespace: shop}
  spec: {clusterIPs: [10.96.0.1, 'fd00::1']}
`), "")
	require.NoError(t, err)
	assert.Equal(t, pfx("10.0.0.1", "10.0.0.0/8", "2001:db8::1", "10.2.0.0/16", "10.3.0.1"), inv.Services[0].Addresses)
	assert.Equal(t, pfx("10.96.0.1", "fd00::1"), inv.Services[1].Addresses)

	_, err = LoadInventory([]byte(`kind: List
items:
- kind: ServiceEntry
  metadata: {name: a, namespace: shop}
  spec: {hosts: [a.example], addresses: ['fe80::1%eth0', 10.0.0.0/33, nope]}
- apiVersion: v1
  kind: Service
  metadata: {name: web, namespace: shop}
  spec: {clusterIP: 10.96.0.0/12}
`), "")
	require.Error(t, err)
	assert.Equal(t, strings.Join([]string{
		`items[0] (ServiceEntry shop/a): spec.addresses[0]: "fe80::1%eth0" is not an IP or CIDR`,
		`items[0] (ServiceEntry shop/a): spec.addresses[1]: "10.0.0.0/33" is not an IP or CIDR`,
		`items[0] (ServiceEntry shop/a): spec.addresses[2]: "nope" is not an IP or CIDR`,
		`items[1] (Service shop/web): spec.clusterIP: "10.96.0.0/12" is not an IP`,
	}, "\n"), err.Error())
}

// TestIndexCanonicalAddresses: NewIndex keys a Service built in Go on the canonical form of
// each address — IPv4 mapped into IPv6 unmapped, host bits cleared.
func TestIndexCanonicalAddresses(t *testing.T) {
	ix, err := NewIndex(nil, Inventory{Services: []Service{
		{Kind: ServiceEntry, Namespace: "a", Name: "mapped", Hosts: []string{"m.example"}, Addresses: pfx("::ffff:10.0.0.1")},
		{Kind: ServiceEntry, Namespace: "a", Name: "unmasked", Hosts: []string{"u.example"}, Addresses: pfx("10.1.2.3/16")},
		{Kind: ServiceEntry, Namespace: "a", Name: "mapped-cidr", Hosts: []string{"c.example"}, Addresses: pfx("::ffff:10.2.0.0/112")},
	}})
	require.NoError(t, err)
	for addr, want := range map[string]string{"10.0.0.1": "a/mapped", "10.1.200.200": "a/unmasked", "10.2.3.4": "a/mapped-cidr", "::ffff:10.1.0.9": "a/unmasked"} {
		assert.Equal(t, want, ref(ix.LookupAddress("x", netip.MustParseAddr(addr))), addr)
	}
}
