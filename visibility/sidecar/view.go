package sidecar

import (
	"errors"

	"github.com/meshscope/meshscope/internal/exportto"
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
	// visibility: whether serviceEntryVisibility is configured and applied by the release
	// (enabled), and whether it narrows what sidecars get (narrows: applyToSidecars).
	enabled, narrows bool
	// release is the Istio release the view answers as (mesh.Config.Release); pickBest: a
	// VirtualService destination's service comes from the best namespace, not the first
	// (DestinationNamespace).
	release  mesh.Release
	pickBest bool
	// vsDefaultsDiffer: releases on either side of DefaultExportToLists read the mesh's
	// defaultVirtualServiceExportTo otherwise (for Diff's causes).
	vsDefaultsDiffer bool

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
// defaults): its release (mesh.Config.Release: the view answers as that Istio release),
// serviceEntryVisibility (as the release applies it: mesh.Config.AppliedVisibility),
// rootNamespace, default exportTo of each kind and discoverySelectors. It validates both
// (mesh.Config.Validate, inventory.Inventory.Validate), and refuses an inventory holding an
// object the release's validation refuses (inventory.Inventory.ValidateFor: a Sidecar with a
// "~ns/…" egress host up to 1.30), in the release's words, reporting every problem. A caller
// comparing releases builds each release's view from inv.Without(inv.ValidateFor(r)) and
// lists what that release refuses (see Diff).
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
	rel := m.Release()
	var errs []error
	for _, r := range inv.ValidateFor(rel) {
		errs = append(errs, r.Problems...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	var svcDefault, vsDefault, drDefault []string
	if m != nil {
		svcDefault, vsDefault, drDefault = m.DefaultServiceExportTo, m.DefaultVirtualServiceExportTo, m.DefaultDestinationRuleExportTo
	}
	r, err := visibility.Compile(m.AppliedVisibility())
	if err != nil {
		return nil, err
	}
	v := &View{root: m.Root(), rootSet: m != nil && m.RootNamespace != "", disc: newDiscovery(m, inv.Namespaces), inv: inv, domain: inv.ClusterDomain(),
		enabled: r.Enabled(), narrows: r.AppliesToSidecars(), release: rel, pickBest: rel.Has(mesh.DestinationNamespace), outbound: m.OutboundMode()}
	v.services = newServiceIndex(inv, v.disc, serviceReading{release: rel, decisions: inv.Decisions(r), narrows: v.narrows,
		meshDefault: svcDefault, defaultList: exportto.DefaultList(svcDefault, rel), ownFirst: !rel.Has(mesh.ListenerOrder),
		defaultsDiffer: exportto.DefaultListsDiffer(svcDefault), ignored: ignoredDecisions(m, inv)})
	v.sidecars = newSidecarIndex(inv.Sidecars, v.disc, v.root, readingFor(rel))
	v.routes = convertRoutes(inv, v.disc.discovered)
	v.vss = newVSIndex(inv.VirtualServices, v.routes.vss, v.disc, v.domain, vsDefault, exportto.DefaultList(vsDefault, rel))
	v.vsDefaultsDiffer = exportto.DefaultListsDiffer(vsDefault)
	v.rules = newRuleIndex(inv.DestinationRules, v.disc, v.domain, drDefault, v.root)
	return v, nil
}

// ignoredDecisions returns the visibility of each service of inv under the mesh's
// serviceEntryVisibility when its release ignores it and it would narrow what sidecars get
// (applyToSidecars); nil otherwise. Diff reads them to name the cause of what a release
// applying it changes.
func ignoredDecisions(m *mesh.Config, inv *inventory.Inventory) []visibility.Decision {
	if m == nil || m.Visibility == nil || !m.Visibility.ApplyToSidecars || m.AppliedVisibility() != nil {
		return nil
	}
	r, err := visibility.Compile(m.Visibility)
	if err != nil {
		return nil // a release that has the field refuses the configuration
	}
	return inv.Decisions(r)
}

// Release returns the Istio release the view answers as (mesh.Config.Release of its
// configuration): what an output names on its first line (Release.String).
func (v *View) Release() mesh.Release {
	if v == nil {
		return mesh.Release{}
	}
	return v.release
}

// Discovered reports whether istiod discovers namespace: there are no discovery selectors,
// or the namespace has a Namespace object whose labels one of them matches. A proxy in an
// undiscovered namespace still gets a view, made of what is discovered.
func (v *View) Discovered(namespace string) bool {
	return v.disc.discovered(namespace)
}
