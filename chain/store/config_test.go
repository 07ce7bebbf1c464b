package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/testkit"
)

// configRead is what `consul config read` prints for several kinds, one after another.
const configRead = `{"Kind":"exported-services","Name":"default","Services":[{"Name":"*","Consumers":[{"Peer":"east"}]}],"CreateIndex":18446744073709551615,"ModifyIndex":2}
{"Kind":"service-resolver","Name":"api","Redirect":{"Service":"api-v2"}}
[{"Kind":"service-defaults","Name":"api-v2","Protocol":"HTTP","MeshGateway":{"Mode":"local"},"Expose":{},"TransparentProxy":{"OutboundListenerPort":15001}},
 {"Kind":"proxy-defaults","Name":"global","Config":{"protocol":"grpc","local_connect_timeout_ms":1000},"MeshGateway":{}}]
{"Kind":"sameness-group","Name":"dr","Members":[{"Partition":"default"},{"Peer":"east"}]}
{"Kind":"service-router","Name":"web","Routes":[]}
{"Kind":"mesh","Name":"mesh","Peering":{"PeerThroughMeshGateways":true},"HTTP":{"SanitizeXForwardedClientCert":true}}
{"Kind":"service-intentions","Name":"db","Sources":[{"Name":"web","Action":"allow"}]}
{"Kind":"ingress-gateway","Name":"ingress","Listeners":[]}
`

func TestLoad(t *testing.T) {
	c, err := Load([]byte(configRead))
	require.NoError(t, err)
	require.Len(t, c.Exports, 1)
	assert.Equal(t, uint64(18446744073709551615), c.Exports[0].CreateIndex)
	require.Len(t, c.Entries.Resolvers, 1)
	assert.Equal(t, "api", c.Entries.Resolvers[0].Name)
	assert.Equal(t, map[exports.ServiceName]string{{Partition: "default", Namespace: "default", Name: "api-v2"}: "HTTP"}, c.Entries.Protocols)
	assert.Equal(t, "grpc", c.Entries.DefaultProtocol)
	require.Len(t, c.Entries.SamenessGroups, 1)
	require.Len(t, c.Entries.Routers, 1)
	var findings []string
	for _, f := range c.Findings {
		findings = append(findings, f.String())
	}
	assert.Equal(t, []string{
		`NOTE EntrySkipped value 8 (ingress-gateway ingress): not read: an ingress gateway does not change what is replicated to peers`,
	}, findings)
	require.Len(t, c.Intentions, 1)
	assert.Equal(t, "db", c.Intentions[0].Name)
	assert.Equal(t, &Mesh{SanitizeXForwardedClientCert: true}, c.Mesh)
	_, err = chain.NewCompiler(c.Entries)
	require.NoError(t, err, "what LoadConfig gives compiles")

	bom, err := Load([]byte("\uFEFF" + configRead))
	require.NoError(t, err, "a UTF-8 byte-order mark is accepted")
	assert.Equal(t, c.Entries.DefaultProtocol, bom.Entries.DefaultProtocol)
}

func TestLoadErrors(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     []string
	}{
		{"a misspelt kind", `{"Kind":"service-resolvr","Name":"api"}`, []string{
			`value 1 (service-resolvr api): Kind: "service-resolvr" is not a kind of Consul config entry (did you mean "service-resolver"?)`}},
		{"no kind", `{"Name":"api"}` + "\n" + `{}`, []string{
			"value 1 (no Kind: api): Kind: is required: every entry `consul config read` prints has one",
			"value 2 (no Kind): Kind: is required: every entry `consul config read` prints has one"}},
		{"not an object", `[1]`, []string{`value 1, [0]: a config entry must be an object, got the number 1`}},
		{"the packages' own checks", `{"Kind":"exported-services","Name":"default","Services":[{"Name":"api","Consumers":[{"Peers":"north"}]}]}
{"Kind":"service-resolver","Name":"b","ConnectTimeout":"soon"}`, []string{
			`value 1 (exported-services default): Services[0].Consumers[0]: unknown field "Peers" (did you mean "Peer"?)`,
			`value 2 (service-resolver b): ConnectTimeout: "soon" is not a duration such as "5s"`}},
		{"service-defaults read strictly", `{"Kind":"service-defaults","Name":"api","Protcol":"http","MeshGateway":{"Mode":"local"}}
{"Kind":"service-defaults","Name":"*","Protocol":7,"Meta":{"a":1}}`, []string{
			`value 1 (service-defaults api): (top level): unknown field "Protcol" (did you mean "Protocol"?)`,
			`value 2 (service-defaults *): Protocol: must be a string, got the number 7`,
			`value 2 (service-defaults *): Meta["a"]: must be a string, got the number 1`,
			`value 2 (service-defaults *): Name: service-defaults name must be the name of a service, and not a wildcard`}},
		{"a key given twice", `{"Kind":"service-defaults","Name":"api","Protocol":"http","Protocol":"tcp"}`, []string{
			`Protocol: given twice`}},
		{"two spellings of one field", `{"Kind":"service-defaults","Name":"api","Protocol":"http","protocol":"tcp"}`, []string{
			`value 1 (service-defaults api): (top level): field given twice, as "Protocol" and "protocol"`}},
		{"proxy-defaults", `{"Kind":"proxy-defaults","Name":"globl","Partition":"ap1","Config":{"protocol":["http"]},"AccesLogs":{}}`, []string{
			`value 1 (proxy-defaults globl): (top level): unknown field "AccesLogs" (did you mean "AccessLogs"?)`,
			`value 1 (proxy-defaults globl): Config.protocol: must be a string, got a list`,
			`value 1 (proxy-defaults globl): Name: invalid name ("globl"), only "global" is supported`,
			`value 1 (proxy-defaults globl): Partition: a proxy-defaults entry of partition "ap1": meshscope models the default partition's proxy-defaults only, and would give every partition's services its protocol`}},
		{"an entry given twice", `{"Kind":"service-defaults","Name":"api","Protocol":"http"}
{"Kind":"service-defaults","Name":"api","Namespace":"default","Protocol":"tcp"}
{"Kind":"service-resolver","Name":"api"}
{"Kind":"service-resolver","Name":"api","Partition":"default"}`, []string{
			`value 2 (service-defaults api): a second service-defaults entry for api; the first is value 1 (service-defaults api)`,
			`value 4 (service-resolver api): a second service-resolver entry for api; the first is value 3 (service-resolver api)`}},
		{"empty", ``, []string{`no JSON value: the input is empty`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load([]byte(tt.in))
			testkit.ErrLines(t, err, tt.want)
		})
	}
}

