package peermeta

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

func replicationInput(t testing.TB) Input {
	x, err := exports.Compile(
		exports.ConfigEntry{Name: "default", Services: []exports.Service{
			{Name: "*", Consumers: []exports.Consumer{{Peer: "east"}}},
			{Name: "db", Consumers: []exports.Consumer{{Peer: "west"}}},
			{Name: "*", Namespace: "ops", Consumers: []exports.Consumer{{Peer: "east"}, {Peer: "west"}}},
		}},
		exports.ConfigEntry{Name: "retail", Services: []exports.Service{{Name: "cart", Consumers: []exports.Consumer{{Peer: "east"}}}}},
	)
	require.NoError(t, err)
	var gws []CheckServiceNode
	require.NoError(t, json.Unmarshal([]byte(gatewaysJSON), &gws))
	return Input{
		Exporter: Exporter{Peer: "east", Datacenter: "dc1", TrustDomain: td},
		Exports:  x,
		Catalog: []exports.ServiceName{
			{Name: "web"}, {Name: "db"}, {Name: "loop"}, {Name: "sneaky"}, {Name: "consul"},
			{Namespace: "ops", Name: "metrics"}, {Partition: "retail", Name: "cart"}, {Name: "legacy"}, {Name: "far"},
		},
		Connect: []exports.ServiceName{{Namespace: "ops", Name: "metrics"}, {Partition: "retail", Name: "cart"}},
		Entries: chain.Entries{
			Resolvers: []chain.ServiceResolver{
				{Name: "web", Failover: map[string]chain.Failover{"*": {Targets: []chain.FailoverTarget{{Service: "web-backup"}}}}},
				{Name: "far", Failover: map[string]chain.Failover{"*": {Datacenters: []string{"dc2"}}}},
				{Name: "loop", Redirect: &chain.Redirect{Service: "loop2"}},
				{Name: "loop2", Redirect: &chain.Redirect{Service: "loop"}},
				{Name: "sneaky", Redirect: &chain.Redirect{Service: "consul"}},
			},
			Protocols: map[exports.ServiceName]string{{Namespace: "ops", Name: "metrics"}: "http"},
		},
		Gateways: gws,
	}
}

func TestReplicate(t *testing.T) {
	rep, err := Replicate(replicationInput(t))
	require.NoError(t, err)
	var got []string
	for _, s := range rep.Services {
		got = append(got, fmt.Sprintf("%s rule %d %s %d ids %s, %d instances", s.Service, s.Rule, s.PeerMeta.PrimarySNI(), len(s.PeerMeta.SpiffeID), s.PeerMeta.Protocol, len(s.Instances)))
	}
	assert.Equal(t, []string{
		"default/default/web rule 0 web.default.default.east.external." + td + " 3 ids tcp, 2 instances",
		"default/ops/metrics rule 2 metrics.ops.default.east.external." + td + " 2 ids http, 2 instances",
	}, got, "db goes to west only; the retail partition has its own peerings; consul never")
	assert.Equal(t, []exports.ServiceName{{Partition: "default", Namespace: "default", Name: "legacy"}}, rep.Plain,
		"not a connect service: replicated without a chain")
	assert.Equal(t, "gw-node-a", rep.Services[0].Instances[0].Node.Node, "gateways in node order")
	assert.Equal(t, "web-sidecar-proxy-instance-0", rep.Services[0].Instances[0].Service.ID)
	require.Len(t, rep.Failed, 3)
	assert.Equal(t, exports.ServiceName{Partition: "default", Namespace: "default", Name: "far"}, rep.Failed[0].Service)
	assert.Equal(t, `peer exported service "far" contains cross-datacenter failover`, rep.Failed[0].Err.Error())
	assert.ErrorIs(t, rep.Failed[0].Err, chain.ErrPeerExport)
	assert.Equal(t, exports.ServiceName{Partition: "default", Namespace: "default", Name: "loop"}, rep.Failed[1].Service)
	assert.Equal(t, "detected circular resolver redirect: [loop.default.default.dc1 -> loop2.default.default.dc1 -> loop.default.default.dc1]", rep.Failed[1].Err.Error())
	assert.ErrorIs(t, rep.Failed[1].Err, chain.ErrRedirectCycle)
	assert.Equal(t, "loop2", rep.Failed[2].Service.Name, "a resolver-only name is exported under a * rule")
	require.Len(t, rep.Excluded, 1)
	assert.Equal(t, "sneaky", rep.Excluded[0].Service.Name)
	assert.Equal(t, "its chain reaches the reserved consul service (target consul.default.default.dc1); it is never exported", rep.Excluded[0].Err.Error())
	assert.ErrorIs(t, rep.Excluded[0].Err, errReservedService)
	require.Len(t, rep.Findings, 1, "each failed or excluded service is reported once, in Failed or Excluded")
	var findings []string
	for _, f := range rep.AllFindings() {
		findings = append(findings, f.String())
	}
	assert.Equal(t, []string{
		`WARNING UnionDiffers default/default/db (peer east): Consul would also replicate db to east via Services[0]; meshscope applies only the most exact rule (Services[1])`,
		`ERROR NotReplicated default/default/far (peer east): peer exported service "far" contains cross-datacenter failover`,
		`ERROR NotReplicated default/default/loop (peer east): detected circular resolver redirect: [loop.default.default.dc1 -> loop2.default.default.dc1 -> loop.default.default.dc1]`,
		`ERROR NotReplicated default/default/loop2 (peer east): detected circular resolver redirect: [loop2.default.default.dc1 -> loop.default.default.dc1 -> loop2.default.default.dc1]`,
		`WARNING Excluded default/default/sneaky (peer east): its chain reaches the reserved consul service (target consul.default.default.dc1); it is never exported`,
	}, findings)

	in := replicationInput(t)
	in.Exporter = Exporter{Peer: "east", Partition: "retail", Datacenter: "dc1", TrustDomain: td}
	rep, err = Replicate(in)
	require.NoError(t, err)
	require.Len(t, rep.Services, 1)
	assert.Equal(t, "cart.default.retail.east.external."+td, rep.Services[0].PeerMeta.PrimarySNI())
	assert.Equal(t, "spiffe://"+td+"/ap/retail/gateway/mesh/dc/dc1", rep.Services[0].PeerMeta.SpiffeID[1])
}

