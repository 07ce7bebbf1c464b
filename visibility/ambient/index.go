package visibility

import (
	"cmp"
	"errors"
	"fmt"
	"hash/maphash"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/strict"
)

// Index is the data-plane view of an inventory under a visibility configuration: which
// service answers a client's DNS query or connection, whether a sidecar sees an entry, and
// every entry's decision. It is built by NewIndex, immutable and safe for concurrent use.
//
// Who owns what: the index keeps the inventory's Services slice (and the slices and maps in
// it) rather than copying a million entries, so do not modify them after NewIndex. The
// Services its lookups return share that storage: they are read-only views (a lookup does
// not allocate). Everything else it returns — explanations, conflicts, namespaces — is a
// fresh value the caller owns. The index's answers are worked out by NewIndex from its own
// tables, so a caller that does change a returned Service changes what later lookups return
// for that field, never which service answers.
//
// NewIndex validates everything, decides every entry and builds the host and address
// tables: eagerly, because the first lookup would pay the same work to build them lazily and
// a lazy build leaves a once-guard on every lookup (BenchmarkNewIndex100kAndTables gives the
// cost, beside the per-entry walk of BenchmarkPerEntryWalkWithMaps100k). It works
// on the caller's goroutine (the package starts none): a caller with several inventories
// builds their indexes in parallel itself, and an Index is safe for concurrent use. The zero
// Index, and a nil *Index, answer as an empty index: every lookup finds nothing.
type Index struct {
	resolver    *Resolver
	services    []Service // the inventory's, not copied
	entries     []entry   // parallel to services
	seed        maphash.Seed
	names       nameTable                    // hash of namespace and name -> the services with those names
	collided    map[nsName]*pair             // names whose 64-bit hash another name already has (never, in practice)
	namespaces  []string                     // every namespace of the inventory, sorted
	meshDefault []string                     // the effective mesh default: ["*"] when the inventory gives none
	ownOnly     []string                     // ["."], shared by every entry NAMESPACE narrows
	noneOnly    []string                     // ["~"]
	domain      string                       // the cluster domain short names expand into
	nsLabels    map[string]map[string]string // the inventory's, not copied
	t           *tables
}

// defaultDomain is the cluster domain when an inventory names none.
const defaultDomain = "cluster.local"

func (ix *Index) hashName(nsHash uint64, name string) uint64 {
	return nsHash*0x9E3779B97F4A7C15 ^ maphash.String(ix.seed, name)
}

// findPair returns the services with this namespace and name, or nil. The hash only narrows
// the search: the names are compared.
func (ix *Index) findPair(h uint64, namespace, name string) *pair {
	c := ix.names.cell(h)
	if ix.names.c[c].h == 0 {
		return nil
	}
	p := &ix.names.c[c].pair
	if s := &ix.services[p.first()]; s.Name == name && s.Namespace == namespace {
		return p
	}
	return ix.collided[nsName{namespace, name}]
}

type entry struct {
	decision Decision
	exported []string // effective exportTo for sidecars
}

// NewIndex resolves every ServiceEntry of the inventory (policies are evaluated once per
// namespace, not once per entry: visibility depends only on the namespace's labels) and
// validates the inventory with the checks LoadInventory runs, reporting every problem, each
// naming the service and its field ("Services[3] (ServiceEntry a/x): Hosts[0]: …"): an unknown
// kind, an empty namespace or name, two services of one kind with the same namespace and name,
// a host that is not a DNS name (whose first label may be a wildcard label, *. or partial, as
// Istio validates hosts; "*" alone is refused), an invalid prefix among the
// addresses, an invalid exportTo, an unknown resolution, an allocated address that is not an IP
// or is for none of the service's hosts, an invalid mesh default. A nil resolver is the
// disabled one.
func NewIndex(r *Resolver, inv Inventory) (*Index, error) {
	return newIndex(r, inv, maphash.MakeSeed())
}

