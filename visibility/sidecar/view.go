package sidecar

import (
	"cmp"
	"errors"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/exportto"
	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/names"
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
type View struct {
	root string
	// rootSet: the mesh configuration gives rootNamespace (root is not the default).
	rootSet bool
	disc    discovery
	all     *inventory.Inventory
	scs     []inventory.Sidecar // the inventory's
	nsLab   map[string]map[string]string
	inv     []inventory.Service
	svcs    []viewService // the discovered services, one per host, in Istio's order
	// The Sidecars of each discovered namespace in Istio's order: those with a workload
	// selector first, each group by creation time and name.
	sidecars    map[string][]*inventory.Sidecar
	rootDefault *inventory.Sidecar // the first Sidecar without a selector of the root namespace
	// The egress listeners of each discovered Sidecar read for its own namespace, and those
	// of a proxy no Sidecar applies to.
	listeners       map[*inventory.Sidecar]sidecarListeners
	defaultListener []listener
	defaultTo       []string // the mesh's defaultServiceExportTo

	oldest     map[hostNS]int32      // per host and namespace, the service kept (the oldest; a Kubernetes Service over a ServiceEntry)
	byHost     map[string][]int32    // host -> its services, in order
	byNS       map[string][]int32    // namespace -> its services, in order
	bySuffix   map[string][]int32    // ".b.c" -> the services whose host ends with it, in order
	exportedTo map[string][]int32    // namespace -> the services exported to it by name, in order
	public     []int32               // the services exported to every namespace, in order
	undisc     map[string][]int32    // host -> the services of undiscovered namespaces, in Istio's order (for ExplainHost)
	decisions  []visibility.Decision // per inventory service
	// visibility: whether serviceEntryVisibility is configured (enabled), and whether it
	// narrows what sidecars get (narrows: applyToSidecars).
	enabled, narrows bool
	exported         [][]string // per inventory service: its effective exportTo

	domain string // the cluster domain short names resolve into
	// The VirtualServices that apply to sidecars, in Istio's order, and their index: by
	// namespace those exported to their own, by namespace those exported to it by name, the
	// public ones.
	vss                   []virtualService
	vsPrivate, vsExported map[string][]int32
	vsPublic              []int32
	vsIx                  map[string]*vsNamespace // by namespace
	defaultVSExport       []string                // the mesh's defaultVirtualServiceExportTo
	// The VirtualServices and DestinationRules of undiscovered namespaces, each in Istio's
	// order (for ExplainHost).
	undiscVS []*inventory.VirtualService
	undiscDR []*inventory.DestinationRule
	// The DestinationRules in Istio's order, and their merged pools: by namespace the local
	// and the exported ones, and the root namespace's private ones.
	drs                 []destRule
	drLocal, drExported map[string]*ruleSet
	drRoot              *ruleSet
	// The exact hosts of the discovered DestinationRules, and whether one has a wildcard.
	drHosts map[string]bool
	drWild  bool
}

// hostNS is a host in a namespace.
type hostNS struct{ host, ns string }

// viewService is one host of a discovered service.
type viewService struct {
	host string
	svc  int32        // the inventory's index
	exp  exportto.Set // the effective exportTo
}

// exportedTo reports whether the service is exported to namespace n.
func (s *viewService) exportedTo(n string) bool { return s.exp.To(n) }

// New builds the sidecar view of an inventory under a mesh configuration (nil: Istio's
// defaults): its serviceEntryVisibility, rootNamespace, defaultServiceExportTo and
// discoverySelectors. It validates both (mesh.Config.Validate, inventory.Inventory.Validate),
// reporting every problem.
//
// Building costs time linear in the inventory: every service is ordered and indexed once,
// and no proxy's view is worked out until it is asked for.
func New(m *mesh.Config, inv *inventory.Inventory) (*View, error) {
	if inv == nil {
		inv = &inventory.Inventory{}
	}
	if err := errors.Join(m.Validate(), inv.Validate()); err != nil {
		return nil, err
	}
	var vc *visibility.Config
	if m != nil {
		vc = m.Visibility
	}
	r, err := visibility.Compile(vc)
	if err != nil {
		return nil, err
	}
	var defaultTo []string
	if m != nil {
		defaultTo = m.DefaultServiceExportTo
	}
	v := &View{
		root: m.Root(), rootSet: m != nil && m.RootNamespace != "", disc: newDiscovery(m, inv.Namespaces), all: inv, nsLab: inv.Namespaces, inv: inv.Services, scs: inv.Sidecars,
		sidecars: map[string][]*inventory.Sidecar{}, defaultTo: defaultTo,
		oldest: make(map[hostNS]int32, len(inv.Services)), byHost: make(map[string][]int32, len(inv.Services)),
		byNS: make(map[string][]int32, len(inv.Namespaces)), bySuffix: make(map[string][]int32, len(inv.Services)),
		exportedTo: make(map[string][]int32, len(inv.Namespaces)), undisc: map[string][]int32{},
		exported: make([][]string, len(inv.Services)),
		enabled:  r.Enabled(), narrows: r.AppliesToSidecars(),
	}
	v.domain = inv.ClusterDomain()
	var drDefault []string
	if m != nil {
		v.defaultVSExport = m.DefaultVirtualServiceExportTo
		drDefault = m.DefaultDestinationRuleExportTo
	}
	v.decide(r)
	v.indexServices()
	v.indexSidecars(inv.Sidecars)
	v.readVirtualServices(inv.VirtualServices, v.defaultVSExport)
	v.readDestinationRules(inv.DestinationRules, drDefault)
	return v, nil
}

// decide works out each service's visibility (Inventory.Decisions) and its effective
// exportTo for sidecars.
func (v *View) decide(r *visibility.Resolver) {
	v.decisions = v.all.Decisions(r)
	for i := range v.inv {
		s := &v.inv[i]
		v.exported[i] = visibility.EffectiveExportTo(s.ExportTo, v.defaultTo, s.Namespace, v.decisions[i].Visibility, v.narrows)
	}
}

// Discovered reports whether istiod discovers namespace: there are no discovery selectors,
// or the namespace has a Namespace object whose labels one of them matches. A proxy in an
// undiscovered namespace still gets a view, made of what is discovered.
func (v *View) Discovered(namespace string) bool {
	return v.disc.discovered(namespace)
}

// order compares two services as Istio orders them: by creation time, then name (a
// ServiceEntry's name is its host), then namespace. meshscope breaks the ties Istio leaves to
// input order — two ServiceEntries of one namespace claiming one host at the same time — by
// kind and object name (View.Lint names them).
func (v *View) order(a, b *viewService) int {
	x, y := &v.inv[a.svc], &v.inv[b.svc]
	if c := x.CreationTime.Compare(y.CreationTime); c != 0 {
		return c
	}
	if c := strings.Compare(sortName(x, a.host), sortName(y, b.host)); c != 0 {
		return c
	}
	return cmp.Or(strings.Compare(x.Namespace, y.Namespace), cmp.Compare(x.Kind, y.Kind), strings.Compare(x.Name, y.Name))
}

// sortName is the name Istio orders a service by: a ServiceEntry's host, a Kubernetes
// Service's name.
func sortName(s *inventory.Service, host string) string {
	if s.Kind == inventory.ServiceEntry {
		return host
	}
	return s.Name
}

// indexServices orders the discovered services (one entry per host) and indexes them.
func (v *View) indexServices() {
	n := 0
	for i := range v.inv {
		n += len(v.inv[i].Hosts)
	}
	v.svcs = make([]viewService, 0, n)
	for i := range v.inv {
		s := &v.inv[i]
		d := v.Discovered(s.Namespace)
		for j, h := range s.Hosts {
			if slices.Contains(s.Hosts[:j], h) {
				continue // one host given twice is one service
			}
			if !d {
				v.undisc[h] = append(v.undisc[h], int32(i))
				continue
			}
			vs := viewService{host: h, svc: int32(i)}
			vs.exp = exportto.Parse(v.exported[i], s.Namespace)
			v.svcs = append(v.svcs, vs)
		}
	}
	slices.SortFunc(v.svcs, func(a, b viewService) int { return v.order(&a, &b) })
	for h, ids := range v.undisc { // in Istio's order too, not the inventory's
		slices.SortFunc(ids, func(a, b int32) int { return v.order(&viewService{host: h, svc: a}, &viewService{host: h, svc: b}) })
	}
	for k := range v.svcs {
		vs := &v.svcs[k]
		s := &v.inv[vs.svc]
		id := int32(k)
		key := hostNS{vs.host, s.Namespace}
		if o, ok := v.oldest[key]; !ok || v.inv[v.svcs[o].svc].Kind == inventory.ServiceEntry && s.Kind == inventory.KubernetesService {
			v.oldest[key] = id
		}
		v.byHost[vs.host] = append(v.byHost[vs.host], id)
		v.byNS[s.Namespace] = append(v.byNS[s.Namespace], id)
		for i := 1; i < len(vs.host); i++ {
			if vs.host[i] == '.' {
				v.bySuffix[vs.host[i:]] = append(v.bySuffix[vs.host[i:]], id)
			}
		}
		if vs.exp.Public() {
			v.public = append(v.public, id)
		}
		for n := range vs.exp.Namespaces() {
			v.exportedTo[n] = append(v.exportedTo[n], id)
		}
	}
}

// indexSidecars orders the discovered Sidecars of each namespace and finds the root
// namespace's default.
func (v *View) indexSidecars(scs []inventory.Sidecar) {
	all := make([]*inventory.Sidecar, 0, len(scs))
	for i := range scs {
		if v.Discovered(scs[i].Namespace) {
			all = append(all, &scs[i])
		}
	}
	slices.SortFunc(all, func(a, b *inventory.Sidecar) int {
		return cmp.Or(cmp.Compare(b2i(a.WorkloadSelector == nil), b2i(b.WorkloadSelector == nil)), compareSidecars(a, b))
	})
	v.listeners = make(map[*inventory.Sidecar]sidecarListeners, len(all))
	v.defaultListener = readListeners(nil, "")
	for _, sc := range all {
		v.listeners[sc] = sidecarListeners{sidecarName(sc), readListeners(sc, sc.Namespace), slices.ContainsFunc(sc.Egress, namesOwnNamespace)}
		v.sidecars[sc.Namespace] = append(v.sidecars[sc.Namespace], sc)
		if sc.Namespace == v.root && sc.WorkloadSelector == nil && v.rootDefault == nil {
			v.rootDefault = sc
		}
	}
}

// compareSidecars orders Sidecars as Istio does: by creation time, name, namespace.
func compareSidecars(a, b *inventory.Sidecar) int {
	return cmp.Or(a.CreationTime.Compare(b.CreationTime), strings.Compare(a.Name, b.Name), strings.Compare(a.Namespace, b.Namespace))
}

// sidecarFor returns the Sidecar that applies to a proxy in namespace with labels l; nil for
// none (a default listener importing "*/*").
func (v *View) sidecarFor(namespace string, l map[string]string) *inventory.Sidecar {
	for _, sc := range v.sidecars[namespace] {
		if subsetOf(sc.WorkloadSelector, l) { // no selector applies to every workload
			return sc
		}
	}
	return v.rootDefault
}

// sidecarWhy says how sidecarFor chose sc for a proxy in namespace.
func (v *View) sidecarWhy(sc *inventory.Sidecar, namespace string) string {
	switch {
	case sc == nil:
		return "no Sidecar applies, and the root namespace " + v.root + " has none without a workloadSelector: one listener imports */*"
	case sc.Namespace != namespace:
		return "the root namespace " + v.root + "'s oldest Sidecar without a workloadSelector, read as if it were in " + namespace
	case sc.WorkloadSelector != nil:
		return "the oldest Sidecar of " + namespace + " whose workloadSelector matches the workload"
	}
	return "the oldest Sidecar of " + namespace + " without a workloadSelector; none with one matches"
}

// sidecarName spells a Sidecar as "namespace/name"; "" for none.
func sidecarName(sc *inventory.Sidecar) string {
	if sc == nil {
		return ""
	}
	return sc.Namespace + "/" + sc.Name
}

// listener is an egress listener read for a proxy namespace: its entries by namespace ("."
// resolved; "*" for every namespace).
type listener struct {
	egress    *inventory.Egress
	index     int
	byNS      map[string]*hostClass
	classes   []*hostClass // those of byNS, in the order the hosts name them
	exactOnly bool         // every import is an exact host of a named namespace
}

// hostClass is what a listener imports from one namespace (or "*").
type hostClass struct {
	ns       string
	exact    []string // exact hosts imported
	all      []string // every host imported, exact and wildcard
	excluded []string // hosts excluded ("~")
}

// sidecarListeners are a Sidecar's name and its egress listeners read for its namespace;
// dot: one of them imports or excludes hosts of "." (the proxy's namespace).
type sidecarListeners struct {
	name      string
	listeners []listener
	dot       bool
}

// namesOwnNamespace reports whether an egress listener names "." among its hosts.
func namesOwnNamespace(e inventory.Egress) bool {
	return slices.ContainsFunc(e.Hosts, func(raw string) bool { return parseEgressHost(raw).namespace == "." })
}

// listenersOf returns the name of the Sidecar sc (nil: none applies; "") and its egress
// listeners read for a proxy in namespace n: those New read, unless sc is another
// namespace's (the root namespace's) and names ".", which then stands for n.
func (v *View) listenersOf(sc *inventory.Sidecar, n string) (string, []listener) {
	if sc == nil {
		return "", v.defaultListener
	}
	p := v.listeners[sc] // sidecarFor returns discovered Sidecars only
	if sc.Namespace != n && p.dot {
		return p.name, readListeners(sc, n)
	}
	return p.name, p.listeners
}

// readListeners reads the egress listeners of the Sidecar sc (nil: none applies) for a
// proxy in namespace n.
func readListeners(sc *inventory.Sidecar, n string) []listener {
	es := egressOf(sc)
	out := make([]listener, len(es))
	for i, e := range es {
		out[i] = readListener(e, i, n)
	}
	return out
}

// readListener resolves the egress hosts of a listener for a proxy in namespace n.
func readListener(e *inventory.Egress, index int, n string) listener {
	l := listener{egress: e, index: index, byNS: make(map[string]*hostClass, len(e.Hosts)), exactOnly: true}
	for _, raw := range e.Hosts {
		h := parseEgressHost(raw)
		if h.namespace == "." {
			h.namespace = n
		}
		hc := l.byNS[h.namespace]
		if hc == nil {
			hc = &hostClass{ns: h.namespace}
			l.byNS[h.namespace] = hc
			l.classes = append(l.classes, hc)
		}
		if h.exclude {
			hc.excluded = append(hc.excluded, h.host)
			continue
		}
		if isWildcard(h.host) {
			l.exactOnly = false
		} else if !slices.Contains(hc.exact, h.host) {
			hc.exact = append(hc.exact, h.host)
		}
		if h.namespace == names.Wildcard {
			l.exactOnly = false
		}
		hc.all = append(hc.all, h.host)
	}
	return l
}

// isWildcard reports whether a host starts with "*", as Istio's host names do.
func isWildcard(h string) bool { return h != "" && h[0] == '*' }

// excludes reports whether an exclusion of the class covers h.
func (hc *hostClass) excludes(h string) bool {
	if hc == nil {
		return false
	}
	for _, x := range hc.excluded {
		if hosts.Covers(x, h) {
			return true
		}
	}
	return false
}

// imports reports whether the class imports h (Istio's hostClassification.Matches: the
// exact hosts, then the patterns of which at least one side is a wildcard), and the pattern
// that does.
func (hc *hostClass) imports(h string) (string, bool) {
	if hc == nil {
		return "", false
	}
	if slices.Contains(hc.exact, h) {
		return h, true
	}
	for _, o := range hc.all {
		if !isWildcard(h) && !isWildcard(o) {
			continue
		}
		if hosts.Covers(o, h) {
			return o, true
		}
	}
	return "", false
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
