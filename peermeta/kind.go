package peermeta

import (
	"fmt"

	"github.com/meshscope/meshscope/exports"
)

// ServiceKind is a Consul service kind, as the catalog and health outputs spell it
// (NodeService.Kind, the Kind of /v1/internal/ui/services, the ServiceKind of
// /v1/catalog/service/<name>). A "*" export rule exports only typical services (kind "").
type ServiceKind string

// Consul's service kinds. The synthetic instances a peer receives (Exported.Instances) are
// KindConnectProxy.
const (
	KindTypical            ServiceKind = ""
	KindConnectProxy       ServiceKind = "connect-proxy"
	KindMeshGateway        ServiceKind = "mesh-gateway"
	KindTerminatingGateway ServiceKind = "terminating-gateway"
	KindIngressGateway     ServiceKind = "ingress-gateway"
	KindAPIGateway         ServiceKind = "api-gateway"
)

// valid reports whether k is one of Consul's kinds.
func (k ServiceKind) valid() bool {
	switch k {
	case KindTypical, KindConnectProxy, KindMeshGateway, KindTerminatingGateway, KindIngressGateway, KindAPIGateway:
		return true
	}
	return false
}

// kindProblem says why k is not a service kind.
func kindProblem(k ServiceKind) string {
	return fmt.Sprintf("%q is not a service kind: want %q (typical), %q, %q, %q, %q or %q",
		k, KindTypical, KindConnectProxy, KindMeshGateway, KindTerminatingGateway, KindIngressGateway, KindAPIGateway)
}

// connectService is the rule that makes a connect service, whichever Consul output tells of
// an instance: a sidecar proxy (kind connect-proxy) makes a connect service of the service it
// proxies for (destination), a connect-native instance of its own service (native), and so
// does an entry of /v1/internal/ui/services that says its service has a sidecar proxy
// (proxied). s is the instance's own service; ok is false when the instance makes none.
func connectService(s exports.ServiceName, kind ServiceKind, destination string, native, proxied bool) (exports.ServiceName, bool) {
	switch {
	case native || proxied:
		return s.Canonical(), true
	case kind == KindConnectProxy && destination != "":
		return exports.ServiceName{Partition: s.Partition, Namespace: s.Namespace, Name: destination}.Canonical(), true
	}
	return exports.ServiceName{}, false
}
