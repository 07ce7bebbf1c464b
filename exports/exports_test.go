package exports

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/longtest"
)

func peers(ps ...string) []Consumer {
	out := make([]Consumer, len(ps))
	for i, p := range ps {
		out[i] = Consumer{Peer: p}
	}
	return out
}

func mustCompile(t testing.TB, entries ...ConfigEntry) *Exports {
	t.Helper()
	x, err := Compile(entries...)
	require.NoError(t, err)
	return x
}

func TestMatch(t *testing.T) {
	x := mustCompile(t,
		ConfigEntry{Name: "default", Services: []Service{
			{Name: "*", Consumers: peers("peer1", "peer2")},
			{Name: "bar", Consumers: peers("peer3")},
			{Name: "*", Namespace: "*", Consumers: peers("everyone")},
			{Name: "db", Namespace: "data", Consumers: []Consumer{{Partition: "finance"}}},
		}},
		ConfigEntry{Name: "p1", Services: []Service{
			{Name: "api", Consumers: peers("east")},
		}},
	)
	tests := []struct {
		name string
		in   ServiceName
		rule int
		prec Precedence
		ok   bool
	}{
		{"wildcard name in namespace", ServiceName{Name: "foo"}, 0, WildcardName, true},
		{"exact beats wildcard", ServiceName{Name: "bar"}, 1, Exact, true},
		{"explicit defaults", ServiceName{Partition: "default", Namespace: "default", Name: "bar"}, 1, Exact, true},
		{"other namespace falls to wildcard namespace", ServiceName{Namespace: "ops", Name: "bar"}, 2, WildcardNamespace, true},
		{"exact in another namespace", ServiceName{Namespace: "data", Name: "db"}, 3, Exact, true},
		{"wildcard namespace for others in that namespace", ServiceName{Namespace: "data", Name: "cache"}, 2, WildcardNamespace, true},
		{"other partition", ServiceName{Partition: "p1", Name: "api"}, 0, Exact, true},
		{"no rule in other partition", ServiceName{Partition: "p1", Name: "web"}, 0, 0, false},
		{"partition without entry", ServiceName{Partition: "p2", Name: "api"}, 0, 0, false},
		{"consul is never exported", ServiceName{Name: "consul"}, 0, 0, false},
		{"wildcard is not a service", ServiceName{Name: "*"}, 0, 0, false},
		{"empty name", ServiceName{}, 0, 0, false},
		{"wildcard namespace query", ServiceName{Namespace: "*", Name: "a"}, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, ok := x.Match(tt.in)
			require.Equal(t, tt.ok, ok)
			if !ok {
				assert.Nil(t, x.Peers(tt.in))
				return
			}
			assert.Equal(t, tt.rule, m.Rule)
			assert.Equal(t, tt.prec, m.Precedence)
		})
	}
}

// TestNoUnion: the single most exact rule applies, consumers of different rules are never
// merged. Rules * -> [peer1, peer2] and bar -> [peer3] export foo to peer1 and peer2 and bar
// to peer3 only; with * -> east and db -> west, db goes to west only.
func TestNoUnion(t *testing.T) {
	x := mustCompile(t, ConfigEntry{Name: "default", Services: []Service{
		{Name: "*", Consumers: peers("peer1", "peer2")},
		{Name: "bar", Consumers: peers("peer3")},
	}})
	assert.Equal(t, []string{"peer1", "peer2"}, x.Peers(ServiceName{Name: "foo"}))
	assert.Equal(t, []string{"peer3"}, x.Peers(ServiceName{Name: "bar"}))

	y := mustCompile(t, ConfigEntry{Name: "default", Services: []Service{
		{Name: "*", Consumers: peers("east")},
		{Name: "db", Consumers: peers("west")},
	}})
	catalog := []ServiceName{{Name: "db"}, {Name: "web"}}
	assert.Equal(t, []ServiceName{{Partition: "default", Namespace: "default", Name: "web"}}, y.ForPeer("east", catalog))
	assert.Equal(t, []ServiceName{{Partition: "default", Namespace: "default", Name: "db"}}, y.ForPeer("west", catalog))
}

