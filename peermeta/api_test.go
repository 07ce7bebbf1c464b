package peermeta

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/exports"
)

func svc(ns, name string) exports.ServiceName {
	return exports.ServiceName{Partition: "default", Namespace: ns, Name: name}
}

const uiServices = `[{"Name":"web","Datacenter":"dc1","Tags":[],"InstanceCount":2,"ConnectedWithProxy":true},
 {"Kind":"connect-proxy","Name":"web-sidecar-proxy","Datacenter":"dc1"},
 {"Kind":"mesh-gateway","Name":"mesh-gateway","Datacenter":"dc1"},
 {"Name":"batch","Namespace":"jobs","ConnectNative":true},
 {"Name":"plain","ConnectedWithProxy":null},
 {"Name":"imported","PeerName":"north","ConnectedWithProxy":true}]`

const catalogService = `[{"ID":"x","Node":"n1","ServiceName":"api-sidecar-proxy","ServiceKind":"connect-proxy",
  "ServiceProxy":{"DestinationServiceName":"api","MeshGateway":{}},"ServiceConnect":{}},
 {"ID":"y","Node":"n1","ServiceName":"api","ServiceKind":"","ServiceConnect":{"Native":false}},
 {"ID":"z","Node":"n2","ServiceName":"tgw","ServiceKind":"terminating-gateway"}]`

func TestReadCatalog(t *testing.T) {
	var a APIOutput
	require.NoError(t, a.ReadCatalog("ui.json", []byte(uiServices), "", ""))
	require.NoError(t, a.ReadCatalog("one.json", []byte(catalogService), "", "ops"))
	require.NoError(t, a.ReadCatalog("names.json", []byte(`{"legacy": ["v1"], "web": []}`), "", ""))
	in := a.Input()
	assert.Equal(t, []exports.ServiceName{svc("default", "mesh-gateway"), svc("default", "plain"), svc("default", "web"),
		svc("default", "web-sidecar-proxy"), svc("jobs", "batch"), svc("ops", "api"), svc("ops", "api-sidecar-proxy"), svc("ops", "tgw")},
		in.Catalog, "sorted, once each, the peer's import left out; the namespace given for output without one")
	assert.Equal(t, []exports.ServiceName{svc("default", "legacy")}, in.Unclassified, "/v1/catalog/services says no kinds")
	assert.Equal(t, KindMeshGateway, in.Kinds[svc("default", "mesh-gateway")])
	assert.Equal(t, KindTerminatingGateway, in.Kinds[svc("ops", "tgw")])
	assert.Equal(t, KindTypical, in.Kinds[svc("default", "web")], "the ui output classifies web, which /v1/catalog/services lists too")
	assert.Equal(t, []exports.ServiceName{svc("default", "web"), svc("jobs", "batch"), svc("ops", "api")}, in.Connect,
		"a sidecar proxy makes its destination a connect service, a connect-native instance its own service")
}

func TestReadCatalogUnclassified(t *testing.T) {
	var a APIOutput
	require.NoError(t, a.ReadCatalog("names.json", []byte(`{"web": [], "mesh-gateway": [], "job": []}`), "ap1", "ns1"))
	require.NoError(t, a.ReadHealth("health.json", []byte(`[{"Node":{"Node":"gw"},"Service":{"Kind":"mesh-gateway","ID":"m","Service":"mesh-gateway","Partition":"ap1","Namespace":"ns1"}}]
[{"Node":{"Node":"n"},"Service":{"Kind":"connect-proxy","ID":"p","Service":"web-sidecar-proxy","Partition":"ap1","Namespace":"ns1","Proxy":{"DestinationServiceName":"web"}}}]`)))
	in := a.Input()
	ap1 := func(name string) exports.ServiceName {
		return exports.ServiceName{Partition: "ap1", Namespace: "ns1", Name: name}
	}
	assert.Equal(t, []exports.ServiceName{ap1("mesh-gateway")}, in.Catalog, "a health output classifies the gateway")
	assert.Equal(t, []exports.ServiceName{ap1("job"), ap1("web")}, in.Unclassified, "nothing says the kind of web or job")
	assert.Equal(t, []exports.ServiceName{ap1("web")}, in.Connect)
	require.Len(t, in.Gateways, 1)
	assert.Equal(t, "gw", in.Gateways[0].Node.Node)
}

