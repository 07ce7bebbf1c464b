package intentions_test

import (
	"errors"
	"fmt"

	"github.com/meshscope/meshscope/intentions"
)

const (
	trustDomain = "11111111-2222-3333-4444-555555555555.consul"
	eastDomain  = "eeeeeeee-1111-4111-8111-eeeeeeeeeeee.consul"
)

func mustEntry(json string) intentions.ConfigEntry {
	e, err := intentions.Decode([]byte(json))
	if err != nil {
		panic(err)
	}
	if err := e.Validate(); err != nil {
		panic(err)
	}
	return e
}

// Consul's write endpoint refuses a key it does not read in its own multi-error words, and
// validates the sources in precedence order.
func ExampleConfigEntry_Validate() {
	_, err := intentions.Decode([]byte(`{"Kind": "service-intentions", "Name": "api",
	  "Sources": [{"Name": "web", "Partition": "default", "Action": "allow"}]}`))
	fmt.Printf("%q\n", err)
	e, _ := intentions.Decode([]byte(`{"Kind": "service-intentions", "Name": "api", "Sources": [
	  {"Name": "*", "Action": "deny"},
	  {"Name": "web", "Permissions": [{"Action": "allow", "HTTP": {"PathPrefix": "v1/"}}]}]}`))
	fmt.Println(e.Validate())
	// Output:
	// "1 error occurred:\n\t* invalid config key \"Sources[0].Partition\"\n\n"
	// Sources[0].Permissions[0].HTTP.PathPrefix: Sources[0].Permissions[0].HTTP.PathPrefix doesn't start with '/': "v1/"
}

func ExamplePrecedence() {
	for _, p := range [][2]string{{"web", "api"}, {"*", "api"}, {"web", "*"}, {"*", "*"}} {
		fmt.Printf("%s → %s: %d\n", p[0], p[1], intentions.Precedence(p[0], p[1]))
	}
	// Output:
	// web → api: 9
	// * → api: 8
	// web → *: 6
	// * → *: 5
}

// The check API and Envoy disagree: *→api comes first for the check API, but Envoy leaves it
// out under default deny (it does what the default does) and subtracts nothing from web→*.
func ExampleDestination_Decide() {
	entries := []intentions.ConfigEntry{
		mustEntry(`{"Kind": "service-intentions", "Name": "api", "Sources": [{"Name": "*", "Action": "deny"}]}`),
		mustEntry(`{"Kind": "service-intentions", "Name": "*", "Sources": [{"Name": "web", "Action": "allow"}]}`),
	}
	d, err := intentions.Compile(intentions.Sidecar{Service: "api", TrustDomain: trustDomain, Datacenter: "dc1",
		Intentions: intentions.ForDestination("api", entries), Protocol: "tcp", ChainProtocol: "tcp"})
	if err != nil {
		panic(err)
	}
	acl := intentions.ACL{Enabled: true, DefaultPolicy: intentions.Deny}
	check, _ := d.Check("web", acl)
	dec, _ := d.Decide(intentions.Caller{Service: "web"}, intentions.Request{}, acl)
	fmt.Println("check API:", check.Allowed, "by", d.Intentions()[check.Intention])
	fmt.Println("Envoy:    ", dec.Allowed, "by", d.Intentions()[dec.Intention], dec.Policy)
	// Output:
	// check API: false by * → api (8, deny)
	// Envoy:     true by web → * (6, allow) consul-intentions-layer4
}

// A peer's intention on a grpc service never fires: the mesh gateway names the caller in the
// x-forwarded-client-cert header, which a grpc sidecar strips.
func ExampleDestination_Explain() {
	entry := mustEntry(`{"Kind": "service-intentions", "Name": "api", "Sources": [
	  {"Name": "web", "Peer": "east", "Action": "allow"}]}`)
	d, err := intentions.Compile(intentions.Sidecar{Service: "api", TrustDomain: trustDomain, Datacenter: "dc1",
		Intentions: entry.Intentions(), Protocol: "grpc", ChainProtocol: "grpc", TrustBundles: []string{"east"},
		Peers: map[string]intentions.Peer{"east": {TrustDomain: eastDomain, Datacenter: "dc-east"}}})
	if err != nil {
		panic(err)
	}
	x, _ := d.Explain(intentions.Caller{Service: "web", Peer: "east"},
		intentions.Request{Method: "POST", Path: "/api.Svc/Get"}, intentions.ACL{DefaultPolicy: intentions.Deny})
	fmt.Println(x.Arrival, x.Decision.Allowed, x.Steps[0].Outcome)
	for _, n := range x.Notes {
		fmt.Println(n.Reason)
	}
	// Output:
	// mesh-gateway-http false not presented as its source
	// stripped header
	// no check API answer
}

// The store refuses permissions for a destination whose chain is not HTTP-like.
func ExampleConfigEntry_CheckProtocol() {
	e := mustEntry(`{"Kind": "service-intentions", "Name": "db", "Sources": [
	  {"Name": "web", "Permissions": [{"Action": "allow", "HTTP": {"Methods": ["GET"]}}]}]}`)
	err := e.CheckProtocol("tcp")
	var fe *intentions.FieldError
	if errors.As(err, &fe) && errors.Is(err, intentions.ErrL7Protocol) {
		fmt.Println(fe.Detail)
	}
	fmt.Println(e.CheckProtocol("http2"))
	// Output:
	// service "db" has protocol "tcp", which is incompatible with L7 intentions permissions
	// <nil>
}

// Standings names the intentions a sidecar never applies, whatever the request: web→* on
// api's sidecar, shadowed by web→api, and a peer's intention a grpc sidecar never matches
// (the header Consul matches peers on is stripped).
func ExampleDestination_Standings() {
	d, err := intentions.Compile(intentions.Sidecar{Service: "api", TrustDomain: trustDomain, Datacenter: "dc1", Protocol: "grpc", ChainProtocol: "grpc",
		TrustBundles: []string{"east"}, Peers: map[string]intentions.Peer{"east": {TrustDomain: eastDomain, Datacenter: "dc-east"}},
		Intentions: []intentions.Intention{
			{SourceName: "web", DestinationName: "api", Action: intentions.Allow},
			{SourceName: "web", DestinationName: "*", Action: intentions.Deny},
			{SourceName: "billing", SourcePeer: "east", DestinationName: "api", Action: intentions.Allow},
		}})
	if err != nil {
		panic(err)
	}
	for _, s := range d.Standings() {
		if s.Outcome != 0 {
			fmt.Printf("%s: %s\n", d.Intentions()[s.Intention], s.Outcome)
		}
	}
	// Output:
	// billing@east → api (9, allow): not presented as its source
	// web → * (6, deny): duplicate source
}
