package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/clitest"
)

func TestSample(t *testing.T) {
	code, out, errOut := clitest.Call(run)
	require.Equal(t, 0, code, errOut)
	for _, want := range []string{
		"trust domain <td> = 11111111-2222-3333-4444-555555555555.consul, datacenter dc1, partition default",
		"default/default/mysql      tcp       mysql.default.default.dc1      3           2 (1 passing, 1 warning)",
		"default/default/inventory  tcp       inventory.default.default.dc1  3",
		"PLAIN (not connect services: replicated without a chain): default/default/mysql-standby, default/default/orders-v2, default/default/reports",
		`ERROR NotReplicated default/default/orders (peer east): service "orders-v2" does not have a subset named "canary"`,
		`ERROR NotReplicated default/default/web (peer east): peer exported service "web" contains cross-datacenter failover`,
		"WARNING Excluded default/default/legacy (peer east): its chain reaches the reserved consul service",
		"default/default/billing  grpc      billing.default.default.dc1  2",
		"WARNING UnionDiffers default/default/inventory (peer west): Consul would also replicate inventory to west via Services[0]; meshscope applies only the most exact rule (Services[3])",
	} {
		assert.Contains(t, clitest.Words(out), clitest.Words(want))
	}
	east, west, _ := strings.Cut(out, "PEER west")
	assert.NotContains(t, strings.Split(east, "WARNING")[0], "billing", "billing is exported to west only")
	assert.NotContains(t, west, "inventory  tcp", "inventory goes to the sameness group's members: ap2 and east")
	for _, line := range strings.Split(out, "\n") {
		assert.LessOrEqual(t, len(line), 120, "every line fits 120 columns: %q", line)
		for _, s := range []string{"mesh-gateway", "sidecar-proxy"} {
			assert.NotContains(t, line, "default/default/"+s, "gateways and proxies are never replicated by *")
		}
	}
}

func TestWideAndExplain(t *testing.T) {
	code, out, errOut := clitest.Call(run, "-wide", "-peer", "east", "-explain", "inventory")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "accept spiffe://<td>/ap/ap2/ns/default/dc/dc1/svc/inventory  (target inventory.default.ap2.dc1 by Failover[\"*\"] of default/default/inventory)",
		"tcp PeerMeta carries the partition member's identity")
	assert.Contains(t, out, "instance inventory-sidecar-proxy-instance-0 on gw-1 10.0.1.10:8443, passing")
	assert.Contains(t, out, "exported to partition ap2 (sameness group dr), peer east (sameness group dr)")
	assert.Contains(t, out, `Failover["*"] of default/default/inventory -> sameness group dr, member peer east -> inventory.default.default.external.east`)
	assert.Contains(t, out, "export to a peer: safe")

	code, _, errOut = clitest.Call(run, "-explain", "nope")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `-explain "nope": no such service in the catalog or the chain entries of partition default; services: default/default/billing`)
}

