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

// loadedFrom returns the canonical services whose entries Consul's server reads to compile
// the chain of start (canonical), requested in partition.
func (cc *Compiler) loadedFrom(start exports.ServiceName, partition string) map[exports.ServiceName]bool {
	seen := map[exports.ServiceName]bool{start: true}
	todo := []exports.ServiceName{start}
	push := func(s exports.ServiceName) {
		s = s.Canonical()
		if !seen[s] {
			seen[s] = true
			todo = append(todo, s)
		}
	}
	// members reads s's resolver in every partition member of g, in s's namespace.
	members := func(g *exports.SamenessGroup, s exports.ServiceName) {
		if g == nil {
			return
		}
		for _, m := range g.OrderedMembers() {
			if m.Peer == "" {
				push(exports.ServiceName{Partition: m.Partition, Namespace: s.Namespace, Name: s.Name})
			}
		}
	}
	for len(todo) > 0 {
		s := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		n, ok := cc.resolvers[s]
		if !ok {
			members(cc.dff[s.Partition], s)
			continue
		}
		r := n.ServiceResolver
		if rd := r.Redirect; rd != nil {
			push(exports.ServiceName{Partition: cmp.Or(rd.Partition, r.Partition), Namespace: cmp.Or(rd.Namespace, r.Namespace), Name: cmp.Or(rd.Service, r.Name)})
			if rd.SamenessGroup != "" {
				members(cc.groups[[2]string{partition, rd.SamenessGroup}], s)
			}
		}
		for _, f := range r.Failover {
			if len(f.Targets) == 0 {
				push(exports.ServiceName{Partition: r.Partition, Namespace: cmp.Or(f.Namespace, r.Namespace), Name: cmp.Or(f.Service, r.Name)})
			}
			for _, t := range f.Targets {
				if t.Peer == "" {
					push(exports.ServiceName{Partition: cmp.Or(t.Partition, r.Partition), Namespace: cmp.Or(t.Namespace, f.Namespace, r.Namespace), Name: cmp.Or(t.Service, r.Name)})
				}
			}
			if f.SamenessGroup != "" {
				members(cc.groups[[2]string{partition, f.SamenessGroup}], s)
			}
		}
	}
	return seen
}

// resolverOf returns the resolver of the canonical service k, if Consul's server reads it
// for this chain (see loadedFrom).
func (c *compiler) resolverOf(k exports.ServiceName) (*indexed, bool) {
	if c.loaded != nil && !c.loaded[k] {
		return nil, false
	}
	r, ok := c.resolvers[k]
	return r, ok
}
