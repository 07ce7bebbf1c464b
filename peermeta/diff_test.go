package peermeta

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"

	"github.com/meshscope/meshscope/internal/longtest"
)

// diffInput is a tcp service db exported to east, with a sidecar.
func diffInput(t testing.TB, resolvers ...chain.ServiceResolver) Input {
	x, err := exports.Compile(exports.ConfigEntry{Name: "default", Services: []exports.Service{
		{Name: "db", Consumers: []exports.Consumer{{Peer: "east"}}},
		{Name: "web", Consumers: []exports.Consumer{{Peer: "east"}}},
	}})
	require.NoError(t, err)
	return Input{
		Exporter: Exporter{Peer: "east", Datacenter: "dc1", TrustDomain: td},
		Exports:  x,
		Catalog:  []exports.ServiceName{{Name: "db"}, {Name: "web"}},
		Connect:  []exports.ServiceName{{Name: "db"}},
		Entries:  chain.Entries{Resolvers: resolvers},
		Gateways: []CheckServiceNode{{Node: &Node{Node: "gw"}, Service: &NodeService{ID: "mgw", Service: "mesh-gateway"}}},
	}
}

// replicated reports whether the peer receives a service in state s.
func replicated(s ServiceState) bool { return s.As == AsChain || s.As == AsPlain }

func TestDiff(t *testing.T) {
	before := diffInput(t)
	after := diffInput(t, chain.ServiceResolver{Name: "db", Failover: map[string]chain.Failover{"*": {Service: "db-backup"}}})
	d, err := Diff(before, after)
	require.NoError(t, err)
	assert.Equal(t, "east", d.Peer)
	require.Len(t, d.Services, 1)
	db := exports.ServiceName{Partition: "default", Namespace: "default", Name: "db"}
	gw := "spiffe://" + td + "/gateway/mesh/dc/dc1"
	state := func(ids ...string) ServiceState {
		return ServiceState{As: AsChain, SNI: "db.default.default.east.external." + td, Protocol: "tcp", Start: "db.default.default.dc1",
			SpiffeIDs: append([]string{svcID("", "default", "dc1", "db"), gw}, ids...), Instances: []string{"gw/db-sidecar-proxy-instance-0"}}
	}
	assert.Equal(t, ServiceChange{Key: db, Before: state(), After: state(svcID("", "default", "dc1", "db-backup")),
		Gained: []string{svcID("", "default", "dc1", "db-backup")}}, d.Services[0])
	assert.Empty(t, d.Refused, "adding failover never trips Consul's rule")

	// Redirecting a tcp export to a new service is refused: the write is not stored, so the
	// replication does not change.
	after = diffInput(t, chain.ServiceResolver{Name: "db", Redirect: &chain.Redirect{Service: "db2"}})
	d, err = Diff(before, after)
	require.NoError(t, err)
	assert.Equal(t, []string{`service-resolver db: chain default/default/db: peer exported service "db" uses protocol="tcp" and cannot introduce new discovery chain targets like "db2.default.default.dc1"`}, d.Refused)
	assert.Empty(t, d.Services)

	// A service that was only a failover target before is new too: Consul leaves failover
	// targets out of the comparison on both sides.
	before = diffInput(t, chain.ServiceResolver{Name: "db", Failover: map[string]chain.Failover{"*": {Service: "db2"}}})
	d, err = Diff(before, after)
	require.NoError(t, err)
	assert.Len(t, d.Refused, 1)

	// ... but not a start target the service already had, nor over http.
	before = diffInput(t, chain.ServiceResolver{Name: "db", Redirect: &chain.Redirect{Service: "db2"}}, chain.ServiceResolver{Name: "db2", ConnectTimeout: time.Second})
	d, err = Diff(before, after)
	require.NoError(t, err)
	assert.Empty(t, d.Refused)
	httpAfter := after
	httpAfter.Entries.DefaultProtocol = "http"
	d, err = Diff(diffInput(t), httpAfter)
	require.NoError(t, err)
	assert.Empty(t, d.Refused)

	// A change that makes an exported chain unsafe to export is refused, in Consul's words;
	// the same configuration on both sides writes nothing.
	unsafe := diffInput(t, chain.ServiceResolver{Name: "db", Redirect: &chain.Redirect{Datacenter: "dc2"}})
	d, err = Diff(diffInput(t), unsafe)
	require.NoError(t, err)
	assert.Equal(t, []string{`service-resolver db: chain default/default/db: peer exported service "db" contains cross-datacenter resolver redirect`}, d.Refused)
	d, err = Diff(unsafe, unsafe)
	require.NoError(t, err)
	assert.Empty(t, d.Refused)
	assert.Empty(t, d.Services)

	// A service gaining a sidecar goes from plain to a chain; one losing its export is removed.
	after = diffInput(t)
	after.Connect = append(after.Connect, exports.ServiceName{Name: "web"})
	after.Catalog = after.Catalog[:1]
	x, err := exports.Compile(exports.ConfigEntry{Name: "default", Services: []exports.Service{{Name: "web", Consumers: []exports.Consumer{{Peer: "east"}}}}})
	require.NoError(t, err)
	after.Exports = x
	d, err = Diff(diffInput(t), after)
	require.NoError(t, err)
	require.Len(t, d.Services, 2)
	assert.True(t, replicated(d.Services[0].Before) && !replicated(d.Services[0].After), "removed")
	assert.Equal(t, "db", d.Services[0].Key.Name)
	assert.Equal(t, AsChain, d.Services[0].Before.As)
	assert.Equal(t, []string{"gw/db-sidecar-proxy-instance-0"}, d.Services[0].Before.Instances)
	assert.Empty(t, d.Services[0].After)
	assert.Equal(t, "web", d.Services[1].Key.Name)
	assert.Equal(t, AsPlain, d.Services[1].Before.As)
	assert.Equal(t, AsChain, d.Services[1].After.As)
	assert.True(t, replicated(d.Services[1].Before), "it was already replicated, as a plain service")

	_, err = Diff(diffInput(t, chain.ServiceResolver{Name: "bad", Redirect: &chain.Redirect{}}), diffInput(t))
	assert.ErrorContains(t, err, "before: Resolvers[0] (default/default/bad): Redirect: Redirect is empty")
}

