package ambient

import (
	"fmt"
	"hash/maphash"
	"slices"
	"sync"

	"github.com/meshscope/meshscope/internal/buckets"
	"github.com/meshscope/meshscope/internal/fielderr"
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
// BenchmarkPerEntryWalkWithMaps100k). The table of names that only Decision reads is built
// by the first Decision (once, safe for concurrent use). It works on the caller's goroutine
// (the package starts none): a caller with several inventories builds their indexes in
// parallel itself. The zero Index, and a nil *Index, answer as an empty index: every lookup
// finds nothing.
type Index struct {
	resolver    *visibility.Resolver
	inv         inventory.Inventory   // the caller's, its slices and maps not copied
	services    []inventory.Service   // inv.Services
	decisions   []visibility.Decision // parallel to services
	names       buckets.Table         // the services by the hash of their namespace and name (nameHash); built by find, once
	namesOnce   sync.Once
	meshDefault []string     // the mesh's defaultServiceExportTo
	domain      string       // the cluster domain short names expand into
	release     mesh.Release // the release answered for
	absent      []bool       // parallel to services: not sent to ztunnel under release; nil: all are sent
	oldHost     bool         // the release ranks a host's entries as 1.28 does (no ZtunnelCanonicalHost)
	oldAddress  bool         // the release keeps one entry per address (no ZtunnelRankedAddress)
	t           *tables
}

// nameTable builds the table of the services by namespace and name.
func (ix *Index) nameTable() {
	hashes := make([]uint64, len(ix.services))
	for i := range ix.services {
		hashes[i] = nameHash(ix.t.seed, ix.services[i].Namespace, ix.services[i].Name)
	}
	ix.names, _ = buckets.Sort(hashes, nil) // (both services of a name shared by two kinds are kept)
}

// nameHash hashes a namespace and a name with the index's seed.
func nameHash(seed maphash.Seed, namespace, name string) uint64 {
	return maphash.Comparable(seed, [2]string{namespace, name})
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
	return build(r, m, inv), nil
}

// compile validates m and compiles its serviceEntryVisibility; where, if not "", is put
// before each problem (see fielderr.In).
func compile(where string, m *mesh.Config) (*visibility.Resolver, error) {
	if err := m.Validate(); err != nil {
		return nil, fielderr.In(where, err)
	}
	r, err := visibility.Compile(m.AppliedVisibility())
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

// build is New after validation. Two indexes of one inventory number their candidate sets
// alike, whatever their configurations and however their tables hash: the sets of wildcard
// hosts and CIDRs, then of exact hosts, then of exact addresses, each in the order the
// inventory claims their keys a second time (see Diff).
func build(r *visibility.Resolver, m *mesh.Config, inv *inventory.Inventory) *Index {
	if inv == nil {
		inv = &inventory.Inventory{}
	}
	n := len(inv.Services)
	ix := &Index{
		resolver: r, inv: *inv, services: inv.Services, decisions: inv.Decisions(r),
		domain: inv.ClusterDomain(), release: m.Release(),
	}
	ix.absent = absentFor(ix.release, inv)
	ix.oldHost, ix.oldAddress = !ix.release.Has(mesh.ZtunnelCanonicalHost), !ix.release.Has(mesh.ZtunnelRankedAddress)
	if m != nil {
		ix.meshDefault = slices.Clone(m.DefaultServiceExportTo)
	}
	keys := newPending(n, maphash.MakeSeed())
	for i := range inv.Services {
		ix.enter(int32(i), &inv.Services[i], keys)
	}
	ix.t = ix.tables(keys)
	return ix
}

// enter records the keys service i claims.
func (ix *Index) enter(i int32, s *inventory.Service, keys *pending) {
	for _, h := range s.Hosts {
		keys.host(i, s, h)
	}
	for _, a := range s.AllAddresses() {
		keys.address(i, a)
	}
}

// find returns the service with this namespace and name: the ServiceEntry when a Kubernetes
// Service shares them, else the Kubernetes Service; -1 when there is none. The inventory has
// no two services of one kind with one namespace and name (inv.Validate refuses them); should
// it have, the first is found.
//
// The table of names it reads is built by its first call (once, safe for concurrent use):
// only Decision needs it, and a caller asking only for hosts and addresses — ztunnel's
// questions — does not pay for it (BenchmarkNewIndex100k, which asks every entry's decision,
// gives what it costs).
func (ix *Index) find(namespace, name string) int32 {
	if ix == nil || ix.t == nil {
		return -1
	}
	ix.namesOnce.Do(ix.nameTable)
	h, found := nameHash(ix.t.seed, namespace, name), int32(-1)
	for _, s := range ix.names.Bucket(h) {
		if svc := &ix.services[s.Item]; s.Hash == h && svc.Name == name && svc.Namespace == namespace {
			if svc.Kind == inventory.ServiceEntry {
				return s.Item
			}
			if found < 0 {
				found = s.Item
			}
		}
	}
	return found
}

// Decision returns the visibility decision of the service with this namespace and name (the
// ServiceEntry when a Kubernetes Service shares them), or false if there is none. A
// Kubernetes Service is always PUBLIC (decided by no policy).
func (ix *Index) Decision(namespace, name string) (visibility.Decision, bool) {
	if e := ix.find(namespace, name); e >= 0 {
		return ix.decisions[e], true
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
	for i := range ix.decisions {
		if !yield(ix.services[i], ix.decisions[i]) {
			return
		}
	}
}