func TestReplicateErrors(t *testing.T) {
	in := replicationInput(t)
	in.Exporter.Peer = "East"
	_, err := Replicate(in)
	assert.EqualError(t, err, `Exporter.Peer: "East" must be lower case`)
	in = replicationInput(t)
	in.Entries.Resolvers = append(in.Entries.Resolvers, chain.ServiceResolver{Name: "bad", Redirect: &chain.Redirect{}})
	_, err = Replicate(in)
	assert.EqualError(t, err, "Resolvers[5] (default/default/bad): Redirect: Redirect is empty")
}

func TestReplicateDeterministic(t *testing.T) {
	in := replicationInput(t)
	want, err := Replicate(in)
	require.NoError(t, err)
	for i := range 10 {
		in.Catalog[0], in.Catalog[len(in.Catalog)-1-i%3] = in.Catalog[len(in.Catalog)-1-i%3], in.Catalog[0]
		in.Gateways[0], in.Gateways[1] = in.Gateways[1], in.Gateways[0]
		got, err := Replicate(in)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
}

// TestReplicateKinds: a "*" rule exports typical catalog services and resolver names only,
// as Consul lists only ServiceKindTypical names for "*"; an exact rule exports the service it
// names whatever its kind; a service of unknown kind is reported where a "*" rule would
// match it, and not replicated.
func TestReplicateKinds(t *testing.T) {
	x, err := exports.Compile(exports.ConfigEntry{Name: "default", Services: []exports.Service{
		{Name: "*", Consumers: []exports.Consumer{{Peer: "east"}}},
		{Name: "ingress", Consumers: []exports.Consumer{{Peer: "east"}}},
	}})
	require.NoError(t, err)
	in := Input{
		Exporter: Exporter{Peer: "east", Datacenter: "dc1", TrustDomain: td},
		Exports:  x,
		Catalog:  []exports.ServiceName{{Name: "web"}, {Name: "web-sidecar-proxy"}, {Name: "mesh-gateway"}, {Name: "ingress"}, {Name: "tgw"}, {Name: "api"}},
		Kinds: map[exports.ServiceName]ServiceKind{
			{Name: "web-sidecar-proxy"}: KindConnectProxy, {Partition: "default", Namespace: "default", Name: "mesh-gateway"}: KindMeshGateway,
			{Name: "ingress"}: KindIngressGateway, {Name: "tgw"}: KindTerminatingGateway, {Name: "web"}: KindTypical, {Name: "api"}: KindAPIGateway,
		},
		Unclassified: []exports.ServiceName{{Name: "mystery"}, {Name: "routed"}},
		Entries:      chain.Entries{Resolvers: []chain.ServiceResolver{{Name: "routed", ConnectTimeout: 2e9}}},
		Connect:      []exports.ServiceName{{Name: "web"}},
	}
	rep, err := Replicate(in)
	require.NoError(t, err)
	var got []string
	for _, s := range rep.Services {
		got = append(got, s.Service.Name)
	}
	assert.Equal(t, []string{"routed", "web"}, got, "a resolver name is exported by * whatever the catalog says")
	assert.Equal(t, []exports.ServiceName{{Partition: "default", Namespace: "default", Name: "ingress"}}, rep.Plain, "the exact rule exports a gateway by name")
	require.Len(t, rep.Findings, 1)
	assert.Equal(t, Finding{Path: "default/default/mystery (peer east)", Code: UnknownKind, Level: "warning",
		Message: `its service kind is unknown; Services[0] (wildcard name) exports only typical services, so it is not replicated: give its kind with ` +
			`catalog output that says kinds (/v1/internal/ui/services or /v1/catalog/service/<name>; /v1/catalog/services does not), ` +
			`or the /v1/health/service/<name> output of its instances`}, rep.Findings[0], "the finding says which input gives kinds")
	in.KindsFrom = "-catalog"
	rep, err = Replicate(in)
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(rep.Findings[0].Message, "so it is not replicated: give its kind with -catalog"), "a program names its own input: %s", rep.Findings[0].Message)
	in.KindsFrom = ""

	in.Kinds[exports.ServiceName{Name: "x"}] = "sidecar"
	_, err = Replicate(in)
	assert.ErrorContains(t, err, `Kinds[default/default/x]: "sidecar" is not a service kind`)
}