func TestConfigAddAndReplace(t *testing.T) {
	var c Config
	require.NoError(t, c.Add("a.json", []byte(`{"Kind":"service-resolver","Name":"api","ConnectTimeout":"1s"}
{"Kind":"service-defaults","Name":"api","Protocol":"http"}
{"Kind":"proxy-defaults","Name":"global","Config":{"protocol":"http"}}`)))
	err := c.Add("b.json", []byte(`{"Kind":"service-resolver","Name":"api"}
{"Kind":"service-resolver","Name":"web"}`))
	assert.EqualError(t, err, `b.json: value 1 (service-resolver api): a second service-resolver entry for api; the first is a.json: value 1 (service-resolver api)`)
	assert.Len(t, c.Entries.Resolvers, 1, "a failed Add changes nothing")
	require.NoError(t, c.Add("b.json", []byte(`{"Kind":"service-resolver","Name":"web"}
{"Kind":"api-gateway","Name":"edge"}`)))
	assert.Len(t, c.Entries.Resolvers, 2)
	require.Len(t, c.Findings, 1)
	assert.Equal(t, "b.json: value 2 (api-gateway edge)", c.Findings[0].Path)

	p, err := Load([]byte(`{"Kind":"service-resolver","Name":"api","Redirect":{"Service":"api-v2"}}
{"Kind":"proxy-defaults","Name":"global"}`))
	require.NoError(t, err)
	after := c.Replace(p)
	require.Len(t, after.Entries.Resolvers, 2)
	assert.Equal(t, "web", after.Entries.Resolvers[0].Name)
	assert.Equal(t, "api-v2", after.Entries.Resolvers[1].Redirect.Service, "the proposed resolver replaces the one of the same service")
	assert.Empty(t, after.Entries.DefaultProtocol, "a proposed proxy-defaults without a protocol replaces one with")
	assert.Equal(t, "http", after.Entries.Protocols[exports.ServiceName{Partition: "default", Namespace: "default", Name: "api"}])
	assert.Equal(t, "http", c.Entries.DefaultProtocol, "the current configuration is unchanged")
}

func FuzzLoad(f *testing.F) {
	f.Add([]byte(configRead))
	f.Add([]byte("\uFEFF" + `[{"Kind":"proxy-defaults","Name":"global","Config":{"Protocol":"http"}},{"Kind":"service-defaults","Name":"a","protocol":"tcp"}]`))
	f.Add([]byte(`{"Kind":"service-resolvr","Name":"api"} {"Kind":"mesh"} {"Name":"x"}`))
	f.Add([]byte(`{"Kind":"service-defaults","Name":"api","Protocol":"http","Protocol":"tcp"}`))
	f.Add([]byte(`{"Kind":"exported-services","Name":"default","Services":[{"Name":"*","Consumers":[{"SamenessGroup":"g"}]}]}
{"Kind":"sameness-group","Name":"g","Members":[{"Peer":"east"}]} {"Kind":"sameness-group","Name":"g","Members":[{"Peer":"west"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Load(data)
		if err != nil {
			if len(c.Exports)+len(c.Entries.Resolvers)+len(c.Findings) > 0 {
				t.Fatalf("a failed load returned entries")
			}
			return
		}
		for i := range c.Entries.Resolvers {
			if err := c.Entries.Resolvers[i].Validate(); err != nil {
				t.Fatalf("an invalid resolver was loaded: %v", err)
			}
		}
		for i := range c.Exports {
			if err := c.Exports[i].Validate(); err != nil {
				t.Fatalf("an invalid exported-services entry was loaded: %v", err)
			}
		}
		again := c.Replace(Config{})
		if len(again.Entries.Resolvers) != len(c.Entries.Resolvers) || again.Entries.DefaultProtocol != c.Entries.DefaultProtocol {
			t.Fatalf("replacing nothing changed the configuration")
		}
	})
}
