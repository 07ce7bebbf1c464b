package sidecar

import (
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// Proxy is what one Envoy proxy receives: the services it gets for each host, how its
// listeners route them, and the DestinationRule it gets for each.
type Proxy struct {
	// Sidecar is the Sidecar resource that applies, "namespace/name"; "" when none does (the
	// proxy imports every service exported to its namespace), and always for a gateway.
	Sidecar string `json:"sidecar"`
	// Services are the hosts the proxy gets, sorted by host.
	Services []Service `json:"services"`
	// Listeners are the egress listeners, in order: one when no Sidecar applies (or it has
	// none), importing "*/*". A gateway's view has none (see View.Gateway).
	Listeners []Listener `json:"listeners"`
	// Rules is, per host of Services, the DestinationRule the proxy gets; a host without
	// one is absent.
	Rules map[string]*Rule `json:"rules"`
	// Notes say where the answer depends on something the inventory does not hold (a
	// gateway's view when a sidecar of its namespace connects first, for one).
	Notes []Finding `json:"notes,omitempty"`
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
	// listener's port when the listener has one (or to a VirtualService destination's
	// ports), and merged across the services of the namespace and the listeners that bring
	// the host.
	Ports []uint32 `json:"ports"`
	// AddedBy is the VirtualService ("namespace/name") whose route destination brought the
	// host; "" when a listener's egress hosts imported it.
	AddedBy string `json:"addedBy,omitempty"`
	// Routes are the VirtualServices ("namespace/name") that route the host on the listeners
	// that import it, each once, in listener order.
	Routes []string `json:"routes,omitempty"`
}

// Listener is one egress listener as a proxy has it.
type Listener struct {
	// Port is the listener's port (0: none) and Hosts its egress hosts, as written.
	Port  uint32   `json:"port,omitempty"`
	Hosts []string `json:"hosts"`
	// VirtualServices are the VirtualServices ("namespace/name") the listener selects, in
	// Istio's order: private to the proxy's namespace, exported to it by name, public.
	VirtualServices []string `json:"virtualServices"`
	// Services are the services ("namespace/host") the listener's egress hosts import, in
	// Istio's order; the destinations of its VirtualServices are not among them.
	Services []string `json:"services"`
	// Routes maps each host of Services to the VirtualService of VirtualServices that
	// routes it: the one whose host matches it most specifically (an exact host, else the
	// longest wildcard), the first among equals. A host no VirtualService matches is absent.
	Routes map[string]string `json:"routes"`
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
	sc := v.sidecarFor(namespace, workload)
	return v.proxyWith(sc, namespace, workload)
}

// routedListener is one listener of a proxy as buildProxy worked it out: the listener read
// for the proxy's namespace, the VirtualServices it selects in Istio's order, and their
// hosts indexed.
type routedListener struct {
	l   *listener
	vss []int32
	ix  routeIndex
}

// proxyWith is what a sidecar in namespace with labels workload receives under the Sidecar
// sc (nil: none, one listener importing "*/*").
func (v *View) proxyWith(sc *inventory.Sidecar, namespace string, workload labels.Set) Proxy {
	p, _ := v.buildProxy(sc, namespace, workload, false)
	return p
}

// buildProxy works out proxyWith; with routed it also hands back each listener as it read
// it, for callers that go on to judge or explain the routes (nil otherwise).
func (v *View) buildProxy(sc *inventory.Sidecar, namespace string, workload labels.Set, routed bool) (Proxy, []routedListener) {
	name, ls := v.listenersOf(sc, namespace)
	out := Proxy{Sidecar: name, Services: []Service{}, Listeners: make([]Listener, 0, len(ls))}
	var rls []routedListener
	if routed {
		rls = make([]routedListener, 0, len(ls))
	}
	got := &receivedSet{}
	for i := range ls {
		l := &ls[i]
		imported := v.imported(l, namespace, v.candidates(l, namespace))
		v.apply(imported, got, "")
		vss := v.selectVirtualServices(l, namespace)
		for _, k := range vss {
			v.apply(v.destinationServices(l, namespace, k), got, v.vss[k].ref)
		}
		ix := v.routesOf(vss)
		out.Listeners = append(out.Listeners, v.listenerOf(l.egress, imported, vss, &ix))
		if routed {
			rls = append(rls, routedListener{l, vss, ix})
		}
	}
	return v.finish(out, got, namespace, workload), rls
}

// finish lists what a proxy in namespace with labels workload received: its services,
// sorted by host, the routes of each, and the rule it gets for each.
func (v *View) finish(out Proxy, got *receivedSet, namespace string, workload labels.Set) Proxy {
	out.Rules = map[string]*Rule{}
	hosts := make([]string, len(got.list))
	n := 0
	for i := range got.list {
		hosts[i] = got.list[i].host
		n += len(got.list[i].ports)
	}
	slices.Sort(hosts)
	ports := make([]uint32, 0, n) // every service's ports, each service's apart
	out.Services = make([]Service, 0, len(got.list))
	for _, h := range hosts {
		r := got.get(h)
		start := len(ports)
		ports = append(ports, r.ports...)
		s := &v.inv[v.svcs[r.id].svc]
		ps := ports[start:len(ports):len(ports)]
		slices.Sort(ps)
		svc := Service{Host: h, Kind: s.Kind, Namespace: s.Namespace, Name: s.Name, Ports: slices.Compact(ps), AddedBy: r.addedBy}
		for _, l := range out.Listeners {
			if vs, ok := l.Routes[h]; ok && !slices.Contains(svc.Routes, vs) {
				svc.Routes = append(svc.Routes, vs)
			}
		}
		out.Services = append(out.Services, svc)
		if m := v.ruleFor(v.rulesFor(namespace, s.Namespace, h), namespace, workload); m != nil {
			out.Rules[h] = v.rule(m)
		}
	}
	return out
}

// listenerOf spells a listener for a caller: its egress, the VirtualServices it selects (ix
// indexes their hosts), the services it imports and the VirtualService that routes each.
func (v *View) listenerOf(e *inventory.Egress, imported []importedService, vss []int32, ix *routeIndex) Listener {
	l := Listener{Port: e.Port, Hosts: slices.Clone(e.Hosts), VirtualServices: make([]string, len(vss)), Services: make([]string, len(imported)), Routes: map[string]string{}}
	for i, k := range vss {
		l.VirtualServices[i] = v.vss[k].ref
	}
	// The services' names are cut from one string.
	n := 0
	for _, is := range imported {
		s := &v.svcs[is.id]
		n += len(v.inv[s.svc].Namespace) + 1 + len(s.host)
	}
	var b strings.Builder
	b.Grow(n)
	for _, is := range imported {
		s := &v.svcs[is.id]
		b.WriteString(v.inv[s.svc].Namespace)
		b.WriteByte('/')
		b.WriteString(s.host)
	}
	joined, at := b.String(), 0
	for i, is := range imported {
		s := &v.svcs[is.id]
		end := at + len(v.inv[s.svc].Namespace) + 1 + len(s.host)
		l.Services[i], at = joined[at:end], end
		if len(vss) == 0 {
			continue
		}
		if k, _, ok := ix.lookup(s.host); ok {
			l.Routes[s.host] = v.vss[k].ref
		}
	}
	return l
}

// destinationServices returns the services the destinations of VirtualService k add to a
// listener of a proxy in namespace n, each with its ports: per destination host, the
// proxy's own namespace's service of that host — even one not exported to n, as istiod
// does — else the best one exported to n (a Kubernetes Service, else the oldest); with the
// listener's port when it has one, else the destination ports the routes give (all of the
// service's when one gives none). A service that declares ports, none of them those, adds
// nothing; one that declares none comes without ports.
func (v *View) destinationServices(l *listener, n string, k int32) []importedService {
	var out []importedService
	for _, hp := range v.vss[k].destinationPorts(n) {
		id, ok := v.oldest[hostNS{hp.host, n}]
		if !ok {
			if id, ok = v.bestExported(hp.host, n); !ok {
				continue
			}
		}
		if ports, ok := v.destinationPortsOf(l, id, hp.ports); ok {
			out = append(out, importedService{id, ports})
		}
	}
	return out
}

// bestExported returns, of the services that hold a host in their namespace (the oldest of
// each), the best one exported to n: a Kubernetes Service, else the oldest. (istiod reads a
// map for it; two services of one host and age in two namespaces tie, and meshscope takes
// the first in its order.)
func (v *View) bestExported(host, n string) (int32, bool) {
	best, found := int32(-1), false
	for _, id := range v.byHost[host] {
		s := &v.svcs[id]
		svc := &v.inv[s.svc]
		if v.oldest[hostNS{host, svc.Namespace}] != id || !s.exportedTo(n) {
			continue
		}
		if svc.Kind == inventory.KubernetesService {
			return id, true
		}
		if !found || svc.CreationTime.Before(v.inv[v.svcs[best].svc].CreationTime) {
			best, found = id, true
		}
	}
	return best, found
}

// destinationPortsOf returns the ports service id brings to a listener as a VirtualService
// destination: the listener's port if it filters by port (false when the service lacks it);
// else those of the service the destinations give (all of them when one gives none; false
// when the service declares ports and none of them is given: a service without ports is
// kept, as istiod keeps a service that loses none of its ports).
func (v *View) destinationPortsOf(l *listener, id int32, want []uint32) ([]uint32, bool) {
	ports := v.inv[v.svcs[id].svc].Ports
	if matchesPort(l.egress) {
		if !slices.Contains(ports, l.egress.Port) {
			return nil, false
		}
		return []uint32{l.egress.Port}, true
	}
	if slices.Contains(want, 0) {
		return ports, true
	}
	var out []uint32
	for _, p := range ports {
		if slices.Contains(want, p) {
			out = append(out, p)
		}
	}
	return out, len(out) > 0 || len(ports) == 0
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
		out := make([]int32, 0, len(l.egress.Hosts))
		for _, hc := range l.classes {
			for _, h := range hc.exact {
				if id, ok := v.oldest[hostNS{h, hc.ns}]; ok && v.svcs[id].exportedTo(n) {
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
			if (ns == "" || v.inv[s.svc].Namespace == ns) && (pattern == "" || hosts.Covers(pattern, s.host)) && s.exportedTo(n) {
				out = append(out, id)
			}
		}
	}
	for _, hc := range l.classes {
		ns := hc.ns
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
	sorted := make([]int32, 0, len(out))
	for _, id := range out {
		if !v.svcs[id].exp.Public() {
			sorted = append(sorted, id)
		}
	}
	named := len(sorted)
	for _, id := range out {
		if v.svcs[id].exp.Public() {
			sorted = append(sorted, id)
		}
	}
	slices.Sort(sorted[:named])
	slices.Sort(sorted[named:])
	return slices.Compact(sorted)
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
	out := make([]importedService, 0, len(cands))
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
	host    string
	id      int32
	ports   []uint32 // the listener's or the inventory's until a merge adds to them (own)
	own     bool
	addedBy string // the VirtualService whose destination brought the host; "" for an egress import
}

// receivedSet is what a proxy has received, a host each, in the order the hosts came.
type receivedSet struct {
	list []received
	at   map[string]int // host -> its index in list; nil while there are few, looked for in turn
}

// fewReceived is how many hosts a receivedSet holds without a map.
const fewReceived = 8

// get returns what the proxy has for host so far; nil for nothing. It stays valid until the
// next apply.
func (g *receivedSet) get(host string) *received {
	if g.at == nil {
		for i := range g.list {
			if g.list[i].host == host {
				return &g.list[i]
			}
		}
		return nil
	}
	if i, ok := g.at[host]; ok {
		return &g.list[i]
	}
	return nil
}

// reserve makes room for n more hosts.
func (g *receivedSet) reserve(n int) {
	if g.list == nil {
		g.list = make([]received, 0, max(n, fewReceived))
	}
	if g.at == nil && len(g.list)+n > fewReceived {
		g.at = make(map[string]int, len(g.list)+n)
		for i := range g.list {
			g.at[g.list[i].host] = i
		}
	}
}

// add adds a host the proxy did not have.
func (g *receivedSet) add(r received) {
	if g.at != nil {
		g.at[r.host] = len(g.list)
	}
	g.list = append(g.list, r)
}

// apply adds a listener's services to what the proxy has received: the first service of a
// host stands, except that a Kubernetes Service replaces a ServiceEntry; a later service of
// the same namespace that can merge with it adds its ports.
func (v *View) apply(in []importedService, got *receivedSet, addedBy string) {
	got.reserve(len(in))
	for _, is := range in {
		s := &v.svcs[is.id]
		r := got.get(s.host)
		if r == nil {
			got.add(received{host: s.host, id: is.id, ports: is.ports, addedBy: addedBy})
			continue
		}
		cur, next := &v.inv[v.svcs[r.id].svc], &v.inv[s.svc]
		switch {
		case cur.Kind == inventory.KubernetesService && next.Kind != inventory.KubernetesService:
		case cur.Kind != inventory.KubernetesService && next.Kind == inventory.KubernetesService:
			*r = received{host: s.host, id: is.id, ports: is.ports, addedBy: addedBy}
		case r.id == is.id || canMerge(cur, next):
			for _, p := range is.ports {
				if slices.Contains(r.ports, p) {
					continue
				}
				if !r.own {
					r.ports, r.own = slices.Clip(slices.Clone(r.ports)), true
				}
				r.ports = append(r.ports, p)
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
