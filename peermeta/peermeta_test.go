package peermeta

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/sni"
	"github.com/meshscope/meshscope/spiffe"

	"github.com/meshscope/meshscope/internal/longtest"
)

const td = "11111111-2222-3333-4444-555555555555.consul"

var exporter = Exporter{Peer: "east", Datacenter: "dc1", TrustDomain: td}

func compile(t testing.TB, req chain.Request, e chain.Entries) *chain.Chain {
	t.Helper()
	if req.TrustDomain == "" {
		req.TrustDomain = td
	}
	if req.Datacenter == "" {
		req.Datacenter = "dc1"
	}
	c, err := chain.Compile(req, e)
	require.NoError(t, err)
	return c
}

func svcID(partition, ns, dc, name string) string {
	return spiffe.Service{TrustDomain: td, Partition: partition, Namespace: ns, Datacenter: dc, Service: name}.String()
}

func TestBuild(t *testing.T) {
	mysqlFailover := chain.Entries{Resolvers: []chain.ServiceResolver{{Name: "mysql", Failover: map[string]chain.Failover{"*": {Service: "failover"}}}}}
	gw := "spiffe://" + td + "/gateway/mesh/dc/dc1"
	tests := []struct {
		name     string
		x        Exporter
		req      chain.Request
		e        chain.Entries
		sni      string
		ids      []string
		protocol string
	}{
		{"tcp with failover: [svc mysql, gateway dc1, svc failover]", exporter, chain.Request{Service: exports.ServiceName{Name: "mysql"}}, mysqlFailover,
			"mysql.default.default.east.external." + td,
			[]string{svcID("", "default", "dc1", "mysql"), gw, svcID("", "default", "dc1", "failover")}, "tcp"},
		{"http keeps the service and the gateway only", exporter, chain.Request{Service: exports.ServiceName{Name: "mysql"}},
			chain.Entries{Resolvers: mysqlFailover.Resolvers, DefaultProtocol: "http"},
			"mysql.default.default.east.external." + td,
			[]string{svcID("", "default", "dc1", "mysql"), gw}, "http"},
		{"grpc is http-like", exporter, chain.Request{Service: exports.ServiceName{Name: "api"}}, chain.Entries{DefaultProtocol: "grpc"},
			"api.default.default.east.external." + td, []string{svcID("", "default", "dc1", "api"), gw}, "grpc"},
		{"failover to another datacenter", exporter, chain.Request{Service: exports.ServiceName{Name: "db"}},
			chain.Entries{Resolvers: []chain.ServiceResolver{{Name: "db", Failover: map[string]chain.Failover{"*": {Datacenters: []string{"dc2", "dc3"}}}}}},
			"db.default.default.east.external." + td,
			[]string{svcID("", "default", "dc1", "db"), gw, svcID("", "default", "dc2", "db"), svcID("", "default", "dc3", "db")}, "tcp"},
		{"redirect: the target's identity, not a repeat", exporter, chain.Request{Service: exports.ServiceName{Name: "web"}},
			chain.Entries{Resolvers: []chain.ServiceResolver{{Name: "web", Redirect: &chain.Redirect{Service: "web-v2"}}}},
			"web.default.default.east.external." + td,
			[]string{svcID("", "default", "dc1", "web"), gw, svcID("", "default", "dc1", "web-v2")}, "tcp"},
		{"peer targets add no identity", exporter, chain.Request{Service: exports.ServiceName{Name: "web"}},
			chain.Entries{Resolvers: []chain.ServiceResolver{{Name: "web", Failover: map[string]chain.Failover{"*": {Targets: []chain.FailoverTarget{{Peer: "west"}}}}}}},
			"web.default.default.east.external." + td,
			[]string{svcID("", "default", "dc1", "web"), gw}, "tcp"},
		{"partition and namespace", Exporter{Peer: "east", Partition: "retail", Datacenter: "dc1", TrustDomain: td},
			chain.Request{Service: exports.ServiceName{Partition: "retail", Namespace: "shop", Name: "cart"}}, chain.Entries{},
			"cart.shop.retail.east.external." + td,
			[]string{svcID("retail", "shop", "dc1", "cart"), "spiffe://" + td + "/ap/retail/gateway/mesh/dc/dc1"}, "tcp"},
		{"subsets share the service's identity", exporter, chain.Request{Service: exports.ServiceName{Name: "api"}},
			chain.Entries{Resolvers: []chain.ServiceResolver{{Name: "api", Subsets: map[string]chain.Subset{"v1": {}, "v2": {}}, DefaultSubset: "v1",
				Failover: map[string]chain.Failover{"v1": {ServiceSubset: "v2"}}}}},
			"api.default.default.east.external." + td,
			[]string{svcID("", "default", "dc1", "api"), gw}, "tcp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Build(tt.x, compile(t, tt.req, tt.e))
			assert.Equal(t, PeerMeta{SNI: []string{tt.sni}, SpiffeID: tt.ids, Protocol: tt.protocol}, m)
			assert.Equal(t, tt.sni, m.PrimarySNI())
			n, err := sni.Parse(m.PrimarySNI(), td)
			require.NoError(t, err)
			assert.IsType(t, sni.Peered{}, n)
			for _, id := range m.SpiffeID {
				_, err := spiffe.Parse(id)
				require.NoError(t, err)
			}
		})
	}
	assert.Equal(t, PeerMeta{}, Build(exporter, nil))
	var none *PeerMeta
	assert.Equal(t, "", none.PrimarySNI())
}

