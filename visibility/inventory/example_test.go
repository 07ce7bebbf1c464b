package inventory_test

import (
	"fmt"

	"github.com/meshscope/meshscope/visibility/inventory"
)

// A cluster's VirtualServices and DestinationRules, read beside its namespaces and
// services: hosts stay as written, routes keep their order and weights.
func ExampleLoad() {
	inv, err := inventory.Load([]byte(`apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: shop}}
- apiVersion: networking.istio.io/v1
  kind: VirtualService
  metadata: {name: reviews, namespace: shop}
  spec:
    hosts: [reviews]
    http:
    - match: [{sourceNamespace: web}]
      route:
      - {destination: {host: reviews, subset: v2}, weight: 90}
      - {destination: {host: reviews, subset: v1}, weight: 10}
    - route: [{destination: {host: reviews, subset: v1}}]
- apiVersion: networking.istio.io/v1
  kind: DestinationRule
  metadata: {name: reviews, namespace: shop}
  spec:
    host: reviews
    trafficPolicy: {connectionPool: {tcp: {maxConnections: 100}}}
    subsets:
    - {name: v1, labels: {version: v1}}
    - {name: v2, labels: {version: v2}}
`), "cluster.local")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, vs := range inv.VirtualServices {
		for i, h := range vs.HTTP {
			from := "any namespace"
			if len(h.Match) > 0 {
				from = h.Match[0].SourceNamespace
			}
			for _, d := range h.Route {
				fmt.Printf("VirtualService %s/%s http[%d]: %v from %s: %s subset %s, weight %d\n", vs.Namespace, vs.Name, i, vs.Hosts, from, d.Host, d.Subset, d.Weight)
			}
		}
	}
	for _, dr := range inv.DestinationRules {
		fmt.Printf("DestinationRule %s/%s: %s, %d subsets, traffic policy %s\n", dr.Namespace, dr.Name, dr.Host, len(dr.Subsets), dr.TrafficPolicy)
	}
	// Output:
	// VirtualService shop/reviews http[0]: [reviews] from web: reviews subset v2, weight 90
	// VirtualService shop/reviews http[0]: [reviews] from web: reviews subset v1, weight 10
	// VirtualService shop/reviews http[1]: [reviews] from any namespace: reviews subset v1, weight 0
	// DestinationRule shop/reviews: reviews, 2 subsets, traffic policy {"connectionPool":{"tcp":{"maxConnections":100}}}
}

// What Istio's validation refuses is refused with Istio's words, after the field they
// concern.
func ExampleLoad_istioValidation() {
	_, err := inventory.Load([]byte(`apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: shop}}
- apiVersion: networking.istio.io/v1
  kind: VirtualService
  metadata: {name: reviews, namespace: shop}
  spec:
    hosts: ["*.shop.example", api.shop.example]
    exportTo: ["~"]
    tcp: [{route: [{destination: {host: "*"}}]}]
- apiVersion: networking.istio.io/v1
  kind: DestinationRule
  metadata: {name: reviews, namespace: shop}
  spec:
    host: reviews
    workloadSelector: {matchLabels: {app: reviews}}
    exportTo: ["*"]
`), "")
	fmt.Println(err)
	// Output:
	// items[1] (VirtualService shop/reviews): spec.hosts[1]: duplicate hosts in virtual service: *.shop.example & api.shop.example
	// items[1] (VirtualService shop/reviews): spec.tcp[0].route[0].destination.host: invalid destination host *
	// items[1] (VirtualService shop/reviews): spec.exportTo[0]: exportTo ~ (none) is not allowed for Istio configuration objects
	// items[2] (DestinationRule shop/reviews): spec.exportTo: destination rule with workload selector cannot have exportTo beyond current namespace
}

// An inventory built in Go is checked by the same rules, naming fields as the Go value
// spells them.
func ExampleInventory_Validate() {
	inv := &inventory.Inventory{
		VirtualServices: []inventory.VirtualService{{Namespace: "shop", Name: "reviews", Hosts: []string{"*"},
			HTTP: []inventory.HTTPRoute{{Route: []inventory.Destination{{Host: "reviews", Weight: -1}}}}}},
		DestinationRules: []inventory.DestinationRule{
			{Namespace: "shop", Name: "reviews", Host: "reviews", Subsets: []inventory.Subset{{Name: "v1"}, {Name: "v1"}}},
			{Namespace: "shop", Name: "reviews", Host: "reviews"},
		},
	}
	fmt.Println(inv.Validate())
	// Output:
	// VirtualServices[0] (VirtualService shop/reviews): Hosts[0]: wildcard host * is not allowed for virtual services bound to the mesh gateway
	// VirtualServices[0] (VirtualService shop/reviews): HTTP[0].Route[0].Weight: weight -1 < 0
	// DestinationRules[0] (DestinationRule shop/reviews): Subsets[1].Name: duplicate subset names: v1 (it repeats Subsets[0].Name)
	// DestinationRules[1] (DestinationRule shop/reviews): a second DestinationRule shop/reviews (the first is DestinationRules[0])
}
