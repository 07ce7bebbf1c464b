package store_test

import (
	"fmt"

	"github.com/meshscope/meshscope/chain/store"
	"github.com/meshscope/meshscope/intentions"
)

// ExampleLoad reads what `consul config read` prints, of several kinds: the kinds the store
// models are decoded strictly, and an entry of one of Consul's other kinds is skipped and
// named.
func ExampleLoad() {
	c, err := store.Load([]byte(`{"Kind":"service-resolver","Name":"api","Redirect":{"Service":"api-v2"}}
{"Kind":"service-defaults","Name":"api-v2","Protocol":"http"}
[{"Kind":"exported-services","Name":"default","Services":[{"Name":"api","Consumers":[{"Peer":"east"}]}]},
 {"Kind":"file-system-certificate","Name":"edge","Certificate":"/etc/tls/edge.crt","PrivateKey":"/etc/tls/edge.key"}]`))
	if err != nil {
		panic(err)
	}
	fmt.Println(len(c.Entries.Resolvers), "resolver,", len(c.Entries.Protocols), "service-defaults,", len(c.Exports), "exported-services")
	for _, f := range c.Findings {
		fmt.Println(f)
	}
	_, err = store.Load([]byte(`{"Kind":"service-resolvr","Name":"api"}`))
	fmt.Println(err)
	// Output:
	// 1 resolver, 1 service-defaults, 1 exported-services
	// NOTE EntrySkipped value 3, [1] (file-system-certificate edge): not read: a gateway certificate does not change what is replicated to peers
	// value 1 (service-resolvr api): Kind: "service-resolvr" is not a kind of Consul config entry (did you mean "service-resolver"?)
}

// ExampleConfig_Apply writes entries as a live Consul server takes them, in order: the
// order matters. api fails over to backup; backup's protocol cannot change while api's chain
// reaches it, so the service-defaults write is refused, naming the chain it breaks.
func ExampleConfig_Apply() {
	var c store.Config
	outcomes, err := c.Apply([]byte(`{"Kind":"service-resolver","Name":"api","Failover":{"*":{"Service":"backup"}}}
{"Kind":"service-defaults","Name":"backup","Protocol":"http"}
{"Kind":"service-resolver","Name":"backup","DefaultSubset":"v2"}
{"Kind":"service-resolver","Name":"web","Redirect":{"Service":"api","ServiceSubset":"v1"}}`))
	if err != nil {
		panic(err)
	}
	for _, o := range outcomes {
		fmt.Println(o)
	}
	fmt.Println("stored:", len(c.Entries.Resolvers), "resolvers,", len(c.Entries.Protocols), "service-defaults")
	// Output:
	// service-resolver api: accepted
	// service-defaults backup: refused (store): chain default/default/api: discovery chain "api" uses inconsistent protocols; service "backup" has "http" which is not "tcp"
	// service-resolver backup: refused (validate): DefaultSubset: DefaultSubset "v2" is not a valid subset
	// service-resolver web: refused (store): chain default/default/web: service "api" does not have a subset named "v1"
	// stored: 1 resolvers, 0 service-defaults
}

// A live server's writes, in order: a router written before its service's service-defaults
// make it an http service is refused, and the same router written after is accepted; a
// splitter whose nested header changes crash Consul 1.16.0's server is refused, and said so.
func ExampleConfig_Apply_refused() {
	var c store.Config
	outs, err := c.Apply([]byte(`
{"Kind": "service-router", "Name": "web", "Routes": [{"Match": {"HTTP": {"PathPrefix": "/api"}}, "Destination": {"Service": "api"}}]}
{"Kind": "proxy-defaults", "Name": "global", "Config": {"protocol": "http"}}
{"Kind": "service-router", "Name": "web", "Routes": [{"Match": {"HTTP": {"PathPrefix": "/api"}}, "Destination": {"Service": "api"}}]}
{"Kind": "service-splitter", "Name": "api-next", "Splits": [{"Weight": 100, "RequestHeaders": {"Add": {"x-next": "1"}}}]}
{"Kind": "service-splitter", "Name": "api", "Splits": [{"Weight": 50, "RequestHeaders": {"Remove": ["x-debug"]}}, {"Weight": 50, "Service": "api-next", "RequestHeaders": {"Remove": ["x-debug"]}}]}
`))
	if err != nil {
		panic(err)
	}
	for _, o := range outs {
		if o.Accepted {
			fmt.Println(o.Kind, o.Name, "accepted")
			continue
		}
		fmt.Println(o.Kind, o.Name, "refused at", o.Stage)
		for _, r := range o.Reasons {
			fmt.Println("  " + r)
		}
	}
	// Output:
	// service-router web refused at store
	//   chain default/default/web: discovery chain "web" uses a protocol "tcp" that does not permit advanced routing or splitting behavior
	// proxy-defaults global accepted
	// service-router web accepted
	// service-splitter api-next accepted
	// service-splitter api refused at panic
	//   chain default/default/api: Consul 1.16.0's server panics on this write (assignment to entry in nil map) and does not store it: flattening splitter:api-next.default.default into splitter:api.default.default merges header changes into a nil map (Consul's MergeHTTPHeaderModifiers): Consul 1.16.0's server panics compiling this chain; meshscope merges them
	//   chain default/default/web: Consul 1.16.0's server panics on this write (assignment to entry in nil map) and does not store it: flattening splitter:api-next.default.default into splitter:api.default.default merges header changes into a nil map (Consul's MergeHTTPHeaderModifiers): Consul 1.16.0's server panics compiling this chain; meshscope merges them
}

