package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/meshscope/meshscope/internal/clitest"
)

var peering = clitest.New(".")

func TestMain(m *testing.M) { clitest.Main(m, peering) }

// TestProgram runs the built program as a user does, on the files in testdata, and checks
// the exit status and the lines that matter.
func TestProgram(t *testing.T) {
	own := []string{"-config", "testdata/config.json", "-catalog", "testdata/catalog.json", "-health", "testdata/health.json",
		"-ca-roots", "testdata/ca-roots.json", "-datacenter", "dc1"}
	for _, tt := range []struct {
		name       string
		args       []string
		code       int
		stdout     []string
		lastStderr string
	}{
		{"the sample", nil, 0, []string{"PEER east", "PEER west"}, ""},
		{"the sample's chains as Graphviz digraphs", []string{"-o", "dot"}, 0, []string{`digraph "chain default/default/billing" {`}, ""},
		{"a request through a chain", []string{"-explain-request", "GET /x", "-service", "billing", "-header", "x-a: 1"}, 0, []string{
			"EXPLAIN REQUEST GET /x", "    90% -> billing.default.default.dc1"}, ""},
		{"a request for a service the sample does not have", []string{"-explain-request", "GET /x", "-service", "nope"}, 1, nil,
			`peering: -service "nope": no such service in the catalog or the chain entries of partition default`},
		{"a request line that is not one", []string{"-explain-request", "GET", "-service", "billing"}, 2, nil,
			`peering: -explain-request: "GET" is not a request line`},
		{"your own files, a byte-order mark and a mesh entry among them", own, 0, []string{
			"default/default/ledger  tcp       ledger-v2.default.default.dc1",
			"WARNING PeerTargetResolvedLocally chain default/default/payments, target ledger.default.default.external.east",
			"WARNING UnknownKind default/default/reports (peer east)",
		}, ""},
		{"an unknown kind says which input gives kinds", own, 0, []string{
			"WARNING UnknownKind default/default/reports (peer east): its service kind is unknown; Services[0] (wildcard name) exports only typical services, " +
				"so it is not replicated: give its kind with -catalog output of /v1/internal/ui/services",
		}, ""},
		{"a gate that fails says why", append(own, "-fail-on", "warning"), 3, nil,
			"peering: -fail-on warning: 4 findings at WARNING or above: WARNING UnknownKind default/default/ledger-v2 (peer east)"},
		{"an unset variable", []string{"-config", "", "-catalog", "testdata/catalog.json"}, 2, nil, ""},
		{"a missing catalog under a * rule", []string{"-config", "testdata/config.json", "-ca-roots", "testdata/ca-roots.json", "-datacenter", "dc1"}, 2, nil,
			"peering: -catalog is required"},
		{"a misspelt field", append(own, "-config", "testdata/misspelt.json"), 1, nil,
			`peering: testdata/misspelt.json: value 1 (service-defaults payments): (top level): unknown field "Protcol" (did you mean "Protocol"?)`},
		{"-explain's chain findings count for -fail-on", append(own, "-peer", "east", "-explain", "payments", "-fail-on", "warning"), 3, []string{
			"WARNING PeerTargetResolvedLocally chain default/default/payments, target ledger.default.default.external.east",
		}, "peering: -fail-on warning: 4 findings at WARNING or above: WARNING UnknownKind default/default/ledger-v2 (peer east), " +
			"WARNING UnionDiffers default/default/payments (peer east), WARNING UnknownKind default/default/reports (peer east), " +
			"WARNING PeerTargetResolvedLocally chain default/default/payments, target ledger.default.default.external.east"},
		{"sidecars the ui catalog names make connect services, without their health output", []string{"-config", "testdata/config.json",
			"-catalog", "testdata/ui-services.json", "-health", "testdata/health-mesh-gateway.json", "-ca-roots", "testdata/ca-roots.json", "-datacenter", "dc1", "-peer", "east"}, 0, []string{
			"default/default/batch      tcp       batch.default.default.dc1      2",
			"default/default/reports    tcp       reports.default.default.dc1    2",
		}, ""},
		{"sidecars and connect-native instances /v1/catalog/service lists make connect services", []string{"-config", "testdata/config.json",
			"-catalog", "testdata/catalog-service.json", "-health", "testdata/health-mesh-gateway.json", "-ca-roots", "testdata/ca-roots.json", "-datacenter", "dc1", "-peer", "east"}, 0, []string{
			"default/default/batch      tcp       batch.default.default.dc1      2",
			"default/default/ledger-v2  tcp       ledger-v2.default.default.dc1  2",
			"default/default/reports    tcp       reports.default.default.dc1    2",
		}, ""},
		{"-h says which flag values the input refuses with status 1", []string{"-h"}, 0, []string{
			"1 an input was wrong (every problem is printed, a line each, naming the file), the output failed, or a flag's value was refused: " +
				"-peer or -partition that the exported-services entries do not name",
			"2 a usage error: an unknown flag or a value no input could make right",
			"3 -fail-on: findings at or above its level (the last line on stderr names them)",
		}, ""},
		{"a peer the config does not name: status 1, as -h says", append(own, "-peer", "nosuch"), 1, nil,
			`peering: -peer "nosuch": the exported-services entry of partition "default" names no such peer`},
		{"a partition the config does not name: status 1, as -h says", append(own, "-partition", "ap1"), 1, nil,
			`peering: -partition "ap1" has no exported-services entry`},
		{"the wrong datacenter", append(own[:len(own)-2:len(own)-2], "-datacenter", "dc2"), 1, nil,
			`peering: -datacenter "dc2": every mesh gateway instance is in another datacenter (gw-1 in dc1)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := peering.Run(t, tt.args...)
			assert.Equal(t, tt.code, r.Code, r.Stderr)
			for _, want := range tt.stdout {
				assert.Contains(t, clitest.Words(r.Stdout), clitest.Words(want))
			}
			if tt.lastStderr != "" {
				assert.True(t, strings.HasPrefix(r.LastStderr(), tt.lastStderr), "last line of stderr: %q", r.LastStderr())
			}
			for _, line := range strings.Split(r.Stdout, "\n") {
				assert.NotContains(t, line, "default/default/mesh-gateway ", "never replicated")
				assert.NotContains(t, line, "default/default/payments-sidecar-proxy", "never replicated")
			}
		})
	}
}
