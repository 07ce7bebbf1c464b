package sidecar

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// refSidecarView is the literal reference for View: what an Envoy proxy receives, written out
// in the steps istiod's SidecarScope takes, one proxy at a time, scanning every object at
// every step, with no index. It assumes a valid inventory. For a sidecar in namespace n:
//
//  0. discovery: only namespaces a discovery selector matches exist (the root one too), and
//     with them their services, Sidecars, VirtualServices and DestinationRules;
//  1. each service's effective exportTo (its own list, else the mesh default; narrowed by
//     visibility with applyToSidecars);
//  2. order by creation time, name (a ServiceEntry's is its host), namespace; per host and
//     namespace the oldest is the one looked up, a Kubernetes Service over a ServiceEntry;
//  3. the Sidecar that applies (n's selecting one, n's without a selector, the root
//     namespace's without one, or none: "*/*");
//  4. per listener, the candidates (for an all-exact listener, step 2's service of each
//     named host and namespace only) (ref_listeners_test.go, as 5 and 6);
//  5. exclusions, then imports, by host cover;
//  6. within a listener, which namespace holds each host;
//  7. the listener's VirtualServices (ref_routes_test.go) and, per imported host, the one
//     that routes it;
//  8. the proxy's services, listener by listener: the imported ones, then those the
//     listener's VirtualServices' destinations name; the first one of a host stands unless
//     a Kubernetes Service displaces a ServiceEntry, and services of one namespace merge their
//     ports;
//  9. per service, the DestinationRule (ref_rules_test.go).
//
// A gateway skips 3 to 7: it takes every service exported to n, first come first served
// (ref_gateway_test.go). ref_vectors_test.go holds the reference to Istio's answers.
//
// The reference restates on purpose the rules the view takes from other packages (host
// matching, exportTo, label selection): it stands apart from the code it checks, so that a
// mistake in one is not repeated in the other.
//
// The release (m's) changes steps 1, 4, 5 and 8, as each release's istiod does: before 1.31
// serviceEntryVisibility does not exist, "~ns/" excludes nothing ("~/h" names the literal
// namespace "~"), and every listener scans the services exported to n; before 1.30.3 a mesh
// default exportTo holding "." makes objects without one private, else one holding "*"
// public, else they are not indexed, and a listener lists n's own services first (one that
// names n as "." and by name, twice); before 1.30 (or with
// PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE off) a destination takes the alphabetically first
// namespace.
type refSidecarView struct {
	r   *visibility.Resolver
	m   *mesh.Config
	inv inventory.Inventory
}

// refService is one host of a service, with what the steps need.
type refService struct {
	host string
	s    *inventory.Service
	eff  []string // effective exportTo
	rank int      // its place in Istio's order
}

// rel is the release the reference answers as.
func (v refSidecarView) rel() mesh.Release { return v.m.Release() }

// defaultList is a mesh default exportTo as the release reads it for an object without its
// own: from 1.30.3 as if declared; before, "." in it makes the object private, else "*"
// public, else the object is not indexed (exported nowhere).
func (v refSidecarView) defaultList(def []string) []string {
	switch {
	case len(def) == 0:
		return []string{"*"}
	case v.rel().Has(mesh.DefaultExportToLists):
		return def
	case slices.Contains(def, "."):
		return []string{"."}
	case slices.Contains(def, "*"):
		return []string{"*"}
	}
	return []string{"~"}
}

func (v refSidecarView) root() string {
	if v.m != nil && v.m.RootNamespace != "" {
		return v.m.RootNamespace
	}
	return mesh.DefaultRootNamespace
}

func (v refSidecarView) domain() string { return v.inv.ClusterDomain() }

func (v refSidecarView) discovered(ns string) bool {
	if v.m == nil || len(v.m.DiscoverySelectors) == 0 {
		return true
	}
	ls, ok := v.inv.Namespaces[ns]
	if !ok {
		return false
	}
	for i := range v.m.DiscoverySelectors {
		sel, _ := metav1.LabelSelectorAsSelector(&v.m.DiscoverySelectors[i])
		if sel.Matches(labels.Set(ls)) {
			return true
		}
	}
	return false
}

