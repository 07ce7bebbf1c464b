package chain

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/meshscope/meshscope/exports"
)

// ErrPeerExport: a chain Consul refuses to export to a peer (see Chain.CheckPeerExport).
var ErrPeerExport = errors.New("not peer-export safe")

// CheckPeerExport reports, in Consul's words, why the chain's service may not be exported to
// a cluster peer; nil when it may. Consul refuses, at write time, any configuration that
// leaves a peer-exported service with a resolver reachable from it that redirects to
// another datacenter, to a peer or to another partition, or fails over to another
// datacenter:
//
//	peer exported service "web" contains cross-datacenter resolver redirect
//	peer exported service "web" contains cross-peer resolver redirect
//	peer exported service "ap1/default/web" contains cross-partition resolver redirect
//	peer exported service "web" contains cross-datacenter failover
//
// Failover to other partitions, to peers and to a sameness group's members is allowed. The
// resolvers checked are every one reachable from the service: its own, and transitively
// that of every redirect target and every local target of every failover section (all
// sections, not only the one a request would use; peer targets are not followed) — the
// partition members of a sameness group included, and for a service without a resolver
// those of its partition's DefaultForFailover group. They are visited breadth-first in the
// order first reached — own, redirect, failover sections by sorted key with their Service
// or Targets in order, then a sameness group's partition members in member order — and the
// first problem is reported
// (Consul's order is random). The service is named by its name alone (as Consul CE prints
// it), or as partition/namespace/name when either is not default.
//
// Compile works the answer out from the resolvers the chain was compiled from, at a cost
// linear in the resolvers it reaches; CheckPeerExport returns it. The error is read-only.
func (c *Chain) CheckPeerExport() error {
	if c == nil {
		return nil
	}
	return c.peerExport
}

// checkPeerExport works out CheckPeerExport's answer for the requested service (canonical).
// A sameness group a resolver names is the group of the requested service's partition, as
// in compiling; when the service has no resolver, its partition's DefaultForFailover group
// stands for one (see Compile).
func (c *Compiler) checkPeerExport(start exports.ServiceName) error {
	if !c.unsafe {
		return nil // nothing unsafe to reach
	}
	var queue []*indexed
	seen := map[*indexed]bool{}
	reach := func(n *indexed) {
		if !seen[n] {
			seen[n] = true
			queue = append(queue, n)
		}
	}
	if r, ok := c.resolvers[start]; ok {
		reach(r)
	} else if g := c.dff[start.Partition]; g != nil {
		c.members(g, start.Name, start.Namespace, reach)
	}
	for len(queue) > 0 {
		r := queue[0]
		queue = queue[1:]
		if r.peerUnsafe != "" {
			return &FieldError{Value: start.String(), Detail: fmt.Sprintf("peer exported service %q contains %s", start.Short(), r.peerUnsafe), Err: ErrPeerExport}
		}
		for _, k := range r.consults {
			switch {
			case k.n != nil:
				reach(k.n)
			case c.groups[[2]string{start.Partition, k.group}] != nil:
				c.members(c.groups[[2]string{start.Partition, k.group}], k.service, k.namespace, reach)
			}
		}
	}
	return nil
}

// members calls visit with the resolver, if any, of the service in namespace in each
// partition member of g, in member order: the local targets a sameness failover reaches.
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

// consult is one thing a resolver's redirect or failover reaches: the resolver n of a local
// service, or (n nil) the partition members of the sameness group named group — looked up
// in the requesting partition when a chain is checked — with service and namespace, the
// targets the group's members are made from.
type consult struct {
	n                         *indexed
	group, service, namespace string
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

// consulted appends to out what r redirects or fails over to, in the order the check visits
// it: the redirect, then the failover sections by sorted key, each section's Service or its
// Targets in order (peer targets are not followed); a redirect or section naming a sameness
// group is followed, after its own Service, by the group's partition members.
func (c *Compiler) consulted(out []consult, r *ServiceResolver) []consult {
	visit := func(s exports.ServiceName) {
		if n, ok := c.resolvers[s.Canonical()]; ok {
			out = append(out, consult{n: n})
		}
	}
	group := func(name, service, namespace string) {
		if name != "" {
			out = append(out, consult{group: name, service: cmp.Or(service, r.Name), namespace: orDefault(cmp.Or(namespace, r.Namespace))})
		}
	}
	if rd := r.Redirect; rd != nil {
		visit(exports.ServiceName{Partition: cmp.Or(rd.Partition, r.Partition), Namespace: cmp.Or(rd.Namespace, r.Namespace), Name: cmp.Or(rd.Service, r.Name)})
		group(rd.SamenessGroup, rd.Service, rd.Namespace)
	}
	for _, section := range sortedKeys(r.Failover) {
		f := r.Failover[section]
		if len(f.Targets) == 0 {
			visit(exports.ServiceName{Partition: r.Partition, Namespace: cmp.Or(f.Namespace, r.Namespace), Name: cmp.Or(f.Service, r.Name)})
			group(f.SamenessGroup, f.Service, f.Namespace)
			continue
		}
		for _, t := range f.Targets {
			if t.Peer == "" {
				visit(exports.ServiceName{Partition: cmp.Or(t.Partition, r.Partition), Namespace: cmp.Or(t.Namespace, f.Namespace, r.Namespace), Name: cmp.Or(t.Service, r.Name)})
			}
		}
	}
	return out
}
