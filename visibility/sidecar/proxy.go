package sidecar

import (
	"cmp"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// Proxy is what one sidecar proxy receives.
type Proxy struct {
	// Sidecar is the Sidecar resource that applies, "namespace/name"; "" when none does (the
	// proxy imports every service exported to its namespace).
	Sidecar string `json:"sidecar"`
	// Services are the hosts the proxy gets, sorted by host.
	Services []Service `json:"services"`
}

// Service is one host a proxy gets, and from whom.
type Service struct {
	// Host is the service host, as the service spells it (Istio compares sidecar hosts
	// exactly as written).
	Host      string         `json:"host"`
	Kind      inventory.Kind `json:"kind"`
	Namespace string         `json:"namespace"` // of the service the proxy gets
	// Name is the ServiceEntry or Service that provides the host: the first one kept, which
	// is the oldest of its namespace.
	Name string `json:"name"`
	// Ports are the ports the proxy gets for the host, sorted: the service's, narrowed to a
	// listener's port when the listener has one, and merged across the services of the
	// namespace and the listeners that bring the host.
	Ports []uint32 `json:"ports"`
}

// Proxy returns what a sidecar in namespace with the workload labels workload receives:
// which Sidecar applies, and every service host it gets. In Istio's steps:
//
//   - The Sidecar: the oldest of the namespace whose workloadSelector the labels satisfy;
//     else the oldest of the namespace without one; else the root namespace's oldest without
//     one, read as if it were in the namespace ("." is the proxy's namespace); else none,
//     which imports "*/*". Sidecars of undiscovered namespaces do not exist, the root's too.
//   - Per egress listener, an import ns/host (or */host) covers a service host exactly, or
//     as a wildcard covers it; an exclusion ~ns/host (~/host: every namespace) beats any
//     import. When every import is an exact host of a named namespace, the listener looks at
//     one service per (namespace, host) — the oldest, a Kubernetes Service before a
//     ServiceEntry — and keeps it if it is exported to the proxy's namespace; a younger one
//     is never considered. Otherwise it considers every service exported to the namespace:
//     first those exported to it by name, then the public ones, each oldest first.
//   - A host imported from several namespaces goes, within a listener, to the first one
//     met, unless a later one is the proxy's own namespace, or a later Kubernetes Service
//     (in the proxy's namespace, or when the holder is not) takes it. Across listeners the
//     first listener's choice stands, except that a Kubernetes Service replaces a
//     ServiceEntry; services of one namespace merge their ports when their kind,
//     resolution, labels, selector and exportTo agree.
//
// Its cost is what it returns: a listener of exact hosts looks each one up, a wildcard of
// every namespace (*/*.example.com) looks only at the services its pattern covers, and one
// of a named namespace (ns/* or ns/*.example.com) at that namespace's services.
func (v *View) Proxy(namespace string, workload labels.Set) Proxy {
	sc, _ := v.sidecarFor(namespace, workload)
	out := Proxy{Sidecar: sidecarName(sc), Services: []Service{}}
	got := map[string]*received{}
	for i, e := range egressOf(sc) {
		l := readListener(e, i, namespace)
		v.apply(v.imported(&l, namespace, v.candidates(&l, namespace)), got)
	}
	for _, h := range slices.Sorted(maps.Keys(got)) {
		r := got[h]
		s := &v.inv[v.svcs[r.id].svc]
		out.Services = append(out.Services, Service{Host: h, Kind: s.Kind, Namespace: s.Namespace, Name: s.Name, Ports: sortedPorts(r.ports)})
	}
	return out
}

// defaultEgress is the listener of a proxy no Sidecar applies to, or of a Sidecar without
// egress listeners.
var defaultEgress = []inventory.Egress{{Hosts: []string{"*/*"}}}

func egressOf(sc *inventory.Sidecar) []*inventory.Egress {
	es := defaultEgress
	if sc != nil && len(sc.Egress) > 0 {
		es = sc.Egress
	}
	out := make([]*inventory.Egress, len(es))
	for i := range es {
		out[i] = &es[i]
	}
	return out
}

// candidates returns the services a listener considers for a proxy in namespace n, in
// Istio's order, or a superset of those it imports (the ones no import can cover are left
// out: the order of the rest is unchanged).
func (v *View) candidates(l *listener, n string) []int32 {
	if l.exactOnly {
		var out []int32
		for ns, hc := range l.byNS {
			for _, h := range hc.exact {
				if id, ok := v.oldest[hostNS{h, ns}]; ok && v.svcs[id].exportedTo(n) {
					out = append(out, id)
				}
			}
		}
		slices.Sort(out)
		return out
	}
	if w := l.byNS[names.Wildcard]; w != nil && slices.Contains(w.all, names.Wildcard) {
		return slices.Concat(v.exportedTo[n], v.public) // */*: everything exported to n
	}
	var out []int32
	add := func(ids []int32, ns, pattern string) {
		for _, id := range ids {
			s := &v.svcs[id]
			if (ns == "" || v.inv[s.svc].Namespace == ns) && (pattern == "" || covers(pattern, s.host)) && s.exportedTo(n) {
				out = append(out, id)
			}
		}
	}
	for ns, hc := range l.byNS {
		for _, o := range hc.all {
			switch {
			case ns == names.Wildcard && isWildcard(o):
				add(v.bySuffix[o[1:]], "", "")
			case ns == names.Wildcard:
				add(v.byHost[o], "", "")
			case o == names.Wildcard:
				add(v.byNS[ns], "", "")
			case isWildcard(o):
				add(v.byNS[ns], "", o)
			default:
				add(v.byHost[o], ns, "")
			}
		}
	}
	// Istio's order: the services exported to n by name first, then the public ones, each
	// in creation order.
	slices.SortFunc(out, func(a, b int32) int {
		return cmp.Or(b2i(v.svcs[a].public)-b2i(v.svcs[b].public), cmp.Compare(a, b))
	})
	return slices.Compact(out)
}

// importedService is a service a listener imports, with the ports it brings.
type importedService struct {
	id    int32
	ports []uint32
}

// imported filters a listener's candidates to those it imports (an exclusion of the
// service's namespace or of "*" beats any import; else an import of its namespace, or of
// "*"), each with the ports it brings: a listener with a port brings that port of the
// services that declare it, and nothing of the others.
func (v *View) imported(l *listener, n string, cands []int32) []importedService {
	w := l.byNS[names.Wildcard]
	var out []importedService
	for _, id := range cands {
		s := &v.svcs[id]
		svc := &v.inv[s.svc]
		hc := l.byNS[svc.Namespace]
		if hc.excludes(s.host) || w.excludes(s.host) {
			continue
		}
		if _, ok := hc.imports(s.host); !ok {
			if _, ok := w.imports(s.host); !ok {
				continue
			}
		}
		ports := svc.Ports
		if matchesPort(l.egress) {
			if !slices.Contains(ports, l.egress.Port) {
				continue
			}
			ports = []uint32{l.egress.Port}
		}
		out = append(out, importedService{id, ports})
	}
	return holders(v, n, out)
}

// holders keeps, of the services a listener imports, those of the namespace that holds each
// host: the first namespace met, unless a later service is in n, or a later Kubernetes
// Service is in n or the holder is not (Istio's "unified" sidecar scoping).
func holders(v *View, n string, in []importedService) []importedService {
	type holder struct {
		ns   string
		kube bool
	}
	held := make(map[string]holder, len(in))
	for _, is := range in {
		s := &v.svcs[is.id]
		svc := &v.inv[s.svc]
		h := holder{svc.Namespace, svc.Kind == inventory.KubernetesService}
		cur, ok := held[s.host]
		switch {
		case !ok, h.ns == n, !cur.kube && h.kube && (h.ns == n || cur.ns != n):
			held[s.host] = h
		}
	}
	return slices.DeleteFunc(in, func(is importedService) bool {
		s := &v.svcs[is.id]
		return held[s.host].ns != v.inv[s.svc].Namespace
	})
}

// received is what a proxy has for a host so far: the service it reports and its ports.
type received struct {
	id    int32
	ports []uint32
}

// apply adds a listener's services to what the proxy has received: the first service of a
// host stands, except that a Kubernetes Service replaces a ServiceEntry; a later service of
// the same namespace that can merge with it adds its ports.
func (v *View) apply(in []importedService, got map[string]*received) {
	for _, is := range in {
		s := &v.svcs[is.id]
		r, ok := got[s.host]
		if !ok {
			got[s.host] = &received{id: is.id, ports: slices.Clone(is.ports)}
			continue
		}
		cur, next := &v.inv[v.svcs[r.id].svc], &v.inv[s.svc]
		switch {
		case cur.Kind == inventory.KubernetesService && next.Kind != inventory.KubernetesService:
		case cur.Kind != inventory.KubernetesService && next.Kind == inventory.KubernetesService:
			*r = received{id: is.id, ports: slices.Clone(is.ports)}
		case r.id == is.id || canMerge(cur, next):
			for _, p := range is.ports {
				if !slices.Contains(r.ports, p) {
					r.ports = append(r.ports, p)
				}
			}
		}
	}
}

// canMerge reports whether Istio merges the ports of two services of one host: same
// namespace, kind, resolution, labels, selector and declared exportTo (as sets).
func canMerge(a, b *inventory.Service) bool {
	return a.Namespace == b.Namespace && a.Kind == b.Kind && resolutionOf(a) == resolutionOf(b) &&
		maps.Equal(a.Labels, b.Labels) && maps.Equal(a.Selector, b.Selector) && sameSet(a.ExportTo, b.ExportTo)
}

// resolutionOf is a service's resolution as Istio compares it: a ServiceEntry's, absent
// meaning NONE; a Kubernetes Service's is not compared (two of one host are one Service).
func resolutionOf(s *inventory.Service) inventory.Resolution {
	if s.Kind == inventory.ServiceEntry && s.Resolution == "" {
		return inventory.ResolutionNone
	}
	return s.Resolution
}

func sameSet(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			return false
		}
	}
	return true
}

// sortedPorts returns the ports sorted, each once.
func sortedPorts(ps []uint32) []uint32 {
	out := slices.Clone(ps)
	slices.Sort(out)
	if out == nil {
		out = []uint32{}
	}
	return slices.Compact(out)
}
