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

	for _, c := range []clitest.Case{
		{Name: "the sample, with no input flag, names the release on its first line", Stdout: []string{
			"Istio 1.31 (none given: the newest release meshscope models); mesh sample/mesh.yaml, inventory sample/inventory.yaml\n"}},
		{Name: "a release given: what it ignores is a finding", Args: append(own, "-istio", "1.30.3"), Stdout: []string{
			"Istio 1.30.3; mesh testdata/mesh.yaml, inventory testdata/inventory.yaml\n",
			"WARNING IgnoredByRelease serviceEntryVisibility: Istio 1.30.3 does not know serviceEntryVisibility",
		}},
		{Name: "a release meshscope does not model", Args: append(own, "-istio", "1.32"), Code: 2, LastStderr: `-istio 1.32: Istio: Istio "1.32" is not a release meshscope models`},
		{Name: "your own files: skipped kinds refuse nothing", Args: own, Stdout: []string{
			"WARNING Shadowed policies[1]: policies[0] matches every namespace this policy matches",
			"shop/github-mirror  api.github.com  198.51.100.7  NAMESPACE   default",
			"shop             shop/default  api.github.com                   ServiceEntry shop/github-mirror  443",
		}},
		{Name: "a byte-order mark and CRLF", Args: []string{"-mesh", "testdata/mesh.yaml", "-inventory", crlf}, Stdout: []string{
			"shop/github-mirror  api.github.com  198.51.100.7  NAMESPACE   default",
		}},
		{Name: "a gate that fails says why", Args: append(own, "-fail-on", "warning"), Code: 3,
			LastStderr: "visibility: -fail-on warning: 2 findings at WARNING or above: WARNING Shadowed policies[1], WARNING PolicyDecidesNoEntry policies[1]"},
		{Name: "a gate above every finding passes", Args: append(own, "-fail-on", "error")},
		{Name: "a proposed configuration is linted: what it introduces gates", Args: []string{"-mesh", "testdata/mesh-clean.yaml", "-inventory", "testdata/inventory.yaml",
			"-new-mesh", "testdata/mesh.yaml", "-fail-on", "warning"}, Code: 3, Stdout: []string{
			"LINT OF THE PROPOSED CONFIGURATION (findings the current one does not have)",
			"WARNING Shadowed proposed testdata/mesh.yaml: policies[1]:",
		}, LastStderr: "visibility: -fail-on warning: 2 findings at WARNING or above: WARNING Shadowed proposed testdata/mesh.yaml: policies[1]"},
		{Name: "a proposal that removes a finding passes", Args: []string{"-mesh", "testdata/mesh.yaml", "-inventory", "testdata/inventory.yaml",
			"-new-mesh", "testdata/mesh-clean.yaml", "-fail-on", "error"}},
		{Name: "-mesh without -inventory is not run on the sample", Args: []string{"-mesh", "testdata/mesh.yaml"}, Code: 2, LastStderr: "-inventory"},
		{Name: "-inventory without -mesh", Args: []string{"-inventory", "testdata/inventory.yaml"}, Code: 2, LastStderr: "-mesh"},
		{Name: "an unset variable", Args: []string{"-mesh", "testdata/mesh.yaml", "-inventory", ""}, Code: 2, LastStderr: "-inventory given an empty value"},
		{Name: "misspelt fields in inventory objects", Args: []string{"-mesh", "testdata/mesh.yaml", "-inventory", "testdata/inventory-misspelt.yaml"}, Code: 1,
			LastStderr: `testdata/inventory-misspelt.yaml: items[3] (ServiceEntry shop/github-mirror): spec: unknown field "host" (did you mean "hosts"?)`},
		{Name: "an inventory of Sidecars alone: the hint gives the command -h gives", Args: []string{"-mesh", "testdata/mesh.yaml", "-inventory", sidecarsOnly}, Code: 1,
			LastStderr: "no inventory: found 1 Sidecar; expected Namespace, ServiceEntry and Service objects (" + inventory.DumpCommand + ")"},
		{Name: "a misspelt rootNamespace is found, with the namespace it misses", Args: []string{"-mesh", misspeltRoot, "-inventory", rootSidecar, "-fail-on", "warning"}, Code: 3, Stdout: []string{
			`WARNING RootNamespaceUnknown rootNamespace: the root namespace "istio-sytem" is not a namespace of the inventory`,
			`did you mean "istio-system", whose Sidecar istio-system/default would then be the default?`,
		}, LastStderr: "visibility: -fail-on warning: 1 finding at WARNING or above: WARNING RootNamespaceUnknown rootNamespace"},
		{Name: "a missing file", Args: []string{"-mesh", "testdata/mesh.yaml", "-inventory", "testdata/no-such.yaml"}, Code: 1, LastStderr: "no-such.yaml"},
		{Name: "a level that does not exist", Args: append(own, "-fail-on", "info"), Code: 2, LastStderr: `-fail-on: "info" is not a level`},
		{Name: "an output format that does not exist", Args: append(own, "-o", "yaml"), Code: 2, LastStderr: "-o must be table or json"},
		{Name: "a positional argument", Args: []string{"testdata/inventory.yaml"}, Code: 2, LastStderr: "every input is given with a flag"},
		{Name: "-workload giving a label twice", Args: append(own, "-explain-host", "api.github.com", "-proxy", "shop", "-workload", "app=a,app=b"), Code: 2,
			LastStderr: `visibility: -workload "app=a,app=b": label app given twice (app=a and app=b)`},
		{Name: "-workload given a selector's test", Args: append(own, "-explain-host", "api.github.com", "-proxy", "shop", "-workload", "app!=web"), Code: 2,
			LastStderr: `visibility: -workload "app!=web": "app!=web" is a selector's test, not a label`},
		{Name: "-workload given a key alone", Args: append(own, "-explain-host", "api.github.com", "-proxy", "shop", "-workload", "app"), Code: 2,
			LastStderr: `visibility: -workload "app": "app" is not key=value`},
		{Name: "a sidecar's host no service has is said to be so, with the wildcard import that covers it", Args: []string{"-explain-host", "foo.partner.example", "-proxy", "shop"}, Stdout: []string{
			"foo.partner.example for a proxy in shop: Sidecar shop/default",
			"\n  no service in the inventory has the host foo.partner.example, so no listener has anything to import for it\n",
			"\n  ServiceEntry payments/partner-api has the wildcard host *.partner.example, which covers it",
			`imports "payments/*.partner.example", which covers it, but an import only selects the inventory's services and creates none`,
		}},
		{Name: "a sidecar's host that differs from a service's only in letter case", Args: append(own, "-explain-host", "API.github.com", "-proxy", "shop"), Stdout: []string{
			"\n  no service in the inventory has the host API.github.com, so no listener has anything to import for it\n",
			"ServiceEntry platform/github has api.github.com, which differs from it only in letter case: Istio compares hosts as written, case-sensitively",
		}},
		{Name: "a sidecar's explanation says visibility does not apply to sidecars without applyToSidecars", Args: append(own, "-explain-host", "api.github.com", "-proxy", "shop"), Stdout: []string{
			"\n  visibility does not apply to sidecars: serviceEntryVisibility's applyToSidecars is off, so each service's exportTo alone decides what the proxy gets",
			"\n    ServiceEntry shop/github-mirror: chosen: the first service the proxy gets for the host\n",
		}},
		{Name: "-proxy naming a namespace the inventory lacks depends on the input", Args: append(own, "-explain-host", "api.github.com", "-proxy", "ghost"), Code: 1,
			LastStderr: `visibility: -proxy "ghost": the inventory has no such namespace`},
	} {
		t.Run(c.Name, func(t *testing.T) {
			r := visibilityProgram.Check(t, c)
			if c.Code != 0 && c.Code != 3 {
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
