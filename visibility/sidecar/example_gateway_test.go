package sidecar_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/sidecar"
)

// gatewayInventory: the gateway's namespace ingress has its own api.example.com, younger
// than ext's public one.
func gatewayInventory() *inventory.Inventory {
	return &inventory.Inventory{
		Namespaces: map[string]map[string]string{"ingress": nil, "ext": nil},
		Services: []inventory.Service{
			entry("ext", "api", "api.example.com", 1),     // public, older
			entry("ingress", "api", "api.example.com", 2), // the gateway's own namespace
		},
		Sidecars: []inventory.Sidecar{{Namespace: "ingress", Name: "default", CreationTime: at(1),
			Egress: []inventory.Egress{{Hosts: []string{"./*"}}}}},
	}
}

// A gateway takes, per host, the first service exported to its namespace — no preference
// for its own namespace, which a sidecar has.
func ExampleView_Gateway() {
	v, err := sidecar.New(nil, gatewayInventory())
	if err != nil {
		panic(err)
	}
	fmt.Print("gateway: ")
	printProxy(v.Gateway("ingress", labels.Set{"istio": "ingressgateway"}))
	fmt.Print("sidecar: ")
	printProxy(v.Proxy("ingress", nil))
	// Output:
	// gateway: Sidecar ""
	//   api.example.com from ServiceEntry ext/api [443]
	// sidecar: Sidecar "ingress/default"
	//   api.example.com from ServiceEntry ingress/api [443]
}

// A gateway's explanation lists every service of the host in the order the gateway meets
// them: the first stands, whatever its namespace.
func ExampleView_ExplainGatewayHost() {
	v, err := sidecar.New(nil, gatewayInventory())
	if err != nil {
		panic(err)
	}
	fmt.Println(v.ExplainGatewayHost("ingress", labels.Set{"istio": "ingressgateway"}, "api.example.com"))
	// Output:
	// api.example.com for a gateway in ingress with istio=ingressgateway: no Sidecar (a gateway: Sidecar resources never apply to it, whatever their workloadSelector); it gets ServiceEntry ext/api, ports [443]
	//   the gateway's candidates (the services exported to ingress by name, then the public ones, each oldest first):
	//     ServiceEntry ext/api: chosen: the first service the proxy gets for the host
	//     ServiceEntry ingress/api: outranked: the gateway has ServiceEntry ext/api, which came first: a gateway takes the first service of a host it meets, and prefers no namespace
	//   DestinationRule: none
}

// LintGateways says where a gateway's view surprises: here a gateway of ingress does not get
// ingress's own api.example.com, which a sidecar of ingress gets.
func ExampleView_LintGateways() {
	v, err := sidecar.New(nil, gatewayInventory())
	if err != nil {
		panic(err)
	}
	for _, f := range v.LintGateways() {
		fmt.Println(f)
	}
	// Output:
	// WARNING GatewayOwnServiceOutranked ServiceEntry ingress/api: is exported to its namespace, but a gateway of ingress gets api.example.com from ServiceEntry ext/api: a gateway takes the first service of a host it meets (those exported to ingress by name, then the public ones, each oldest first; a Kubernetes Service replacing a ServiceEntry) and prefers no namespace, where a sidecar of ingress without a Sidecar of its own gets this one (for the gateways of ingress)
}