func TestJSON(t *testing.T) {
	code, out, errOut := clitest.Call(run, "-o", "json", "-peer", "west")
	require.Equal(t, 0, code, errOut)
	var rep struct {
		Findings []struct{ Path, Code, Level, Message string }
		Peers    []struct {
			Services []struct {
				PeerMeta struct{ SNI []string }
			}
			Failed []struct {
				Service struct{ Name string }
				Error   string
			}
			Findings []struct{ Path, Code, Level, Message string }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Len(t, rep.Peers, 1)
	assert.Equal(t, "billing.default.default.west.external.11111111-2222-3333-4444-555555555555.consul", rep.Peers[0].Services[0].PeerMeta.SNI[0])
	assert.Contains(t, out, `"Kind": "connect-proxy"`)
	assert.Contains(t, rep.Peers[0].Failed, struct {
		Service struct{ Name string }
		Error   string
	}{struct{ Name string }{"web"},
		`peer exported service "web" contains cross-datacenter failover`})
	assert.Equal(t, 1, strings.Count(out, `contains cross-datacenter failover`), "each fact once: a failed service is in Failed, not also a finding")
	assert.Contains(t, rep.Peers[0].Findings, struct{ Path, Code, Level, Message string }{"default/default/legacy (peer west)", "UnionDiffers", "warning",
		"Consul would also replicate legacy to west via Services[0]; meshscope applies only the most exact rule (Services[2])"},
		"-o json carries each peer's findings: code, level, path, message")
	var codes []string
	for _, f := range rep.Findings {
		codes = append(codes, f.Code)
	}
	assert.Equal(t, []string{"SourceShadowed", "TrustBundleMissing", "IntentionNeverMatches", "IntentionPeerUnknown", "IntentionNeverMatches",
		"L7OnNetworkFilter", "RegexRefused", "IntentionsUnjudged", "IntentionsUnjudged"}, codes, "the sample's intentions are linted")
}

// userFiles writes a small cluster as Consul's commands print it. Its catalog is
// /v1/catalog/services output, which says no kinds: the health outputs classify the
// gateway, the proxies and the connect services; "batch-job" nothing classifies.
func userFiles(t *testing.T) []string {
	t.Helper()
	config := clitest.Write(t, "config.json", `{"Kind":"exported-services","Name":"default","Services":[{"Name":"api","Consumers":[{"Peer":"north"}]},{"Name":"*","Consumers":[{"Peer":"south"}]}],"CreateIndex":18446744073709551615,"ModifyIndex":2}
{"Kind":"service-resolver","Name":"api","Redirect":{"Service":"api-v2"}}
{"Kind":"service-defaults","Name":"api-v2","Protocol":"tcp","MeshGateway":{"Mode":"local"},"Expose":{}}
{"Kind":"proxy-defaults","Name":"global","Config":{"protocol":"tcp","local_connect_timeout_ms":1000}}`)
	catalog := clitest.Write(t, "catalog.json", `{"api": ["v1"], "api-v2": [], "api-v2-sidecar-proxy": [], "consul": [], "batch": [], "mesh-gateway": [], "batch-job": []}`)
	gateways := clitest.Write(t, "gateways.json", `[{"Node":{"Node":"gw","Address":"10.0.0.9","Datacenter":"dc7","CreateIndex":9},"Service":{"Kind":"mesh-gateway","ID":"mesh-gateway","Service":"mesh-gateway","Port":8443,"Weights":{"Passing":1}},"Checks":[{"Node":"gw","CheckID":"serfHealth","Status":"passing","Type":""}]}]`)
	connect := clitest.Write(t, "connect.json", `[{"Node":{"Node":"n1","Address":"10.0.1.1"},"Service":{"Kind":"connect-proxy","ID":"api-v2-sidecar-proxy","Service":"api-v2-sidecar-proxy","Proxy":{"DestinationServiceName":"api-v2"}},"Checks":[]}]
[{"Node":{"Node":"n2","Address":"10.0.1.2"},"Service":{"ID":"native","Service":"batch","Connect":{"Native":true}},"Checks":[]}]
[{"Node":{"Node":"n3","Address":"10.0.1.3"},"Service":{"ID":"api-v2","Service":"api-v2"},"Checks":[]}]
[{"Node":{"Node":"n4","Address":"10.0.1.4"},"Service":{"ID":"api","Service":"api"},"Checks":[]}]`)
	roots := clitest.Write(t, "roots.json", `{"ActiveRootID":"x","TrustDomain":"abcd.consul","Roots":[]}`)
	return []string{"-config", config, "-catalog", catalog, "-health", gateways, "-health", connect, "-ca-roots", roots, "-datacenter", "dc7"}
}

func TestConsulNativeInput(t *testing.T) {
	code, out, errOut := clitest.Call(run, append(userFiles(t), "-wide")...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "trust domain <td> = abcd.consul, datacenter dc7")
	assert.Contains(t, out, "PEER north")
	assert.Contains(t, out, "default/default/api  tcp       api-v2.default.default.dc7")
	assert.Contains(t, out, "accept spiffe://<td>/ns/default/dc/dc7/svc/api-v2  (target api-v2.default.default.dc7 by Redirect of default/default/api)")
	assert.Contains(t, out, "default/default/batch", "a connect-native instance makes a connect service")
	south := out[strings.Index(out, "PEER south"):]
	assert.Contains(t, south, "default/default/api-v2")
	assert.Contains(t, clitest.Words(south), `WARNING UnknownKind default/default/batch-job (peer south): its service kind is unknown`,
		"a name only /v1/catalog/services gives is reported, not replicated")
	assert.Contains(t, clitest.Words(south), `so it is not replicated: give its kind with -catalog output of /v1/internal/ui/services `+
		`(curl $CONSUL_HTTP_ADDR/v1/internal/ui/services), which says every service's kind, or -health output of its instances (/v1/health/service/<name>)`,
		"the finding says which flag gives kinds")
	for _, s := range []string{"mesh-gateway", "api-v2-sidecar-proxy", "consul"} {
		assert.NotContains(t, out, "default/default/"+s, "%s is never replicated by *", s)
	}

	// A directory of entries, mixed, and a ui-services catalog.
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.json"), []byte(`[{"Kind":"service-resolver","Name":"api","Redirect":{"Service":"api-v2"}}]`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.json"), []byte(`{"Kind":"exported-services","Name":"default","Services":[{"Name":"api","Consumers":[{"Peer":"north"}]}]}`), 0o600))
	code, out, errOut = clitest.Call(run, "-config", dir, "-trust-domain", "abcd.consul", "-datacenter", "dc7")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "PEER north")
	assert.Contains(t, out, "default/default/api  tcp       api-v2.default.default.dc7  3           0\n", "a resolver makes api a connect service")
	assert.Contains(t, out, "WARNING NoMeshGateway mesh gateways: no mesh gateway instances")
}

