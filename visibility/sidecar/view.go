package sidecar

import (
	"errors"

	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// View is what every Envoy proxy of an inventory receives, as istiod's SidecarScope
// computes it: which Sidecar resource applies to a sidecar, every service host it gets
// (from which namespace and object, with which ports), how its listeners route them, and
// the DestinationRule it gets for each; and a gateway's view. It is built by New, immutable
// and safe for concurrent use; it keeps the inventory's slices and maps (do not modify them
// afterwards), and what its methods return is the caller's.
//
// It holds one index per kind of object — services, Sidecars, VirtualServices,
// DestinationRules — and works out a proxy's scope when asked (View.build), in one record
// every question reads.
type View struct {
	root string
	// rootSet: the mesh configuration gives rootNamespace (root is not the default).
	rootSet bool
	disc    discovery
	inv     *inventory.Inventory
	domain  string // the cluster domain short names resolve into
	// visibility: whether serviceEntryVisibility is configured (enabled), and whether it
	// narrows what sidecars get (narrows: applyToSidecars).
	enabled, narrows bool

	services serviceIndex
	sidecars sidecarIndex
	vss      vsIndex
	rules    ruleIndex
	// routes is istiod's conversion of the Gateway API routes: the VirtualServices it makes
	// (those for the mesh are among vss) and the status it writes on each route.
	routes *gammaRoutes
	// outbound is the mesh's outbound traffic mode (mesh.Config.OutboundMode; "" is
	// ALLOW_ANY).
	outbound string
}

// New builds the sidecar view of an inventory under a mesh configuration (nil: Istio's
// defaults): its serviceEntryVisibility, rootNamespace, default exportTo of each kind and
// discoverySelectors. It validates both (mesh.Config.Validate, inventory.Inventory.Validate),
// reporting every problem.
//
// Building costs time linear in the inventory: every object is ordered and indexed once,
// and no proxy's view is worked out until it is asked for.
func New(m *mesh.Config, inv *inventory.Inventory) (*View, error) {
	if inv == nil {
		inv = &inventory.Inventory{}
	}
	if err := errors.Join(m.Validate(), inv.Validate()); err != nil {
		return nil, err
	}
	var vc *visibility.Config
	var svcDefault, vsDefault, drDefault []string
	if m != nil {
		vc = m.Visibility
		svcDefault, vsDefault, drDefault = m.DefaultServiceExportTo, m.DefaultVirtualServiceExportTo, m.DefaultDestinationRuleExportTo
	}
	r, err := visibility.Compile(vc)
	if err != nil {
		return nil, err
	}
	v := &View{root: m.Root(), rootSet: m != nil && m.RootNamespace != "", disc: newDiscovery(m, inv.Namespaces), inv: inv, domain: inv.ClusterDomain(),
		enabled: r.Enabled(), narrows: r.AppliesToSidecars(), outbound: m.OutboundMode()}
	v.services = newServiceIndex(inv, v.disc, inv.Decisions(r), svcDefault, v.narrows)
	v.sidecars = newSidecarIndex(inv.Sidecars, v.disc, v.root)
	v.routes = convertRoutes(inv, v.disc.discovered)
	v.vss = newVSIndex(inv.VirtualServices, v.routes.vss, v.disc, v.domain, vsDefault)
	v.rules = newRuleIndex(inv.DestinationRules, v.disc, v.domain, drDefault, v.root)
	return v, nil
}

// Discovered reports whether istiod discovers namespace: there are no discovery selectors,
// or the namespace has a Namespace object whose labels one of them matches. A proxy in an
// undiscovered namespace still gets a view, made of what is discovered.
func (v *View) Discovered(namespace string) bool {
	return v.disc.discovered(namespace)
}
