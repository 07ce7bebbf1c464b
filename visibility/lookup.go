package visibility

import (
	"cmp"
	"net/netip"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/names"
)

// tables are the lookup structures, built by NewIndex.
type tables struct {
	hosts    map[string]int32 // exact host -> candidate set (entries with an address for it)
	wild     map[string]int32 // "b.c" for "*.b.c" -> candidate set
	mute     map[string][]int32
	addrs    map[netip.Addr]int32
	prefixes map[netip.Prefix]int32
	lengths4 []int // prefix lengths present, longest first
	lengths6 []int
	sets     []candidates
}

// mute maps a host (or "*.b.c") to the entries that claim it without an address for it:
// ztunnel's DNS proxy does not answer for them, so they are kept for explanations only.

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

// claim is one entry's claim on one candidate set.
type claim struct{ set, entry int32 }

// build indexes every host and address. Candidate lists live in one shared array, filled
// by a counting sort of the claims, so that building costs a few large allocations rather
// than one per host. A host is claimed only by the entries that have an address for it (or
// are headless Kubernetes Services): ztunnel answers only for those.
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
			if !s.answersFor(h) {
				if t.mute == nil {
					t.mute = map[string][]int32{}
				}
				t.mute[h] = append(t.mute[h], int32(i))
				continue
			}
			if suffix, ok := strings.CutPrefix(h, "*."); ok {
				claims = append(claims, claim{setOf(t.wild, suffix, &sets), int32(i)})
			} else {
				claims = append(claims, claim{setOf(t.hosts, h, &sets), int32(i)})
			}
		}
		for _, a := range s.allAddresses() {
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
	for _, list := range t.mute {
		slices.SortFunc(list, ix.compare)
	}
	t.lengths4, t.lengths6 = prefixLengths(t.prefixes)
	return t
}

// allAddresses returns every address of the service: its own, else (auto-allocating) those
// Istio allocated for each of its hosts under the wildcard rule of AddressesFor.
func (s *Service) allAddresses() []string {
	if !s.autoAllocates() || len(s.AutoAddresses) == 0 {
		return s.Addresses
	}
	var out []string
	for _, h := range s.Hosts {
		out = append(out, s.AddressesFor(h)...)
	}
	return out
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

// nameBuf holds a host being looked up, and the aliases built from it, without allocating:
// a DNS name and the longest suffix a short name gains.
type nameBuf [2*names.MaxSubdomain + 8]byte

// normalizeInto writes host into buf in lower case without a trailing dot; nil when it
// cannot be a host.
func normalizeInto(host string, buf *nameBuf) []byte {
	if len(host) > names.MaxSubdomain+1 {
		return nil
	}
	n := copy(buf[:], host)
	if n > 0 && buf[n-1] == '.' {
		n--
	}
	for i := 0; i < n; i++ {
		if c := buf[i]; 'A' <= c && c <= 'Z' {
			buf[i] = c + 'a' - 'A'
		}
	}
	return buf[:n]
}

// LookupHost returns the service that answers a DNS query for host from a workload in
// namespace client, or false: the query is forwarded to the upstream resolver, as for a host
// the mesh does not know. It answers as ztunnel's DNS proxy does:
//
//   - only services with an address for the host answer (see Service.AddressesFor; a
//     headless Kubernetes Service answers without one);
//   - the query is tried as given, then as its short-name aliases (see Aliases), the first
//     answer winning;
//   - each name tries the exact host, then each wildcard level (*.b.c, then *.c), and at
//     each level takes the client's own namespace's visible entry, else the canonical one
//     (a Kubernetes Service, else the highest-ranked PUBLIC entry); a NAMESPACE entry of
//     another namespace is never returned, nor a NONE entry.
//
// LookupHost does not allocate. The Service returned shares its slices and maps with the
// index: read-only.
func (ix *Index) LookupHost(client, host string) (Service, bool) {
	if e, _ := ix.lookupHost(client, host); e >= 0 {
		return ix.services[e], true
	}
	return Service{}, false
}

// lookupHost returns the entry that answers, and the index of the alias that reached it
// (0 for the query as given), or -1.
func (ix *Index) lookupHost(client, host string) (int32, int) {
	if ix == nil || ix.t == nil {
		return -1, -1
	}
	var buf nameBuf
	h := normalizeInto(host, &buf)
	if len(h) == 0 {
		return -1, -1
	}
	if e := ix.lookupName(client, h); e >= 0 {
		return e, 0
	}
	if !ix.hasAliases(client, h) {
		return -1, -1
	}
	return ix.lookupAliases(client, h)
}

// lookupAliases tries the aliases of the normalized query h, in order.
func (ix *Index) lookupAliases(client string, h []byte) (int32, int) {
	var l aliasList
	ix.aliases(client, h, &l)
	for k := range l.n {
		if e := ix.lookupName(client, l.name(k)); e >= 0 {
			return e, k + 1
		}
	}
	return -1, -1
}

// lookupName looks one name up: the exact host, then each wildcard level.
func (ix *Index) lookupName(client string, h []byte) int32 {
	t := ix.t
	if c, ok := t.hosts[string(h)]; ok { // no allocation: the compiler looks the bytes up
		if e := t.sets[c].pick(client); e >= 0 {
			return e
		}
	}
	for i := 0; i < len(h); i++ {
		if h[i] != '.' {
			continue
		}
		if c, ok := t.wild[string(h[i+1:])]; ok {
			if e := t.sets[c].pick(client); e >= 0 {
				return e
			}
		}
	}
	return -1
}

// LookupAddress returns the service that receives client's traffic to addr, or false: the
// traffic is unknown and passes through to its original destination. Entries claiming the
// exact address come first (addresses Istio allocated count as the entry's); if none is
// visible, entries whose CIDR contains it, the client's own namespace's first, then the
// longest prefix. LookupAddress does not allocate; the Service is read-only.
func (ix *Index) LookupAddress(client string, addr netip.Addr) (Service, bool) {
	if e := ix.lookupAddress(client, addr); e >= 0 {
		return ix.services[e], true
	}
	return Service{}, false
}

func (ix *Index) lookupAddress(client string, addr netip.Addr) int32 {
	if !addr.IsValid() || ix == nil || ix.t == nil {
		return -1
	}
	addr = addr.WithZone("").Unmap()
	t := ix.t
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
