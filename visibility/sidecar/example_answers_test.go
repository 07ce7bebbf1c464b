package sidecar_test

import (
	"fmt"

	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/sidecar"
)

// What each class of proxies has for each host, and what routes it: for web's proxies the
// VirtualService istiod made from web's consumer route builds reviews' virtual host; for
// shop's, the user's VirtualService does.
func ExampleView_Answers() {
	inv, err := inventory.Load([]byte(reviewsCluster), "")
	if err != nil {
		panic(err)
	}
	v, err := sidecar.New(nil, inv)
	if err != nil {
		panic(err)
	}
	for _, ns := range []string{"web", "shop"} {
		for _, a := range v.Answers(ns, nil) {
			fmt.Printf("%s %s: %s\n", ns, a.Host, &a)
		}
	}
	// Output:
	// web reviews-v2.shop.svc.cluster.local: KubernetesService shop/reviews-v2 9080
	// web reviews.shop.svc.cluster.local: KubernetesService shop/reviews 9080,9999, routed by web/web~9080~reviews.shop.svc.cluster.local
	// shop reviews-v2.shop.svc.cluster.local: KubernetesService shop/reviews-v2 9080
	// shop reviews.shop.svc.cluster.local: KubernetesService shop/reviews 9080,9999, routed by shop/reviews
}
