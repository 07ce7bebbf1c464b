package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/clitest"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
	"github.com/meshscope/meshscope/visibility/sidecar"
)

func TestSidecarSample(t *testing.T) {
	clitest.ContainsWords(t, clitest.OK(t, run),
		"shop with app=checkout shop/checkout api.github.com ServiceEntry shop/github-mirror 443 - -",
		"shop shop/default api.github.com ServiceEntry shop/github-mirror 443 - -",
		"platform (none: */*) api.github.com ServiceEntry platform/github 443 - -",
		// The VirtualService routes checkout for every proxy; the DestinationRule each gets
		// depends on the workload: checkout's own proxies get the one selecting them.
		"checkout.shop.svc.cluster.local KubernetesService shop/checkout 8080 shop/checkout-routes shop/checkout [v1,v2] egress.platform.internal",
		"checkout.shop.svc.cluster.local KubernetesService shop/checkout 8080 shop/checkout-routes shop/checkout-canary [v1,v2] ledger",
		// shop's Sidecar imports neither payments/* nor */*: ledger arrives as the mirror of
		// checkout-routes, a destination of a VirtualService the proxy gets.
		"ledger.payments.svc.cluster.local KubernetesService payments/ledger (destination of shop/checkout-routes) 8080 - -",
		"DRY RUN (nothing is applied) of the proposed Istio 1.31 (none given: the newest release meshscope models); mesh sample/new-mesh.yaml, inventory sample/inventory.yaml",
		"SIDECAR AUDIT (sidecars, gateways, the status of routes) platform *.partner.example: (not received) -> ServiceEntry payments/partner-api 443",
		"shop with app=checkout api.partner.example: (not received) -> ServiceEntry payments/partner-api 443",
		// The gateways of shop get what shop's sidecars get, and are not repeated; a gateway
		// with app=checkout is no sidecar of shop/checkout's Sidecar: it gets every host.
		"gateways of shop with app=checkout *.partner.example: (not received) -> ServiceEntry payments/partner-api 443")
}

func TestSidecarExplainHost(t *testing.T) {
	out := clitest.OK(t, run, "-explain-host", "api.github.com", "-proxy", "shop", "-workload", "app=checkout")
	assert.Contains(t, out, "api.github.com for a proxy in shop with app=checkout: Sidecar shop/checkout (the oldest Sidecar of shop whose workloadSelector matches the workload); it gets ServiceEntry shop/github-mirror, ports [443]")
	assert.Contains(t, out, "ServiceEntry platform/github PUBLIC (policies[0]): not imported: no import of platform or * covers api.github.com")

	out = clitest.OK(t, run, "-explain-host", "checkout.shop.svc.cluster.local", "-proxy", "shop", "-workload", "app=checkout")
	for _, want := range []string{
		"it gets KubernetesService shop/checkout, ports [8080]",
		"shop/checkout-routes (host checkout.shop.svc.cluster.local): chosen",
		"DestinationRule: shop/checkout-canary, host checkout.shop.svc.cluster.local, subsets [v1 v2], traffic policy of shop/checkout-canary",
		"shop/checkout (host checkout.shop.svc.cluster.local): outranked: the workload-selected rule shop/checkout-canary applies to the workload",
	} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "KubernetesService shop/checkout PUBLIC", "a Kubernetes Service has no visibility decision to show")

	rep := clitest.JSON[report](t, run, "-explain-host", "checkout.shop.svc.cluster.local", "-proxy", "shop")
	require.NotNil(t, rep.SidecarExplain)
	require.NotNil(t, rep.SidecarExplain.Rule)
	assert.Equal(t, []string{"shop/checkout"}, rep.SidecarExplain.Rule.From, "shop's other proxies get the rule without a selector")
	assert.Equal(t, []string{"v1", "v2"}, rep.SidecarExplain.Rule.Subsets)

	rep = clitest.JSON[report](t, run, "-explain-host", "api.partner.example", "-proxy", "shop")
	require.NotNil(t, rep.SidecarExplain)
	assert.Nil(t, rep.SidecarExplain.Answer, "payments keeps partner-api to itself (NAMESPACE, applyToSidecars)")
	assert.Equal(t, "shop/default", rep.SidecarExplain.Sidecar)
	assert.NotEmpty(t, rep.Sidecars)
	assert.NotEmpty(t, rep.SidecarAudit)
}

