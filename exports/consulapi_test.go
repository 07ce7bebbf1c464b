//go:build upstream

// The tests that hold meshscope to the real API modules' types compile those modules, which
// takes longer than the rest of the suite: they build with the tag upstream
// (go test -tags upstream ./...), which .ci/run sets.

package exports_test

import (
	"encoding/json"
	"testing"

	"github.com/hashicorp/consul/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/exports"
)

// TestJSONReadsBackThroughConsulsAPI: what meshscope writes for an exported-services entry
// and a sameness group, every field set, unmarshals into Consul's own API types, and what
// those write back reads into the same values.
func TestJSONReadsBackThroughConsulsAPI(t *testing.T) {
	e := exports.ConfigEntry{Kind: exports.Kind, Name: "ap1", Partition: "ap1", Meta: map[string]string{"k": "v"}, CreateIndex: 18446744073709551615, ModifyIndex: 2,
		Services: []exports.Service{
			{Name: "*", Namespace: "*", Consumers: []exports.Consumer{{Peer: "east"}, {Partition: "ap2"}, {SamenessGroup: "g"}}},
			{Name: "db", Namespace: "data", Consumers: []exports.Consumer{{Peer: "west"}}},
		}}
	ours, err := json.Marshal(e)
	require.NoError(t, err)
	var theirs api.ExportedServicesConfigEntry
	require.NoError(t, json.Unmarshal(ours, &theirs))
	back, err := json.Marshal(&theirs)
	require.NoError(t, err)
	assert.JSONEq(t, string(ours), string(back))
	var got exports.ConfigEntry
	require.NoError(t, json.Unmarshal(back, &got))
	assert.Equal(t, e, got)

	g := exports.SamenessGroup{Kind: exports.SamenessGroupKind, Name: "g", Partition: "ap1", DefaultForFailover: true, IncludeLocal: true,
		Members: []exports.SamenessMember{{Partition: "ap2"}, {Peer: "east"}}, Meta: map[string]string{"k": "v"}, CreateIndex: 3, ModifyIndex: 4}
	ours, err = json.Marshal(g)
	require.NoError(t, err)
	var sg api.SamenessGroupConfigEntry
	require.NoError(t, json.Unmarshal(ours, &sg))
	back, err = json.Marshal(&sg)
	require.NoError(t, err)
	assert.JSONEq(t, string(ours), string(back))
	var gotG exports.SamenessGroup
	require.NoError(t, json.Unmarshal(back, &gotG))
	assert.Equal(t, g, gotG)
}
