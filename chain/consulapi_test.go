//go:build upstream

// The tests that hold meshscope to the real API modules' types compile those modules, which
// takes longer than the rest of the suite: they build with the tag upstream
// (go test -tags upstream ./...), which .ci/run sets.

package chain_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/chain"
)

// TestJSONReadsBackThroughConsulsAPI: what meshscope writes for a service-resolver, with
// every field set, unmarshals into Consul's own API type, and what that type writes back
// reads into the same resolver. So an entry meshscope writes is one Consul's clients take as
// it is, and an entry Consul prints is one meshscope reads.
func TestJSONReadsBackThroughConsulsAPI(t *testing.T) {
	r := chain.ServiceResolver{
		Kind: chain.Kind, Name: "web", Namespace: "ops", Partition: "ap1", DefaultSubset: "v1",
		Subsets: map[string]chain.Subset{"v1": {Filter: "Service.Meta.version == v1", OnlyPassing: true}, "v2": {}},
		Failover: map[string]chain.Failover{
			"v1": {Service: "web-backup", ServiceSubset: "v2", Namespace: "dr", Datacenters: []string{"dc2", "dc3"}, Policy: &chain.FailoverPolicy{Mode: "order-by-locality", Regions: []string{"us-east-1"}}},
			"*":  {Targets: []chain.FailoverTarget{{Service: "a", ServiceSubset: "s", Partition: "ap2", Namespace: "n", Datacenter: "dc9"}, {Peer: "east"}}},
			"v2": {SamenessGroup: "g", Namespace: "n"},
		},
		ConnectTimeout: 15 * time.Second, RequestTimeout: 1500 * time.Millisecond,
		Meta: map[string]string{"owner": "team"},
		LoadBalancer: &chain.LoadBalancer{Policy: "ring_hash", RingHashConfig: &chain.RingHashConfig{MinimumRingSize: 1024, MaximumRingSize: 1 << 63},
			HashPolicies: []chain.HashPolicy{{Field: "cookie", FieldValue: "id", CookieConfig: &chain.CookieConfig{TTL: 9*time.Minute + 12*time.Second, Path: "/"}, Terminal: true}, {SourceIP: true}}},
		PrioritizeByLocality: &chain.PrioritizeByLocality{Mode: "failover"},
		CreateIndex:          7, ModifyIndex: 9,
	}
	rd := chain.ServiceResolver{Kind: chain.Kind, Name: "api", Redirect: &chain.Redirect{Service: "api-v2", ServiceSubset: "v1", Namespace: "n", Partition: "p", Datacenter: "dc2", Peer: "east", SamenessGroup: "g"},
		LoadBalancer: &chain.LoadBalancer{Policy: "least_request", LeastRequestConfig: &chain.LeastRequestConfig{ChoiceCount: 3}}, CreateIndex: 1, ModifyIndex: 1}
	for _, want := range []chain.ServiceResolver{r, rd} {
		ours, err := json.Marshal(want)
		require.NoError(t, err)
		var theirs api.ServiceResolverConfigEntry
		require.NoError(t, json.Unmarshal(ours, &theirs), "%s", ours)
		back, err := json.Marshal(&theirs)
		require.NoError(t, err)
		assert.JSONEq(t, string(ours), string(back), "Consul's API type writes what it read, every field")
		var got chain.ServiceResolver // decoded strictly, not validated: the values test every field
		require.NoError(t, json.Unmarshal(back, &got))
		assert.Equal(t, want, got)
	}

	var theirs api.ServiceResolverConfigEntry
	b, err := json.Marshal(r)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &theirs))
	assert.Equal(t, 552*time.Second, theirs.LoadBalancer.HashPolicies[0].CookieConfig.TTL, "a cookie's TTL is nanoseconds, which Consul's type reads")
	assert.Equal(t, 15*time.Second, theirs.ConnectTimeout, "the timeouts are duration strings, which Consul's type reads")
	assert.Contains(t, string(b), `"TTL":552000000000`)
	assert.Contains(t, string(b), `"ConnectTimeout":"15s"`)
}
