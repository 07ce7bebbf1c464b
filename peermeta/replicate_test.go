package peermeta

import (
	"encoding/json"
	"fmt"
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
	assert.ErrorIs(t, rep.Excluded[0].Err, ErrReservedService)

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
