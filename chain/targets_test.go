package chain

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/testkit"
)

func TestTargetsCarryProxySettings(t *testing.T) {
	lb := &LoadBalancer{Policy: "ring_hash", RingHashConfig: &RingHashConfig{MinimumRingSize: 1024, MaximumRingSize: 1 << 63},
		HashPolicies: []HashPolicy{{Field: "cookie", FieldValue: "id", CookieConfig: &CookieConfig{TTL: time.Minute, Path: "/"}}}}
	policy := &FailoverPolicy{Mode: "order-by-locality", Regions: []string{"us-east-1", "us-west-2"}}
	e := resolvers(
		ServiceResolver{Name: "main", ConnectTimeout: 2 * time.Second, RequestTimeout: 30 * time.Second, LoadBalancer: lb,
			Subsets:       map[string]Subset{"v1": {Filter: "Service.Meta.version == v1", OnlyPassing: true}},
			DefaultSubset: "v1",
			Failover:      map[string]Failover{"v1": {Targets: []FailoverTarget{{Service: "backup"}, {Peer: "east"}, {Service: "other"}}, Policy: policy}}},
		ServiceResolver{Name: "backup", RequestTimeout: time.Second},
		ServiceResolver{Name: "other", Redirect: &Redirect{Service: "final"}},
	)
	c := compileOK(t, mainReq, e)
	start := c.Targets["v1.main.default.default.dc1"]
	assert.Equal(t, 2*time.Second, start.ConnectTimeout)
	assert.Equal(t, 30*time.Second, start.RequestTimeout)
	assert.Equal(t, "Service.Meta.version == v1", start.Filter)
	assert.True(t, start.OnlyPassing)
	assert.Equal(t, lb, start.LoadBalancer)
	assert.Equal(t, policy, start.FailoverPolicy, "the start carries the policy of the section that produced its failover")

	backup := c.Targets["backup.default.default.dc1"]
	assert.Equal(t, defaultConnectTimeout, backup.ConnectTimeout, "5s when the resolver sets none")
	assert.Equal(t, time.Second, backup.RequestTimeout)
	assert.Nil(t, backup.LoadBalancer)
	assert.Nil(t, backup.FailoverPolicy, "failover targets carry no policy")
	assert.Empty(t, backup.Filter)

	final := c.Targets["final.default.default.dc1"]
	assert.Equal(t, defaultConnectTimeout, final.ConnectTimeout, "settings come from the resolver of the target's own service, after redirects")

	peer := c.Targets["main.default.default.external.east"]
	assert.Equal(t, "v1", peer.Subset, "the peer target keeps the start's subset, as in Consul")
	assert.Equal(t, 2*time.Second, peer.ConnectTimeout, "a peer target carries the local resolver of its name's settings, as in Consul")
	assert.Equal(t, lb, peer.LoadBalancer)
	assert.Equal(t, "Service.Meta.version == v1", peer.Filter)
	assert.Equal(t, []string{
		"WARNING PeerTargetResolvedLocally chain default/default/main, target main.default.default.external.east: the local service-resolver default/default/main governs this peer target and gives it its ConnectTimeout 2s, its RequestTimeout 30s, its LoadBalancer, the Filter and OnlyPassing of Subsets[\"v1\"]: Consul finds a target's resolver by service, namespace and partition, not by peer",
	}, findingLines(c))

	// No failover: no policy, even when the section has one.
	c = compileOK(t, mainReq, resolvers(ServiceResolver{Name: "main", Failover: map[string]Failover{"*": {Service: "main", Policy: policy}}}))
	assert.Nil(t, c.Targets[c.Start].FailoverPolicy)
	assert.Empty(t, c.Targets[c.Start].Failover)
}