func TestPeers(t *testing.T) {
	x := mustCompile(t, ConfigEntry{Name: "default", Services: []Service{
		{Name: "db", Consumers: []Consumer{{Peer: "b"}, {Partition: "p"}, {Peer: "a"}, {Peer: "b"}}},
		{Name: "web", Consumers: []Consumer{{Partition: "p"}}},
	}})
	assert.Equal(t, []string{"b", "a"}, x.Peers(ServiceName{Name: "db"}), "rule order, no repeats")
	assert.Nil(t, x.Peers(ServiceName{Name: "web"}))
	m, ok := x.Match(ServiceName{Name: "db"})
	require.True(t, ok)
	assert.Len(t, m.Consumers, 4, "Match keeps the consumers as written")
}

// TestNilExports: a nil *Exports (Diff's "nothing exported" side) exports nothing, and
// every method says so instead of panicking.
func TestNilExports(t *testing.T) {
	var x *Exports
	db := ServiceName{Name: "db"}
	for _, tt := range []struct {
		name string
		call func() any
		want any
	}{
		{"Match", func() any { m, ok := x.Match(db); return fmt.Sprint(m.Rule, ok) }, "-1 false"},
		{"Peers", func() any { return x.Peers(db) }, []string(nil)},
		{"MatchPeer", func() any { _, ok := x.MatchPeer(db, "east"); return ok }, false},
		{"UnionMatch", func() any { _, ok := x.UnionMatch(db, "east"); return ok }, false},
		{"PeersIn", func() any { return x.PeersIn("") }, []string(nil)},
		{"ForPeer", func() any { return x.ForPeer("east", []ServiceName{db}) }, []ServiceName(nil)},
		{"Partitions", func() any { return x.Partitions() }, []string(nil)},
		{"Entry", func() any { _, ok := x.Entry(""); return ok }, false},
		{"Explain", func() any { return x.Explain(db).String() }, `default/default/db: not exported: partition "default" has no exported-services entry`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got any
			require.NotPanics(t, func() { got = tt.call() })
			assert.Equal(t, tt.want, got)
		})
	}
}

// peerMatch is a case of a lookup of the rule for a service and a peer: the rule it gives,
// -1 and false for none.
type peerMatch struct {
	name    string
	service ServiceName
	peer    string
	rule    int
	ok      bool
}

// checkPeerMatches holds a lookup (MatchPeer, UnionMatch) to its cases.
func checkPeerMatches(t *testing.T, match func(ServiceName, string) (Match, bool), cases []peerMatch) {
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			m, ok := match(tt.service, tt.peer)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.rule, m.Rule)
		})
	}
}

func TestMatchPeer(t *testing.T) {
	x := mustCompile(t, ConfigEntry{Name: "default", Services: []Service{
		{Name: "*", Consumers: peers("east")},
		{Name: "db", Consumers: []Consumer{{Partition: "p"}, {Peer: "west"}}},
	}})
	checkPeerMatches(t, x.MatchPeer, []peerMatch{
		{"the wildcard names the peer", ServiceName{Name: "web"}, "east", 0, true},
		{"the exact rule names the peer", ServiceName{Name: "db"}, "west", 1, true},
		{"a less exact rule naming the peer does not count", ServiceName{Name: "db"}, "east", -1, false},
		{"a partition consumer is not a peer", ServiceName{Name: "db"}, "p", -1, false},
		{"no rule", ServiceName{Namespace: "ops", Name: "web"}, "east", -1, false},
		{"the reserved service", ServiceName{Name: "consul"}, "east", -1, false},
	})
	assert.Zero(t, testing.AllocsPerRun(100, func() { x.MatchPeer(ServiceName{Name: "db"}, "west") }))
}

func TestUnionMatch(t *testing.T) {
	g := SamenessGroup{Name: "g", Members: []SamenessMember{{Peer: "north"}}}
	x, err := CompileGroups([]SamenessGroup{g}, ConfigEntry{Name: "default", Services: []Service{
		{Name: "*", Namespace: "*", Consumers: peers("east", "south")},
		{Name: "*", Consumers: []Consumer{{Peer: "east"}, {SamenessGroup: "g"}}},
		{Name: "db", Consumers: peers("west")},
	}})
	require.NoError(t, err)
	checkPeerMatches(t, x.UnionMatch, []peerMatch{
		{"the exact rule names the peer", ServiceName{Name: "db"}, "west", -1, false},
		{"the namespace wildcard would give it", ServiceName{Name: "db"}, "east", 1, true},
		{"a sameness group's peer counts", ServiceName{Name: "db"}, "north", 1, true},
		{"only the wildcard of wildcards names it", ServiceName{Name: "db"}, "south", 0, true},
		{"the one rule is a wildcard that names it", ServiceName{Name: "web"}, "east", -1, false},
		{"a wildcard less exact than a wildcard", ServiceName{Name: "web"}, "south", 0, true},
		{"no rule names the peer", ServiceName{Name: "db"}, "nowhere", -1, false},
		{"another namespace has only the last rule", ServiceName{Namespace: "ops", Name: "db"}, "east", -1, false},
		{"the reserved service", ServiceName{Name: "consul"}, "east", -1, false},
	})
	assert.Equal(t, []string{"east", "north", "south", "west"}, x.PeersIn(""))
	assert.Nil(t, x.PeersIn("ap1"))
	var none *Exports
	assert.Nil(t, none.PeersIn("default"))
}

