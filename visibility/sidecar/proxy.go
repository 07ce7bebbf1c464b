package sidecar

import (
	"encoding/json"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/report"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
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
	// Notes say where the answer depends on something the inventory does not hold: a
	// gateway's view when a sidecar of its namespace connects first
	// (GatewayScopeOrderDependent), a VirtualService destination istiod takes from a map
	// among equals (DestinationTie).
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

// Rule is the DestinationRule a proxy gets for a host: one rule, or several of one namespace
// merged as istiod merges them.
type Rule struct {
	// From are the rules ("namespace/name") merged into it, in merge order: the first is the
	// one whose workload selector, exportTo and host the merged rule keeps.
	From []string `json:"from"`
	// Host is the merged rule's host, short names resolved as Istio resolves them.
	Host string `json:"host"`
	// Subsets are the subsets' names, merged in order: a later rule's subset of a name the
	// merged rule already has is dropped.
	Subsets []string `json:"subsets"`
	// TrafficPolicy is the merged rule's top-level traffic policy (JSON, as written), and
	// TrafficPolicyFrom the rule it comes from: the first of From that has one.
	TrafficPolicy     json.RawMessage `json:"trafficPolicy,omitempty"`
	TrafficPolicyFrom string          `json:"trafficPolicyFrom,omitempty"`
	// WorkloadSelector is the first rule's: the merged rule applies only to the proxies of
	// its namespace carrying these labels. nil: every proxy it is exported to.
	WorkloadSelector map[string]string `json:"workloadSelector,omitempty"`
}

// Proxy returns what a sidecar in namespace with the workload labels workload receives, as
// the view's release gives it (see the package documentation, "The Istio release"): which
// Sidecar applies, and every service host it gets. In Istio's steps:
//
//   - The Sidecar: the oldest of the namespace whose workloadSelector the labels satisfy;
//     else the oldest of the namespace without one; else the root namespace's oldest without
//     one, read as if it were in the namespace ("." is the proxy's namespace); else none,
//     which imports "*/*". Sidecars of undiscovered namespaces do not exist, the root's too.
//   - Per egress listener, an import ns/host (or */host) covers a service host exactly, or
//     as a wildcard covers it; an exclusion ~ns/host (~/host: every namespace; 1.31 on)
//     beats any import. When every import is an exact host of a named namespace (1.31 on),
//     the listener looks at one service per (namespace, host) — the oldest, a Kubernetes
//     Service before a ServiceEntry — and keeps it if it is exported to the proxy's
//     namespace; a younger one is never considered. Otherwise it considers every service
//     exported to the namespace: first those exported to it by name (up to 1.30.2 its own
//     first), then the public ones, each oldest first.
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
	var rec record
	v.build(&rec, sidecarKind, v.sidecars.forProxy(namespace, workload), namespace, workload, nil, nil)
	return v.spell(&rec)
}

// spell is a proxy's record as a caller gets it: its services sorted by host, the routes of
// each, the rule it gets for each, and (for a sidecar) its listeners.
func (v *View) spell(rec *record) Proxy {
	out := Proxy{Sidecar: rec.name, Services: []Service{}, Listeners: make([]Listener, 0, len(rec.listeners)), Rules: map[string]*Rule{}}
	if rec.kind.routed() {
		for i := range rec.listeners {
			out.Listeners = append(out.Listeners, v.listenerOf(&rec.listeners[i]))
		}
	}
	got, x := &rec.got, &v.services
	// The hosts sorted: by their ranks, each beside its place in the list.
	order := make([]uint64, len(got.list))
	n := 0
	for i := range got.list {
		order[i] = uint64(x.svcs[got.list[i].id].rank)<<32 | uint64(i)
		n += len(got.list[i].ports)
	}
	slices.Sort(order)
	ports := make([]uint32, 0, n) // every service's ports, each service's apart
	routed := 0
	for _, l := range out.Listeners {
		routed += len(l.Routes)
	}
	routes := make([]string, 0, routed) // every service's routes, each service's apart
	out.Services = make([]Service, 0, len(got.list))
	for _, o := range order {
		r := &got.list[uint32(o)]
		h := r.host
		start := len(ports)
		ports = append(ports, r.ports...)
		s := x.service(r.id)
		ps := ports[start:len(ports):len(ports)]
		slices.Sort(ps)
		svc := Service{Host: h, Kind: s.Kind, Namespace: s.Namespace, Name: s.Name, Ports: slices.Compact(ps), AddedBy: r.addedBy}
		start = len(routes)
		for _, l := range out.Listeners {
			if vs, ok := l.Routes[h]; ok && !slices.Contains(routes[start:], vs) {
				routes = append(routes, vs)
			}
		}
		if len(routes) > start {
			svc.Routes = routes[start:len(routes):len(routes)]
		}
		out.Services = append(out.Services, svc)
		if r.rule != nil {
			out.Rules[h] = v.rules.spell(r.rule)
		}
		if f, ok := v.tieNote(rec, h); ok {
			out.Notes = append(out.Notes, f)
		}
	}
	return out
}

