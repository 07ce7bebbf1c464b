package sni_test

import (
	"errors"
	"fmt"

	"github.com/meshscope/meshscope/sni"
)

const trustDomain = "11111111-2222-3333-4444-555555555555.consul"

func ExampleService() {
	fmt.Println(sni.Service{Service: "api", Datacenter: "dc1", TrustDomain: trustDomain})
	fmt.Println(sni.Service{Subset: "v2", Service: "api", Namespace: "shop", Partition: "retail", Datacenter: "dc1", TrustDomain: trustDomain})
	// Output:
	// api.default.dc1.internal.11111111-2222-3333-4444-555555555555.consul
	// v2.api.shop.retail.dc1.internal-v1.11111111-2222-3333-4444-555555555555.consul
}

func ExamplePeered() {
	fmt.Println(sni.Peered{Service: "web", Peer: "east", TrustDomain: trustDomain})
	// Output:
	// web.default.default.east.external.11111111-2222-3333-4444-555555555555.consul
}

func ExampleParse() {
	n, err := sni.Parse("p1.dc1.internal-v1."+trustDomain, trustDomain)
	if err != nil {
		panic(err)
	}
	switch v := n.(type) {
	case sni.Gateway:
		fmt.Printf("mesh gateway of partition %s in %s\n", v.Partition, v.Datacenter)
	case sni.Service:
		fmt.Printf("service %s\n", v.Service)
	}

	_, err = sni.Parse("api.default.default.dc1.internal-v1."+trustDomain, trustDomain)
	fmt.Println(errors.Is(err, sni.ErrMalformed))
	// Output:
	// mesh gateway of partition p1 in dc1
	// true
}

func ExampleService_Validate() {
	// A dot in a component would let one service forge another's name.
	s := sni.Service{Service: "web.default", Datacenter: "DC1", TrustDomain: trustDomain}
	fmt.Println(s.Validate())
	// Output:
	// Service: "web.default" must not contain "." (the label separator)
	// Datacenter: "DC1" must be lower case
}

func ExampleService_AppendTo() {
	buf := make([]byte, 0, 128)
	for _, subset := range []string{"v1", "v2"} {
		buf = sni.Service{Subset: subset, Service: "api", Datacenter: "dc1", TrustDomain: "t.consul"}.AppendTo(buf[:0])
		fmt.Println(string(buf))
	}
	// Output:
	// v1.api.default.dc1.internal.t.consul
	// v2.api.default.dc1.internal.t.consul
}
