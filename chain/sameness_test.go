package chain

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/exports"

	"github.com/meshscope/meshscope/internal/longtest"
	"github.com/meshscope/meshscope/internal/testkit"
)

// The vectors: request main in default/ap1/dc1; group g of ap1 with members ap1, ap2 and the
// peer east.
var (
	ap1Req = Request{Service: exports.ServiceName{Partition: "ap1", Name: "main"}, Datacenter: "dc1", TrustDomain: td}
	groupG = exports.SamenessGroup{Name: "g", Partition: "ap1", Members: []exports.SamenessMember{{Partition: "ap1"}, {Partition: "ap2"}, {Peer: "east"}}}
	f1     = []string{"main.default.ap2.dc1", "main.default.ap1.external.east"}
)

func withGroup(g exports.SamenessGroup, rs ...ServiceResolver) Entries {
	return Entries{Resolvers: rs, SamenessGroups: []exports.SamenessGroup{g}}
}

func TestSamenessVectors(t *testing.T) {
	reordered := groupG
	reordered.Members = []exports.SamenessMember{{Peer: "east"}, {Partition: "ap2"}, {Partition: "ap1"}}
	includeLocal := groupG
	includeLocal.IncludeLocal, includeLocal.Members = true, []exports.SamenessMember{{Partition: "ap2"}, {Peer: "east"}}
	dff := groupG
	dff.DefaultForFailover = true
	failoverG := ServiceResolver{Name: "main", Partition: "ap1", Failover: map[string]Failover{"*": {SamenessGroup: "g"}}}
	tests := []struct {
		name     string
		e        Entries
		start    string
		failover []string
	}{
		{`Failover["*"]{SamenessGroup g}`, withGroup(groupG, failoverG), "main.default.ap1.dc1", f1},
		{"members reordered", withGroup(reordered, failoverG), "main.default.ap1.dc1", []string{"main.default.ap1.external.east", "main.default.ap2.dc1"}},
		{"IncludeLocal", withGroup(includeLocal, failoverG), "main.default.ap1.dc1", f1},
		{"Redirect{SamenessGroup g} is a failover", withGroup(groupG, ServiceResolver{Name: "main", Partition: "ap1", Redirect: &Redirect{SamenessGroup: "g"}}), "main.default.ap1.dc1", f1},
		{"DefaultForFailover, no resolver for main", withGroup(dff), "main.default.ap1.dc1", f1},
		{"DefaultForFailover, a resolver with only ConnectTimeout", withGroup(dff, ServiceResolver{Name: "main", Partition: "ap1", ConnectTimeout: time.Second}), "main.default.ap1.dc1", nil},
		{`Failover["*"]{SamenessGroup g, Service backup}`, withGroup(groupG, ServiceResolver{Name: "main", Partition: "ap1", Failover: map[string]Failover{"*": {SamenessGroup: "g", Service: "backup"}}}),
			"main.default.ap1.dc1", []string{"backup.default.ap1.dc1", "backup.default.ap2.dc1", "backup.default.ap1.external.east"}},
		{"an ap2 resolver redirecting main to other", withGroup(groupG, failoverG, ServiceResolver{Name: "main", Partition: "ap2", Redirect: &Redirect{Service: "other"}}),
			"main.default.ap1.dc1", []string{"other.default.ap2.dc1", "main.default.ap1.external.east"}},
		{"DefaultForFailover never for a redirected service's failover candidates", withGroup(dff, ServiceResolver{Name: "main", Partition: "ap1", Redirect: &Redirect{Service: "other"}}),
			"other.default.ap1.dc1", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := compileOK(t, ap1Req, tt.e)
			assert.Equal(t, tt.start, c.Start)
			assert.Equal(t, tt.failover, c.Targets[c.Start].Failover)
			checkChain(t, c)
			assert.NoError(t, c.CheckPeerExport(), "sameness failover is peer-export safe")
		})
	}
}

func TestSamenessExplain(t *testing.T) {
	c := compileOK(t, ap1Req, withGroup(groupG, ServiceResolver{Name: "main", Partition: "ap1", Failover: map[string]Failover{"*": {SamenessGroup: "g"}}}))
	ex := c.Explain()
	assert.Contains(t, ex, `failover 1 main.default.ap2.dc1: Failover["*"] of ap1/default/main -> sameness group g, member ap2 -> main.default.ap2.dc1`)
	assert.Contains(t, ex, `failover 2 main.default.ap1.external.east: Failover["*"] of ap1/default/main -> sameness group g, member peer east -> main.default.ap1.external.east`)
	assert.Equal(t, Step{Resolver: "ap1/default/main", Field: `Failover["*"]`, SamenessGroup: "g", Member: "ap2", From: "main.default.ap1.dc1", To: "main.default.ap2.dc1"},
		c.Targets["main.default.ap2.dc1"].Via[0])

	dff := groupG
	dff.DefaultForFailover = true
	c = compileOK(t, ap1Req, withGroup(dff))
	assert.Contains(t, c.Explain(), `DefaultForFailover -> sameness group g, member ap2 -> main.default.ap2.dc1`)
}

