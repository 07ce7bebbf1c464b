package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/clitest"
)

// TestMay: -may answers for local and peered callers, with -request, -header and
// -default-policy, explaining itself.
func TestMay(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"a peer's caller Consul's union of rules lets reach, whose intention the sidecar skips", []string{"-may", "east/frontend billing", "-default-policy", "deny"}, []string{
			"may east/frontend call billing? no (GET /)",
			"reachable through billing (target billing.default.default.dc1), exported to east by Services[0]",
			`note: billing's sidecar has no trust bundle of "east"`,
			"HTTP RBAC sees certificate spiffe://<td>/gateway/mesh/dc/dc1",
			`[1] frontend@east → billing (9, allow): no trust bundle`,
		}},
		{"a tcp chain: the caller's own certificate; *→* deny does not match a peer's caller", []string{"-may", "west/payments mysql"}, []string{
			"may west/payments call mysql? yes",
			"network RBAC sees certificate spiffe://aaaaaaaa-2222-4222-8222-aaaaaaaaaaaa.consul/ap/part-w/ns/default/dc/dc-west/svc/payments",
			"allowed by the default",
		}},
		{"a local caller", []string{"-may", "orders mysql"}, []string{
			"may orders call mysql? yes",
			"allowed by the default",
			"[0] orders → mysql (9, allow): same as the default",
		}},
		{"a request and a header", []string{"-may", "orders billing", "-request", "POST /invoices/1", "-header", "X-Tenant: a", "-default-policy", "deny"}, []string{
			"may orders call billing? no (POST /invoices/1)",
			"[0] orders → billing (9, 1 permission): no permission fits",
		}},
		{"a regular expression Envoy refuses under default allow", []string{"-may", "orders billing"}, []string{
			"may orders call billing? no (GET /)",
			`refused by Envoy: safe_regex matcher "/invoices/[0-9+" is invalid`,
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := clitest.Call(run, tt.args...)
			require.Equal(t, 0, code, errOut)
			for _, w := range tt.want {
				assert.Contains(t, out, w)
			}
		})
	}
	code, out, errOut := clitest.Call(run, "-may", "east/frontend web", "-o", "json")
	require.Equal(t, 0, code, errOut)
	var rep struct {
		Call struct {
			Allowed, Reachable bool
			Notes              []string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.False(t, rep.Call.Reachable, "web is not replicated to east: its chain fails over to another datacenter")

	for _, tt := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"-may", "east/frontend"}, 1, `peering: -may "east/frontend": want a caller and a service`},
		{[]string{"-may", "north/x mysql"}, 1, `the cluster has no peering "north"`},
		{[]string{"-may", "orders nope"}, 1, `"nope": no service of the catalog`},
		{[]string{"-default-policy", "maybe"}, 2, `-default-policy: acl.default_policy: "maybe" is not a default policy`},
		{[]string{"-request", "GET"}, 2, `peering: -request: "GET" is not a request line`},
	} {
		code, _, errOut := clitest.Call(run, tt.args...)
		assert.Equal(t, tt.code, code, tt.args)
		assert.Contains(t, errOut, tt.stderr, tt.args)
	}
}

// TestPeerings: -peerings is needed when an intention names a peer; -peer-trust-domain gives a
// peering the output names no trust domain for.
func TestPeerings(t *testing.T) {
	files := userFiles(t)
	peer := clitest.Write(t, "peer.json", `{"Kind":"service-intentions","Name":"api-v2","Sources":[{"Name":"web","Peer":"north","Action":"deny"}]}`)
	code, _, errOut := clitest.Call(run, append(files, "-config", peer)...)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `-peerings is required: the service-intentions entry of api-v2 names peer "north"`)

	peerings := clitest.Write(t, "peerings.json", `[{"Name":"north","State":"ACTIVE","Remote":{"Partition":"default","Datacenter":"dc9"}}]`)
	args := append(files, "-config", peer, "-peerings", peerings, "-peer-trust-domain", "north=9999.consul", "-may", "north/web api-v2")
	code, out, errOut := clitest.Call(run, args...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "may north/web call api-v2? no", "api, exported to north by its own rule, redirects to api-v2: its sidecar trusts north")
	assert.Contains(t, out, "network RBAC sees certificate spiffe://9999.consul/ns/default/dc/dc9/svc/web")
	assert.Contains(t, out, "reachable through api (target api-v2.default.default.dc7), exported to north by Services[0]")

	code, _, errOut = clitest.Call(run, append(files, "-peer-trust-domain", "north")...)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `-peer-trust-domain "north": want NAME=TRUST-DOMAIN, with -peerings`)
}

// TestDryRunCalls: the dry run lists the calls a change allows or denies.
func TestDryRunCalls(t *testing.T) {
	proposed := clitest.Write(t, "proposed.json", `{"Kind":"service-intentions","Name":"mysql","Sources":[{"Name":"orders","Action":"deny"}]}
{"Kind":"service-intentions","Name":"web","Sources":[{"Name":"frontend","Peer":"east","Permissions":[{"Action":"allow","HTTP":{"PathPrefix":"/admin"}}]},{"Name":"reports","Action":"deny"}]}`)
	code, out, errOut := clitest.Call(run, "-config", "sample/config.json", "-catalog", "sample/catalog.json", "-health", "sample/health-mesh-gateway.json",
		"-health", "sample/health-connect.json", "-ca-roots", "sample/ca-roots.json", "-peerings", "sample/peerings.json", "-datacenter", "dc1",
		"-new-config", proposed, "-default-policy", "deny")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, clitest.Words(out), "DRY RUN: the calls the change allows or denies, of the callers the intentions name (1) "+
		"orders → mysql GET /: allowed by Intentions[0] (consul-intentions-layer4) ⇒ denied by the default")
	assert.Contains(t, clitest.Words(out), `ERROR WriteRefused service-intentions web: chain default/default/web: peer exported service "web" contains cross-datacenter failover`,
		"writing an intentions entry, Consul's server compiles its destination's chain: web's is exported and not safe to export")
}
