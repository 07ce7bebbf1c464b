package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/clitest"
)

// TestChainsAndRequests: the table prints each exported chain's graph, -o json holds the
// chains as Consul's /v1/discovery-chain gives them, and -explain-request follows a request
// through a chain, headers included.
func TestChainsAndRequests(t *testing.T) {
	code, out, errOut := clitest.Call(run)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "chain default/default/billing (grpc), start router:billing.default.default\n"+
		"router:billing.default.default\n  Routes[0] PathPrefix /billing.v2.Invoices/ -> resolver:billing-v2.default.default.dc1\n")
	assert.Contains(t, out, "splitter:billing.default.default\n  90% -> resolver:billing.default.default.dc1\n  10% -> resolver:billing-v2.default.default.dc1\n")

	code, out, errOut = clitest.Call(run, "-o", "json")
	require.Equal(t, 0, code, errOut)
	var rep struct {
		Chains []struct {
			ServiceName, Protocol, StartNode string
			Nodes                            map[string]struct{ Type string }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.NotEmpty(t, rep.Chains)
	assert.Equal(t, "billing", rep.Chains[0].ServiceName)
	assert.Equal(t, "router:billing.default.default", rep.Chains[0].StartNode)
	assert.Equal(t, "splitter", rep.Chains[0].Nodes["splitter:billing.default.default"].Type)

	code, out, errOut = clitest.Call(run, "-explain-request", "POST /billing.v2.Invoices/Create", "-service", "billing")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "EXPLAIN REQUEST POST /billing.v2.Invoices/Create\n  router:billing.default.default\n"+
		"    Routes[0]: matches (PathPrefix /billing.v2.Invoices/)\n    100% -> billing-v2.default.default.dc1\n")
	code, out, errOut = clitest.Call(run, "-explain-request", "GET /billing.v1.Invoices/List", "-service", "default/default/billing", "-header", "x-tenant: 7")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "    catch-all: matches (PathPrefix /)\n  splitter:billing.default.default\n    90% -> billing.default.default.dc1\n    10% -> billing-v2.default.default.dc1\n")
}

// TestDotRendersWithGraphviz: -o dot prints every exported chain as a Graphviz digraph that
// dot renders. The test needs Graphviz's dot: it is skipped without it, except where
// MESHSCOPE_REQUIRE_DOT is set (.ci/run sets it, and installs Graphviz), where it fails.
func TestDotRendersWithGraphviz(t *testing.T) {
	code, out, errOut := clitest.Call(run, "-o", "dot")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, 3, strings.Count(out, "digraph "), "one graph per exported chain: billing, inventory, mysql")
	dot, err := exec.LookPath("dot")
	if err != nil {
		if os.Getenv("MESHSCOPE_REQUIRE_DOT") != "" {
			t.Fatalf("MESHSCOPE_REQUIRE_DOT is set and Graphviz's dot is not on PATH: %v", err)
		}
		t.Skip("Graphviz's dot is not installed; .ci/run installs it")
	}
	cmd := exec.Command(dot, "-Tsvg")
	cmd.Stdin = strings.NewReader(out)
	svg, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		t.Fatalf("dot -Tsvg refuses the output: %v: %s", err, exit.Stderr)
	}
	require.NoError(t, err)
	assert.Equal(t, 3, strings.Count(string(svg), "<svg "), "dot drew every graph")
	assert.Contains(t, string(svg), "billing.default.default")
}
