package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshscope/meshscope/internal/clitest"
	"github.com/meshscope/meshscope/visibility/mesh"
)

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