func TestPeerMetaJSON(t *testing.T) {
	m := Build(exporter, compile(t, chain.Request{Service: exports.ServiceName{Name: "web"}}, chain.Entries{}))
	b, err := json.Marshal(m)
	require.NoError(t, err)
	assert.JSONEq(t, `{"SNI":["web.default.default.east.external.`+td+`"],"SpiffeID":["spiffe://`+td+`/ns/default/dc/dc1/svc/web","spiffe://`+td+`/gateway/mesh/dc/dc1"],"Protocol":"tcp"}`, string(b))
}

func TestExplain(t *testing.T) {
	c := compile(t, chain.Request{Service: exports.ServiceName{Name: "mysql"}}, chain.Entries{Resolvers: []chain.ServiceResolver{
		{Name: "mysql", Failover: map[string]chain.Failover{"*": {Targets: []chain.FailoverTarget{{Service: "backup"}, {Datacenter: "dc2"}}}}},
		{Name: "backup", Redirect: &chain.Redirect{Service: "mysql-replica"}},
	}})
	_, origins := build(exporter, c)
	var got []string
	for _, o := range origins {
		via := ""
		if len(o.Via) > 0 {
			via = " via " + o.Via[0].Field
		}
		got = append(got, fmt.Sprintf("%s %s %v%s", strings.TrimPrefix(o.SpiffeID, "spiffe://"+td), o.From, o.Targets, via))
	}
	assert.Equal(t, []string{
		"/ns/default/dc/dc1/svc/mysql service [mysql.default.default.dc1] via request",
		"/gateway/mesh/dc/dc1 mesh-gateway []",
		"/ns/default/dc/dc1/svc/mysql-replica target [mysql-replica.default.default.dc1] via Failover[\"*\"].Targets[0]",
		"/ns/default/dc/dc2/svc/mysql target [mysql.default.default.dc2] via Failover[\"*\"].Targets[1]",
	}, got)
	assert.Equal(t, Build(exporter, c).SpiffeID, func() []string {
		var ids []string
		for _, o := range origins {
			ids = append(ids, o.SpiffeID)
		}
		return ids
	}())
}

func TestExporterValidate(t *testing.T) {
	assert.NoError(t, exporter.Validate())
	err := Exporter{Peer: "East", Partition: "a.b", Datacenter: "", TrustDomain: "x..y"}.Validate()
	assert.EqualError(t, err, strings.Join([]string{
		`Exporter.Peer: "East" must be lower case`,
		`Exporter.Partition: "a.b" must not contain "." (the label separator)`,
		`Exporter.Datacenter: "" must not be empty`,
		`Exporter.TrustDomain: "x..y" must not have an empty label (a leading, trailing or doubled ".")`,
	}, "\n"))
}

// TestProtocolSwitchKeepsIdentities: switching a chain between tcp and http never removes
// the service's or the gateway's identity; tcp adds every local target's, http nothing more.
func TestProtocolSwitchKeepsIdentities(t *testing.T) {
	r := rand.New(rand.NewPCG(81, 82))
	services := []string{"a", "b", "c", "d"}
	for range longtest.N(300, 3000) {
		var rs []chain.ServiceResolver
		for _, s := range services {
			switch r.IntN(4) {
			case 0:
				rs = append(rs, chain.ServiceResolver{Name: s, Redirect: &chain.Redirect{Service: services[r.IntN(len(services))], Datacenter: []string{"", "dc2"}[r.IntN(2)]}})
			case 1:
				var targets []chain.FailoverTarget
				for range 1 + r.IntN(3) {
					targets = append(targets, chain.FailoverTarget{Service: services[r.IntN(len(services))], Datacenter: []string{"", "dc2", "dc3"}[r.IntN(3)]})
				}
				rs = append(rs, chain.ServiceResolver{Name: s, Failover: map[string]chain.Failover{"*": {Targets: targets}}})
			}
		}
		x := exporter
		if r.IntN(2) == 0 {
			x.Partition = "default"
		}
		svc := services[r.IntN(len(services))]
		req := chain.Request{Service: exports.ServiceName{Name: svc}, Datacenter: "dc1", TrustDomain: td}
		tcp, errT := chain.Compile(req, chain.Entries{Resolvers: rs})
		http, errH := chain.Compile(req, chain.Entries{Resolvers: rs, DefaultProtocol: "http"})
		require.Equal(t, errT == nil, errH == nil)
		if errT != nil {
			continue // a redirect cycle
		}
		mt, mh := Build(x, tcp), Build(x, http)
		own := svcID("", "default", "dc1", svc)
		gw := spiffe.MeshGateway{TrustDomain: td, Datacenter: "dc1"}.String()
		for _, m := range []PeerMeta{mt, mh} {
			require.Equal(t, own, m.SpiffeID[0])
			require.Equal(t, gw, m.SpiffeID[1])
			require.Equal(t, m.SNI, mt.SNI, "the protocol never changes the SNI")
		}
		require.Len(t, mh.SpiffeID, 2)
		for _, id := range tcp.TargetIDs() {
			tg := tcp.Targets[id]
			require.Contains(t, mt.SpiffeID, svcID(tg.Service.Partition, tg.Service.Namespace, tg.Datacenter, tg.Service.Name))
		}
		require.Equal(t, len(mt.SpiffeID), len(slices.Compact(slices.Sorted(slices.Values(mt.SpiffeID)))), "no identity twice")
	}
}

