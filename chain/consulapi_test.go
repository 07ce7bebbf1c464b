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
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/testkit"
)

// TestJSONReadsBackThroughConsulsAPI: what meshscope writes for a service-resolver, with
// every field set, unmarshals into Consul's own API type, and what that type writes back
// reads into the same resolver. So an entry meshscope writes is one Consul's clients take as
// it is, and an entry Consul prints is one meshscope reads.
func TestJSONReadsBackThroughConsulsAPI(t *testing.T) {
	r := chain.ServiceResolver{
		Kind: "service-resolver", Name: "web", Namespace: "ops", Partition: "ap1", DefaultSubset: "v1",
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
	rd := chain.ServiceResolver{Kind: "service-resolver", Name: "api", Redirect: &chain.Redirect{Service: "api-v2", ServiceSubset: "v1", Namespace: "n", Partition: "p", Datacenter: "dc2", Peer: "east", SamenessGroup: "g"},
		LoadBalancer: &chain.LoadBalancer{Policy: "least_request", LeastRequestConfig: &chain.LeastRequestConfig{ChoiceCount: 3}}, CreateIndex: 1, ModifyIndex: 1}
	// Read back, each is decoded strictly, not validated: the values test every field.
	testkit.ReadsBack(t, rd, &api.ServiceResolverConfigEntry{})
	var theirs api.ServiceResolverConfigEntry
	b := testkit.ReadsBack(t, r, &theirs)
	assert.Equal(t, 552*time.Second, theirs.LoadBalancer.HashPolicies[0].CookieConfig.TTL, "a cookie's TTL is nanoseconds, which Consul's type reads")
	assert.Equal(t, 15*time.Second, theirs.ConnectTimeout, "the timeouts are duration strings, which Consul's type reads")
	assert.Contains(t, string(b), `"TTL":552000000000`)
	assert.Contains(t, string(b), `"ConnectTimeout":"15s"`)
}

// TestRoutingReadsBackThroughConsulsAPI: what meshscope writes for a service-router and a
// service-splitter, every field set, unmarshals into Consul's own API types, and what those
// write back reads into the same entries.
func TestRoutingReadsBackThroughConsulsAPI(t *testing.T) {
	router := chain.ServiceRouter{Kind: "service-router", Name: "web", Namespace: "ops", Partition: "ap1", Meta: map[string]string{"k": "v"}, CreateIndex: 3, ModifyIndex: 4,
		Routes: []chain.ServiceRoute{{
			Match: &chain.ServiceRouteMatch{HTTP: &chain.ServiceRouteHTTPMatch{PathPrefix: "/api",
				Header:     []chain.ServiceRouteHTTPMatchHeader{{Name: "a", Exact: "1", Invert: true}, {Name: "b", Present: true}, {Name: "c", Prefix: "p"}, {Name: "d", Suffix: "s"}, {Name: "e", Regex: "r.*"}},
				QueryParam: []chain.ServiceRouteHTTPMatchQueryParam{{Name: "q", Exact: "1"}, {Name: "r", Regex: "[0-9]"}, {Name: "s", Present: true}},
				Methods:    []string{"GET", "POST"}}},
			Destination: &chain.ServiceRouteDestination{Service: "api", ServiceSubset: "v1", Namespace: "n", Partition: "p", PrefixRewrite: "/",
				RequestTimeout: 2 * time.Second, IdleTimeout: 90 * time.Second, NumRetries: 3, RetryOnConnectFailure: true,
				RetryOn: []string{"5xx"}, RetryOnStatusCodes: []uint32{503},
				RequestHeaders:  &chain.HTTPHeaderModifiers{Add: map[string]string{"a": "1"}, Set: map[string]string{"b": "2"}, Remove: []string{"c"}},
				ResponseHeaders: &chain.HTTPHeaderModifiers{Remove: []string{"d"}}},
		}, {Match: &chain.ServiceRouteMatch{HTTP: &chain.ServiceRouteHTTPMatch{PathExact: "/x"}}}, {Match: &chain.ServiceRouteMatch{HTTP: &chain.ServiceRouteHTTPMatch{PathRegex: "/y.*"}}}},
	}
	splitter := chain.ServiceSplitter{Kind: "service-splitter", Name: "api", Namespace: "ops", Partition: "ap1", Meta: map[string]string{"k": "v"}, CreateIndex: 5, ModifyIndex: 6,
		Splits: []chain.ServiceSplit{{Weight: 33.33, Service: "a", ServiceSubset: "v1", Namespace: "n", Partition: "p",
			RequestHeaders: &chain.HTTPHeaderModifiers{Set: map[string]string{"x": "1"}}, ResponseHeaders: &chain.HTTPHeaderModifiers{Add: map[string]string{"y": "2"}}},
			{Weight: 66.67}}}
	testkit.ReadsBack(t, router, &api.ServiceRouterConfigEntry{})
	testkit.ReadsBack(t, splitter, &api.ServiceSplitterConfigEntry{})
}

// TestChainJSONReadsThroughConsulsAPI: json.Marshal of a chain reads into Consul's own API type for
// /v1/discovery-chain/:service, every node and target where meshscope put it.
func TestChainJSONReadsThroughConsulsAPI(t *testing.T) {
	var router chain.ServiceRouter
	require.NoError(t, json.Unmarshal([]byte(`{"Name":"web","Routes":[{"Match":{"HTTP":{"PathPrefix":"/api"}},"Destination":{"Service":"api","RequestTimeout":"2s"}}]}`), &router))
	c, err := chain.Compile(chain.Request{Service: exports.ServiceName{Name: "web"}, Datacenter: "dc1", TrustDomain: "td.consul"},
		chain.Entries{Routers: []chain.ServiceRouter{router}, DefaultProtocol: "http",
			Splitters: []chain.ServiceSplitter{{Name: "api", Splits: []chain.ServiceSplit{{Weight: 50, ServiceSubset: "v1"}, {Weight: 50, ServiceSubset: "v2"}}}},
			Resolvers: []chain.ServiceResolver{{Name: "api", ConnectTimeout: 3 * time.Second, Subsets: map[string]chain.Subset{"v1": {Filter: "f", OnlyPassing: true}, "v2": {}},
				Failover: map[string]chain.Failover{"*": {Datacenters: []string{"dc2"}}}}}})
	require.NoError(t, err)
	b, err := json.Marshal(c)
	require.NoError(t, err)
	var theirs api.CompiledDiscoveryChain
	require.NoError(t, json.Unmarshal(b, &theirs), "%s", b)
	assert.Equal(t, "web", theirs.ServiceName)
	assert.Equal(t, "http", theirs.Protocol)
	assert.Equal(t, c.StartNode, theirs.StartNode)
	require.Len(t, theirs.Nodes, len(c.Nodes))
	for k, n := range c.Nodes {
		assert.Equal(t, string(n.Type), theirs.Nodes[k].Type, k)
		assert.Equal(t, n.Name, theirs.Nodes[k].Name, k)
		for i, s := range n.Splits {
			assert.Equal(t, s.Weight, theirs.Nodes[k].Splits[i].Weight)
			assert.Equal(t, s.NextNode, theirs.Nodes[k].Splits[i].NextNode)
		}
		if n.Resolver != nil {
			assert.Equal(t, n.Resolver.ConnectTimeout, theirs.Nodes[k].Resolver.ConnectTimeout, k)
			assert.Equal(t, n.Resolver.Target, theirs.Nodes[k].Resolver.Target, k)
		}
	}
	route := theirs.Nodes["router:web.default.default"].Routes[0]
	assert.Equal(t, 2*time.Second, route.Definition.Destination.RequestTimeout)
	assert.Equal(t, "/api", route.Definition.Match.HTTP.PathPrefix)
	assert.Equal(t, []string{"v1.api.default.default.dc2"}, theirs.Nodes["resolver:v1.api.default.default.dc1"].Resolver.Failover.Targets)
	require.Len(t, theirs.Targets, len(c.Targets))
	v1 := theirs.Targets["v1.api.default.default.dc1"]
	assert.Equal(t, api.ServiceResolverSubset{Filter: "f", OnlyPassing: true}, v1.Subset)
	assert.Equal(t, 3*time.Second, v1.ConnectTimeout)
	assert.Equal(t, c.Targets["v1.api.default.default.dc1"].SNI, v1.SNI)
}