func TestSidecarFlagsRefuseAmbiguity(t *testing.T) {
	clitest.Refused(t, run, nil, []clitest.Refusal{
		{Name: "-client and -proxy", Args: []string{"-explain-host", "a.example", "-client", "shop", "-proxy", "shop"}, Code: 2, Msg: "-client and -proxy ask different questions"},
		{Name: "-workload without -proxy", Args: []string{"-explain-host", "a.example", "-client", "shop", "-workload", "app=web"}, Code: 2, Msg: "-workload needs -proxy"},
		{Name: "-proxy with -explain-addr", Args: []string{"-explain-addr", "10.0.0.1", "-proxy", "shop"}, Code: 2, Msg: "-explain-addr answers for -client"},
		{Name: "-new-inventory without -inventory", Args: []string{"-new-inventory", "x.yaml"}, Code: 2, Msg: "with your own input, also give -mesh, -inventory"},
	})
	code, _, errOut := clitest.Call(run, "-explain-host", "a.example", "-proxy", "shop", "-workload", "app=web,,=")
	assert.Equal(t, 2, code, "a -workload that is not labels is a flag error")
	assert.Contains(t, errOut, `-workload "app=web,,="`)
	for _, tc := range []struct{ workload, msg string }{
		{"app=a,app=b", `-workload "app=a,app=b": label app given twice`},
		{"app!=web", `-workload "app!=web": "app!=web" is a selector's test, not a label`},
		{"app", `-workload "app": "app" is not key=value`},
		{"=web", `-workload "=web": "" is not a label key`},
		{"app=a b", `-workload "app=a b": "a b" is not a label value`},
	} {
		t.Run("-workload "+tc.workload, func(t *testing.T) {
			code, _, errOut := clitest.Call(run, "-explain-host", "a.example", "-proxy", "shop", "-workload", tc.workload)
			assert.Equal(t, 2, code)
			assert.Contains(t, errOut, tc.msg)
			assert.NotContains(t, errOut, "<nil>")
		})
	}
	assert.Contains(t, clitest.OK(t, run, "-explain-host", "api.github.com", "-proxy", "shop", "-workload", "app=checkout, version=v1"), "api.github.com for a proxy in shop with app=checkout,version=v1: Sidecar shop/checkout")
}

// TestSidecarNewInventory: a proposed inventory (here, shop's namespace Sidecar importing
// only its own namespace) is audited against the current one.
func TestSidecarNewInventory(t *testing.T) {
	cur, err := os.ReadFile("sample/inventory.yaml")
	require.NoError(t, err)
	proposed := strings.Replace(string(cur), `- hosts: ["./*", "platform/*", "payments/*.partner.example"]`, `- hosts: ["./*"]`, 1)
	require.NotEqual(t, string(cur), proposed)
	mesh, invPath, next := "sample/mesh.yaml", clitest.Write(t, "inv.yaml", string(cur)), clitest.Write(t, "next.yaml", proposed)
	rep := clitest.JSON[report](t, run, "-mesh", mesh, "-inventory", invPath, "-new-inventory", next)
	assert.Nil(t, rep.Audit, "the mesh does not change: no visibility audit")
	assert.Equal(t, []sidecar.Change{{
		Key:    sidecar.ProxyHost{Namespace: "shop", Host: "egress.platform.internal"},
		Before: &sidecar.Answer{Service: sidecar.Service{Host: "egress.platform.internal", Kind: inventory.ServiceEntry, Namespace: "platform", Name: "egress-net", Ports: []uint32{443}}},
		Lost:   []uint32{443},
	}}, rep.SidecarAudit)
	out := clitest.OK(t, run, "-mesh", mesh, "-inventory", invPath, "-new-inventory", next)
	assert.Contains(t, out, "DRY RUN (nothing is applied) of the proposed Istio 1.31 (none given: the newest release meshscope models); mesh sample/mesh.yaml, inventory "+next)
	assert.Contains(t, clitest.Words(out), "shop egress.platform.internal: ServiceEntry platform/egress-net 443 -> (not received)")
}

func TestSidecarFindings(t *testing.T) {
	inv := clitest.Write(t, "inv.yaml", `kind: List
items:
- {kind: Namespace, metadata: {name: shop}}
- {apiVersion: networking.istio.io/v1, kind: Sidecar, metadata: {name: default, namespace: shop}, spec: {egress: [{hosts: ["*/*", "~/*"]}]}}
`)
	mesh := clitest.Write(t, "mesh.yaml", "meshConfig: {}\n")
	code, out, errOut := clitest.Call(run, "-mesh", mesh, "-inventory", inv, "-fail-on", "warning")
	assert.Equal(t, 3, code, errOut)
	assert.Contains(t, clitest.Words(out), `WARNING ImportExcluded Sidecar shop/default egress[0].hosts[0]: "~/*" beside imports empties the listener`)
	assert.Contains(t, out, "shop             shop/default  (nothing)")
}

