package store

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
)

// outcomes renders each outcome on its line.
func outcomes(outs []WriteOutcome) []string {
	var s []string
	for _, o := range outs {
		s = append(s, o.String())
	}
	return s
}

func TestApply(t *testing.T) {
	c, err := Load([]byte(`{"Kind":"service-resolver","Name":"api","ConnectTimeout":"1s"}
{"Kind":"service-defaults","Name":"api","Protocol":"http"}`))
	require.NoError(t, err)
	kept := c
	outs, err := c.Apply([]byte("\ufeff" + `[{"Kind":"service-resolver","Name":"api","ConnectTimeout":"2s"},
 {"Kind":"service-defaults","Name":"web","Protocol":"http"},
 {"Kind":"service-resolver","Name":"web","Redirect":{"Service":"api"}}]
{"Kind":"service-resolver","Name":"api","Protocol":"http"}
{"Kind":"service-router","Name":"web","Routes":[]}
{"Kind":"serviceresolver","Name":"x"}
{"Kind":"service-resolver","Name":"x","Redirect":{}}`))
	require.NoError(t, err)
	assert.Equal(t, []string{
		"service-resolver api: accepted",
		"service-defaults web: accepted",
		"service-resolver web: accepted",
		`service-resolver api: refused (decode): (top level): unknown field "Protocol"`,
		"service-router web: accepted",
		`serviceresolver x: refused (decode): Kind: "serviceresolver" is not a kind of Consul config entry (did you mean "service-resolver"?)`,
		"service-resolver x: refused (validate): Redirect: Redirect is empty",
	}, outcomes(outs))
	require.Len(t, c.Entries.Resolvers, 2)
	assert.Equal(t, "2s", c.Entries.Resolvers[0].ConnectTimeout.String(), "an accepted entry replaces the stored one, in its place")
	assert.Equal(t, "web", c.Entries.Resolvers[1].Name)
	assert.Len(t, c.Entries.Protocols, 2)
	assert.Empty(t, c.Findings)
	require.Len(t, c.Entries.Routers, 1, "a router is judged and stored like a resolver")
	assert.Equal(t, "web", c.Entries.Routers[0].Name)
	assert.Equal(t, "1s", kept.Entries.Resolvers[0].ConnectTimeout.String(), "a copy made before Apply keeps what it held")
	assert.Len(t, kept.Entries.Protocols, 1)

	err = c.Add("more.json", []byte(`{"Kind":"service-resolver","Name":"web"}`))
	assert.ErrorContains(t, err, "a second service-resolver entry for web; the first is value 1, [2] of an Apply")
}