// services are steps 0 to 2: every discovered service host, with its effective exportTo,
// in Istio's order.
func (v refSidecarView) services() []refService {
	var def []string
	if v.m != nil {
		def = v.m.DefaultServiceExportTo
	}
	def = v.defaultList(def)
	narrows := v.r.AppliesToSidecars() && v.rel().Has(mesh.ServiceEntryVisibility)
	var svcs []refService
	for i := range v.inv.Services {
		s := &v.inv.Services[i]
		if !v.discovered(s.Namespace) {
			continue
		}
		vis := visibility.Public
		if s.Kind == inventory.ServiceEntry {
			vis = v.r.Resolve(labels.Set(v.inv.Namespaces[s.Namespace])).Visibility
		}
		eff := visibility.EffectiveExportTo(s.ExportTo, def, s.Namespace, vis, narrows)
		var seen []string
		for _, h := range s.Hosts {
			if !slices.Contains(seen, h) {
				seen = append(seen, h)
				svcs = append(svcs, refService{host: h, s: s, eff: eff})
			}
		}
	}
	// Creation time, name (a ServiceEntry's is its host), namespace; then meshscope's
	// tie-break, kind and object name.
	name := func(x refService) string {
		if x.s.Kind == inventory.ServiceEntry {
			return x.host
		}
		return x.s.Name
	}
	slices.SortStableFunc(svcs, func(a, b refService) int {
		return cmp.Or(a.s.CreationTime.Compare(b.s.CreationTime), strings.Compare(name(a), name(b)), strings.Compare(a.s.Namespace, b.s.Namespace),
			cmp.Compare(a.s.Kind, b.s.Kind), strings.Compare(a.s.Name, b.s.Name))
	})
	for i := range svcs {
		svcs[i].rank = i
	}
	return svcs
}

// refVisible: the service is exported to namespace n.
func refVisible(x refService, n string) bool {
	return slices.Contains(x.eff, "*") || slices.Contains(x.eff, ".") && x.s.Namespace == n || slices.Contains(x.eff, n)
}

func refPublic(x refService) bool { return slices.Contains(x.eff, "*") }

// refListed: the service is on n's list of services exported to it by name (its own
// namespace's private ones included).
func refListed(x refService, n string) bool {
	if refPublic(x) || slices.Contains(x.eff, "~") {
		return false
	}
	return slices.Contains(x.eff, n) || n == x.s.Namespace && slices.Contains(x.eff, ".")
}

// refIndexed is the service istiod looks up for a host in a namespace: the oldest, a
// Kubernetes Service replacing a ServiceEntry; whatever its exportTo.
func refIndexed(svcs []refService, host, ns string) *refService {
	var idx *refService
	for i := range svcs {
		if svcs[i].host == host && svcs[i].s.Namespace == ns && (idx == nil || idx.s.Kind == inventory.ServiceEntry && svcs[i].s.Kind == inventory.KubernetesService) {
			idx = &svcs[i]
		}
	}
	return idx
}

// sidecarFor is step 3.
func (v refSidecarView) sidecarFor(n string, workload map[string]string) *inventory.Sidecar {
	var scs []*inventory.Sidecar
	for i := range v.inv.Sidecars {
		if v.discovered(v.inv.Sidecars[i].Namespace) {
			scs = append(scs, &v.inv.Sidecars[i])
		}
	}
	slices.SortStableFunc(scs, func(a, b *inventory.Sidecar) int {
		return cmp.Or(a.CreationTime.Compare(b.CreationTime), strings.Compare(a.Name, b.Name), strings.Compare(a.Namespace, b.Namespace))
	})
	for _, withSelector := range []bool{true, false} {
		for _, sc := range scs {
			if sc.Namespace == n && (sc.WorkloadSelector != nil) == withSelector && labels.SelectorFromSet(sc.WorkloadSelector).Matches(labels.Set(workload)) {
				return sc
			}
		}
	}
	for _, sc := range scs {
		if sc.Namespace == v.root() && sc.WorkloadSelector == nil {
			return sc
		}
	}
	return nil
}

// refGot is a service as a step hands it on: with the ports it brings.
type refGot struct {
	x     refService
	ports []uint32
}