// ExampleStore_Apply replays writes one at a time, as a server takes them: each write costs
// what it touches, however many entries the Store holds.
func ExampleStore_Apply() {
	st, err := store.New(store.Config{})
	if err != nil {
		panic(err)
	}
	for _, w := range []string{
		`{"Kind":"service-resolver","Name":"db","Redirect":{"Service":"db-v2"}}`,
		`{"Kind":"service-defaults","Name":"db-v2","Protocol":"http"}`,
		`{"Kind":"service-defaults","Name":"db","Protocol":"http"}`,
		`{"Kind":"service-defaults","Name":"db-v2","Protocol":"http"}`,
	} {
		outs, err := st.Apply([]byte(w))
		if err != nil {
			panic(err)
		}
		fmt.Println(outs[0])
	}
	c := st.Config()
	fmt.Println(len(c.Entries.Protocols), "protocols stored")
	// Output:
	// service-resolver db: accepted
	// service-defaults db-v2: refused (store): chain default/default/db: discovery chain "db" uses inconsistent protocols; service "db-v2" has "http" which is not "tcp"
	// service-defaults db: refused (store): chain default/default/db: discovery chain "db" uses inconsistent protocols; service "db-v2" has "tcp" which is not "http"
	// service-defaults db-v2: refused (store): chain default/default/db: discovery chain "db" uses inconsistent protocols; service "db-v2" has "http" which is not "tcp"
	// 0 protocols stored
}

// ExampleReplay is the dry run of a change: the writes that take one configuration to the
// other, in an order of its own (service-defaults before the resolvers, deletions last), each
// judged as the server judges it. A service-defaults entry is named as a Config holds it, by
// its canonical service.
func ExampleReplay() {
	before, err := store.Load([]byte(`{"Kind":"service-resolver","Name":"db","Redirect":{"Service":"db-v2"}}
{"Kind":"service-resolver","Name":"old"}`))
	if err != nil {
		panic(err)
	}
	after, err := store.Load([]byte(`{"Kind":"service-resolver","Name":"db","Redirect":{"Service":"db-v2"}}
{"Kind":"service-defaults","Name":"db-v2","Protocol":"http"}`))
	if err != nil {
		panic(err)
	}
	writes, stored, err := store.Replay(before, after)
	if err != nil {
		panic(err)
	}
	for _, w := range writes {
		fmt.Println(w)
	}
	fmt.Println(len(stored.Entries.Resolvers), "resolver stored")
	// Output:
	// service-defaults default/default/db-v2: refused (store): chain default/default/db: discovery chain "db" uses inconsistent protocols; service "db-v2" has "http" which is not "tcp"
	// service-resolver old (deleted): accepted
	// 1 resolver stored
}

// ExampleConfig_Apply_intentions: Consul's server refuses permissions on a tcp destination,
// and a later write that would make a destination of permissions tcp, in the same words.
func ExampleConfig_Apply_intentions() {
	var c store.Config
	outcomes, err := c.Apply([]byte(`{"Kind":"service-intentions","Name":"api","Sources":[{"Name":"web","Permissions":[{"Action":"deny","HTTP":{"PathPrefix":"/admin"}}]}]}
{"Kind":"service-defaults","Name":"api","Protocol":"http"}
{"Kind":"service-intentions","Name":"api","Sources":[{"Name":"web","Permissions":[{"Action":"deny","HTTP":{"PathPrefix":"/admin"}}]}]}
{"Kind":"service-defaults","Name":"api","Protocol":"tcp"}`))
	if err != nil {
		panic(err)
	}
	for _, o := range outcomes {
		fmt.Println(o)
	}
	// Output:
	// service-intentions api: refused (store): service "api" has protocol "tcp", which is incompatible with L7 intentions permissions
	// service-defaults api: accepted
	// service-intentions api: accepted
	// service-defaults api: refused (store): service-intentions api: service "api" has protocol "tcp", which is incompatible with L7 intentions permissions
}

// ExampleConfig_Sidecars: what api's sidecar has. api is exported to east by a "*" rule and
// to west by its own: its sidecar trusts west only (the most exact rule), and a
// registration's own protocol beats service-defaults.
func ExampleConfig_Sidecars() {
	c, err := store.Load([]byte(`{"Kind":"service-defaults","Name":"api","Protocol":"http"}
{"Kind":"exported-services","Name":"default","Services":[{"Name":"*","Consumers":[{"Peer":"east"}]},{"Name":"api","Consumers":[{"Peer":"west"}]}]}
{"Kind":"service-intentions","Name":"api","Sources":[{"Name":"web","Peer":"east","Action":"allow"}]}`))
	if err != nil {
		panic(err)
	}
	sc, err := c.Sidecars(store.Cluster{TrustDomain: "1111.consul", Datacenter: "dc1", Protocols: map[string]string{"api": "tcp"},
		Peerings: []store.Peering{
			{Name: "east", State: "ACTIVE", Peer: intentions.Peer{TrustDomain: "eeee.consul", Datacenter: "dc-east"}},
			{Name: "west", State: "ACTIVE", Peer: intentions.Peer{TrustDomain: "aaaa.consul", Datacenter: "dc-west"}},
		}})
	if err != nil {
		panic(err)
	}
	s, err := sc.Sidecar("api")
	if err != nil {
		panic(err)
	}
	fmt.Println("protocol", s.Protocol, "chain", s.ChainProtocol, "trust bundles", s.TrustBundles, "intentions", len(s.Intentions))
	dec, err := sc.Decide("api", intentions.Caller{Service: "web", Peer: "east"}, intentions.Request{}, intentions.ACL{DefaultPolicy: intentions.Deny})
	fmt.Println(dec, err)
	// Output:
	// protocol tcp chain http trust bundles [west] intentions 1
	// denied by the default <nil>
}
