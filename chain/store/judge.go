package store

import (
	"errors"
	"fmt"
	"slices"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/fielderr"
)

// Consul's server compiles the chains a write recompiles in datacenter dc1, whatever the
// cluster's own, with a trust domain of its own: neither changes whether a chain compiles,
// and the target IDs in its messages name dc1.
const (
	checkDatacenter  = "dc1"
	checkTrustDomain = "write-check.consul"
)

// The chains each kind's write recompiles (kind.recompiles), as Consul's server decides.

// ownAndNaming: a service-resolver, service-router, service-splitter or service-defaults
// entry of service S recompiles S's chain and that of every resolver, router and splitter
// that names S (one level: not the entries naming those).
func ownAndNaming(st *Store, e *entry) []exports.ServiceName {
	s := e.key.name
	out := []exports.ServiceName{s}
	for n := range st.naming[s] {
		out = append(out, n.name)
	}
	return out
}

// noChains: an exported-services entry recompiles no chain (its check judges the chains it
// exports to peers).
func noChains(*Store, *entry) []exports.ServiceName { return nil }

// everyChain: proxy-defaults recompiles the chain of every service with a resolver, router
// or splitter.
func everyChain(st *Store, _ *entry) []exports.ServiceName { return st.chains("") }

// chainsOfPartition: a sameness group, which any resolver of its partition may name,
// recompiles the chain of every service with a resolver in that partition.
func chainsOfPartition(st *Store, e *entry) []exports.ServiceName {
	return st.resolvers(e.key.name.Partition)
}

// write judges the write of e as Consul's server does, e having been decoded and validated:
// it runs its kind's own check, then (when that passes) recompiles the chains its kind says
// and those of the intentions' destinations it changes (recheck) — each must compile, and not
// crash Consul 1.16.0's server (chain.HeaderMergePanics); one exported to a peer must stay
// safe to export and, on a protocol that is not HTTP-like, gain no target outside the failover
// lists with a new identity —, then checks that the intentions it judges give permissions
// only to HTTP-like chains (l7Reasons), and stores e unless a reason refuses it (and puts it
// in the Store's view and its index of intentions when stored). The reasons name each chain
// e breaks, in service order, then each intentions entry; the stage is StagePanic when a
// recompiled chain crashes the server, else StageStore.
func (st *Store) write(e *entry) (WriteStage, []string) {
	chains := append(e.kind.recompiles(st, e), st.recheck(e)...)
	slices.SortFunc(chains, exports.ServiceName.Compare)
	chains = slices.Compact(chains)
	_, known := st.entries[e.key]
	prev := st.set(e)
	var reasons []string
	if e.kind.check != nil {
		reasons = e.kind.check(st, e)
	}
	if len(reasons) > 0 {
		chains = nil // the server stops at its own check
	}
	stage := StageStore
	protocols := make(map[exports.ServiceName]string, len(chains))
	for _, s := range chains {
		why, c, panics := st.judge(s, e, prev)
		if panics {
			stage = StagePanic
		}
		reasons = append(reasons, why...)
		protocolOf(protocols, s, c)
	}
	if stage != StagePanic {
		reasons = append(reasons, st.l7Reasons(e, protocols)...)
	}
	if len(reasons) > 0 {
		st.restore(e, prev)
		if !known {
			st.forget(e.key)
		}
		return stage, reasons
	}
	st.show(e, prev)
	st.reindex(e)
	return stage, nil
}

// judge recompiles the chain of s with the written entry in place, and says why that chain
// refuses the write: it does not compile; or compiling it crashes Consul 1.16.0's server; or
// it is exported to a peer and not safe to export, or, for a protocol that is not HTTP-like,
// has a target that no failover list names whose identity it did not have with prev, the
// entry of e's key before the write of e. It returns the chain compiled, nil when it does not
// compile or crashes the server (panics).
func (st *Store) judge(s exports.ServiceName, e, prev *entry) (reasons []string, c *chain.Chain, panics bool) {
	where := "chain " + s.String() + ": "
	c, err := st.compile(s)
	if err != nil {
		return prefixed(where, consulWords(err)), nil, false
	}
	for _, f := range c.Findings() {
		if f.Code == chain.HeaderMergePanics {
			return []string{where + "Consul 1.16.0's server panics on this write (assignment to entry in nil map) and does not store it: " + f.Message}, nil, true
		}
	}
	if !st.exportedToPeer(s) {
		return nil, c, false
	}
	if err := c.CheckPeerExport(); err != nil {
		return prefixed(where, consulWords(err)), c, false
	}
	if chain.IsHTTPLike(c.Protocol) {
		return nil, c, false
	}
	written := st.set(e.deletion()) // as it was: prev in place
	st.restore(e, prev)
	before, err := st.compile(s)
	st.restore(e, written)
	if err != nil {
		return prefixed(where, []string{fmt.Sprintf("error compiling current discovery chain for %q: %s", s.Short(), errors.Join(fielderr.Split(err)...))}), c, false
	}
	had := nonFailoverIdentities(before)
	var out []string
	for _, id := range nonFailoverTargets(c) {
		if !had[identityOf(c.Targets[id])] {
			out = append(out, fmt.Sprintf("peer exported service %q uses protocol=%q and cannot introduce new discovery chain targets like %q", s.Short(), c.Protocol, id))
		}
	}
	return prefixed(where, out), c, false
}

// compile compiles the chain of s from what Consul's server reads for it.
func (st *Store) compile(s exports.ServiceName) (*chain.Chain, error) {
	return chain.Compile(request(s, checkDatacenter, checkTrustDomain), st.readEntries(s, nil))
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
func checkGroups(st *Store, e *entry) []string {
	if e.deleted {
		return nil
	}
	var groups []exports.SamenessGroup
	for _, k := range st.groups[e.key.name.Partition] {
		if g := st.live(k); g != nil {
			groups = append(groups, *g.group())
		}
	}
	var out []string
	for _, err := range fielderr.Split(exports.ValidateSamenessGroups(groups)) {
		out = append(out, err.Error())
	}
	return out
}
