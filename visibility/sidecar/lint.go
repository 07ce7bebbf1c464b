package sidecar

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/exportto"
	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/internal/report"
	"github.com/meshscope/meshscope/internal/strict"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// The codes of View.Lint: configurations Istio resolves surprisingly.
var (
	// ImportExcluded (warning): an egress import that an exclusion of the same listener
	// covers entirely, so it never imports anything — an exclusion beats any import, and
	// "~/*" beside imports empties the listener.
	ImportExcluded = report.NewCode("ImportExcluded", report.Warning)
	// ExactImportShadowed (warning): a listener whose imports are all exact hosts of named
	// namespaces looks only at the oldest service of each host in its namespace; that one is
	// not exported to the proxy's namespace while a younger one is, which is never considered.
	ExactImportShadowed = report.NewCode("ExactImportShadowed", report.Warning)
	// RootSidecarWithSelector (warning): a Sidecar in the root namespace with a
	// workloadSelector applies only to proxies of the root namespace: it is never the
	// mesh-wide default.
	RootSidecarWithSelector = report.NewCode("RootSidecarWithSelector", report.Warning)
	// RootSidecarNotDiscovered (warning): the root namespace's Sidecar is in a namespace no
	// discovery selector matches, so istiod does not see it and it is no namespace's default.
	RootSidecarNotDiscovered = report.NewCode("RootSidecarNotDiscovered", report.Warning)
	// SidecarNeverApplies (warning): an older Sidecar of the namespace applies to every
	// workload this one would, so this one never applies.
	SidecarNeverApplies = report.NewCode("SidecarNeverApplies", report.Warning)
	// CreationTimeTie (warning): two ServiceEntries of one namespace claim a host with the same
	// creation time; which Istio takes as the oldest (the one sidecars get, the one exact
	// imports look at) depends on the order it lists them in. meshscope takes the first by name.
	CreationTimeTie = report.NewCode("CreationTimeTie", report.Warning)
	// ExportToAnnotationRepeats (note): a Kubernetes Service's networking.istio.io/exportTo
	// annotation gives an entry twice; Istio reads it as a set, so the repeat changes nothing.
	ExportToAnnotationRepeats = report.NewCode("ExportToAnnotationRepeats", report.Note)
	// RootNamespaceUnknown (warning): the mesh's rootNamespace, set explicitly, names a
	// namespace the inventory does not have while the inventory holds Sidecars, so none of
	// them is the mesh-wide default — often a misspelling (the message names the inventory
	// namespace it is a near miss of, if any).
	RootNamespaceUnknown = report.NewCode("RootNamespaceUnknown", report.Warning)
	// RouteSubsetMissing (error): a VirtualService route a proxy class has sends traffic to a
	// subset that the DestinationRule this class gets for the host does not define (or it
	// gets none): requests routed there fail. istioctl analyze checks the subset against
	// every DestinationRule of the mesh; this checks the one the proxy gets.
	RouteSubsetMissing = report.NewCode("RouteSubsetMissing", report.Error)
	// HostRoutedTwice (warning): two VirtualServices a listener selects give the same host
	// (equally specific for a service host): the first in Istio's order routes it, and the
	// other's routes for it are never used.
	HostRoutedTwice = report.NewCode("HostRoutedTwice", report.Warning)
	// RuleOutOfReach (warning): a DestinationRule exported beyond its namespace that no proxy
	// of another namespace can get: rules apply only from the proxy's own namespace, the
	// service's namespace and the root namespace, and no service of its host lives in its
	// namespace.
	RuleOutOfReach = report.NewCode("RuleOutOfReach", report.Warning)
	// CatchAllRuleMerged (warning): a DestinationRule without a workload selector merged into
	// an earlier workload-selected rule of its namespace (same exportTo), as istiod merges
	// them: only the selected workloads get its subsets and policy, and the namespace's
	// other workloads get none of it.
	CatchAllRuleMerged = report.NewCode("CatchAllRuleMerged", report.Warning)
	// ShortHostNeverMatches (warning): a VirtualService or DestinationRule host, or a route
	// destination, written name.namespace (or name.namespace.svc): Istio expands only names
	// without a dot, so it never matches the Kubernetes Service name.namespace.svc.<domain>.
	ShortHostNeverMatches = report.NewCode("ShortHostNeverMatches", report.Warning)
	// GatewayScopeOrderDependent (warning, in a gateway's Notes): what the gateway gets
	// depends on which proxy connected to istiod first (see View.Gateway).
	GatewayScopeOrderDependent = report.NewCode("GatewayScopeOrderDependent", report.Warning)
	// GatewayOwnServiceOutranked (warning, View.LintGateways): a service of a gateway's own
	// namespace, exported there, that the gateway does not get: another namespace's service
	// of its host came first, and a gateway prefers no namespace (a sidecar of the namespace
	// gets its own).
	GatewayOwnServiceOutranked = report.NewCode("GatewayOwnServiceOutranked", report.Warning)
	// DestinationTie (warning, a note of Proxy and a finding of View.Lint per class of
	// proxies): a VirtualService destination's service comes, for a sidecar whose namespace
	// holds none of its host, from a visible Kubernetes Service, else the oldest visible
	// service (DestinationNamespace, 1.30 on), and two of them in two namespaces are equally
	// old ServiceEntries (or both Kubernetes Services): istiod takes the first of a map, so
	// either may come; meshscope gives the first in its order and says so.
	DestinationTie = report.NewCode("DestinationTie", report.Warning)
	// HostRoutedByBoth (warning): a listener a proxy class has selects, for one of its service
	// hosts, both a user's VirtualService and one istiod made from a Gateway API route (both
	// giving the host itself, or the one that routes it): Istio calls mixing them for one
	// host undefined. The message says which one builds the host's virtual host on each HTTP
	// port for these proxies.
	HostRoutedByBoth = report.NewCode("HostRoutedByBoth", report.Warning)
	// RouteParentNotFound (error): a route's parentRef names a Service or ServiceEntry that
	// does not exist among the discovered objects: istiod sets Accepted=False
	// (NoMatchingParent) for it, and the route routes nothing through it.
	RouteParentNotFound = report.NewCode("RouteParentNotFound", report.Error)
	// RouteBackendUnresolved (error): a backend of a route's rule (or its mirror) that does not
	// resolve — a Service that does not exist, a Hostname no service of the route's namespace
	// has, a kind istiod does not route to, or, under a Gateway parent, one no ReferenceGrant
	// permits: requests routed there fail. Every such backend is named; istiod's
	// ResolvedRefs condition names only the last.
	RouteBackendUnresolved = report.NewCode("RouteBackendUnresolved", report.Error)
	// RouteParentPortMissing (warning): a route's mesh parentRef names a port its Service or
	// ServiceEntry does not have: istiod does not check it, and the route matches only
	// requests to that port, which the service never receives.
	RouteParentPortMissing = report.NewCode("RouteParentPortMissing", report.Warning)
	// ConsumerRouteLocal (note): a consumer route — of a namespace other than its parent
	// service's —, whose VirtualService istiod builds virtual hosts from only for the proxies
	// of the route's own namespace: the proxies of every other namespace, the service's
	// included, never get its routes.
	ConsumerRouteLocal = report.NewCode("ConsumerRouteLocal", report.Note)
	// RouteHiddenByExportTo (warning): the mesh's defaultVirtualServiceExportTo, which the
	// VirtualServices istiod makes from routes go by, keeps a route from proxies it would
	// route: a producer route from other namespaces' proxies, a consumer route from its own
	// namespace's, "~" from every proxy.
	RouteHiddenByExportTo = report.NewCode("RouteHiddenByExportTo", report.Warning)
	// RoutesAnswerBuildsNothing (warning): the VirtualService a listener's Routes names for a
	// service host (its most specific host) has HTTP routes but builds no virtual host of the
	// host for a class of proxies, on any port the listener routes it on: another
	// VirtualService or Istio's default route does (made from a consumer route of another
	// namespace, routes for other ports or sources, a later claimant).
	RoutesAnswerBuildsNothing = report.NewCode("RoutesAnswerBuildsNothing", report.Warning)
	// RouteConversionNotRecorded (warning): the view answers as an Istio release before 1.31
	// and the inventory holds Gateway API routes with a mesh parent: meshscope converts,
	// selects and reports the status of routes as the 1.31 build does (the only release whose
	// answers for routes were recorded from istiod's own code), and the release's own gateway
	// controller differs from it in ways not modelled (the route versions it reads, the status
	// it writes for some routes). Read the routes' answers for this release as 1.31's.
	RouteConversionNotRecorded = report.NewCode("RouteConversionNotRecorded", report.Warning)
)

