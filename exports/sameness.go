package exports

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/meshscope/meshscope/internal/entryhead"
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/internal/strict"
)

// SamenessGroupKind is the config entry kind of a sameness group.
const SamenessGroupKind = "sameness-group"

// SamenessGroup is a Consul sameness-group config entry: the partitions and cluster peers
// that hold "the same" services, in order of preference. Exported-services consumers and
// service-resolver failover and redirects can name a group instead of listing its members.
// Field names and JSON are Consul's, so `consul config read -kind sameness-group -name <g>`
// output unmarshals directly.
//
// Sameness groups are a Consul Enterprise feature (Consul CE refuses them with "sameness-groups
// are an enterprise-only feature"); meshscope implements them as Enterprise documents them.
type SamenessGroup struct {
	Kind string `json:"Kind,omitempty"`
	Name string `json:"Name"`
	// Partition is the partition the group belongs to ("" means "default"). Groups have no
	// namespace.
	Partition string `json:"Partition,omitempty"`
	// DefaultForFailover makes the group the failover of every service of the partition that
	// has no service-resolver entry at all.
	DefaultForFailover bool `json:"DefaultForFailover,omitempty"`
	// IncludeLocal puts the group's own partition first among its members.
	IncludeLocal bool              `json:"IncludeLocal,omitempty"`
	Members      []SamenessMember  `json:"Members"`
	Meta         map[string]string `json:"Meta,omitempty"`
	// CreateIndex and ModifyIndex are Consul's read-only Raft indexes (`consul config read`
	// always prints them), kept so that an entry encodes back to the same JSON.
	CreateIndex uint64 `json:"CreateIndex,omitempty"`
	ModifyIndex uint64 `json:"ModifyIndex,omitempty"`
}

// SamenessMember is one member of a sameness group: a local partition or a cluster peer.
type SamenessMember struct {
	Partition string `json:"Partition,omitempty"`
	Peer      string `json:"Peer,omitempty"`
}

// String returns "partition ap2" or "peer east".
func (m SamenessMember) String() string {
	if m.Peer != "" {
		return "peer " + m.Peer
	}
	return "partition " + m.Partition
}

// ID returns the group as "partition/name", canonical.
func (g *SamenessGroup) ID() string { return orDefault(g.Partition) + "/" + g.Name }

// OrderedMembers returns the members in failover order: with IncludeLocal the group's own
// partition first, then Members as written, partitions canonical ("" spelled "default").
func (g *SamenessGroup) OrderedMembers() []SamenessMember {
	out := make([]SamenessMember, 0, len(g.Members)+1)
	if g.IncludeLocal {
		out = append(out, SamenessMember{Partition: orDefault(g.Partition)})
	}
	for _, m := range g.Members {
		if m.Peer == "" {
			m.Partition = orDefault(m.Partition)
		}
		out = append(out, m)
	}
	return out
}

// Validate reports every problem in the group, each prefixed by its path:
//
//	Name: is required
//	Members: must have at least one member
//	Members[1]: must define one of Partition or Peer
//	Members[2]: duplicate of Members[0]
//	Members: the local partition "ap1" must be a member unless IncludeLocal is true
//
// Beyond what Consul checks, the name must be a lowercase DNS label, a member cannot be "*",
// and a peer name must be a lowercase DNS label.
func (g *SamenessGroup) Validate() error {
	var c fielderr.Collector
	if g.Kind != "" && g.Kind != SamenessGroupKind {
		c.Add("Kind", g.Kind, fmt.Sprintf("must be %q, got %q", SamenessGroupKind, g.Kind), nil)
	}
	switch {
	case g.Name == "":
		c.Add("Name", g.Name, "is required", nil)
	case !names.IsLabel(g.Name):
		c.Add("Name", g.Name, fmt.Sprintf("%q %s", g.Name, names.Label(g.Name)), nil)
	}
	if len(g.Members) == 0 {
		c.Add("Members", nil, "must have at least one member", nil)
	}
	local := orDefault(g.Partition)
	seen := make(map[SamenessMember]int, len(g.Members))
	listsLocal := false
	for i, m := range g.Members {
		path := strict.Index("Members", i)
		switch {
		case m.Partition == "" && m.Peer == "":
			c.Add(path, m, "must define one of Partition or Peer", nil)
			continue
		case m.Partition != "" && m.Peer != "":
			c.Add(path, m, "must define at most one of Partition or Peer", nil)
			continue
		case m.Partition == Wildcard || m.Peer == Wildcard:
			c.Add(path, m, "a member cannot be \"*\": list each partition and peer", nil)
			continue
		case m.Peer != "" && !names.IsLabel(m.Peer):
			c.Add(path, m.Peer, fmt.Sprintf("peer name %q must be a lowercase DNS label (%s)", m.Peer, names.Label(m.Peer)), nil)
		}
		if m.Partition == local {
			listsLocal = true
			if g.IncludeLocal {
				c.Add(path, m.Partition, "the local partition is already included by IncludeLocal", nil)
			}
		}
		if k, dup := seen[m]; dup {
			c.Add(path, m, fmt.Sprintf("duplicate of Members[%d]", k), nil)
			continue
		}
		seen[m] = i
	}
	if g.DefaultForFailover && !g.IncludeLocal && !listsLocal {
		c.Add("Members", nil, fmt.Sprintf("the local partition %q must be a member unless IncludeLocal is true", local), nil)
	}
	return c.Err()
}

