package sidecar

import (
	"cmp"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/exportto"
	"github.com/meshscope/meshscope/internal/release"
	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// serviceIndex is the services of a view: every host of a discovered service once, in
// Istio's order, indexed by host, namespace, wildcard suffix and the namespaces it is
// exported to; and the services of undiscovered namespaces by host.
type serviceIndex struct {
	inv []inventory.Service // the inventory's
	// reading is how the release reads the services' exportTo — their visibility decisions,
	// the mesh's defaultServiceExportTo, the order of a listener's candidates — and what
	// another release would read otherwise (causesOf).
	reading serviceReading
	// exported is, per inventory service, the exportTo list it goes by for sidecars and
	// gateways: its own, else the release's reading of the mesh's defaultServiceExportTo
	// (exportto.DefaultList), narrowed by visibility with applyToSidecars.
	exported [][]string

	svcs []viewService // the discovered services, one per host, in Istio's order
	// oldest is, per host and namespace, the service istiod indexes: the oldest, a
	// Kubernetes Service over a ServiceEntry.
	oldest     map[hostNS]int32
	byHost     map[string][]int32 // host -> its services, in order
	byNS       map[string][]int32 // namespace -> its services, in order
	bySuffix   map[string][]int32 // ".b.c" -> the services whose host ends with it, in order
	exportedTo map[string][]int32 // namespace -> the services exported to it by name, in order
	public     []int32            // the services exported to every namespace, in order
	undisc     map[string][]int32 // host -> the services of undiscovered namespaces, in Istio's order
}

// hostNS is a host in a namespace.
type hostNS struct{ host, ns string }

// viewService is one host of a discovered service.
type viewService struct {
	host string
	svc  int32        // the inventory's index
	rank int32        // the place of host among the view's hosts sorted (equal hosts, equal ranks)
	exp  exportto.Set // the effective exportTo
	// oldest: it is the service istiod indexes for its host and namespace (serviceIndex.oldest).
	oldest bool
}

// exportedTo reports whether the service is exported to namespace n.
func (s *viewService) exportedTo(n string) bool { return s.exp.To(n) }

// serviceReading is how a release reads the exportTo of a view's services, and what another
// release would read otherwise.
type serviceReading struct {
	release mesh.Release // the release, for messages
	// decisions are, per inventory service, its visibility under the serviceEntryVisibility
	// the release applies; narrows: it narrows what sidecars get (applyToSidecars).
	decisions []visibility.Decision
	narrows   bool
	// meshDefault is the mesh's defaultServiceExportTo as given; defaultList the list the
	// release makes of it (exportto.DefaultList).
	meshDefault, defaultList []string
	// ownFirst: the release lists a namespace's own candidates first (ListenerOrder).
	ownFirst bool
	// For Diff's causes: whether releases on either side of DefaultExportToLists read
	// meshDefault otherwise (exportto.DefaultListsDiffer), and the decisions under the
	// serviceEntryVisibility (with applyToSidecars) the release ignores (nil: none ignored).
	defaultsDiffer bool
	ignored        []visibility.Decision
}

// causesOf returns the causes under which another release gives service id another
// exportTo than this release does: a mesh default read otherwise, a visibility that narrows
// it in one release and not in the other. Diff reads them (see causeStamps).
func (x *serviceIndex) causesOf(id int32) release.Set {
	rd, i := &x.reading, x.svcs[id].svc
	s := &x.inv[i]
	var out release.Set
	if len(s.ExportTo) == 0 && rd.defaultsDiffer {
		out |= release.SetOf(mesh.DefaultExportToLists)
	}
	base := exportto.ListOf(s.ExportTo, rd.defaultList)
	if rd.narrows && !slices.Equal(x.exported[i], base) ||
		rd.ignored != nil && !slices.Equal(visibility.EffectiveExportTo(s.ExportTo, rd.defaultList, s.Namespace, rd.ignored[i].Visibility, true), base) {
		out |= release.SetOf(mesh.ServiceEntryVisibility)
	}
	return out
}

// twice reports whether the effective exportTo of service id names its namespace twice, as
// "." and by name (an annotation may), which puts it twice among its namespace's own
// candidates up to 1.30.2.
func (x *serviceIndex) twice(id int32) bool {
	s := &x.svcs[id]
	list, ns := x.exported[s.svc], x.inv[s.svc].Namespace
	return !s.exp.Public() && !s.exp.Hidden() && slices.Contains(list, exportto.Own) && slices.Contains(list, ns)
}

// newServiceIndex orders and indexes the services of inv, their exportTo read as rd says.
func newServiceIndex(inv *inventory.Inventory, disc discovery, rd serviceReading) serviceIndex {
	x := serviceIndex{
		inv: inv.Services, reading: rd, exported: make([][]string, len(inv.Services)),
		oldest: make(map[hostNS]int32, len(inv.Services)), byHost: make(map[string][]int32, len(inv.Services)),
		byNS: make(map[string][]int32, len(inv.Namespaces)), bySuffix: make(map[string][]int32, len(inv.Services)),
		exportedTo: make(map[string][]int32, len(inv.Namespaces)), undisc: map[string][]int32{},
	}
	n := 0
	for i := range x.inv {
		s := &x.inv[i]
		x.exported[i] = visibility.EffectiveExportTo(s.ExportTo, rd.defaultList, s.Namespace, rd.decisions[i].Visibility, rd.narrows)
		n += len(s.Hosts)
	}
	x.svcs = make([]viewService, 0, n)
	for i := range x.inv {
		s := &x.inv[i]
		d := disc.discovered(s.Namespace)
		for j, h := range s.Hosts {
			if slices.Contains(s.Hosts[:j], h) {
				continue // one host given twice is one service
			}
			if !d {
				x.undisc[h] = append(x.undisc[h], int32(i))
				continue
			}
			x.svcs = append(x.svcs, viewService{host: h, svc: int32(i), exp: exportto.Parse(x.exported[i], s.Namespace)})
		}
	}
	slices.SortFunc(x.svcs, func(a, b viewService) int { return x.order(&a, &b) })
	for h, ids := range x.undisc { // in Istio's order too, not the inventory's
		slices.SortFunc(ids, func(a, b int32) int { return x.order(&viewService{host: h, svc: a}, &viewService{host: h, svc: b}) })
	}
	var hs []string // the hosts, each once
	for k := range x.svcs {
		vs := &x.svcs[k]
		s := &x.inv[vs.svc]
		id := int32(k)
		key := hostNS{vs.host, s.Namespace}
		if o, ok := x.oldest[key]; !ok || replaces(s, x.service(o)) {
			x.oldest[key] = id
		}
		same := x.byHost[vs.host]
		if len(same) == 0 { // a host first met: its rank is its place in hs until they are sorted
			vs.rank = int32(len(hs))
			hs = append(hs, vs.host)
		} else {
			vs.rank = x.svcs[same[0]].rank
		}
		x.byHost[vs.host] = append(same, id)
		x.byNS[s.Namespace] = append(x.byNS[s.Namespace], id)
		for i := 1; i < len(vs.host); i++ {
			if vs.host[i] == '.' {
				x.bySuffix[vs.host[i:]] = append(x.bySuffix[vs.host[i:]], id)
			}
		}
		if vs.exp.Public() {
			x.public = append(x.public, id)
		}
		for n := range vs.exp.Namespaces() {
			x.exportedTo[n] = append(x.exportedTo[n], id)
		}
	}
	for _, id := range x.oldest {
		x.svcs[id].oldest = true
	}
	x.rankHosts(hs)
	return x
}

// rankHosts turns each service's rank, the place of its host in hs (the view's hosts, each
// once), into the place of its host among them sorted, so that a proxy's hosts are sorted by
// comparing numbers (View.spell).
func (x *serviceIndex) rankHosts(hs []string) {
	type placed struct {
		host string
		at   int32
	}
	sorted := make([]placed, len(hs))
	for i, h := range hs {
		sorted[i] = placed{h, int32(i)}
	}
	slices.SortFunc(sorted, func(a, b placed) int { return strings.Compare(a.host, b.host) })
	rank := make([]int32, len(hs))
	for r, p := range sorted {
		rank[p.at] = int32(r)
	}
	for k := range x.svcs {
		x.svcs[k].rank = rank[x.svcs[k].rank]
	}
}

// order compares two services as Istio orders them: by creation time, then name (a
// ServiceEntry's name is its host), then namespace. meshscope breaks the ties Istio leaves to
// input order — two ServiceEntries of one namespace claiming one host at the same time — by
// kind and object name (View.Lint names them).
func (x *serviceIndex) order(a, b *viewService) int {
	s, t := &x.inv[a.svc], &x.inv[b.svc]
	if c := s.CreationTime.Compare(t.CreationTime); c != 0 {
		return c
	}
	if c := strings.Compare(sortName(s, a.host), sortName(t, b.host)); c != 0 {
		return c
	}
	return cmp.Or(strings.Compare(s.Namespace, t.Namespace), cmp.Compare(s.Kind, t.Kind), strings.Compare(s.Name, t.Name))
}

// sortName is the name Istio orders a service by: a ServiceEntry's host, a Kubernetes
// Service's name.
func sortName(s *inventory.Service, host string) string {
	if s.Kind == inventory.ServiceEntry {
		return host
	}
	return s.Name
}

// replaces reports whether a service of a host takes the place of another of that host that
// came first: a Kubernetes Service replaces a ServiceEntry, and nothing else replaces
// anything. It is the one precedence of kinds istiod applies to sidecars and gateways: in
// the index of a host and namespace, among the namespaces of a listener, and across
// listeners and VirtualService destinations.
func replaces(next, first *inventory.Service) bool {
	return next.Kind == inventory.KubernetesService && first.Kind != inventory.KubernetesService
}

func (x *serviceIndex) service(id int32) *inventory.Service { return &x.inv[x.svcs[id].svc] }
func (x *serviceIndex) ref(id int32) inventory.ServiceRef   { return x.service(id).Ref() }

// indexed returns the service istiod indexes for host in namespace ns (see oldest).
func (x *serviceIndex) indexed(host, ns string) (int32, bool) {
	id, ok := x.oldest[hostNS{host, ns}]
	return id, ok
}

// destinationOf returns the service a VirtualService destination of host adds to a sidecar
// of namespace n that holds no service of that host: one of the services istiod indexes for
// the host (one per namespace) exported to n. With best (DestinationNamespace: 1.30 on, with
// PILOT_SIDECAR_PICK_BEST_SERVICE_NAMESPACE), a Kubernetes Service, else the oldest. istiod
// reads a map for it, taking the first Kubernetes Service it meets, or the first of the
// equally oldest ServiceEntries: meshscope takes the first in its order and returns another
// it could be as tie (-1: none; Proxy notes DestinationTie). Without best (up to 1.29, or
// with the flag off), the one of the alphabetically first namespace.
func (x *serviceIndex) destinationOf(host, n string, best bool) (id int32, found bool, tie int32) {
	id, tie = -1, -1
	for _, c := range x.byHost[host] {
		s := &x.svcs[c]
		svc := &x.inv[s.svc]
		if !s.oldest || !s.exportedTo(n) {
			continue
		}
		if !found {
			id, found = c, true
			continue
		}
		cur := x.service(id)
		switch {
		case !best:
			if svc.Namespace < cur.Namespace {
				id = c
			}
		case replaces(svc, cur):
			id, tie = c, -1
		case tie < 0 && svc.Kind == cur.Kind && (svc.Kind == inventory.KubernetesService || svc.CreationTime.Equal(cur.CreationTime)):
			tie = c
		}
	}
	return id, found, tie
}