// newIndex is NewIndex with the seed its tables hash with: two indexes of one inventory
// built with one seed number their candidate sets alike (see Diff).
func newIndex(r *Resolver, inv Inventory, seed maphash.Seed) (*Index, error) {
	n := len(inv.Services)
	if n >= single {
		return nil, &FieldError{Field: "Services", Detail: fmt.Sprintf("%d services; an index holds fewer than %d", n, single)}
	}
	ix := &Index{
		resolver: r, services: inv.Services, entries: make([]entry, n), seed: seed,
		names:       newNameTable(n),
		meshDefault: inv.DefaultExportTo, ownOnly: []string{exportToOwn}, noneOnly: []string{exportToNone},
		domain:   normalizeHost(cmp.Or(inv.Domain, defaultDomain)),
		nsLabels: inv.Namespaces,
	}
	if r := hostProblem(ix.domain); r != "" || strings.HasPrefix(ix.domain, "*") {
		return nil, &FieldError{Field: "Domain", Value: inv.Domain, Detail: fmt.Sprintf("%q is not a DNS name", inv.Domain)}
	}
	var head []error
	for _, e := range checkExportTo(nil, "DefaultExportTo", "", inv.DefaultExportTo, meshList) {
		head = append(head, e)
	}
	if len(ix.meshDefault) == 0 {
		ix.meshDefault = []string{exportToAll}
	}
	// Pass 1, in inventory order: check each service, decide it, hash its name.
	namespaces := nsTable{cells: newNameTable(len(inv.Namespaces)), list: make([]nsInfo, 0, len(inv.Namespaces))}
	hashes := make([]uint64, n)
	keys := newPending(n)
	var problems map[int32][]*FieldError // by service; nil while there are none
	for i := range inv.Services {
		if p := ix.check(int32(i), &inv.Services[i], inv.Namespaces, &namespaces, &hashes[i], keys); p != nil {
			if problems == nil {
				problems = map[int32][]*FieldError{}
			}
			problems[int32(i)] = p
		}
	}
	// Pass 2, in hash order, so that the name table fills front to back instead of at random:
	// one slot per namespace and name, and no second ServiceEntry or Service for it.
	for _, i := range hashOrder(hashes) {
		if p := ix.place(i, hashes[i]); p != nil {
			if problems == nil {
				problems = map[int32][]*FieldError{}
			}
			problems[i] = append(problems[i], p)
		}
	}
	if len(head) > 0 || problems != nil {
		return nil, ix.report(head, problems)
	}
	nsSet := make([]string, 0, len(inv.Namespaces)+len(namespaces.list))
	for ns := range inv.Namespaces {
		nsSet = append(nsSet, ns)
	}
	for _, info := range namespaces.list {
		nsSet = append(nsSet, info.name)
	}
	slices.Sort(nsSet)
	ix.namespaces = slices.Compact(nsSet)
	ix.t = ix.build(keys)
	return ix, nil
}

// report joins the problems, one a line, in inventory order.
func (ix *Index) report(head []error, problems map[int32][]*FieldError) error {
	for _, i := range slices.Sorted(maps.Keys(problems)) {
		s := &ix.services[i]
		where := fmt.Sprintf("%s (%s %s/%s)", strict.Index("Services", int(i)), s.Kind, s.Namespace, s.Name)
		for _, p := range problems[i] {
			p.Where = where
			head = append(head, p)
		}
	}
	return errors.Join(head...)
}

// check validates service i, decides its visibility and hashes its namespace and name (the
// name table ignores a hash's low bit, which carries the kind), and records the keys it
// claims. It returns the service's problems, nil when there are none.
func (ix *Index) check(i int32, s *Service, nsLabels map[string]map[string]string, namespaces *nsTable, hash *uint64, keys *pending) []*FieldError {
	var errs []*FieldError
	if s.Kind != ServiceEntry && s.Kind != KubernetesService {
		errs = append(errs, problem("", "Kind", int(s.Kind), "unknown kind %d", int(s.Kind)))
	}
	if s.Namespace == "" {
		errs = append(errs, problem("", "Namespace", "", "must not be empty"))
	}
	if s.Name == "" {
		errs = append(errs, problem("", "Name", "", "must not be empty"))
	}
	nsHash := maphash.String(ix.seed, s.Namespace)
	ns := namespaces.find(nsHash, s.Namespace)
	if ns == nil { // decide once per namespace
		ns = namespaces.add(nsInfo{name: s.Namespace, decision: ix.resolver.Resolve(labels.Set(nsLabels[s.Namespace])), hash: nsHash})
	}
	*hash = ix.hashName(ns.hash, s.Name)&^1 | uint64(s.Kind&1) // the kind rides in the low bit
	errs = checkHosts(errs, "Hosts", s.Hosts, func(h string) { keys.host(ix, i, s, h) })
	errs = checkAddresses(errs, "Addresses", s.Addresses)
	if s.Namespace != "" {
		errs = checkExportTo(errs, "ExportTo", s.Namespace, s.ExportTo, exportToListOf(s.Kind))
	}
	errs = checkResolution(errs, "Resolution", s.Resolution)
	errs = checkPorts(errs, "Ports", "", s.Kind, s.Ports)
	if len(s.Selector) > 0 {
		errs = checkWorkloadLabels(errs, "Selector", s.Selector)
	}
	errs = checkAutoAddresses(errs, "AutoAddresses", s)
	if errs != nil {
		return errs
	}
	for _, a := range s.allAddresses() {
		keys.address(ix, i, a)
	}
	d := Decision{Visibility: Public, Policy: -1}
	if s.Kind == ServiceEntry {
		d = ns.decision
	}
	e := &ix.entries[i]
	e.decision = d
	e.exported = EffectiveExportTo(s.ExportTo, ix.meshDefault, s.Namespace, d.Visibility, ix.resolver.AppliesToSidecars())
	switch {
	case len(e.exported) != 1:
	case e.exported[0] == exportToOwn:
		e.exported = ix.ownOnly
	case e.exported[0] == exportToNone:
		e.exported = ix.noneOnly
	}
	return nil
}