// TestKindsFromTheCatalog: /v1/internal/ui/services and /v1/catalog/service/<name> output say
// each service's kind; a * rule never replicates a gateway or a sidecar proxy.
func TestKindsFromTheCatalog(t *testing.T) {
	files := userFiles(t)
	ui := clitest.Write(t, "ui.json", `[{"Name":"api","Datacenter":"dc7","Tags":[],"InstanceCount":1},
 {"Kind":"mesh-gateway","Name":"mesh-gateway","Datacenter":"dc7"},
 {"Kind":"connect-proxy","Name":"web-sidecar-proxy","Datacenter":"dc7"},
 {"Name":"web","Datacenter":"dc7"},
 {"Name":"imported","PeerName":"north"}]`)
	one := clitest.Write(t, "one.json", `[{"ID":"x","Node":"n","ServiceName":"tgw","ServiceKind":"terminating-gateway","Namespace":"default"}]`)
	args := append(files[:0:0], files...)
	args[3] = ui
	code, out, errOut := clitest.Call(run, append(args, "-catalog", one)...)
	require.Equal(t, 0, code, errOut)
	south := out[strings.Index(out, "PEER south"):]
	assert.Contains(t, south, "default/default/web")
	for _, s := range []string{"mesh-gateway", "web-sidecar-proxy", "tgw", "imported"} {
		assert.NotContains(t, out, "default/default/"+s)
	}
	assert.NotContains(t, out, "UnknownKind")
}