func TestReadCatalogRefuses(t *testing.T) {
	for _, tt := range []struct{ name, in, err string }{
		{"a kind Consul does not have", `[{"Name":"web","Kind":"sidecar"}]`, `c.json: [0].Kind: "sidecar" is not a service kind`},
		{"a kind of /v1/catalog/service", `[{"ServiceName":"web","ServiceKind":"gateway"}]`, `c.json: [0].ServiceKind: "gateway" is not a service kind`},
		{"no name", `[{"Kind":""}]`, "c.json: [0]: no Name (/v1/internal/ui/services) or ServiceName (/v1/catalog/service/<name>): is this catalog output?"},
		{"tags not strings", `{"web": [1]}`, `c.json: ["web"][0]: must be a string, got the number 1`},
		{"a wrong type", `[{"Name":"web","ConnectNative":"yes"}]`, `c.json: [0].ConnectNative: must be a boolean, got the string "yes"`},
		{"a key given twice", `[{"Name":"web","Name":"api"}]`, "given twice"},
		{"not catalog output", `"web"`, "c.json: not catalog output: /v1/internal/ui/services and /v1/catalog/service/<name> print a list, /v1/catalog/services an object; got the string"},
		{"empty", ``, "c.json: no JSON value: the input is empty"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var a APIOutput
			err := a.ReadCatalog("c.json", []byte(tt.in), "", "")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

func TestReadHealth(t *testing.T) {
	var a APIOutput
	require.NoError(t, a.ReadHealth("h.json", []byte("\ufeff"+healthJSON+"\n"+`[{"Node":{"Node":"n2"},"Service":{"ID":"b","Service":"batch","Connect":{"Native":true}}}] []`)))
	in := a.Input()
	assert.Empty(t, in.Catalog, "instances classify catalog services; they are none")
	require.Len(t, in.Gateways, 1)
	assert.Equal(t, []exports.ServiceName{svc("default", "batch")}, in.Connect)

	err := a.ReadHealth("h.json", []byte(`[] [{"Node":{"Node":"n"},"Service":{"Service":"s","Kind":"proxy"}}] [{}]`))
	require.Error(t, err)
	assert.Equal(t, `h.json: value 2: [0].Service.Kind: "proxy" is not a service kind: want "" (typical), "connect-proxy", "mesh-gateway", "terminating-gateway", "ingress-gateway" or "api-gateway"`+"\n"+
		"h.json: value 3: [0]: not an instance: no Node and no Service; found an empty object; "+expectHealth, err.Error(), "each value named, every problem")
}

func TestReadGatewayServices(t *testing.T) {
	var a APIOutput
	require.NoError(t, a.ReadGatewayServices("g.json", []byte(`[{"Gateway":{"Name":"tgw"},"Service":{"Name":"legacy-db","Namespace":"data"},"GatewayKind":"terminating-gateway","CAFile":""}]`)))
	assert.Equal(t, []exports.ServiceName{svc("data", "legacy-db")}, a.Input().Connect)
	err := a.ReadGatewayServices("g.json", []byte(`[{"Service":{"Name":"web"},"GatewayKind":"ingress-gateway"}, 3]`))
	require.Error(t, err)
	assert.Equal(t, `g.json: [0].GatewayKind: "ingress-gateway": only a terminating gateway's services are connect services`+"\n"+
		"g.json: [1]: must be an object, got the number 3", err.Error())
}

func TestLoadTrustDomain(t *testing.T) {
	td, err := LoadTrustDomain([]byte(`{"ActiveRootID":"x","TrustDomain":"abcd.consul","Roots":[]}`))
	require.NoError(t, err)
	assert.Equal(t, "abcd.consul", td)
	for _, tt := range []struct{ in, err string }{
		{`{"Roots":[]}`, "TrustDomain: missing; is this /v1/connect/ca/roots output?"},
		{`[]`, "(top level): must be an object, got a list"},
		{`{"TrustDomain":1}`, "TrustDomain: must be a string, got the number 1"},
		{` `, "no JSON value: the input is empty"},
	} {
		_, err := LoadTrustDomain([]byte(tt.in))
		require.Error(t, err, tt.in)
		assert.Contains(t, err.Error(), tt.err)
	}
}

// fuzzAPI checks what every reader of Consul's API output promises on any input: no panic,
// and on success an Input whose catalog is sorted and canonical, once each, and whose
// services are either classified or unclassified.
func fuzzAPI(t *testing.T, read func(*APIOutput) error) {
	var a APIOutput
	if err := read(&a); err != nil {
		if strings.Contains(err.Error(), "Go struct") || strings.Contains(err.Error(), "json: ") {
			t.Fatalf("a message naming Go types: %v", err)
		}
		return
	}
	in := a.Input()
	all := slices.Concat(in.Catalog, in.Unclassified)
	for _, s := range all {
		if s != s.Canonical() {
			t.Fatalf("not canonical: %#v", s)
		}
		if _, ok := in.Kinds[s]; ok == slices.Contains(in.Unclassified, s) {
			t.Fatalf("%s is classified and unclassified, or neither", s)
		}
	}
	if !slices.IsSortedFunc(in.Catalog, exports.ServiceName.Compare) || len(slices.Compact(slices.Clone(in.Catalog))) != len(in.Catalog) {
		t.Fatalf("catalog not sorted once each: %v", in.Catalog)
	}
	for _, k := range in.Kinds {
		if !k.valid() {
			t.Fatalf("kind %q", k)
		}
	}
	if _, err := Replicate(Input{Exporter: Exporter{Peer: "east", Datacenter: "dc1", TrustDomain: td}, Catalog: in.Catalog, Kinds: in.Kinds,
		Unclassified: in.Unclassified, Connect: in.Connect, Gateways: in.Gateways, Exports: mustCompile(t)}); err != nil {
		t.Fatalf("what the readers accept, Replicate accepts: %v", err)
	}
}

func mustCompile(t *testing.T) *exports.Exports {
	x, err := exports.Compile(exports.ConfigEntry{Name: "default", Services: []exports.Service{{Name: "*", Namespace: "*", Consumers: []exports.Consumer{{Peer: "east"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func FuzzReadCatalog(f *testing.F) {
	f.Add([]byte(uiServices), "", "")
	f.Add([]byte(catalogService), "ap1", "ns1")
	f.Add([]byte(`{"web": ["a"], "db": []}`), "", "x")
	f.Add([]byte(`[{"Name":"w","Kind":"api-gateway","ConnectNative":true,"Partition":"p"},{"ServiceName":"s","ServiceProxy":null},null]`), "", "")
	f.Fuzz(func(t *testing.T, data []byte, partition, namespace string) {
		fuzzAPI(t, func(a *APIOutput) error { return a.ReadCatalog("c", data, partition, namespace) })
	})
}

func FuzzReadHealth(f *testing.F) {
	f.Add([]byte(healthJSON + healthJSON))
	f.Add([]byte(`[{"Node":{"Node":"n"},"Service":{"Kind":"connect-proxy","Service":"p","Proxy":{"DestinationServiceName":"web"}}}] []`))
	f.Add([]byte(`[{"Node":{"Node":"n"},"Service":{"Service":"b","Connect":{"Native":true},"Namespace":"x"}}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzAPI(t, func(a *APIOutput) error { return a.ReadHealth("h", data) })
	})
}

func FuzzReadGatewayServices(f *testing.F) {
	f.Add([]byte(`[{"Gateway":{"Name":"tgw"},"Service":{"Name":"db"},"GatewayKind":"terminating-gateway"}]`))
	f.Add([]byte(`[{"Service":null,"GatewayKind":"terminating-gateway"},{"GatewayKind":"ingress-gateway"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzAPI(t, func(a *APIOutput) error { return a.ReadGatewayServices("g", data) })
	})
}

func FuzzLoadTrustDomain(f *testing.F) {
	f.Add([]byte(`{"TrustDomain":"abcd.consul"}`))
	f.Add([]byte(`{"TrustDomain":null,"TrustDomain":""}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		td, err := LoadTrustDomain(data)
		if err == nil && td == "" {
			t.Fatal("an empty trust domain accepted")
		}
	})
}

// TestProtocols: the protocol each sidecar proxy's registration gives itself, as the health
// outputs of the proxies say it; proxies of one service that disagree are an error.
func TestProtocols(t *testing.T) {
	proxy := func(id, dest, config string) string {
		return `{"Node":{"Node":"n"},"Service":{"Kind":"connect-proxy","ID":"` + id + `","Service":"` + dest + `-sidecar-proxy","Proxy":{"DestinationServiceName":"` + dest + `"` + config + `}}}`
	}
	var a APIOutput
	require.NoError(t, a.ReadHealth("h.json", []byte("["+proxy("a1", "api", `,"Config":{"protocol":"HTTP","envoy_extra":{"x":1}}`)+","+
		proxy("a2", "api", `,"Config":{"protocol":"http"}`)+","+proxy("d1", "db", "")+"]")))
	got, err := a.Protocols()
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"api": "http"}, got, "lower-cased; a proxy without one gives none")

	require.NoError(t, a.ReadHealth("more.json", []byte("["+proxy("a3", "api", `,"Config":{"protocol":"tcp"}`)+"]")))
	_, err = a.Protocols()
	assert.ErrorContains(t, err, `the sidecar proxies of api give themselves different protocols: ["http" "tcp"]`)
	assert.ErrorContains(t, a.ReadHealth("bad.json", []byte("["+proxy("a4", "api", `,"Config":{"protocol":7}`)+"]")), "protocol")
}

// TestRender: the strings the example program prints.
func TestRender(t *testing.T) {
	n := CheckServiceNode{Node: &Node{Node: "gw-1"}, Service: &NodeService{ID: "web-sidecar-proxy-instance-0", Address: "10.0.0.1", Port: 8443},
		Checks: []*HealthCheck{{Status: StatusWarning}}}
	assert.Equal(t, "web-sidecar-proxy-instance-0 on gw-1 10.0.0.1:8443, warning", n.String())
	assert.Equal(t, "2 (1 warning, 1 no checks)", Health([]CheckServiceNode{n, {}}))
	assert.Equal(t, "0", Health(nil))
	d := ReplicationDiff{Services: []ServiceChange{{Key: svc("default", "db"), Before: ServiceState{As: AsChain, Start: "db.default.default.dc1", Protocol: "tcp"},
		After: ServiceState{As: AsChain, Start: "db2.default.default.dc1", Protocol: "tcp"}, Gained: []string{"spiffe://x/svc/db2"}}}}
	assert.Equal(t, []string{"default/default/db: chain → chain", "  + accepts spiffe://x/svc/db2", "  start target db.default.default.dc1 → db2.default.default.dc1"}, d.Lines())
	assert.Equal(t, []string{"no replication changes"}, ReplicationDiff{}.Lines())
	assert.Equal(t, []string{"service-resolver db: chain default/default/db: why"},
		Refused([]WriteOutcome{{Kind: "service-resolver", Name: "db", Reasons: []string{"chain default/default/db: why"}}, {Kind: "mesh", Accepted: true}}))
}
