package peermeta

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/report"
	"github.com/meshscope/meshscope/spiffe"
)

// ReplicationDiff is what changes for one peer between two configurations: the dry run of a
// change to exported-services, resolvers, protocols, sameness groups or gateways.
type ReplicationDiff struct {
	Peer string `json:"Peer"`
	// Services are the services whose replication changes, sorted by partition, namespace
	// and name.
	Services []ServiceChange `json:"Services"`
	// Refused lists every change Consul would refuse to write, in its words, sorted.
	Refused []string `json:"Refused,omitempty"`
	// Findings are the refusals as findings (WriteRefused), each naming its service, sorted
	// by path.
	Findings []Finding `json:"Findings,omitempty"`
}

// ServiceChange is how one service's replication to the peer changes: Key is the service,
// Before and After how it is replicated on each side (the zero ServiceState: not exported to
// the peer), and Gained and Lost the SPIFFE IDs the peer starts and stops accepting for it,
// each in the order of the PeerMeta it comes from.
type ServiceChange = report.Change[exports.ServiceName, ServiceState, string]

// Change is how one thing differs between two configurations: Key names it, Before and
// After are its value on each side (the zero value when it has none, left out of JSON), and
// Gained and Lost are the elements of a set it gains and loses. It is the one change shape
// of meshscope's packages.
type Change[K, V, E any] = report.Change[K, V, E]

// ReplicatedAs is how a service is replicated to a peer, in ServiceState.As; "" when it is
// not exported to the peer.
type ReplicatedAs string

// The ways a service is replicated.
const (
	AsChain    ReplicatedAs = "chain"    // with a discovery chain and PeerMeta
	AsPlain    ReplicatedAs = "plain"    // without a chain: not a connect service
	AsFailed   ReplicatedAs = "failed"   // exported but not replicated: see Replication.Failed
	AsExcluded ReplicatedAs = "excluded" // exported but not replicated: see Replication.Excluded
)

// ServiceState is how one service is replicated to a peer, as a dry run compares it. The
// zero value is a service that is not exported to the peer.
type ServiceState struct {
	// As is AsChain, AsPlain, AsFailed or AsExcluded; "" when the service is not exported to
	// the peer.
	As ReplicatedAs `json:"As,omitempty"`
	// Reason says why a failed or excluded service is not replicated.
	Reason string `json:"Reason,omitempty"`
	// SNI, Protocol, Start and SpiffeIDs are those of a service replicated with a chain: its
	// primary SNI, its protocol, its chain's start target and its PeerMeta's SPIFFE IDs.
	SNI       string   `json:"SNI,omitempty"`
	Protocol  string   `json:"Protocol,omitempty"`
	Start     string   `json:"Start,omitempty"`
	SpiffeIDs []string `json:"SpiffeIDs,omitempty"`
	// Instances are its synthetic instances, each "node/service ID".
	Instances []string `json:"Instances,omitempty"`
}

// Replicated reports whether the peer receives the service in this state: with a chain or
// as a plain service.
func (s ServiceState) Replicated() bool { return s.As == AsChain || s.As == AsPlain }

