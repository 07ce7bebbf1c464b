package exports

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/fielderr"
)

// ServiceName is a concrete service: its partition, namespace and name. Empty partition and
// namespace mean "default".
type ServiceName struct {
	Partition string `json:"Partition,omitempty"`
	Namespace string `json:"Namespace,omitempty"`
	Name      string `json:"Name"`
}

// Canonical spells an empty partition or namespace "default".
func (s ServiceName) Canonical() ServiceName {
	return ServiceName{Partition: orDefault(s.Partition), Namespace: orDefault(s.Namespace), Name: s.Name}
}

// String returns "partition/namespace/name", canonical.
func (s ServiceName) String() string {
	c := s.Canonical()
	return c.Partition + "/" + c.Namespace + "/" + c.Name
}

// Short returns the name as meshscope writes it in messages, after Consul: the name alone
// when the partition and namespace are "default", else "partition/namespace/name".
func (s ServiceName) Short() string {
	c := s.Canonical()
	if c.Partition != defaultName || c.Namespace != defaultName {
		return c.String()
	}
	return c.Name
}

// Compare orders service names by partition, namespace and name, canonically.
func (s ServiceName) Compare(o ServiceName) int {
	a, b := s.Canonical(), o.Canonical()
	return cmp.Or(strings.Compare(a.Partition, b.Partition), strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
}

// Precedence is how exactly a rule names a service; a lower value is more exact.
type Precedence int

// The precedence levels, most exact first.
const (
	// Exact: the rule names the service in its namespace.
	Exact Precedence = iota + 1
	// WildcardName: the rule is "*" in the service's namespace.
	WildcardName
	// WildcardNamespace: the rule is "*" in "*".
	WildcardNamespace
)

// String returns "exact", "wildcard name" or "wildcard namespace".
func (p Precedence) String() string {
	switch p {
	case Exact:
		return "exact"
	case WildcardName:
		return "wildcard name"
	case WildcardNamespace:
		return "wildcard namespace"
	}
	return fmt.Sprintf("Precedence(%d)", int(p))
}

// Match is the one rule that applies to a service. When none does, Match returns false and
// a Match whose Rule is -1 (no index), as every "no index" of meshscope is spelt.
type Match struct {
	// Rule is the index of the rule in its partition's entry's Services.
	Rule       int        `json:"Rule"`
	Precedence Precedence `json:"Precedence"`
	// Consumers are the rule's consumers, in the entry's order.
	Consumers []Consumer `json:"Consumers"`
}

// Exports answers which rule exports a service, and to whom. It is built by Compile,
// immutable and safe for concurrent use.
//
// Who owns what: Match and Peers, the per-lookup hot path, do not allocate; the Consumers
// and peers they return are read-only views of the compiled rules, which the caller must not
// modify. Everything else — Entry, Partitions, ForPeer, Explain, Diff — returns fresh values
// the caller owns: changing them changes no later answer. The compiled rules share nothing
// with the entries given to Compile. Views are clipped to their length, so an append to one
// copies instead of writing into the compiled rules.
type Exports struct {
	parts      map[string]*partition
	partitions []string // sorted
}

type partition struct {
	entry   ConfigEntry         // normalized copy
	exact   map[ServiceName]int // namespace and name (no partition: the entry's) -> its exact rule
	anyName map[string]int      // namespace -> rule "*" in it
	all     int                 // rule "*" in "*", or -1
	rules   []rule
}

type rule struct {
	match   Match
	peers   []string        // peer consumers in order, without repeats
	peerSet map[string]bool // the same, for ForPeer
	from    []string        // per consumer of match, the sameness group it came from; nil when none did
}

// Compile validates the entries and indexes them; it is CompileGroups without sameness
// groups, so a consumer naming a sameness group is reported as an unknown group.
func Compile(entries ...ConfigEntry) (*Exports, error) { return CompileGroups(nil, entries...) }

// CompileGroups validates the sameness groups (ValidateSamenessGroups) and the entries and
// indexes them. At most one entry may govern a partition. A SamenessGroup consumer is
// expanded in place into the members of that group of the entry's partition, in member
// order (a peer member becomes a peer consumer, a partition member a partition consumer; the
// entry's own partition is dropped, and repeats keep the first), so Match, Peers, ForPeer and
// Diff see the members, never the group. Every problem is reported, each prefixed by the
// entry or group it is in:
//
//	entries[1] ("west"): Services[0]: must have at least one consumer
//	entries[2] ("default"): governs the same partition as entries[0]
//	entries[0] ("ap1"): Services[0].Consumers[1]: sameness group "g" is not defined in partition "ap1"
//
// The entries and groups are copied: later changes to them do not affect the result.
func CompileGroups(groups []SamenessGroup, entries ...ConfigEntry) (*Exports, error) {
	var c fielderr.Collector
	c.Put(ValidateSamenessGroups(groups))
	gix := newGroupIndex(groups)
	x := &Exports{parts: make(map[string]*partition, len(entries))}
	first := map[string]int{}
	for i, e := range entries {
		where := fmt.Sprintf("entries[%d] (%q)", i, e.Name)
		if err := e.Validate(); err != nil {
			c.Put(fielderr.In(where, err))
			continue
		}
		if k, dup := first[e.Name]; dup {
			c.Put(&FieldError{Where: where, Value: e.Name, Detail: fmt.Sprintf("governs the same partition as entries[%d]; one entry per partition", k), Err: ErrDuplicateEntry})
			continue
		}
		first[e.Name] = i
		if err := unknownGroups(e, gix); err != nil {
			c.Put(fielderr.In(where, err))
			continue
		}
		x.parts[e.Name] = newPartition(e, gix)
		x.partitions = append(x.partitions, e.Name)
	}
	if err := c.Err(); err != nil {
		return nil, err
	}
	slices.Sort(x.partitions)
	return x, nil
}

// unknownGroups reports every SamenessGroup consumer of e naming no group of e's partition.
func unknownGroups(e ConfigEntry, gix groupIndex) error {
	var c fielderr.Collector
	for i, s := range e.Services {
		for j, cons := range s.Consumers {
			if cons.SamenessGroup != "" && gix.find(e.Name, cons.SamenessGroup) == nil {
				c.Add(fmt.Sprintf("Services[%d].Consumers[%d]", i, j), cons.SamenessGroup,
					fmt.Sprintf("sameness group %q is not defined in partition %q", cons.SamenessGroup, e.Name), ErrUnknownSamenessGroup)
			}
		}
	}
	return c.Err()
}

func newPartition(e ConfigEntry, gix groupIndex) *partition {
	e = e.clone()
	e.Normalize()
	p := &partition{entry: e, exact: map[ServiceName]int{}, anyName: map[string]int{}, all: -1, rules: make([]rule, len(e.Services))}
	for i, s := range e.Services {
		consumers, from := gix.expand(e.Name, s.Consumers)
		r := rule{match: Match{Rule: i, Consumers: slices.Clip(consumers)}, from: from, peerSet: map[string]bool{}}
		for _, c := range consumers {
			if c.Peer != "" && !r.peerSet[c.Peer] {
				r.peerSet[c.Peer] = true
				r.peers = append(r.peers, c.Peer)
			}
		}
		switch {
		case s.Namespace == Wildcard:
			r.match.Precedence = WildcardNamespace
			p.all = i
		case s.Name == Wildcard:
			r.match.Precedence = WildcardName
			p.anyName[s.Namespace] = i
		default:
			r.match.Precedence = Exact
			p.exact[ServiceName{Namespace: s.Namespace, Name: s.Name}] = i
		}
		r.peers = slices.Clip(r.peers)
		p.rules[i] = r
	}
	return p
}

// concrete reports whether s names one service (no wildcard, no empty name).
func concrete(s ServiceName) bool {
	return s.Name != "" && s.Name != Wildcard && s.Namespace != Wildcard && s.Partition != Wildcard
}

// lookup returns the partition and the index of the rule that applies to s, or -1.
func (x *Exports) lookup(s ServiceName) (*partition, int) {
	if x == nil || !concrete(s) || s.Name == ReservedService {
		return nil, -1
	}
	p := x.parts[orDefault(s.Partition)]
	if p == nil {
		return nil, -1
	}
	ns := orDefault(s.Namespace)
	if i, ok := p.exact[ServiceName{Namespace: ns, Name: s.Name}]; ok {
		return p, i
	}
	if i, ok := p.anyName[ns]; ok {
		return p, i
	}
	return p, p.all
}

// Match returns the single most exact rule that applies to the service: the rule naming it
// in its namespace, else "*" in its namespace, else "*" in "*". It returns false when no rule
// applies, for the reserved service "consul", and for names that are not one concrete
// service (empty, or "*"). Consumers of other rules that would also match are never merged
// in. Match is O(1) and does not allocate: the returned Consumers are a read-only view of
// the compiled rule (see Exports).
func (x *Exports) Match(s ServiceName) (Match, bool) {
	p, i := x.lookup(s)
	if i < 0 {
		return Match{Rule: -1}, false
	}
	return p.rules[i].match, true
}

// Peers returns the peers the service is exported to: the peer consumers of its one rule, in
// rule order, without repeats; nil when the service is not exported to a peer. It does not
// allocate: the slice is a read-only view (see Exports).
func (x *Exports) Peers(s ServiceName) []string {
	p, i := x.lookup(s)
	if i < 0 {
		return nil
	}
	return p.rules[i].peers
}

// MatchPeer returns the one rule that applies to the service (see Match) when it names the
// peer among its consumers, and false otherwise: the service is exported to the peer exactly
// when MatchPeer returns true. It is O(1) and does not allocate.
func (x *Exports) MatchPeer(s ServiceName, peer string) (Match, bool) {
	p, i := x.lookup(s)
	if i < 0 || !p.rules[i].peerSet[peer] {
		return Match{Rule: -1}, false
	}
	return p.rules[i].match, true
}

// UnionMatch is Consul's union reading for a service the one rule does not export to the
// peer: it returns the most exact other rule that matches the service and names the peer,
// by which Consul would still replicate it to that peer (Consul replicates, and lists in
// /v1/exported-services, the union of every rule naming a peer). It returns false when the
// one rule names the peer, or no rule that matches the service does.
func (x *Exports) UnionMatch(s ServiceName, peer string) (Match, bool) {
	p, i := x.lookup(s)
	if i < 0 || p.rules[i].peerSet[peer] {
		return Match{Rule: -1}, false
	}
	anyName, ok := p.anyName[s.Canonical().Namespace]
	if !ok {
		anyName = -1
	}
	for _, j := range [...]int{anyName, p.all} { // the rules less exact than an exact one
		if j >= 0 && j != i && p.rules[j].peerSet[peer] {
			return p.rules[j].match, true
		}
	}
	return Match{Rule: -1}, false
}

// PeersIn returns every peer a rule of the partition's entry names ("" means "default"),
// sameness groups expanded into their members, sorted; nil when the partition has no entry.
func (x *Exports) PeersIn(partition string) []string {
	if x == nil {
		return nil
	}
	p := x.parts[orDefault(partition)]
	if p == nil {
		return nil
	}
	var out []string
	for _, r := range p.rules {
		out = append(out, r.peers...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ForPeer returns the services of the catalog that peer receives — those whose rule names
// the peer — canonical, without repeats, sorted by partition, namespace and name. The
// reserved service "consul" is never among them.
func (x *Exports) ForPeer(peer string, catalog []ServiceName) []ServiceName {
	var out []ServiceName
	for _, s := range catalog {
		if _, ok := x.MatchPeer(s, peer); ok {
			out = append(out, s.Canonical())
		}
	}
	return sortUnique(out)
}

func sortUnique(s []ServiceName) []ServiceName {
	slices.SortFunc(s, ServiceName.Compare)
	return slices.Compact(s)
}

// Partitions returns the partitions that have an entry, sorted.
func (x *Exports) Partitions() []string {
	if x == nil {
		return nil
	}
	return slices.Clone(x.partitions)
}

// Entry returns a normalized copy of the entry governing partition ("" means "default"). The
// copy is the caller's: changing it changes nothing in x.
func (x *Exports) Entry(partition string) (*ConfigEntry, bool) {
	if x == nil {
		return nil, false
	}
	p := x.parts[orDefault(partition)]
	if p == nil {
		return nil, false
	}
	e := p.entry.clone()
	return &e, true
}
