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
// sections, not only the one a request would use; peer targets are not followed). They are
// visited breadth-first in the order first reached — own, redirect, failover sections by
// sorted key with their Service or Targets in order — and the first problem is reported
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
func (c *Compiler) checkPeerExport(start exports.ServiceName) error {
	r, ok := c.resolvers[start]
	if !ok || !c.unsafe {
		return nil // nothing reachable, or nothing unsafe to reach
	}
	queue := []*indexed{r}
	seen := map[*indexed]bool{r: true}
	for len(queue) > 0 {
		r := queue[0]
		queue = queue[1:]
		if r.peerUnsafe != "" {
			return &FieldError{Value: start.String(), Detail: fmt.Sprintf("peer exported service %q contains %s", start.Short(), r.peerUnsafe), Err: ErrPeerExport}
		}
		for _, n := range r.consults {
			if !seen[n] {
				seen[n] = true
				queue = append(queue, n)
			}
		}
	}
	return nil
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

// linkConsulted sets the consults of every indexed resolver of all (those with a resolver
// are valid), all of them in one backing array.
func (c *Compiler) linkConsulted(all []indexed) {
	var flat []*indexed
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

// consulted appends to out the resolvers of the local services r redirects or fails over
// to, in the order the check visits them: the redirect, then the failover sections by sorted
// key, each section's Service or its Targets in order (peer targets are not followed).
func (c *Compiler) consulted(out []*indexed, r *ServiceResolver) []*indexed {
	visit := func(s exports.ServiceName) {
		if n, ok := c.resolvers[s.Canonical()]; ok {
			out = append(out, n)
		}
	}
	if rd := r.Redirect; rd != nil {
		visit(exports.ServiceName{Partition: cmp.Or(rd.Partition, r.Partition), Namespace: cmp.Or(rd.Namespace, r.Namespace), Name: cmp.Or(rd.Service, r.Name)})
	}
	for _, section := range sortedKeys(r.Failover) {
		f := r.Failover[section]
		if len(f.Targets) == 0 {
			visit(exports.ServiceName{Partition: r.Partition, Namespace: cmp.Or(f.Namespace, r.Namespace), Name: cmp.Or(f.Service, r.Name)})
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