// Diff replicates before and after to the peer after.Exporter.Peer (before's exporter with
// that peer: each side keeps its own trust domain, datacenter and partition) and returns,
// for each service whose replication changes, what the peer gains and loses — services,
// SNI, SPIFFE IDs, protocol, start target, instances, and services replicated without a
// chain — and every change Consul would refuse to write:
//
//	peer exported service "db" uses protocol="tcp" and cannot introduce new discovery chain targets like "db2.default.default.dc1"
//
//	peer exported service "db" contains cross-datacenter resolver redirect
//
//	detected circular resolver redirect: [db.default.default.dc1 -> db2.default.default.dc1 -> db.default.default.dc1]
//
// Consul refuses a change that breaks the chain of a service exported to a peer (a redirect
// cycle, an unknown subset, inconsistent protocols, a missing sameness group: its compile
// error is the refusal; a chain that did not compile before is not refused again), a
// change that makes such a chain unsafe to export (see chain.Chain.CheckPeerExport; a
// chain already unsafe before is not refused again), and a change that gives such a
// service, when its protocol is not HTTP-like, a start target whose identity (partition,
// namespace, datacenter and service; a peer target's peer counts as its datacenter, in a
// trust domain of its own) none of the service's non-failover targets had before. Failover targets are left out on both sides,
// as Consul does: adding or changing failover never trips the rule, and neither does
// switching between tcp and http, but a start target that was only a failover target before
// is new. Invalid input on either side is an error.
func Diff(before, after Input) (ReplicationDiff, error) {
	peer := after.Exporter.Peer
	before.Exporter.Peer = peer
	b, err := Replicate(before)
	if err != nil {
		return ReplicationDiff{}, fmt.Errorf("before: %w", err)
	}
	a, err := Replicate(after)
	if err != nil {
		return ReplicationDiff{}, fmt.Errorf("after: %w", err)
	}
	out := ReplicationDiff{Peer: peer, Services: []ServiceChange{}}
	bs, as := states(b), states(a)
	keys := make(map[exports.ServiceName]bool, len(bs)+len(as))
	for k := range bs {
		keys[k] = true
	}
	for k := range as {
		keys[k] = true
	}
	for _, s := range slices.SortedFunc(maps.Keys(keys), exports.ServiceName.Compare) {
		if ch, changed := change(s, bs[s], as[s]); changed {
			out.Services = append(out.Services, ch)
		}
	}
	refused, err := refusals(before, after, b, a)
	if err != nil {
		return ReplicationDiff{}, err
	}
	for _, r := range refused {
		out.Refused = append(out.Refused, r.Message)
		out.Findings = append(out.Findings, r)
	}
	slices.Sort(out.Refused)
	slices.SortStableFunc(out.Findings, report.Compare)
	return out, nil
}

// states returns how each service the replication names is replicated.
func states(r Replication) map[exports.ServiceName]ServiceState {
	m := make(map[exports.ServiceName]ServiceState, len(r.Services)+len(r.Plain)+len(r.Failed)+len(r.Excluded))
	for _, e := range r.Services {
		m[e.Service] = ServiceState{As: AsChain, SNI: e.PeerMeta.PrimarySNI(), Protocol: e.PeerMeta.Protocol, Start: e.Start,
			SpiffeIDs: e.PeerMeta.SpiffeID, Instances: instanceIDs(e.Instances)}
	}
	for _, s := range r.Plain {
		m[s] = ServiceState{As: AsPlain}
	}
	for _, f := range r.Failed {
		m[f.Service] = ServiceState{As: AsFailed, Reason: f.Err.Error()}
	}
	for _, e := range r.Excluded {
		m[e.Service] = ServiceState{As: AsExcluded, Reason: e.Err.Error()}
	}
	return m
}

// change compares one service's two states; changed is false when the peer would see no
// difference.
func change(s exports.ServiceName, b, a ServiceState) (ch ServiceChange, changed bool) {
	ch = ServiceChange{Key: s, Before: b, After: a}
	ch.Gained, ch.Lost = report.Delta(b.SpiffeIDs, a.SpiffeIDs)
	gi, li := report.Delta(b.Instances, a.Instances)
	changed = b.As != a.As || b.Reason != a.Reason || b.SNI != a.SNI || b.Protocol != a.Protocol || b.Start != a.Start ||
		len(ch.Gained)+len(ch.Lost)+len(gi)+len(li) > 0
	return ch, changed
}

func instanceIDs(nodes []CheckServiceNode) []string {
	out := make([]string, 0, len(nodes))
	for _, n := range nodes {
		out = append(out, nodeName(n)+"/"+serviceID(n))
	}
	return out
}

// identityOf is a target's SPIFFE identity in the sense of Consul's refusal rule: a service
// ID in one trust domain, a peer target's peer counting as its datacenter in a trust domain
// of its own, so that it never equals a local target's.
func identityOf(t *chain.Target) spiffe.Service {
	if t.Peer != "" {
		return spiffe.Service{TrustDomain: "peer", Partition: t.Partition, Namespace: t.Namespace, Datacenter: t.Peer, Service: t.Service}
	}
	return spiffe.Service{TrustDomain: "local", Partition: t.Partition, Namespace: t.Namespace, Datacenter: t.Datacenter, Service: t.Service}
}