// tieNote is the DestinationTie note of a proxy's record for host, when it gets the host
// from a VirtualService destination whose service istiod takes from a map among equals.
func (v *View) tieNote(rec *record, host string) (Finding, bool) {
	if len(rec.ties) == 0 {
		return Finding{}, false
	}
	i := slices.IndexFunc(rec.ties, func(t destinationTie) bool { return t.host == host })
	if i < 0 || v.services.received(&rec.got, host).id != rec.ties[i].id {
		return Finding{}, false // another service holds the host
	}
	t, x := &rec.ties[i], &v.services
	return tieNote(x.service(t.id), x.service(t.other), host, rec.ns, v.vss.vss[t.vs].ref), true
}

// tieNote is the note of a proxy in namespace n that gets host from the destination of
// VirtualService vs ("namespace/name"): the service s, where istiod may take other.
func tieNote(s, other *inventory.Service, host, n, vs string) Finding {
	why := "are both Kubernetes Services"
	if s.Kind != inventory.KubernetesService {
		why = "are equally old ServiceEntries"
	}
	return report.New(s.Ref().String(), DestinationTie,
		"%s and %s %s of %s, which %s has none of: VirtualService %s's destination takes a visible Kubernetes Service, else the oldest visible service (%s), and istiod takes the first it meets in a map, so a sidecar of %s may get either; meshscope gives %s, the first in its order",
		s.Ref(), other.Ref(), why, host, n, vs, mesh.DestinationNamespace, n, s.Ref())
}

// listenerOf spells a listener for a caller: its egress, the VirtualServices it selects, the
// services it imports and the VirtualService that routes each.
func (v *View) listenerOf(lr *listenerRecord) Listener {
	x := &v.services
	e := lr.l.egress
	l := Listener{Port: e.Port, Hosts: slices.Clone(e.Hosts), VirtualServices: make([]string, len(lr.vss)), Services: make([]string, len(lr.imported)), Routes: map[string]string{}}
	for i, k := range lr.vss {
		l.VirtualServices[i] = v.vss.vss[k].ref
	}
	// The services' names are cut from one string.
	n := 0
	for _, is := range lr.imported {
		s := &x.svcs[is.id]
		n += len(x.inv[s.svc].Namespace) + 1 + len(s.host)
	}
	var b strings.Builder
	b.Grow(n)
	for _, is := range lr.imported {
		s := &x.svcs[is.id]
		b.WriteString(x.inv[s.svc].Namespace)
		b.WriteByte('/')
		b.WriteString(s.host)
	}
	joined, at := b.String(), 0
	for i, is := range lr.imported {
		s := &x.svcs[is.id]
		end := at + len(x.inv[s.svc].Namespace) + 1 + len(s.host)
		l.Services[i], at = joined[at:end], end
		if len(lr.vss) == 0 {
			continue
		}
		if k, _, ok := lr.routes.lookup(s.host); ok {
			l.Routes[s.host] = v.vss.vss[k].ref
		}
	}
	return l
}

// spell is a merged rule as a caller gets it.
func (x *ruleIndex) spell(m *mergedRule) *Rule {
	first := &x.drs[m.first]
	out := &Rule{Host: first.host, Subsets: slices.Clone(m.subsets), WorkloadSelector: first.dr.WorkloadSelector}
	if out.Subsets == nil {
		out.Subsets = []string{}
	}
	for _, k := range m.from {
		out.From = append(out.From, x.drs[k].ref)
	}
	if m.policy >= 0 {
		out.TrafficPolicy, out.TrafficPolicyFrom = x.drs[m.policy].dr.TrafficPolicy, x.drs[m.policy].ref
	}
	return out
}
