package peermeta

import (
	"errors"
	"fmt"
	"slices"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/spiffe"
)

// Consul's server compiles the chains a write recompiles in datacenter dc1, whatever the
// cluster's own, with a trust domain of its own: neither changes whether a chain compiles,
// and the target IDs in its messages name dc1.
const (
	checkDatacenter  = "dc1"
	checkTrustDomain = "write-check.consul"
)

// The chains each kind's write recompiles (kindRule.recompiles), as Consul's server decides.

// ownAndNaming: a service-resolver, service-router, service-splitter or service-defaults
// entry of service S recompiles S's chain and that of every resolver, router and splitter
// that names S (one level: not the entries naming those).
func ownAndNaming(st *store, e *entry) []exports.ServiceName {
	s := e.key.name
	out := []exports.ServiceName{s}
	for n := range st.naming[s] {
		out = append(out, n.name)
	}
	return out
}

// everyChain: proxy-defaults recompiles the chain of every service with a resolver, router
// or splitter.
func everyChain(st *store, _ *entry) []exports.ServiceName { return st.chains("") }

// chainsOfPartition: a sameness group, which any resolver of its partition may name,
// recompiles the chain of every service with a resolver in that partition.
func chainsOfPartition(st *store, e *entry) []exports.ServiceName {
	return st.resolvers(e.key.name.Partition)
}

// write judges the write of e as Consul's server does, e having been decoded and validated:
// it runs rule's own check, then (when that passes) recompiles the chains rule says — each
// must compile, and not crash Consul 1.16.0's server (chain.HeaderMergePanics); one
// exported to a peer must stay safe to export and, on a protocol that is not HTTP-like, gain
// no target outside the failover lists with a new identity — and stores e unless a reason
// refuses it. The reasons name each chain e breaks, in service order; the stage is
// StagePanic when a recompiled chain crashes the server, else StageStore.
func (st *store) write(rule kindRule, e *entry) (WriteStage, []string) {
	chains := rule.recompiles(st, e)
	slices.SortFunc(chains, exports.ServiceName.Compare)
	chains = slices.Compact(chains)
	_, known := st.entries[e.key]
	prev := st.set(e)
	var reasons []string
	if rule.check != nil {
		reasons = rule.check(st, e)
	}
	if len(reasons) > 0 {
		chains = nil // the server stops at its own check
	}
	stage := StageStore
	for _, s := range chains {
		why, panics := st.judge(s, e.key, prev)
		reasons = append(reasons, why...)
		if panics {
			stage = StagePanic
		}
	}
	if len(reasons) > 0 {
		st.restore(e.key, prev)
		if !known {
			st.forget(e.key)
		}
	}
	return stage, reasons
}

// judge recompiles the chain of s with the written entry in place, and says why that chain
// refuses the write: it does not compile; or compiling it crashes Consul 1.16.0's server
// (panics); or it is exported to a peer and not safe to export, or, for a protocol that is
// not HTTP-like, has a target that no failover list names whose identity it did not have
// with prev, the entry of key before the write.
func (st *store) judge(s exports.ServiceName, key entryKey, prev *entry) (reasons []string, panics bool) {
	where := "chain " + s.String() + ": "
	c, err := st.compile(s)
	if err != nil {
		return prefixed(where, consulWords(err)), false
	}
	for _, f := range c.Findings() {
		if f.Code == chain.HeaderMergePanics {
			return []string{where + "Consul 1.16.0's server panics on this write (assignment to entry in nil map) and does not store it: " + f.Message}, true
		}
	}
	if !st.exportedToPeer(s) {
		return nil, false
	}
	if err := c.CheckPeerExport(); err != nil {
		return prefixed(where, consulWords(err)), false
	}
	if chain.IsHTTPLike(c.Protocol) {
		return nil, false
	}
	written := st.set(&entry{key: key, deleted: true}) // as it was: prev in place
	st.restore(key, prev)
	before, err := st.compile(s)
	st.restore(key, written)
	if err != nil {
		return prefixed(where, []string{fmt.Sprintf("error compiling current discovery chain for %q: %s", s.Short(), errors.Join(fielderr.Split(err)...))}), false
	}
	had := nonFailoverIdentities(before)
	var out []string
	for _, id := range nonFailoverTargets(c) {
		if !had[identityOf(c.Targets[id])] {
			out = append(out, fmt.Sprintf("peer exported service %q uses protocol=%q and cannot introduce new discovery chain targets like %q", s.Short(), c.Protocol, id))
		}
	}
	return prefixed(where, out), false
}

// compile compiles the chain of s from what Consul's server reads for it.
func (st *store) compile(s exports.ServiceName) (*chain.Chain, error) {
	return chain.Compile(request(s, checkDatacenter, checkTrustDomain), st.readEntries(s))
}

// request is the chain request for service s.
func request(s exports.ServiceName, datacenter, trustDomain string) chain.Request {
	return chain.Request{Service: s, Datacenter: datacenter, TrustDomain: trustDomain}
}

// consulWords returns each problem joined in err in Consul's words, without the path
// meshscope puts before them.
func consulWords(err error) []string {
	var out []string
	for _, e := range fielderr.Split(err) {
		var fe *FieldError
		if errors.As(e, &fe) && fe.Detail != "" {
			out = append(out, fe.Detail)
		} else {
			out = append(out, e.Error())
		}
	}
	return out
}

func prefixed(prefix string, msgs []string) []string {
	for i := range msgs {
		msgs[i] = prefix + msgs[i]
	}
	return msgs
}

// checkGroups: Consul's server refuses a sameness group that shares a member with another
// group of its partition.
func checkGroups(st *store, e *entry) []string {
	if e.deleted {
		return nil
	}
	var groups []exports.SamenessGroup
	for _, k := range st.groups[e.key.name.Partition] {
		if g := st.live(k); g != nil {
			groups = append(groups, *g.group)
		}
	}
	var out []string
	for _, err := range fielderr.Split(exports.ValidateSamenessGroups(groups)) {
		out = append(out, err.Error())
	}
	return out
}

// checkExported: writing an exported-services entry, Consul's server checks that each service
// it exports to a peer has a chain safe to export — under an exact rule the service it names,
// under a "*" rule each service of the namespace with a resolver, router or splitter (the
// server does not consult the catalog). A chain that does not compile is not judged here: Replicate reports
// it. Deleting the entry is not checked.
func checkExported(st *store, e *entry) []string {
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
func (st *store) exportedToPeer(s exports.ServiceName) bool {
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

func (st *store) peerExportsOf(partition string) *peerExports {
	px := &peerExports{exact: map[exports.ServiceName]bool{}, exactAnyNS: map[string]bool{}, wildcardNS: map[string]bool{}}
	e := st.live(entryKey{kindExportedServices, exports.ServiceName{Partition: partition}.Canonical()})
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
		g := st.live(entryKey{kindSamenessGroup, exports.ServiceName{Partition: partition, Name: c.SamenessGroup}.Canonical()})
		return g != nil && slices.ContainsFunc(g.group.Members, func(m exports.SamenessMember) bool { return m.Peer != "" })
	}
	for _, r := range e.export.Services {
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
