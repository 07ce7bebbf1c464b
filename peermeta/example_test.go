package peermeta_test

import (
	"fmt"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/chain/store"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/intentions"
	"github.com/meshscope/meshscope/peermeta"
)

const td = "11111111-2222-3333-4444-555555555555.consul"

func ExampleBuild() {
	c, err := chain.Compile(
		chain.Request{Service: exports.ServiceName{Name: "mysql"}, Datacenter: "dc1", TrustDomain: td},
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

// Where each SPIFFE ID a peer receives comes from: web (tcp) is redirected to web-v2, so the
// peer must accept web-v2's identity too.
func ExampleReplicate_origins() {
	x, err := exports.Compile(exports.ConfigEntry{Name: "default", Services: []exports.Service{
		{Name: "web", Consumers: []exports.Consumer{{Peer: "east"}}},
	}})
	if err != nil {
		panic(err)
	}
	rep, err := peermeta.Replicate(peermeta.Input{
		Exporter: peermeta.Exporter{Peer: "east", Datacenter: "dc1", TrustDomain: td},
		Exports:  x,
		Entries:  chain.Entries{Resolvers: []chain.ServiceResolver{{Name: "web", Redirect: &chain.Redirect{Service: "web-v2"}}}},
	})
	if err != nil {
		panic(err)
	}
	for _, o := range rep.Services[0].Origins {
		fmt.Printf("%-12s %v\n", o.From, o.Targets)
	}
	// Output:
	// service      []
	// mesh-gateway []
	// target       [web-v2.default.default.dc1]
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
		Catalog:  []exports.ServiceName{{Name: "web"}, {Name: "db"}, {Name: "api"}, {Name: "legacy"}},
		// web and api have sidecars; legacy has none, so it goes without a chain.
		Connect: []exports.ServiceName{{Name: "web"}, {Name: "api"}},
		Entries: chain.Entries{Protocols: map[exports.ServiceName]string{{Name: "api"}: "grpc"}},
		Gateways: []peermeta.CheckServiceNode{{
			Node:    &peermeta.Node{Node: "gw-1", Address: "10.0.0.1"},
			Service: &peermeta.NodeService{ID: "mesh-gateway", Service: "mesh-gateway", Port: 8443},
			Checks: []*peermeta.HealthCheck{
				{CheckID: "serfHealth", Status: "passing"},
				{CheckID: "mesh-gateway:tcp", Status: "warning"},
			},
		}},
	})
	if err != nil {
		panic(err)
	}
	for _, s := range rep.Services {
		fmt.Println(s.Service, s.PeerMeta.Protocol, len(s.PeerMeta.SpiffeID), s.Instances[0].Service.ID)
	}
	fmt.Println("plain:", rep.Plain)
	// An instance carries the gateway's checks folded into one: the worst of them.
	c := rep.Services[0].Instances[0].Checks[0]
	fmt.Println(c.CheckID, c.Status)
	// Output:
	// default/default/api grpc 2 api-sidecar-proxy-instance-0
	// default/default/web tcp 2 web-sidecar-proxy-instance-0
	// plain: [default/default/legacy]
	// api-sidecar-proxy-instance-0:overall-check warning
}

// ExampleDiff previews a change to two resolvers before they are written: db gains a
// failover, which its peer must now accept the identity of; web is redirected to a new
// service, a write Consul's server refuses for a tcp export, so web's replication does not
// change.
func ExampleDiff() {
	x, err := exports.Compile(exports.ConfigEntry{Name: "default", Services: []exports.Service{
		{Name: "db", Consumers: []exports.Consumer{{Peer: "east"}}},
		{Name: "web", Consumers: []exports.Consumer{{Peer: "east"}}},
	}})
	if err != nil {
		panic(err)
	}
	before := peermeta.Input{
		Exporter: peermeta.Exporter{Peer: "east", Datacenter: "dc1", TrustDomain: td},
		Exports:  x,
		Connect:  []exports.ServiceName{{Name: "db"}, {Name: "web"}},
	}
	after := before
	after.Entries.Resolvers = []chain.ServiceResolver{
		{Name: "db", Failover: map[string]chain.Failover{"*": {Service: "db-backup"}}},
		{Name: "web", Redirect: &chain.Redirect{Service: "web-v2"}},
	}
	d, err := peermeta.Diff(before, after)
	if err != nil {
		panic(err)
	}
	for _, s := range d.Services {
		fmt.Println(s.Key, "gains", s.Gained)
	}
	for _, r := range d.Refused {
		fmt.Println(r)
	}
	// Output:
	// default/default/db gains [spiffe://11111111-2222-3333-4444-555555555555.consul/ns/default/dc/dc1/svc/db-backup]
	// service-resolver web: chain default/default/web: peer exported service "web" uses protocol="tcp" and cannot introduce new discovery chain targets like "web-v2.default.default.dc1"
}

