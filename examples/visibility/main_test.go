package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/clitest"
	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/ambient"
)

func TestSample(t *testing.T) {
	out := clitest.OK(t, run)
	for _, want := range []string{
		"payments/partner-api     api.partner.example,*.partner.example  203.0.113.0/24          NAMESPACE   default",
		"payments/legacy-ftp      ftp.partner.example                    none: DNS not answered  NAMESPACE   default",
		"sandbox/partner-sandbox  api.partner.example                    240.240.0.2             NONE        policies[1] (env in (sandbox))",
		"platform/github          api.github.com                         240.240.0.1             PUBLIC      policies[0] (team=platform)",
		"api.github.com                 platform, all others  ServiceEntry platform/github",
		"                               shop                  ServiceEntry shop/github-mirror",
		"(all others: every namespace not named under the same key, including namespaces not in the inventory)",
		"WARNING NoAddressForDNS ServiceEntry payments/legacy-ftp: no address for any of its hosts",
		"shop/checkout         GLOBAL  serviceScopeConfigs[0] (namespaces team=shop, services all) makes it GLOBAL",
		"shop/orders-internal  LOCAL   serviceScopeConfigs[0] makes it GLOBAL, but orders-internal.shop.svc.cluster.local is cluster-local",
		"payments/partner-api  NAMESPACE (default)  PUBLIC (policies[0])  all other namespaces  -",
		"203.0.113.0/24       every namespace but payments, platform  ServiceEntry platform/egress-net               ServiceEntry payments/partner-api",
		"api.partner.example  every namespace but payments            (not in the mesh: upstream DNS / passthrough)  ServiceEntry payments/partner-api",
		"shop/checkout       checkout.shop.svc.cluster.local  GLOBAL        LOCAL",
	} {
		assert.Contains(t, out, want)
	}
	// Tables are sorted: the entries by namespace and name, whatever the inventory's order.
	assert.Less(t, strings.Index(out, "payments/legacy-ftp"), strings.Index(out, "platform/github"))
	assert.Less(t, strings.Index(out, "platform/github"), strings.Index(out, "shop/github-mirror"))
}

