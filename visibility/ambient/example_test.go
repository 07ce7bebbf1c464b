package ambient_test

import (
	"fmt"
	"net/netip"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/ambient"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// Example reads the mesh configuration and the cluster's objects as kubectl prints them,
// builds the index, and asks what a workload's DNS query gets, and what the configuration
// gets wrong.
func Example() {
	m, err := mesh.Load([]byte(`
apiVersion: v1
kind: ConfigMap
metadata: {name: istio, namespace: istio-system}
data:
  mesh: |
    serviceEntryVisibility:
      defaultVisibility: NAMESPACE
      policies:
      - visibility: PUBLIC
        matchingRules:
        - namespaceSelector: {matchLabels: {team: platform}}
`))
	if err != nil {
		panic(err)
	}
	inv, err := inventory.Load([]byte(`
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: platform, labels: {team: platform}}}
- {apiVersion: v1, kind: Namespace, metadata: {name: shop}}
- apiVersion: networking.istio.io/v1
  kind: ServiceEntry
  metadata: {name: github, namespace: platform}
  spec: {hosts: [api.github.com], resolution: DNS}
  status: {addresses: [{value: 240.240.0.1, host: api.github.com}]}
- apiVersion: networking.istio.io/v1
  kind: ServiceEntry
  metadata: {name: payments, namespace: shop}
  spec: {hosts: [api.payments.example], exportTo: [billing]}
`), "cluster.local")
	if err != nil {
		panic(err)
	}
	ix, err := ambient.New(m, inv)
	if err != nil {
		panic(err)
	}
	s, ok := ix.LookupHost("shop", "api.github.com")
	fmt.Println(s.Ref(), ok)
	for _, f := range ix.Lint() {
		fmt.Println(f)
	}
	// Output:
	// ServiceEntry platform/github true
	// ERROR ExportToUnknownNamespace ServiceEntry shop/payments: exportTo names namespace "billing", which the inventory does not have: sidecars there see nothing of it
	// WARNING NoAddressForDNS ServiceEntry shop/payments: no address for any of its hosts: ztunnel's DNS proxy forwards every query for them upstream
}

func exampleIndex() *ambient.Index {
	m := &mesh.Config{Visibility: &visibility.Config{
		DefaultVisibility: visibility.Namespace,
		Policies: []visibility.Policy{{
			Visibility:    visibility.Public,
			MatchingRules: []visibility.MatchingRule{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "platform"}}}},
		}},
	}}
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ix, err := ambient.New(m, &inventory.Inventory{
		Namespaces: map[string]map[string]string{"platform": {"team": "platform"}, "shop": {"team": "shop"}},
		Services: []inventory.Service{
			// Resolution DNS and no spec.addresses: Istio allocates an address (status.addresses).
			// An IP is a /32 (or /128) prefix.
			{Kind: inventory.ServiceEntry, Namespace: "platform", Name: "github", Hosts: []string{"api.github.com"}, CreationTime: created,
				Resolution: inventory.ResolutionDNS, AutoAddresses: map[string][]netip.Prefix{"api.github.com": {netip.MustParsePrefix("240.240.0.1/32")}}},
			{Kind: inventory.ServiceEntry, Namespace: "shop", Name: "github-mirror", Hosts: []string{"api.github.com"}, Addresses: []netip.Prefix{netip.MustParsePrefix("198.51.100.7/32")}, CreationTime: created},
			{Kind: inventory.ServiceEntry, Namespace: "shop", Name: "orders-db", Hosts: []string{"db.orders.internal"}, CreationTime: created,
				Resolution: inventory.ResolutionDNS, AutoAddresses: map[string][]netip.Prefix{"db.orders.internal": {netip.MustParsePrefix("240.240.0.2/32")}}},
		},
	})
	if err != nil {
		panic(err)
	}
	return ix
}

func ExampleIndex_LookupHost() {
	ix := exampleIndex()
	for _, q := range []struct{ client, host string }{
		{"shop", "api.github.com"},        // its own namespace's entry comes first
		{"billing", "api.github.com"},     // the PUBLIC entry
		{"shop", "db.orders.internal"},    // NAMESPACE: visible to shop...
		{"billing", "db.orders.internal"}, // ...and absent for everyone else
	} {
		if s, ok := ix.LookupHost(q.client, q.host); ok {
			fmt.Printf("%-8s %-20s -> %s/%s\n", q.client, q.host, s.Namespace, s.Name)
		} else {
			fmt.Printf("%-8s %-20s -> forwarded to the upstream resolver\n", q.client, q.host)
		}
	}
	// Output:
	// shop     api.github.com       -> shop/github-mirror
	// billing  api.github.com       -> platform/github
	// shop     db.orders.internal   -> shop/orders-db
	// billing  db.orders.internal   -> forwarded to the upstream resolver
}