// place records service i, whose kind is the low bit of hk and whose name hash is the rest,
// in the pair of its namespace and name, and returns a problem if the pair already holds a
// service of its kind. It reads the service's names only when another has the same hash.
func (ix *Index) place(i int32, hk uint64) *FieldError {
	h, kind := hk|1, Kind(hk&1)
	c := ix.names.cell(h)
	cl := &ix.names.c[c]
	p := &cl.pair
	switch {
	case cl.h == 0: // a new name
		*cl = cell{h, pair{-1, -1}}
	case !ix.sameName(p.first(), i): // another name with the same hash
		key := nsName{ix.services[i].Namespace, ix.services[i].Name}
		if ix.collided == nil {
			ix.collided = map[nsName]*pair{}
		}
		if p = ix.collided[key]; p == nil {
			p = &pair{-1, -1}
			ix.collided[key] = p
		}
	}
	switch {
	case kind == ServiceEntry && p.se >= 0:
		s := &ix.services[i]
		return &FieldError{Detail: fmt.Sprintf("a second ServiceEntry %s/%s (the first is Services[%d])", s.Namespace, s.Name, p.se), Err: ErrDuplicate}
	case kind == ServiceEntry:
		p.se = i
	case p.svc >= 0:
		s := &ix.services[i]
		return &FieldError{Detail: fmt.Sprintf("a second Kubernetes Service %s/%s (the first is Services[%d])", s.Namespace, s.Name, p.svc), Err: ErrDuplicate}
	default:
		p.svc = i
	}
	return nil
}

func (ix *Index) sameName(a, b int32) bool {
	x, y := &ix.services[a], &ix.services[b]
	return x.Name == y.Name && x.Namespace == y.Namespace
}

func (ix *Index) find(namespace, name string) int32 {
	if ix == nil || len(ix.names.c) == 0 {
		return -1 // the zero Index: empty (and no seed to hash with)
	}
	p := ix.findPair(ix.hashName(maphash.String(ix.seed, namespace), name), namespace, name)
	if p == nil {
		return -1
	}
	return p.first()
}

// Decision returns the visibility decision of the service with this namespace and name (the
// ServiceEntry when a Kubernetes Service shares them), or false if there is none.
func (ix *Index) Decision(namespace, name string) (Decision, bool) {
	if e := ix.find(namespace, name); e >= 0 {
		return ix.entries[e].decision, true
	}
	return Decision{}, false
}

// SidecarVisible reports whether sidecars and gateways in namespace client see the service
// with this namespace and name (the ServiceEntry when a Kubernetes Service shares them): its
// exportTo, or the mesh default, narrowed by its visibility when applyToSidecars is set (see
// EffectiveExportTo). It is false for a service the index does not hold.
func (ix *Index) SidecarVisible(namespace, name, client string) bool {
	e := ix.find(namespace, name)
	return e >= 0 && ExportedTo(ix.entries[e].exported, namespace, client)
}

// service returns the service with this namespace and name (the ServiceEntry when a
// Kubernetes Service shares them).
func (ix *Index) service(namespace, name string) (Service, bool) {
	if e := ix.find(namespace, name); e >= 0 {
		return ix.services[e], true
	}
	return Service{}, false
}

// Entries calls yield for every service in inventory order with its decision.
func (ix *Index) Entries(yield func(Service, Decision) bool) {
	for i := range ix.entries {
		if !yield(ix.services[i], ix.entries[i].decision) {
			return
		}
	}
}

// Namespaces returns every namespace of the inventory (those with labels and those with
// services), sorted. The caller owns the slice.
func (ix *Index) Namespaces() []string {
	if ix == nil {
		return nil
	}
	return slices.Clone(ix.namespaces)
}