func TestSamenessErrors(t *testing.T) {
	_, err := Compile(ap1Req, Entries{Resolvers: []ServiceResolver{{Name: "main", Partition: "ap1", Failover: map[string]Failover{"*": {SamenessGroup: "nope"}}}}})
	require.ErrorIs(t, err, errMissingSamenessGroup)
	assert.Equal(t, `sameness group missing for service "main"`, err.Error())

	other := groupG
	other.Partition = "ap2"
	_, err = Compile(ap1Req, withGroup(other, ServiceResolver{Name: "main", Partition: "ap1", Redirect: &Redirect{SamenessGroup: "g"}}))
	require.ErrorIs(t, err, errMissingSamenessGroup, "the group is looked up in the requesting partition")

	bad := groupG
	bad.Members = append(bad.Members, exports.SamenessMember{Peer: "east"})
	_, err = Compile(ap1Req, withGroup(bad))
	require.Error(t, err)
	assert.Equal(t, "SamenessGroups[0] (ap1/g): Members[3]: duplicate of Members[2]", err.Error())

	// A partition member whose resolver names an unknown subset fails like any candidate.
	_, err = Compile(ap1Req, withGroup(groupG,
		ServiceResolver{Name: "main", Partition: "ap1", Failover: map[string]Failover{"*": {SamenessGroup: "g"}}},
		ServiceResolver{Name: "main", Partition: "ap2", Redirect: &Redirect{Service: "other", ServiceSubset: "v9"}}))
	require.ErrorIs(t, err, errUnknownSubset)
	assert.Equal(t, `failover of main.default.ap1.dc1 by Failover["*"] of ap1/default/main: service "other" does not have a subset named "v9"`, err.Error())
}

func TestSamenessValidation(t *testing.T) {
	tests := []struct {
		name string
		r    ServiceResolver
		errs []string
	}{
		{"redirect with only a group is not empty", ServiceResolver{Name: "web", Redirect: &Redirect{SamenessGroup: "g"}}, nil},
		{"redirect conflicts", ServiceResolver{Name: "web", Redirect: &Redirect{Service: "a", SamenessGroup: "g", ServiceSubset: "s", Partition: "p", Datacenter: "dc2", Peer: "x"}}, []string{
			"Redirect.SamenessGroup: Redirect.SamenessGroup cannot be set with Redirect.ServiceSubset",
			"Redirect.Partition: Redirect.Partition cannot be set with Redirect.SamenessGroup",
			"Redirect.SamenessGroup: Redirect.SamenessGroup cannot be set with Redirect.Datacenter",
			"Redirect.Peer: Redirect.Peer cannot be set with Redirect.SamenessGroup",
			"Redirect.Peer: Redirect.Peer cannot be set with Redirect.ServiceSubset",
			"Redirect.Partition: Redirect.Partition cannot be set with Redirect.Peer",
			"Redirect.Peer: Redirect.Peer cannot be set with Redirect.Datacenter",
			"Redirect.Partition: Cross-datacenter and cross-partition redirect is not supported",
		}},
		{"failover with a group and more", ServiceResolver{Name: "web", Subsets: map[string]Subset{"v1": {}},
			Failover: map[string]Failover{"*": {SamenessGroup: "g", Datacenters: []string{"dc2"}, ServiceSubset: "v1", Targets: []FailoverTarget{{Peer: "x"}}}}}, []string{
			`Failover["*"]: Bad Failover["*"]: SamenessGroup cannot be set with Datacenters`,
			`Failover["*"]: Bad Failover["*"]: SamenessGroup cannot be set with ServiceSubset`,
			`Failover["*"]: Bad Failover["*"]: SamenessGroup cannot be set with Targets`,
			`Failover["*"]: Bad Failover["*"]: Targets cannot be set with Datacenters`,
			`Failover["*"]: Bad Failover["*"]: Targets cannot be set with ServiceSubset`,
		}},
		{"failover group with service and namespace", ServiceResolver{Name: "web", Failover: map[string]Failover{"*": {SamenessGroup: "g", Service: "b", Namespace: "n"}}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			testkit.ErrLines(t, tt.r.Validate(), tt.errs)
		})
	}
}

