package sidecar

import (
	"cmp"
	"slices"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// kind is the kind of Envoy proxy a scope is built for. It decides what sets a gateway's
// scope apart from a sidecar's: no Sidecar applies to a gateway, a gateway takes the first
// candidate of a host where a sidecar prefers its own namespace's, and a gateway's scope has
// no VirtualService destinations (nor listeners to report).
type kind uint8

const (
	sidecarKind kind = iota
	gatewayKind
)

// prefersOwn reports whether, within a listener, the proxy's namespace holds a host before
// the namespace first met (a sidecar), rather than the first candidate standing (a gateway).
func (k kind) prefersOwn() bool { return k == sidecarKind }

// routed reports whether the proxy's listeners select VirtualServices whose destinations add
// services (a sidecar).
func (k kind) routed() bool { return k == sidecarKind }

// record is what the builder decided for one proxy, read by every question: the Sidecar
// that applies, each listener's services, VirtualServices and routes, what the proxy
// received for each host and the DestinationRule it gets; and, when asked, the losers of one
// host at every step (trace).
type record struct {
	kind      kind
	ns        string
	workload  labels.Set
	sidecar   *inventory.Sidecar // nil: none applies (always, for a gateway)
	name      string             // the Sidecar's "namespace/name"; "" for none
	listeners []listenerRecord
	got       receivedSet
	trace     *trace
	// ties are the VirtualService destinations whose service istiod takes from a map among
	// equally old ones (DestinationTie).
	ties []destinationTie
}

// destinationTie is a destination host whose service (id) ties with another (other) as
// VirtualService vs adds it.
type destinationTie struct {
	host      string
	vs        int32
	id, other int32
}

// listenerRecord is one listener as the builder worked it out: the listener read for the
// proxy's namespace, the services it imports in Istio's order (after which namespace holds
// each host), the VirtualServices it selects in Istio's order, and their hosts indexed with
// every VirtualService that gives each (routes).
type listenerRecord struct {
	l        *listener
	imported []importedService
	vss      []int32
	routes   routeIndex
}

// importedService is a service a listener brings, with the ports it brings.
type importedService struct {
	id    int32
	ports []uint32
}

// builder makes one proxy's record. Each rule of istiod it applies is decided in one
// function, and a rule that differs between Istio releases is read there from the view's
// release: the order of a listener's candidates (candidates, over serviceIndex's lists;
// ListenerOrder: ownFirstOrder), how an egress host is read — exclusions, exact-host
// listeners — (egressReading: SidecarExclusions, ExactHostListeners; listener.admit), which
// namespace holds a host in a listener (holders), the service a VirtualService destination
// adds (destinations, serviceIndex.destinationOf: DestinationNamespace), which
// VirtualServices a listener selects and in what order (vsIndex.selectFor, vsIndex.group,
// listener.selects), the mesh default exportTo of each kind (exportto.DefaultList:
// DefaultExportToLists; exportto.ListOf, exportto.RuleListOf), the visibility the release
// applies (mesh.Config.AppliedVisibility: ServiceEntryVisibility), and the DestinationRule
// lookup (ruleIndex.lookup). When Diff asks (cz), it notes per host which of the
// release-dependent rules took part (causeStamps).
type builder struct {
	v   *View
	rec *record
	tr  *trace       // nil: no losers recorded
	cz  *causeStamps // nil: no causes recorded (see Diff)
}

// build makes into rec the record of a proxy of kind k in namespace n with labels w, to which
// the Sidecar sc applies (nil: none); tr, when not nil, records the losers of its host, and
// cz, when not nil, the causes of each host (Diff).
//
// Its cost is what it returns: a listener of exact hosts looks each one up, a wildcard of
// every namespace (*/*.example.com) looks only at the services its pattern covers, and one
// of a named namespace (ns/* or ns/*.example.com) at that namespace's services.
func (v *View) build(rec *record, k kind, sc *inventory.Sidecar, n string, w labels.Set, tr *trace, cz *causeStamps) {
	b := v.buildListeners(rec, k, sc, n, w, tr, cz)
	b.lookupRules()
}

// buildListeners makes into rec the record of the proxy's Sidecar and listeners, what it
// receives, without the DestinationRule of each host (a route table needs none); it returns
// the builder, which lookupRules goes on with. cz, when not nil, collects which of the
// release's rules took part.
func (v *View) buildListeners(rec *record, k kind, sc *inventory.Sidecar, n string, w labels.Set, tr *trace, cz *causeStamps) builder {
	name, ls := v.sidecars.listenersOf(sc, n)
	*rec = record{kind: k, ns: n, workload: w, sidecar: sc, name: name, listeners: make([]listenerRecord, 0, len(ls)), trace: tr}
	b := builder{v: v, rec: rec, tr: tr, cz: cz}
	for i := range ls {
		b.listen(&ls[i])
	}
	return b
}

// listen works out one listener: the services its egress hosts import, then (for a sidecar)
// the VirtualServices it selects and the services their destinations add.
func (b *builder) listen(l *listener) {
	n := b.rec.ns
	if b.tr != nil {
		b.tr.beginListener(b, l)
	}
	lr := listenerRecord{l: l, imported: b.imported(l, b.candidates(l))}
	if b.cz != nil {
		if b.rec.kind.prefersOwn() {
			b.cz.exactHosts(&b.v.services, l, n, lr.imported)
		} else {
			b.cz.gatewayOrder(&b.v.services, n, lr.imported)
		}
	}
	if b.rec.kind.prefersOwn() {
		lr.imported = b.holders(lr.imported)
	}
	b.receive(lr.imported, "")
	if b.rec.kind.routed() {
		x := &b.v.vss
		lr.vss = x.selectFor(l, n)
		var dests []importedService // each VirtualService's in turn
		for _, k := range lr.vss {
			dests = b.destinations(dests[:0], l, k)
			b.receive(dests, x.vss[k].ref)
		}
		lr.routes = x.routesOf(lr.vss)
		if b.cz != nil {
			b.cz.virtualServices(b, &lr)
		}
	}
	b.rec.listeners = append(b.rec.listeners, lr)
	if b.tr != nil {
		b.tr.endListener(b, &b.rec.listeners[len(b.rec.listeners)-1])
	}
}

// candidates returns the services a listener considers for a proxy in namespace n, in
// Istio's order, or a superset of those it imports (the ones no import can cover are left
// out: the order of the rest is unchanged), without their ports. A listener of exact hosts
// of named namespaces (ExactHostListeners, 1.31 on) considers, per (namespace, host), only
// the service istiod indexes, when exported to n; any other considers the services exported
// to n by name, then the public ones, each in creation order — with n's own first up to
// 1.30.2 (ListenerOrder; see ownFirst).
func (b *builder) candidates(l *listener) []importedService {
	x, n := &b.v.services, b.rec.ns
	if l.exactOnly {
		out := make([]importedService, 0, len(l.egress.Hosts))
		for _, hc := range l.classes {
			for _, h := range hc.exact {
				if id, ok := x.indexed(h, hc.ns); ok && x.svcs[id].exportedTo(n) {
					out = append(out, importedService{id: id})
				}
			}
		}
		slices.SortFunc(out, byID)
		return out
	}
	var out []importedService
	named := 0
	if l.importsEverything() { // */*: everything exported to n
		ns, public := x.exportedTo[n], x.public
		out = make([]importedService, len(ns)+len(public))
		for i, id := range ns {
			out[i].id = id
		}
		for i, id := range public {
			out[len(ns)+i].id = id
		}
		named = len(ns)
	} else {
		out, named = b.covered(l)
	}
	if x.reading.ownFirst {
		return x.ownFirstOrder(out, named, n)
	}
	return out
}

// covered returns the services exported to the proxy's namespace that an import of a listener
// (not */*) may cover, in Istio's order — those exported to the namespace by name, then the
// public ones, each in creation order — and how many are exported by name.
func (b *builder) covered(l *listener) ([]importedService, int) {
	x, n := &b.v.services, b.rec.ns
	size := 0
	for _, hc := range l.classes {
		for _, o := range hc.all {
			size += len(x.sourceOf(hc.ns, o).ids)
		}
	}
	ids := make([]int32, 0, size)
	for _, hc := range l.classes {
		for _, o := range hc.all {
			ids = x.appendExported(ids, x.sourceOf(hc.ns, o), n)
		}
	}
	// Each list is in order; the lists of several imports are merged.
	slices.Sort(ids)
	ids = slices.Compact(ids)
	out := make([]importedService, len(ids))
	named := 0
	for _, id := range ids {
		if !x.svcs[id].exp.Public() {
			out[named].id = id
			named++
		}
	}
	pub := named
	for _, id := range ids {
		if x.svcs[id].exp.Public() {
			out[pub].id = id
			pub++
		}
	}
	return out, named
}

// ownFirstOrder puts a listener's candidates for a proxy in namespace n — the first named
// exported to n by name (its own included), the rest public, each in creation order — in
// the order istiod lists them up to 1.30.2 (ListenerOrder): n's own first (istiod's private
// services of n; one whose exportTo names n as "." and by name comes twice in a row), then
// those of other namespaces exported to n by name, then the public ones. A sidecar gets the
// same services either way (it prefers its own namespace's), in another order; a gateway,
// which takes the first candidate of a host, takes n's own over an older one exported to n.
func (x *serviceIndex) ownFirstOrder(in []importedService, named int, n string) []importedService {
	out := make([]importedService, 0, len(in)+named)
	for _, c := range in[:named] {
		if x.service(c.id).Namespace == n {
			out = append(out, c)
			if x.twice(c.id) {
				out = append(out, c)
			}
		}
	}
	for _, c := range in[:named] {
		if x.service(c.id).Namespace != n {
			out = append(out, c)
		}
	}
	return append(out, in[named:]...)
}

func byID(a, b importedService) int { return cmp.Compare(a.id, b.id) }

// source is the services an import draws on, in order, and what one of them must be for
// the import to cover it: of namespace ns ("": any), its host covered by pattern ("": any).
type source struct {
	ids         []int32
	ns, pattern string
}

// sourceOf is the source of an import of host o from namespace ns ("*": every namespace).
func (x *serviceIndex) sourceOf(ns, o string) source {
	switch {
	case ns == names.Wildcard && isWildcard(o):
		return source{ids: x.bySuffix[o[1:]]}
	case ns == names.Wildcard:
		return source{ids: x.byHost[o]}
	case o == names.Wildcard:
		return source{ids: x.byNS[ns]}
	case isWildcard(o):
		return source{ids: x.byNS[ns], pattern: o}
	}
	return source{ids: x.byHost[o], ns: ns}
}

// appendExported appends to out the services of src it may cover that are exported to n.
func (x *serviceIndex) appendExported(out []int32, src source, n string) []int32 {
	for _, id := range src.ids {
		s := &x.svcs[id]
		if (src.ns == "" || x.inv[s.svc].Namespace == src.ns) && (src.pattern == "" || hosts.Covers(src.pattern, s.host)) && s.exportedTo(n) {
			out = append(out, id)
		}
	}
	return out
}

// imported filters a listener's candidates, in place, to those it imports (listener.admit),
// each with the ports it brings.
func (b *builder) imported(l *listener, cands []importedService) []importedService {
	x := &b.v.services
	out := cands[:0]
	for _, c := range cands {
		s := &x.svcs[c.id]
		why, _, ports := l.admit(s.host, x.inv[s.svc].Namespace, x.inv[s.svc].Ports)
		if b.cz != nil {
			b.cz.candidate(x, l, b.rec.ns, c.id, why)
		}
		if why == admitted {
			out = append(out, importedService{c.id, ports})
		}
	}
	return out
}

// holders keeps, of the services a sidecar's listener imports, those of the namespace that
// holds each host: the first namespace met, unless a later service is in the proxy's
// namespace n, or a later Kubernetes Service is in n or the holder is not (Istio's "unified"
// sidecar scoping).
func (b *builder) holders(in []importedService) []importedService {
	x, n := &b.v.services, b.rec.ns
	held := make(map[int32]int32, len(in)) // a host's rank -> the service of the namespace holding it
	for _, is := range in {
		s := &x.svcs[is.id]
		svc := &x.inv[s.svc]
		cur, ok := held[s.rank]
		switch {
		case !ok, svc.Namespace == n:
			held[s.rank] = is.id
		case replaces(svc, x.service(cur)):
			if svc.Namespace == n || x.service(cur).Namespace != n {
				held[s.rank] = is.id
			}
		}
	}
	return slices.DeleteFunc(in, func(is importedService) bool {
		s := &x.svcs[is.id]
		lost := x.service(held[s.rank]).Namespace != x.inv[s.svc].Namespace
		if lost && b.tr != nil && s.host == b.tr.host {
			b.tr.heldElsewhere(is.id)
		}
		return lost
	})
}

// destinations appends to out the services the destinations of VirtualService k add to a
// listener of a proxy in namespace n, each with its ports: per destination host, the proxy's own
// namespace's service of that host — even one not exported to n, as istiod does — else the
// best one exported to n (a Kubernetes Service, else the oldest); with the listener's port
// when it has one, else the destination ports the routes give (all of the service's when
// one gives none). A service that declares ports, none of them those, adds nothing; one that
// declares none comes without ports.
func (b *builder) destinations(out []importedService, l *listener, k int32) []importedService {
	x, n := &b.v.services, b.rec.ns
	for _, hp := range b.v.vss.vss[k].destinationPorts(n) {
		id, own := x.indexed(hp.host, n)
		found, tie := own, int32(-1)
		if !own {
			id, found, tie = x.destinationOf(hp.host, n, b.v.pickBest)
			if b.cz != nil {
				b.cz.destination(x, hp.host, n, b.v.pickBest, id, found)
			}
		}
		var ports []uint32
		why := notCovered
		if found {
			why, ports = destinationPortsOf(l, x.service(id).Ports, hp.ports)
		}
		if b.tr != nil && hp.host == b.tr.host {
			b.tr.destination(b, k, id, found, own, why, hp.ports)
		}
		if why == admitted {
			out = append(out, importedService{id, ports})
			if tie >= 0 {
				b.rec.ties = append(b.rec.ties, destinationTie{hp.host, k, id, tie})
			}
		}
	}
	return out
}

// destinationPortsOf returns the ports a service declaring ports brings to a listener as a
// VirtualService destination whose routes give want (0 among them: one gives none): the
// listener's port if it filters by port (portMissing when the service lacks it); else those
// of the service the routes give (all of them when one gives none; notCovered when the
// service declares ports and the routes give none of them: a service without ports is
// kept, as istiod keeps a service that loses none of its ports).
func destinationPortsOf(l *listener, ports, want []uint32) (refusal, []uint32) {
	if matchesPort(l.egress) {
		if !slices.Contains(ports, l.egress.Port) {
			return portMissing, nil
		}
		return admitted, []uint32{l.egress.Port}
	}
	if slices.Contains(want, 0) {
		return admitted, ports
	}
	given := 0
	for _, p := range ports {
		given += b2i(slices.Contains(want, p))
	}
	switch given {
	case len(ports): // every one of them (or the service declares none)
		return admitted, ports
	case 0:
		return notCovered, nil
	}
	out := make([]uint32, 0, given)
	for _, p := range ports {
		if slices.Contains(want, p) {
			out = append(out, p)
		}
	}
	return admitted, out
}

// lookupRules looks up the DestinationRule the proxy gets for each host it received.
func (b *builder) lookupRules() {
	x, r := &b.v.services, b.rec
	for i := range r.got.list {
		g := &r.got.list[i]
		lk := b.v.rules.lookup(r.ns, x.service(g.id).Namespace, g.host, r.workload)
		g.rule = lk.chosen
		if b.tr != nil && g.host == b.tr.host {
			b.tr.rules = lk
		}
	}
}
