package chain

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/exports"
)

func findingLines(c *Chain) []string {
	var out []string
	for _, f := range c.Findings() {
		out = append(out, f.String())
	}
	return out
}

// TestPeerTargetsThroughLocalResolvers: Consul finds a target's resolver by service,
// namespace and partition, so a peer target goes through the local resolver of its name;
// every chain in which one changes a peer target says so, in Explain and in Findings.
func TestPeerTargetsThroughLocalResolvers(t *testing.T) {
	toEast := ServiceResolver{Name: "web", Redirect: &Redirect{Service: "api", Peer: "east"}}
	const why = ": Consul finds a target's resolver by service, namespace and partition, not by peer"
	tests := []struct {
		name     string
		e        Entries
		start    string
		failover []string
		findings []string
	}{
		{"a redirect makes it local", resolvers(toEast, ServiceResolver{Name: "api", Redirect: &Redirect{Datacenter: "dc2"}}),
			"api.default.default.dc2", nil, []string{"the local service-resolver default/default/api governs this peer target and its Redirect makes it api.default.default.dc2"}},
		{"a default subset makes it local", resolvers(toEast, ServiceResolver{Name: "api", Subsets: map[string]Subset{"v1": {Filter: "Service.Meta.v == 1"}}, DefaultSubset: "v1"}),
			"v1.api.default.default.dc1", nil, []string{"the local service-resolver default/default/api governs this peer target and its DefaultSubset makes it v1.api.default.default.dc1"}},
		{"a connect timeout", resolvers(toEast, ServiceResolver{Name: "api", ConnectTimeout: 2 * time.Second}),
			"api.default.default.external.east", nil, []string{"the local service-resolver default/default/api governs this peer target and gives it its ConnectTimeout 2s"}},
		{"failover of a peer start target", resolvers(toEast, ServiceResolver{Name: "api", Failover: map[string]Failover{"*": {Targets: []FailoverTarget{{Peer: "west"}, {Datacenter: "dc2"}}}}}),
			"api.default.default.external.east", []string{"api.default.default.external.west", "api.default.default.dc2"},
			[]string{`the local service-resolver default/default/api governs this peer target and gives it the failover targets of its Failover["*"]`}},
		// Consul's server does not read the resolver of a failover target's service on a peer...
		{"a failover peer target: its namesake is not read", resolvers(ServiceResolver{Name: "web", Failover: map[string]Failover{"*": {Targets: []FailoverTarget{{Service: "api", Peer: "east"}}}}},
			ServiceResolver{Name: "api", Redirect: &Redirect{Service: "api-v2"}}),
			"web.default.default.dc1", []string{"api.default.default.external.east"}, nil},
		// ...unless the chain reaches that service locally too; then it governs the peer target.
		{"a failover peer target whose namesake the chain reads", resolvers(ServiceResolver{Name: "web", Failover: map[string]Failover{"*": {Targets: []FailoverTarget{{Service: "api"}, {Service: "api", Peer: "east"}}}}},
			ServiceResolver{Name: "api", Redirect: &Redirect{Service: "api-v2"}}),
			"web.default.default.dc1", []string{"api-v2.default.default.dc1", "api-v2.default.default.dc1"},
			[]string{"the local service-resolver default/default/api governs this peer target and its Redirect makes it api-v2.default.default.dc1"}},
		{"a peer target redirected to the start is dropped, and said", resolvers(ServiceResolver{Name: "web", Failover: map[string]Failover{"*": {Targets: []FailoverTarget{{Service: "api"}, {Service: "api", Peer: "east"}}}}},
			ServiceResolver{Name: "api", Redirect: &Redirect{Service: "web"}}),
			"web.default.default.dc1", nil,
			[]string{"the local service-resolver default/default/api governs this peer target and its Redirect makes it web.default.default.dc1"}},
		{"a peer redirect's namesake is read", resolvers(ServiceResolver{Name: "web", Redirect: &Redirect{Service: "api", Peer: "east"}},
			ServiceResolver{Name: "api", Redirect: &Redirect{Service: "api-v2"}}),
			"api-v2.default.default.dc1", nil,
			[]string{"the local service-resolver default/default/api governs this peer target and its Redirect makes it api-v2.default.default.dc1"}},
		{"a peer redirect's namesake gives its default subset", resolvers(ServiceResolver{Name: "web", Redirect: &Redirect{Service: "api", Peer: "east"}},
			ServiceResolver{Name: "api", Subsets: map[string]Subset{"v1": {OnlyPassing: true}}, DefaultSubset: "v1"}),
			"v1.api.default.default.dc1", nil,
			[]string{"the local service-resolver default/default/api governs this peer target and its DefaultSubset makes it v1.api.default.default.dc1"}},
		{"a resolver that changes nothing", resolvers(toEast, ServiceResolver{Name: "api", Meta: map[string]string{"owner": "x"}}),
			"api.default.default.external.east", nil, nil},
		{"a failover section that gives nothing", resolvers(toEast, ServiceResolver{Name: "api", Failover: map[string]Failover{"*": {Targets: []FailoverTarget{{Peer: "east"}}}}}),
			"api.default.default.external.east", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := compileOK(t, Request{Service: exports.ServiceName{Name: "web"}, Datacenter: "dc1", TrustDomain: td}, tt.e)
			assert.Equal(t, tt.start, c.Start)
			assert.Equal(t, tt.failover, c.Targets[c.Start].Failover)
			var msgs []string
			for _, f := range c.Findings() {
				assert.Equal(t, PeerTargetResolvedLocally, f.Code)
				assert.Equal(t, "warning", string(f.Level))
				msgs = append(msgs, strings.TrimSuffix(f.Message, why))
			}
			assert.Equal(t, tt.findings, msgs)
			for _, m := range tt.findings {
				assert.Contains(t, c.Explain(), m, "Explain says so too")
			}
		})
	}
}

