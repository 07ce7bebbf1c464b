package exports

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/longtest"
	"github.com/meshscope/meshscope/internal/testkit"
)

// g is the group of the vectors: group g of ap1 with members ap1, ap2 and the peer east.
var g = SamenessGroup{Name: "g", Partition: "ap1", Members: []SamenessMember{{Partition: "ap1"}, {Partition: "ap2"}, {Peer: "east"}}}

func TestSamenessConsumers(t *testing.T) {
	x, err := CompileGroups([]SamenessGroup{g}, ConfigEntry{Name: "ap1", Services: []Service{
		{Name: "*", Consumers: []Consumer{{SamenessGroup: "g"}}},
		{Name: "db", Consumers: []Consumer{{Peer: "west"}}},
	}})
	require.NoError(t, err)
	api, db := ServiceName{Partition: "ap1", Name: "api"}, ServiceName{Partition: "ap1", Name: "db"}
	m, ok := x.Match(api)
	require.True(t, ok)
	assert.Equal(t, []Consumer{{Partition: "ap2"}, {Peer: "east"}}, m.Consumers, "the members in order, ap1 itself dropped")
	assert.Equal(t, []string{"east"}, x.Peers(api))
	assert.Equal(t, []string{"west"}, x.Peers(db))
	assert.Equal(t, []ServiceName{{Partition: "ap1", Namespace: "default", Name: "api"}}, x.ForPeer("east", []ServiceName{api, db}))

	ex := x.Explain(api)
	assert.Contains(t, ex.String(), "exported to partition ap2 (sameness group g), peer east (sameness group g)")
	assert.Equal(t, []ExpandedConsumer{{Consumer{Partition: "ap2"}, "g"}, {Consumer{Peer: "east"}, "g"}}, ex.Candidates[0].Reaches)
	assert.Equal(t, []Consumer{{SamenessGroup: "g"}}, ex.Candidates[0].Consumers, "as written")

	// Diff sees members, never the group.
	before, err := CompileGroups([]SamenessGroup{g}, ConfigEntry{Name: "ap1", Services: []Service{{Name: "*", Consumers: []Consumer{{Peer: "east"}}}}})
	require.NoError(t, err)
	assert.Equal(t, []ConsumerChange{
		{Key: Consumer{Peer: "west"}, Gained: []ServiceName{db.Canonical()}},
		{Key: Consumer{Partition: "ap2"}, Gained: []ServiceName{api.Canonical()}},
	}, dropLost(Diff(before, x, []ServiceName{api, db}), Consumer{Peer: "east"}))

	// Members in the group's order; IncludeLocal puts the local partition first; repeats keep the first.
	reordered := g
	reordered.Members = []SamenessMember{{Peer: "east"}, {Partition: "ap2"}, {Partition: "ap1"}}
	x, err = CompileGroups([]SamenessGroup{reordered}, ConfigEntry{Name: "ap1", Services: []Service{
		{Name: "*", Consumers: []Consumer{{Peer: "east"}, {SamenessGroup: "g"}, {Partition: "ap2"}}}}})
	require.NoError(t, err)
	m, _ = x.Match(api)
	assert.Equal(t, []Consumer{{Peer: "east"}, {Partition: "ap2"}}, m.Consumers)
}

// dropLost removes one consumer's change (a helper for comparing only what matters).
func dropLost(cs []ConsumerChange, c Consumer) []ConsumerChange {
	return slices.DeleteFunc(cs, func(ch ConsumerChange) bool { return ch.Key == c })
}

func TestSamenessConsumerErrors(t *testing.T) {
	e := ConfigEntry{Name: "ap1", Services: []Service{{Name: "api", Consumers: []Consumer{{Peer: "a"}, {SamenessGroup: "g"}, {SamenessGroup: "*"}}}}}
	_, err := Compile(e)
	require.Error(t, err)
	assert.Equal(t, `entries[0] ("ap1"): Services[0].Consumers[2]: exporting to all sameness groups (wildcard) is not supported`, err.Error())
	e.Services[0].Consumers = e.Services[0].Consumers[:2]
	_, err = Compile(e)
	require.ErrorIs(t, err, ErrUnknownSamenessGroup)
	assert.Equal(t, `entries[0] ("ap1"): Services[0].Consumers[1]: sameness group "g" is not defined in partition "ap1"`, err.Error())
	other := g
	other.Partition = "ap2"
	_, err = CompileGroups([]SamenessGroup{other}, e)
	assert.ErrorIs(t, err, ErrUnknownSamenessGroup, "a group of another partition does not count")
}