// TestDiffRefusals: every write Consul refuses is in Refused, in Consul's words, once.
func TestDiffRefusals(t *testing.T) {
	db := func(r chain.ServiceResolver) chain.ServiceResolver { r.Name = "db"; return r }
	withProtocols := func(in Input, p map[exports.ServiceName]string) Input { in.Entries.Protocols = p; return in }
	cycle := func(a, b string) string {
		return fmt.Sprintf("detected circular resolver redirect: [%s.default.default.dc1 -> %s.default.default.dc1 -> %s.default.default.dc1]", a, b, a)
	}
	for _, tt := range []struct {
		name          string
		before, after Input
		want          []string // Refused: a line per chain a refused write breaks
		failed        string   // a service the peer does not receive after the change
	}{
		{"a redirect cycle: the resolver written last is refused, naming both chains it breaks", diffInput(t),
			diffInput(t, db(chain.ServiceResolver{Redirect: &chain.Redirect{Service: "db2"}}), chain.ServiceResolver{Name: "db2", Redirect: &chain.Redirect{Service: "db"}}),
			[]string{"service-resolver db: chain default/default/db: " + cycle("db", "db2"), "service-resolver db: chain default/default/db2: " + cycle("db2", "db")}, ""},
		{"an unknown subset", diffInput(t, chain.ServiceResolver{Name: "db2", Subsets: map[string]chain.Subset{"v1": {}}}),
			diffInput(t, db(chain.ServiceResolver{Redirect: &chain.Redirect{Service: "db2", ServiceSubset: "v2"}}), chain.ServiceResolver{Name: "db2", Subsets: map[string]chain.Subset{"v1": {}}}),
			[]string{`service-resolver db: chain default/default/db: service "db2" does not have a subset named "v2"`}, ""},
		{"inconsistent protocols: a service-defaults write recompiles the chains that name its service",
			diffInput(t, db(chain.ServiceResolver{Failover: map[string]chain.Failover{"*": {Service: "db2"}}})),
			withProtocols(diffInput(t, db(chain.ServiceResolver{Failover: map[string]chain.Failover{"*": {Service: "db2"}}})), map[exports.ServiceName]string{{Name: "db2"}: "http"}),
			[]string{`service-defaults db2: chain default/default/db: discovery chain "db" uses inconsistent protocols; service "db2" has "http" which is not "tcp"`}, ""},
		{"a write that leaves a broken chain broken is refused",
			diffInput(t, db(chain.ServiceResolver{Redirect: &chain.Redirect{Service: "db2", ServiceSubset: "v2"}}), chain.ServiceResolver{Name: "db2"}),
			diffInput(t, db(chain.ServiceResolver{Redirect: &chain.Redirect{Service: "db2", ServiceSubset: "v3"}}), chain.ServiceResolver{Name: "db2"}),
			[]string{`service-resolver db: chain default/default/db: service "db2" does not have a subset named "v3"`}, "db"},
		{"a write two hops from a chain is not judged against it, as on Consul's server",
			diffInput(t, db(chain.ServiceResolver{Redirect: &chain.Redirect{Service: "db2"}}), chain.ServiceResolver{Name: "db2", Redirect: &chain.Redirect{Service: "db3"}}),
			diffInput(t, db(chain.ServiceResolver{Redirect: &chain.Redirect{Service: "db2"}}), chain.ServiceResolver{Name: "db2", Redirect: &chain.Redirect{Service: "db3"}},
				chain.ServiceResolver{Name: "db3", Redirect: &chain.Redirect{Datacenter: "dc2"}}),
			nil, "db"},
		{"an unsafe chain", diffInput(t), diffInput(t, db(chain.ServiceResolver{Redirect: &chain.Redirect{Datacenter: "dc2"}})),
			[]string{`service-resolver db: chain default/default/db: peer exported service "db" contains cross-datacenter resolver redirect`}, ""},
		{"a new tcp start target", diffInput(t), diffInput(t, db(chain.ServiceResolver{Redirect: &chain.Redirect{Service: "db2"}})),
			[]string{`service-resolver db: chain default/default/db: peer exported service "db" uses protocol="tcp" and cannot introduce new discovery chain targets like "db2.default.default.dc1"`}, ""},
		{"deleting the service-defaults a chain's protocol needs", withProtocols(diffInput(t, db(chain.ServiceResolver{Failover: map[string]chain.Failover{"*": {Service: "db2"}}})),
			map[exports.ServiceName]string{{Name: "db"}: "http", {Name: "db2"}: "http"}),
			withProtocols(diffInput(t, db(chain.ServiceResolver{Failover: map[string]chain.Failover{"*": {Service: "db2"}}})), map[exports.ServiceName]string{{Name: "db"}: "http"}),
			[]string{`service-defaults db2 (deleted): chain default/default/db: discovery chain "db" uses inconsistent protocols; service "db2" has "tcp" which is not "http"`}, ""},
		{"added failover", diffInput(t), diffInput(t, db(chain.ServiceResolver{Failover: map[string]chain.Failover{"*": {Service: "db2"}}})), nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Diff(tt.before, tt.after)
			require.NoError(t, err)
			assert.Equal(t, tt.want, d.Refused)
			findings := d.AllFindings()
			assert.Len(t, findings, len(d.Refused), "a finding per reason")
			for _, f := range findings {
				assert.Equal(t, WriteRefused, f.Code)
			}
			if tt.failed != "" {
				a := tt.after
				a.Exporter.Peer = "east"
				r, err := Replicate(a)
				require.NoError(t, err)
				require.NotEmpty(t, r.Failed)
				assert.Equal(t, tt.failed, r.Failed[0].Service.Name)
			}
		})
	}
}

