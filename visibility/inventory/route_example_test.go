package inventory_test

import (
	"fmt"

	"github.com/meshscope/meshscope/visibility/inventory"
)

// Istio's bookinfo split of reviews as an HTTPRoute whose parent is the reviews Service: the
// route is read with what the API server writes for what it leaves out (the parentRef's
// group as given, the rule's match of path prefix "/", each backend's kind Service).
func ExampleLoad_routes() {
	inv, err := inventory.Load([]byte(`apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: default}}
- apiVersion: gateway.networking.k8s.io/v1
  kind: HTTPRoute
  metadata: {name: reviews, namespace: default}
  spec:
    parentRefs:
    - {group: "", kind: Service, name: reviews, port: 9080}
    rules:
    - backendRefs:
      - {name: reviews-v1, port: 9080, weight: 90}
      - {name: reviews-v2, port: 9080, weight: 10}
`), "cluster.local")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range inv.Routes {
		for _, p := range r.ParentRefs {
			fmt.Printf("%s %s/%s: parent %q/%s %s port %d\n", r.Kind, r.Namespace, r.Name, p.Group, p.Kind, p.Name, p.Port)
		}
		for i, rule := range r.Rules {
			for _, m := range rule.Matches {
				fmt.Printf("  rule %d matches %s %s\n", i, m.Path.Type, m.Path.Value)
			}
			for _, b := range rule.BackendRefs {
				fmt.Printf("  rule %d: %s %s:%d weight %d\n", i, b.Kind, b.Name, b.Port, b.Weight)
			}
		}
	}
	// Output:
	// HTTPRoute default/reviews: parent ""/Service reviews port 9080
	//   rule 0 matches PathPrefix /
	//   rule 0: Service reviews-v1:9080 weight 90
	//   rule 0: Service reviews-v2:9080 weight 10
}