// TestProxyListsOneClass: -proxy without -explain-host lists what that namespace's proxies
// (with -workload, those a workload Sidecar selects) receive, and nothing else.
func TestProxyListsOneClass(t *testing.T) {
	rep := clitest.JSON[struct{ Sidecars []proxyRow }](t, run, "-proxy", "shop")
	require.Len(t, rep.Sidecars, 1)
	assert.Equal(t, "shop", rep.Sidecars[0].Namespace)
	assert.NotEmpty(t, rep.Sidecars[0].Hosts)
	code, _, errOut := clitest.Call(run, "-proxy", "ghost")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `-proxy "ghost": the inventory has no such namespace`)
}

// TestSidecarTableIsBounded: on a mesh whose every namespace receives every public service,
// the table stops after sidecarBudget hosts and says how many classes it left out, rather
// than holding namespaces × services rows.
func TestSidecarTableIsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: List\nitems:\n")
	for n := range 20 {
		fmt.Fprintf(&b, "- {apiVersion: v1, kind: Namespace, metadata: {name: ns%d}}\n", n)
	}
	for i := range sidecarBudget/2 + 1 {
		fmt.Fprintf(&b, "- {apiVersion: networking.istio.io/v1, kind: ServiceEntry, metadata: {name: se%d, namespace: ns0}, spec: {hosts: [h%d.example.com], ports: [{number: 443, name: tls, protocol: TLS}], resolution: DNS}}\n", i, i)
	}
	inv := clitest.Write(t, "inventory.yaml", b.String())
	mesh := clitest.Write(t, "mesh.yaml", "meshConfig: {}\n")
	type table struct {
		Sidecars        []proxyRow
		SidecarsOmitted int
	}
	rep := clitest.JSON[table](t, run, "-mesh", mesh, "-inventory", inv)
	require.Len(t, rep.Sidecars, 2, "two namespaces' views reach the budget")
	assert.Equal(t, 18, rep.SidecarsOmitted)
	_, out, _ := clitest.Call(run, "-mesh", mesh, "-inventory", inv)
	assert.Contains(t, clitest.Words(out), "18 more classes of proxies are not listed: the table stops after 5000 hosts; -proxy NAMESPACE [-workload LABELS] lists one class")
	_, out, _ = clitest.Call(run, "-mesh", mesh, "-inventory", inv, "-proxy", "ns7", "-o", "json")
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Len(t, rep.Sidecars, 1)
	assert.Len(t, rep.Sidecars[0].Hosts, sidecarBudget/2+1, "-proxy lists its class whole")
}

// TestSidecarRoutingAudit: a proposed DestinationRule that drops a subset the VirtualService
// routes to is an error of the proposed configuration, for exactly the proxies that get that
// rule, and the audit shows the rule's subsets before and after.
func TestSidecarRoutingAudit(t *testing.T) {
	cur, err := os.ReadFile("sample/inventory.yaml")
	require.NoError(t, err)
	proposed := strings.Replace(string(cur), "- {name: v2, labels: {version: v2, track: canary}}", "- {name: v3, labels: {version: v3}}", 1)
	require.NotEqual(t, string(cur), proposed)
	invPath, next := clitest.Write(t, "inv.yaml", string(cur)), clitest.Write(t, "next.yaml", proposed)
	code, out, errOut := clitest.Call(run, "-mesh", "sample/mesh.yaml", "-inventory", invPath, "-new-inventory", next, "-fail-on", "error")
	assert.Equal(t, 3, code, errOut)
	clitest.ContainsWords(t, out,
		"ERROR RouteSubsetMissing proposed "+next+": VirtualService shop/checkout-routes: routes to subset v2 of checkout.shop.svc.cluster.local, but the DestinationRule these proxies get for it (shop/checkout-canary) has subsets [v1 v3]: requests routed there fail (for the proxies of shop with app=checkout)",
		"shop with app=checkout checkout.shop.svc.cluster.local: KubernetesService shop/checkout 8080, routed by shop/checkout-routes, rule shop/checkout-canary [v1,v2] -> KubernetesService shop/checkout 8080, routed by shop/checkout-routes, rule shop/checkout-canary [v1,v3]")
	assert.Equal(t, 1, strings.Count(out, "RouteSubsetMissing"), "one finding, for the one class of proxies that gets the rule")
}