func TestRefusesToGuess(t *testing.T) {
	files := userFiles(t)
	exact := clitest.Write(t, "exact.json", `{"Kind":"exported-services","Name":"default","Services":[{"Name":"api","Consumers":[{"Peer":"north"}]}]}`)
	apGateways := clitest.Write(t, "ap1-gateways.json", `[{"Node":{"Node":"gw","Address":"10.0.0.9","Datacenter":"dc7","Partition":"ap1"},"Service":{"Kind":"mesh-gateway","ID":"mesh-gateway","Service":"mesh-gateway","Port":8443,"Partition":"ap1"},"Checks":[]}]`)
	wildcard := clitest.Write(t, "wildcard.json", `{"Kind":"exported-services","Name":"default","Services":[{"Name":"*","Consumers":[{"Peer":"north"}]}]}`)
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no trust domain with your own input", []string{"-config", files[1], "-datacenter", "dc1"}, 2, "with your own input, also give -ca-roots or -trust-domain"},
		{"no datacenter with your own input", []string{"-config", files[1], "-trust-domain", "x.consul"}, 2, "with your own input, also give -datacenter"},
		{"one input alone", []string{"-catalog", files[3]}, 2, "also give -config, -ca-roots or -trust-domain, -datacenter"},
		{"an empty -config, as an unset variable gives", []string{"-config", "", "-trust-domain", "x.consul", "-datacenter", "dc1"}, 2, `invalid value "" for flag -config: an empty value (an unset variable?)`},
		{"an empty -datacenter", append(files[:len(files)-2:len(files)-2], "-datacenter", ""), 2, "-datacenter given an empty value (an unset variable?)"},
		{"an empty -datacenter is told to name a datacenter, not a file", append(files[:len(files)-2:len(files)-2], "-datacenter", ""), 2,
			"-datacenter given an empty value (an unset variable?): name the local datacenter, the exporting cluster's (the Config.Datacenter of /v1/agent/self), or give none"},
		{"an empty -trust-domain is told to name a trust domain", []string{"-config", files[1], "-trust-domain", "", "-datacenter", "dc1"}, 2,
			"-trust-domain given an empty value (an unset variable?): name the cluster's trust domain (the TrustDomain of /v1/connect/ca/roots), or give none"},
		{"an empty -ca-roots is told which file", []string{"-config", files[1], "-ca-roots", "", "-datacenter", "dc1"}, 2,
			"-ca-roots given an empty value (an unset variable?): name a file of /v1/connect/ca/roots output, or give none"},
		{"no -catalog with a * rule", []string{"-config", files[1], "-trust-domain", "x.consul", "-datacenter", "dc1"}, 2, `-catalog is required: Services[1] of the exported-services entry of partition "default" exports every service of namespace "default"`},
		{"no -catalog with a proposed * rule", []string{"-config", exact, "-trust-domain", "x.consul", "-datacenter", "dc1", "-new-config", wildcard}, 2,
			`-catalog is required: Services[0] of the proposed exported-services entry of partition "default" exports every service of namespace "default"`},
		{"gateways of another partition", []string{"-config", files[1], "-catalog", files[3], "-health", apGateways, "-trust-domain", "x.consul", "-datacenter", "dc7"}, 1,
			`-partition "default": every mesh gateway instance is in another partition (mesh-gateway in partition ap1)`},
		{"gateways elsewhere", append(files[:len(files)-2:len(files)-2], "-datacenter", "dc2"), 1, `-datacenter "dc2": every mesh gateway instance is in another datacenter (gw in dc7)`},
		{"an unknown peer", append(files, "-peer", "nowhere"), 1, `-peer "nowhere": the exported-services entry of partition "default" names no such peer; it names: north, south`},
		{"an unknown partition", append(files, "-partition", "retail"), 1, `-partition "retail" has no exported-services entry; partitions with one: default`},
		{"a positional argument", []string{"config.json"}, 2, `unexpected argument "config.json": every input is given with a flag`},
		{"an unknown flag", []string{"-cluster-id", "x"}, 2, "flag provided but not defined: -cluster-id"},
		{"a bad output format", []string{"-o", "yaml"}, 2, `-o must be table, json or dot, got "yaml"`},
		{"a bad -fail-on", []string{"-fail-on", "info"}, 2, "is not a level: want note, warning or error"},
		{"-explain-request without -service", []string{"-explain-request", "GET /"}, 2, "-explain-request and -service come together"},
		{"-header alone", []string{"-header", "x: 1"}, 2, "-explain-request and -service come together"},
		{"a request that is not one", []string{"-explain-request", "GET api", "-service", "web"}, 2, `-explain-request: the path "api" does not start with "/"`},
		{"a header that is not one", []string{"-explain-request", "GET /", "-service", "web", "-header", "x-env canary"}, 2, `-header: "x-env canary" is not a header line`},
		{"an unknown -service", []string{"-explain-request", "GET /", "-service", "nope"}, 1, `-service "nope": no such service in the catalog or the chain entries`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := clitest.Call(run, tt.args...)
			assert.Equal(t, tt.code, code)
			assert.Contains(t, errOut, tt.msg)
			assert.Empty(t, out, "nothing is reported on input that was refused")
		})
	}
}

