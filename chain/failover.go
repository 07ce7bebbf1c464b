package chain

import (
	"cmp"
	"fmt"

	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/strict"
)

// candidate is one failover candidate: the options that rewrite the start target into it,
// the resolver field that named it, and for a sameness group the group and member.
type candidate struct {
	opts          options
	section, list string // the field: Failover[section], or Failover[section].list[index]
	index         int
	group, member string
}

// field names the resolver field that named the candidate; built only for a step or an
// error, since most candidates of a long list are repeats.
func (cand *candidate) field() string {
	if cand.list == "" {
		return cand.section
	}
	return strict.Index(cand.section+"."+cand.list, cand.index)
}

// failover works out the failover candidates of the start target t (resolved, with ID
// startID), resolves and adds them, and returns their IDs in order and the Policy of the
// failover section that named them (nil for a sameness redirect or DefaultForFailover).
// Repeats stay in the list, as in Consul: it is what the proxy is given. A candidate that is
// the start target, before or after resolution, is dropped (Consul drops it only before, and
// lists the start target again after). A peer's start target fails over as the local
// resolver of its service says, as in Consul.
func (c *compiler) failover(ch *Chain, t key, startID string) ([]string, *FailoverPolicy) {
	rid, cands, policy := c.candidates(t)
	if len(cands) == 0 {
		return nil, nil
	}
	if t.peer != "" {
		c.changes = append(c.changes, peerChange{target: startID, resolver: rid, field: cands[0].section})
	}
	out := make([]string, 0, len(cands))
	for _, cand := range cands {
		ck := c.rewrite(t, cand.opts)
		cid := ck.id()
		if cid == startID {
			continue
		}
		rk, id, rest, err := c.resolve(ck, cid)
		if err != nil {
			c.errs = append(c.errs, fielderr.In(fmt.Sprintf("failover of %s by %s of %s", startID, cand.field(), cmp.Or(rid, "the request")), err))
			continue
		}
		if id == startID || c.collides(ch, id, rk) {
			c.keepPeerSteps(ck, rest)
			continue
		}
		out = append(out, id)
		if _, seen := ch.Targets[id]; seen { // a repeat: the target is there already
			c.keepPeerSteps(ck, rest)
			continue
		}
		step := Step{Resolver: rid, Field: cand.field(), SamenessGroup: cand.group, Member: cand.member, From: startID, To: cid}
		c.add(ch, id, rk, rest.via([]Step{step}))
	}
	return out, policy
}

// candidates returns the failover candidates of t, the ID of the resolver that names them,
// and the failover section's policy.
func (c *compiler) candidates(t key) (string, []candidate, *FailoverPolicy) {
	r, found := c.resolverOf(t.ServiceName)
	if !found {
		if !c.defaultGroupApplies(t) {
			return "", nil, nil
		}
		return "", c.sameness(t, c.defaultGroup(), t.Name, t.Namespace, options{}, "DefaultForFailover"), nil
	}
	if rd := r.Redirect; rd != nil && rd.SamenessGroup != "" {
		g := c.group(t, rd.SamenessGroup)
		if g == nil {
			return r.id, nil, nil
		}
		return r.id, c.sameness(t, g, r.Name, r.Namespace, options{service: rd.Service, namespace: rd.Namespace}, "Redirect.SamenessGroup"), nil
	}
	section := t.subset
	f, ok := r.Failover[section]
	if !ok || section == "" {
		section = wildcard
		f, ok = r.Failover[section]
	}
	if !ok {
		return r.id, nil, nil
	}
	base := sectionField(section)
	var cands []candidate
	switch {
	case f.SamenessGroup != "":
		g := c.group(t, f.SamenessGroup)
		if g == nil {
			return r.id, nil, nil
		}
		cands = c.sameness(t, g, r.Name, r.Namespace, options{service: f.Service, namespace: f.Namespace}, base)
	case len(f.Datacenters) > 0:
		for i, dc := range f.Datacenters {
			cands = append(cands, candidate{opts: options{service: f.Service, subset: f.ServiceSubset, namespace: f.Namespace, datacenter: dc}, section: base, list: "Datacenters", index: i})
		}
	case len(f.Targets) > 0:
		cands = make([]candidate, 0, len(f.Targets))
		for i, ft := range f.Targets {
			cands = append(cands, candidate{opts: targetOptions(ft), section: base, list: "Targets", index: i})
		}
	default:
		cands = append(cands, candidate{opts: options{service: f.Service, subset: f.ServiceSubset, namespace: f.Namespace}, section: base})
	}
	return r.id, cands, f.Policy
}

// defaultGroupApplies reports whether the resolved target t, whose service has no resolver,
// fails over to the members of its partition's DefaultForFailover group, as Consul's
// compiler decides: when the requested service has no resolver at all, for a local target
// in the requesting partition.
func (c *compiler) defaultGroupApplies(t key) bool {
	if t.peer != "" || t.Partition != c.req.Service.Partition || c.defaultGroup() == nil {
		return false
	}
	_, has := c.resolverOf(c.req.service())
	return !has
}

// defaultGroup is the requesting partition's DefaultForFailover group, nil for none.
func (c *compiler) defaultGroup() *exports.SamenessGroup { return c.dff[c.req.Service.Partition] }

// group finds a sameness group by name in the requesting partition, whichever resolver
// names it, and records an error when there is none.
func (c *compiler) group(t key, name string) *exports.SamenessGroup {
	g := c.groups[[2]string{c.req.Service.Partition, name}]
	if g == nil {
		c.errs = append(c.errs, &FieldError{Value: name, Detail: fmt.Sprintf("sameness group missing for service %q", t.Name), Err: errMissingSamenessGroup})
	}
	return g
}

// sameness expands a group into candidates for t under the resolver of service name in
// namespace: one per member in order, t rewritten with the section's service (else the
// resolver's), its namespace (else the resolver's), and the member's partition or peer.
func (c *compiler) sameness(t key, g *exports.SamenessGroup, name, namespace string, s options, field string) []candidate {
	members := g.OrderedMembers()
	out := make([]candidate, 0, len(members))
	for _, m := range members {
		o := options{service: cmp.Or(s.service, name), namespace: orDefault(cmp.Or(s.namespace, namespace))}
		member := m.Partition
		if m.Peer != "" {
			o.peer, member = m.Peer, "peer "+m.Peer
		} else {
			o.partition = m.Partition
		}
		out = append(out, candidate{opts: o, section: field, group: g.Name, member: member})
	}
	return out
}