// TestDiffProtocolSwitchNeverRefused: switching a service between tcp and http, with any
// random failover, never trips the refusal rule, and an unchanged input diffs to nothing.
func TestDiffProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	for range longtest.N(100, 500) {
		var rs []chain.ServiceResolver
		if r.IntN(2) == 0 {
			var targets []chain.FailoverTarget
			for range 1 + r.IntN(3) {
				targets = append(targets, chain.FailoverTarget{Service: []string{"a", "b", "c"}[r.IntN(3)], Partition: []string{"", "ap1"}[r.IntN(2)]})
			}
			rs = append(rs, chain.ServiceResolver{Name: "db", Failover: map[string]chain.Failover{"*": {Targets: targets}}})
		}
		before := diffInput(t, rs...)
		after := diffInput(t, rs...)
		before.Entries.DefaultProtocol, after.Entries.DefaultProtocol = []string{"tcp", "http"}[r.IntN(2)], []string{"tcp", "http", "grpc"}[r.IntN(3)]
		d, err := Diff(before, after)
		require.NoError(t, err)
		require.Empty(t, d.Refused)
		same, err := Diff(before, before)
		require.NoError(t, err)
		require.Empty(t, same.Services)
		// Shuffled input gives the same diff.
		rev := after
		rev.Catalog = slices.Clone(after.Catalog)
		slices.Reverse(rev.Catalog)
		again, err := Diff(before, rev)
		require.NoError(t, err)
		require.Empty(t, cmp.Diff(d, again, cmpopts.EquateEmpty()))
	}
}