// TestHealthIsHealthOutput: -health reads instances; another endpoint's list, or a list of
// empty objects, is refused, saying what it found and what -health reads, never taken for
// a service without instances (which an empty list is).
func TestHealthIsHealthOutput(t *testing.T) {
	files := userFiles(t)
	with := func(health string) []string {
		args := append(files[:0:0], files...)
		args[5], args[7] = health, health // both -health flags
		return args
	}
	ui := clitest.Write(t, "ui.json", `[{"Name":"api","Kind":"","Datacenter":"dc7","Tags":[],"InstanceCount":1}]`)
	for _, tt := range []struct {
		name string
		file string
		want string
	}{
		{"/v1/internal/ui/services output", ui, ui + `: value 1: [0]: not an instance: no Node and no Service; found an object with Name, Kind, Datacenter, Tags, InstanceCount, ` +
			`which looks like catalog output (/v1/internal/ui/services); expected /v1/health/service/<name> or /v1/health/connect/<name> output`},
		{"a list of empty objects", clitest.Write(t, "empty-objects.json", `[{}]`), `: value 1: [0]: not an instance: no Node and no Service; found an empty object; ` +
			`expected /v1/health/service/<name> or /v1/health/connect/<name> output (curl $CONSUL_HTTP_ADDR/v1/health/service/mesh-gateway): a list of instances, each with Node, Service and Checks`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := clitest.Call(run, with(tt.file)...)
			assert.Equal(t, 1, code)
			assert.Contains(t, errOut, tt.want)
			assert.Empty(t, out)
		})
	}
	t.Run("an empty list: a service without instances", func(t *testing.T) {
		code, out, errOut := clitest.Call(run, with(clitest.Write(t, "none.json", "[]"))...)
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, out, "WARNING NoMeshGateway mesh gateways: no mesh gateway instances")
	})
}

// TestEmptyInputs: every Consul output read, whichever flag names it, says the same of an
// empty file, or one of white space only (a command that printed nothing), naming the file.
func TestEmptyInputs(t *testing.T) {
	files := userFiles(t)
	empty := clitest.Write(t, "empty.json", "")
	blank := clitest.Write(t, "blank.json", " \n\t\n")
	with := func(flag, file string) []string {
		args := append(files[:0:0], files...)
		for i := 0; i < len(args); i += 2 {
			if args[i] == flag {
				args[i+1] = file
				return args
			}
		}
		return append(args, flag, file)
	}
	for _, tt := range []struct {
		name string
		args []string
		file string
	}{
		{"an empty -config", with("-config", empty), empty},
		{"an empty -catalog", with("-catalog", empty), empty},
		{"an empty -health", with("-health", empty), empty},
		{"an empty -ca-roots", with("-ca-roots", empty), empty},
		{"an empty -gateway-services", with("-gateway-services", empty), empty},
		{"a -catalog of white space only", with("-catalog", blank), blank},
		{"a -ca-roots of white space only", with("-ca-roots", blank), blank},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := clitest.Call(run, tt.args...)
			assert.Equal(t, 1, code)
			assert.Contains(t, errOut, tt.file+": no JSON value: the input is empty")
			assert.NotContains(t, errOut, "unexpected end of input")
			assert.Empty(t, out)
		})
	}
}

