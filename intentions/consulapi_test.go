//go:build upstream

// The tests that hold meshscope to the real API modules' types compile those modules, which
// takes longer than the rest of the suite: they build with the tag upstream
// (go test -tags upstream ./...), which .ci/run sets.

package intentions_test

import (
	"testing"
	"time"

	"github.com/hashicorp/consul/api"

	"github.com/meshscope/meshscope/intentions"
	"github.com/meshscope/meshscope/internal/testkit"
)

// TestJSONReadsBackThroughConsulsAPI: what meshscope writes for a service-intentions entry,
// every field set, unmarshals into Consul's own API type, and what that writes back reads
// into the same value.
func TestJSONReadsBackThroughConsulsAPI(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	jwt := &intentions.JWTRequirement{Providers: []intentions.JWTProvider{{Name: "okta", VerifyClaims: []intentions.JWTClaim{{Path: []string{"aud"}, Value: "api"}}}}}
	e := intentions.ConfigEntry{Kind: intentions.Kind, Name: "api", JWT: jwt, Meta: map[string]string{"k": "v"}, CreateIndex: 18446744073709551615, ModifyIndex: 2,
		Sources: []intentions.SourceIntention{
			{Name: "web", Action: intentions.Allow, Precedence: 9, Type: intentions.SourceTypeConsul, Description: "the shop",
				LegacyID: "id", LegacyMeta: map[string]string{"a": "b"}, LegacyCreateTime: &at, LegacyUpdateTime: &at},
			{Name: "*", Peer: "east", Precedence: 8, Type: intentions.SourceTypeConsul, Permissions: []intentions.Permission{
				{Action: intentions.Deny, HTTP: &intentions.HTTPMatch{PathPrefix: "/admin", Methods: []string{"GET", "POST"},
					Header: []intentions.HeaderMatch{{Name: "x-a", Present: true, Invert: true}, {Name: "x-b", Exact: "1"}, {Name: "x-c", Prefix: "p"}, {Name: "x-d", Suffix: "s"}, {Name: "x-e", Regex: "r.*"}}}},
				{Action: intentions.Allow, HTTP: &intentions.HTTPMatch{PathExact: "/"}, JWT: jwt},
				{Action: intentions.Allow, HTTP: &intentions.HTTPMatch{PathRegex: "/v[0-9]+/.*"}},
			}},
			{Name: "db", SamenessGroup: "g", Action: intentions.Deny, Precedence: 9, Type: intentions.SourceTypeConsul},
		}}
	testkit.ReadsBack(t, e, &api.ServiceIntentionsConfigEntry{})
}
