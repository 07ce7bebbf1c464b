package spiffe_test

import (
	"errors"
	"fmt"

	"github.com/meshscope/meshscope/spiffe"
)

func ExampleService() {
	td := spiffe.ConsulTrustDomain("11111111-2222-3333-4444-555555555555")
	fmt.Println(spiffe.Service{TrustDomain: td, Datacenter: "dc1", Service: "web"})
	fmt.Println(spiffe.Service{TrustDomain: td, Partition: "bizdev", Namespace: "shop", Datacenter: "dc1", Service: "web"})
	fmt.Println(spiffe.MeshGateway{TrustDomain: td, Datacenter: "dc1"})
	// Output:
	// spiffe://11111111-2222-3333-4444-555555555555.consul/ns/default/dc/dc1/svc/web
	// spiffe://11111111-2222-3333-4444-555555555555.consul/ap/bizdev/ns/shop/dc/dc1/svc/web
	// spiffe://11111111-2222-3333-4444-555555555555.consul/gateway/mesh/dc/dc1
}

func ExampleParse() {
	for _, uri := range []string{
		"spiffe://1234.consul/ap/bizdev/ns/default/dc/dc1/svc/web",
		"spiffe://cluster.local/ns/shop/sa/cart",
	} {
		switch id := spiffe.MustParse(uri).(type) {
		case spiffe.Service:
			fmt.Printf("Consul service %s in partition %s, datacenter %s\n", id.Service, id.Partition, id.Datacenter)
		case spiffe.Workload:
			fmt.Printf("Kubernetes service account %s/%s\n", id.Namespace, id.ServiceAccount)
		}
	}
	// Output:
	// Consul service web in partition bizdev, datacenter dc1
	// Kubernetes service account shop/cart
}

func ExampleParse_strict() {
	// A lenient parser decodes %2F and reads the namespace "foo/bar"; Parse refuses.
	_, err := spiffe.Parse("spiffe://1234.consul/ns/foo%2Fbar/dc/dc1/svc/web")
	fmt.Println(errors.Is(err, spiffe.ErrMalformed))
	fmt.Println(err)

	_, err = spiffe.Parse("spiffe://1234.consul/cluster/web")
	fmt.Println(errors.Is(err, spiffe.ErrUnknownSchema))
	// Output:
	// true
	// malformed SPIFFE ID: "spiffe://1234.consul/ns/foo%2Fbar/dc/dc1/svc/web" path must not contain "%" (percent-encoding): IDs are never percent-encoded
	// true
}

func ExampleWorkload_Validate() {
	w := spiffe.Workload{TrustDomain: "cluster.local", Namespace: "shop/admin"}
	fmt.Println(w.Validate())
	// Output:
	// Namespace: "shop/admin" must not contain "/" (the path separator) (allowed: a-z, A-Z, 0-9, ".", "-" and "_")
	// ServiceAccount: "" must not be empty
}