func TestPeerTargetErrorsThroughLocalResolvers(t *testing.T) {
	req := Request{Service: exports.ServiceName{Name: "web"}, Datacenter: "dc1", TrustDomain: td}
	_, err := Compile(req, resolvers(
		ServiceResolver{Name: "web", Redirect: &Redirect{Service: "api", Peer: "east"}},
		ServiceResolver{Name: "api", Redirect: &Redirect{Service: "web", ServiceSubset: "v2"}},
		ServiceResolver{Name: "web", Namespace: "ops"},
	))
	require.Error(t, err, "a cycle through a peer target")
	_, err = Compile(Request{Service: exports.ServiceName{Name: "api"}, Datacenter: "dc1", TrustDomain: td}, resolvers(
		ServiceResolver{Name: "api", Subsets: map[string]Subset{"v2": {}}, DefaultSubset: "v2", Failover: map[string]Failover{"v2": {Targets: []FailoverTarget{{Service: "db", Peer: "east"}}}}},
		ServiceResolver{Name: "db", Redirect: &Redirect{Service: "api", Peer: "east"}},
	))
	require.NoError(t, err)

	// The subset a peer target keeps is checked against the local resolver of its name.
	_, err = Compile(Request{Service: exports.ServiceName{Name: "api"}, Datacenter: "dc1", TrustDomain: td}, resolvers(
		ServiceResolver{Name: "api", Subsets: map[string]Subset{"v2": {}}, DefaultSubset: "v2", Failover: map[string]Failover{"v2": {Targets: []FailoverTarget{{Service: "api", Peer: "east"}}}}},
	))
	require.NoError(t, err, "api's own resolver has v2")
	c := compileOK(t, Request{Service: exports.ServiceName{Name: "web"}, Datacenter: "dc1", TrustDomain: td}, resolvers(
		ServiceResolver{Name: "web", Subsets: map[string]Subset{"v2": {}}, DefaultSubset: "v2", Failover: map[string]Failover{"*": {Targets: []FailoverTarget{{Peer: "east"}}}}},
	))
	assert.Equal(t, "v2", c.Targets["web.default.default.external.east"].Subset)
	_, err = Compile(Request{Service: exports.ServiceName{Name: "web"}, Datacenter: "dc1", TrustDomain: td}, resolvers(
		ServiceResolver{Name: "web", Redirect: &Redirect{Service: "web", Peer: "east", Namespace: "ops"}},
		ServiceResolver{Name: "web", Namespace: "ops", Redirect: &Redirect{Service: "web", Namespace: "ops", Peer: "east"}},
	))
	require.NoError(t, err, "a redirect to the same ID is a no-op")
}
