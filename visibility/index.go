package visibility

import (
	"cmp"
	"errors"
	"fmt"
	"hash/maphash"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/internal/strict"
)

// Kind is the kind of a service in an inventory.
type Kind int

// The kinds of service.
const (
	// ServiceEntry is an Istio ServiceEntry, subject to visibility policies.
	ServiceEntry Kind = iota
	// KubernetesService is a Kubernetes Service: always PUBLIC.
	KubernetesService
)

// String returns "ServiceEntry" or "KubernetesService".
func (k Kind) String() string {
	switch k {
	case ServiceEntry:
		return "ServiceEntry"
	case KubernetesService:
		return "KubernetesService"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// MarshalText encodes the kind by name.
func (k Kind) MarshalText() ([]byte, error) {
	if k != ServiceEntry && k != KubernetesService {
		return nil, &FieldError{Value: int(k), Detail: fmt.Sprintf("unknown kind %d", int(k))}
	}
	return []byte(k.String()), nil
}

// UnmarshalText decodes a kind by name.
func (k *Kind) UnmarshalText(b []byte) error {
	switch string(b) {
	case "ServiceEntry":
		*k = ServiceEntry
	case "KubernetesService":
		*k = KubernetesService
	default:
		return &FieldError{Value: string(b), Detail: fmt.Sprintf("unknown kind %q (want ServiceEntry or KubernetesService)", b)}
	}
	return nil
}

// Service is a ServiceEntry or a Kubernetes Service as the data plane sees it.
type Service struct {
	Kind      Kind   `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Hosts are DNS names, optionally starting with "*." (a wildcard of one or more labels).
	// They compare without case and without a trailing dot.
	Hosts []string `json:"hosts,omitempty"`
	// Addresses are IPs or CIDRs, e.g. "10.0.0.1", "10.1.0.0/16"; a /32 or /128 is an IP.
	Addresses []string `json:"addresses,omitempty"`
	// ExportTo is the entry's exportTo list; empty means the mesh default.
	ExportTo     []string  `json:"exportTo,omitempty"`
	CreationTime time.Time `json:"creationTime,omitzero"`
}

// Ref returns the service's kind, namespace and name.
func (s Service) Ref() ServiceRef {
	return ServiceRef{Kind: s.Kind, Namespace: s.Namespace, Name: s.Name}
}

// ServiceRef names a service of an inventory.
type ServiceRef struct {
	Kind      Kind   `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

// String returns "ServiceEntry shop/payments".
func (r ServiceRef) String() string { return r.Kind.String() + " " + r.Namespace + "/" + r.Name }

// Inventory is what a cluster holds: its namespaces with their labels, its services, and the
// mesh-wide default exportTo.
type Inventory struct {
	// Namespaces maps each namespace name to its labels. A namespace missing here has no
	// labels.
	Namespaces map[string]map[string]string
	Services   []Service
	// DefaultExportTo is meshConfig.defaultServiceExportTo; nil means ["*"].
	DefaultExportTo []string
}

// Index is the data-plane view of an inventory under a visibility configuration: which
// service answers a client's DNS query or connection, whether a sidecar sees an entry, and
// every entry's decision. It is built by NewIndex, immutable and safe for concurrent use.
// It keeps the inventory's Services slice (and the slices in it) rather than copying a
// million entries: do not modify them afterwards. Services it returns are read-only.
//
// NewIndex validates everything and decides every entry; the host and address tables that
// only lookups need are built on the first lookup, once.
type Index struct {
	resolver    *Resolver
	services    []Service // the inventory's, not copied
	entries     []entry   // parallel to services
	seed        maphash.Seed
	names       nameTable        // hash of namespace and name -> the services with those names
	collided    map[nsName]*pair // names whose 64-bit hash another name already has (never, in practice)
	namespaces  []string         // every namespace of the inventory, sorted
	meshDefault []string         // the effective mesh default: ["*"] when the inventory gives none
	ownOnly     []string         // ["."], shared by every entry NAMESPACE narrows
	noneOnly    []string         // ["~"]
	once        sync.Once
	t           *tables
}

// tables are the lookup structures, built on first use.
type tables struct {
	hosts    map[string]int32 // exact host -> candidate set
	wild     map[string]int32 // "b.c" for "*.b.c" -> candidate set
	addrs    map[netip.Addr]int32
	prefixes map[netip.Prefix]int32
	lengths4 []int // prefix lengths present, longest first
	lengths6 []int
	sets     []candidates
}

// pair holds the services with one namespace and name: a ServiceEntry and a Kubernetes
// Service, -1 where there is none.
type pair struct{ se, svc int32 }

// first returns the pair's ServiceEntry, else its Kubernetes Service.
func (p *pair) first() int32 {
	if p.se >= 0 {
		return p.se
	}
	return p.svc
}

type nsName struct{ namespace, name string }

// nsInfo is what NewIndex knows of a namespace: its decision and the hash of its name.
type nsInfo struct {
	name     string
	decision Decision
	hash     uint64
}

// nsTable finds a namespace's nsInfo by the hash of its name; it is small enough to stay in
// cache while a million entries stream past.
type nsTable struct {
	cells nameTable
	list  []nsInfo
}

// find returns the namespace's info, or nil.
func (t *nsTable) find(h uint64, name string) *nsInfo {
	for c := t.cells.cell(h); t.cells.c[c].h != 0; c = (c + 1) & t.cells.mask {
		if info := &t.list[t.cells.c[c].se]; t.cells.c[c].h == h|1 && info.name == name {
			return info
		}
	}
	return nil
}

func (t *nsTable) add(info nsInfo) *nsInfo {
	if 2*(len(t.list)+1) > len(t.cells.c) {
		t.cells = newNameTable(2 * (len(t.list) + 1))
		for k, old := range t.list {
			t.cells.put(old.hash, int32(k))
		}
	}
	t.list = append(t.list, info)
	t.cells.put(info.hash, int32(len(t.list)-1))
	return &t.list[len(t.list)-1]
}

func (ix *Index) hashName(nsHash uint64, name string) uint64 {
	return nsHash*0x9E3779B97F4A7C15 ^ maphash.String(ix.seed, name)
}

// nameTable is an open-addressing hash table from a 64-bit hash to a pair of services, sized
// once: a lookup reads one cell, and the insertion that follows it writes the same cell,
// where a Go map would probe twice.
type nameTable struct {
	c     []cell
	mask  uint64
	shift uint // 64 - log2(len(c))
}

// cell is a hash (0 when empty; stored hashes have their low bit set) and what it maps to:
// one cache line holds both. (The namespace table keeps an index in se.)
type cell struct {
	h uint64
	pair
}

func newNameTable(n int) nameTable {
	size, shift := uint64(8), uint(61)
	for size < uint64(2*n) {
		size, shift = size<<1, shift-1
	}
	return nameTable{c: make([]cell, size), mask: size - 1, shift: shift}
}

// mix scrambles a hash so that its top bits are well spread; a table's first probe is the
// top bits of the mixed hash, so that cells are in hash order.
func mix(h uint64) uint64 { return (h | 1) * 0x9E3779B97F4A7C15 }

// put stores k for h in the first empty cell of h's probe sequence (after any cells holding
// an equal hash).
func (t *nameTable) put(h uint64, k int32) {
	h |= 1
	i := mix(h) >> t.shift
	for t.c[i].h != 0 {
		i = (i + 1) & t.mask
	}
	t.c[i] = cell{h, pair{k, -1}}
}

// cell returns the cell holding h, or the empty cell where h would go.
func (t *nameTable) cell(h uint64) uint64 {
	h |= 1
	i := mix(h) >> t.shift
	for t.c[i].h != 0 && t.c[i].h != h {
		i = (i + 1) & t.mask
	}
	return i
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

// candidates are the entries that claim one host, address or prefix, in rank order.
type candidates struct {
	all       []int32 // in rank order
	canonical int32   // first entry visible to every namespace, or -1
	own       []best  // per namespace, its first entry visible to it; sorted by namespace
}

type best struct {
	namespace string
	entry     int32
}

// NewIndex resolves every ServiceEntry of the inventory (policies are evaluated once per
// namespace, not once per entry: visibility depends only on the namespace's labels) and
// validates the inventory, reporting every problem, each naming the service: an unknown kind,
// an empty namespace or name, two services of one kind with the same namespace and name, a
// host that is not a DNS name (optionally starting with "*."), an address that is not an IP
// or CIDR, an invalid exportTo, an invalid mesh default. A nil resolver is the disabled one.
func NewIndex(r *Resolver, inv Inventory) (*Index, error) {
	n := len(inv.Services)
	ix := &Index{
		resolver: r, services: inv.Services, entries: make([]entry, n), seed: maphash.MakeSeed(),
		names:       newNameTable(n),
		meshDefault: inv.DefaultExportTo, ownOnly: []string{ExportToOwn}, noneOnly: []string{ExportToNone},
	}
	var head []error
	for _, e := range renamed(validateExportTo("", inv.DefaultExportTo, false), "DefaultExportTo") {
		head = append(head, e)
	}
	if len(ix.meshDefault) == 0 {
		ix.meshDefault = []string{ExportToAll}
	}
	// Pass 1, in inventory order: check each service, decide it, hash its name.
	namespaces := nsTable{cells: newNameTable(len(inv.Namespaces)), list: make([]nsInfo, 0, len(inv.Namespaces))}
	hashes := make([]uint64, n)
	var problems map[int32][]*FieldError // by service; nil while there are none
	for i := range inv.Services {
		if p := ix.check(int32(i), &inv.Services[i], inv.Namespaces, &namespaces, &hashes[i]); p != nil {
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

// hashOrder returns the indexes of hashes ordered by the top bits of their mixed value — the
// bits that choose a cell of the name table — keeping inventory order among equal bits.
func hashOrder(hashes []uint64) []int32 {
	const bits = 12
	var count [1<<bits + 1]int32
	for _, h := range hashes {
		count[mix(h)>>(64-bits)+1]++
	}
	for b := 1; b < len(count); b++ {
		count[b] += count[b-1]
	}
	order := make([]int32, len(hashes))
	for i, h := range hashes {
		b := mix(h) >> (64 - bits)
		order[count[b]] = int32(i)
		count[b]++
	}
	return order
}

// check validates service i, decides its visibility and hashes its namespace and name (the
// name table ignores a hash's low bit, which carries the kind). It returns the service's
// problems, nil when there are none.
func (ix *Index) check(i int32, s *Service, nsLabels map[string]map[string]string, namespaces *nsTable, hash *uint64) []*FieldError {
	var errs []*FieldError
	bad := func(field string, value any, format string, args ...any) {
		errs = append(errs, problem("", field, value, format, args...))
	}
	if s.Kind != ServiceEntry && s.Kind != KubernetesService {
		bad("Kind", int(s.Kind), "unknown kind %d", int(s.Kind))
	}
	if s.Namespace == "" {
		bad("Namespace", "", "must not be empty")
	}
	if s.Name == "" {
		bad("Name", "", "must not be empty")
	}
	nsHash := maphash.String(ix.seed, s.Namespace)
	ns := namespaces.find(nsHash, s.Namespace)
	if ns == nil { // decide once per namespace
		ns = namespaces.add(nsInfo{name: s.Namespace, decision: ix.resolver.Resolve(labels.Set(nsLabels[s.Namespace])), hash: nsHash})
	}
	*hash = ix.hashName(ns.hash, s.Name)&^1 | uint64(s.Kind&1) // the kind rides in the low bit
	if s.Namespace != "" && len(s.ExportTo) > 0 {
		errs = append(errs, renamed(ValidateExportTo(s.Namespace, s.ExportTo), "ExportTo")...)
	}
	for j, h := range s.Hosts {
		if r := hostProblem(h); r != "" {
			bad(strict.Index("Hosts", j), h, "%q %s", h, r)
		}
	}
	for j, a := range s.Addresses {
		if _, _, err := parseAddress(a); err != nil {
			bad(strict.Index("Addresses", j), a, "%q is not an IP or CIDR", a)
		}
	}
	d := Decision{Visibility: Public, Policy: -1}
	if s.Kind == ServiceEntry {
		d = ns.decision
	}
	e := &ix.entries[i]
	e.decision = d
	e.exported = EffectiveExportTo(s.ExportTo, ix.meshDefault, s.Namespace, d.Visibility, ix.resolver.ApplyToSidecars())
	switch {
	case len(e.exported) != 1:
	case e.exported[0] == ExportToOwn:
		e.exported = ix.ownOnly
	case e.exported[0] == ExportToNone:
		e.exported = ix.noneOnly
	}
	return errs
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

// lookupTables returns the host and address tables, building them on first use.
func (ix *Index) lookupTables() *tables {
	ix.once.Do(func() { ix.t = ix.build() })
	return ix.t
}

// claim is one entry's claim on one candidate set.
type claim struct{ set, entry int32 }

// build indexes every host and address. Candidate lists live in one shared array, filled
// by a counting sort of the claims, so that building costs a few large allocations rather
// than one per host.
func (ix *Index) build() *tables {
	nh, na := 0, 0
	for i := range ix.entries {
		nh += len(ix.services[i].Hosts)
		na += len(ix.services[i].Addresses)
	}
	t := &tables{hosts: make(map[string]int32, nh), wild: map[string]int32{}, addrs: make(map[netip.Addr]int32, na), prefixes: map[netip.Prefix]int32{}}
	claims := make([]claim, 0, nh+na)
	var sets int32
	for i := range ix.entries {
		s := &ix.services[i]
		for _, h := range s.Hosts {
			h = normalizeHost(h)
			if suffix, ok := strings.CutPrefix(h, "*."); ok {
				claims = append(claims, claim{setOf(t.wild, suffix, &sets), int32(i)})
			} else {
				claims = append(claims, claim{setOf(t.hosts, h, &sets), int32(i)})
			}
		}
		for _, a := range s.Addresses {
			addr, pfx, _ := parseAddress(a)
			if addr.IsValid() {
				claims = append(claims, claim{setOf(t.addrs, addr, &sets), int32(i)})
			} else {
				claims = append(claims, claim{setOf(t.prefixes, pfx, &sets), int32(i)})
			}
		}
	}
	start := make([]int32, sets+1)
	for _, c := range claims {
		start[c.set+1]++
	}
	for k := 1; k < len(start); k++ {
		start[k] += start[k-1]
	}
	arena := make([]int32, len(claims))
	next := slices.Clone(start[:sets])
	for _, c := range claims {
		arena[next[c.set]] = c.entry
		next[c.set]++
	}
	t.sets = make([]candidates, sets)
	bests := make([]best, 0, len(claims))
	for k := range t.sets {
		c := &t.sets[k]
		c.all = arena[start[k]:start[k+1]:start[k+1]]
		bests = ix.rank(c, bests)
	}
	t.lengths4, t.lengths6 = prefixLengths(t.prefixes)
	return t
}

// setOf returns the candidate set of k in m, numbering a new one.
func setOf[K comparable](m map[K]int32, k K, sets *int32) int32 {
	c, ok := m[k]
	if !ok {
		c = *sets
		*sets++
		m[k] = c
	}
	return c
}

// rank orders a candidate set and precomputes its answers: the canonical entry, and each
// namespace's own visible entry, appended to the shared bests.
func (ix *Index) rank(c *candidates, bests []best) []best {
	if len(c.all) > 1 {
		slices.SortFunc(c.all, ix.compare)
		c.all = slices.Compact(c.all) // an entry that lists the same key twice
	}
	c.canonical = -1
	from := len(bests)
	var seen map[string]bool // for large sets; small ones are scanned
	if len(c.all) > 8 {
		seen = make(map[string]bool, len(c.all))
	}
	for _, i := range c.all {
		e := &ix.entries[i]
		if c.canonical < 0 && e.decision.Visibility == Public {
			c.canonical = i
		}
		if e.decision.Visibility == None {
			continue
		}
		ns := ix.services[i].Namespace
		if seen != nil {
			if seen[ns] {
				continue
			}
			seen[ns] = true
		} else if slices.ContainsFunc(bests[from:], func(b best) bool { return b.namespace == ns }) {
			continue
		}
		bests = append(bests, best{ns, i})
	}
	c.own = bests[from:len(bests):len(bests)]
	if len(c.own) > 1 {
		slices.SortFunc(c.own, func(a, b best) int { return strings.Compare(a.namespace, b.namespace) })
	}
	return bests
}

// compare is the total rank order: a Kubernetes Service before a ServiceEntry, then the
// older, then by namespace, then by name.
func (ix *Index) compare(a, b int32) int {
	x, y := &ix.services[a], &ix.services[b]
	if x.Kind != y.Kind {
		if x.Kind == KubernetesService {
			return -1
		}
		return 1
	}
	return cmp.Or(x.CreationTime.Compare(y.CreationTime), strings.Compare(x.Namespace, y.Namespace), strings.Compare(x.Name, y.Name))
}

// pick returns the entry that answers client from c, or -1.
func (c *candidates) pick(client string) int32 {
	if o := c.ownEntry(client); o >= 0 {
		return o
	}
	return c.canonical
}

func (c *candidates) ownEntry(client string) int32 {
	if client == "" {
		return -1
	}
	if len(c.own) == 1 {
		if c.own[0].namespace == client {
			return c.own[0].entry
		}
		return -1
	}
	if j, ok := slices.BinarySearchFunc(c.own, client, func(b best, ns string) int { return strings.Compare(b.namespace, ns) }); ok {
		return c.own[j].entry
	}
	return -1
}

func prefixLengths(m map[netip.Prefix]int32) (v4, v6 []int) {
	var seen4 [33]bool
	var seen6 [129]bool
	for p := range m {
		if p.Addr().Is4() {
			seen4[p.Bits()] = true
		} else {
			seen6[p.Bits()] = true
		}
	}
	for l := 32; l >= 0; l-- {
		if seen4[l] {
			v4 = append(v4, l)
		}
	}
	for l := 128; l >= 0; l-- {
		if seen6[l] {
			v6 = append(v6, l)
		}
	}
	return v4, v6
}

// hostProblem says why h is not a host: a DNS name, optionally starting with "*.", in any
// case and with an optional trailing dot. Valid hosts are checked in one pass; the reason
// for an invalid one is worked out only then.
func hostProblem(h string) string {
	if quickHost(h) {
		return ""
	}
	n := normalizeHost(h)
	if n == "*" {
		return "is a wildcard without a domain"
	}
	n = strings.TrimPrefix(n, "*.")
	if n == "" {
		return "is empty"
	}
	if r := names.Subdomain(n); r != "" {
		return "is not a DNS name: " + r
	}
	return ""
}

// quickHost reports whether h is certainly a valid host: labels of letters (any case),
// digits and inner '-', each 1 to 63 long, an optional leading "*." and trailing dot, at
// most 253 characters without them.
func quickHost(h string) bool {
	h = strings.TrimSuffix(h, ".")
	h = strings.TrimPrefix(h, "*.")
	if h == "" || len(h) > names.MaxSubdomain {
		return false
	}
	start := 0
	for i := 0; i <= len(h); i++ {
		if i < len(h) && h[i] != '.' {
			c := h[i] | 0x20 // lower-case letters; digits and '-' are unchanged
			if !('a' <= c && c <= 'z' || '0' <= h[i] && h[i] <= '9' || h[i] == '-') {
				return false
			}
			continue
		}
		if n := i - start; n == 0 || n > names.MaxLabel || h[start] == '-' || h[i-1] == '-' {
			return false
		}
		start = i + 1
	}
	return true
}

// normalizeHost lower-cases h and drops a trailing dot; it allocates only when it changes h.
func normalizeHost(h string) string {
	h = strings.TrimSuffix(h, ".")
	for i := 0; i < len(h); i++ {
		if 'A' <= h[i] && h[i] <= 'Z' {
			return strings.ToLower(h)
		}
	}
	return h
}

// parseAddress reads an IP (returned as addr) or a CIDR (returned as its masked prefix); a
// /32 or /128 CIDR is an IP. IPv4 mapped into IPv6 is unmapped.
func parseAddress(s string) (netip.Addr, netip.Prefix, error) {
	if a, err := netip.ParseAddr(s); err == nil {
		if a.Zone() != "" {
			return netip.Addr{}, netip.Prefix{}, errors.New("an IP with a zone")
		}
		return a.Unmap(), netip.Prefix{}, nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Addr{}, netip.Prefix{}, err
	}
	a, bits := p.Addr(), p.Bits()
	if a.Is4In6() && bits >= 96 {
		a, bits = a.Unmap(), bits-96
	}
	if bits == a.BitLen() {
		return a, netip.Prefix{}, nil
	}
	return netip.Addr{}, netip.PrefixFrom(a, bits).Masked(), nil
}

// lookupKey normalizes a queried host into buf without allocating; "" when it cannot be a
// host.
func lookupKey(host string, buf *[names.MaxSubdomain + 2]byte) string {
	if len(host) > len(buf) {
		return ""
	}
	n := copy(buf[:], host)
	if n > 0 && buf[n-1] == '.' {
		n--
	}
	changed := n != len(host)
	for i := 0; i < n; i++ {
		if c := buf[i]; 'A' <= c && c <= 'Z' {
			buf[i] = c + 'a' - 'A'
			changed = true
		}
	}
	if !changed {
		return host
	}
	return string(buf[:n]) // only reached for hosts that need normalizing
}

// LookupHost returns the service that answers a DNS query for host from a workload in
// namespace client, or false: the query is forwarded to the upstream resolver, as for a host
// the mesh does not know. It tries the exact host, then each wildcard level (*.b.c, then *.c),
// and at each level takes the client's own namespace's visible entry, else the canonical
// one (a Kubernetes Service, else the highest-ranked PUBLIC entry); a NAMESPACE entry of
// another namespace is never returned, nor a NONE entry. LookupHost does not allocate for a
// host in lower case without a trailing dot; other spellings are normalized on a copy.
func (ix *Index) LookupHost(client, host string) (Service, bool) {
	if e := ix.lookupHost(client, host); e >= 0 {
		return ix.services[e], true
	}
	return Service{}, false
}

func (ix *Index) lookupHost(client, host string) int32 {
	var buf [names.MaxSubdomain + 2]byte
	h := lookupKey(host, &buf)
	if h == "" {
		return -1
	}
	t := ix.lookupTables()
	if c, ok := t.hosts[h]; ok {
		if e := t.sets[c].pick(client); e >= 0 {
			return e
		}
	}
	for i := 0; i < len(h); i++ {
		if h[i] != '.' {
			continue
		}
		if c, ok := t.wild[h[i+1:]]; ok {
			if e := t.sets[c].pick(client); e >= 0 {
				return e
			}
		}
	}
	return -1
}

// LookupAddress returns the service that receives client's traffic to addr, or false: the
// traffic is unknown and passes through to its original destination. Entries claiming the
// exact address come first; if none is visible, entries whose CIDR contains it, the client's
// own namespace's first, then the longest prefix. LookupAddress does not allocate.
func (ix *Index) LookupAddress(client string, addr netip.Addr) (Service, bool) {
	if e := ix.lookupAddress(client, addr); e >= 0 {
		return ix.services[e], true
	}
	return Service{}, false
}

func (ix *Index) lookupAddress(client string, addr netip.Addr) int32 {
	if !addr.IsValid() {
		return -1
	}
	addr = addr.WithZone("").Unmap()
	t := ix.lookupTables()
	if c, ok := t.addrs[addr]; ok {
		if e := t.sets[c].pick(client); e >= 0 {
			return e
		}
	}
	lengths := t.lengths6
	if addr.Is4() {
		lengths = t.lengths4
	}
	if client != "" {
		for _, l := range lengths {
			p, _ := addr.Prefix(l)
			if c, ok := t.prefixes[p]; ok {
				if e := t.sets[c].ownEntry(client); e >= 0 {
					return e
				}
			}
		}
	}
	for _, l := range lengths {
		p, _ := addr.Prefix(l)
		if c, ok := t.prefixes[p]; ok && t.sets[c].canonical >= 0 {
			return t.sets[c].canonical
		}
	}
	return -1
}

func (ix *Index) find(namespace, name string) int32 {
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

// Service returns the service with this namespace and name (the ServiceEntry when a
// Kubernetes Service shares them).
func (ix *Index) Service(namespace, name string) (Service, bool) {
	if e := ix.find(namespace, name); e >= 0 {
		return ix.services[e], true
	}
	return Service{}, false
}

// Resolver returns the resolver the index was built with.
func (ix *Index) Resolver() *Resolver { return ix.resolver }

// Len returns the number of services in the index.
func (ix *Index) Len() int { return len(ix.entries) }

// Entries calls yield for every service in inventory order with its decision.
func (ix *Index) Entries(yield func(Service, Decision) bool) {
	for i := range ix.entries {
		if !yield(ix.services[i], ix.entries[i].decision) {
			return
		}
	}
}

// Namespaces returns every namespace of the inventory (those with labels and those with
// services), sorted. Read-only.
func (ix *Index) Namespaces() []string { return ix.namespaces }
