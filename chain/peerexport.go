package chain

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/meshscope/meshscope/exports"
)

// ErrPeerExport: a chain Consul refuses to export to a peer (see Chain.CheckPeerExport).
var ErrPeerExport = errors.New("not peer-export safe")

// CheckPeerExport reports, in Consul's words, why the chain's service may not be exported to
// a cluster peer; nil when it may. Consul refuses, at write time, any configuration that
// leaves a peer-exported service with a route or split that leaves its entry's partition, or
// a resolver reachable from it that redirects to another datacenter, to a peer or to another
// partition, or fails over to another datacenter:
//
//	peer exported service "web" contains cross-partition route destination
//	peer exported service "web" contains cross-partition split destination
//	peer exported service "web" contains cross-datacenter resolver redirect
//	peer exported service "web" contains cross-peer resolver redirect
//	peer exported service "ap1/default/web" contains cross-partition resolver redirect
//	peer exported service "web" contains cross-datacenter failover
//
// Failover to other partitions, to peers and to a sameness group's members is allowed. The
// entries checked are those Consul's server reads for the chain: the service's router, the
// splitters of the services its routes and splits name, and every resolver reachable from
// those services: each one's own, and transitively that of every redirect target and every
// local target of every failover section (all sections, not only the one a request would
// use; peer targets are not followed) — the resolver's own service in each partition member
// of a sameness group it names included (as Consul's server reads it: not the section's
// Service, which it reads in the resolver's partition only), and for a service without a
// resolver those of its partition's DefaultForFailover group. The router comes first, then
// the splitters in the order read, then the resolvers, from each service in that order,
// breadth-first in the order first reached — own, redirect, failover sections by sorted key
// with their Service or Targets in order, then a sameness group's partition members in
// member order — and the first problem is reported (Consul's order is random). The service
// is named by its name alone (as Consul CE prints it), or as partition/namespace/name when
// either is not default.
//
// Compile works the answer out from the resolvers the chain was compiled from — in constant
// time, from a table of every resolver's answer that NewCompiler builds, at a cost linear in
// the resolvers — and CheckPeerExport returns it. The error is read-only.
func (c *Chain) CheckPeerExport() error {
	if c == nil {
		return nil
	}
	return c.peerExport
}

// checkPeerExport works out CheckPeerExport's answer for the chain of start (canonical) whose routing reads (see
// routingReads) are seeds, and whose first route or split leaving its partition, if any,
// is routing. A sameness group a resolver names is the group of the requesting partition,
// as in compiling; a service without a resolver has its partition's DefaultForFailover
// group stand for one (see Compile). The resolvers' answer is, for the first of seeds that
// has one, the first problem a breadth-first walk from its resolver meets; it is read from
// the partition's safety table (see safetyOf), so that checking every service of a
// partition costs what one walk over all resolvers costs.
func (c *Compiler) checkPeerExport(start exports.ServiceName, seeds []exports.ServiceName, routing string) error {
	reason := routing
	for _, s := range seeds {
		if reason != "" || !c.unsafe {
			break
		}
		reason = c.resolverReason(s)
	}
	if reason == "" {
		return nil
	}
	return &FieldError{Value: start.String(), Detail: fmt.Sprintf("peer exported service %q contains %s", start.Short(), reason), Err: ErrPeerExport}
}

// resolverReason returns the first problem the walk from the resolver of s (canonical) meets
// — for a service without a resolver, from the resolvers its partition's DefaultForFailover
// group makes Consul's server read — or "".
func (c *Compiler) resolverReason(s exports.ServiceName) string {
	t := c.safetyOf(s.Partition)
	if r, ok := c.resolvers[s]; ok {
		return t.reason[r.pos]
	}
	g := c.dff[s.Partition]
	if g == nil {
		return ""
	}
	best := -1 // the first member nearest to a problem
	c.members(g, s.Name, s.Namespace, func(n *indexed) {
		if d := t.dist[n.pos]; d >= 0 && (best < 0 || d < t.dist[best]) {
			best = n.pos
		}
	})
	if best < 0 {
		return ""
	}
	return t.reason[best]
}

