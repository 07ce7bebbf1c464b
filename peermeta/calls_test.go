package peermeta

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/chain/store"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/intentions"
)

const (
	callsTD = "11111111-2222-3333-4444-555555555555.consul"
	eastTD  = "eeeeeeee-1111-4111-8111-eeeeeeeeeeee.consul"
	westTD  = "aaaaaaaa-2222-4222-8222-aaaaaaaaaaaa.consul"
)

// callsConfig exports every service to east and api to west by its own rule; api is http,
// db tcp, admin grpc.
const callsConfig = `{"Kind":"service-defaults","Name":"api","Protocol":"http"}
{"Kind":"service-defaults","Name":"admin","Protocol":"grpc"}
{"Kind":"exported-services","Name":"default","Services":[{"Name":"*","Consumers":[{"Peer":"east"}]},{"Name":"api","Consumers":[{"Peer":"west"}]}]}
{"Kind":"service-intentions","Name":"api","Sources":[{"Name":"web","Action":"allow"},{"Name":"web","Peer":"east","Action":"allow"},
  {"Name":"billing","Peer":"west","Permissions":[{"Action":"deny","HTTP":{"PathPrefix":"/admin"}},{"Action":"allow","HTTP":{"Methods":["GET"]}}]}]}
{"Kind":"service-intentions","Name":"db","Sources":[{"Name":"web","Peer":"east","Action":"allow"},{"Name":"web","Peer":"north","Action":"allow"}]}
{"Kind":"service-intentions","Name":"admin","Sources":[{"Name":"*","Peer":"east","Action":"allow"}]}
{"Kind":"service-intentions","Name":"*","Sources":[{"Name":"web","Action":"deny"}]}
`

// newCalls reads config into the answers of a cluster in dc1 with the peerings east and west,
// whose catalog is api, db, admin, web and billing, each with a sidecar.
func newCalls(t *testing.T, config string, protocols map[string]string) *Calls {
	t.Helper()
	c, err := store.Load([]byte(config))
	require.NoError(t, err)
	sc, err := c.Sidecars(store.Cluster{TrustDomain: callsTD, Datacenter: "dc1", Protocols: protocols, Peerings: []store.Peering{
		{Name: "east", Peer: intentions.Peer{TrustDomain: eastTD, Datacenter: "dc-east"}},
		{Name: "west", Peer: intentions.Peer{TrustDomain: westTD, Partition: "part-w", Datacenter: "dc-west"}},
	}})
	require.NoError(t, err)
	x, err := exports.Compile(c.Exports...)
	require.NoError(t, err)
	var catalog []exports.ServiceName
	for _, s := range []string{"api", "db", "admin", "web", "billing"} {
		catalog = append(catalog, exports.ServiceName{Name: s})
	}
	calls, err := NewCalls(Input{Exporter: Exporter{Datacenter: "dc1", TrustDomain: callsTD}, Exports: x, Catalog: catalog, Connect: catalog, Entries: c.Entries}, sc)
	require.NoError(t, err)
	return calls
}

func TestMay(t *testing.T) {
	calls := newCalls(t, callsConfig, nil)
	deny := intentions.ACL{DefaultPolicy: intentions.Deny}
	get := intentions.Request{Method: "GET", Path: "/v1"}
	for _, tt := range []struct {
		caller, service string
		req             intentions.Request
		allowed         bool
		reachable       bool
		trusted         bool
		decision        string
		note            string // in Notes or the explanation's notes
	}{
		{"web", "api", get, true, true, true, "allowed by Intentions[0] (consul-intentions-layer4)", ""},
		{"web", "db", get, false, true, true, "denied by the default", ""},
		{"east/web", "api", get, false, true, false, "denied by the default",
			`api's sidecar has no trust bundle of "east"`},
		{"east/web", "db", intentions.Request{}, true, true, true, "allowed by Intentions[0] (consul-intentions-layer4)", ""},
		{"west/billing", "api", intentions.Request{Method: "GET", Path: "/admin/x"}, false, true, true, "denied by the default", "its first permission that fits (0) denies"},
		{"west/billing", "api", get, true, true, true, "allowed by Intentions[2], permission 1 (consul-intentions-layer7-1)", ""},
		{"west/web", "db", intentions.Request{}, false, false, false, "denied by the default", `no chain exported to "west" targets db`},
		{"east/web", "admin", get, false, true, true, "denied by the default", "which the filter strips (protocol grpc)"},
		{"east/ns1/web", "db", intentions.Request{}, false, true, true, "denied by the default", "namespace"},
	} {
		t.Run(tt.caller+" "+tt.service, func(t *testing.T) {
			caller, err := ParseCaller(tt.caller)
			require.NoError(t, err)
			call, err := calls.May(caller, tt.service, tt.req, deny)
			require.NoError(t, err)
			assert.Equal(t, tt.allowed, call.Allowed)
			assert.Equal(t, tt.reachable, call.Reachable)
			assert.Equal(t, tt.trusted, call.Trusted)
			assert.Equal(t, tt.decision, call.Explanation.Decision.String())
			if tt.note != "" {
				assert.Contains(t, strings.Join(call.Notes, "\n")+"\n"+call.Explanation.String(), tt.note)
			}
		})
	}
	call, err := calls.May(intentions.Caller{Service: "web", Peer: "east"}, "api", get, deny)
	require.NoError(t, err)
	require.NotNil(t, call.Via)
	assert.Equal(t, Reach{Service: exports.ServiceName{Partition: "default", Namespace: "default", Name: "api"}, Target: "api.default.default.dc1", Rule: 0, Union: true}, *call.Via,
		"api's own rule names west only: east reaches it through the union of the rules")

	_, err = calls.May(intentions.Caller{Service: "web", Peer: "north"}, "api", get, deny)
	assert.ErrorContains(t, err, `the cluster has no peering "north"`)
	_, err = calls.May(intentions.Caller{Service: "web"}, "apii", get, deny)
	assert.ErrorContains(t, err, `"apii": no service of the catalog`)
	_, err = calls.May(intentions.Caller{Service: "web"}, "api", intentions.Request{}, deny)
	assert.ErrorContains(t, err, "give the request's method")
}

