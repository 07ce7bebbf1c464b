package inventory_test

import (
	"fmt"

	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// What a preview of kubectl apply -f says it applied, a line each.
func ExampleApplied_String() {
	dump := []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n")
	_, applied, err := inventory.Apply(inventory.File{Name: "dump.yaml", Data: dump}, "shop", mesh.Release{},
		inventory.File{Name: "route.yaml", Data: []byte(`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: api}
spec: {parentRefs: [{group: "", kind: Service, name: api}]}
---
apiVersion: v1
kind: Namespace
metadata: {name: shop}
`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range applied {
		fmt.Println(a)
	}
	// Output:
	// route.yaml document 1: HTTPRoute shop/api created
	// route.yaml document 2: Namespace shop replaced
}

// What an older release refuses, a line each.
func ExampleRefusal_String() {
	inv, err := inventory.Load([]byte(`apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
apiVersion: networking.istio.io/v1
kind: Sidecar
metadata: {namespace: shop, name: narrow}
spec: {egress: [{hosts: ["~payments/*", "~billing/*"]}]}
`), "cluster.local")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range inv.ValidateFor((&mesh.Config{Istio: "1.30"}).Release()) {
		fmt.Println(r)
	}
	// Output:
	// Sidecar shop/narrow: 2 errors occurred: * invalid namespace value "~payments" in sidecar * invalid namespace value "~billing" in sidecar
}
