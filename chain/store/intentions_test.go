package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// l7 is an entry giving permissions to the destination named.
func l7(name string) string {
	return `{"Kind":"service-intentions","Name":"` + name + `","Sources":[{"Name":"web","Permissions":[{"Action":"deny","HTTP":{"PathPrefix":"/admin"}}]}]}`
}

// TestApplyIntentions: how Consul's server judges service-intentions entries, and the writes
// that change the chains of their destinations.
func TestApplyIntentions(t *testing.T) {
	for _, tt := range []struct {
		name, writes string
		want         []string
	}{{
		"permissions on a tcp destination", l7("api") + `
{"Kind":"service-defaults","Name":"api","Protocol":"http"}` + l7("api") + `
{"Kind":"service-intentions","Name":"db","Sources":[{"Name":"web","Action":"allow"}]}`,
		[]string{
			`service-intentions api: refused (store): service "api" has protocol "tcp", which is incompatible with L7 intentions permissions`,
			"service-defaults api: accepted",
			"service-intentions api: accepted",
			"service-intentions db: accepted",
		},
	}, {
		"a later write would make the destination tcp, in the same words", `{"Kind":"proxy-defaults","Name":"global","Config":{"protocol":"http"}}` +
			l7("b") + l7("a") + `{"Kind":"service-defaults","Name":"b","Protocol":"tcp"}
{"Kind":"proxy-defaults","Name":"global","Config":{"protocol":"tcp"}}
{"Kind":"service-defaults","Name":"a","Protocol":"grpc"}
{"Kind":"proxy-defaults","Name":"global","Config":{"protocol":"tcp"}}`,
		[]string{
			"proxy-defaults global: accepted",
			"service-intentions b: accepted",
			"service-intentions a: accepted",
			`service-defaults b: refused (store): service-intentions b: service "b" has protocol "tcp", which is incompatible with L7 intentions permissions`,
			`proxy-defaults global: refused (store): service-intentions a: service "a" has protocol "tcp", which is incompatible with L7 intentions permissions; ` +
				`service-intentions b: service "b" has protocol "tcp", which is incompatible with L7 intentions permissions`,
			"service-defaults a: accepted",
			`proxy-defaults global: refused (store): service-intentions b: service "b" has protocol "tcp", which is incompatible with L7 intentions permissions`,
		},
	}, {
		"a wildcard destination and a deletion are never judged against a chain", `{"Kind":"service-intentions","Name":"*","Sources":[{"Name":"web","Action":"deny"}]}`,
		[]string{"service-intentions *: accepted"},
	}, {
		// Without an intentions entry for d, Consul's server does not compile d's chain to judge
		// a write two hops away (y's), and the write breaks it; with one, it does.
		"a write two hops away from a destination's chain", `{"Kind":"service-resolver","Name":"d","Redirect":{"Service":"x"}}
{"Kind":"service-resolver","Name":"x","Redirect":{"Service":"y"}}
{"Kind":"service-intentions","Name":"d","Sources":[{"Name":"web","Action":"allow"}]}
{"Kind":"service-defaults","Name":"y","Protocol":"grpc"}
{"Kind":"service-intentions","Name":"d","Sources":[{"Name":"web","Action":"allow"}],"Meta":{"deleted":"no"}}`,
		[]string{
			"service-resolver d: accepted",
			"service-resolver x: accepted",
			"service-intentions d: accepted",
			`service-defaults y: refused (store): chain default/default/d: discovery chain "d" uses inconsistent protocols; service "y" has "grpc" which is not "tcp"; ` +
				`chain default/default/x: discovery chain "x" uses inconsistent protocols; service "y" has "grpc" which is not "tcp"`,
			"service-intentions d: accepted",
		},
	}, {
		"an intentions entry is decoded and validated as Consul does", `{"Kind":"service-intentions","Name":"api","Namespace":"ns1","Sources":[{"Name":"web","Action":"allow"}]}
{"Kind":"service-intentions","Name":"api","Sources":[{"Name":"web","Action":"allow"},{"Name":"web","Action":"deny"}]}`,
		[]string{
			"service-intentions ns1/api: refused (decode): 1 error occurred:\n\t* invalid config key \"Namespace\", namespaces are a consul enterprise feature\n\n",
			`service-intentions api: refused (validate): Sources[1]: Sources[1] defines "web" more than once`,
		},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			var c Config
			outs, err := c.Apply([]byte(tt.writes))
			require.NoError(t, err)
			assert.Equal(t, tt.want, outcomes(outs))
		})
	}
}

func TestApplyMesh(t *testing.T) {
	var c Config
	outs, err := c.Apply([]byte(`{"Kind":"mesh","HTTP":{"SanitizeXForwardedClientCert":true,"Incoming":{}},"TLS":{"Incoming":{"TLSMinVersion":"TLSv1_2"}}}
{"Kind":"mesh","Partition":"ap1"}
{"Kind":"mesh","HTTP":{"SanitizeXForwardedClientCerts":true}}`))
	require.NoError(t, err)
	assert.Equal(t, []string{
		"mesh: accepted",
		`mesh ap1: refused (validate): Partition: a mesh entry of partition "ap1": meshscope models the default partition's mesh entry only, and would give its settings to every partition's sidecars`,
		`mesh: refused (decode): HTTP: unknown field "SanitizeXForwardedClientCerts" (did you mean "SanitizeXForwardedClientCert"?)`,
	}, outcomes(outs))
	assert.Equal(t, &Mesh{SanitizeXForwardedClientCert: true}, c.Mesh)
}