// Lint reports what in the Sidecars, services, VirtualServices and DestinationRules Istio
// resolves surprisingly (see the codes above), sorted by path. Routes and rules are judged
// per class of proxies (Classes), by what each class actually gets — where istioctl analyze
// checks a route's subset against every DestinationRule of the mesh. Its cost is that of
// Proxy for each class, and otherwise linear in the inventory (the exact-host imports of
// the root namespace's default times the namespaces that use it).
func (v *View) Lint() []Finding {
	out := []Finding{}
	for i := range v.sidecars.all {
		out = append(out, v.lintSidecar(&v.sidecars.all[i])...)
	}
	out = append(out, v.lintShadowedSidecars()...)
	out = append(out, v.lintExactImports()...)
	out = append(out, v.lintServices()...)
	out = append(out, v.lintRootNamespace()...)
	out = append(out, v.lintRoutes()...)
	out = append(out, v.lintRules()...)
	out = append(out, v.lintShortHosts()...)
	out = append(out, v.lintGammaRoutes()...)
	slices.SortFunc(out, report.Compare)
	return out
}

func sidecarPath(sc *inventory.Sidecar) string { return "Sidecar " + sc.Namespace + "/" + sc.Name }

// lintSidecar checks one Sidecar on its own.
func (v *View) lintSidecar(sc *inventory.Sidecar) []Finding {
	var out []Finding
	path := sidecarPath(sc)
	if sc.Namespace == v.root && sc.WorkloadSelector != nil {
		out = append(out, report.New(path, RootSidecarWithSelector, "a Sidecar of the root namespace %s with a workloadSelector applies only to proxies of %s; the mesh-wide default is the root namespace's oldest Sidecar without one", v.root, v.root))
	}
	if sc.Namespace == v.root && sc.WorkloadSelector == nil && !v.Discovered(v.root) {
		out = append(out, report.New(path, RootSidecarNotDiscovered, "no discoverySelector matches the root namespace %s, so istiod does not see this Sidecar: it is no namespace's default, and proxies without a Sidecar of their own import */*", v.root))
	}
	for i := range sc.Egress {
		out = append(out, v.sidecars.reading.lintExclusions(fmt.Sprintf("%s egress[%d]", path, i), &sc.Egress[i])...)
	}
	return out
}