// safety is, for every resolver (by its position), the problem a breadth-first walk from it
// over its consults meets first ("" when none is reachable), and how many hops away the
// nearest problem is (-1 when none is reachable).
type safety struct {
	reason []string
	dist   []int
}

// safetyOf returns the safety table for chains requested in partition: NewCompiler builds
// one for each partition with sameness groups (whose members a resolver's group names) and
// one for every other partition; none when no resolver is unsafe.
func (c *Compiler) safetyOf(partition string) *safety {
	if s, ok := c.safety[partition]; ok {
		return s
	}
	return c.safety[""]
}

// buildSafetyTables builds the safety tables safetyOf gives, when some resolver is unsafe.
func (c *Compiler) buildSafetyTables(groups []exports.SamenessGroup) {
	if !c.unsafe {
		return
	}
	c.safety = map[string]*safety{"": c.buildSafety("")}
	if !c.sameness {
		return
	}
	for _, g := range groups {
		if p := orDefault(g.Partition); c.safety[p] == nil {
			c.safety[p] = c.buildSafety(p)
		}
	}
}

// buildSafety works out every resolver's answer in time linear in the resolvers and what
// they consult. The walk from r meets first the problem nearest to r, and of the nearest the
// one reached through r's earliest consult that leads to one: so the distances come from
// one breadth-first walk back from every unsafe resolver, and each resolver's answer is that
// of its first consult one hop nearer, worked out nearest first.
func (c *Compiler) buildSafety(partition string) *safety {
	n := len(c.nodes)
	var next []int // every resolver's consults, by position, in the order the walk takes them
	ends := make([]int, n)
	for i := range c.nodes {
		own := c.nodes[i].ServiceResolver
		for _, k := range c.nodes[i].consults {
			switch {
			case k.n != nil:
				next = append(next, k.n.pos)
			case k.group != "":
				if g := c.groups[[2]string{partition, k.group}]; g != nil {
					c.members(g, own.Name, orDefault(own.Namespace), func(m *indexed) { next = append(next, m.pos) })
				}
			}
		}
		ends[i] = len(next)
	}
	from := func(i int) []int {
		if i == 0 {
			return next[:ends[0]]
		}
		return next[ends[i-1]:ends[i]]
	}
	// The consults backwards, grouped by the resolver consulted.
	firstBack := make([]int, n+1)
	for _, j := range next {
		firstBack[j+1]++
	}
	for i := range n {
		firstBack[i+1] += firstBack[i]
	}
	back, fill := make([]int, len(next)), slices.Clone(firstBack[:n])
	for i := range n {
		for _, j := range from(i) {
			back[fill[j]] = i
			fill[j]++
		}
	}
	s := &safety{reason: make([]string, n), dist: make([]int, n)}
	order := make([]int, 0, n) // resolvers by distance, nearest first
	for i := range c.nodes {
		s.dist[i] = -1
		if c.nodes[i].peerUnsafe != "" {
			s.dist[i], s.reason[i] = 0, c.nodes[i].peerUnsafe
			order = append(order, i)
		}
	}
	for h := 0; h < len(order); h++ {
		j := order[h]
		for _, i := range back[firstBack[j]:firstBack[j+1]] {
			if s.dist[i] < 0 {
				s.dist[i] = s.dist[j] + 1
				order = append(order, i)
			}
		}
	}
	for _, i := range order {
		if s.dist[i] == 0 {
			continue
		}
		for _, j := range from(i) {
			if s.dist[j] == s.dist[i]-1 {
				s.reason[i] = s.reason[j]
				break
			}
		}
	}
	return s
}

// members calls visit with the resolver, if any, of the service in namespace in each
// partition member of g, in member order: the resolvers a sameness group makes Consul's
// server read.
// Peer members are not followed.
func (c *Compiler) members(g *exports.SamenessGroup, service, namespace string, visit func(*indexed)) {
	at := func(partition string) {
		if n, ok := c.resolvers[exports.ServiceName{Partition: orDefault(partition), Namespace: namespace, Name: service}]; ok {
			visit(n)
		}
	}
	if g.IncludeLocal {
		at(g.Partition)
	}
	for _, m := range g.Members {
		if m.Peer == "" {
			at(m.Partition)
		}
	}
}