// TestUTF16Inputs: a file saved as UTF-16 (what Windows PowerShell's > writes) is said to
// be UTF-16, whichever flag names it, rather than refused at its first byte.
func TestUTF16Inputs(t *testing.T) {
	files := userFiles(t)
	for _, tt := range []struct {
		name string
		flag string
		bom  []byte
	}{
		{"a UTF-16LE -config", "-config", []byte{0xff, 0xfe}},
		{"a UTF-16LE -catalog", "-catalog", []byte{0xff, 0xfe}},
		{"a UTF-16LE -health", "-health", []byte{0xff, 0xfe}},
		{"a UTF-16LE -ca-roots", "-ca-roots", []byte{0xff, 0xfe}},
		{"a UTF-16BE -catalog", "-catalog", []byte{0xfe, 0xff}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append(files[:0:0], files...)
			i := slices.Index(args, tt.flag) + 1
			data, err := os.ReadFile(args[i])
			require.NoError(t, err)
			wide := slices.Clone(tt.bom)
			for _, c := range data { // the files are ASCII
				if tt.bom[0] == 0xff {
					wide = append(wide, c, 0)
				} else {
					wide = append(wide, 0, c)
				}
			}
			args[i] = clitest.Write(t, "utf16.json", string(wide))
			code, out, errOut := clitest.Call(run, args...)
			assert.Equal(t, 1, code)
			assert.Contains(t, errOut, args[i]+": not JSON: the input looks like UTF-16")
			assert.Contains(t, errOut, "it must be UTF-8. Windows PowerShell's > writes UTF-16")
			assert.NotContains(t, errOut, "unexpected byte")
			assert.Empty(t, out)
		})
	}
}

func TestHelp(t *testing.T) {
	code, out, errOut := clitest.Call(run, "-h")
	assert.Equal(t, 0, code)
	assert.Empty(t, errOut)
	assert.Contains(t, out, "peering: what a Consul cluster replicates to each of its peers.")
	assert.Contains(t, out, "-new-config")
	assert.Contains(t, out, "-may 'CALLER SERVICE'")
	assert.Contains(t, out, "curl -s $CONSUL_HTTP_ADDR/v1/peerings > peerings.json")
	assert.Contains(t, out, "consul config read -kind $k -name {}", "the commands that make the input")
	assert.Contains(t, clitest.Words(out), "Exit status: 0 the report was printed 1 an input was wrong")
	assert.Contains(t, clitest.Words(out), "3 -fail-on: findings at or above its level")
	assert.NotContains(t, out, "package documentation", "a binary's user cannot read it")
}

func TestErrorsNameFileAndValue(t *testing.T) {
	bad := clitest.Write(t, "bad.json", `{"Kind":"exported-services","Name":"default","Services":[{"Name":"api","Consumers":[{"Peers":"north"}]}]}
{"Kind":"service-resolver","Name":"b","ConnectTimeout":"soon"}
{"Kind":"sameness-group","Name":"g","Members":[]}
{"Kind":"service-defaults","Name":"api","Protcol":"http"}
{"Name":"x"}`)
	code, _, errOut := clitest.Call(run, "-config", bad, "-trust-domain", "x.consul", "-datacenter", "dc1")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, bad+`: value 1 (exported-services default): Services[0].Consumers[0]: unknown field "Peers" (did you mean "Peer"?)`)
	assert.Contains(t, errOut, bad+`: value 3 (sameness-group g): Members: must have at least one member`)
	assert.Contains(t, errOut, bad+`: value 2 (service-resolver b): ConnectTimeout: "soon" is not a duration such as "5s"`)
	assert.Contains(t, errOut, bad+`: value 4 (service-defaults api): (top level): unknown field "Protcol" (did you mean "Protocol"?)`, "service-defaults are read strictly")
	assert.Contains(t, errOut, bad+`: value 5 (no Kind: x): Kind: is required`)
	assert.NotContains(t, errOut, "(no Kind )")
}

