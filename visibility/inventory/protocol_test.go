package inventory

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPortProtocols: the protocol Istio gives each port, as Load reads it — a ServiceEntry's
// protocol; a Kubernetes Service's appProtocol, else its name's prefix — and a ServiceEntry
// protocol Istio does not recognise refused in its words.
func TestPortProtocols(t *testing.T) {
	const dump = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Service
  metadata: {name: web, namespace: shop}
  spec:
    clusterIP: 10.0.0.1
    ports:
    - {name: http-web, port: 80}
    - {name: grpc-web-ui, port: 81}
    - {name: grpc, port: 82}
    - {name: web, port: 83, appProtocol: http2}
    - {name: http, port: 84, appProtocol: kubernetes.io/h2c}
    - {name: ws, port: 85, appProtocol: kubernetes.io/wss}
    - {name: dns, port: 53, protocol: UDP}
    - {name: mysql-ish, port: 3306}
    - {port: 8080}
    - {name: tcp, port: 5432}
- apiVersion: networking.istio.io/v1
  kind: ServiceEntry
  metadata: {name: api, namespace: shop}
  spec:
    hosts: [api.example.com]
    ports: [{number: 443, name: https, protocol: TLS}, {number: 80, name: h, protocol: http}, {number: 9000, name: x}]
`
	inv, err := Load([]byte(dump), "")
	require.NoError(t, err)
	assert.Equal(t, []string{ProtocolHTTP, ProtocolGRPCWeb, ProtocolGRPC, ProtocolHTTP2, ProtocolHTTP2, ProtocolHTTPS, ProtocolUDP, ProtocolMySQL, "", ProtocolTCP}, inv.Services[0].Protocols)
	assert.Equal(t, []string{ProtocolTLS, ProtocolHTTP, ""}, inv.Services[1].Protocols)
	p, ok := inv.Services[0].Protocol(8080)
	assert.Equal(t, []any{"", true}, []any{p, ok})
	_, ok = inv.Services[0].Protocol(9999)
	assert.False(t, ok)

	_, err = Load([]byte(`apiVersion: networking.istio.io/v1
kind: ServiceEntry
metadata: {name: api, namespace: shop}
spec: {hosts: [api.example.com], ports: [{number: 443, name: x, protocol: QUIC}]}
`), "")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `spec.ports[0].protocol: unsupported protocol: QUIC`)

	s := Service{Kind: KubernetesService, Namespace: "shop", Name: "web", Hosts: []string{"web.shop.svc.cluster.local"}, Ports: []uint32{80, 81}, Protocols: []string{"http"}}
	err = (&Inventory{Services: []Service{s}}).Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "1 protocols for 2 ports")
	assert.Contains(t, err.Error(), `"http" is not a protocol as Istio names it`)
}

// TestSidecarOutboundTrafficMode: a Sidecar's outboundTrafficPolicy mode, REGISTRY_ONLY for a
// policy that gives none (as istiod reads it), an unknown mode refused.
func TestSidecarOutboundTrafficMode(t *testing.T) {
	for spec, want := range map[string]string{
		`{egress: [{hosts: ["*/*"]}]}`:                                "",
		`{outboundTrafficPolicy: {mode: ALLOW_ANY}}`:                  OutboundAllowAny,
		`{outboundTrafficPolicy: {}}`:                                 OutboundRegistryOnly,
		`{outboundTrafficPolicy: {egressProxy: {host: egress.shop}}}`: OutboundRegistryOnly,
	} {
		inv, err := Load([]byte("apiVersion: networking.istio.io/v1\nkind: Sidecar\nmetadata: {name: s, namespace: shop}\nspec: "+spec+"\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n"), "")
		require.NoError(t, err, spec)
		assert.Equal(t, want, inv.Sidecars[0].OutboundTrafficMode, spec)
	}
	_, err := Load([]byte("apiVersion: networking.istio.io/v1\nkind: Sidecar\nmetadata: {name: s, namespace: shop}\nspec: {outboundTrafficPolicy: {mode: ALLOW_ALL}}\n"), "")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `spec.outboundTrafficPolicy.mode: "ALLOW_ALL" is not one of REGISTRY_ONLY, ALLOW_ANY`)
}
