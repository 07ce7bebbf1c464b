package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/clitest"
	"github.com/meshscope/meshscope/visibility/inventory"
)

var visibilityProgram = clitest.New(".")

func TestMain(m *testing.M) { clitest.Main(m, visibilityProgram) }

// TestProgram runs the built program as a user gating a pull request does, on the files in
// testdata and with the mistakes people make, and checks the exit status and the lines that
// matter: the sample only when no input is given, strict reading of every input, findings
// printed with their level, and a gate that says why it failed.
func TestProgram(t *testing.T) {
	own := []string{"-mesh", "testdata/mesh.yaml", "-inventory", "testdata/inventory.yaml"}
	// The same inventory with a byte-order mark and CRLF line ends, as an editor on Windows
	// writes it.
	data, err := os.ReadFile("testdata/inventory.yaml")
	require.NoError(t, err)
	crlf := clitest.Write(t, "inventory-crlf.yaml", "\ufeff"+strings.ReplaceAll(string(data), "\n", "\r\n"))

	misspeltRoot := clitest.Write(t, "mesh-root.yaml", "meshConfig: {rootNamespace: istio-sytem}\n")
	rootSidecar := clitest.Write(t, "root-sidecar.yaml", `kind: List
items:
- {kind: Namespace, metadata: {name: istio-system}}
- {kind: Namespace, metadata: {name: shop}}
- {apiVersion: networking.istio.io/v1, kind: Sidecar, metadata: {name: default, namespace: istio-system}, spec: {egress: [{hosts: ["./*"]}]}}
`)
	sidecarsOnly := clitest.Write(t, "sidecars.yaml", "apiVersion: networking.istio.io/v1\nkind: Sidecar\nmetadata: {name: default, namespace: istio-system}\nspec: {egress: [{hosts: [\"./*\"]}]}\n")

	for _, tt := range []struct {
		name       string
		args       []string
		code       int
		stdout     []string
		lastStderr string
	}{
		{"the sample, with no input flag, names the release on its first line", nil, 0, []string{
			"Istio 1.31 (none given: the newest release meshscope models); mesh sample/mesh.yaml, inventory sample/inventory.yaml\n"}, ""},
		{"a release given: what it ignores is a finding", append(own, "-istio", "1.30.3"), 0, []string{
			"Istio 1.30.3; mesh testdata/mesh.yaml, inventory testdata/inventory.yaml\n",
			"WARNING IgnoredByRelease serviceEntryVisibility: Istio 1.30.3 does not know serviceEntryVisibility",
		}, ""},
		{"a release meshscope does not model", append(own, "-istio", "1.32"), 2, nil, `-istio 1.32: Istio: Istio "1.32" is not a release meshscope models`},
		{"your own files: skipped kinds refuse nothing", own, 0, []string{
			"WARNING Shadowed policies[1]: policies[0] matches every namespace this policy matches",
			"shop/github-mirror  api.github.com  198.51.100.7  NAMESPACE   default",
			"shop             shop/default  api.github.com                   ServiceEntry shop/github-mirror  443",
		}, ""},
		{"a byte-order mark and CRLF", []string{"-mesh", "testdata/mesh.yaml", "-inventory", crlf}, 0, []string{
			"shop/github-mirror  api.github.com  198.51.100.7  NAMESPACE   default",
		}, ""},
		{"a gate that fails says why", append(own, "-fail-on", "warning"), 3, nil,
			"visibility: -fail-on warning: 2 findings at WARNING or above: WARNING Shadowed policies[1], WARNING PolicyDecidesNoEntry policies[1]"},
		{"a gate above every finding passes", append(own, "-fail-on", "error"), 0, nil, ""},
		{"a proposed configuration is linted: what it introduces gates", []string{"-mesh", "testdata/mesh-clean.yaml", "-inventory", "testdata/inventory.yaml",
			"-new-mesh", "testdata/mesh.yaml", "-fail-on", "warning"}, 3, []string{
			"LINT OF THE PROPOSED CONFIGURATION (findings the current one does not have)",
			"WARNING Shadowed proposed testdata/mesh.yaml: policies[1]:",
		}, "visibility: -fail-on warning: 2 findings at WARNING or above: WARNING Shadowed proposed testdata/mesh.yaml: policies[1]"},
		{"a proposal that removes a finding passes", []string{"-mesh", "testdata/mesh.yaml", "-inventory", "testdata/inventory.yaml",
			"-new-mesh", "testdata/mesh-clean.yaml", "-fail-on", "error"}, 0, nil, ""},
		{"-mesh without -inventory is not run on the sample", []string{"-mesh", "testdata/mesh.yaml"}, 2, nil, "-inventory"},
		{"-inventory without -mesh", []string{"-inventory", "testdata/inventory.yaml"}, 2, nil, "-mesh"},
		{"an unset variable", []string{"-mesh", "testdata/mesh.yaml", "-inventory", ""}, 2, nil, "-inventory given an empty value"},
		{"misspelt fields in inventory objects", []string{"-mesh", "testdata/mesh.yaml", "-inventory", "testdata/inventory-misspelt.yaml"}, 1, nil,
			`testdata/inventory-misspelt.yaml: items[3] (ServiceEntry shop/github-mirror): spec: unknown field "host" (did you mean "hosts"?)`},
		{"an inventory of Sidecars alone: the hint gives the command -h gives", []string{"-mesh", "testdata/mesh.yaml", "-inventory", sidecarsOnly}, 1, nil,
			"no inventory: found 1 Sidecar; expected Namespace, ServiceEntry and Service objects (" + inventory.DumpCommand + ")"},
		{"a misspelt rootNamespace is found, with the namespace it misses", []string{"-mesh", misspeltRoot, "-inventory", rootSidecar, "-fail-on", "warning"}, 3, []string{
			`WARNING RootNamespaceUnknown rootNamespace: the root namespace "istio-sytem" is not a namespace of the inventory`,
			`did you mean "istio-system", whose Sidecar istio-system/default would then be the default?`,
		}, "visibility: -fail-on warning: 1 finding at WARNING or above: WARNING RootNamespaceUnknown rootNamespace"},
		{"a missing file", []string{"-mesh", "testdata/mesh.yaml", "-inventory", "testdata/no-such.yaml"}, 1, nil, "no-such.yaml"},
		{"a level that does not exist", append(own, "-fail-on", "info"), 2, nil, `-fail-on: "info" is not a level`},
		{"an output format that does not exist", append(own, "-o", "yaml"), 2, nil, "-o must be table or json"},
		{"a positional argument", []string{"testdata/inventory.yaml"}, 2, nil, "every input is given with a flag"},
		{"-workload giving a label twice", append(own, "-explain-host", "api.github.com", "-proxy", "shop", "-workload", "app=a,app=b"), 2, nil,
			`visibility: -workload "app=a,app=b": label app given twice (app=a and app=b)`},
		{"-workload given a selector's test", append(own, "-explain-host", "api.github.com", "-proxy", "shop", "-workload", "app!=web"), 2, nil,
			`visibility: -workload "app!=web": "app!=web" is a selector's test, not a label`},
		{"-workload given a key alone", append(own, "-explain-host", "api.github.com", "-proxy", "shop", "-workload", "app"), 2, nil,
			`visibility: -workload "app": "app" is not key=value`},
		{"a sidecar's host no service has is said to be so, with the wildcard import that covers it", []string{"-explain-host", "foo.partner.example", "-proxy", "shop"}, 0, []string{
			"foo.partner.example for a proxy in shop: Sidecar shop/default",
			"\n  no service in the inventory has the host foo.partner.example, so no listener has anything to import for it\n",
			"\n  ServiceEntry payments/partner-api has the wildcard host *.partner.example, which covers it",
			`imports "payments/*.partner.example", which covers it, but an import only selects the inventory's services and creates none`,
		}, ""},
		{"a sidecar's host that differs from a service's only in letter case", append(own, "-explain-host", "API.github.com", "-proxy", "shop"), 0, []string{
			"\n  no service in the inventory has the host API.github.com, so no listener has anything to import for it\n",
			"ServiceEntry platform/github has api.github.com, which differs from it only in letter case: Istio compares hosts as written, case-sensitively",
		}, ""},
		{"a sidecar's explanation says visibility does not apply to sidecars without applyToSidecars", append(own, "-explain-host", "api.github.com", "-proxy", "shop"), 0, []string{
			"\n  visibility does not apply to sidecars: serviceEntryVisibility's applyToSidecars is off, so each service's exportTo alone decides what the proxy gets",
			"\n    ServiceEntry shop/github-mirror: chosen: the first service the proxy gets for the host\n",
		}, ""},
		{"-proxy naming a namespace the inventory lacks depends on the input", append(own, "-explain-host", "api.github.com", "-proxy", "ghost"), 1, nil,
			`visibility: -proxy "ghost": the inventory has no such namespace`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := visibilityProgram.Run(t, tt.args...)
			assert.Equal(t, tt.code, r.Code, r.Stderr)
			for _, want := range tt.stdout {
				assert.Contains(t, r.Stdout, want)
			}
			if tt.lastStderr != "" {
				assert.Contains(t, r.LastStderr(), tt.lastStderr)
			}
			if tt.code != 0 && tt.code != 3 {
				assert.Empty(t, r.Stdout, "a refusal prints no report")
			}
		})
	}

	t.Run("every problem of a file on its own line, naming the file", func(t *testing.T) {
		r := visibilityProgram.Run(t, "-mesh", "testdata/mesh.yaml", "-inventory", "testdata/inventory-misspelt.yaml")
		assert.Equal(t, 1, r.Code)
		assert.Equal(t, "visibility: testdata/inventory-misspelt.yaml: items[1] (Namespace shop): metadata: unknown field \"lables\" (did you mean \"labels\"?)\n"+
			"testdata/inventory-misspelt.yaml: items[3] (ServiceEntry shop/github-mirror): spec: unknown field \"host\" (did you mean \"hosts\"?)\n", r.Stderr)
	})

	t.Run("a sidecar's candidates carry no visibility that does not apply to them", func(t *testing.T) {
		r := visibilityProgram.Run(t, append(own, "-explain-host", "api.github.com", "-proxy", "shop")...)
		require.Equal(t, 0, r.Code, r.Stderr)
		_, explained, found := strings.Cut(r.Stdout, "\napi.github.com for a proxy in shop")
		require.True(t, found, r.Stdout)
		explained, _, _ = strings.Cut(explained, "\n\n")
		assert.NotContains(t, explained, "NAMESPACE (default)")
	})

	t.Run("-o json carries the findings a CI job annotates from", func(t *testing.T) {
		r := visibilityProgram.Run(t, append(own, "-o", "json")...)
		require.Equal(t, 0, r.Code, r.Stderr)
		var out struct {
			Findings []struct{ Path, Code, Level, Message string }
		}
		require.NoError(t, json.Unmarshal([]byte(r.Stdout), &out))
		require.Len(t, out.Findings, 2)
		assert.Equal(t, "policies[1]", out.Findings[0].Path)
		assert.Equal(t, "Shadowed", out.Findings[0].Code)
		assert.Equal(t, "warning", out.Findings[0].Level)
		assert.NotEmpty(t, out.Findings[0].Message)
	})

	t.Run("-h lists the exit statuses", func(t *testing.T) {
		r := visibilityProgram.Run(t, "-h")
		assert.Equal(t, 0, r.Code)
		assert.Contains(t, r.Stdout, "Exit status:\n  0  the report was printed\n")
		assert.Contains(t, r.Stdout, "  3  -fail-on: findings at or above its level")
		summary, _, _ := strings.Cut(r.Stdout, "On your own cluster:")
		assert.Contains(t, clitest.Words(summary), "what each class of sidecar proxies (a namespace, or the workloads a workload Sidecar or DestinationRule selects) receives, from which service, which VirtualService routes it", "-h's opening summary names the sidecar view, routes and rules")
		assert.Contains(t, clitest.Words(summary), "and which DestinationRule it gets, lint, and a dry run of a change for ztunnel, sidecars, a namespace's gateways (where unlike its sidecars) and route status")
		assert.Contains(t, r.Stdout, "kubectl get namespaces,serviceentries,services,sidecars,virtualservices,destinationrules,"+
			"httproutes,grpcroutes,tcproutes,tlsroutes,referencegrants,gateways.gateway.networking.k8s.io -A -o yaml > inventory.yaml",
			"the command -h gives, the Gateway API's kinds with the others, is the one the no-inventory hint gives (inventory.DumpCommand)")
		assert.Contains(t, clitest.Words(r.Stdout), "1 an input was wrong (every problem is printed, a line each, naming the file), the output failed, or a flag's value was refused: -client or -proxy naming a namespace the inventory does not have",
			"-h says which status a namespace the inventory lacks gives")
	})
}