// ValidateSamenessGroups validates each group and the groups together, reporting every
// problem, each prefixed by its group: "SamenessGroups[1] (default/g2): …". Across the
// groups of one partition (groups of different partitions are never compared): a partition
// or a peer belongs to at most one group, the partition IncludeLocal adds counting as a
// member; at most one group is DefaultForFailover; no two groups share a name. In a message
// naming two groups, the first is the earlier one. Consul reports only the first of these.
func ValidateSamenessGroups(groups []SamenessGroup) error {
	var c fielderr.Collector
	type owner struct {
		name string
		pos  int
	}
	type memberKey struct {
		partition string // the groups' partition
		m         SamenessMember
	}
	byName := map[[2]string]int{}
	memberOf := map[memberKey]owner{}
	dff := map[string][]string{} // partition -> DefaultForFailover groups, in order
	dffAt := map[string]int{}    // partition -> position of its second DFF group
	for i := range groups {
		g := &groups[i]
		where := groupWhere(i, g)
		if err := g.Validate(); err != nil {
			c.Put(fielderr.In(where, err))
			continue
		}
		p := orDefault(g.Partition)
		if k, dup := byName[[2]string{p, g.Name}]; dup {
			c.Put(&FieldError{Where: where, Field: "Name", Value: g.Name, Detail: fmt.Sprintf("duplicate of SamenessGroups[%d]: one group per name in a partition", k), Err: ErrDuplicateEntry})
			continue
		}
		byName[[2]string{p, g.Name}] = i
		for _, m := range g.OrderedMembers() {
			k := memberKey{p, m}
			if prev, taken := memberOf[k]; taken {
				what := fmt.Sprintf("partition %q", m.Partition)
				if m.Peer != "" {
					what = fmt.Sprintf("cluster peer %q", m.Peer)
				}
				c.Put(&FieldError{Where: where, Field: "Members", Value: m, Detail: fmt.Sprintf("members can only belong to a single sameness group, but %s is shared between groups %q and %q", what, prev.name, g.Name)})
				continue
			}
			memberOf[k] = owner{g.Name, i}
		}
		if g.DefaultForFailover {
			dff[p] = append(dff[p], g.Name)
			if len(dff[p]) == 2 {
				dffAt[p] = i
			}
		}
	}
	for _, p := range slices.Sorted(maps.Keys(dffAt)) {
		quoted := make([]string, len(dff[p]))
		for i, n := range dff[p] {
			quoted[i] = strconv.Quote(n)
		}
		i := dffAt[p]
		c.Put(&FieldError{Where: groupWhere(i, &groups[i]), Field: "DefaultForFailover", Value: true,
			Detail: fmt.Sprintf("partition %q has more than one DefaultForFailover sameness group: %s", p, strings.Join(quoted, ", "))})
	}
	return c.Err()
}

func groupWhere(i int, g *SamenessGroup) string {
	return fmt.Sprintf("SamenessGroups[%d] (%s)", i, g.ID())
}

