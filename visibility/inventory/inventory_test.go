package inventory

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/growth"
)

// kubectlList is what `kubectl get namespaces,serviceentries,services -A -o yaml` prints (one
// of the fuzz seeds).
var kubectlList = readSeed("kubectl-list.yaml")

func TestLoad(t *testing.T) {
	inv, err := Load([]byte(kubectlList), "")
	require.NoError(t, err)
	assert.Equal(t, map[string]map[string]string{
		"shop":   {"kubernetes.io/metadata.name": "shop", "team": "shop"},
		"legacy": {"kubernetes.io/metadata.name": "legacy"},
	}, inv.Namespaces)
	assert.Equal(t, []Service{
		{Kind: ServiceEntry, Namespace: "shop", Name: "payments", Hosts: []string{"api.payments.example"}, Addresses: pfx("203.0.113.0/24"),
			ExportTo: []string{"."}, CreationTime: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC), Resolution: ResolutionDNS, Ports: []uint32{443}, Protocols: []string{ProtocolTLS}},
		{Kind: KubernetesService, Namespace: "shop", Name: "web", Hosts: []string{"web.shop.svc.cluster.local"}, Addresses: pfx("10.96.0.10", "fd00::10"),
			ExportTo: []string{".", "infra"}, CreationTime: time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC)},
		{Kind: KubernetesService, Namespace: "shop", Name: "headless", Hosts: []string{"headless.shop.svc.cluster.local"}, Headless: true},
	}, inv.Services)
	assert.Equal(t, "cluster.local", inv.Domain)
	require.NoError(t, inv.Validate())

	other, err := Load([]byte(kubectlList), "corp.internal")
	require.NoError(t, err)
	assert.Equal(t, []string{"web.shop.svc.corp.internal"}, other.Services[1].Hosts)
}

func TestLoadDocuments(t *testing.T) {
	inv, err := Load([]byte("kind: Namespace\nmetadata: {name: a}\n---\nkind: ServiceEntry\nmetadata: {name: x, namespace: a}\nspec: {hosts: [x.example]}\n---\n"), "")
	require.NoError(t, err)
	assert.Len(t, inv.Namespaces, 1)
	assert.Len(t, inv.Services, 1)
	js, err := json.Marshal(map[string]any{"kind": "List", "items": []any{map[string]any{"kind": "Namespace", "metadata": map[string]any{"name": "j"}}}})
	require.NoError(t, err)
	inv, err = Load(js, "")
	require.NoError(t, err)
	assert.Contains(t, inv.Namespaces, "j")
}

func TestLoadErrors(t *testing.T) {
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
	_, err := Load([]byte(in), "")
	require.Error(t, err)
	assert.Equal(t, strings.Join([]string{
		`document 1: items[0] (ServiceEntry shop/bad-hosts): spec.hosts: must be a list, got the string "web.example"`,
		`document 1: items[1] (ServiceEntry no-namespace): metadata.namespace: must be set (dump with -A so that objects carry their namespace)`,
		`document 1: items[2] (Namespace (no name)): metadata.name: must not be empty`,
		`document 1: items[3] (ServiceEntry shop/when): metadata.creationTimestamp: "yesterday" is not an RFC 3339 time`,
		`document 2: kind: must be a string, got a list`,
		`document 3: not YAML or JSON: line 14: did not find expected ',' or ']'`,
	}, "\n"), err.Error())
}

// The fuzz seeds, testdata/seeds/*, are inputs that reach the loader's paths: every kind and
// field it reads, Lists nested and typed, several documents, JSON, the full YAML reader's
// constructs (anchors, merge keys, tags), short names to expand, and what it refuses. They
// are small: the fuzzer minimizes each input that finds new code in time quadratic in its
// length, and spends that time fuzzing nothing else. Package ambient's fuzzer starts from
// them too.

// readSeed returns the seed of that name.
func readSeed(name string) string {
	b, err := os.ReadFile(filepath.Join("testdata", "seeds", name))
	if err != nil {
		panic(err)
	}
	return string(b)
}

// seeds returns every seed.
func seeds(tb testing.TB) [][]byte {
	files, err := filepath.Glob(filepath.Join("testdata", "seeds", "*"))
	require.NoError(tb, err)
	require.NotEmpty(tb, files)
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(tb, err)
		out = append(out, b)
	}
	return out
}