// ExampleUpstream is the importer's side: the chain of web fails over to the peer east, and
// east sent a PeerMeta for web.
func ExampleUpstream() {
	c, err := chain.Compile(chain.Request{Service: exports.ServiceName{Name: "web"}, Datacenter: "dc1", TrustDomain: td}, chain.Entries{
		Resolvers: []chain.ServiceResolver{{Name: "web", Failover: map[string]chain.Failover{"*": {Targets: []chain.FailoverTarget{{Peer: "east"}}}}}},
	})
	if err != nil {
		panic(err)
	}
	received := peermeta.PeerMeta{
		SNI:      []string{"web.default.default.west.external.22222222-3333-4444-5555-666666666666.consul"},
		SpiffeID: []string{"spiffe://22222222-3333-4444-5555-666666666666.consul/ns/default/dc/dc2/svc/web", "spiffe://22222222-3333-4444-5555-666666666666.consul/gateway/mesh/dc/dc2"},
		Protocol: "tcp",
	}
	up, err := peermeta.Upstream(c, "web.default.default.external.east", received)
	if err != nil {
		panic(err)
	}
	fmt.Println("dial", up.SNI)
	fmt.Println("accept", len(up.SpiffeIDs), "identities over", up.Protocol)
	// Output:
	// dial web.default.default.west.external.22222222-3333-4444-5555-666666666666.consul
	// accept 2 identities over tcp
}

// ExampleCalls_May asks whether frontend of the peer east may call billing. billing is
// exported to east by the "*" rule, and to west by its own rule: east's caller reaches it
// (Consul exports the union of the rules) but billing's sidecar trusts west only (the most
// exact rule), so the intention allowing frontend is left out.
func ExampleCalls_May() {
	c, err := store.Load([]byte(`{"Kind":"service-defaults","Name":"billing","Protocol":"http"}
{"Kind":"exported-services","Name":"default","Services":[{"Name":"*","Consumers":[{"Peer":"east"}]},{"Name":"billing","Consumers":[{"Peer":"west"}]}]}
{"Kind":"service-intentions","Name":"billing","Sources":[{"Name":"frontend","Peer":"east","Action":"allow"}]}`))
	if err != nil {
		panic(err)
	}
	peerings, err := peermeta.LoadPeerings([]byte(`[
 {"Name":"east","State":"ACTIVE","PeerServerName":"server.dc-east.peering.eeee.consul","Remote":{"Partition":"default","Datacenter":"dc-east"}},
 {"Name":"west","State":"ACTIVE","Remote":{"Partition":"part-w","Datacenter":"dc-west"}}]`), map[string]string{"west": "aaaa.consul"})
	if err != nil {
		panic(err)
	}
	sc, err := c.Sidecars(store.Cluster{TrustDomain: "1111.consul", Datacenter: "dc1", Peerings: peerings})
	if err != nil {
		panic(err)
	}
	x, err := c.Compile()
	if err != nil {
		panic(err)
	}
	billing := []exports.ServiceName{{Name: "billing"}}
	calls, err := peermeta.NewCalls(peermeta.Input{Exporter: peermeta.Exporter{Datacenter: "dc1", TrustDomain: "1111.consul"},
		Exports: x, Catalog: billing, Connect: billing, Entries: c.Entries}, sc)
	if err != nil {
		panic(err)
	}
	call, err := calls.May(intentions.Caller{Service: "frontend", Peer: "east"}, "billing", intentions.Request{Method: "GET", Path: "/"}, intentions.ACL{DefaultPolicy: intentions.Deny})
	if err != nil {
		panic(err)
	}
	fmt.Println("allowed:", call.Allowed, "reachable:", call.Reachable, "trusted:", call.Trusted)
	fmt.Println(call.Explanation.Decision)
	for _, f := range calls.Lint(intentions.ACL{DefaultPolicy: intentions.Deny}) {
		fmt.Println(f.Code, f.Path)
	}
	// Output:
	// allowed: false reachable: true trusted: false
	// denied by the default
	// TrustBundleMissing service-intentions billing (frontend@east)
}