func TestSamenessGroupValidate(t *testing.T) {
	tests := []struct {
		name string
		g    SamenessGroup
		errs []string
	}{
		{"valid", g, nil},
		{"name required", SamenessGroup{Members: []SamenessMember{{Peer: "a"}}}, []string{"Name: is required"}},
		{"name not a label", SamenessGroup{Name: "G_1", Members: []SamenessMember{{Peer: "a"}}}, []string{`Name: "G_1" must be lower case`}},
		{"no members", SamenessGroup{Name: "g"}, []string{"Members: must have at least one member"}},
		{"member neither or both", SamenessGroup{Name: "g", Members: []SamenessMember{{}, {Partition: "p", Peer: "x"}}}, []string{
			"Members[0]: must define one of Partition or Peer", "Members[1]: must define at most one of Partition or Peer"}},
		{"wildcards", SamenessGroup{Name: "g", Members: []SamenessMember{{Partition: "*"}, {Peer: "*"}}}, []string{
			`Members[0]: a member cannot be "*": list each partition and peer`, `Members[1]: a member cannot be "*": list each partition and peer`}},
		{"peer not a label", SamenessGroup{Name: "g", Members: []SamenessMember{{Peer: "East"}}}, []string{
			`Members[0]: peer name "East" must be a lowercase DNS label (must be lower case)`}},
		{"repeated member", SamenessGroup{Name: "g", Members: []SamenessMember{{Partition: "ap2"}, {Peer: "x"}, {Partition: "ap2"}}}, []string{
			"Members[2]: duplicate of Members[0]"}},
		{"repeated default partition, spelled two ways", SamenessGroup{Name: "g", Partition: "ap1", Members: []SamenessMember{{Partition: "default"}, {Partition: "default"}}}, []string{
			"Members[1]: duplicate of Members[0]"}},
		{"DefaultForFailover without the local partition", SamenessGroup{Name: "g", Partition: "ap1", DefaultForFailover: true, Members: []SamenessMember{{Partition: "ap2"}}}, []string{
			`Members: the local partition "ap1" must be a member unless IncludeLocal is true`}},
		{"DefaultForFailover with IncludeLocal", SamenessGroup{Name: "g", Partition: "ap1", DefaultForFailover: true, IncludeLocal: true, Members: []SamenessMember{{Partition: "ap2"}}}, nil},
		{"IncludeLocal and the local partition listed", SamenessGroup{Name: "g", IncludeLocal: true, Members: []SamenessMember{{Partition: "default"}, {Peer: "x"}}}, []string{
			"Members[0]: the local partition is already included by IncludeLocal"}},
		{"another kind", SamenessGroup{Kind: "service-resolver", Name: "g", Members: []SamenessMember{{Peer: "x"}}}, []string{
			`Kind: must be "sameness-group", got "service-resolver"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			testkit.ErrLines(t, tt.g.Validate(), tt.errs)
		})
	}
}

func TestValidateSamenessGroups(t *testing.T) {
	mk := func(name, partition string, dff, local bool, members ...SamenessMember) SamenessGroup {
		return SamenessGroup{Name: name, Partition: partition, DefaultForFailover: dff, IncludeLocal: local, Members: members}
	}
	p := func(s string) SamenessMember { return SamenessMember{Partition: s} }
	peer := func(s string) SamenessMember { return SamenessMember{Peer: s} }
	groups := []SamenessGroup{
		mk("a", "ap1", true, true, p("ap2"), peer("x")),
		mk("b", "ap1", true, false, p("ap1"), peer("x")),  // ap1 via IncludeLocal of a; x
		mk("c", "ap2", true, true, peer("x")),             // another partition: never compared
		mk("a", "ap1", false, false, peer("y")),           // a name given twice
		mk("d", "ap1", true, false, p("ap1"), p("bad*x")), // third DFF; ap1 again
		mk("", "ap1", false, false, peer("z")),            // invalid on its own
	}
	err := ValidateSamenessGroups(groups)
	require.Error(t, err)
	assert.Equal(t, strings.Join([]string{
		`SamenessGroups[1] (ap1/b): Members: members can only belong to a single sameness group, but partition "ap1" is shared between groups "a" and "b"`,
		`SamenessGroups[1] (ap1/b): Members: members can only belong to a single sameness group, but cluster peer "x" is shared between groups "a" and "b"`,
		`SamenessGroups[3] (ap1/a): Name: duplicate of SamenessGroups[0]: one group per name in a partition`,
		`SamenessGroups[4] (ap1/d): Members: members can only belong to a single sameness group, but partition "ap1" is shared between groups "a" and "d"`,
		`SamenessGroups[5] (ap1/): Name: is required`,
		`SamenessGroups[1] (ap1/b): DefaultForFailover: partition "ap1" has more than one DefaultForFailover sameness group: "a", "b", "d"`,
	}, "\n"), err.Error())

	_, err = CompileGroups(groups)
	assert.Error(t, err, "CompileGroups validates the groups")
}

// refExpand is the consumer expansion read literally: replace a group consumer by the
// group's members in order (IncludeLocal's partition first), peers as peers, partitions as
// partitions, the entry's partition dropped; then drop every repeat after its first.
func refExpand(groups []SamenessGroup, partition string, cs []Consumer) []Consumer {
	var out []Consumer
	grouped := false
	for _, c := range cs {
		if c.SamenessGroup == "" {
			out = append(out, c)
			continue
		}
		grouped = true
		for _, gr := range groups {
			if gr.Name != c.SamenessGroup || orDefault(gr.Partition) != partition {
				continue
			}
			var members []SamenessMember
			if gr.IncludeLocal {
				members = append(members, SamenessMember{Partition: orDefault(gr.Partition)})
			}
			members = append(members, gr.Members...)
			for _, m := range members {
				if m.Peer != "" {
					out = append(out, Consumer{Peer: m.Peer})
				} else if orDefault(m.Partition) != partition {
					out = append(out, Consumer{Partition: orDefault(m.Partition)})
				}
			}
		}
	}
	if !grouped {
		return cs
	}
	var uniq []Consumer
	for _, c := range out {
		if !slices.Contains(uniq, c) {
			uniq = append(uniq, c)
		}
	}
	return uniq
}

func TestSamenessExpansionAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(81, 82))
	pick := func(n int, prefix string) string { return fmt.Sprintf("%s%d", prefix, r.IntN(n)) }
	for trial := range longtest.N(300, 2000) {
		// Groups of partition "p0" whose members are disjoint (as validation requires).
		var groups []SamenessGroup
		used := map[SamenessMember]bool{}
		for i := 0; i < 1+r.IntN(3); i++ {
			gr := SamenessGroup{Name: fmt.Sprintf("g%d", i), Partition: "p0", IncludeLocal: i == 0 && r.IntN(2) == 0}
			if gr.IncludeLocal {
				used[SamenessMember{Partition: "p0"}] = true
			}
			for j := 0; j < 1+r.IntN(4); j++ {
				m := SamenessMember{Peer: pick(6, "peer")}
				if r.IntN(2) == 0 {
					m = SamenessMember{Partition: pick(4, "p")}
				}
				if !used[m] && !(gr.IncludeLocal && m.Partition == "p0") {
					used[m] = true
					gr.Members = append(gr.Members, m)
				}
			}
			if len(gr.Members) == 0 {
				gr.Members = []SamenessMember{{Peer: fmt.Sprintf("only%d", i)}}
			}
			groups = append(groups, gr)
		}
		var consumers []Consumer
		for j := 0; j < 1+r.IntN(5); j++ {
			switch r.IntN(3) {
			case 0:
				consumers = append(consumers, Consumer{Peer: pick(6, "peer")})
			case 1:
				consumers = append(consumers, Consumer{Partition: pick(4, "p")})
			default:
				consumers = append(consumers, Consumer{SamenessGroup: groups[r.IntN(len(groups))].Name})
			}
		}
		e := ConfigEntry{Name: "p0", Services: []Service{{Name: "*", Consumers: consumers}}}
		x, err := CompileGroups(groups, e)
		require.NoError(t, err, "trial %d", trial)
		m, ok := x.Match(ServiceName{Partition: "p0", Name: "svc"})
		require.True(t, ok)
		want := refExpand(groups, "p0", consumers)
		if diff := cmp.Diff(want, m.Consumers, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("trial %d: groups %+v consumers %+v (-ref +got):\n%s", trial, groups, consumers, diff)
		}
		// Shuffled groups give the same answer.
		shuffled := slices.Clone(groups)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		y, err := CompileGroups(shuffled, e)
		require.NoError(t, err)
		m2, _ := y.Match(ServiceName{Partition: "p0", Name: "svc"})
		require.Equal(t, m.Consumers, m2.Consumers)
	}
}

const groupJSON = `{
    "Kind": "sameness-group",
    "Name": "g",
    "Partition": "ap1",
    "DefaultForFailover": true,
    "IncludeLocal": false,
    "Members": [{"Partition": "ap1"}, {"Partition": "ap2"}, {"Peer": "east"}],
    "CreateIndex": 18446744073709551615,
    "ModifyIndex": 9
}`

func TestLoadSamenessGroups(t *testing.T) {
	got, err := LoadSamenessGroups([]byte(groupJSON))
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, SamenessGroup{Kind: SamenessGroupKind, Name: "g", Partition: "ap1", DefaultForFailover: true,
		Members: g.Members, CreateIndex: 18446744073709551615, ModifyIndex: 9}, got[0])

	bom, err := LoadSamenessGroups([]byte("\ufeff" + groupJSON))
	require.NoError(t, err, "after a byte-order mark")
	assert.Equal(t, got, bom)

	got, err = LoadSamenessGroups([]byte(`[{"name": "a", "default_for_failover": true, "include_local": true, "members": [{"peer": "x"}]}]`))
	require.NoError(t, err, "any case, and the snake_case aliases")
	assert.True(t, got[0].DefaultForFailover && got[0].IncludeLocal)

	for in, want := range map[string]string{
		`{"Name": "g", "Members": [{"Peer": "x"}], "Members": []}`:                            "Members: given twice",
		`{"Name": "g", "Members": [{"Peer": "x", "Peers": "y"}]}`:                             `Members[0]: unknown field "Peers" (did you mean "Peer"?)`,
		`{"Name": "g", "Members": []}`:                                                        "Members: must have at least one member",
		`{"Name": "g", "Members": [{"Peer": "x"}]} {"Name": "g", "Members": [{"Peer": "y"}]}`: "SamenessGroups[1] (default/g): Name: duplicate of SamenessGroups[0]: one group per name in a partition",
	} {
		_, err := LoadSamenessGroups([]byte(in))
		require.Error(t, err, in)
		assert.Equal(t, want, err.Error(), in)
	}
}

func FuzzLoadSamenessGroups(f *testing.F) {
	f.Add([]byte(groupJSON))
	f.Add([]byte(`[{"Name": "a", "IncludeLocal": true, "Members": [{"Peer": "x"}]}, {"Name": "b", "Members": [{"Peer": "x"}]}]`))
	f.Add([]byte(`{"kind":"sameness-group","name":"g","partition":"ap1","default_for_failover":true,"include_local":true,"members":[{"partition":"ap1"},{"partition":"ap2"},{"peer":"east"},{"peer":"east"}],"Meta":{"a":"b"},"CreateIndex":3}`))
	f.Add([]byte(`[{"Name":"a","DefaultForFailover":true,"Members":[{"Peer":"x"}]},{"Name":"b","DefaultForFailover":true,"Members":[{"Partition":"default"}]},{"Name":"A","Members":[{},{"Partition":"*","Peer":"y"}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		groups, err := LoadSamenessGroups(data)
		if err != nil {
			return
		}
		if err := ValidateSamenessGroups(groups); err != nil {
			t.Fatalf("accepted groups that do not validate: %v", err)
		}
		if _, err := CompileGroups(groups); err != nil {
			t.Fatalf("CompileGroups refuses what LoadSamenessGroups accepted: %v", err)
		}
	})
}