// ingressInventory has a ServiceEntry of api.example.com private to ingress, and an older one
// of ext exported to ingress by name: a sidecar of ingress gets its own; a gateway there gets
// its own only up to 1.30.2, which puts a namespace's private services first, and from 1.30.3
// the older one.
const ingressInventory = `kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: ingress}}
- {apiVersion: v1, kind: Namespace, metadata: {name: ext}}
- apiVersion: networking.istio.io/v1
  kind: ServiceEntry
  metadata: {name: api, namespace: ext, creationTimestamp: "2026-01-01T00:00:00Z"}
  spec: {hosts: [api.example.com], ports: [{number: 443, name: tls, protocol: TLS}], resolution: DNS, exportTo: [ingress]}
- apiVersion: networking.istio.io/v1
  kind: ServiceEntry
  metadata: {name: api, namespace: ingress, creationTimestamp: "2026-01-02T00:00:00Z"}
  spec: {hosts: [api.example.com], ports: [{number: 443, name: tls, protocol: TLS}], resolution: DNS, exportTo: ["."]}
`

// TestGateways: the gateways' lint is in LINT, and an upgrade's dry run lists a gateway's
// change, which its namespace's sidecars do not share, with its cause.
func TestGateways(t *testing.T) {
	own := []string{"-mesh", clitest.Write(t, "mesh.yaml", "meshConfig: {}\n"), "-inventory", clitest.Write(t, "inv.yaml", ingressInventory)}
	assert.Contains(t, clitest.Words(clitest.OK(t, run, own...)), "WARNING GatewayOwnServiceOutranked ServiceEntry ingress/api")

	upgrade := append(own, "-istio", "1.30.2", "-new-istio", "1.30.3")
	out := clitest.OK(t, run, upgrade...)
	assert.Contains(t, clitest.Words(out), "SIDECAR AUDIT (sidecars, gateways, the status of routes) gateways of ingress api.example.com: "+
		"ServiceEntry ingress/api 443 -> ServiceEntry ext/api 443 (causes: ListenerOrder)")
	assert.NotContains(t, out, "\n  ingress api.example.com", "ingress's sidecars get their own namespace's in both releases")

	rep := clitest.JSON[report](t, run, upgrade...)
	require.Len(t, rep.GatewayAudit, 1)
	assert.Equal(t, []mesh.Cause{mesh.ListenerOrder}, rep.GatewayAudit[0].Causes)
	assert.Empty(t, rep.SidecarAudit)
}

const (
	reviews = "reviews.default.svc.cluster.local"
	// routeVS is the VirtualService istiod makes of bookinfo-route.yaml's HTTPRoute.
	routeVS = "default/default~9080~" + reviews
)

// bookinfoWithRoute writes a dump holding bookinfo.yaml and bookinfo-route.yaml's HTTPRoute
// as the cluster holds it once applied: with its namespace and creation time.
func bookinfoWithRoute(t *testing.T) string {
	t.Helper()
	dump, err := os.ReadFile("testdata/bookinfo.yaml")
	require.NoError(t, err)
	route, err := os.ReadFile("testdata/bookinfo-route.yaml")
	require.NoError(t, err)
	applied := strings.Replace(string(route), "  name: reviews\n", "  name: reviews\n  namespace: default\n  creationTimestamp: \"2026-04-20T08:10:00Z\"\n", 1)
	require.NotEqual(t, string(route), applied)
	return clitest.Write(t, "bookinfo-both.yaml", string(dump)+"---\n"+applied)
}

