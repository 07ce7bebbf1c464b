package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/clitest"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/sidecar"
)

// appliedFile replaces testdata/inventory.yaml's Sidecar shop/default and creates a
// VirtualService, neither with a namespace.
const appliedFile = `apiVersion: networking.istio.io/v1
kind: Sidecar
metadata: {name: default}
spec: {egress: [{hosts: ["./*"]}]}
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: mirror}
spec: {hosts: [api.github.com], http: [{route: [{destination: {host: api.github.com}}]}]}
`

// TestApplyIsTheMergedDump: -apply reports what -new-inventory reports for the dump the
// cluster would hold afterwards, written by hand, and names what it applied.
func TestApplyIsTheMergedDump(t *testing.T) {
	file := clitest.Write(t, "change.yaml", appliedFile)
	base, err := os.ReadFile("testdata/inventory.yaml")
	require.NoError(t, err)
	merged := strings.Replace(string(base), `    - hosts: ["./*", "platform/*"]`, `    - hosts: ["./*"]`, 1) + `- apiVersion: networking.istio.io/v1
  kind: VirtualService
  metadata: {name: mirror, namespace: shop, creationTimestamp: "2026-03-05T08:30:01Z"}
  spec: {hosts: [api.github.com], http: [{route: [{destination: {host: api.github.com}}]}]}
`
	require.NotEqual(t, string(base), merged)
	own := []string{"-mesh", "testdata/mesh.yaml", "-inventory", "testdata/inventory.yaml"}
	applied := clitest.OK(t, run, append(own, "-apply", file, "-namespace", "shop")...)
	proposed := clitest.OK(t, run, append(own, "-new-inventory", clitest.Write(t, "merged.yaml", merged))...)
	const head = "\nSIDECAR AUDIT (sidecars, gateways, the status of routes)\n"
	_, appliedAudit, _ := strings.Cut(applied, head)
	_, proposedAudit, _ := strings.Cut(proposed, head)
	appliedRows := strings.TrimPrefix(strings.TrimPrefix(appliedAudit, "  applied "+file+" document 1: Sidecar shop/default replaced\n"),
		"  applied "+file+" document 2: VirtualService shop/mirror created\n")
	assert.Equal(t, proposedAudit, appliedRows)
	assert.Contains(t, appliedRows, "platform/github") // something changed
	assert.Contains(t, applied, "\nDRY RUN (nothing is applied) of the proposed Istio 1.31 (none given: the newest release meshscope models); mesh testdata/mesh.yaml, inventory testdata/inventory.yaml + "+file+"\n")
	assert.Contains(t, applied, head+"  applied "+file+" document 1: Sidecar shop/default replaced\n"+
		"  applied "+file+" document 2: VirtualService shop/mirror created\n")

	rep := clitest.JSON[report](t, run, append(own, "-apply", file, "-namespace", "shop")...)
	assert.Equal(t, []inventory.Applied{
		{Kind: "Sidecar", Group: "networking.istio.io", Namespace: "shop", Name: "default", File: file, Where: "document 1"},
		{Kind: "VirtualService", Group: "networking.istio.io", Namespace: "shop", Name: "mirror", File: file, Where: "document 2", Created: true},
	}, rep.Applied)
	assert.Equal(t, "testdata/inventory.yaml + "+file, rep.NewInventory)
}