// peerUnsafe returns what in r makes a chain that consults it unsafe to export to a peer,
// in Consul's words, or "".
func peerUnsafe(r *ServiceResolver) string {
	if rd := r.Redirect; rd != nil {
		switch {
		case rd.Datacenter != "":
			return "cross-datacenter resolver redirect"
		case rd.Peer != "":
			return "cross-peer resolver redirect"
		case rd.Partition != "" && orDefault(rd.Partition) != orDefault(r.Partition):
			return "cross-partition resolver redirect"
		}
	}
	for _, section := range sortedKeys(r.Failover) {
		f := r.Failover[section]
		if len(f.Datacenters) > 0 {
			return "cross-datacenter failover"
		}
		for _, t := range f.Targets {
			if t.Datacenter != "" {
				return "cross-datacenter failover"
			}
		}
	}
	return ""
}

// consult is one thing a resolver's redirect or failover names, and so one thing Consul's
// server reads next when it reads the resolver: a local service (name, canonical) with its
// resolver n (nil when it has none), or (group set) a sameness group — looked up in the
// requesting partition — in each partition member of which the server reads the resolver's
// own service. The peer-export check (buildSafety) and a chain's read walk (loadedFrom) both
// follow them.
type consult struct {
	n     *indexed
	name  exports.ServiceName
	group string
}

// linkConsulted sets the consults of every indexed resolver of all (those with a resolver
// are valid), all of them in one backing array.
func (c *Compiler) linkConsulted(all []indexed) {
	var flat []consult
	ends := make([]int, len(all))
	for i := range all {
		if all[i].ServiceResolver != nil {
			flat = c.consulted(flat, all[i].ServiceResolver)
		}
		ends[i] = len(flat)
	}
	start := 0
	for i := range all {
		all[i].consults = flat[start:ends[i]:ends[i]]
		start = ends[i]
	}
}

// consulted appends to out what r redirects or fails over to (see names): each local service
// with its resolver, and each sameness group.
func (c *Compiler) consulted(out []consult, r *ServiceResolver) []consult {
	r.names(func(s exports.ServiceName) {
		out = append(out, consult{n: c.resolvers[s], name: s})
	}, func(name string) {
		c.sameness = true
		out = append(out, consult{group: name})
	})
	return out
}

// names calls service with each local service r redirects or fails over to, canonical, and
// group with each sameness group it names, in the order CheckPeerExport visits them: the
// redirect, then the failover sections by sorted key, each section's Service or its Targets in
// order (peer targets are not followed), a redirect or section's sameness group after its own
// Service. A sameness group makes Consul's server read the resolver's own service (not the
// section's Service, which is read in the resolver's partition only) in each partition member,
// in the resolver's namespace.
func (r *ServiceResolver) names(service func(exports.ServiceName), group func(string)) {
	visit := func(partition, namespace, name string) {
		service(exports.ServiceName{Partition: partition, Namespace: namespace, Name: name}.Canonical())
	}
	if rd := r.Redirect; rd != nil {
		visit(cmp.Or(rd.Partition, r.Partition), cmp.Or(rd.Namespace, r.Namespace), cmp.Or(rd.Service, r.Name))
		if rd.SamenessGroup != "" {
			group(rd.SamenessGroup)
		}
	}
	for _, section := range sortedKeys(r.Failover) {
		f := r.Failover[section]
		if len(f.Targets) == 0 {
			visit(r.Partition, cmp.Or(f.Namespace, r.Namespace), cmp.Or(f.Service, r.Name))
			if f.SamenessGroup != "" {
				group(f.SamenessGroup)
			}
			continue
		}
		for _, t := range f.Targets {
			if t.Peer == "" {
				visit(cmp.Or(t.Partition, r.Partition), cmp.Or(t.Namespace, f.Namespace, r.Namespace), cmp.Or(t.Service, r.Name))
			}
		}
	}
}
