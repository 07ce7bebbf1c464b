//go:build upstream

// The tests that hold meshscope to the real API modules' types compile those modules, which
// takes longer than the rest of the suite: they build with the tag upstream
// (go test -tags upstream ./...), which .ci/run sets.

package exports_test

import (
	"testing"

	"github.com/hashicorp/consul/api"

	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/testkit"
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
	testkit.ReadsBack(t, e, &api.ExportedServicesConfigEntry{})

	g := exports.SamenessGroup{Kind: exports.SamenessGroupKind, Name: "g", Partition: "ap1", DefaultForFailover: true, IncludeLocal: true,
		Members: []exports.SamenessMember{{Partition: "ap2"}, {Peer: "east"}}, Meta: map[string]string{"k": "v"}, CreateIndex: 3, ModifyIndex: 4}
	testkit.ReadsBack(t, g, &api.SamenessGroupConfigEntry{})
}
