package sidecar

import (
	"strings"

	"github.com/meshscope/meshscope/visibility/inventory"
)

// gammaIndex is what istiod's Gateway API controller looks routes' references up in, built
// once: the objects of the discovered namespaces (istiod watches no other), and every
// namespace's labels (it watches every Namespace).
type gammaIndex struct {
	inv        *inventory.Inventory
	domain     string
	discovered func(string) bool
	// k8s and entries are the discovered Kubernetes Services and ServiceEntries.
	k8s, entries map[gammaNSName]*inventory.Service
	// hosts are the host and namespace of every discovered service: istiod's service index
	// by host and namespace, in which a Hostname backend is looked up.
	hosts map[gammaHostNS]bool
	// gateways are the discovered Gateways.
	gateways map[gammaNSName]*inventory.Gateway
	// grants are the discovered ReferenceGrants' permissions istiod reads.
	grants map[gammaGrantKey]*gammaGrant
}

type gammaNSName struct{ namespace, name string }

type gammaHostNS struct{ host, namespace string }

// gammaGrantKey is a kind of object of a namespace (from) allowed to refer to a kind of
// object of another (to).
type gammaGrantKey struct {
	fromKind, fromNS, toGroup, toKind, toNS string
}

// gammaGrant is what the ReferenceGrants with one key allow: every object, or those named.
type gammaGrant struct {
	all   bool
	names map[string]bool
}

// The kinds of object a ReferenceGrant may let a route refer to that istiod reads, and the
// route kinds it reads in from (all of gateway.networking.k8s.io).
var (
	gammaGrantTo = map[[2]string]bool{{"", "Service"}: true, {"", "ConfigMap"}: true, {"", "Secret"}: true,
		{"inference.networking.k8s.io", "InferencePool"}: true}
	gammaGrantFrom = map[string]bool{"HTTPRoute": true, "GRPCRoute": true, "TCPRoute": true, "TLSRoute": true,
		"Gateway": true, "ListenerSet": true}
)

func newGammaIndex(inv *inventory.Inventory, discovered func(string) bool) *gammaIndex {
	ix := &gammaIndex{
		inv: inv, domain: inv.ClusterDomain(), discovered: discovered,
		k8s: map[gammaNSName]*inventory.Service{}, entries: map[gammaNSName]*inventory.Service{},
		hosts: map[gammaHostNS]bool{}, gateways: map[gammaNSName]*inventory.Gateway{},
		grants: map[gammaGrantKey]*gammaGrant{},
	}
	if len(inv.Routes) == 0 {
		return ix
	}
	for i := range inv.Services {
		s := &inv.Services[i]
		if !discovered(s.Namespace) {
			continue
		}
		if s.Kind == inventory.KubernetesService {
			ix.k8s[gammaNSName{s.Namespace, s.Name}] = s
		} else {
			ix.entries[gammaNSName{s.Namespace, s.Name}] = s
		}
		for _, h := range s.Hosts {
			ix.hosts[gammaHostNS{h, s.Namespace}] = true
		}
	}
	for i := range inv.Gateways {
		if g := &inv.Gateways[i]; discovered(g.Namespace) {
			ix.gateways[gammaNSName{g.Namespace, g.Name}] = g
		}
	}
	for i := range inv.ReferenceGrants {
		ix.addGrant(&inv.ReferenceGrants[i])
	}
	return ix
}

// addGrant records what a discovered ReferenceGrant allows: each from istiod reads (a kind of
// gateway.networking.k8s.io it handles) to each to it reads.
func (ix *gammaIndex) addGrant(g *inventory.ReferenceGrant) {
	if !ix.discovered(g.Namespace) {
		return
	}
	for _, f := range g.From {
		if f.Group != inventory.GatewayAPIGroup || !gammaGrantFrom[f.Kind] {
			continue
		}
		for _, t := range g.To {
			if !gammaGrantTo[[2]string{t.Group, t.Kind}] {
				continue
			}
			k := gammaGrantKey{f.Kind, f.Namespace, t.Group, t.Kind, g.Namespace}
			gr := ix.grants[k]
			if gr == nil {
				gr = &gammaGrant{names: map[string]bool{}}
				ix.grants[k] = gr
			}
			if t.Name == "" {
				gr.all = true
			} else {
				gr.names[t.Name] = true
			}
		}
	}
}

// granted reports whether a route of kind in namespace from may refer to the backend of
// group and kind named name in namespace to.
func (ix *gammaIndex) granted(kind inventory.RouteKind, from, group, backendKind, name, to string) bool {
	g := ix.grants[gammaGrantKey{string(kind), from, group, backendKind, to}]
	return g != nil && (g.all || g.names[name])
}

// The labels with which a service or its namespace names its waypoint.
const (
	useWaypointLabel          = "istio.io/use-waypoint"
	useWaypointNamespaceLabel = "istio.io/use-waypoint-namespace"
)

// gammaOwnClasses are the Gateway classes of istiod's own controllers (the default
// controller's and the waypoints'): a waypoint of another class belongs to another
// controller. GatewayClass objects are not read; a class is known by these names.
var gammaOwnClasses = map[string]bool{"istio": true, "istio-waypoint": true}

// waypointElsewhere reports whether the mesh parent (a Service or a ServiceEntry) uses a
// waypoint of another controller — by its istio.io/use-waypoint label, else its namespace's —
// for which istiod leaves the parent alone.
func (ix *gammaIndex) waypointElsewhere(s *inventory.Service) bool {
	if s == nil {
		return false
	}
	labels := s.Labels
	name, found := labels[useWaypointLabel]
	if !found {
		nsLabels, ok := ix.inv.Namespaces[s.Namespace]
		if !ok {
			return false
		}
		labels = nsLabels
		name, found = labels[useWaypointLabel]
	}
	if !found || name == "" || strings.EqualFold(name, "none") {
		return false
	}
	ns := s.Namespace
	if v := labels[useWaypointNamespaceLabel]; v != "" {
		ns = v
	}
	gw := ix.gateways[gammaNSName{ns, name}]
	return gw != nil && !gammaOwnClasses[gw.ClassName]
}
