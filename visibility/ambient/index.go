package ambient

import (
	"fmt"
	"hash/maphash"
	"slices"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// FieldError is the one structured error type of meshscope's packages: every error this
// package returns is a *FieldError or several joined (errors.Join). New and Diff report the
// mesh configuration's problems as mesh.Config.Validate names them and the inventory's as
// inventory.Inventory.Validate names them ("Services[3] (ServiceEntry a/x): Hosts[0]: …").
type FieldError = fielderr.Error

// Index is ztunnel's view of an inventory under a mesh configuration: which service answers
// a client's DNS query or connection, and every entry's visibility decision. It is built by
// New, immutable and safe for concurrent use.
//
// Who owns what: the index keeps the inventory's Services slice (and the slices and maps in
// it) rather than copying a million entries, so do not modify them after New. The Services
// its lookups return share that storage: they are read-only views (a lookup does not
// allocate). Everything else it returns — explanations, conflicts, findings — is a fresh
// value the caller owns. The index's answers are worked out by New from its own tables, so a
// caller that does change a returned Service changes what later lookups return for that
// field, never which service answers.
//
// New decides every entry and builds the host and address tables: eagerly, because the first
// lookup would pay the same work to build them lazily and a lazy build leaves a once-guard on
// every lookup (BenchmarkNewIndex100kAndTables gives the cost, beside the per-entry walk of
// BenchmarkPerEntryWalkWithMaps100k). It works on the caller's goroutine (the package starts
// none): a caller with several inventories builds their indexes in parallel itself. The zero
// Index, and a nil *Index, answer as an empty index: every lookup finds nothing.
type Index struct {
	resolver    *visibility.Resolver
	inv         inventory.Inventory // the caller's, its slices and maps not copied
	services    []inventory.Service // inv.Services
	entries     []entry             // parallel to services
	seed        maphash.Seed
	names       nameTable        // hash of namespace and name -> the services with those names
	collided    map[nsName]*pair // names whose 64-bit hash another name already has (never, in practice)
	meshDefault []string         // the mesh's defaultServiceExportTo, as given
	domain      string           // the cluster domain short names expand into
	t           *tables
}

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
	decision visibility.Decision
}

// New validates the mesh configuration (m.Validate) and the inventory (inv.Validate),
// reporting every problem of both at once, then decides every ServiceEntry of the inventory
// — policies are evaluated once per namespace, not once per entry: visibility depends only
// on the namespace's labels — and builds the host and address tables its lookups read. A nil
// m is Istio's defaults (serviceEntryVisibility not configured: every entry is PUBLIC); a
// nil inv is an empty inventory. Of the mesh configuration the index reads
// serviceEntryVisibility, and Lint reads defaultServiceExportTo.
func New(m *mesh.Config, inv *inventory.Inventory) (*Index, error) {
	var c fielderr.Collector
	r, err := compile("", m)
	c.Put(err)
	c.Put(validate(inv))
	if err := c.Err(); err != nil {
		return nil, err
	}
	return build(r, m, inv, maphash.MakeSeed()), nil
}

// compile validates m and compiles its serviceEntryVisibility; where, if not "", is put
// before each problem (see fielderr.In).
func compile(where string, m *mesh.Config) (*visibility.Resolver, error) {
	if err := m.Validate(); err != nil {
		return nil, fielderr.In(where, err)
	}
	var c *visibility.Config
	if m != nil {
		c = m.Visibility
	}
	r, err := visibility.Compile(c)
	return r, fielderr.In(where, fielderr.Under("serviceEntryVisibility", err))
}

// validate checks what the index needs of inv: everything inv.Validate checks, and a size
// the tables can number.
func validate(inv *inventory.Inventory) error {
	if inv == nil {
		return nil
	}
	if n := len(inv.Services); n >= single {
		return &FieldError{Field: "Services", Value: n, Detail: fmt.Sprintf("%d services; an index holds fewer than %d", n, single)}
	}
	return inv.Validate()
}