// loadValid returns what Load reads of data, nil when it refuses data, failing the test if
// Validate refuses what Load accepts: the loader makes every check Validate makes, by the
// same code.
func loadValid(t *testing.T, data []byte) *Inventory {
	inv, err := Load(data, "")
	if err != nil {
		return nil
	}
	if err := inv.Validate(); err != nil {
		t.Fatalf("Load accepted what Validate refuses: %v", err)
	}
	return inv
}

func FuzzLoad(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	for _, tt := range loadInventoryRefusals {
		f.Add([]byte(tt.in))
	}
	for _, tt := range routingRefusals {
		f.Add([]byte(routingRefusalInput(tt.object)))
	}
	for _, name := range slices.Sorted(maps.Keys(loadInventoryShapes)) {
		f.Add([]byte(loadInventoryShapes[name]))
	}
	f.Fuzz(func(t *testing.T, data []byte) { loadValid(t, data) })
}

// TestLoaderAndValidateCheckAlike: Load and Validate refuse the same values with the
// same words, each naming the field as its input spells it.
func TestLoaderAndValidateCheckAlike(t *testing.T) {
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
			_, lerr := Load([]byte("kind: ServiceEntry\nmetadata: {name: api, namespace: shop}\nspec: "+tt.yamlSpec+"\n"), "")
			s := tt.svc
			s.Kind, s.Namespace, s.Name = ServiceEntry, "shop", "api"
			ierr := (&Inventory{Services: []Service{s}}).Validate()
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

// TestLoadAddresses: addresses are decoded once, into canonical prefixes: a CIDR masked, IPv4
// mapped into IPv6 kept as IPv6 (as Istio keeps it).
func TestLoadAddresses(t *testing.T) {
	inv, err := Load([]byte(`kind: List
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
	assert.Equal(t, pfx("::ffff:10.0.0.1", "10.0.0.0/8", "2001:db8::1", "::ffff:10.2.0.0/112", "10.3.0.1"), inv.Services[0].Addresses)
	assert.Equal(t, pfx("10.96.0.1", "fd00::1"), inv.Services[1].Addresses)

	_, err = Load([]byte(`kind: List
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

// TestAllocatedAddressesMatchHostsExactly: Istio looks an allocation up by the host as
// spec.hosts writes it, so one whose host differs in case or by a trailing dot is kept as
// written but is no host's, and NoAddressReason names it; IPv4 mapped into IPv6 stays IPv6.
func TestAllocatedAddressesMatchHostsExactly(t *testing.T) {
	inv, err := Load([]byte(`kind: ServiceEntry
metadata: {name: a, namespace: shop}
spec: {hosts: [api.example.com, db.example.com, mq.example.com], resolution: DNS}
status:
  addresses:
  - {host: api.example.com, value: 240.240.0.1}
  - {host: api.example.com, value: '::ffff:240.240.0.2'}
  - {host: DB.example.com, value: 240.240.0.3}
  - {host: mq.example.com., value: 240.240.0.4}
`), "")
	require.NoError(t, err)
	s := &inv.Services[0]
	assert.Equal(t, map[string][]netip.Prefix{
		"api.example.com": pfx("240.240.0.1", "::ffff:240.240.0.2"),
		"DB.example.com":  pfx("240.240.0.3"),
		"mq.example.com.": pfx("240.240.0.4"),
	}, s.AutoAddresses)
	assert.Equal(t, pfx("240.240.0.1", "::ffff:240.240.0.2"), s.AddressesFor("api.example.com"))
	assert.Empty(t, s.AddressesFor("db.example.com"))
	assert.Empty(t, s.AddressesFor("mq.example.com"))
	assert.Equal(t, pfx("240.240.0.1", "::ffff:240.240.0.2"), s.AllAddresses())
	assert.Empty(t, s.NoAddressReason("api.example.com"))
	assert.Equal(t, `no spec.addresses, and status.addresses allocates for "DB.example.com", not "db.example.com": Istio compares the hosts exactly, so none is allocated for this one`, s.NoAddressReason("db.example.com"))
	assert.Equal(t, `no spec.addresses, and status.addresses allocates for "mq.example.com.", not "mq.example.com": Istio compares the hosts exactly, so none is allocated for this one`, s.NoAddressReason("mq.example.com"))
}

// TestValidate: an inventory built in Go is checked as Load checks what it reads, every
// problem at once, each naming its item.
func TestValidate(t *testing.T) {
	inv := &Inventory{Namespaces: map[string]map[string]string{"shop": nil}, Domain: "*.local",
		Services: []Service{
			{Kind: ServiceEntry, Namespace: "shop", Name: "a", Hosts: []string{"a..b"}},
			{Kind: ServiceEntry, Namespace: "shop", Name: "a", Hosts: []string{"a.b"}},
			{Kind: KubernetesService, Namespace: "shop", Name: "a", Hosts: []string{"a.shop.svc.cluster.local"}},
		},
		Sidecars: []Sidecar{
			{Namespace: "shop", Name: "s", WorkloadSelector: map[string]string{"a b": "c"}, Egress: []Egress{{Hosts: []string{"shop"}}, {}}},
			{Namespace: "shop", Name: "s"},
			{Namespace: "", Name: ""},
		}}
	err := inv.Validate()
	require.Error(t, err)
	assert.Equal(t, []string{
		`Domain: "*.local" is not a DNS name`,
		`Services[0] (ServiceEntry shop/a): Hosts[0]: domain name ".b" invalid (label "" invalid)`,
		`Services[1] (ServiceEntry shop/a): a second ServiceEntry shop/a (the first is Services[0])`,
		`Sidecars[0] (Sidecar shop/s): WorkloadSelector: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
		`Sidecars[0] (Sidecar shop/s): Egress[0].Hosts[0]: host must be of form namespace/dnsName`,
		`Sidecars[0] (Sidecar shop/s): Egress[1].Hosts: sidecar: egress listener must contain at least one host`,
		`Sidecars[0] (Sidecar shop/s): Egress[0]: sidecar: the egress listener with empty port should be the last listener in the list`,
		`Sidecars[1] (Sidecar shop/s): a second Sidecar shop/s (the first is Sidecars[0])`,
		`Sidecars[2] (Sidecar /): Namespace: must not be empty`,
		`Sidecars[2] (Sidecar /): Name: must not be empty`,
	}, strings.Split(err.Error(), "\n"))
	assert.ErrorIs(t, err, ErrDuplicate)
	assert.NoError(t, (*Inventory)(nil).Validate())
	assert.Equal(t, []string{"", "shop"}, inv.NamespaceNames(), "every namespace named, an empty one too")
	assert.Equal(t, "cluster.local", (&Inventory{}).ClusterDomain())
	assert.Equal(t, "corp.internal", (&Inventory{Domain: "Corp.Internal."}).ClusterDomain())
}

// validateAllocs holds Validate of the valid inventories inventoryOf makes of n and of 4n
// objects to the same allocations, and returns them.
func validateAllocs(t *testing.T, inventoryOf func(n int) *Inventory, n int) float64 {
	t.Helper()
	small, large := inventoryOf(n), inventoryOf(4*n)
	require.NoError(t, small.Validate())
	allocs := func(inv *Inventory) float64 {
		a, _ := growth.Allocated(func() { _ = inv.Validate() })
		return a
	}
	a := allocs(large)
	assert.Equal(t, allocs(small), a, "allocations do not grow with the objects")
	return a
}

// TestValidateSpellsNothingWhenValid: Validate of a valid inventory allocates the same few
// times for 1,000 services as for 4,000 — it builds no location, path or message for a
// service without problems.
func TestValidateSpellsNothingWhenValid(t *testing.T) {
	inventoryOf := func(n int) *Inventory {
		inv := &Inventory{Services: make([]Service, n)}
		for i := range inv.Services {
			ns := fmt.Sprintf("ns-%d", i%50)
			inv.Services[i] = Service{Kind: ServiceEntry, Namespace: ns, Name: fmt.Sprintf("svc-%d", i),
				Hosts: []string{fmt.Sprintf("svc-%d.%s.example.com", i, ns)}, Addresses: pfx(fmt.Sprintf("10.0.%d.%d", i/250, i%250)),
				Ports: []uint32{80, 443}, Selector: map[string]string{"app": "a"}, ExportTo: []string{"."}}
		}
		return inv
	}
	assert.LessOrEqual(t, validateAllocs(t, inventoryOf, 1000), 4.0)
}
