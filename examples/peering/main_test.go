package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/peermeta"
)

func runArgs(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut strings.Builder
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestSample(t *testing.T) {
	code, out, errOut := runArgs(t)
	require.Equal(t, 0, code, errOut)
	for _, want := range []string{
		"PEER east: from partition default, datacenter dc1, trust domain <td> = 11111111-2222-3333-4444-555555555555.consul",
		"default/default/mysql          tcp       mysql.default.default.east.external.<td>          spiffe://<td>/ns/default/dc/dc1/svc/mysql",
		`spiffe://<td>/ns/default/dc/dc1/svc/mysql-standby  target mysql-standby.default.default.dc1 (Failover["*"] of default/default/mysql)`,
		`NOT REPLICATED default/default/orders: service "orders-v2" does not have a subset named "canary"`,
		"EXCLUDED default/default/legacy: its chain reaches the reserved consul service",
		"default/default/billing        grpc      billing.default.default.west.external.<td>",
	} {
		assert.Contains(t, out, want)
	}
	east, _, _ := strings.Cut(out, "PEER west")
	assert.NotContains(t, east, "billing", "billing is exported to west only")
}

func TestJSON(t *testing.T) {
	code, out, errOut := runArgs(t, "-o", "json", "-peer", "west", "-trust-domain", "peer.consul", "-datacenter", "dc9")
	require.Equal(t, 0, code, errOut)
	var reps []peermeta.Replication
	require.NoError(t, json.Unmarshal([]byte(out), &reps))
	require.Len(t, reps, 1)
	assert.Equal(t, "billing.default.default.west.external.peer.consul", reps[0].Services[0].PeerMeta.PrimarySNI())
	assert.Contains(t, out, `"SpiffeID": [`)
	assert.Contains(t, out, `"spiffe://peer.consul/gateway/mesh/dc/dc9"`)
	assert.Contains(t, out, `"Kind": "connect-proxy"`)
}

func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

func TestUserFiles(t *testing.T) {
	exp := write(t, "exp.json", `{"Kind":"exported-services","Name":"default","Services":[{"Name":"api","Consumers":[{"Peer":"north"}]}]}`)
	// Two `consul config read` outputs, one after the other.
	res := write(t, "res.json", `{"Kind":"service-resolver","Name":"api","Redirect":{"Service":"api-v2"}}
{"Kind":"service-resolver","Name":"api-v2","Failover":{"*":{"Datacenters":["dc2"]}}}`)
	cat := write(t, "cat.json", `{"Services":[{"Name":"api"},{"Name":"api-v2"}],"Gateways":[]}`)
	code, out, errOut := runArgs(t, "-exports", exp, "-resolvers", res, "-catalog", cat)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "PEER north")
	assert.Contains(t, out, "spiffe://<td>/ns/default/dc/dc2/svc/api-v2")
}

func TestErrors(t *testing.T) {
	exp := write(t, "exp.json", `{"Name":"default","Services":[{"Name":"api","Consumers":[{"Peers":"north"}]}]}`)
	code, _, errOut := runArgs(t, "-exports", exp)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, exp+`: value 1: Services[0].Consumers[0]: unknown field "Peers" (did you mean "Peer"?)`)

	exp2 := write(t, "exp2.json", `{"Name":"default","Services":[{"Name":"api","Consumers":[{"Peer":"*"}]}]}`)
	code, _, errOut = runArgs(t, "-exports", exp2)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, exp2+`: entries[0] ("default"): Services[0].Consumers[0]: exporting to all peers (wildcard) is not supported`)

	res := write(t, "res.json", `[{"Name":"a"},{"Name":"b","ConnectTimeout":"soon"}]`)
	code, _, errOut = runArgs(t, "-resolvers", res)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, res+`: value 1, [1]: ConnectTimeout: "soon" is not a duration such as "5s"`)

	res2 := write(t, "res2.json", `{"Name":"a","Redirect":{}}`)
	code, _, errOut = runArgs(t, "-resolvers", res2)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, res2+`: Resolvers[0] (default/default/a): Redirect: Redirect is empty`)

	cat := write(t, "cat.json", `{"Services":[{"Name":"a","Proto":"http"},{"Namespace":"x"}]}`)
	code, _, errOut = runArgs(t, "-catalog", cat)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, cat+`: Services[0]: unknown field "Proto" (did you mean "Protocol"?)`)
	assert.Contains(t, errOut, cat+`: Services[1]: Name: must not be empty`)

	code, _, errOut = runArgs(t, "-peer", "Bad")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `Exporter.Peer: "Bad" must be lower case`)

	code, _, _ = runArgs(t, "-o", "yaml")
	assert.Equal(t, 2, code)
}