// groupIndex finds a partition's groups by name.
type groupIndex map[[2]string]*SamenessGroup

func newGroupIndex(groups []SamenessGroup) groupIndex {
	ix := make(groupIndex, len(groups))
	for i := range groups {
		g := groups[i]
		g.Members = slices.Clone(g.Members)
		g.Meta = maps.Clone(g.Meta)
		ix[[2]string{orDefault(g.Partition), g.Name}] = &g
	}
	return ix
}

func (ix groupIndex) find(partition, name string) *SamenessGroup {
	return ix[[2]string{orDefault(partition), name}]
}

// expand replaces each SamenessGroup consumer of a rule of partition p by the group's
// members in order — a peer member as a peer consumer, a partition member as a partition
// consumer — dropping p itself and repeats (the first stays). from records, per consumer of
// the result, the group it came from ("" for one written directly).
func (ix groupIndex) expand(p string, consumers []Consumer) (out []Consumer, from []string) {
	if !slices.ContainsFunc(consumers, func(c Consumer) bool { return c.SamenessGroup != "" }) {
		return consumers, nil
	}
	seen := make(map[Consumer]bool, len(consumers))
	add := func(c Consumer, group string) {
		if !seen[c] {
			seen[c] = true
			out, from = append(out, c), append(from, group)
		}
	}
	for _, c := range consumers {
		if c.SamenessGroup == "" {
			add(c, "")
			continue
		}
		g := ix.find(p, c.SamenessGroup)
		for _, m := range g.OrderedMembers() {
			switch {
			case m.Peer != "":
				add(Consumer{Peer: m.Peer}, g.Name)
			case m.Partition != p:
				add(Consumer{Partition: m.Partition}, g.Name)
			}
		}
	}
	return out, from
}

// UnmarshalJSON decodes a sameness group as Consul does — field names in any case and the
// aliases default_for_failover and include_local — but strictly: an unknown field, a field
// given twice, or a value of the wrong type is an error naming its path, and every problem
// is reported. It does not validate; call Validate.
func (g *SamenessGroup) UnmarshalJSON(b []byte) error { return entryhead.Unmarshal(b, g, decodeGroup) }

func decodeGroup(d *strict.Decoder, x any, path string) SamenessGroup {
	return entryhead.Object(d, x, path, func(o strict.Object) (g SamenessGroup) {
		dff := []string{"DefaultForFailover", "default_for_failover"}
		il := []string{"IncludeLocal", "include_local"}
		o.Check(entryhead.PartitionWith(slices.Concat([]string{"Members"}, dff, il)...)...)
		h := entryhead.PartitionNames(o)
		entryhead.Field(d, o, &g.DefaultForFailover, (*strict.Decoder).Bool, dff...)
		entryhead.Field(d, o, &g.IncludeLocal, (*strict.Decoder).Bool, il...)
		if v, p, ok := o.Get("Members"); ok {
			for i, item := range d.List(v, p) {
				mo, ok := d.Object(item, strict.Index(p, i))
				if !ok {
					continue
				}
				mo.Check("Partition", "Peer")
				var m SamenessMember
				mo.String(&m.Partition, "Partition")
				mo.String(&m.Peer, "Peer")
				g.Members = append(g.Members, m)
			}
		}
		entryhead.Rest(d, o, &h)
		g.Kind, g.Name, g.Partition, g.Meta, g.CreateIndex, g.ModifyIndex = h.Kind, h.Name, h.Partition, h.Meta, h.CreateIndex, h.ModifyIndex
		return g
	})
}

// LoadSamenessGroups reads sameness-group entries as `consul config read -kind
// sameness-group -name <group>` prints them: one JSON value, a stream of values, or a JSON
// array. Each is decoded as SamenessGroup.UnmarshalJSON decodes it and validated, and the
// groups are validated together (ValidateSamenessGroups). Every problem is reported.
func LoadSamenessGroups(data []byte) ([]SamenessGroup, error) {
	groups, err := strict.DecodeEntries(data, true, decodeGroup, func(g SamenessGroup) error { return g.Validate() })
	if err != nil {
		return nil, err
	}
	if err := ValidateSamenessGroups(groups); err != nil {
		return nil, err
	}
	return groups, nil
}