func TestForPeer(t *testing.T) {
	x := mustCompile(t,
		ConfigEntry{Name: "default", Services: []Service{
			{Name: "*", Namespace: "*", Consumers: peers("east")},
			{Name: "secret", Consumers: peers("west")},
		}},
		ConfigEntry{Name: "ap1", Services: []Service{{Name: "api", Namespace: "ns", Consumers: peers("east")}}},
	)
	catalog := []ServiceName{
		{Name: "web"}, {Namespace: "default", Name: "web"}, {Name: "secret"}, {Name: "consul"},
		{Partition: "ap1", Namespace: "ns", Name: "api"}, {Partition: "ap1", Name: "api"}, {Namespace: "b", Name: "a"},
	}
	assert.Equal(t, []ServiceName{
		{Partition: "ap1", Namespace: "ns", Name: "api"},
		{Partition: "default", Namespace: "b", Name: "a"},
		{Partition: "default", Namespace: "default", Name: "web"},
	}, x.ForPeer("east", catalog))
	assert.Equal(t, []ServiceName{{Partition: "default", Namespace: "default", Name: "secret"}}, x.ForPeer("west", catalog))
	assert.Empty(t, x.ForPeer("nobody", catalog))
	// No answer depends on the catalog's order.
	r := rand.New(rand.NewPCG(1, 1))
	for range 20 {
		r.Shuffle(len(catalog), func(i, j int) { catalog[i], catalog[j] = catalog[j], catalog[i] })
		assert.Equal(t, x.ForPeer("east", catalog), x.ForPeer("east", slices.Clone(catalog)))
	}
}

func TestCompileErrors(t *testing.T) {
	_, err := Compile(
		ConfigEntry{Name: "default", Services: []Service{{Name: "db", Consumers: peers("a")}}},
		ConfigEntry{Name: "west", Services: []Service{{Name: "db"}, {Name: "x", Consumers: peers("*")}}},
		ConfigEntry{Name: "default"},
	)
	require.Error(t, err)
	assert.Equal(t, strings.Join([]string{
		`entries[1] ("west"): Services[0]: must have at least one consumer`,
		`entries[1] ("west"): Services[1].Consumers[0]: exporting to all peers (wildcard) is not supported`,
		`entries[2] ("default"): governs the same partition as entries[0]; one entry per partition`,
	}, "\n"), err.Error())
}

func TestCompileCopies(t *testing.T) {
	e := ConfigEntry{Name: "default", Services: []Service{{Name: "db", Consumers: peers("a")}}}
	x := mustCompile(t, e)
	e.Services[0].Consumers[0].Peer = "b"
	e.Services[0].Name = "other"
	assert.Equal(t, []string{"a"}, x.Peers(ServiceName{Name: "db"}))
	got, ok := x.Entry("")
	require.True(t, ok)
	assert.Equal(t, Kind, got.Kind, "the stored entry is normalized")
	assert.Equal(t, "default", got.Services[0].Namespace)
	assert.Equal(t, []string{"default"}, x.Partitions())
}

func TestMatchDoesNotAllocate(t *testing.T) {
	x := mustCompile(t, benchEntry(1000))
	s := ServiceName{Namespace: "ns7", Name: "svc-77"}
	assert.Zero(t, testing.AllocsPerRun(100, func() { x.Match(s) }))
	assert.Zero(t, testing.AllocsPerRun(100, func() { x.Peers(s) }))
}

