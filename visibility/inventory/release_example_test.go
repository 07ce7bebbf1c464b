package inventory_test

import (
	"fmt"

	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// A Sidecar excluding a namespace is valid from 1.31; an older release's webhook refuses
// it, so for that release it does not exist.
func ExampleInventory_ValidateFor() {
	inv, err := inventory.Load([]byte(`apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
apiVersion: networking.istio.io/v1
kind: Sidecar
metadata: {namespace: shop, name: default}
spec:
  egress:
  - hosts: ["*/*", "~payments/*", "~/*.internal"]
`), "cluster.local")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, istio := range []string{"1.30.3", "1.31"} {
		refused := inv.ValidateFor((&mesh.Config{Istio: istio}).Release())
		fmt.Printf("%s: %d refused\n", istio, len(refused))
		for _, r := range refused {
			fmt.Printf("  %s %s/%s: %s\n", r.Kind, r.Namespace, r.Name, r.Message)
			fmt.Println("  without it:", len(inv.Without(refused).Sidecars), "Sidecars")
		}
	}
	// Output:
	// 1.30.3: 1 refused
	//   Sidecar shop/default: invalid namespace value "~payments" in sidecar
	//   without it: 0 Sidecars
	// 1.31: 0 refused
}
