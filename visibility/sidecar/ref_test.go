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

// refSidecarView is the literal reference for View: the sidecar's view written out
// in the eight steps Istio's SidecarScope takes, one proxy at a time, scanning every service
// at every step. It assumes a valid inventory. The steps, for a proxy in namespace n:
//
//  0. discovery: only namespaces a discovery selector matches exist (the root one too);
//  1. each service's effective exportTo (its own list, else the mesh default; narrowed by
//     visibility with applyToSidecars);
//  2. order by creation time, name (a ServiceEntry's is its host), namespace; per host and
//     namespace the oldest is kept, a Kubernetes Service over a ServiceEntry;
//  3. the Sidecar that applies (n's selecting one, n's without a selector, the root
//     namespace's without one, or none: "*/*");
//  4. per listener, the candidates (for an all-exact listener, step 2's service of each
//     named host and namespace only);
//  5. exclusions, then imports, by host cover;
//  6. within a listener, which namespace holds each host;
//  7. across listeners, the first choice stands unless a Kubernetes Service displaces a
//     ServiceEntry; services of one namespace merge their ports.
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

func (v refSidecarView) proxy(n string, workload map[string]string) Proxy {
	// Step 0 and 1: the discovered services, one per host, with their effective exportTo.
	var def []string
	if v.m != nil && len(v.m.DefaultServiceExportTo) > 0 {
		def = v.m.DefaultServiceExportTo
	}
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
		eff := visibility.EffectiveExportTo(s.ExportTo, def, s.Namespace, vis, v.r.AppliesToSidecars())
		var seen []string
		for _, h := range s.Hosts {
			if !slices.Contains(seen, h) {
				seen = append(seen, h)
				svcs = append(svcs, refService{host: h, s: s, eff: eff})
			}
		}
	}
	// Step 2: creation time, name (a ServiceEntry's is its host), namespace; then meshscope's
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
	visible := func(x refService) bool {
		return slices.Contains(x.eff, "*") || slices.Contains(x.eff, ".") && x.s.Namespace == n || slices.Contains(x.eff, n)
	}
	public := func(x refService) bool { return slices.Contains(x.eff, "*") }
	listed := func(x refService) bool { // in the namespace's list of services exported to it by name
		if public(x) || slices.Contains(x.eff, "~") {
			return false
		}
		return slices.Contains(x.eff, n) || n == x.s.Namespace && slices.Contains(x.eff, ".")
	}
	// Step 3: the Sidecar.
	root := mesh.DefaultRootNamespace
	if v.m != nil && v.m.RootNamespace != "" {
		root = v.m.RootNamespace
	}
	var scs []*inventory.Sidecar
	for i := range v.inv.Sidecars {
		if v.discovered(v.inv.Sidecars[i].Namespace) {
			scs = append(scs, &v.inv.Sidecars[i])
		}
	}
	slices.SortStableFunc(scs, func(a, b *inventory.Sidecar) int {
		return cmp.Or(a.CreationTime.Compare(b.CreationTime), strings.Compare(a.Name, b.Name), strings.Compare(a.Namespace, b.Namespace))
	})
	var chosen *inventory.Sidecar
	for _, withSelector := range []bool{true, false} {
		for _, sc := range scs {
			if chosen == nil && sc.Namespace == n && (sc.WorkloadSelector != nil) == withSelector && labels.SelectorFromSet(sc.WorkloadSelector).Matches(labels.Set(workload)) {
				chosen = sc
			}
		}
	}
	if chosen == nil {
		for _, sc := range scs {
			if chosen == nil && sc.Namespace == root && sc.WorkloadSelector == nil {
				chosen = sc
			}
		}
	}
	egress := []inventory.Egress{{Hosts: []string{"*/*"}}}
	if chosen != nil && len(chosen.Egress) > 0 {
		egress = chosen.Egress
	}
	// Steps 4 to 7, listener by listener.
	type got struct {
		x     refService
		ports []uint32
	}
	have := map[string]*got{}
	for _, e := range egress {
		type entry struct {
			ns, host string
			exclude  bool
		}
		var entries []entry
		exact := true
		for _, raw := range e.Hosts {
			ns, h, _ := strings.Cut(raw, "/")
			x := strings.HasPrefix(ns, "~")
			ns = strings.TrimPrefix(ns, "~")
			if x && ns == "" {
				ns = "*"
			}
			if ns == "." {
				ns = n
			}
			entries = append(entries, entry{ns, h, x})
			if !x && (strings.HasPrefix(h, "*") || ns == "*") {
				exact = false
			}
		}
		var cands []refService
		if exact {
			for _, en := range entries {
				if en.exclude || slices.ContainsFunc(cands, func(c refService) bool { return c.host == en.host && c.s.Namespace == en.ns }) {
					continue
				}
				// The oldest service of the host in the namespace; a Kubernetes Service replaces
				// a ServiceEntry.
				var idx *refService
				for i := range svcs {
					if svcs[i].host == en.host && svcs[i].s.Namespace == en.ns && (idx == nil || idx.s.Kind == inventory.ServiceEntry && svcs[i].s.Kind == inventory.KubernetesService) {
						idx = &svcs[i]
					}
				}
				if idx != nil && visible(*idx) {
					cands = append(cands, *idx)
				}
			}
			slices.SortStableFunc(cands, func(a, b refService) int {
				return a.rank - b.rank
			})
		} else {
			for _, x := range svcs {
				if listed(x) {
					cands = append(cands, x)
				}
			}
			for _, x := range svcs {
				if public(x) {
					cands = append(cands, x)
				}
			}
		}
		// Step 5.
		excluded := func(ns, h string) bool {
			for _, en := range entries {
				if en.exclude && en.ns == ns && refSubset(h, en.host) {
					return true
				}
			}
			return false
		}
		imports := func(ns, h string) bool {
			for _, en := range entries {
				if !en.exclude && en.ns == ns && (en.host == h || (strings.HasPrefix(h, "*") || strings.HasPrefix(en.host, "*")) && refSubset(h, en.host)) {
					return true
				}
			}
			return false
		}
		var imported []got
		for _, c := range cands {
			if excluded(c.s.Namespace, c.host) || excluded("*", c.host) {
				continue
			}
			if !imports(c.s.Namespace, c.host) && !imports("*", c.host) {
				continue
			}
			ports := c.s.Ports
			if e.Port != 0 && !strings.EqualFold(e.Protocol, "HTTP_PROXY") {
				if !slices.Contains(ports, e.Port) {
					continue
				}
				ports = []uint32{e.Port}
			}
			imported = append(imported, got{c, ports})
		}
		// Step 6.
		type holder struct {
			ns   string
			kube bool
		}
		held := map[string]holder{}
		for _, g := range imported {
			h := holder{g.x.s.Namespace, g.x.s.Kind == inventory.KubernetesService}
			cur, ok := held[g.x.host]
			if !ok || h.ns == n || !cur.kube && h.kube && (h.ns == n || cur.ns != n) {
				held[g.x.host] = h
			}
		}
		// Step 7.
		for _, g := range imported {
			if held[g.x.host].ns != g.x.s.Namespace {
				continue
			}
			cur, ok := have[g.x.host]
			switch {
			case !ok:
				have[g.x.host] = &got{g.x, slices.Clone(g.ports)}
			case cur.x.s.Kind == inventory.KubernetesService && g.x.s.Kind != inventory.KubernetesService:
			case cur.x.s.Kind != inventory.KubernetesService && g.x.s.Kind == inventory.KubernetesService:
				*cur = got{g.x, slices.Clone(g.ports)}
			case cur.x.rank == g.x.rank || refCanMerge(cur.x.s, g.x.s):
				for _, p := range g.ports {
					if !slices.Contains(cur.ports, p) {
						cur.ports = append(cur.ports, p)
					}
				}
			}
		}
	}
	out := Proxy{Sidecar: sidecarName(chosen), Services: []Service{}}
	for _, h := range slices.Sorted(maps.Keys(have)) {
		g := have[h]
		out.Services = append(out.Services, Service{Host: h, Kind: g.x.s.Kind, Namespace: g.x.s.Namespace, Name: g.x.s.Name, Ports: sortedPorts(g.ports)})
	}
	return out
}

// refSubset is Istio's host.Name.SubsetOf: whether service host h is covered by the egress
// host o.
func refSubset(h, o string) bool {
	hw, ow := strings.HasPrefix(h, "*"), strings.HasPrefix(o, "*")
	switch {
	case hw && ow:
		if len(h) < len(o) {
			return false
		}
		return strings.HasSuffix(h[1:], o[1:])
	case hw:
		return false
	case ow:
		return strings.HasSuffix(h, o[1:])
	}
	return h == o
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
