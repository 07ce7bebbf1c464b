package sidecar_test

import (
	"fmt"

	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
	"github.com/meshscope/meshscope/visibility/sidecar"
)

// What each class of proxies has for each host, and what routes it: for web's proxies the
// VirtualService istiod made from web's consumer route builds reviews' virtual host; for
// shop's, the user's VirtualService does.
func ExampleView_Answers() {
	v := viewOf(reviewsCluster)
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

// A dry run's changes, a line each: a Sidecar excluding a namespace, which 1.30's validation
// refuses (its view leaves the Sidecar out), excludes from 1.31.
func ExampleChange_String() {
	inv := &inventory.Inventory{
		Namespaces: map[string]map[string]string{"web": nil, "ext": nil},
		Services:   []inventory.Service{entry("ext", "api", "api.example.com", 1, "*")},
		Sidecars:   []inventory.Sidecar{{Namespace: "web", Name: "default", Egress: []inventory.Egress{{Hosts: []string{"*/*", "~ext/*"}}}}},
	}
	view := func(istio string) *sidecar.View {
		m := &mesh.Config{Istio: istio}
		v, err := sidecar.New(m, inv.Without(inv.ValidateFor(m.Release())))
		if err != nil {
			panic(err)
		}
		return v
	}
	for _, c := range sidecar.Diff(view("1.30"), view("1.31")) {
		fmt.Println(c)
	}
	// Output:
	// web api.example.com: ServiceEntry ext/api 443 -> (not received) (causes: SidecarExclusions)
}