// refScope is the proxy's services as step 8 accumulates them, each host once.
type refScope struct {
	have map[string]*refEntry
}

type refEntry struct {
	refGot
	addedBy string
}

// add is what happens when a service of a host arrives, brought by an egress import (by "")
// or by a VirtualService's destination (by that VirtualService).
func (sc *refScope) add(g refGot, by string) {
	if sc.have == nil {
		sc.have = map[string]*refEntry{}
	}
	h := g.x.host
	cur, ok := sc.have[h]
	kube := func(x refService) bool { return x.s.Kind == inventory.KubernetesService }
	switch {
	case !ok:
		sc.have[h] = &refEntry{refGot{g.x, slices.Clone(g.ports)}, by}
	case kube(cur.x) && !kube(g.x):
	case !kube(cur.x) && kube(g.x):
		*cur = refEntry{refGot{g.x, slices.Clone(g.ports)}, by}
	case cur.x.rank == g.x.rank || refCanMerge(cur.x.s, g.x.s):
		for _, p := range g.ports {
			if !slices.Contains(cur.ports, p) {
				cur.ports = append(cur.ports, p)
			}
		}
	}
}

func (v refSidecarView) proxy(n string, workload map[string]string) Proxy {
	return v.sidecarProxy(v.sidecarFor(n, workload), n, workload)
}

// sidecarProxy is steps 4 to 9 for a sidecar to which chosen applies (nil: none).
func (v refSidecarView) sidecarProxy(chosen *inventory.Sidecar, n string, workload map[string]string) Proxy {
	svcs := v.services()
	vses := v.virtualServices()
	egress := []inventory.Egress{{Hosts: []string{"*/*"}}}
	if chosen != nil && len(chosen.Egress) > 0 {
		egress = chosen.Egress
	}
	out := Proxy{Sidecar: refSidecarName(chosen), Services: []Service{}, Listeners: []Listener{}, Rules: map[string]*Rule{}}
	var scope refScope
	pools := v.pools()
	ties := map[string]refTie{} // per host, the first destination whose service ties with another
	for _, e := range egress {
		entries := refParseEgress(e.Hosts, n, v.rel())
		imported := refListenerServices(svcs, entries, e, n, v.rel())
		selected := refSelectVirtualServices(vses, entries, n)
		l := Listener{Port: e.Port, Hosts: slices.Clone(e.Hosts), VirtualServices: []string{}, Services: []string{}, Routes: map[string]string{}}
		for _, vs := range selected {
			l.VirtualServices = append(l.VirtualServices, vs.name())
		}
		for _, g := range imported {
			l.Services = append(l.Services, g.x.s.Namespace+"/"+g.x.host)
			if vs := refMostSpecificVirtualService(selected, g.x.host); vs != nil {
				l.Routes[g.x.host] = vs.name()
			}
			scope.add(g, "")
		}
		for _, vs := range selected {
			dests := vs.destinations(n)
			for _, h := range slices.Sorted(maps.Keys(dests)) {
				x, tie := refDestinationService(svcs, h, n, v.rel().Has(mesh.DestinationNamespace))
				if x == nil {
					continue
				}
				if ports, ok := refDestinationPorts(x, e, dests[h]); ok {
					scope.add(refGot{*x, ports}, vs.name())
					if _, noted := ties[h]; tie != nil && !noted {
						ties[h] = refTie{*x, *tie, vs.name()}
					}
				}
			}
		}
		out.Listeners = append(out.Listeners, l)
	}
	for _, h := range slices.Sorted(maps.Keys(scope.have)) {
		g := scope.have[h]
		s := Service{Host: h, Kind: g.x.s.Kind, Namespace: g.x.s.Namespace, Name: g.x.s.Name, Ports: refSortedPorts(g.ports), AddedBy: g.addedBy}
		for _, l := range out.Listeners {
			if r, ok := l.Routes[h]; ok && !slices.Contains(s.Routes, r) {
				s.Routes = append(s.Routes, r)
			}
		}
		out.Services = append(out.Services, s)
		if r := v.ruleFor(pools, n, workload, g.x); r != nil {
			out.Rules[h] = r
		}
		if t, ok := ties[h]; ok && t.x.rank == g.x.rank {
			out.Notes = append(out.Notes, tieNote(t.x.s, t.other.s, h, n, t.vs))
		}
	}
	return out
}