func TestJSON(t *testing.T) {
	out := clitest.OK(t, run, "-o", "json", "-explain-host", "api.github.com", "-client", "shop")
	var rep report
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Len(t, rep.Entries, 6)
	assert.Equal(t, "shop", rep.Explain[0].Answer.Namespace)
	require.NotNil(t, rep.Audit)
	assert.Equal(t, "legacy-ftp", rep.Audit.Entries[0].Key.Name)
	require.NotEmpty(t, rep.Findings)
	assert.Equal(t, visibility.Finding{Path: "ServiceEntry payments/legacy-ftp", Code: ambient.NoAddressForDNS, Level: "warning",
		Message: "no address for any of its hosts: ztunnel's DNS proxy forwards every query for them upstream"}, rep.Findings[0])
	var raw struct {
		Findings []map[string]string `json:"findings"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &raw))
	assert.Equal(t, map[string]string{"path": "ServiceEntry payments/legacy-ftp", "code": "NoAddressForDNS", "level": "warning",
		"message": "no address for any of its hosts: ztunnel's DNS proxy forwards every query for them upstream"}, raw.Findings[0], "each finding in JSON: path, code, level, message")
}

func TestExplainAddress(t *testing.T) {
	assert.Contains(t, clitest.OK(t, run, "-explain-addr", "203.0.113.9", "-client", "shop"), "203.0.113.9 from namespace shop: answered by ServiceEntry platform/egress-net")
	code, _, errOut := clitest.Call(run, "-explain-addr", "nope", "-client", "shop")
	assert.Equal(t, 2, code, "a usage error: no input could make it an IP")
	assert.Contains(t, errOut, `-explain-addr: "nope" is not an IP`)
}

// TestMeshDefaultExportToLinted: the mesh's defaultServiceExportTo is read against the
// inventory like every service's exportTo.
func TestMeshDefaultExportToLinted(t *testing.T) {
	mesh := clitest.Write(t, "mesh.yaml", "meshConfig: {defaultServiceExportTo: [platfrom]}\n")
	inv := clitest.Write(t, "inv.yaml", "kind: Namespace\nmetadata: {name: platform}\n")
	code, out, errOut := clitest.Call(run, "-mesh", mesh, "-inventory", inv, "-fail-on", "error")
	assert.Equal(t, 3, code, errOut)
	assert.Contains(t, clitest.Words(out), `ERROR ExportToUnknownNamespace defaultServiceExportTo: the mesh's default exportTo names namespace "platfrom"`)
}

// TestHelpExitStatus: -h says which flag values are refused with status 1 — those the
// input, once read, refuses — and that other usage errors are status 2.
func TestHelpExitStatus(t *testing.T) {
	out := clitest.OK(t, run, "-h")
	for _, tt := range []struct{ name, want string }{
		{"a namespace the inventory lacks is status 1", "1 an input was wrong (every problem is printed, a line each, naming the file), the output failed, " +
			"or a flag's value was refused: -client or -proxy naming a namespace the inventory does not have (the message lists those it has); " +
			"-compatibility-version naming one the release of -mesh has no profile for 2"},
		{"other usage errors are status 2", "2 a usage error: an unknown flag or a value no input could make right (other than those of status 1)"},
	} {
		t.Run(tt.name, func(t *testing.T) { assert.Contains(t, clitest.Words(out), tt.want) })
	}
}

func TestRefusesToGuess(t *testing.T) {
	clitest.Refused(t, run, nil, []clitest.Refusal{
		{Name: "-explain-host without -client", Args: []string{"-explain-host", "api.github.com"}, Code: 2, Msg: "-explain-host and -explain-addr need -client"},
		{Name: "an unknown client namespace", Args: []string{"-explain-host", "api.github.com", "-client", "shpo"}, Code: 1, Msg: `-client "shpo": the inventory has no such namespace; it has: payments, platform, sandbox, shop`},
		{Name: "a positional argument", Args: []string{"mesh.yaml"}, Code: 2, Msg: `unexpected argument "mesh.yaml"`},
		{Name: "a bad -fail-on", Args: []string{"-fail-on", "all"}, Code: 2, Msg: "is not a level: want note, warning or error"},
		{Name: "-client without a question", Args: []string{"-client", "shop"}, Code: 2, Msg: "-client needs -explain-host or -explain-addr"},
		{Name: "an unknown proxy namespace", Args: []string{"-explain-host", "api.github.com", "-proxy", "shpo"}, Code: 1, Msg: `-proxy "shpo": the inventory has no such namespace; it has: payments, platform, sandbox, shop`},
		{Name: "an empty -explain-host (an unset variable)", Args: []string{"-explain-host", "", "-client", "shop"}, Code: 2, Msg: "-explain-host given an empty value (an unset variable?)"},
		{Name: "an empty -proxy", Args: []string{"-explain-host", "api.github.com", "-proxy", ""}, Code: 2, Msg: "-proxy given an empty value"},
		{Name: "an empty -workload", Args: []string{"-explain-host", "api.github.com", "-proxy", "shop", "-workload", ""}, Code: 2, Msg: "-workload given an empty value"},
		{Name: "an empty -cluster-domain", Args: []string{"-cluster-domain", ""}, Code: 2, Msg: "-cluster-domain given an empty value"},
		{Name: "an empty -fail-on would gate nothing", Args: []string{"-fail-on", ""}, Code: 2, Msg: "-fail-on given an empty value"},
		{Name: "a -cluster-domain that is no DNS name, blamed on the flag, not on a file", Args: []string{"-cluster-domain", "bad_domain"}, Code: 2, Msg: `visibility: -cluster-domain "bad_domain" is not a DNS name`},
	})
	code, out, _ := clitest.Call(run, "-explain-host", "api.github.com", "-client", "")
	assert.Equal(t, 0, code, "a client without a namespace, said explicitly")
	assert.Contains(t, out, `api.github.com from namespace "": answered by ServiceEntry platform/github`)
	code, out, errOut := clitest.Call(run, "-h")
	assert.Equal(t, 0, code)
	assert.Empty(t, errOut)
	assert.Contains(t, out, "visibility: preview, from kubectl output, each ServiceEntry's visibility")
	assert.Contains(t, out, "\nExit status:\n  0  the report was printed\n", "-h lists the exit statuses")
	assert.Contains(t, out, "  3  -fail-on: findings at or above its level")
	assert.Contains(t, clitest.Words(out), "Service scope is shown as Istio applies it with AMBIENT_ENABLE_MULTI_NETWORK=true (off by default: without it every service stays LOCAL)")
}

// TestNoInputGuessed: the sample runs only when no input flag is given; one input without
// the other, or an input flag given an empty value, is a usage error saying what is missing.
func TestNoInputGuessed(t *testing.T) {
	mesh := clitest.Write(t, "mesh.yaml", "serviceEntryVisibility: {defaultVisibility: NONE}\n")
	inv := clitest.Write(t, "inv.yaml", "kind: ServiceEntry\nmetadata: {name: x, namespace: a}\nspec: {hosts: [x.example]}\n")
	clitest.Refused(t, run, nil, []clitest.Refusal{
		{Name: "-mesh without -inventory", Args: []string{"-mesh", mesh, "-fail-on", "warning"}, Code: 2, Msg: "with your own input, also give -inventory (the embedded sample is used only when no input flag is given)"},
		{Name: "-inventory without -mesh", Args: []string{"-inventory", inv}, Code: 2, Msg: "with your own input, also give -mesh (the embedded sample is used only when no input flag is given)"},
		{Name: "-new-mesh alone", Args: []string{"-new-mesh", mesh}, Code: 2, Msg: "with your own input, also give -mesh, -inventory"},
		{Name: "an empty -inventory (an unset CI variable)", Args: []string{"-mesh", mesh, "-inventory", ""}, Code: 2, Msg: "-inventory given an empty value (an unset variable?)"},
		{Name: "an empty -mesh", Args: []string{"-mesh", "", "-inventory", inv}, Code: 2, Msg: "-mesh given an empty value (an unset variable?)"},
		{Name: "an empty -new-mesh", Args: []string{"-mesh", mesh, "-inventory", inv, "-new-mesh", ""}, Code: 2, Msg: "-new-mesh given an empty value (an unset variable?)"},
		{Name: "an empty -new-inventory", Args: []string{"-mesh", mesh, "-inventory", inv, "-new-inventory", ""}, Code: 2, Msg: "-new-inventory given an empty value (an unset variable?)"},
		{Name: "-inventory and -new-inventory without -mesh", Args: []string{"-inventory", inv, "-new-inventory", inv}, Code: 2, Msg: "with your own input, also give -mesh (the embedded sample"},
	})
	assert.Contains(t, clitest.OK(t, run, "-mesh", mesh, "-inventory", inv), "mesh "+mesh+", inventory "+inv)
}

// TestScopeShown: where the program shows service scope it says that Istio applies it only
// with AMBIENT_ENABLE_MULTI_NETWORK=true, and a service whose namespace the inventory lacks is
// LOCAL, saying so.
func TestScopeShown(t *testing.T) {
	mesh := clitest.Write(t, "mesh.yaml", "meshConfig:\n  serviceScopeConfigs: [{scope: GLOBAL}]\n")
	inv := clitest.Write(t, "inv.yaml", `kind: List
items:
- {kind: Namespace, metadata: {name: shop}}
- {apiVersion: v1, kind: Service, metadata: {name: web, namespace: shop}, spec: {clusterIP: 10.0.0.1}}
- {apiVersion: v1, kind: Service, metadata: {name: db, namespace: ghost}, spec: {clusterIP: 10.0.0.2}}
`)
	out := clitest.OK(t, run, "-mesh", mesh, "-inventory", inv)
	assert.Contains(t, clitest.Words(out), "ghost/db LOCAL namespace ghost is not in the inventory: Istio skips every serviceScopeConfig for a service whose namespace it does not know, so it is LOCAL")
	assert.Contains(t, clitest.Words(out), "shop/web GLOBAL serviceScopeConfigs[0] (namespaces all, services all) makes it GLOBAL")
	assert.Contains(t, clitest.Words(out), "(scope as Istio applies it when istiod runs with AMBIENT_ENABLE_MULTI_NETWORK=true; that flag is off by default, and without it every service is LOCAL)")

	assert.Equal(t, scopeNote, clitest.JSON[report](t, run, "-mesh", mesh, "-inventory", inv).ScopeNote)
}

func TestFailOn(t *testing.T) {
	code, _, _ := clitest.Call(run, "-fail-on", "warning")
	assert.Equal(t, 3, code, "the sample's lint has a warning")
	code, _, _ = clitest.Call(run, "-fail-on", "error")
	assert.Equal(t, 0, code)
}

func TestLintAgainstInventory(t *testing.T) {
	mesh := clitest.Write(t, "mesh.yaml", `serviceEntryVisibility:
  defaultVisibility: NAMESPACE
  policies:
  - visibility: PUBLIC
    matchingRules: [{namespaceSelector: {matchLabels: {tema: platform}}}]
`)
	inv := clitest.Write(t, "inv.yaml", `kind: List
items:
- {kind: Namespace, metadata: {name: platform, labels: {team: platform}}}
- kind: ServiceEntry
  metadata: {name: gh, namespace: platform}
  spec: {hosts: [api.github.com], addresses: [10.0.0.1], exportTo: [".", "shpo"]}
`)
	code, out, errOut := clitest.Call(run, "-mesh", mesh, "-inventory", inv, "-fail-on", "error")
	assert.Equal(t, 3, code, errOut)
	assert.Contains(t, clitest.Words(out), "WARNING SelectorMatchesNoNamespace policies[0].matchingRules[0]: the selector tema=platform selects none of the inventory's 1 namespaces")
	assert.Contains(t, out, "WARNING PolicyDecidesNoEntry policies[0]: decides none of the inventory's ServiceEntries")
	assert.Contains(t, clitest.Words(out), `ERROR ExportToUnknownNamespace ServiceEntry platform/gh: exportTo names namespace "shpo"`)
}

func TestUserFiles(t *testing.T) {
	mesh := clitest.Write(t, "mesh.yaml", "serviceEntryVisibility:\n  defaultVisibility: NONE\n")
	inv := clitest.Write(t, "inv.yaml", "kind: ServiceEntry\nmetadata: {name: x, namespace: a}\nspec: {hosts: [x.example]}\n")
	out := clitest.OK(t, run, "-mesh", mesh, "-inventory", inv)
	assert.Contains(t, out, "a/x            x.example  none: DNS not answered  NONE        default")
	assert.NotContains(t, out, "AUDIT", "no audit without -new-mesh for user files")

	next := clitest.Write(t, "next.yaml", "serviceEntryVisibility: {}\n")
	assert.Contains(t, clitest.OK(t, run, "-mesh", mesh, "-inventory", inv, "-new-mesh", next), "a/x            NONE (default)  PUBLIC (default)  a, all other namespaces  -")
}

func TestErrors(t *testing.T) {
	badMesh := clitest.Write(t, "mesh.yaml", "kind: IstioOperator\nspec:\n  meshConfig:\n    serviceEntryVisibility:\n      policies:\n      - matchingRules:\n        - namespaceSelector: {match_labels: {a: b}}\n")
	goodInv := clitest.Write(t, "good-inv.yaml", "kind: ServiceEntry\nmetadata: {name: x, namespace: a}\nspec: {hosts: [x.example]}\n")
	badInv := clitest.Write(t, "inv.yaml", "kind: List\nitems:\n- kind: ServiceEntry\n  metadata: {name: x, namespace: a}\n  spec: {hosts: [\"bad host\"]}\n- kind: ServiceEntry\n  metadata: {name: yy, namespace: a}\n  spec: {hosts: 7}\n")
	mesh := clitest.Write(t, "good-mesh.yaml", "serviceEntryVisibility: {defaultVisibility: NONE}\n")
	badInv2 := clitest.Write(t, "inv2.yaml", "kind: ServiceEntry\nmetadata: {name: x, namespace: a}\nspec: {hosts: [\"bad host\"]}\n")
	clitest.Refused(t, run, nil, []clitest.Refusal{
		{Name: "a misspelt mesh field", Args: []string{"-mesh", badMesh, "-inventory", goodInv}, Code: 1,
			Msg: badMesh + `: spec.meshConfig.serviceEntryVisibility.policies[0].matchingRules[0].namespaceSelector: unknown field "match_labels" (did you mean "matchLabels"?)`},
		{Name: "an item of the wrong shape", Args: []string{"-mesh", mesh, "-inventory", badInv}, Code: 1,
			Msg: badInv + `: items[1] (ServiceEntry a/yy): spec.hosts: must be a list, got the number 7`},
		{Name: "a bad host", Args: []string{"-mesh", mesh, "-inventory", badInv2}, Code: 1,
			Msg: badInv2 + `: ServiceEntry a/x: spec.hosts[0]: domain name "bad host" invalid (label "bad host" invalid)`},
		{Name: "a missing file", Args: []string{"-mesh", filepath.Join(t.TempDir(), "missing.yaml"), "-inventory", goodInv}, Code: 1, Msg: "no such file"},
		{Name: "an unknown output format", Args: []string{"-o", "xml"}, Code: 2},
	})
}

func TestKubectlListMesh(t *testing.T) {
	// What `kubectl get istiooperator -n istio-system -o yaml` prints: a List.
	mesh := clitest.Write(t, "mesh.yaml", `apiVersion: v1
kind: List
items:
- apiVersion: install.istio.io/v1alpha1
  kind: IstioOperator
  metadata: {name: installed-state, namespace: istio-system}
  spec:
    meshConfig:
      serviceEntryVisibility: {defaultVisibility: NONE}
metadata: {resourceVersion: ""}
`)
	inv := clitest.Write(t, "inv.yaml", "kind: ServiceEntry\nmetadata: {name: x, namespace: a}\nspec: {hosts: [x.example]}\n")
	out := clitest.OK(t, run, "-mesh", mesh, "-inventory", inv)
	assert.NotContains(t, out, "not configured")
	assert.Contains(t, out, "a/x            x.example  none: DNS not answered  NONE        default")

	deploy := clitest.Write(t, "deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n")
	clitest.Refused(t, run, []string{"-inventory", inv}, []clitest.Refusal{
		{Name: "a Deployment", Args: []string{"-mesh", deploy}, Code: 1, Msg: deploy + ": no mesh configuration: found 1 Deployment"},
		{Name: "an inventory passed as the mesh configuration", Args: []string{"-mesh", inv}, Code: 1, Msg: inv + ": no mesh configuration: found 1 ServiceEntry"},
	})
}

func TestErrorsOneALine(t *testing.T) {
	inv := clitest.Write(t, "inv.yaml", "kind: List\nitems:\n- kind: ServiceEntry\n  metadata: {name: x, namespace: a}\n  spec: {hosts: [\"bad host\", \"*.\"]}\n")
	mesh := clitest.Write(t, "mesh.yaml", "serviceEntryVisibility: {defaultVisibility: NONE}\n")
	code, _, errOut := clitest.Call(run, "-mesh", mesh, "-inventory", inv)
	assert.Equal(t, 1, code)
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	require.Len(t, lines, 2)
	assert.Equal(t, "visibility: "+inv+`: items[0] (ServiceEntry a/x): spec.hosts[0]: domain name "bad host" invalid (label "bad host" invalid)`, lines[0])
	assert.Equal(t, inv+`: items[0] (ServiceEntry a/x): spec.hosts[1]: "*." is a wildcard without a domain`, lines[1])
}

// TestUndeterminedAnswerSaid: where the release leaves ztunnel's answer to the order it
// received the services in (1.28, a host of two namespaces' ServiceEntries), the conflicts
// table says so rather than name one — or none.
func TestUndeterminedAnswerSaid(t *testing.T) {
	inv := clitest.Write(t, "inv.yaml", `kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: a}}
- {apiVersion: v1, kind: Namespace, metadata: {name: b}}
- apiVersion: networking.istio.io/v1
  kind: ServiceEntry
  metadata: {name: api, namespace: a, creationTimestamp: "2026-01-01T00:00:00Z"}
  spec: {hosts: [api.example.com], addresses: [240.0.0.1], ports: [{number: 443, name: tls, protocol: TLS}], resolution: STATIC}
- apiVersion: networking.istio.io/v1
  kind: ServiceEntry
  metadata: {name: api, namespace: b, creationTimestamp: "2026-01-01T00:00:01Z"}
  spec: {hosts: [api.example.com], addresses: [240.0.0.2], ports: [{number: 443, name: tls, protocol: TLS}], resolution: STATIC}
`)
	mesh := clitest.Write(t, "mesh.yaml", "meshConfig: {}\n")
	assert.Contains(t, clitest.Words(clitest.OK(t, run, "-mesh", mesh, "-inventory", inv, "-istio", "1.28")),
		"all others one of [ServiceEntry a/api ServiceEntry b/api]: the order ztunnel received them in decides")
	assert.Contains(t, clitest.Words(clitest.OK(t, run, "-mesh", mesh, "-inventory", inv, "-istio", "1.29")),
		"api.example.com a, all others ServiceEntry a/api")
}
