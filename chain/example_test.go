package chain_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
)

const trustDomain = "11111111-2222-3333-4444-555555555555.consul"

func ExampleCompile_failover() {
	var db chain.ServiceResolver
	if err := json.Unmarshal([]byte(`{
		"Kind": "service-resolver",
		"Name": "db",
		"Subsets": {"primary": {"Filter": "Service.Meta.role == primary"}},
		"DefaultSubset": "primary",
		"Failover": {"*": {"Datacenters": ["dc2", "dc3"]}}
	}`), &db); err != nil {
		panic(err)
	}
	c, err := chain.Compile(
		chain.Request{Service: exports.ServiceName{Name: "db"}, Datacenter: "dc1", TrustDomain: trustDomain},
		chain.Entries{Resolvers: []chain.ServiceResolver{db}},
	)
	if err != nil {
		panic(err)
	}
	fmt.Println("start:", c.Start)
	for _, id := range c.Targets[c.Start].Failover {
		fmt.Println("failover:", id, c.Targets[id].SNI)
	}
	// Output:
	// start: primary.db.default.default.dc1
	// failover: primary.db.default.default.dc2 primary.db.default.dc2.internal.11111111-2222-3333-4444-555555555555.consul
	// failover: primary.db.default.default.dc3 primary.db.default.dc3.internal.11111111-2222-3333-4444-555555555555.consul
}

func ExampleCompile_redirectToPeer() {
	c, err := chain.Compile(
		chain.Request{Service: exports.ServiceName{Name: "billing"}, Datacenter: "dc1", TrustDomain: trustDomain},
		chain.Entries{Resolvers: []chain.ServiceResolver{
			{Name: "billing", Redirect: &chain.Redirect{Service: "billing", Peer: "finance-cluster"}},
		}},
	)
	if err != nil {
		panic(err)
	}
	t := c.Targets[c.Start]
	fmt.Println(t.ID, "peer:", t.Peer, "SNI set:", t.SNI != "")
	fmt.Println(c.Explain())
	// Output:
	// billing.default.default.external.finance-cluster peer: finance-cluster SNI set: false
	// chain default/default/billing (tcp)
	//   start billing.default.default.external.finance-cluster: request billing.default.default.dc1, Redirect of default/default/billing -> billing.default.default.external.finance-cluster
}

func ExampleCompile_cycle() {
	_, err := chain.Compile(
		chain.Request{Service: exports.ServiceName{Name: "main"}, Datacenter: "dc1", TrustDomain: trustDomain},
		chain.Entries{Resolvers: []chain.ServiceResolver{
			{Name: "main", Redirect: &chain.Redirect{Service: "other"}},
			{Name: "other", Redirect: &chain.Redirect{Service: "main"}},
		}},
	)
	fmt.Println(err)
	// Output:
	// detected circular resolver redirect: [main.default.default.dc1 -> other.default.default.dc1 -> main.default.default.dc1]
}

func ExampleServiceResolver_Validate() {
	r := chain.ServiceResolver{
		Name:     "web",
		Subsets:  map[string]chain.Subset{"v1": {}},
		Redirect: &chain.Redirect{ServiceSubset: "v2"},
		Failover: map[string]chain.Failover{"v9": {Datacenters: []string{"dc2"}}},
	}
	fmt.Println(r.Validate())
	// Output:
	// Redirect: Redirect and Failover cannot both be set
	// Redirect.ServiceSubset: Redirect.ServiceSubset defined without Redirect.Service
	// Failover["v9"]: Bad Failover["v9"]: not a valid subset subset
}

// A failover to a sameness group tries the group's other members in the order they are
// written: a partition member becomes a target in that partition of the local datacenter, a
// peer member a target imported from that peer. The requesting partition itself is skipped.
func ExampleCompile_samenessGroupFailover() {
	c, err := chain.Compile(
		chain.Request{Service: exports.ServiceName{Name: "db"}, Datacenter: "dc1", TrustDomain: trustDomain},
		chain.Entries{
			Resolvers: []chain.ServiceResolver{
				{Name: "db", Failover: map[string]chain.Failover{"*": {SamenessGroup: "dr"}}},
			},
			SamenessGroups: []exports.SamenessGroup{{
				Name:    "dr",
				Members: []exports.SamenessMember{{Partition: "default"}, {Partition: "ap2"}, {Peer: "east"}},
			}},
		},
	)
	if err != nil {
		panic(err)
	}
	fmt.Println("start:", c.Start)
	for _, id := range c.Targets[c.Start].Failover {
		fmt.Println("failover:", id)
	}
	fmt.Println(c.Explain())
	// Output:
	// start: db.default.default.dc1
	// failover: db.default.ap2.dc1
	// failover: db.default.default.external.east
	// chain default/default/db (tcp)
	//   start db.default.default.dc1: request db.default.default.dc1
	//   failover 1 db.default.ap2.dc1: Failover["*"] of default/default/db -> sameness group dr, member ap2 -> db.default.ap2.dc1
	//   failover 2 db.default.default.external.east: Failover["*"] of default/default/db -> sameness group dr, member peer east -> db.default.default.external.east
}

