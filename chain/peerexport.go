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
// The check reads the resolvers the chain was compiled from; its cost is linear in the
// resolvers it reaches.
func (c *Chain) CheckPeerExport() error {
	if c == nil || c.compiler == nil {
		return nil
	}
	return c.compiler.checkPeerExport(c.start)
}

// checkPeerExport works out CheckPeerExport's answer for the requested service.
func (c *Compiler) checkPeerExport(start exports.ServiceName) error {
	start = start.Canonical()
	name := start.Short()
	bad := func(what string) error {
		return &FieldError{Value: start.String(), Detail: fmt.Sprintf("peer exported service %q contains %s", name, what), Err: ErrPeerExport}
	}
	if _, ok := c.resolvers[start]; !ok {
		return nil // nothing reachable
	}
	queue := []exports.ServiceName{start}
	seen := map[exports.ServiceName]bool{start: true}
	visit := func(k exports.ServiceName) {
		if k = k.Canonical(); !seen[k] {
			seen[k] = true
			queue = append(queue, k)
		}
	}
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		r, ok := c.resolvers[k]
		if !ok {
			continue
		}
		if what := peerUnsafe(r.ServiceResolver); what != "" {
			return bad(what)
		}
		r.consulted(visit)
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

// consulted calls visit with every local service r redirects or fails over to.
func (r *ServiceResolver) consulted(visit func(exports.ServiceName)) {
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
}
