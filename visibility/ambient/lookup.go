package ambient

import (
	"cmp"
	"hash/maphash"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/hosts"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/inventory"
)

// tables are the lookup structures, built by New: tables from a host, a wildcard's suffix, an
// address or a CIDR to its candidate set, and the sets, kept in a few shared arrays. The exact
// hosts and addresses, one or more an entry, are keyTables; the wildcards and CIDRs, which
// few entries have, Go maps.
type tables struct {
	seed     maphash.Seed         // what hosts and addrs hash with
	hosts    keyTable[string]     // exact host -> candidate set (entries with an address for it)
	wild     map[string]int32     // what follows a wildcard's "*" (".b.c", "x.b.c") -> candidate set
	dnsLens  lengthSet            // the lengths of wild's *. keys: where a DNS lookup probes
	allLens  []wildLen            // every key's, partial ones and those in mute too: what explanations show
	addrs    keyTable[netip.Addr] // exact address (without a zone) -> candidate set
	mute     map[string][]int32
	prefixes map[netip.Prefix]int32
	lengths4 []int // prefix lengths present, longest first
	lengths6 []int
	sets     []candidates
	kinds    []setKind // parallel to sets: what each set's key is
	arena    []int32   // every set's entries, in rank order: candidates.all
	bests    []best    // every set's own entries: candidates.own
}

// mute maps a host (or a wildcard host) to the entries that claim it without an address for
// it: ztunnel's DNS proxy does not answer for them, so they are kept for explanations only.

// candidates are the entries that claim one host, address or prefix, as spans of the
// tables' shared arrays.
type candidates struct {
	all       span  // in arena, in rank order
	own       span  // in bests: per namespace, its first entry visible to it; sorted by namespace
	canonical int32 // first entry visible to every namespace, or -1; undetermined when the release leaves it to ztunnel's arrival order
}

type span struct{ start, end int32 }

type best struct {
	namespace string
	entry     int32
}

// single marks a set of one entry, which is kept in the key's map value rather than in
// sets: a set number at or above single is the entry single+e (an index holds fewer than
// 2^30 entries and sets). Most hosts and addresses have one entry, and so cost nothing but
// their map entry.
const single = 1 << 30

// all returns the entries of set c, in rank order.
func (t *tables) all(c int32) []int32 {
	if c >= single {
		return []int32{c - single}
	}
	sp := t.sets[c].all
	return t.arena[sp.start:sp.end:sp.end]
}

// canonical returns the first entry of set c visible to every namespace, or -1.
func (ix *Index) canonical(c int32) int32 {
	if c >= single {
		if e := c - single; ix.decisions[e].Visibility == visibility.Public && ix.delivered(e) {
			return e
		}
		return -1
	}
	return ix.t.sets[c].canonical
}

// claim is one entry's claim on one candidate set.
type claim struct{ set, entry int32 }

// pending gathers the tables while New enters the entries, which claim their keys, and
// the claims on sets of more than one entry.
type pending struct {
	t      *tables
	hosts  claimList[string]
	addrs  claimList[netip.Addr]
	claims []claim
	sets   int32 // sets numbered so far
}

// setKind says what a candidate set's key is: a host (exact or wildcard), an exact address,
// or a CIDR. Some releases rank the entries claiming a host and those claiming an address
// differently (see rankFor).
type setKind uint8

const (
	hostSet setKind = iota
	addressSet
	prefixSet
)

// newPending returns tables sized for n entries of a host and an address each, hashing
// with seed.
func newPending(n int, seed maphash.Seed) *pending {
	return &pending{
		t:     &tables{seed: seed, wild: map[string]int32{}, prefixes: map[netip.Prefix]int32{}},
		hosts: newClaimList[string](n), addrs: newClaimList[netip.Addr](n),
	}
}

// claimKey records entry e's claim on key k of m: the key's first entry is kept in m as a
// set of one (see single); a second entry numbers a set and claims it for both; later ones
// claim it.
func claimKey[K comparable](p *pending, m map[K]int32, k K, e int32, kind setKind) {
	c, ok := m[k]
	switch {
	case !ok:
		m[k] = single + e
	case c == single+e: // the entry lists the key twice
	case c >= single:
		p.claims = append(p.claims, claim{p.sets, c - single}, claim{p.sets, e})
		m[k] = p.sets
		p.t.kinds = append(p.t.kinds, kind)
		p.sets++
	default:
		p.claims = append(p.claims, claim{c, e})
	}
}

// host records entry i's claim on its host spec (as written), normalized. A host is claimed
// only by the entries that have an address for it (or are headless Kubernetes Services):
// ztunnel answers only for those.
func (p *pending) host(i int32, s *inventory.Service, spec string) {
	h := hosts.Normalize(spec)
	switch suffix, wild := cutWildcard(h); {
	case !s.AnswersFor(spec):
		if p.t.mute == nil {
			p.t.mute = map[string][]int32{}
		}
		p.t.mute[h] = append(p.t.mute[h], i)
	case wild:
		claimKey(p, p.t.wild, suffix, i, hostSet)
	default:
		p.hosts.add(hostHash(p.t.seed, h), h, i)
	}
}