func TestApplyErrors(t *testing.T) {
	for _, tt := range []struct{ name, in, err string }{
		{"not JSON", `{"Kind":`, "unexpected end"},
		{"empty", ``, "no JSON value: the input is empty"},
		{"not an object", `[{"Kind":"service-defaults","Name":"a"}, 3]`, "value 1, [1]: a config entry must be an object, got the number 3"},
		{"no Kind", `{"Kind":"service-defaults","Name":"a"} {"Name":"b"}`, "value 2: Kind: is required"},
		{"a Kind that is not a string", `{"Kind":7}`, "value 1: Kind: must be a string, got the number 7"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load([]byte(`{"Kind":"service-defaults","Name":"api","Protocol":"http"}`))
			require.NoError(t, err)
			before := fmt.Sprint(c)
			outs, err := c.Apply([]byte(tt.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
			assert.Nil(t, outs)
			assert.Equal(t, before, fmt.Sprint(c), "c is as it was")
		})
	}
	c := Config{}
	c.Entries.Protocols = map[exports.ServiceName]string{{Name: "a"}: "http", {Partition: "default", Name: "a"}: "tcp"}
	_, err := c.Apply([]byte(`{"Kind":"proxy-defaults","Name":"global"}`))
	assert.ErrorContains(t, err, `the configuration holds an entry twice: Entries.Protocols: ["default//a"]: a second service-defaults entry for a`)
	c = Config{}
	c.Entries.Resolvers = []chain.ServiceResolver{{Name: "a"}, {Name: "b"}, {Name: "a", Namespace: "default"}}
	_, err = c.Apply([]byte(`{"Kind":"proxy-defaults","Name":"global"}`))
	assert.ErrorContains(t, err, "the configuration holds an entry twice: Entries.Resolvers[2] (service-resolver a): Name: a second service-resolver entry for a")
}

// TestApplyStore: what Consul's server refuses when it stores a write, kind by kind.
func TestApplyStore(t *testing.T) {
	for _, tt := range []struct {
		name   string
		writes string
		want   []string
	}{
		{"proxy-defaults recompiles every chain",
			`{"Kind":"proxy-defaults","Name":"global","Config":{"protocol":"http"}}
{"Kind":"service-defaults","Name":"web","Protocol":"http"}
{"Kind":"service-resolver","Name":"web","Redirect":{"Service":"api"}}
{"Kind":"proxy-defaults","Name":"global","Config":{"protocol":"tcp"}}`,
			[]string{"proxy-defaults global: accepted", "service-defaults web: accepted", "service-resolver web: accepted",
				`proxy-defaults global: refused (store): chain default/default/web: discovery chain "web" uses inconsistent protocols; service "api" has "tcp" which is not "http"`}},
		{"an exact export to a peer checks the chain's safety",
			`{"Kind":"service-resolver","Name":"db","Redirect":{"Datacenter":"dc2"}}
{"Kind":"exported-services","Name":"default","Services":[{"Name":"db","Consumers":[{"Partition":"ap1"}]}]}
{"Kind":"exported-services","Name":"default","Services":[{"Name":"db","Consumers":[{"Peer":"east"}]}]}`,
			[]string{"service-resolver db: accepted", "exported-services default: accepted",
				`exported-services default: refused (store): chain default/default/db: peer exported service "db" contains cross-datacenter resolver redirect`}},
		{"a * export to a peer covers the namespace's resolvers, by the union of the rules",
			`{"Kind":"service-resolver","Name":"db","Redirect":{"Service":"db","Peer":"west"}}
{"Kind":"exported-services","Name":"default","Services":[{"Name":"db","Consumers":[{"Partition":"ap1"}]},{"Name":"*","Consumers":[{"Peer":"east"}]}]}`,
			[]string{"service-resolver db: accepted",
				`exported-services default: refused (store): chain default/default/db: peer exported service "db" contains cross-peer resolver redirect`}},
		{"a sameness group with a peer member exports to a peer",
			`{"Kind":"sameness-group","Name":"g","Members":[{"Peer":"east"}]}
{"Kind":"exported-services","Name":"default","Services":[{"Name":"db","Consumers":[{"SamenessGroup":"g"}]}]}
{"Kind":"service-resolver","Name":"db","Failover":{"*":{"Datacenters":["dc2"]}}}`,
			[]string{"sameness-group g: accepted", "exported-services default: accepted",
				`service-resolver db: refused (store): chain default/default/db: peer exported service "db" contains cross-datacenter failover`}},
		{"an exported tcp chain gains no target with a new identity outside its failover",
			`{"Kind":"exported-services","Name":"default","Services":[{"Name":"db","Consumers":[{"Peer":"east"}]}]}
{"Kind":"service-resolver","Name":"db","Failover":{"*":{"Service":"db2"}}}
{"Kind":"service-resolver","Name":"db","Redirect":{"Service":"db2"}}
{"Kind":"service-defaults","Name":"db","Protocol":"http"}
{"Kind":"service-resolver","Name":"db","Redirect":{"Service":"db3"}}`,
			[]string{"exported-services default: accepted", "service-resolver db: accepted",
				`service-resolver db: refused (store): chain default/default/db: peer exported service "db" uses protocol="tcp" and cannot introduce new discovery chain targets like "db2.default.default.dc1"`,
				`service-defaults db: refused (store): chain default/default/db: discovery chain "db" uses inconsistent protocols; service "db2" has "tcp" which is not "http"`,
				`service-resolver db: refused (store): chain default/default/db: peer exported service "db" uses protocol="tcp" and cannot introduce new discovery chain targets like "db3.default.default.dc1"`}},
		{"a sameness group that shares a member is refused before any chain",
			`{"Kind":"sameness-group","Name":"g","Members":[{"Partition":"ap1"}]}
{"Kind":"sameness-group","Name":"h","Members":[{"Partition":"ap1"}]}`,
			[]string{"sameness-group g: accepted",
				`sameness-group h: refused (store): SamenessGroups[1] (default/h): Members: members can only belong to a single sameness group, but partition "ap1" is shared between groups "g" and "h"`}},
		{"a chain that names a missing sameness group",
			`{"Kind":"service-resolver","Name":"db","Failover":{"*":{"SamenessGroup":"g"}}}`,
			[]string{`service-resolver db: refused (store): chain default/default/db: sameness group missing for service "db"`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var c Config
			outs, err := c.Apply([]byte(tt.writes))
			require.NoError(t, err)
			assert.Equal(t, tt.want, outcomes(outs))
		})
	}
}

// heldKinds returns the kinds the store models that c holds entries of, in the order Config
// lists them.
func heldKinds(c *Config) []string {
	var out []string
	for _, k := range []struct {
		kind string
		has  bool
	}{{kindExportedServices, len(c.Exports) > 0}, {kindServiceResolver, len(c.Entries.Resolvers) > 0},
		{kindServiceRouter, len(c.Entries.Routers) > 0}, {kindServiceSplitter, len(c.Entries.Splitters) > 0},
		{kindSamenessGroup, len(c.Entries.SamenessGroups) > 0}, {kindServiceDefaults, len(c.Entries.Protocols) > 0},
		{kindProxyDefaults, c.proxyDefaults || c.Entries.DefaultProtocol != ""}, {kindServiceIntentions, len(c.Intentions) > 0},
		{kindMesh, c.Mesh != nil}} {
		if k.has {
			out = append(out, k.kind)
		}
	}
	return out
}

func TestConfigKinds(t *testing.T) {
	c, err := Load([]byte(configRead))
	require.NoError(t, err)
	assert.Equal(t, []string{"exported-services", "service-resolver", "service-router", "sameness-group", "service-defaults", "proxy-defaults",
		"service-intentions", "mesh"}, heldKinds(&c))
	assert.Empty(t, heldKinds(&Config{}))

}

func FuzzApply(f *testing.F) {
	f.Add([]byte(configRead))
	f.Add([]byte(`[{"Kind":"service-resolver","Name":"a","Redirect":{"Service":"b"}},{"Kind":"service-resolver","Name":"b","Redirect":{"Service":"a"}}]`))
	f.Add([]byte(`{"Kind":"exported-services","Name":"default","Services":[{"Name":"*","Namespace":"*","Consumers":[{"Peer":"east"}]}]} {"kind":"proxy-defaults","name":""}`))
	addRandomSeeds(f, 1)
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Config
		outs, err := c.Apply(data)
		if err != nil {
			if len(heldKinds(&c))+len(c.Findings) > 0 {
				t.Fatal("Apply failed and changed c")
			}
			return
		}
		for _, o := range outs {
			if o.Accepted == (o.Stage != "") || o.Accepted == (len(o.Reasons) > 0) {
				t.Fatalf("an outcome at odds with itself: %#v", o)
			}
			if strings.Contains(strings.Join(o.Reasons, " "), "Go struct") {
				t.Fatalf("a reason naming Go types: %v", o.Reasons)
			}
		}
		// What Apply stored is what a server holds: every entry valid, and writing it all
		// again, in one go, changes nothing.
		var again Config
		for _, e := range []any{c.Exports, c.Entries.Resolvers, c.Entries.Routers, c.Entries.Splitters, c.Entries.SamenessGroups, c.Intentions} {
			b, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := again.Apply(b); err != nil && !strings.Contains(err.Error(), "no JSON value") && string(b) != "null" {
				t.Fatalf("what Apply stored does not read back: %v\n%s", err, b)
			}
		}
	})
}