// lintExclusions finds the imports of a listener that one of its exclusions covers (none
// before 1.31, which has no exclusions).
func (rd egressReading) lintExclusions(at string, e *inventory.Egress) []Finding {
	var out []Finding
	for j, raw := range e.Hosts {
		imp := rd.parse(raw)
		if imp.exclude {
			continue
		}
		for k, xraw := range e.Hosts {
			x := rd.parse(xraw)
			if !x.exclude || x.namespace != names.Wildcard && x.namespace != imp.namespace || !hosts.Covers(x.host, imp.host) {
				continue
			}
			what := fmt.Sprintf("%q excludes every host %q imports (an exclusion beats any import)", xraw, raw)
			if x.namespace == names.Wildcard && x.host == names.Wildcard {
				what = fmt.Sprintf("%q beside imports empties the listener: it excludes every host of every namespace, and an exclusion beats any import", xraw)
			}
			out = append(out, report.New(fmt.Sprintf("%s.hosts[%d]", at, j), ImportExcluded, "%s; hosts[%d] never imports anything", what, k))
			break
		}
	}
	return out
}

// lintShadowedSidecars finds the Sidecars an older one of their namespace always beats: in
// Istio's order (with selectors first), an earlier Sidecar whose selector asks no more
// than this one's (no selector asks nothing).
func (v *View) lintShadowedSidecars() []Finding {
	var out []Finding
	for _, ns := range slices.Sorted(maps.Keys(v.sidecars.byNS)) {
		list := v.sidecars.byNS[ns]
		for j, sc := range list {
			for _, older := range list[:j] {
				if subsetOf(older.WorkloadSelector, sc.WorkloadSelector) {
					out = append(out, report.New(sidecarPath(sc), SidecarNeverApplies, "%s applies to every workload this Sidecar would (Istio takes the oldest that applies, those with a workloadSelector first), so this one never applies", sidecarName(older)))
					break
				}
			}
		}
	}
	return out
}

