package inventory_test

import (
	"fmt"

	"github.com/meshscope/meshscope/visibility/inventory"
)

// The host of the Service reviews in namespace shop, in the default cluster domain.
func ExampleServiceHost() {
	fmt.Println(inventory.ServiceHost("reviews", "shop", inventory.DefaultDomain))
	// Output: reviews.shop.svc.cluster.local
}
