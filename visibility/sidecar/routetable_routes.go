package sidecar

// Which HTTP routes of a VirtualService a proxy gets on a port, and which ports Istio routes
// HTTP on.

import (
	"slices"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/visibility/inventory"
)

// httpLike reports whether Istio routes HTTP for port of service id (httpProtocol).
func (v *View) httpLike(id int32, port uint32) bool {
	p, _ := v.services.service(id).Protocol(port)
	return httpProtocol(p)
}

// httpProtocol reports whether Istio routes HTTP on a port of protocol p: HTTP, HTTP2,
// HTTP_PROXY, GRPC, GRPC-Web, or one it does not recognise ("": it sniffs).
func httpProtocol(p string) bool {
	switch p {
	case "", inventory.ProtocolHTTP, inventory.ProtocolHTTP2, inventory.ProtocolHTTPProxy, inventory.ProtocolGRPC, inventory.ProtocolGRPCWeb:
		return true
	}
	return false
}

// httpRoutes counts the HTTP routes of r istiod builds for port (0: only those no match
// limits to a port) and a proxy in namespace n with labels w: every entry without a match, and
// every match without a port or with this one whose gateways name mesh — or, naming none,
// whose sourceLabels the proxy carries and whose sourceNamespace is "" or n —, up to the
// first that matches every request (and no further).
func (r *virtualService) httpRoutes(port uint32, n string, w labels.Set) int {
	count := 0
	for _, h := range r.http {
		if len(h.match) == 0 {
			return count + 1
		}
		for i := range h.match {
			m := &h.match[i]
			if m.Port != 0 && m.Port != port || !sourceMatches(m, n, w) {
				continue
			}
			count++
			if catchAllMatch(m) {
				return count
			}
		}
	}
	return count
}

// sourceMatches reports whether a match applies to a sidecar in namespace n with labels w:
// its gateways name mesh, or it names none and w carries its sourceLabels, and its
// sourceNamespace is "" or n.
func sourceMatches(m *inventory.HTTPMatch, n string, w labels.Set) bool {
	if len(m.Gateways) > 0 {
		return slices.Contains(m.Gateways, meshGateway)
	}
	return subsetOf(m.SourceLabels, w) && (m.SourceNamespace == "" || m.SourceNamespace == n)
}

// catchAllMatch reports whether Envoy's route of a match matches every request: no header,
// query parameter, method, authority or scheme condition, and a uri of prefix "/", regex ".*"
// or none.
func catchAllMatch(m *inventory.HTTPMatch) bool {
	if len(m.Headers)+len(m.WithoutHeaders)+len(m.QueryParams) > 0 || m.Method != nil || m.Authority != nil || m.Scheme != nil {
		return false
	}
	u := m.URI
	return u == nil || *u == (inventory.StringMatch{}) || u.Prefix == "/" || u.Regex == ".*"
}

// separate splits the hosts of VirtualService k (r) into the services of the listener it