// lintExactImports finds the exact-host imports that look at an old service hidden from
// the proxy's namespace while a younger one of the same host and namespace is exported to
// it, for every namespace a Sidecar serves.
func (v *View) lintExactImports() []Finding {
	// The namespaces each discovered Sidecar serves: its own; and, for the root default,
	// every namespace of the inventory whose proxies it can serve.
	serves := map[*inventory.Sidecar][]string{}
	for ns, list := range v.sidecars.byNS {
		for _, sc := range list {
			serves[sc] = []string{ns}
		}
	}
	if def := v.sidecars.rootDefault; def != nil {
		for _, ns := range slices.Sorted(maps.Keys(v.inv.Namespaces)) {
			if !slices.ContainsFunc(v.sidecars.byNS[ns], func(sc *inventory.Sidecar) bool { return len(sc.WorkloadSelector) == 0 }) && ns != v.root {
				serves[def] = append(serves[def], ns)
			}
		}
	}
	xs := &v.services
	var out []Finding
	for sc, nss := range serves {
		for i := range sc.Egress {
			e := &sc.Egress[i]
			for j, raw := range e.Hosts {
				imp := v.sidecars.reading.parse(raw)
				if imp.exclude || isWildcard(imp.host) || imp.namespace == names.Wildcard {
					continue
				}
				// The namespaces hit, by the pair of services that hides the host from them: with
				// "." each namespace has its own.
				type pair struct{ old, young int32 }
				hit := map[pair][]string{}
				var pairs []pair
				for _, n := range nss {
					l := v.sidecars.reading.listener(e, i, n)
					if !l.exactOnly {
						break
					}
					x := imp.namespace
					if x == "." {
						x = n
					}
					o, ok := xs.indexed(imp.host, x)
					if !ok || xs.svcs[o].exportedTo(n) {
						continue
					}
					for _, id := range xs.byHost[imp.host] {
						if id != o && xs.service(id).Namespace == x && xs.svcs[id].exportedTo(n) {
							p := pair{o, id}
							if hit[p] == nil {
								pairs = append(pairs, p)
							}
							hit[p] = append(hit[p], n)
							break
						}
					}
				}
				for _, p := range pairs {
					out = append(out, report.New(fmt.Sprintf("%s egress[%d].hosts[%d]", sidecarPath(sc), i, j), ExactImportShadowed,
						"every import of the listener is an exact host, so for %q it looks only at the oldest service of %s in its namespace, %s, which is not exported to %s; %s, which is, is never considered",
						raw, imp.host, xs.ref(p.old), strings.Join(hit[p], ", "), xs.ref(p.young)))
				}
			}
		}
	}
	return out
}

// lintServices finds creation-time ties and repeated annotation entries.
func (v *View) lintServices() []Finding {
	var out []Finding
	xs := &v.services
	for k := 1; k < len(xs.svcs); k++ {
		a, b := &xs.svcs[k-1], &xs.svcs[k]
		x, y := &xs.inv[a.svc], &xs.inv[b.svc]
		if a.host == b.host && x.Namespace == y.Namespace && x.Kind == inventory.ServiceEntry && y.Kind == inventory.ServiceEntry && x.CreationTime.Equal(y.CreationTime) {
			out = append(out, report.New(y.Ref().String(), CreationTimeTie, "%s claims %s too, with the same creation time: which one Istio takes as the oldest depends on the order it lists them in (meshscope takes %s, the first by name)", x.Ref(), a.host, x.Ref()))
		}
	}
	for i := range xs.inv {
		s := &xs.inv[i]
		if s.Kind != inventory.KubernetesService {
			continue
		}
		if at, _, ok := exportto.Repeat(s.ExportTo, s.Namespace); ok {
			out = append(out, report.New(s.Ref().String(), ExportToAnnotationRepeats, "the %s annotation gives %q twice; Istio reads it as a set, so the repeat changes nothing", exportToAnnotation, s.ExportTo[at]))
		}
	}
	return out
}

// lintRootNamespace finds a rootNamespace, given in the mesh configuration, that is no
// namespace of an inventory holding Sidecars, and the namespace it may misspell.
func (v *View) lintRootNamespace() []Finding {
	if !v.rootSet || len(v.sidecars.all) == 0 {
		return nil
	}
	known := v.inv.NamespaceNames()
	if _, found := slices.BinarySearch(known, v.root); found {
		return nil
	}
	msg := fmt.Sprintf("the root namespace %q is not a namespace of the inventory, which holds Sidecars: none of them is the mesh-wide default, and a proxy without a Sidecar of its own imports */*", v.root)
	if near := strict.Close(v.root, known); near != "" {
		then := ""
		for i := range v.sidecars.all {
			if sc := &v.sidecars.all[i]; sc.Namespace == near && sc.WorkloadSelector == nil {
				then = fmt.Sprintf(", whose Sidecar %s would then be the default", sidecarName(sc))
				break
			}
		}
		msg += fmt.Sprintf("; did you mean %q%s?", near, then)
	}
	return []Finding{report.New("rootNamespace", RootNamespaceUnknown, "%s", msg)}
}