// TestEveryKindAndBOM: -config takes whatever `consul config read` prints, of every kind, and
// says what it skipped; a UTF-8 byte-order mark is accepted in every file. A router is read:
// on a tcp service, its chain is Consul's refusal.
func TestEveryKindAndBOM(t *testing.T) {
	files := userFiles(t)
	extra := clitest.Write(t, "extra.json", "\uFEFF"+`{"Kind":"mesh","Name":"mesh","Peering":{"PeerThroughMeshGateways":true}}
{"Kind":"service-router","Name":"api-v2","Routes":[{"Match":{"HTTP":{"PathPrefix":"/v2"}},"Destination":{"Service":"api-v3"}}]}
{"Kind":"service-intentions","Name":"api","Sources":[{"Name":"web","Action":"allow"}]}
{"Kind":"ingress-gateway","Name":"edge","Listeners":[]}`)
	for i := range files {
		if strings.HasSuffix(files[i], ".json") {
			data, err := os.ReadFile(files[i])
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(files[i], append([]byte("\uFEFF"), data...), 0o600))
		}
	}
	code, out, errOut := clitest.Call(run, append(files, "-config", extra)...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, clitest.Words(out), clitest.Words(`ERROR NotReplicated default/default/api-v2 (peer south): discovery chain "api-v2" uses a protocol "tcp" that does not permit advanced routing or splitting behavior`))
	assert.NotContains(t, out, "value 1 (mesh", "the mesh entry is read")
	assert.NotContains(t, out, "value 3 (service-intentions", "the intentions are read")
	assert.Contains(t, clitest.Words(out), "NOTE EntrySkipped "+extra+": value 4 (ingress-gateway edge)")
	assert.Contains(t, out, "PEER north")
}

// TestFailOnSaysWhy: -fail-on counts exactly the finding lines at or above its level, each
// printed with its level and code, and the last line on stderr names them.
func TestFailOnSaysWhy(t *testing.T) {
	for _, tt := range []struct {
		level string
		lines []string
	}{
		{"error", []string{"ERROR"}},
		{"warning", []string{"ERROR", "WARNING"}},
		{"note", []string{"ERROR", "WARNING", "NOTE"}},
	} {
		t.Run(tt.level, func(t *testing.T) {
			code, out, errOut := clitest.Call(run, "-fail-on", tt.level)
			require.Equal(t, 3, code)
			n := 0
			for _, line := range strings.Split(out, "\n") {
				for _, l := range tt.lines {
					if strings.HasPrefix(strings.TrimSpace(line), l+" ") {
						n++
					}
				}
			}
			last := strings.Split(strings.TrimSpace(errOut), "\n")
			assert.Contains(t, last[len(last)-1], "peering: -fail-on "+tt.level+": ")
			assert.Contains(t, last[len(last)-1], " findings at "+strings.ToUpper(tt.level)+" or above: ")
			assert.Contains(t, last[len(last)-1], "ERROR NotReplicated default/default/web (peer east)")
			gate := last[len(last)-1]
			assert.Contains(t, gate, fmt.Sprintf(": %d finding", n), "the gate counts the lines printed")
		})
	}
}

func TestDryRunAndGates(t *testing.T) {
	files := userFiles(t)
	proposed := clitest.Write(t, "proposed.json", `{"Kind":"service-resolver","Name":"api","Redirect":{"Service":"api-v3"}}`)
	code, out, errOut := clitest.Call(run, append(files, "-peer", "north", "-new-config", proposed)...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "DRY RUN for peer north (nothing is applied)\n  no replication changes", "a refused write is not stored")
	assert.Contains(t, clitest.Words(out), `DRY RUN: the proposed writes, as Consul's server takes them (nothing is applied) `+
		`ERROR WriteRefused service-resolver api: chain default/default/api: peer exported service "api" uses protocol="tcp" and cannot introduce new discovery chain targets like "api-v3.default.default.dc1"`,
		"Consul's server judges the write in dc1, and says so")

	code, _, errOut = clitest.Call(run, append(files, "-peer", "north", "-new-config", proposed, "-fail-on", "error")...)
	assert.Equal(t, 3, code, "a write Consul would refuse fails the gate")
	assert.Contains(t, errOut, "1 finding at ERROR or above: ERROR WriteRefused service-resolver api")

	code, _, _ = clitest.Call(run, "-fail-on", "warning")
	assert.Equal(t, 3, code, "the sample has union warnings")
	code, _, _ = clitest.Call(run, append(files, "-peer", "north", "-fail-on", "error")...)
	assert.Equal(t, 0, code)
}

