package store

import (
	"slices"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/spiffe"
)

// checkExported: writing an exported-services entry, Consul's server checks that each service
// it exports to a peer has a chain safe to export — under an exact rule the service it names,
// under a "*" rule each service of the namespace with a resolver, router or splitter (the
// server does not consult the catalog). A chain that does not compile is not judged here: Replicate reports
// it. Deleting the entry is not checked.
func checkExported(st *Store, e *entry) []string {
	if e.deleted {
		return nil
	}
	p := e.key.name.Partition
	var out []string
	for _, s := range st.chains(p) {
		if !st.exportedToPeer(s) {
			continue
		}
		if c, err := st.compile(s); err == nil {
			if err := c.CheckPeerExport(); err != nil {
				out = append(out, prefixed("chain "+s.String()+": ", consulWords(err))...)
			}
		}
	}
	return out
}

// peerExports is what one partition's exported-services entry exports to a peer, as Consul's
// server lists it at write time: the union of every rule with a peer consumer (a peer, or a
// sameness group with a peer member) — the services exact rules name, and under "*" rules
// the services with a resolver, router or splitter in the rules' namespaces.
type peerExports struct {
	exact       map[exports.ServiceName]bool
	exactAnyNS  map[string]bool // names an exact rule of namespace "*" exports
	wildcardNS  map[string]bool
	wildcardAll bool
}

// exportedToPeer reports whether Consul's server counts s as exported to a peer.
func (st *Store) exportedToPeer(s exports.ServiceName) bool {
	px := st.peers[s.Partition]
	if px == nil {
		px = st.peerExportsOf(s.Partition)
		st.peers[s.Partition] = px
	}
	if px.exact[s] || px.exactAnyNS[s.Name] {
		return true
	}
	return (px.wildcardAll || px.wildcardNS[s.Namespace]) && st.hasChain(s)
}

func (st *Store) peerExportsOf(partition string) *peerExports {
	px := &peerExports{exact: map[exports.ServiceName]bool{}, exactAnyNS: map[string]bool{}, wildcardNS: map[string]bool{}}
	e := st.live(key{kindExportedServices, exports.ServiceName{Partition: partition}.Canonical()})
	if e == nil {
		return px
	}
	toPeer := func(c exports.Consumer) bool {
		if c.Peer != "" {
			return true
		}
		if c.SamenessGroup == "" {
			return false
		}
		g := st.live(key{kindSamenessGroup, exports.ServiceName{Partition: partition, Name: c.SamenessGroup}.Canonical()})
		return g != nil && slices.ContainsFunc(g.group().Members, func(m exports.SamenessMember) bool { return m.Peer != "" })
	}
	for _, r := range e.export().Services {
		if !slices.ContainsFunc(r.Consumers, toPeer) {
			continue
		}
		ns := exports.ServiceName{Namespace: r.Namespace}.Canonical().Namespace
		switch {
		case r.Name == exports.Wildcard && r.Namespace == exports.Wildcard:
			px.wildcardAll = true
		case r.Name == exports.Wildcard:
			px.wildcardNS[ns] = true
		case r.Namespace == exports.Wildcard:
			px.exactAnyNS[r.Name] = true
		default:
			px.exact[exports.ServiceName{Partition: partition, Namespace: ns, Name: r.Name}] = true
		}
	}
	return px
}

// identityOf is a target's SPIFFE identity in the sense of Consul's rule for tcp exports: a
// service ID in one trust domain, a peer target's peer counting as its datacenter in a trust
// domain of its own, so that it never equals a local target's.
func identityOf(t *chain.Target) spiffe.Service {
	if t.Peer != "" {
		return spiffe.Service{TrustDomain: "peer", Partition: t.Service.Partition, Namespace: t.Service.Namespace, Datacenter: t.Peer, Service: t.Service.Name}
	}
	return spiffe.Service{TrustDomain: "local", Partition: t.Service.Partition, Namespace: t.Service.Namespace, Datacenter: t.Datacenter, Service: t.Service.Name}
}

// nonFailoverTargets returns the IDs of the chain's targets that no failover list names,
// sorted: Consul leaves failover targets out of the rule for tcp exports, on both sides.
func nonFailoverTargets(c *chain.Chain) []string {
	failover := map[string]bool{}
	for _, t := range c.Targets {
		for _, id := range t.Failover {
			failover[id] = true
		}
	}
	var out []string
	for _, id := range c.TargetIDs() {
		if !failover[id] {
			out = append(out, id)
		}
	}
	return out
}

// nonFailoverIdentities returns the identities of nonFailoverTargets.
func nonFailoverIdentities(c *chain.Chain) map[spiffe.Service]bool {
	out := map[spiffe.Service]bool{}
	for _, id := range nonFailoverTargets(c) {
		out[identityOf(c.Targets[id])] = true
	}
	return out
}