// address records entry i's claim on an address or a CIDR, in its canonical form (see
// hosts.Canonical).
func (p *pending) address(i int32, a netip.Prefix) {
	if a = hosts.Canonical(a); a.IsSingleIP() {
		p.addrs.add(addrHash(p.t.seed, a.Addr()), a.Addr(), i)
	} else {
		claimKey(p, p.t.prefixes, a, i, prefixSet)
	}
}

// tables ranks every candidate set. The sets' entries live in one shared array, filled by a
// counting sort of the claims, so that building costs a few large allocations rather than
// one per key.
func (ix *Index) tables(p *pending) *tables {
	p.t.hosts = p.hosts.table(p, hostSet)
	p.t.addrs = p.addrs.table(p, addressSet)
	t, sets, claims := p.t, p.sets, p.claims
	start := make([]int32, sets+1)
	for _, c := range claims {
		start[c.set+1]++
	}
	for k := 1; k < len(start); k++ {
		start[k] += start[k-1]
	}
	t.arena = make([]int32, len(claims))
	next := slices.Clone(start[:sets])
	for _, c := range claims {
		t.arena[next[c.set]] = c.entry
		next[c.set]++
	}
	t.sets = make([]candidates, sets)
	for k := range t.sets {
		t.sets[k].all = span{start[k], start[k+1]}
		t.rank(ix, &t.sets[k], t.kinds[k])
	}
	var muteWild []string
	for h, list := range t.mute {
		slices.SortFunc(list, ix.compare)
		if s, wild := cutWildcard(h); wild {
			muteWild = append(muteWild, s)
		}
	}
	wild := slices.Collect(maps.Keys(t.wild))
	t.dnsLens = dottedLengths(wild)
	t.allLens = wildLengths(wild, muteWild)
	t.lengths4, t.lengths6 = prefixLengths(t.prefixes)
	return t
}

// rank orders a candidate set of kind and precomputes its answers: the canonical entry, and
// each namespace's own visible entry, appended to bests — as the index's release ranks them
// (rankFor), entries ztunnel never receives left out.
func (t *tables) rank(ix *Index, c *candidates, kind setKind) {
	all := t.arena[c.all.start:c.all.end]
	if len(all) > 1 {
		slices.SortFunc(all, ix.compare)
		c.all.end = c.all.start + int32(len(slices.Compact(all))) // an entry that lists the same key twice
		all = t.arena[c.all.start:c.all.end]
	}
	c.canonical = -1
	from := len(t.bests)
	own := ix.prefersOwn(all, kind)
	var seen map[string]bool // for large sets; small ones are scanned
	if len(all) > 8 {
		seen = make(map[string]bool, len(all))
	}
	for _, i := range all {
		vis := ix.decisions[i].Visibility
		if !ix.delivered(i) {
			continue
		}
		if c.canonical < 0 && vis == visibility.Public {
			c.canonical = i
		}
		if vis == visibility.None || !own {
			continue
		}
		ns := ix.services[i].Namespace
		if seen != nil {
			if seen[ns] {
				continue
			}
			seen[ns] = true
		} else if slices.ContainsFunc(t.bests[from:], func(b best) bool { return b.namespace == ns }) {
			continue
		}
		t.bests = append(t.bests, best{ns, i})
	}
	c.own = span{int32(from), int32(len(t.bests))}
	c.canonical = ix.canonicalFor(c.canonical, all, kind)
	if own := t.bests[from:]; len(own) > 1 {
		slices.SortFunc(own, func(a, b best) int { return strings.Compare(a.namespace, b.namespace) })
	}
}

// compare is the total rank order: a Kubernetes Service before a ServiceEntry, then the
// older, then by namespace, then by name.
func (ix *Index) compare(a, b int32) int {
	x, y := &ix.services[a], &ix.services[b]
	if x.Kind != y.Kind {
		if x.Kind == inventory.KubernetesService {
			return -1
		}
		return 1
	}
	return cmp.Or(x.CreationTime.Compare(y.CreationTime), strings.Compare(x.Namespace, y.Namespace), strings.Compare(x.Name, y.Name))
}

// pick returns the entry of set c that answers client, or -1; undetermined when the release
// leaves the answer to the order ztunnel received the entries in.
func (ix *Index) pick(c int32, client string) int32 {
	if o := ix.ownEntry(c, client); o >= 0 {
		return o
	}
	return ix.canonical(c)
}