func TestLoadBalancerAndPolicyValidation(t *testing.T) {
	tests := []struct {
		name string
		r    ServiceResolver
		errs []string
	}{
		{"unknown policy", ServiceResolver{Name: "w", LoadBalancer: &LoadBalancer{Policy: "fastest"}}, []string{
			`LoadBalancer: Bad LoadBalancer policy: "fastest" is not supported`}},
		{"configs for another policy", ServiceResolver{Name: "w", LoadBalancer: &LoadBalancer{Policy: "random", RingHashConfig: &RingHashConfig{}, LeastRequestConfig: &LeastRequestConfig{}, HashPolicies: []HashPolicy{{SourceIP: true}}}}, []string{
			`LoadBalancer: Bad LoadBalancer configuration. RingHashConfig specified for incompatible load balancing policy "random"`,
			`LoadBalancer: Bad LoadBalancer configuration. LeastRequestConfig specified for incompatible load balancing policy "random"`,
			`LoadBalancer: Bad LoadBalancer configuration: HashPolicies specified for non-hash-based Policy: "random"`}},
		{"hash policies", ServiceResolver{Name: "w", LoadBalancer: &LoadBalancer{Policy: "maglev", HashPolicies: []HashPolicy{
			{Field: "body", FieldValue: "x"},
			{Field: "header", SourceIP: true, FieldValue: "x"},
			{Field: "header"},
			{FieldValue: "x"},
			{Field: "header", FieldValue: "x", CookieConfig: &CookieConfig{}},
			{Field: "cookie", FieldValue: "x", CookieConfig: &CookieConfig{Session: true, TTL: time.Second}},
		}}}, []string{
			`LoadBalancer.HashPolicies[0]: Bad LoadBalancer HashPolicy[0]: "body" is not a supported field`,
			`LoadBalancer.HashPolicies[1]: Bad LoadBalancer HashPolicy[1]: A single hash policy cannot hash both a source address and a "header"`,
			`LoadBalancer.HashPolicies[1]: Bad LoadBalancer HashPolicy[1]: A FieldValue cannot be specified when hashing SourceIP`,
			`LoadBalancer.HashPolicies[2]: Bad LoadBalancer HashPolicy[2]: Field "header" was specified without a FieldValue`,
			`LoadBalancer.HashPolicies[3]: Bad LoadBalancer HashPolicy[3]: FieldValue requires a Field to apply to`,
			`LoadBalancer.HashPolicies[4]: Bad LoadBalancer HashPolicy[4]: cookie_config provided for "header"`,
			`LoadBalancer.HashPolicies[5]: Bad LoadBalancer HashPolicy[5]: a session cookie cannot have an associated TTL`}},
		{"valid ring hash", ServiceResolver{Name: "w", LoadBalancer: &LoadBalancer{Policy: "ring_hash", RingHashConfig: &RingHashConfig{MinimumRingSize: 1}, HashPolicies: []HashPolicy{{SourceIP: true, Terminal: true}}}}, nil},
		{"failover policy mode", ServiceResolver{Name: "w", Failover: map[string]Failover{"*": {Service: "b", Policy: &FailoverPolicy{Mode: "nearest"}}}}, []string{
			`Failover["*"].Policy: Bad Failover["*"].Policy: Failover-policy mode must be one of '', 'sequential', or 'order-by-locality'`}},
		{"prioritize by locality mode", ServiceResolver{Name: "w", PrioritizeByLocality: &PrioritizeByLocality{Mode: "always"}}, []string{
			`PrioritizeByLocality: mode must be one of '', 'none', or 'failover'`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			testkit.ErrLines(t, tt.r.Validate(), tt.errs)
		})
	}
}

const lbJSON = `{"Kind":"service-resolver","Name":"web",
 "load_balancer":{"policy":"ring_hash","ring_hash_config":{"minimum_ring_size":1024,"maximum_ring_size":18446744073709551615},
   "hash_policies":[{"field":"cookie","field_value":"id","cookie_config":{"ttl":"10s","path":"/"},"terminal":true},{"source_ip":true}]},
 "Failover":{"*":{"Service":"b","Policy":{"Mode":"order-by-locality","Regions":["r1"]}}},
 "PrioritizeByLocality":{"Mode":"failover"}}`

