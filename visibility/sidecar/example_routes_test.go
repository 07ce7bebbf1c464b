package sidecar_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/sidecar"
)

// reviewsCluster is bookinfo's reviews in shop, a VirtualService splitting it by subset, and a
// consumer route of web sending web's proxies to reviews-v2.
const reviewsCluster = `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: shop}}
- {apiVersion: v1, kind: Namespace, metadata: {name: web}}
- apiVersion: v1
  kind: Service
  metadata: {name: reviews, namespace: shop, creationTimestamp: "2026-05-01T10:00:00Z"}
  spec: {clusterIP: 10.96.0.4, ports: [{name: http, port: 9080}, {name: tcp-admin, port: 9999}]}
- apiVersion: v1
  kind: Service
  metadata: {name: reviews-v2, namespace: shop, creationTimestamp: "2026-05-01T10:00:01Z"}
  spec: {clusterIP: 10.96.0.5, ports: [{name: http, port: 9080}]}
- apiVersion: networking.istio.io/v1
  kind: VirtualService
  metadata: {name: reviews, namespace: shop, creationTimestamp: "2026-05-01T10:05:00Z"}
  spec:
    hosts: [reviews]
    http: [{route: [{destination: {host: reviews, subset: v1}, weight: 90}, {destination: {host: reviews, subset: v2}, weight: 10}]}]
- apiVersion: gateway.networking.k8s.io/v1
  kind: HTTPRoute
  metadata: {name: reviews-v2, namespace: web, creationTimestamp: "2026-05-01T10:10:00Z"}
  spec:
    parentRefs: [{group: "", kind: Service, name: reviews, namespace: shop, port: 9080}]
    rules: [{backendRefs: [{name: reviews-v2, namespace: shop, port: 9080}]}]
`

// viewOf loads a cluster (kubectl's YAML) and builds its view under the mesh's defaults.
func viewOf(cluster string) *sidecar.View {
	inv, err := inventory.Load([]byte(cluster), "")
	if err != nil {
		panic(err)
	}
	v, err := sidecar.New(nil, inv)
	if err != nil {
		panic(err)
	}
	return v
}

// The route table a proxy gets for port 9080: a virtual host per service, built by the first
// VirtualService that claims it. web's consumer route comes first for web's proxies; shop's
// proxies get the VirtualService, the consumer route building nothing for them though it is
// selected.
func ExampleView_RouteTable() {
	v := viewOf(reviewsCluster)
	for _, ns := range []string{"web", "shop"} {
		fmt.Println(ns + ":")
		for _, vh := range v.RouteTable(ns, labels.Set{"app": "web"}, 9080) {
			fmt.Printf("  %s %q\n", vh.Name, vh.VirtualService)
		}
	}
	fmt.Println("port 9999 (TCP):", v.RouteTable("web", nil, 9999))
	// Output:
	// web:
	//   reviews-v2.shop.svc.cluster.local:9080 ""
	//   reviews.shop.svc.cluster.local:9080 "web/web~9080~reviews.shop.svc.cluster.local"
	//   allow_any ""
	// shop:
	//   reviews-v2.shop.svc.cluster.local:9080 ""
	//   reviews.shop.svc.cluster.local:9080 "shop/reviews"
	//   allow_any ""
	// port 9999 (TCP): [{allow_any }]
}

// The status istiod writes on a route: per parent, Accepted and ResolvedRefs in its words.
// A parent that does not exist is refused; the ResolvedRefs of every mesh parent names the
// last backend that does not resolve.
func ExampleView_RouteStatus() {
	v := viewOf(reviewsCluster + `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: canary, namespace: shop}
spec:
  parentRefs: [{group: "", kind: Service, name: reviews}, {group: "", kind: Service, name: ratings}]
  rules: [{backendRefs: [{name: reviews-v3, port: 9080}]}]
`)
	s, _ := v.RouteStatus("HTTPRoute", "shop", "canary")
	for _, p := range s.Parents {
		for _, c := range p.Conditions {
			fmt.Printf("%s %s: %s=%s %s: %s\n", p.Kind, p.Name, c.Type, c.Status, c.Reason, c.Message)
		}
	}
	_, ok := v.RouteStatus("HTTPRoute", "shop", "missing")
	fmt.Println(ok)
	// Output:
	// Service reviews: Accepted=True Accepted: Route was valid
	// Service reviews: ResolvedRefs=False BackendNotFound: backend(reviews-v3.shop.svc.cluster.local) not found
	// Service ratings: Accepted=False NoMatchingParent: parent service: "ratings" not found
	// Service ratings: ResolvedRefs=False BackendNotFound: backend(reviews-v3.shop.svc.cluster.local) not found
	// false
}