// randomSameness builds random resolvers in partitions ap1 and ap2 and a random group of
// ap1, for checking the expansion against the reference.
func randomSameness(r *rand.Rand) ([]ServiceResolver, []exports.SamenessGroup) {
	var rs []ServiceResolver
	for _, part := range []string{"ap1", "ap2", "ap3"} {
		for _, svc := range []string{"main", "backup", "other"} {
			if r.IntN(3) == 0 {
				continue
			}
			res := ServiceResolver{Name: svc, Partition: part}
			if r.IntN(3) == 0 {
				res.Subsets = map[string]Subset{"v1": {}}
				if r.IntN(2) == 0 {
					res.DefaultSubset = "v1"
				}
			}
			switch r.IntN(5) {
			case 0:
				res.Redirect = &Redirect{Service: pick(r, "main", "backup", "other"), ServiceSubset: maybe(r, 0.2, "v1")}
			case 1:
				res.Redirect = &Redirect{SamenessGroup: pick(r, "g", "g", "missing"), Service: maybe(r, 0.3, pick(r, "backup", "other"))}
			case 2:
				res.Failover = map[string]Failover{"*": {SamenessGroup: pick(r, "g", "g", "missing"), Service: maybe(r, 0.3, pick(r, "backup", "other")), Namespace: maybe(r, 0.2, "ns1")}}
			case 3:
				res.Failover = map[string]Failover{"*": {Targets: []FailoverTarget{{Partition: pick(r, "ap2", "ap3")}, {Peer: "p9"}}}}
			}
			if res.Validate() == nil {
				rs = append(rs, res)
			}
		}
	}
	g := exports.SamenessGroup{Name: "g", Partition: "ap1", IncludeLocal: r.IntN(2) == 0, DefaultForFailover: r.IntN(2) == 0}
	var members []exports.SamenessMember
	for _, m := range []exports.SamenessMember{{Partition: "ap1"}, {Partition: "ap2"}, {Partition: "ap3"}, {Peer: "east"}, {Peer: "west"}} {
		if r.IntN(2) == 0 && !(g.IncludeLocal && m.Partition == "ap1") {
			members = append(members, m)
		}
	}
	r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	if len(members) == 0 {
		members = []exports.SamenessMember{{Peer: "east"}}
	}
	if g.DefaultForFailover && !g.IncludeLocal && !slices.Contains(members, exports.SamenessMember{Partition: "ap1"}) {
		g.IncludeLocal = true
	}
	g.Members = members
	r.Shuffle(len(rs), func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })
	return rs, []exports.SamenessGroup{g, {Name: "h", Partition: "ap2", Members: []exports.SamenessMember{{Peer: "north"}}}}
}

// TestSamenessAgainstReference checks the expansion, DefaultForFailover and the resolution
// of partition members against the literal reference on random groups and resolver graphs,
// and that shuffling the entries and the groups changes nothing.
func TestSamenessAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	var withFailover int
	n := longtest.N(600, 5000)
	for trial := range n {
		rs, groups := randomSameness(r)
		req := ap1Req
		req.Service.Name = pick(r, "main", "backup", "other")
		wantStart, wantFailover, wantErr := refCompile(req, rs, groups...)
		e := Entries{Resolvers: rs, SamenessGroups: groups}
		c, err := Compile(req, e)
		if wantErr != "" {
			require.Error(t, err, "trial %d: reference fails with %s: %s %s", trial, wantErr, mustJSON(rs), mustJSON(groups))
			continue
		}
		require.NoError(t, err, "trial %d: %s %s", trial, mustJSON(rs), mustJSON(groups))
		require.Equal(t, wantStart, c.Start, "trial %d: %s %s", trial, mustJSON(rs), mustJSON(groups))
		require.Equal(t, wantFailover, c.Targets[c.Start].Failover, "trial %d: %s %s", trial, mustJSON(rs), mustJSON(groups))
		checkChain(t, c)
		if len(wantFailover) > 0 {
			withFailover++
		}
		r.Shuffle(len(rs), func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })
		slices.Reverse(groups)
		again := compileOK(t, req, Entries{Resolvers: rs, SamenessGroups: groups})
		if diff := cmp.Diff(c, again, cmpopts.IgnoreUnexported(Chain{})); diff != "" {
			t.Fatalf("trial %d: shuffled entries change the chain:\n%s", trial, diff)
		}
	}
	require.Greater(t, withFailover, n/5)
}
