package peermeta_test

import (
	"fmt"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/peermeta"
)

const td = "11111111-2222-3333-4444-555555555555.consul"

func ExampleBuild() {
	c, err := chain.Compile(
		chain.Request{Service: "mysql", Datacenter: "dc1", TrustDomain: td},
		chain.Entries{Resolvers: []chain.ServiceResolver{{Name: "mysql", Failover: map[string]chain.Failover{"*": {Service: "failover"}}}}},
	)
	if err != nil {
		panic(err)
	}
	m := peermeta.Build(peermeta.Exporter{Peer: "east", Datacenter: "dc1", TrustDomain: td}, c)
	fmt.Println(m.PrimarySNI())
	for _, id := range m.SpiffeID {
		fmt.Println(id)
	}
	fmt.Println(m.Protocol)
	// Output:
	// mysql.default.default.east.external.11111111-2222-3333-4444-555555555555.consul
	// spiffe://11111111-2222-3333-4444-555555555555.consul/ns/default/dc/dc1/svc/mysql
	// spiffe://11111111-2222-3333-4444-555555555555.consul/gateway/mesh/dc/dc1
	// spiffe://11111111-2222-3333-4444-555555555555.consul/ns/default/dc/dc1/svc/failover
	// tcp
}

func ExampleExplain() {
	c, _ := chain.Compile(
		chain.Request{Service: "web", Datacenter: "dc1", TrustDomain: td},
		chain.Entries{Resolvers: []chain.ServiceResolver{{Name: "web", Redirect: &chain.Redirect{Service: "web-v2"}}}},
	)
	for _, o := range peermeta.Explain(peermeta.Exporter{Peer: "east", Datacenter: "dc1", TrustDomain: td}, c) {
		fmt.Printf("%-12s %v\n", o.From, o.Targets)
	}
	// Output:
	// service      []
	// mesh-gateway []
	// target       [web-v2.default.default.dc1]
}

func ExampleFlatten() {
	checks := []*peermeta.HealthCheck{
		{CheckID: "serfHealth", Status: "passing"},
		{CheckID: "mesh-gateway:tcp", Status: "warning"},
	}
	c := peermeta.Flatten(checks, "gw-node", "web-sidecar-proxy-instance-0", "web-sidecar-proxy")[0]
	fmt.Println(c.CheckID, c.Status)
	// Output:
	// web-sidecar-proxy-instance-0:overall-check warning
}

func ExampleReplicate() {
	x, err := exports.Compile(exports.ConfigEntry{Name: "default", Services: []exports.Service{
		{Name: "*", Consumers: []exports.Consumer{{Peer: "east"}}},
		{Name: "db", Consumers: []exports.Consumer{{Peer: "west"}}},
	}})
	if err != nil {
		panic(err)
	}
	rep, err := peermeta.Replicate(peermeta.Input{
		Exporter: peermeta.Exporter{Peer: "east", Datacenter: "dc1", TrustDomain: td},
		Exports:  x,
		Catalog:  []exports.ServiceName{{Name: "web"}, {Name: "db"}, {Name: "api"}},
		Entries:  chain.Entries{Protocols: map[chain.ServiceKey]string{{Service: "api"}: "grpc"}},
		Gateways: []peermeta.CheckServiceNode{{
			Node:    &peermeta.Node{Node: "gw-1", Address: "10.0.0.1"},
			Service: &peermeta.NodeService{ID: "mesh-gateway", Service: "mesh-gateway", Port: 8443},
		}},
	})
	if err != nil {
		panic(err)
	}
	for _, s := range rep.Services {
		fmt.Println(s.Service, s.PeerMeta.Protocol, len(s.PeerMeta.SpiffeID), s.Instances[0].Service.ID)
	}
	// Output:
	// default/default/api grpc 2 api-sidecar-proxy-instance-0
	// default/default/web tcp 2 web-sidecar-proxy-instance-0
}