// TestApplyRefuses: what kubectl, the API server or the release's webhook refuses in a file
// to apply is refused, naming the file and document; flags that do not go together are
// usage errors.
func TestApplyRefuses(t *testing.T) {
	own := []string{"-mesh", "testdata/mesh.yaml", "-inventory", "testdata/inventory.yaml"}
	bad := clitest.Write(t, "bad.yaml", appliedFile+"---\napiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: x}\nspec: {host: [a]}\n")
	other := clitest.Write(t, "other.yaml", "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: x, namespace: platform}\nspec: {hosts: [a], http: [{route: [{destination: {host: a}}]}]}\n")
	narrow := clitest.Write(t, "narrow.yaml", "apiVersion: networking.istio.io/v1\nkind: Sidecar\nmetadata: {name: narrow}\nspec: {egress: [{hosts: ['~platform/*']}]}\n")
	clitest.Refused(t, run, own, []clitest.Refusal{
		{Name: "a problem in a document", Args: []string{"-apply", bad}, Code: 1, Msg: "visibility: " + bad + `: document 3 (VirtualService default/x): spec: unknown field "host" (did you mean "hosts"?)`},
		{Name: "another namespace than -namespace", Args: []string{"-apply", other, "-namespace", "shop"}, Code: 1, Msg: "visibility: " + other +
			`: VirtualService platform/x: metadata.namespace: the namespace from the provided object "platform" does not match the namespace "shop". You must pass '--namespace=platform' to perform this operation.`},
		{Name: "what the release's webhook refuses", Args: []string{"-apply", narrow, "-namespace", "shop", "-istio", "1.30.3"}, Code: 1, Msg: "visibility: " + narrow +
			`: Sidecar shop/narrow: spec.egress[0].hosts[0]: Istio 1.30.3 refuses the Sidecar: invalid namespace value "~platform" in sidecar`},
		{Name: "a missing file", Args: []string{"-apply", "testdata/no-such.yaml"}, Code: 1, Msg: "no-such.yaml"},
		{Name: "an empty -apply", Args: []string{"-apply", ""}, Code: 2, Msg: "-apply given an empty value"},
		{Name: "-apply and -new-inventory", Args: []string{"-apply", other, "-new-inventory", other}, Code: 2, Msg: "-apply and -new-inventory each give the proposed inventory: give one"},
		{Name: "-namespace without -apply", Args: []string{"-namespace", "shop"}, Code: 2, Msg: "-namespace needs -apply"},
	})
	code, out, errOut := clitest.Call(run, append(own, "-apply", narrow, "-namespace", "shop", "-istio", "1.30.3", "-new-istio", "1.31")...)
	require.Equal(t, 0, code, "an upgrade's dry run applies it to the release that accepts it: %s", errOut)
	assert.Contains(t, out, "applied "+narrow+": Sidecar shop/narrow created")
}

// TestBookinfoApplyRoute: -apply bookinfo-route.yaml against a dump holding only the
// VirtualService previews what the route does — reviews routed by the route's VirtualService
// for default's proxies, the status istiod writes on the route, and the finding the change
// introduces — and nothing for web's proxies.
func TestBookinfoApplyRoute(t *testing.T) {
	own := []string{"-mesh", "testdata/mesh-bookinfo.yaml", "-inventory", "testdata/bookinfo.yaml"}
	out := clitest.OK(t, run, append(own, "-apply", "testdata/bookinfo-route.yaml")...)
	clitest.ContainsWords(t, out,
		"LINT OF THE PROPOSED CONFIGURATION (findings the current one does not have) WARNING HostRoutedByBoth proposed testdata/bookinfo.yaml + testdata/bookinfo-route.yaml: VirtualService default/reviews",
		"DRY RUN (nothing is applied) of the proposed Istio 1.31 (none given: the newest release meshscope models); mesh testdata/mesh-bookinfo.yaml, inventory testdata/bookinfo.yaml + testdata/bookinfo-route.yaml",
		"applied testdata/bookinfo-route.yaml: HTTPRoute default/reviews created",
		"default "+reviews+": KubernetesService default/reviews 9080, routed by default/reviews, rule default/reviews [v1,v2,v3] -> "+
			"KubernetesService default/reviews 9080, routed by "+routeVS+", rule default/reviews [v1,v2,v3]",
		"HTTPRoute default/reviews status gains: Service default/reviews:9080 Accepted=True Accepted: Route was valid",
		"HTTPRoute default/reviews status gains: Service default/reviews:9080 ResolvedRefs=True ResolvedRefs: All references resolved")
	assert.NotContains(t, out, "  web ", "web's proxies route reviews by the VirtualService, as before")
	assert.NotContains(t, out, "\nAUDIT", "the mesh configuration does not change: ztunnel's answers are not compared")

	rep := clitest.JSON[report](t, run, append(own, "-apply", "testdata/bookinfo-route.yaml")...)
	require.Len(t, rep.SidecarAudit, 1)
	assert.Equal(t, sidecar.ProxyHost{Namespace: "default", Host: reviews}, rep.SidecarAudit[0].Key)
	assert.Equal(t, []sidecar.VirtualHost{{Name: reviews + ":9080", VirtualService: routeVS}}, rep.SidecarAudit[0].After.VirtualHosts)
	require.Len(t, rep.RouteStatus, 1)
	assert.Equal(t, sidecar.RouteRef{Kind: "HTTPRoute", Namespace: "default", Name: "reviews"}, rep.RouteStatus[0].Key)
	assert.Nil(t, rep.RouteStatus[0].Before)
	assert.Empty(t, rep.GatewayAudit, "a route with a Service parent changes nothing a gateway gets")
}