// TestBookinfoRoutedByBoth: bookinfo's reviews split 90/10 by a VirtualService and by an
// HTTPRoute whose parent is the reviews Service, both in the dump. For a proxy in default the
// table shows the route's VirtualService routing reviews (a route of the proxy's namespace
// comes first in the listener's order: it builds the virtual host); for one in web, the
// user's VirtualService (a producer route claims the host for its namespace's proxies
// only). Lint says the host is routed by both, and -explain-host names the route behind the
// VirtualService istiod made.
func TestBookinfoRoutedByBoth(t *testing.T) {
	own := []string{"-mesh", "testdata/mesh-bookinfo.yaml", "-inventory", bookinfoWithRoute(t)}
	code, out, errOut := clitest.Call(run, append(own, "-fail-on", "warning")...)
	assert.Equal(t, 3, code, "HostRoutedByBoth is a warning: %s", errOut)
	assert.Contains(t, errOut, "WARNING HostRoutedByBoth VirtualService default/reviews")
	clitest.ContainsWords(t, out,
		"WARNING HostRoutedByBoth VirtualService default/reviews: routes host "+reviews+", as "+routeVS+" does, which istiod made from HTTPRoute default/reviews (rule 0)",
		routeVS+" builds the virtual host "+reviews+":9080 (for the proxies of default)",
		"SIDECAR PROXIES SIDECAR HOST FROM PORTS ROUTED BY DESTINATION RULE",
		reviews+" KubernetesService default/reviews 9080 "+routeVS+" default/reviews [v1,v2,v3] web (none: */*)",
		reviews+" KubernetesService default/reviews 9080 default/reviews default/reviews [v1,v2,v3]")

	rep := clitest.JSON[report](t, run, own...)
	routedBy := map[string]string{}
	for _, row := range rep.Sidecars {
		for _, a := range row.Hosts {
			if a.Host == reviews {
				routedBy[row.Namespace] = a.RoutedBy()
				if row.Namespace == "default" {
					assert.Equal(t, []sidecar.VirtualHost{{Name: reviews + ":9080", VirtualService: routeVS}}, a.VirtualHosts)
				}
			}
		}
	}
	assert.Equal(t, map[string]string{"default": routeVS, "web": "default/reviews"}, routedBy)

	clitest.ContainsWords(t, clitest.OK(t, run, append(own, "-explain-host", reviews, "-proxy", "default")...),
		"Route tables: port 9080, virtual host "+reviews+":9080",
		routeVS+" (host "+reviews+"): chosen: it builds the virtual host "+reviews+":9080 (1 route): the first VirtualService of the listener's order to claim it; istiod made it from HTTPRoute default/reviews (rule 0)",
		"default/reviews (host "+reviews+"): outranked: "+routeVS+" claims "+reviews+":9080 first")
}

// TestRoutedByIsTheRouteTables: a consumer route of web, older than shop's VirtualService, is
// the most specific VirtualService of reviews for every proxy (the listener's Routes), but
// builds its virtual host only for web's proxies: ROUTED BY names shop's VirtualService for
// shop's, with the listener's answer beside it, and lint says the Routes answer builds
// nothing.
func TestRoutedByIsTheRouteTables(t *testing.T) {
	inv := clitest.Write(t, "consumer.yaml", `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: shop}}
- {apiVersion: v1, kind: Namespace, metadata: {name: web}}
- apiVersion: v1
  kind: Service
  metadata: {name: reviews, namespace: shop, creationTimestamp: "2026-05-01T10:00:00Z"}
  spec: {clusterIP: 10.96.0.4, ports: [{name: http, port: 9080}]}
- apiVersion: v1
  kind: Service
  metadata: {name: reviews-v2, namespace: shop, creationTimestamp: "2026-05-01T10:00:01Z"}
  spec: {clusterIP: 10.96.0.5, ports: [{name: http, port: 9080}]}
- apiVersion: gateway.networking.k8s.io/v1
  kind: HTTPRoute
  metadata: {name: reviews-v2, namespace: web, creationTimestamp: "2026-05-01T10:01:00Z"}
  spec:
    parentRefs: [{group: "", kind: Service, name: reviews, namespace: shop, port: 9080}]
    rules: [{backendRefs: [{name: reviews-v2, namespace: shop, port: 9080}]}]
- apiVersion: networking.istio.io/v1
  kind: VirtualService
  metadata: {name: reviews, namespace: shop, creationTimestamp: "2026-05-01T10:05:00Z"}
  spec: {hosts: [reviews], http: [{route: [{destination: {host: reviews}}]}]}
`)
	const consumer = "web/web~9080~reviews.shop.svc.cluster.local"
	clitest.ContainsWords(t, clitest.OK(t, run, "-mesh", "testdata/mesh-bookinfo.yaml", "-inventory", inv),
		"WARNING RoutesAnswerBuildsNothing HTTPRoute web/reviews-v2",
		"shop (none: */*) reviews-v2.shop.svc.cluster.local KubernetesService shop/reviews-v2 9080 - - reviews.shop.svc.cluster.local KubernetesService shop/reviews 9080 shop/reviews (listener: "+consumer+") -",
		"web (none: */*) reviews-v2.shop.svc.cluster.local KubernetesService shop/reviews-v2 9080 - - reviews.shop.svc.cluster.local KubernetesService shop/reviews 9080 "+consumer+" -")
}
