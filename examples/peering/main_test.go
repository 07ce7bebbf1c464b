package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runArgs(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut strings.Builder
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func write(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

func TestSample(t *testing.T) {
	code, out, errOut := runArgs(t)
	require.Equal(t, 0, code, errOut)
	for _, want := range []string{
		"trust domain <td> = 11111111-2222-3333-4444-555555555555.consul, datacenter dc1, partition default",
		"default/default/mysql      tcp       mysql.default.default.dc1      3           2 (1 passing, 1 warning)",
		"default/default/inventory  tcp       inventory.default.default.dc1  3",
		"PLAIN (not connect services: replicated without a chain): default/default/mysql-standby, default/default/orders-v2, default/default/reports",
		`NOT REPLICATED default/default/orders: service "orders-v2" does not have a subset named "canary"`,
		`NOT REPLICATED default/default/web: peer exported service "web" contains cross-datacenter failover`,
		"EXCLUDED default/default/legacy: its chain reaches the reserved consul service",
		"default/default/billing  grpc      billing.default.default.dc1  2",
		"NOTE Consul would also replicate inventory to west via Services[0]; meshscope applies only the most exact rule (Services[3])",
	} {
		assert.Contains(t, words(out), words(want))
	}
	east, west, _ := strings.Cut(out, "PEER west")
	assert.NotContains(t, strings.Split(east, "NOTE")[0], "billing", "billing is exported to west only")
	assert.NotContains(t, west, "inventory  tcp", "inventory goes to the sameness group's members: ap2 and east")
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "SERVICE") || strings.HasPrefix(line, "default/") {
			assert.LessOrEqual(t, len(line), 120, "the table fits 120 columns: %q", line)
		}
	}
}

func TestWideAndExplain(t *testing.T) {
	code, out, errOut := runArgs(t, "-wide", "-peer", "east", "-explain", "inventory")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "accept spiffe://<td>/ap/ap2/ns/default/dc/dc1/svc/inventory  (target inventory.default.ap2.dc1 by Failover[\"*\"] of default/default/inventory)",
		"tcp PeerMeta carries the partition member's identity")
	assert.Contains(t, out, "instance inventory-sidecar-proxy-instance-0 on gw-1 10.0.1.10:8443, passing")
	assert.Contains(t, out, "exported to partition ap2 (sameness group dr), peer east (sameness group dr)")
	assert.Contains(t, out, `Failover["*"] of default/default/inventory -> sameness group dr, member peer east -> inventory.default.default.external.east`)
	assert.Contains(t, out, "export to a peer: safe")

	code, _, errOut = runArgs(t, "-explain", "nope")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `-explain "nope": no such service in the catalog or the resolvers; services: default/default/billing`)
}

