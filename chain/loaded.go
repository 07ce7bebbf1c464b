package chain

import (
	"cmp"

	"github.com/meshscope/meshscope/exports"
)

// Consul's server does not compile a chain from every entry it holds: it first reads the
// entries the chain can reach, and compiles from those alone. Starting at the requested
// service, it reads the resolver of each service it reaches and then the services that
// resolver names — its redirect (a redirect to a peer included: the service it names, in the
// resolver's namespace and partition unless the redirect gives others), each failover
// section's Service (or the resolver's own, for a section of datacenters), each failover
// target that is not on a peer, and for a sameness group (named by the resolver, or the
// partition's DefaultForFailover group when the service has no resolver) the resolver's own
// service in each partition member. A failover target on a peer is not followed: its
// service's local resolver is read only when the chain reaches that service some other way.
// A service whose resolver was not read resolves as if it had none, and its protocol is the
// default. loadedFrom is that walk.

// reads is what Consul's server reads next when it reads a resolver: the services it names
// (canonical), each with its resolver (nil when it has none), and the sameness groups it
// names, whose members depend on the requesting partition. Built once per resolver.
type reads struct {
	names  []exports.ServiceName
	nodes  []*indexed
	groups []string
}

// linkReads sets the reads of every valid resolver of all, all of them in one backing
// array each.
func (cc *Compiler) linkReads(all []indexed) {
	var names []exports.ServiceName
	var groups []string
	ends := make([][2]int, len(all))
	for i := range all {
		if r := all[i].ServiceResolver; r != nil {
			names, groups = appendReads(names, groups, r)
		}
		ends[i] = [2]int{len(names), len(groups)}
	}
	nodes := make([]*indexed, len(names))
	for i, s := range names {
		nodes[i] = cc.resolvers[s]
	}
	var from [2]int
	for i := range all {
		to := ends[i]
		all[i].reads = reads{names: names[from[0]:to[0]:to[0]], nodes: nodes[from[0]:to[0]:to[0]], groups: groups[from[1]:to[1]:to[1]]}
		from = to
	}
}

// appendReads appends the services (canonical) and sameness groups r names to names and
// groups: its redirect, each failover section's Service (or r's own), each failover target
// not on a peer.
func appendReads(names []exports.ServiceName, groups []string, r *ServiceResolver) ([]exports.ServiceName, []string) {
	add := func(s exports.ServiceName) { names = append(names, s.Canonical()) }
	if d := r.Redirect; d != nil {
		add(exports.ServiceName{Partition: cmp.Or(d.Partition, r.Partition), Namespace: cmp.Or(d.Namespace, r.Namespace), Name: cmp.Or(d.Service, r.Name)})
		if d.SamenessGroup != "" {
			groups = append(groups, d.SamenessGroup)
		}
	}
	for _, f := range r.Failover {
		if len(f.Targets) == 0 {
			add(exports.ServiceName{Partition: r.Partition, Namespace: cmp.Or(f.Namespace, r.Namespace), Name: cmp.Or(f.Service, r.Name)})
		}
		for _, t := range f.Targets {
			if t.Peer == "" {
				add(exports.ServiceName{Partition: cmp.Or(t.Partition, r.Partition), Namespace: cmp.Or(t.Namespace, f.Namespace, r.Namespace), Name: cmp.Or(t.Service, r.Name)})
			}
		}
		if f.SamenessGroup != "" {
			groups = append(groups, f.SamenessGroup)
		}
	}
	return names, groups
}

// readSet is what loadedFrom found: the resolvers read, by position, and the services read
// that have no resolver. Resolvers are keyed by position, not by name, so that the set
// costs a small map of integers for the resolvers a chain reaches.
type readSet struct {
	res   map[int]bool
	other map[exports.ServiceName]bool
}

// has reports whether the canonical service k was read.
func (rs *readSet) has(cc *Compiler, k exports.ServiceName) bool {
	if n, ok := cc.resolvers[k]; ok {
		return rs.res[n.pos]
	}
	return rs.other[k]
}

// loadedFrom returns what Consul's server reads to compile the chain of start (canonical),
// requested in partition: the walk described above, over the reads linkReads built.
func (cc *Compiler) loadedFrom(start exports.ServiceName, partition string) *readSet {
	rs := &readSet{res: map[int]bool{}}
	var todo []*indexed
	var reach func(s exports.ServiceName, n *indexed)
	reach = func(s exports.ServiceName, n *indexed) {
		switch {
		case n != nil:
			if !rs.res[n.pos] {
				rs.res[n.pos] = true
				todo = append(todo, n)
			}
		case !rs.other[s]:
			if rs.other == nil {
				rs.other = map[exports.ServiceName]bool{}
			}
			rs.other[s] = true
			// A service without a resolver reads its name in the partition members of its
			// partition's DefaultForFailover group.
			cc.readMembers(cc.dff[s.Partition], s, reach)
		}
	}
	start = start.Canonical()
	reach(start, cc.resolvers[start])
	for len(todo) > 0 {
		n := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for i, s := range n.reads.names {
			reach(s, n.reads.nodes[i])
		}
		for _, name := range n.reads.groups {
			cc.readMembers(cc.groups[[2]string{partition, name}], n.ServiceName(), reach)
		}
	}
	return rs
}

// readMembers reaches service s in every partition member of group g (nil: none), in s's
// namespace: the resolvers a sameness group makes Consul's server read.
func (cc *Compiler) readMembers(g *exports.SamenessGroup, s exports.ServiceName, reach func(exports.ServiceName, *indexed)) {
	if g == nil {
		return
	}
	for _, m := range g.OrderedMembers() {
		if m.Peer == "" {
			k := exports.ServiceName{Partition: m.Partition, Namespace: s.Namespace, Name: s.Name}.Canonical()
			reach(k, cc.resolvers[k])
		}
	}
}

// resolverOf returns the resolver of the canonical service k, if Consul's server reads it
// for this chain (see loadedFrom).
func (c *compiler) resolverOf(k exports.ServiceName) (*indexed, bool) {
	r, ok := c.resolvers[k]
	if ok && c.loaded != nil && !c.loaded.res[r.pos] {
		return nil, false
	}
	return r, ok
}
