package chain

import (
	"github.com/meshscope/meshscope/exports"
)

// Consul's server does not compile a chain from every entry it holds: it first reads the
// entries the chain can reach, and compiles from those alone. It reads the requested
// service's router, then the splitters of the services the router's routes name (with its
// own) — without a router, the requested service's — and of the services their splits name
// (routingReads). From each of those services, it reads the resolver of each service it reaches and then the services that
// resolver names — its redirect (a redirect to a peer included: the service it names, in the
// resolver's namespace and partition unless the redirect gives others), each failover
// section's Service (or the resolver's own, for a section of datacenters), each failover
// target that is not on a peer, and for a sameness group (named by the resolver, or the
// partition's DefaultForFailover group when the service has no resolver) the resolver's own
// service in each partition member. A failover target on a peer is not followed: its
// service's local resolver is read only when the chain reaches that service some other way.
// A service whose resolver was not read resolves as if it had none, and its protocol is the
// default. loadedFrom is that walk.

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

// loadedFrom returns what Consul's server reads to compile a chain requested in partition
// whose routing reads (see routingReads) are seeds: the walk described above from each of
// them, over the resolvers' consults.
func (cc *Compiler) loadedFrom(seeds []exports.ServiceName, partition string) *readSet {
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
	for _, s := range seeds {
		reach(s, cc.resolvers[s])
	}
	for len(todo) > 0 {
		n := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, k := range n.consults {
			if k.group != "" {
				cc.readMembers(cc.groups[[2]string{partition, k.group}], n.ServiceName(), reach)
			} else {
				reach(k.name, k.n)
			}
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