// FuzzExporter: for every exporter Validate accepts, Build gives an SNI that parses back as
// the peered name and SPIFFE IDs that parse.
func FuzzExporter(f *testing.F) {
	f.Add("east", "", "dc1", td, "web", "default")
	f.Add("east", "retail", "dc_2", "t.consul", "cart", "shop")
	f.Add("East", "a.b", "", "x..y", "a", "b")
	f.Fuzz(func(t *testing.T, peer, partition, dc, trustDomain, service, namespace string) {
		x := Exporter{Peer: peer, Partition: partition, Datacenter: dc, TrustDomain: trustDomain}
		if x.Validate() != nil {
			return
		}
		c, err := chain.Compile(chain.Request{Service: exports.ServiceName{Partition: partition, Namespace: namespace, Name: service}, Datacenter: dc, TrustDomain: trustDomain}, chain.Entries{})
		if err != nil {
			return // the service or namespace cannot be a name
		}
		m := Build(x, c)
		n, err := sni.Parse(m.PrimarySNI(), trustDomain)
		if err != nil {
			t.Fatalf("SNI %q does not parse: %v", m.PrimarySNI(), err)
		}
		want := sni.Peered{Service: c.Service.Name, Namespace: c.Service.Namespace, Partition: c.Service.Partition, Peer: peer, TrustDomain: trustDomain}
		if n != want {
			t.Fatalf("SNI parses as %#v, want %#v", n, want)
		}
		for _, id := range m.SpiffeID {
			if _, err := spiffe.Parse(id); err != nil {
				t.Fatalf("SPIFFE ID %q does not parse: %v", id, err)
			}
		}
	})
}

// TestBuildIsLinear pins the growth of Build's work, counted in allocations, for a tcp chain
// failing over to n datacenters: at 4n at most 5 times that at n.
func TestBuildIsLinear(t *testing.T) {
	x := Exporter{Peer: "east", Datacenter: "dc1", TrustDomain: td}
	allocs := func(n int) float64 {
		c := failoverChain(t, n)
		return testing.AllocsPerRun(3, func() { Build(x, c) })
	}
	small, large := allocs(250), allocs(1000)
	assert.Less(t, large, 5*small, "allocations at n=250: %v, at n=1000: %v", small, large)
}

func TestExporterCheckLocation(t *testing.T) {
	gw := func(node, dc, partition string) CheckServiceNode {
		return CheckServiceNode{Node: &Node{Node: node, Datacenter: dc}, Service: &NodeService{ID: node + "-gw", Partition: partition}}
	}
	x := Exporter{Peer: "east", Datacenter: "dc1", TrustDomain: td}
	assert.NoError(t, x.CheckLocation(nil))
	assert.NoError(t, x.CheckLocation([]CheckServiceNode{gw("a", "dc2", ""), gw("b", "", "")}), "an instance that says nothing may be here")
	assert.NoError(t, x.CheckLocation([]CheckServiceNode{gw("a", "dc2", "ap1"), gw("b", "dc1", "default")}))
	assert.EqualError(t, x.CheckLocation([]CheckServiceNode{gw("a", "dc2", "ap1"), gw("b", "dc3", "")}),
		`Exporter.Datacenter: every mesh gateway instance is in another datacenter (a in dc2, b in dc3); give the exporting datacenter, the gateways' own`)
	assert.EqualError(t, x.CheckLocation([]CheckServiceNode{gw("a", "dc1", "ap1")}),
		`Exporter.Partition: every mesh gateway instance is in another partition (a-gw in partition ap1); give the mesh gateways of the peerings' partition`)
}