func TestGatewayWarnings(t *testing.T) {
	files := userFiles(t)
	critical := clitest.Write(t, "gw.json", `[{"Node":{"Node":"gw"},"Service":{"Kind":"mesh-gateway","ID":"mgw","Service":"mesh-gateway"},"Checks":[{"CheckID":"c","Status":"critical"}]}]`)
	args := append(files[:0:0], files...)
	args[5] = critical
	code, out, errOut := clitest.Call(run, args...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "WARNING GatewaysCritical mesh gateways: all 1 mesh gateway instances are critical: peers can reach no exported service")
}

func TestDryRunNewConfig(t *testing.T) {
	files := userFiles(t)
	// The proposal moves api from north to a new peer west: north loses it, west gains it.
	newExports := clitest.Write(t, "exports.json", `{"Kind":"exported-services","Name":"default","Services":[{"Name":"api","Consumers":[{"Peer":"west"}]},{"Name":"*","Consumers":[{"Peer":"south"}]}]}`)
	code, out, errOut := clitest.Call(run, append(files, "-new-config", newExports)...)
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
	assert.NotContains(t, out, "WriteRefused", "moving an export between peers is a write Consul accepts")

	code, out, errOut = clitest.Call(run, append(files, "-new-config", newExports, "-peer", "west")...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "DRY RUN for peer west")
	assert.NotContains(t, out, "DRY RUN for peer north")

	newResolvers := clitest.Write(t, "resolvers.json", `[{"Kind":"service-resolver","Name":"api","Redirect":{"Service":"api","Datacenter":"dc2"}}]`)
	code, out, errOut = clitest.Call(run, append(files, "-peer", "north", "-new-config", newResolvers, "-fail-on", "error")...)
	assert.Equal(t, 3, code, errOut)
	assert.Equal(t, 1, strings.Count(out, "cross-datacenter resolver redirect"), "the refusal is printed once")
	assert.Contains(t, clitest.Words(out), `ERROR WriteRefused service-resolver api: chain default/default/api: peer exported service "api" contains cross-datacenter resolver redirect`)
	code, out, _ = clitest.Call(run, append(files, "-new-config", newResolvers)...)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "DRY RUN for peer south")
	assert.Equal(t, 1, strings.Count(out, "cross-datacenter resolver redirect"), "once, for every peer")
	code, out, _ = clitest.Call(run, append(files, "-new-config", newResolvers, "-o", "json")...)
	assert.Equal(t, 0, code)
	assert.Equal(t, 1, strings.Count(out, "cross-datacenter resolver redirect"), "once in -o json too")
}

// TestPeerTargetThroughLocalResolver: a chain in which a local resolver changes a peer
// target says so, as a finding line and in -explain. web fails over to api here and to api
// on east, so Consul's server reads the local api resolver, which then governs both.
func TestPeerTargetThroughLocalResolver(t *testing.T) {
	config := clitest.Write(t, "config.json", `{"Kind":"exported-services","Name":"default","Services":[{"Name":"web","Consumers":[{"Peer":"north"}]}]}
{"Kind":"service-resolver","Name":"web","Failover":{"*":{"Targets":[{"Service":"api"},{"Service":"api","Peer":"east"}]}}}
{"Kind":"service-resolver","Name":"api","Redirect":{"Service":"api-v2"}}`)
	code, out, errOut := clitest.Call(run, "-config", config, "-trust-domain", "abcd.consul", "-datacenter", "dc1", "-explain", "web")
	require.Equal(t, 0, code, errOut)
	want := "WARNING PeerTargetResolvedLocally chain default/default/web, target api.default.default.external.east: the local service-resolver default/default/api governs this peer target and its Redirect makes it api-v2.default.default.dc1"
	assert.Contains(t, clitest.Words(out), want)
	assert.Equal(t, 2, strings.Count(clitest.Words(out), want), "in the peer's findings and in the explanation")
	code, _, errOut = clitest.Call(run, "-config", config, "-trust-domain", "abcd.consul", "-datacenter", "dc1", "-fail-on", "warning")
	assert.Equal(t, 3, code)
	assert.Contains(t, errOut, "WARNING PeerTargetResolvedLocally chain default/default/web, target api.default.default.external.east")
}