func TestDecodeLoadBalancer(t *testing.T) {
	rs, err := loadResolvers([]byte(lbJSON))
	require.NoError(t, err)
	want := &LoadBalancer{Policy: "ring_hash", RingHashConfig: &RingHashConfig{MinimumRingSize: 1024, MaximumRingSize: 18446744073709551615},
		HashPolicies: []HashPolicy{{Field: "cookie", FieldValue: "id", CookieConfig: &CookieConfig{TTL: 10 * time.Second, Path: "/"}, Terminal: true}, {SourceIP: true}}}
	assert.Equal(t, want, rs[0].LoadBalancer)
	assert.Equal(t, &FailoverPolicy{Mode: "order-by-locality", Regions: []string{"r1"}}, rs[0].Failover["*"].Policy)
	assert.Equal(t, &PrioritizeByLocality{Mode: "failover"}, rs[0].PrioritizeByLocality)

	// Consul's JSON back, and the same value again.
	b, err := json.Marshal(rs[0])
	require.NoError(t, err)
	assert.Contains(t, string(b), `"RingHashConfig":{"MinimumRingSize":1024,"MaximumRingSize":18446744073709551615}`)
	assert.Contains(t, string(b), `"CookieConfig":{"TTL":10000000000,"Path":"/"}`, "TTL in nanoseconds, as Consul writes it")
	back, err := loadResolvers(b)
	require.NoError(t, err)
	assert.Equal(t, rs, back)

	for in, want := range map[string]string{
		`{"Name":"w","LoadBalancer":{"LeastRequestConfig":{"ChoiceCount":4294967296}}}`: "LoadBalancer.LeastRequestConfig.ChoiceCount: the number 4294967296 is out of range [0, 4294967295]",
		`{"Name":"w","LoadBalancer":{"Policy":"random","Polcy":"x"}}`:                   `LoadBalancer: unknown field "Polcy" (did you mean "Policy"?)`,
		`{"Name":"w","LoadBalancer":{"HashPolicies":[{"CookieConfig":{"TTL":true}}]}}`:  `LoadBalancer.HashPolicies[0].CookieConfig.TTL: must be a duration such as "5s", got the boolean true`,
	} {
		_, err := loadResolvers([]byte(in))
		require.Error(t, err, in)
		assert.Equal(t, want, err.Error(), in)
	}
}

// withGroups adds sameness groups to e.
func withGroups(e Entries, groups ...exports.SamenessGroup) Entries {
	e.SamenessGroups = append(e.SamenessGroups, groups...)
	return e
}

// group is a sameness group of partition with members "ap2" (a partition) or "peer:east".
func group(name, partition string, defaultForFailover bool, members ...string) exports.SamenessGroup {
	g := exports.SamenessGroup{Name: name, Partition: partition, DefaultForFailover: defaultForFailover}
	for _, m := range members {
		if peer, ok := strings.CutPrefix(m, "peer:"); ok {
			g.Members = append(g.Members, exports.SamenessMember{Peer: peer})
		} else {
			g.Members = append(g.Members, exports.SamenessMember{Partition: m})
		}
	}
	return g
}