func ExampleIndex_ExplainHost() {
	fmt.Println(exampleIndex().ExplainHost("billing", "api.github.com"))
	// Output:
	// api.github.com from namespace billing: answered by ServiceEntry platform/github
	//   api.github.com:
	//     ServiceEntry platform/github PUBLIC (policies[0]): chosen: the canonical service: the highest-ranked PUBLIC entry
	//     ServiceEntry shop/github-mirror NAMESPACE (default): hidden: visibility NAMESPACE (the default): only namespace shop sees it
}

func ExampleIndex_LookupAddress() {
	ix := exampleIndex()
	_, ok := ix.LookupAddress("billing", netip.MustParseAddr("198.51.100.7"))
	fmt.Println("billing:", ok) // unknown traffic: passed through to its destination
	s, ok := ix.LookupAddress("shop", netip.MustParseAddr("198.51.100.7"))
	fmt.Println("shop:", ok, s.Name)
	// Output:
	// billing: false
	// shop: true github-mirror
}

func ExampleDiff() {
	inv := &inventory.Inventory{
		Namespaces: map[string]map[string]string{"shop": {"team": "shop"}},
		Services: []inventory.Service{{Kind: inventory.ServiceEntry, Namespace: "shop", Name: "orders-db", Hosts: []string{"db.orders.internal"},
			Resolution: inventory.ResolutionDNS, AutoAddresses: map[string][]netip.Prefix{"db.orders.internal": {netip.MustParsePrefix("240.240.0.2/32")}}}},
	}
	var before *mesh.Config // Istio's defaults: the feature is off today
	after := &mesh.Config{Visibility: &visibility.Config{DefaultVisibility: visibility.Namespace}}
	audit, err := ambient.Diff(before, after, inv)
	if err != nil {
		panic(err)
	}
	for _, e := range audit.Entries {
		fmt.Printf("%s/%s: %s -> %s, lost by %v\n", e.Key.Namespace, e.Key.Name, e.Before, e.After, e.Lost)
	}
	for _, h := range audit.Hosts {
		fmt.Printf("%s for %v: %v -> %v\n", h.Key.Query, h.Key.Clients, h.Before, h.After)
	}
	for _, a := range audit.Addresses {
		fmt.Printf("%s for %v: %v -> %v\n", a.Key.Query, a.Key.Clients, a.Before, a.After)
	}
	// Output:
	// shop/orders-db: PUBLIC (default) -> NAMESPACE (default), lost by [*]
	// db.orders.internal for [*]: ServiceEntry shop/orders-db -> <nil>
	// 240.240.0.2 for [*]: ServiceEntry shop/orders-db -> <nil>
}

// ExampleIndex_LookupHost_shortName: a workload in namespace shop asks for "payments" — the
// short name of the Kubernetes Service payments.shop.svc.cluster.local — and ztunnel's DNS
// proxy expands it as the workload's resolver would.
func ExampleIndex_LookupHost_shortName() {
	ix, err := ambient.New(nil, &inventory.Inventory{
		Services: []inventory.Service{{Kind: inventory.KubernetesService, Namespace: "shop", Name: "payments",
			Hosts: []string{"payments.shop.svc.cluster.local"}, Addresses: []netip.Prefix{netip.MustParsePrefix("10.96.0.20/32")}}},
	})
	if err != nil {
		panic(err)
	}
	for _, q := range []struct{ client, host string }{
		{"shop", "payments"},          // x -> x.<client ns>.svc.cluster.local
		{"billing", "payments.shop"},  // x.y -> x.y.svc.cluster.local
		{"billing", "payments"},       // payments.billing.svc.cluster.local: none
		{"shop", "payments.shop.svc"}, // x.y.svc -> x.y.svc.cluster.local
		{"", "payments.shop.svc.cluster.local"},
	} {
		s, ok := ix.LookupHost(q.client, q.host)
		if !ok {
			s.Name = "(forwarded upstream)"
		}
		fmt.Printf("%-9q %-32s %s\n", q.client, q.host, s.Name)
	}
	// Output:
	// "shop"    payments                         payments
	// "billing" payments.shop                    payments
	// "billing" payments                         (forwarded upstream)
	// "shop"    payments.shop.svc                payments
	// ""        payments.shop.svc.cluster.local  payments
}