// refMatch is the rule read literally ("the single most exact rule applies: exact name in the
// same namespace, else * in the same namespace, else */*; never for consul"): scan every rule
// of the partition's entry and keep the most exact that matches.
func refMatch(entries []ConfigEntry, s ServiceName) ([]Consumer, Precedence, bool) {
	s = s.Canonical()
	if s.Name == ReservedService || s.Name == "*" || s.Name == "" || s.Namespace == "*" || s.Partition == "*" {
		return nil, 0, false
	}
	var best *Service
	var bestPrec Precedence
	for _, e := range entries {
		if e.Name != s.Partition {
			continue
		}
		for i := range e.Services {
			r := &e.Services[i]
			ns := r.Namespace
			if ns == "" {
				ns = "default"
			}
			var p Precedence
			switch {
			case ns == s.Namespace && r.Name == s.Name:
				p = Exact
			case ns == s.Namespace && r.Name == "*":
				p = WildcardName
			case ns == "*" && r.Name == "*":
				p = WildcardNamespace
			default:
				continue
			}
			if best == nil || p < bestPrec {
				best, bestPrec = r, p
			}
		}
	}
	if best == nil {
		return nil, 0, false
	}
	return best.Consumers, bestPrec, true
}

func randomEntries(r *rand.Rand) []ConfigEntry {
	var out []ConfigEntry
	for _, part := range []string{"default", "p1"} {
		if r.IntN(4) == 0 {
			continue
		}
		e := ConfigEntry{Name: part}
		seen := map[[2]string]bool{}
		for range r.IntN(12) {
			ns := []string{"", "default", "a", "b", "*"}[r.IntN(5)]
			name := []string{"*", "x", "y", "z", "consul"}[r.IntN(5)]
			if ns == "*" {
				name = "*"
			}
			if name == "consul" {
				continue
			}
			key := [2]string{orDefault(ns), name}
			if seen[key] {
				continue
			}
			seen[key] = true
			var cs []Consumer
			for range 1 + r.IntN(3) {
				cs = append(cs, Consumer{Peer: fmt.Sprintf("peer%d", r.IntN(4))})
			}
			e.Services = append(e.Services, Service{Namespace: ns, Name: name, Consumers: cs})
		}
		out = append(out, e)
	}
	return out
}

// TestMatchAgainstReference checks Match against the linear scan on random rule sets and
// services, with the rules shuffled: the consumers and precedence never depend on order.
func TestMatchAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	services := []ServiceName{}
	for _, p := range []string{"", "default", "p1", "p2"} {
		for _, ns := range []string{"", "default", "a", "b", "c"} {
			for _, n := range []string{"x", "y", "z", "w", "consul"} {
				services = append(services, ServiceName{Partition: p, Namespace: ns, Name: n})
			}
		}
	}
	for range longtest.N(200, 2000) {
		entries := randomEntries(r)
		x := mustCompile(t, entries...)
		shuffled := make([]ConfigEntry, len(entries))
		for i, e := range entries {
			e.Services = slices.Clone(e.Services)
			r.Shuffle(len(e.Services), func(a, b int) { e.Services[a], e.Services[b] = e.Services[b], e.Services[a] })
			shuffled[len(entries)-1-i] = e
		}
		y := mustCompile(t, shuffled...)
		for _, s := range services {
			want, prec, ok := refMatch(entries, s)
			m, got := x.Match(s)
			require.Equal(t, ok, got, "%v in %+v", s, entries)
			m2, got2 := y.Match(s)
			require.Equal(t, ok, got2)
			if !ok {
				continue
			}
			require.Equal(t, want, m.Consumers, "%v", s)
			require.Equal(t, prec, m.Precedence)
			require.Equal(t, m.Consumers, m2.Consumers, "shuffled rules give another answer for %v", s)
			require.Equal(t, m.Precedence, m2.Precedence)
			e := x.Explain(s)
			require.NotNil(t, e.Match)
			require.Equal(t, m, *e.Match)
		}
		for p := range 4 {
			peer := fmt.Sprintf("peer%d", p)
			require.Equal(t, x.ForPeer(peer, services), y.ForPeer(peer, services))
		}
	}
}