// refTie is a destination's service x that ties with other, as VirtualService vs adds it.
type refTie struct {
	x, other refService
	vs       string
}

// refDestinationService is the service a VirtualService destination host pulls in for a
// proxy in n: n's own (looked up as in step 2, whatever its exportTo), else, among the other
// namespaces' ones exported to n, with best a Kubernetes Service, else the oldest; without,
// the one of the alphabetically first namespace. tie is another service Istio may take
// instead, nil when none.
func refDestinationService(svcs []refService, h, n string, best bool) (x, tie *refService) {
	if own := refIndexed(svcs, h, n); own != nil {
		return own, nil
	}
	var nss []string
	for _, x := range svcs {
		if x.host == h && !slices.Contains(nss, x.s.Namespace) {
			nss = append(nss, x.s.Namespace)
		}
	}
	var visible []*refService
	for _, ns := range nss {
		if x := refIndexed(svcs, h, ns); refVisible(*x, n) {
			visible = append(visible, x)
		}
	}
	if len(visible) == 0 {
		return nil, nil
	}
	if !best {
		slices.SortFunc(visible, func(a, b *refService) int { return strings.Compare(a.s.Namespace, b.s.Namespace) })
		return visible[0], nil
	}
	// Istio returns the first visible Kubernetes Service it meets in a map, else the oldest
	// visible service, the first met among equally old ones; meshscope the first in step 2's
	// order (oldest first) in both cases, and names another it could be.
	kube := func(x *refService) bool { return x.s.Kind == inventory.KubernetesService }
	slices.SortFunc(visible, func(a, b *refService) int {
		if kube(a) != kube(b) {
			return b2i(kube(b)) - b2i(kube(a))
		}
		return a.rank - b.rank
	})
	x = visible[0]
	for _, y := range visible[1:] {
		if kube(y) == kube(x) && (kube(x) || y.s.CreationTime.Equal(x.s.CreationTime)) {
			return x, y
		}
	}
	return x, nil
}

// refDestinationPorts are the ports a destination's service brings: a listener's port, else
// the destinations' ports (0: one of them gives none, so all); false when it brings none.
func refDestinationPorts(x *refService, e inventory.Egress, want []uint32) ([]uint32, bool) {
	if refMatchesPort(e) {
		if !slices.Contains(x.s.Ports, e.Port) {
			return nil, false
		}
		return []uint32{e.Port}, true
	}
	if len(want) == 0 || slices.Contains(want, 0) {
		return x.s.Ports, true
	}
	var found []uint32
	for _, p := range x.s.Ports {
		if slices.Contains(want, p) {
			found = append(found, p)
		}
	}
	// A service without ports has all its ports found: it is added, without any.
	if len(found) == 0 && len(x.s.Ports) > 0 {
		return nil, false
	}
	return found, true
}

func refSortedPorts(ps []uint32) []uint32 {
	out := slices.Clone(ps)
	slices.Sort(out)
	out = slices.Compact(out)
	if out == nil {
		out = []uint32{}
	}
	return out
}

func refSidecarName(sc *inventory.Sidecar) string {
	if sc == nil {
		return ""
	}
	return sc.Namespace + "/" + sc.Name
}

// refCanMerge is Istio's canMergeServices.
func refCanMerge(a, b *inventory.Service) bool {
	res := func(s *inventory.Service) inventory.Resolution {
		if s.Resolution == "" {
			return inventory.ResolutionNone
		}
		return s.Resolution
	}
	set := func(l []string) map[string]bool {
		m := map[string]bool{}
		for _, x := range l {
			m[x] = true
		}
		return m
	}
	return a.Namespace == b.Namespace && res(a) == res(b) && a.Kind == b.Kind && maps.Equal(a.Labels, b.Labels) &&
		maps.Equal(a.Selector, b.Selector) && maps.Equal(set(a.ExportTo), set(b.ExportTo))
}