func TestJSON(t *testing.T) {
	code, out, errOut := runArgs(t, "-o", "json", "-peer", "west")
	require.Equal(t, 0, code, errOut)
	var rep struct {
		Peers []struct {
			Services []struct {
				PeerMeta struct{ SNI []string }
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Len(t, rep.Peers, 1)
	assert.Equal(t, "billing.default.default.west.external.11111111-2222-3333-4444-555555555555.consul", rep.Peers[0].Services[0].PeerMeta.SNI[0])
	assert.Contains(t, out, `"Kind": "connect-proxy"`)
	assert.Contains(t, out, `"Error": "peer exported service \"web\" contains cross-datacenter failover"`)
}

// userFiles writes a small cluster as Consul's commands print it.
func userFiles(t *testing.T) []string {
	t.Helper()
	config := write(t, "config.json", `{"Kind":"exported-services","Name":"default","Services":[{"Name":"api","Consumers":[{"Peer":"north"}]},{"Name":"*","Consumers":[{"Peer":"south"}]}],"CreateIndex":18446744073709551615,"ModifyIndex":2}
{"Kind":"service-resolver","Name":"api","Redirect":{"Service":"api-v2"}}
{"Kind":"service-defaults","Name":"api-v2","Protocol":"tcp","MeshGateway":{"Mode":"local"},"Expose":{}}
{"Kind":"proxy-defaults","Name":"global","Config":{"protocol":"tcp","local_connect_timeout_ms":1000}}`)
	catalog := write(t, "catalog.json", `{"api": ["v1"], "api-v2": [], "consul": [], "batch": []}`)
	gateways := write(t, "gateways.json", `[{"Node":{"Node":"gw","Address":"10.0.0.9","Datacenter":"dc7","CreateIndex":9},"Service":{"Kind":"mesh-gateway","ID":"mesh-gateway","Service":"mesh-gateway","Port":8443,"Weights":{"Passing":1}},"Checks":[{"Node":"gw","CheckID":"serfHealth","Status":"passing","Type":""}]}]`)
	connect := write(t, "connect.json", `[{"Node":{"Node":"n1","Address":"10.0.1.1"},"Service":{"Kind":"connect-proxy","ID":"api-v2-sidecar-proxy","Service":"api-v2-sidecar-proxy","Proxy":{"DestinationServiceName":"api-v2"}},"Checks":[]}]
[{"Node":{"Node":"n2","Address":"10.0.1.2"},"Service":{"ID":"native","Service":"batch","Connect":{"Native":true}},"Checks":[]}]`)
	roots := write(t, "roots.json", `{"ActiveRootID":"x","TrustDomain":"abcd.consul","Roots":[]}`)
	return []string{"-config", config, "-catalog", catalog, "-health", gateways, "-health", connect, "-ca-roots", roots, "-datacenter", "dc7"}
}

func TestConsulNativeInput(t *testing.T) {
	code, out, errOut := runArgs(t, append(userFiles(t), "-wide")...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "trust domain <td> = abcd.consul, datacenter dc7")
	assert.Contains(t, out, "PEER north")
	assert.Contains(t, out, "default/default/api  tcp       api-v2.default.default.dc7")
	assert.Contains(t, out, "accept spiffe://<td>/ns/default/dc/dc7/svc/api-v2  (target api-v2.default.default.dc7 by Redirect of default/default/api)")
	assert.Contains(t, out, "default/default/batch", "a connect-native instance makes a connect service")
	south := out[strings.Index(out, "PEER south"):]
	assert.Contains(t, south, "default/default/api-v2")

	// A directory of entries, mixed.
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.json"), []byte(`[{"Kind":"service-resolver","Name":"api","Redirect":{"Service":"api-v2"}}]`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.json"), []byte(`{"Kind":"exported-services","Name":"default","Services":[{"Name":"api","Consumers":[{"Peer":"north"}]}]}`), 0o600))
	code, out, errOut = runArgs(t, "-config", dir, "-trust-domain", "abcd.consul", "-datacenter", "dc7")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "PEER north")
	assert.Contains(t, out, "default/default/api  tcp       api-v2.default.default.dc7  3           0\n", "a resolver makes api a connect service")
	assert.Contains(t, out, "WARNING no mesh gateway instances")
}

func TestRefusesToGuess(t *testing.T) {
	files := userFiles(t)
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no trust domain with your own input", []string{"-config", files[1], "-datacenter", "dc1"}, 1, "the trust domain is required with your own input: -ca-roots"},
		{"no datacenter with your own input", []string{"-config", files[1], "-trust-domain", "x.consul"}, 1, "-datacenter is required with your own input"},
		{"an unknown peer", append(files, "-peer", "nowhere"), 1, `-peer "nowhere": the exported-services entry of partition "default" names no such peer; it names: north, south`},
		{"an unknown partition", append(files, "-partition", "retail"), 1, `-partition "retail" has no exported-services entry; partitions with one: default`},
		{"a positional argument", []string{"config.json"}, 2, `unexpected argument "config.json": every input is given with a flag`},
		{"an unknown flag", []string{"-cluster-id", "x"}, 2, "flag provided but not defined: -cluster-id"},
		{"a bad output format", []string{"-o", "yaml"}, 2, "-o must be table or json"},
		{"a bad -fail-on", []string{"-fail-on", "info"}, 2, "is not a level: want note, warning or error"},
		{"a resolver in -exports", []string{"-exports", files[1], "-trust-domain", "x.consul", "-datacenter", "dc1"}, 1, `holds a "service-resolver" entry; this flag reads exported-services entries`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runArgs(t, tt.args...)
			assert.Equal(t, tt.code, code)
			assert.Contains(t, errOut, tt.msg)
		})
	}
	code, out, errOut := runArgs(t, "-h")
	assert.Equal(t, 0, code)
	assert.Empty(t, errOut)
	assert.Contains(t, out, "peering: what a Consul cluster replicates to each of its peers.")
	assert.Contains(t, out, "-new-config")
}

func TestErrorsNameFileAndValue(t *testing.T) {
	bad := write(t, "bad.json", `{"Kind":"exported-services","Name":"default","Services":[{"Name":"api","Consumers":[{"Peers":"north"}]}]}
{"Kind":"service-resolver","Name":"b","ConnectTimeout":"soon"}
{"Kind":"sameness-group","Name":"g","Members":[]}`)
	code, _, errOut := runArgs(t, "-config", bad, "-trust-domain", "x.consul", "-datacenter", "dc1")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, bad+`: value 1 (exported-services default): Services[0].Consumers[0]: unknown field "Peers" (did you mean "Peer"?)`)
	assert.Contains(t, errOut, bad+`: value 3 (sameness-group g): Members: must have at least one member`)
	assert.Contains(t, errOut, bad+`: value 2 (service-resolver b): ConnectTimeout: "soon" is not a duration such as "5s"`)
}