// build is New after validation, with the seed its tables hash with: two indexes of one
// inventory built with one seed number their candidate sets alike (see Diff).
func build(r *visibility.Resolver, m *mesh.Config, inv *inventory.Inventory, seed maphash.Seed) *Index {
	if inv == nil {
		inv = &inventory.Inventory{}
	}
	n := len(inv.Services)
	ix := &Index{
		resolver: r, inv: *inv, services: inv.Services, entries: make([]entry, n), seed: seed,
		names:  newNameTable(n),
		domain: inv.ClusterDomain(),
	}
	if m != nil {
		ix.meshDefault = slices.Clone(m.DefaultServiceExportTo)
	}
	// Pass 1, in inventory order: decide each service, hash its name, record the keys it
	// claims.
	namespaces := nsTable{cells: newNameTable(len(inv.Namespaces)), list: make([]nsInfo, 0, len(inv.Namespaces))}
	hashes := make([]uint64, n)
	keys := newPending(n)
	for i := range inv.Services {
		ix.enter(int32(i), &inv.Services[i], inv.Namespaces, &namespaces, &hashes[i], keys)
	}
	// Pass 2, in hash order, so that the name table fills front to back instead of at random:
	// one slot per namespace and name.
	for _, i := range hashOrder(hashes) {
		ix.place(i, hashes[i])
	}
	ix.t = ix.tables(keys)
	return ix
}

// enter decides service i, hashes its namespace and name (the name table ignores a hash's
// low bit, which carries the kind), and records the keys it claims.
func (ix *Index) enter(i int32, s *inventory.Service, nsLabels map[string]map[string]string, namespaces *nsTable, hash *uint64, keys *pending) {
	nsHash := maphash.String(ix.seed, s.Namespace)
	ns := namespaces.find(nsHash, s.Namespace)
	if ns == nil { // decide once per namespace
		ns = namespaces.add(nsInfo{name: s.Namespace, decision: ix.resolver.Resolve(labels.Set(nsLabels[s.Namespace])), hash: nsHash})
	}
	*hash = ix.hashName(ns.hash, s.Name)&^1 | uint64(s.Kind&1) // the kind rides in the low bit
	for _, h := range s.Hosts {
		keys.host(ix, i, s, hosts.Normalize(h))
	}
	for _, a := range s.AllAddresses() {
		keys.address(ix, i, a)
	}
	d := visibility.Decision{Visibility: visibility.Public, Policy: visibility.NoIndex}
	if s.Kind == inventory.ServiceEntry {
		d = ns.decision
	}
	ix.entries[i].decision = d
}

// place records service i, whose kind is the low bit of hk and whose name hash is the rest,
// in the pair of its namespace and name. It reads the service's names only when another has
// the same hash. The inventory has no two services of one kind with one namespace and name
// (inv.Validate refuses them); should it have, the first stays.
func (ix *Index) place(i int32, hk uint64) {
	h, kind := hk|1, inventory.Kind(hk&1)
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
	case kind == inventory.ServiceEntry && p.se < 0:
		p.se = i
	case kind == inventory.KubernetesService && p.svc < 0:
		p.svc = i
	}
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
// ServiceEntry when a Kubernetes Service shares them), or false if there is none. A
// Kubernetes Service is always PUBLIC (decided by no policy).
func (ix *Index) Decision(namespace, name string) (visibility.Decision, bool) {
	if e := ix.find(namespace, name); e >= 0 {
		return ix.entries[e].decision, true
	}
	return visibility.Decision{}, false
}

// service returns the service with this namespace and name (the ServiceEntry when a
// Kubernetes Service shares them).
func (ix *Index) service(namespace, name string) (inventory.Service, bool) {
	if e := ix.find(namespace, name); e >= 0 {
		return ix.services[e], true
	}
	return inventory.Service{}, false
}

// Entries calls yield for every service in inventory order with its decision. The Services
// are read-only views of the inventory's.
func (ix *Index) Entries(yield func(inventory.Service, visibility.Decision) bool) {
	if ix == nil {
		return
	}
	for i := range ix.entries {
		if !yield(ix.services[i], ix.entries[i].decision) {
			return
		}
	}
}