// TestReplicateUnion: where Consul's union of rules replicates a service the one rule does
// not export to the peer, Replicate says so.
func TestReplicateUnion(t *testing.T) {
	x, err := exports.Compile(exports.ConfigEntry{Name: "default", Services: []exports.Service{
		{Name: "*", Consumers: []exports.Consumer{{Peer: "east"}}},
		{Name: "db", Consumers: []exports.Consumer{{Peer: "west"}}},
	}})
	require.NoError(t, err)
	in := Input{Exporter: Exporter{Peer: "east", Datacenter: "dc1", TrustDomain: td}, Exports: x,
		Catalog: []exports.ServiceName{{Name: "db"}, {Name: "web"}, {Name: "db-sidecar-proxy"}},
		Kinds:   map[exports.ServiceName]ServiceKind{{Name: "db-sidecar-proxy"}: KindConnectProxy}}
	rep, err := Replicate(in)
	require.NoError(t, err)
	assert.Equal(t, []exports.ServiceName{{Partition: "default", Namespace: "default", Name: "web"}}, rep.Plain)
	assert.Equal(t, []Finding{{Path: "default/default/db (peer east)", Code: UnionDiffers, Level: "warning",
		Message: "Consul would also replicate db to east via Services[0]; meshscope applies only the most exact rule (Services[1])"}}, rep.Findings,
		"Consul's union does not give east the sidecar proxy either: a * rule lists typical services")
}

func TestCheckGateways(t *testing.T) {
	var gws []CheckServiceNode
	require.NoError(t, json.Unmarshal([]byte(gatewaysJSON), &gws))
	assert.Empty(t, CheckGateways(gws))
	assert.Equal(t, []Finding{{Path: "mesh gateways", Code: NoMeshGateway, Level: "warning", Message: "no mesh gateway instances: peers can reach no exported service"}}, CheckGateways(nil))
	for i := range gws {
		gws[i].Checks = []*HealthCheck{{CheckID: "c", Status: StatusCritical}}
	}
	got := CheckGateways(gws)
	require.Len(t, got, 1)
	assert.Equal(t, GatewaysCritical, got[0].Code)
	assert.Equal(t, "all 2 mesh gateway instances are critical: peers can reach no exported service", got[0].Message)
}

// TestReplicatePeerTargetResolvedLocally: the chain's findings reach the replication's, and
// a peer target a local resolver makes local counts as a local target: its identity is in
// a tcp PeerMeta.
func TestReplicatePeerTargetResolvedLocally(t *testing.T) {
	x, err := exports.Compile(exports.ConfigEntry{Name: "default", Services: []exports.Service{{Name: "web", Consumers: []exports.Consumer{{Peer: "north"}}}}})
	require.NoError(t, err)
	in := Input{Exporter: Exporter{Peer: "north", Datacenter: "dc1", TrustDomain: td}, Exports: x, Entries: chain.Entries{Resolvers: []chain.ServiceResolver{
		{Name: "web", Failover: map[string]chain.Failover{"*": {Targets: []chain.FailoverTarget{{Service: "api"}, {Service: "api", Peer: "east"}}}}},
		{Name: "api", Redirect: &chain.Redirect{Service: "api-v2"}},
	}}} // web reaches api locally too, so Consul's server reads api's resolver for web's chain
	rep, err := Replicate(in)
	require.NoError(t, err)
	require.Len(t, rep.Services, 1)
	assert.Equal(t, []string{svcID("", "default", "dc1", "web"), "spiffe://" + td + "/gateway/mesh/dc/dc1", svcID("", "default", "dc1", "api-v2")}, rep.Services[0].PeerMeta.SpiffeID)
	require.Len(t, rep.Findings, 1)
	assert.Equal(t, chain.PeerTargetResolvedLocally, rep.Findings[0].Code)
	assert.Equal(t, "chain default/default/web, target api.default.default.external.east", rep.Findings[0].Path)
}