func TestDryRunAndGates(t *testing.T) {
	files := userFiles(t)
	proposed := write(t, "proposed.json", `{"Kind":"service-resolver","Name":"api","Redirect":{"Service":"api-v3"}}`)
	code, out, errOut := runArgs(t, append(files, "-peer", "north", "-new-config", proposed)...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "DRY RUN for peer north (nothing is applied)")
	assert.Contains(t, out, "start target api-v2.default.default.dc7 → api-v3.default.default.dc7")
	assert.Contains(t, out, "+ accepts spiffe://<td>/ns/default/dc/dc7/svc/api-v3")
	assert.Contains(t, words(out), `REFUSED BY CONSUL: peer exported service "api" uses protocol="tcp" and cannot introduce new discovery chain targets like "api-v3.default.default.dc7"`)

	code, _, _ = runArgs(t, append(files, "-peer", "north", "-new-config", proposed, "-fail-on", "error")...)
	assert.Equal(t, 3, code, "a write Consul would refuse fails the gate")

	code, _, _ = runArgs(t, "-fail-on", "warning")
	assert.Equal(t, 3, code, "the sample has union notes: warnings")
	code, _, _ = runArgs(t, append(files, "-peer", "north", "-fail-on", "error")...)
	assert.Equal(t, 0, code)
}

func TestGatewayWarnings(t *testing.T) {
	files := userFiles(t)
	critical := write(t, "gw.json", `[{"Node":{"Node":"gw"},"Service":{"Kind":"mesh-gateway","ID":"mgw","Service":"mesh-gateway"},"Checks":[{"CheckID":"c","Status":"critical"}]}]`)
	args := append(files[:0:0], files...)
	args[5] = critical
	code, out, errOut := runArgs(t, args...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "WARNING all 1 mesh gateway instances are critical: peers can reach no exported service")
}

func TestDryRunNewExportsAndResolvers(t *testing.T) {
	files := userFiles(t)
	// The proposal moves api from north to a new peer west: north loses it, west gains it.
	newExports := write(t, "exports.json", `{"Kind":"exported-services","Name":"default","Services":[{"Name":"api","Consumers":[{"Peer":"west"}]},{"Name":"*","Consumers":[{"Peer":"south"}]}]}`)
	code, out, errOut := runArgs(t, append(files, "-new-exports", newExports)...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "DRY RUN for peer north (nothing is applied)")
	assert.Contains(t, out, "DRY RUN for peer west (nothing is applied)", "a peer only the proposal names is diffed too")
	assert.NotContains(t, out, "PEER west", "the current replication has no peer west")
	north := out[strings.Index(out, "DRY RUN for peer north"):strings.Index(out, "DRY RUN for peer south")]
	assert.Contains(t, north, "default/default/api: removed (was chain)")
	assert.Contains(t, north, "- accepts spiffe://<td>/ns/default/dc/dc7/svc/api-v2")
	west := out[strings.Index(out, "DRY RUN for peer west"):]
	assert.Contains(t, west, "default/default/api: added (chain)")
	assert.Contains(t, west, "+ accepts spiffe://<td>/ns/default/dc/dc7/svc/api-v2")
	assert.NotContains(t, out, "REFUSED BY CONSUL", "moving an export between peers is a write Consul accepts")

	code, out, errOut = runArgs(t, append(files, "-new-exports", newExports, "-peer", "west")...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "DRY RUN for peer west")
	assert.NotContains(t, out, "DRY RUN for peer north")

	newResolvers := write(t, "resolvers.json", `[{"Kind":"service-resolver","Name":"api","Redirect":{"Service":"api","Datacenter":"dc2"}}]`)
	code, out, errOut = runArgs(t, append(files, "-peer", "north", "-new-resolvers", newResolvers, "-fail-on", "error")...)
	assert.Equal(t, 3, code, errOut)
	assert.Contains(t, out, `failed after the change: peer exported service "api" contains cross-datacenter resolver redirect`)
	assert.Contains(t, out, `REFUSED BY CONSUL: peer exported service "api" contains cross-datacenter resolver redirect`)

	// Each -new-* flag reads its own kind only, and names what it found.
	code, _, errOut = runArgs(t, append(files, "-new-resolvers", newExports)...)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, newExports+`: value 1: holds a "exported-services" entry; this flag reads service-resolver entries only`)
}

// words returns s with every run of white space, line breaks included, as one space: the
// programs wrap long lines at 120 columns.
func words(s string) string { return strings.Join(strings.Fields(s), " ") }
