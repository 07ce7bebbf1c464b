package inventory_test

import (
	"fmt"

	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// Previewing `kubectl apply -f route.yaml` against a dump: the HTTPRoute, without a
// namespace, lands in kubectl's default namespace as the youngest object; the
// VirtualService replaces the dump's, keeping its creation time.
func ExampleApply() {
	dump := []byte(`apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: default}}
- apiVersion: v1
  kind: Service
  metadata: {name: reviews, namespace: default, creationTimestamp: "2026-01-01T00:00:00Z"}
  spec: {clusterIP: 10.0.0.1, ports: [{port: 9080}]}
- apiVersion: networking.istio.io/v1
  kind: VirtualService
  metadata: {name: reviews, namespace: default, creationTimestamp: "2026-01-01T00:00:01Z"}
  spec: {hosts: [reviews], http: [{route: [{destination: {host: reviews, subset: v1}}]}]}
`)
	route := []byte(`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: reviews}
spec:
  parentRefs: [{group: "", kind: Service, name: reviews, port: 9080}]
  rules: [{backendRefs: [{name: reviews, port: 9080}]}]
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: reviews}
spec: {hosts: [reviews], http: [{route: [{destination: {host: reviews, subset: v2}}]}]}
`)
	after, applied, err := inventory.Apply(inventory.File{Name: "dump.yaml", Data: dump}, "", mesh.Release{},
		inventory.File{Name: "route.yaml", Data: route})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range applied {
		how := "replaced"
		if a.Created {
			how = "created"
		}
		fmt.Printf("%s %s: %s %s/%s %s\n", a.File, a.Where, a.Kind, a.Namespace, a.Name, how)
	}
	inv, err := inventory.Load(after, "cluster.local")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("route created", inv.Routes[0].CreationTime.Format("2006-01-02T15:04:05Z"))
	vs := inv.VirtualServices[0]
	fmt.Println("virtual service created", vs.CreationTime.Format("2006-01-02T15:04:05Z"), "routes to subset", vs.HTTP[0].Route[0].Subset)

	_, _, err = inventory.Apply(inventory.File{Name: "dump.yaml", Data: dump}, "shop", mesh.Release{},
		inventory.File{Name: "vs.yaml", Data: []byte("apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: r, namespace: web}\nspec: {hosts: [r], http: [{route: [{destination: {host: r}}]}]}\n")})
	fmt.Println(err)
	// Output:
	// route.yaml document 1: HTTPRoute default/reviews created
	// route.yaml document 2: VirtualService default/reviews replaced
	// route created 2026-01-01T00:00:02Z
	// virtual service created 2026-01-01T00:00:01Z routes to subset v2
	// vs.yaml: VirtualService web/r: metadata.namespace: the namespace from the provided object "web" does not match the namespace "shop". You must pass '--namespace=web' to perform this operation.
}