func TestCheckPeerExport(t *testing.T) {
	tests := []struct {
		name string
		req  Request
		e    Entries
		want string
	}{
		{"safe: failover to partitions and peers", mainReq, resolvers(ServiceResolver{Name: "main", Failover: map[string]Failover{"*": {Targets: []FailoverTarget{{Partition: "ap1"}, {Peer: "east"}}}}}), ""},
		{"cross-datacenter redirect", mainReq, resolvers(ServiceResolver{Name: "main", Redirect: &Redirect{Datacenter: "dc2"}}), `peer exported service "main" contains cross-datacenter resolver redirect`},
		{"cross-peer redirect", mainReq, resolvers(ServiceResolver{Name: "main", Redirect: &Redirect{Service: "main", Peer: "east"}}), `peer exported service "main" contains cross-peer resolver redirect`},
		{"cross-partition redirect, named in full", Request{Service: exports.ServiceName{Partition: "ap1", Name: "main"}, Datacenter: "dc1", TrustDomain: td},
			resolvers(ServiceResolver{Name: "main", Partition: "ap1", Redirect: &Redirect{Service: "main", Partition: "ap2"}}), `peer exported service "ap1/default/main" contains cross-partition resolver redirect`},
		{"cross-datacenter failover in a section a request never uses", mainReq, resolvers(ServiceResolver{Name: "main", Subsets: map[string]Subset{"v2": {}},
			Failover: map[string]Failover{"*": {Service: "b"}, "v2": {Datacenters: []string{"dc2"}}}}), `peer exported service "main" contains cross-datacenter failover`},
		{"cross-datacenter failover target", mainReq, resolvers(ServiceResolver{Name: "main", Failover: map[string]Failover{"*": {Targets: []FailoverTarget{{Datacenter: "dc2"}}}}}), `peer exported service "main" contains cross-datacenter failover`},
		{"transitively, through a redirect and a failover", mainReq, resolvers(
			ServiceResolver{Name: "main", Redirect: &Redirect{Service: "a"}},
			ServiceResolver{Name: "a", Failover: map[string]Failover{"*": {Service: "b"}}},
			ServiceResolver{Name: "b", Redirect: &Redirect{Service: "b", Peer: "west"}}), `peer exported service "main" contains cross-peer resolver redirect`},
		{"breadth-first: the nearer problem is reported", mainReq, resolvers(
			ServiceResolver{Name: "main", Failover: map[string]Failover{"*": {Targets: []FailoverTarget{{Service: "deep"}, {Service: "near"}}}}},
			ServiceResolver{Name: "deep", Redirect: &Redirect{Service: "deeper"}},
			ServiceResolver{Name: "deeper", Redirect: &Redirect{Service: "x", Peer: "p"}},
			ServiceResolver{Name: "near", Redirect: &Redirect{Datacenter: "dc9"}}), `peer exported service "main" contains cross-datacenter resolver redirect`},
		{"through a sameness failover's partition member", ap1Req, withGroups(resolvers(
			ServiceResolver{Name: "main", Partition: "ap1", Failover: map[string]Failover{"*": {SamenessGroup: "g"}}},
			ServiceResolver{Name: "main", Partition: "ap2", Redirect: &Redirect{Service: "main", Peer: "east"}}), group("g", "ap1", false, "ap1", "ap2")),
			`peer exported service "ap1/default/main" contains cross-peer resolver redirect`},
		// Consul's server reads, in each partition member, the resolver's own service (main),
		// not the redirect's (backup, read in ap1 only): backup's resolver in ap2 is not read,
		// so it cannot make the export unsafe...
		{"a sameness redirect's service in a partition member is not read", ap1Req, withGroups(resolvers(
			ServiceResolver{Name: "main", Partition: "ap1", Redirect: &Redirect{SamenessGroup: "g", Service: "backup"}},
			ServiceResolver{Name: "backup", Partition: "ap2", Redirect: &Redirect{Service: "backup", Partition: "ap3"}}), group("g", "ap1", false, "ap2", "peer:east")),
			""},
		// ...while the resolver's own service there is.
		{"the resolver's own service in a sameness redirect's partition member is read", ap1Req, withGroups(resolvers(
			ServiceResolver{Name: "main", Partition: "ap1", Redirect: &Redirect{SamenessGroup: "g", Service: "backup"}},
			ServiceResolver{Name: "main", Partition: "ap2", Redirect: &Redirect{Service: "main", Partition: "ap3"}}), group("g", "ap1", false, "ap2", "peer:east")),
			`peer exported service "ap1/default/main" contains cross-partition resolver redirect`},
		{"through the DefaultForFailover group of a service without a resolver", ap1Req, withGroups(resolvers(
			ServiceResolver{Name: "main", Partition: "ap2", Redirect: &Redirect{Service: "main", Peer: "east"}}), group("g", "ap1", true, "ap1", "ap2")),
			`peer exported service "ap1/default/main" contains cross-peer resolver redirect`},
		{"sameness groups of another partition are not the request's", ap1Req, withGroups(resolvers(
			ServiceResolver{Name: "main", Partition: "ap1", Subsets: map[string]Subset{"v1": {}}, Failover: map[string]Failover{"v1": {SamenessGroup: "g"}}},
			ServiceResolver{Name: "main", Partition: "ap2", Redirect: &Redirect{Service: "main", Peer: "east"}}), group("g", "ap9", false, "ap2")),
			""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := compileOK(t, tt.req, tt.e)
			err := c.CheckPeerExport()
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrPeerExport)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

// TestChainIsTheCallers mutates everything a Chain holds and everything given to
// NewCompiler, and checks that no later chain changes.
func TestChainIsTheCallers(t *testing.T) {
	e := resolvers(
		ServiceResolver{Name: "main", LoadBalancer: &LoadBalancer{Policy: "maglev", HashPolicies: []HashPolicy{{Field: "header", FieldValue: "x", CookieConfig: nil}}},
			Subsets: map[string]Subset{"v1": {Filter: "f"}}, DefaultSubset: "v1",
			Failover: map[string]Failover{"v1": {Targets: []FailoverTarget{{Service: "b"}, {Peer: "east"}}, Policy: &FailoverPolicy{Mode: "sequential", Regions: []string{"r"}}}}},
		ServiceResolver{Name: "b", Redirect: &Redirect{Service: "c"}},
	)
	cc, err := NewCompiler(e)
	require.NoError(t, err)
	before := compileOK(t, mainReq, e)
	// The caller's entries.
	e.Resolvers[0].LoadBalancer.HashPolicies[0].FieldValue = "evil"
	e.Resolvers[0].Subsets["v1"] = Subset{Filter: "evil"}
	e.Resolvers[0].Failover["v1"].Targets[0].Service = "evil"
	e.Resolvers[0].Failover["v1"].Policy.Regions[0] = "evil"
	e.Resolvers[1].Redirect.Service = "evil"
	e.Resolvers = append(e.Resolvers[:0], ServiceResolver{Name: "evil"})
	c, err := cc.Compile(mainReq)
	require.NoError(t, err)
	if diff := cmp.Diff(before, c, cmpopts.IgnoreUnexported(Chain{})); diff != "" {
		t.Fatalf("changing the entries after NewCompiler changed the chain:\n%s", diff)
	}
	// Everything in a chain.
	for _, tg := range c.Targets {
		tg.Via[0].To = "evil"
		if tg.LoadBalancer != nil {
			tg.LoadBalancer.HashPolicies[0].FieldValue = "evil"
		}
		if tg.FailoverPolicy != nil {
			tg.FailoverPolicy.Regions[0] = "evil"
		}
		if len(tg.Failover) > 0 {
			tg.Failover[0] = "evil"
		}
	}
	c.Targets["evil"] = &Target{}
	again, err := cc.Compile(mainReq)
	require.NoError(t, err)
	if diff := cmp.Diff(before, again, cmpopts.IgnoreUnexported(Chain{})); diff != "" {
		t.Fatalf("changing a chain changed the next one:\n%s", diff)
	}
}

func TestZeroValues(t *testing.T) {
	var c *Chain
	assert.Nil(t, c.TargetIDs())
	assert.NoError(t, c.CheckPeerExport())
	assert.Equal(t, "chain <nil>", c.Explain())
	var zero Chain
	assert.Nil(t, zero.TargetIDs())
	assert.Equal(t, "chain default/default/ ()", zero.Explain())

	var cc Compiler
	got, err := cc.Compile(mainReq)
	require.NoError(t, err)
	want := compileOK(t, mainReq, Entries{})
	assert.Empty(t, cmp.Diff(want, got, cmpopts.IgnoreUnexported(Chain{})), "the zero Compiler compiles as if it had no entries")
	var nilc *Compiler
	got, err = nilc.Compile(mainReq)
	require.NoError(t, err)
	assert.Empty(t, cmp.Diff(want, got, cmpopts.IgnoreUnexported(Chain{})))
}
