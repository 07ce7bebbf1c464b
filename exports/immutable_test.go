package exports

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOwnedValuesDoNotAlias mutates every value the caller owns — the entries given to
// Compile, and every slice, map and pointer returned by Entry, Partitions, ForPeer, Explain
// and Diff — and checks that no answer changes.
func TestOwnedValuesDoNotAlias(t *testing.T) {
	entries := []ConfigEntry{
		{Name: "default", Meta: map[string]string{"k": "v"}, Services: []Service{
			{Name: "*", Consumers: []Consumer{{Peer: "east"}, {Partition: "p2"}}},
			{Name: "db", Consumers: []Consumer{{Peer: "west"}}},
		}},
		{Name: "p2", Services: []Service{{Name: "api", Namespace: "*"}}},
	}
	entries[1].Services[0].Name = "*"
	entries[1].Services[0].Consumers = []Consumer{{Peer: "north"}}
	x, err := Compile(entries...)
	require.NoError(t, err)
	catalog := []ServiceName{{Name: "db"}, {Name: "web"}, {Partition: "p2", Namespace: "x", Name: "a"}}
	answers := func() string {
		type all struct {
			Matches    []Match
			Peers      [][]string
			ForPeer    map[string][]ServiceName
			Entries    []*ConfigEntry
			Partitions []string
			Explain    []Explanation
		}
		var a all
		for _, s := range catalog {
			m, _ := x.Match(s)
			a.Matches = append(a.Matches, m)
			a.Peers = append(a.Peers, x.Peers(s))
			a.Explain = append(a.Explain, x.Explain(s))
		}
		a.ForPeer = map[string][]ServiceName{}
		for _, p := range []string{"east", "west", "north"} {
			a.ForPeer[p] = x.ForPeer(p, catalog)
		}
		for _, p := range []string{"default", "p2"} {
			e, _ := x.Entry(p)
			a.Entries = append(a.Entries, e)
		}
		a.Partitions = x.Partitions()
		b, err := json.Marshal(a)
		require.NoError(t, err)
		return string(b)
	}
	before := answers()

	// The caller's input.
	entries[0].Services[1].Consumers[0].Peer = "evil"
	entries[0].Meta["k"] = "evil"
	entries[0].Services = append(entries[0].Services[:0], Service{Name: "evil"})
	assert.Equal(t, before, answers(), "changing the entries after Compile")

	// Everything returned that the caller owns.
	e, _ := x.Entry("default")
	e.Services[1].Consumers[0].Peer = "evil"
	e.Services[0].Name = "evil"
	e.Meta["k"] = "evil"
	x.Partitions()[0] = "evil"
	x.ForPeer("east", catalog)[0].Name = "evil"
	ex := x.Explain(ServiceName{Name: "db"})
	ex.Match.Consumers[0].Peer = "evil"
	ex.Candidates[0].Consumers[0].Peer = "evil"
	for _, c := range Diff(x, x, catalog) {
		c.Gained = append(c.Gained, ServiceName{Name: "evil"})
	}
	// Views are clipped: appending to one copies.
	m, _ := x.Match(ServiceName{Name: "db"})
	_ = append(m.Consumers, Consumer{Peer: "evil"})
	_ = append(x.Peers(ServiceName{Name: "db"}), "evil")
	assert.Equal(t, before, answers(), "changing returned values")
}