func TestUpstream(t *testing.T) {
	c, err := chain.Compile(chain.Request{Service: exports.ServiceName{Name: "db"}, Datacenter: "dc1", TrustDomain: td},
		chain.Entries{Resolvers: []chain.ServiceResolver{{Name: "db", Failover: map[string]chain.Failover{"*": {Targets: []chain.FailoverTarget{{Peer: "east"}}}}}}})
	require.NoError(t, err)
	sent := PeerMeta{SNI: []string{"db.default.default.west.external.peer.consul"}, SpiffeID: []string{"spiffe://peer.consul/ns/default/dc/dc9/svc/db"}, Protocol: "tcp"}
	got, err := Upstream(c, "db.default.default.external.east", sent)
	require.NoError(t, err)
	assert.Equal(t, Imported{SNI: sent.SNI[0], SpiffeIDs: sent.SpiffeID, Protocol: "tcp"}, got)
	got.SpiffeIDs[0] = "evil"
	assert.Equal(t, "spiffe://peer.consul/ns/default/dc/dc9/svc/db", sent.SpiffeID[0], "the IDs are a copy")

	tests := []struct {
		name     string
		target   string
		received PeerMeta
		sentinel error
		msg      string
	}{
		{"a local target", "db.default.default.dc1", sent, errNotPeerTarget, `target "db.default.default.dc1" is not a peer target of chain default/default/db`},
		{"no such target", "nope", sent, errNotPeerTarget, `target "nope" is not a peer target of chain default/default/db`},
		{"no SNI", "db.default.default.external.east", PeerMeta{Protocol: "tcp"}, errNoPeerMeta, `no peer metadata from peer "east" for service "db"`},
		{"L7 from the peer, L4 here", "db.default.default.external.east", PeerMeta{SNI: sent.SNI, Protocol: "http"}, chain.ErrProtocolMismatch, `peer "east" exports "db" with protocol "http"; the chain uses "tcp"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Upstream(c, tt.target, tt.received)
			require.ErrorIs(t, err, tt.sentinel)
			assert.Equal(t, tt.msg, err.Error())
			assert.Zero(t, got)
		})
	}
	hc, err := chain.Compile(chain.Request{Service: exports.ServiceName{Partition: "ap1", Name: "api"}, Datacenter: "dc1", TrustDomain: td},
		chain.Entries{DefaultProtocol: "http", Resolvers: []chain.ServiceResolver{{Name: "api", Partition: "ap1", Redirect: &chain.Redirect{Service: "api", Peer: "east"}}}})
	require.NoError(t, err)
	_, err = Upstream(hc, hc.Start, PeerMeta{SNI: []string{"x"}})
	assert.EqualError(t, err, `peer "east" exports "ap1/default/api" with protocol "tcp"; the chain uses "http"`, "an empty protocol counts as tcp")
	_, err = Upstream(nil, "x", sent)
	assert.ErrorIs(t, err, errNotPeerTarget)
}

func TestReplicateSamenessGroup(t *testing.T) {
	g := exports.SamenessGroup{Name: "g", Members: []exports.SamenessMember{{Partition: "ap2"}, {Peer: "east"}, {Peer: "north"}}}
	x, err := exports.CompileGroups([]exports.SamenessGroup{g}, exports.ConfigEntry{Name: "default", Services: []exports.Service{
		{Name: "db", Consumers: []exports.Consumer{{SamenessGroup: "g"}}}}})
	require.NoError(t, err)
	in := Input{
		Exporter: Exporter{Peer: "north", Datacenter: "dc1", TrustDomain: td},
		Exports:  x,
		Entries: chain.Entries{SamenessGroups: []exports.SamenessGroup{g},
			Resolvers: []chain.ServiceResolver{{Name: "db", Failover: map[string]chain.Failover{"*": {SamenessGroup: "g"}}}}},
	}
	rep, err := Replicate(in)
	require.NoError(t, err)
	require.Len(t, rep.Services, 1, "replicated to a peer of the group")
	assert.Equal(t, []string{
		svcID("", "default", "dc1", "db"),
		"spiffe://" + td + "/gateway/mesh/dc/dc1",
		svcID("ap2", "default", "dc1", "db"),
	}, rep.Services[0].PeerMeta.SpiffeID, "tcp: the partition member's identity; the peers' are theirs to give")
	in.Exporter.Peer = "west"
	rep, err = Replicate(in)
	require.NoError(t, err)
	assert.Empty(t, rep.Services)
}

// TestDiffRouting: a dry run writes routers and splitters too — after the service-defaults
// that make their services http — and says which writes Consul refuses.
func TestDiffRouting(t *testing.T) {
	before := diffInput(t)
	after := diffInput(t)
	after.Entries.Protocols = map[exports.ServiceName]string{{Name: "web"}: "http", {Name: "web-v2"}: "http"}
	after.Entries.Splitters = []chain.ServiceSplitter{{Name: "web", Splits: []chain.ServiceSplit{{Weight: 90}, {Weight: 10, Service: "web-v2"}}}}
	after.Entries.Routers = []chain.ServiceRouter{{Name: "db", Routes: []chain.ServiceRoute{{Match: &chain.ServiceRouteMatch{HTTP: &chain.ServiceRouteHTTPMatch{PathPrefix: "/x"}}}}}}
	d, err := Diff(before, after)
	require.NoError(t, err)
	assert.Equal(t, []string{`service-router db: chain default/default/db: discovery chain "db" uses a protocol "tcp" that does not permit advanced routing or splitting behavior`}, d.Refused,
		"the splitter of web is written after web's service-defaults and accepted; db is tcp, so its router is refused")
	require.Len(t, d.Services, 1)
	assert.Equal(t, "web", d.Services[0].Key.Name)
	assert.Equal(t, AsPlain, d.Services[0].Before.As, "web had no chain: no sidecar, no entry")
	assert.Equal(t, AsChain, d.Services[0].After.As, "a splitter makes web a connect service")
	assert.Equal(t, "http", d.Services[0].After.Protocol)
}