func TestParseCaller(t *testing.T) {
	for in, want := range map[string]intentions.Caller{
		"web":              {Service: "web"},
		"east/web":         {Service: "web", Peer: "east"},
		"east/ns1/web":     {Service: "web", Peer: "east", Namespace: "ns1"},
		"east/default/web": {Service: "web", Peer: "east"},
	} {
		got, err := ParseCaller(in)
		require.NoError(t, err)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "a/b/c/d", "east/"} {
		_, err := ParseCaller(bad)
		assert.Error(t, err, bad)
	}
}

func TestCallsLint(t *testing.T) {
	config := callsConfig + `{"Kind":"service-intentions","Name":"billing","Sources":[{"Name":"web","Permissions":[{"Action":"allow","HTTP":{"PathRegex":"/a/[z"}}]}]}
{"Kind":"service-defaults","Name":"billing","Protocol":"http"}`
	calls := newCalls(t, config, map[string]string{"billing": "tcp"})
	var got []string
	for _, f := range calls.Lint(intentions.ACL{DefaultPolicy: intentions.Deny}) {
		got = append(got, f.String())
	}
	assert.Equal(t, []string{
		`NOTE SourceShadowed service-intentions * (web): it never applies on api's sidecar: Intentions[0] (web → api (9, allow)) has the same source and more precedence; Consul keeps that one only`,
		`NOTE SourceShadowed service-intentions * (web): it never applies on billing's sidecar: Intentions[0] (web → billing (9, 1 permission)) has the same source and more precedence; Consul keeps that one only`,
		`WARNING IntentionNeverMatches service-intentions admin (*@east): no caller of "east" ever matches it: peer sources are matched on the x-forwarded-client-cert header, which the filter strips (protocol grpc)`,
		`WARNING TrustBundleMissing service-intentions api (web@east): api's sidecar has no trust bundle of "east", so Consul leaves the intention out: "east" reaches api through api (Services[0]), but no service whose chain targets api is exported to "east" by its most exact rule`,
		`WARNING L7OnNetworkFilter service-intentions billing (web): billing's sidecar has protocol tcp (its chain is http): Envoy's network filter reads the permissions as a deny, whatever the request`,
		`WARNING IntentionPeerUnknown service-intentions db (web@north): the cluster has no peering "north": Consul accepts the intention, and it never applies`,
	}, got)

	calls = newCalls(t, config, nil)
	var codes []string
	for _, f := range calls.Lint(intentions.ACL{DefaultPolicy: intentions.Deny}) {
		codes = append(codes, f.Code.Name())
	}
	assert.Contains(t, codes, RegexRefused.Name(), "an http billing refuses its listener under default deny")
}

func TestDiffCalls(t *testing.T) {
	before := newCalls(t, callsConfig, nil)
	changed := strings.NewReplacer(`{"Action":"deny","HTTP":{"PathPrefix":"/admin"}},`, "",
		`{"Name":"web","Peer":"east","Action":"allow"},{"Name":"web","Peer":"north"`, `{"Name":"web","Peer":"east","Action":"deny"},{"Name":"web","Peer":"north"`)
	after := newCalls(t, changed.Replace(callsConfig), nil)
	changes := DiffCalls(before, after, intentions.ACL{DefaultPolicy: intentions.Deny}, intentions.Request{})
	var got []string
	for _, c := range changes {
		got = append(got, c.Caller.Peer+"/"+c.Caller.Service+" → "+c.Service+" "+c.Request.Method+" "+c.Request.Path+": "+c.Before.Why+" ⇒ "+c.After.Why)
	}
	assert.Equal(t, []string{
		"west/billing → api GET /admin: denied by the default ⇒ allowed by Intentions[2], permission 0 (consul-intentions-layer7-1)",
		"east/web → db GET /: allowed by Intentions[0] (consul-intentions-layer4) ⇒ denied by the default",
	}, got)
}