// A peer target goes through the local resolver of its name, as in Consul: web redirects to
// api on the peer east, and the local resolver api redirects to dc2, so the chain lands on
// the local api in dc2, and says so.
func ExampleCompile_peerTargetRedirected() {
	c, err := chain.Compile(
		chain.Request{Service: exports.ServiceName{Name: "web"}, Datacenter: "dc1", TrustDomain: trustDomain},
		chain.Entries{Resolvers: []chain.ServiceResolver{
			{Name: "web", Redirect: &chain.Redirect{Service: "api", Peer: "east"}},
			{Name: "api", Redirect: &chain.Redirect{Datacenter: "dc2"}},
		}},
	)
	if err != nil {
		panic(err)
	}
	fmt.Println("start:", c.Start)
	for _, f := range c.Findings() {
		fmt.Println(f.Level, f.Code, f.Path)
		fmt.Println(f.Message)
	}
	// Output:
	// start: api.default.default.dc2
	// WARNING PeerTargetResolvedLocally chain default/default/web, target api.default.default.external.east
	// the local service-resolver default/default/api governs this peer target and its Redirect makes it api.default.default.dc2: Consul finds a target's resolver by service, namespace and partition, not by peer
}

// The local resolver's default subset applies to the peer target too, and makes it local.
func ExampleCompile_peerTargetDefaultSubset() {
	c, err := chain.Compile(
		chain.Request{Service: exports.ServiceName{Name: "web"}, Datacenter: "dc1", TrustDomain: trustDomain},
		chain.Entries{Resolvers: []chain.ServiceResolver{
			{Name: "web", Redirect: &chain.Redirect{Service: "api", Peer: "east"}},
			{Name: "api", Subsets: map[string]chain.Subset{"v1": {Filter: "Service.Meta.version == v1"}}, DefaultSubset: "v1"},
		}},
	)
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Explain())
	// Output:
	// chain default/default/web (tcp)
	//   start v1.api.default.default.dc1: request web.default.default.dc1, Redirect of default/default/web -> api.default.default.external.east, DefaultSubset of default/default/api -> v1.api.default.default.dc1
	//   WARNING PeerTargetResolvedLocally chain default/default/web, target api.default.default.external.east: the local service-resolver default/default/api governs this peer target and its DefaultSubset makes it v1.api.default.default.dc1: Consul finds a target's resolver by service, namespace and partition, not by peer
}

// Consul's server compiles a chain from the entries it reads for it, and it does not read
// the resolver of a failover target's service on a peer: here the local api resolver is
// never read for web's chain, so the peer target stays as written. Were web's chain to reach
// api locally as well (a failover target {Service: "api"}, say), the resolver would be read
// and would govern the peer target too.
func ExampleCompile_peerFailoverTargetNotRead() {
	c, err := chain.Compile(
		chain.Request{Service: exports.ServiceName{Name: "web"}, Datacenter: "dc1", TrustDomain: trustDomain},
		chain.Entries{Resolvers: []chain.ServiceResolver{
			{Name: "web", Failover: map[string]chain.Failover{"*": {Targets: []chain.FailoverTarget{{Service: "api", Peer: "east"}}}}},
			{Name: "api", Redirect: &chain.Redirect{Datacenter: "dc2"}},
		}},
	)
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Targets[c.Start].Failover, len(c.Findings()))
	// Output:
	// [api.default.default.external.east] 0
}

// A peer target carries the local resolver's connect timeout, as Consul gives it.
func ExampleCompile_peerTargetConnectTimeout() {
	c, err := chain.Compile(
		chain.Request{Service: exports.ServiceName{Name: "web"}, Datacenter: "dc1", TrustDomain: trustDomain},
		chain.Entries{Resolvers: []chain.ServiceResolver{
			{Name: "web", Redirect: &chain.Redirect{Service: "api", Peer: "east"}},
			{Name: "api", ConnectTimeout: 2 * time.Second},
		}},
	)
	if err != nil {
		panic(err)
	}
	t := c.Targets[c.Start]
	fmt.Println(t.ID, t.ConnectTimeout)
	fmt.Println(c.Findings()[0].Message)
	// Output:
	// api.default.default.external.east 2s
	// the local service-resolver default/default/api governs this peer target and gives it its ConnectTimeout 2s: Consul finds a target's resolver by service, namespace and partition, not by peer
}
