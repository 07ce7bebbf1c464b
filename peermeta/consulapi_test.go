//go:build upstream

// The tests that hold meshscope to the real API modules' types compile those modules, which
// takes longer than the rest of the suite: they build with the tag upstream
// (go test -tags upstream ./...), which .ci/run sets.

package peermeta

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/consul/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/exports"
)

// TestJSONReadsBackThroughConsulsAPI: the synthetic instances meshscope writes unmarshal into
// Consul's own API type for /v1/health/service output, and what that type writes back reads
// into the same instances. The PeerMeta they carry is written as Consul's agent writes it
// (its API clients have no field for it).
func TestJSONReadsBackThroughConsulsAPI(t *testing.T) {
	var gws []CheckServiceNode
	require.NoError(t, json.Unmarshal([]byte(gatewaysJSON), &gws))
	gws[0].Node.Datacenter, gws[0].Node.Partition, gws[0].Node.Meta = "dc1", "default", map[string]string{"k": "v"}
	meta := PeerMeta{SNI: []string{"db.default.default.east.external." + td}, SpiffeID: []string{svcID("", "default", "dc1", "db")}, Protocol: "tcp"}
	nodes := synthesize(exports.ServiceName{Name: "db"}, meta, gws)
	require.NotEmpty(t, nodes)
	b, err := json.Marshal(nodes[0].Service.Connect)
	require.NoError(t, err)
	assert.JSONEq(t, `{"PeerMeta":{"SNI":["db.default.default.east.external.`+td+`"],"SpiffeID":["`+svcID("", "default", "dc1", "db")+`"],"Protocol":"tcp"}}`, string(b),
		"PeerMeta as Consul's agent writes structs.PeeringServiceMeta")

	for i := range nodes {
		nodes[i].Service.Connect.PeerMeta = nil // no field for it in Consul's API type
		nodes[i].Service.Connect.Native = i == 0
		nodes[i].Service.Tags, nodes[i].Service.Meta = []string{"t"}, map[string]string{"m": "v"}
		if len(nodes[i].Checks) > 0 {
			nodes[i].Checks[0].Notes = "n"
		}
	}
	ours, err := json.Marshal(nodes)
	require.NoError(t, err)
	var theirs []api.ServiceEntry
	dec := json.NewDecoder(strings.NewReader(string(ours)))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&theirs), "every field meshscope writes is one Consul's API type has")
	back, err := json.Marshal(theirs)
	require.NoError(t, err)
	got, err := loadHealth(back)
	require.NoError(t, err)
	assert.Equal(t, nodes, got)
	assert.Equal(t, nodes[0].Service.Proxy.DestinationServiceID, theirs[0].Service.Proxy.DestinationServiceID)
	assert.Equal(t, api.ServiceKind(KindConnectProxy), theirs[0].Service.Kind)
}

// TestServiceKindsAreConsuls: the kinds Input.Kinds takes are Consul's.
func TestServiceKindsAreConsuls(t *testing.T) {
	for _, k := range []struct {
		ours   ServiceKind
		theirs api.ServiceKind
	}{
		{KindTypical, api.ServiceKindTypical}, {KindConnectProxy, api.ServiceKindConnectProxy},
		{KindMeshGateway, api.ServiceKindMeshGateway}, {KindTerminatingGateway, api.ServiceKindTerminatingGateway},
		{KindIngressGateway, api.ServiceKindIngressGateway}, {KindAPIGateway, api.ServiceKindAPIGateway},
	} {
		assert.Equal(t, string(k.theirs), string(k.ours))
		assert.True(t, k.ours.valid())
	}
}