func TestExplain(t *testing.T) {
	x := mustCompile(t, ConfigEntry{Name: "default", Services: []Service{
		{Name: "*", Namespace: "*", Consumers: peers("east")},
		{Name: "db", Namespace: "ops", Consumers: peers("north")},
		{Name: "db", Consumers: peers("west")},
		{Name: "web", Consumers: peers("south")},
	}})
	assert.Equal(t, `default/default/db: Services[2] applies (exact): exported to peer west
  Services[0] */* -> peer east: less exact: Services[2] (exact) is more exact; consumers are never merged across rules
  Services[1] ops/db -> peer north: other namespace: it is for namespace "ops", the service is in "default"
  Services[2] default/db -> peer west: applies: the most exact rule that matches`, x.Explain(ServiceName{Name: "db"}).String())
	assert.Equal(t, `default/default/consul: not exported: the consul service is never exported`, x.Explain(ServiceName{Name: "consul"}).String())
	assert.Equal(t, `p9/default/db: not exported: partition "p9" has no exported-services entry`, x.Explain(ServiceName{Partition: "p9", Name: "db"}).String())

	y := mustCompile(t, ConfigEntry{Name: "default", Services: []Service{{Name: "db", Namespace: "ops", Consumers: peers("north")}}})
	e := y.Explain(ServiceName{Name: "db"})
	assert.Nil(t, e.Match)
	assert.Equal(t, `default/default/db: not exported: no rule names the service, "*" in its namespace, or "*" in "*"
  Services[0] ops/db -> peer north: other namespace: it is for namespace "ops", the service is in "default"`, e.String())
	b, err := json.Marshal(e)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"Verdict":"other namespace"`)
}

func TestDiff(t *testing.T) {
	old := mustCompile(t, ConfigEntry{Name: "default", Services: []Service{
		{Name: "*", Consumers: peers("east")},
	}})
	new := mustCompile(t, ConfigEntry{Name: "default", Services: []Service{
		{Name: "*", Consumers: peers("east")},
		{Name: "db", Consumers: []Consumer{{Peer: "west"}, {Partition: "finance"}}},
	}})
	catalog := []ServiceName{{Name: "web"}, {Name: "db"}, {Name: "db"}, {Name: "consul"}}
	db := ServiceName{Partition: "default", Namespace: "default", Name: "db"}
	assert.Equal(t, []ConsumerChange{
		{Key: Consumer{Peer: "east"}, Lost: []ServiceName{db}},
		{Key: Consumer{Peer: "west"}, Gained: []ServiceName{db}},
		{Key: Consumer{Partition: "finance"}, Gained: []ServiceName{db}},
	}, Diff(old, new, catalog))
	assert.Empty(t, Diff(new, new, catalog))
	assert.Equal(t, []ConsumerChange{
		{Key: Consumer{Peer: "east"}, Gained: []ServiceName{{Partition: "default", Namespace: "default", Name: "web"}}},
	}, Diff(nil, old, []ServiceName{{Name: "web"}}))
}

func FuzzCompile(f *testing.F) {
	f.Add([]byte(consulRead))
	f.Add([]byte(`{"Name":"default","Services":[{"Name":"*","Namespace":"*","Consumers":[{"Peer":"a"}]},{"Name":"db","Consumers":[{"peer_name":"b"}]}]}`))
	f.Add([]byte(`{"Name":"*","Services":[{"Name":"consul","Consumers":[{}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var e ConfigEntry
		if err := json.Unmarshal(data, &e); err != nil {
			return
		}
		verr := e.Validate()
		x, err := Compile(e)
		groups := slices.ContainsFunc(e.Services, func(s Service) bool {
			return slices.ContainsFunc(s.Consumers, func(c Consumer) bool { return c.SamenessGroup != "" })
		})
		if verr == nil && groups {
			if !errors.Is(err, ErrUnknownSamenessGroup) {
				t.Fatalf("a group consumer without groups: %v", err)
			}
			return
		}
		if (verr == nil) != (err == nil) {
			t.Fatalf("Validate says %v, Compile says %v", verr, err)
		}
		if err != nil {
			return
		}
		// Every compiled entry agrees with the reference for every name it mentions.
		var catalog []ServiceName
		for _, r := range e.Services {
			for _, n := range []string{r.Name, "other"} {
				for _, ns := range []string{r.Namespace, "default", "other"} {
					catalog = append(catalog, ServiceName{Partition: e.Name, Namespace: ns, Name: n})
				}
			}
		}
		for _, s := range catalog {
			want, prec, ok := refMatch([]ConfigEntry{e}, s)
			m, got := x.Match(s)
			if ok != got || ok && (prec != m.Precedence || !slices.Equal(want, m.Consumers)) {
				t.Fatalf("%v: Match %v %v, reference %v %v %v", s, m, got, want, prec, ok)
			}
		}
	})
}