// refusals lists the writes Consul would refuse, in its words:
//
//   - a service the peer would receive whose chain no longer compiles, with the first error
//     Consul's compiler gives (a redirect cycle, an unknown subset, inconsistent protocols, a
//     missing sameness group), when its chain compiled from before's entries compiles:
//     Consul compiles the chains a written entry touches and refuses the write that breaks
//     one;
//   - a service the peer would receive with a chain that is not peer-export safe (see
//     chain.Chain.CheckPeerExport) and was not already refused for that reason before the
//     change; Consul refuses the write of the exported-services entry or resolver that makes
//     it so;
//   - for every service the peer receives with a chain after the change whose protocol is
//     not HTTP-like, a start target whose identity is none of the identities of the
//     service's non-failover targets before (its chain compiled from before's entries,
//     exported or not). A service whose chain does not compile before has nothing to
//     compare with.
func refusals(before, after Input, b, a Replication) ([]Finding, error) {
	cc, err := chain.NewCompiler(before.Entries)
	if err != nil {
		return nil, fmt.Errorf("before: %w", err)
	}
	var out []Finding
	refuse := func(s exports.ServiceName, msg string) {
		out = append(out, report.New(replicationPath(s, after.Exporter.Peer), WriteRefused, "%s", msg))
	}
	wasUnsafe := make(map[exports.ServiceName]string, len(b.Failed))
	for _, f := range b.Failed {
		if errors.Is(f.Err, chain.ErrPeerExport) {
			wasUnsafe[f.Service] = f.Err.Error()
		}
	}
	x := before.Exporter
	for _, f := range a.Failed {
		if errors.Is(f.Err, chain.ErrPeerExport) {
			if wasUnsafe[f.Service] != f.Err.Error() {
				refuse(f.Service, peerExportMessage(f.Err))
			}
			continue
		}
		msg := compileMessage(f.Err)
		if msg == "" {
			continue
		}
		if _, err := cc.Compile(chain.Request{Service: f.Service.Name, Namespace: f.Service.Namespace, Partition: f.Service.Partition, Datacenter: x.Datacenter, TrustDomain: x.TrustDomain}); err == nil {
			refuse(f.Service, msg)
		}
	}
	for _, e := range a.Services {
		if chain.IsHTTPLike(e.PeerMeta.Protocol) {
			continue
		}
		old, err := cc.Compile(chain.Request{Service: e.Service.Name, Namespace: e.Service.Namespace, Partition: e.Service.Partition, Datacenter: x.Datacenter, TrustDomain: x.TrustDomain})
		if err != nil {
			continue
		}
		if !nonFailoverIdentities(old)[e.start] {
			refuse(e.Service, fmt.Sprintf("peer exported service %q uses protocol=%q and cannot introduce new discovery chain targets like %q",
				e.Service.Short(), e.PeerMeta.Protocol, e.Start))
		}
	}
	return out, nil
}

// nonFailoverIdentities returns the identities of the chain's targets that no target fails
// over to: Consul leaves failover targets out of the comparison on both sides.
func nonFailoverIdentities(c *chain.Chain) map[spiffe.Service]bool {
	failover := map[string]bool{}
	for _, t := range c.Targets {
		for _, id := range t.Failover {
			failover[id] = true
		}
	}
	out := make(map[spiffe.Service]bool, len(c.Targets))
	for id, t := range c.Targets {
		if !failover[id] {
			out[identityOf(t)] = true
		}
	}
	return out
}

// compileMessage is the first of the errors joined in a compile error that Consul's own
// compiler gives, in its words (a redirect cycle, an unknown subset, inconsistent protocols,
// a missing sameness group), without the path meshscope puts in front; "" when there is
// none.
func compileMessage(err error) string {
	for _, e := range fielderr.Split(err) {
		var fe *FieldError
		if errors.As(e, &fe) && fe.Detail != "" {
			for _, kind := range []error{chain.ErrRedirectCycle, chain.ErrUnknownSubset, chain.ErrProtocolMismatch, chain.ErrMissingSamenessGroup} {
				if errors.Is(fe.Err, kind) {
					return fe.Detail
				}
			}
		}
	}
	return ""
}

// peerExportMessage is Consul's message in a peer-export error: the FieldError's Detail
// without the path meshscope puts in front.
func peerExportMessage(err error) string {
	var fe *FieldError
	if errors.As(err, &fe) && fe.Detail != "" {
		return fe.Detail
	}
	return err.Error()
}