// ownEntry returns the first entry of set c of client's own namespace visible to it, or -1.
func (ix *Index) ownEntry(c int32, client string) int32 {
	if client == "" {
		return -1
	}
	if c >= single {
		if e := c - single; ix.services[e].Namespace == client && ix.decisions[e].Visibility != visibility.None && ix.delivered(e) {
			return e
		}
		return -1
	}
	t := ix.t
	sp := t.sets[c].own
	own := t.bests[sp.start:sp.end]
	if len(own) == 1 {
		if own[0].namespace == client {
			return own[0].entry
		}
		return -1
	}
	if j, ok := slices.BinarySearchFunc(own, client, func(b best, ns string) int { return strings.Compare(b.namespace, ns) }); ok {
		return own[j].entry
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
//   - only services with an address for the host answer (see
//     inventory.Service.AddressesFor; a headless Kubernetes Service answers without one);
//   - the query is tried as given, then as its short-name aliases (see the package
//     documentation), the first answer winning;
//   - each name tries the exact host, then the *. wildcard at each of its label boundaries,
//     the most specific first — for a.b.c: *.b.c, then *.c — and at each level takes the
//     client's own namespace's visible entry, else the canonical one (a Kubernetes Service,
//     else the highest-ranked PUBLIC entry); a NAMESPACE entry of another namespace is never
//     returned, nor a NONE entry.
//
// *.b.c matches a.b.c and x.a.b.c but not b.c. A partial wildcard host (*x.b.c, which Istio
// accepts and its sidecars and waypoints match against every host ending in x.b.c) never
// answers a DNS query: ztunnel's DNS proxy tries only the *. wildcards at a query's label
// boundaries, so a query for ax.b.c goes on to *.b.c and *.c, then upstream. ExplainHost
// shows such a host's entries as not reached, saying why, and Lint flags them
// (PartialWildcardDNS). The sidecar view (package visibility/sidecar) matches them as Istio
// does.
//
// False also when the release leaves the answer to the order ztunnel received the candidates
// in (1.28, a host several namespaces claim and no Kubernetes Service has): AnswerHost says
// so. LookupHost does not allocate, and tries only the wildcard lengths the index holds. The
// Service returned shares its slices and maps with the index: read-only.
func (ix *Index) LookupHost(client, host string) (inventory.Service, bool) {
	if e, _ := ix.lookupHost(client, host); e >= 0 {
		return ix.services[e], true
	}
	return inventory.Service{}, false
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
	if e := ix.lookupName(client, h); e != -1 {
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
		if e := ix.lookupName(client, l.name(k)); e != -1 {
			return e, k + 1
		}
	}
	return -1, -1
}

// lookupName looks one name up: the exact host, then each wildcard level, longest first.
func (ix *Index) lookupName(client string, h []byte) int32 {
	t := ix.t
	var c int32
	var ok bool
	if h[0] == '*' && len(h) > 1 { // the query is a wildcard host's name itself: exactly that host
		c, ok = t.wild[string(h[1:])]
	} else {
		c, ok = t.hostBytes(h)
	}
	if ok {
		if e := ix.pick(c, client); e != -1 {
			return e
		}
	}
	if t.dnsLens.empty() {
		return -1
	}
	for i := 1; i < len(h); i++ { // each label boundary, the longest suffix first
		if h[i] != '.' || !t.dnsLens.has(len(h)-i) || i == 1 && h[0] == '*' { // (the query itself: tried above)
			continue
		}
		if c, ok := t.wild[string(h[i:])]; ok {
			if e := ix.pick(c, client); e != -1 {
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
// longest prefix. The queried address is looked up as ztunnel looks up a connection's
// destination, canonical (ztunnel's socket to_canonical): an IPv4 address mapped into IPv6,
// ::ffff:10.0.0.1, is 10.0.0.1; an entry's own address written IPv4-mapped stays the IPv6
// address Istio sends ztunnel, which no destination address reaches. False also when the
// release leaves the answer to the order ztunnel received the candidates in (before 1.30, an
// address several entries claim): AnswerAddress says so. LookupAddress does not allocate;
// the Service is read-only.
func (ix *Index) LookupAddress(client string, addr netip.Addr) (inventory.Service, bool) {
	if e := ix.lookupAddress(client, addr); e >= 0 {
		return ix.services[e], true
	}
	return inventory.Service{}, false
}

func (ix *Index) lookupAddress(client string, addr netip.Addr) int32 {
	if !addr.IsValid() || ix == nil || ix.t == nil {
		return -1
	}
	addr = addr.WithZone("").Unmap()
	t := ix.t
	if c, ok := t.addr(addr); ok {
		if e := ix.pick(c, client); e != -1 {
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
				if e := ix.ownEntry(c, client); e >= 0 {
					return e
				}
			}
		}
	}
	for _, l := range lengths {
		p, _ := addr.Prefix(l)
		if c, ok := t.prefixes[p]; ok && ix.canonical(c) >= 0 {
			return ix.canonical(c)
		}
	}
	return -1
}
