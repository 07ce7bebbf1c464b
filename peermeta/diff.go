package peermeta

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
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
}

// ServiceChange is how one service's replication to the peer changes.
type ServiceChange struct {
	Service exports.ServiceName `json:"Service"`
	// Added and Removed: the peer starts or stops receiving the service (as a connect
	// service or as a plain one).
	Added   bool `json:"Added,omitempty"`
	Removed bool `json:"Removed,omitempty"`
	// Before and After are how the service is replicated on each side: "chain" (with
	// PeerMeta), "plain", "failed" or "excluded" (not replicated, with the reason in
	// Reason), or "" when it is not exported to the peer.
	Before string `json:"Before,omitempty"`
	After  string `json:"After,omitempty"`
	Reason string `json:"Reason,omitempty"`
	// GainedSpiffeIDs and LostSpiffeIDs are the identities the peer starts and stops
	// accepting for the service, in the order of the PeerMeta they appear in.
	GainedSpiffeIDs []string `json:"GainedSpiffeIDs,omitempty"`
	LostSpiffeIDs   []string `json:"LostSpiffeIDs,omitempty"`
	// SNIBefore/SNIAfter, ProtocolBefore/ProtocolAfter and StartBefore/StartAfter are set
	// when they differ.
	SNIBefore      string `json:"SNIBefore,omitempty"`
	SNIAfter       string `json:"SNIAfter,omitempty"`
	ProtocolBefore string `json:"ProtocolBefore,omitempty"`
	ProtocolAfter  string `json:"ProtocolAfter,omitempty"`
	StartBefore    string `json:"StartBefore,omitempty"`
	StartAfter     string `json:"StartAfter,omitempty"`
	// GainedInstances and LostInstances are the synthetic instances' IDs the peer gains and
	// loses.
	GainedInstances []string `json:"GainedInstances,omitempty"`
	LostInstances   []string `json:"LostInstances,omitempty"`
}

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
// Consul refuses a change that makes the chain of a service exported to a peer unsafe to
// export (see chain.Chain.CheckPeerExport; a chain already unsafe before is not refused
// again), and a change that gives such a service, when its protocol is not HTTP-like, a
// start target whose identity (partition, namespace, datacenter and service; a peer
// target's peer counts as its datacenter, in a trust domain of its own) none of the
// service's non-failover targets had before. Failover targets are left out on both sides,
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
	out.Refused = refused
	return out, nil
}

// state is how one service is replicated on one side.
type state struct {
	kind   string // "chain", "plain", "failed", "excluded"
	reason string
	exp    *Exported
}

func states(r Replication) map[exports.ServiceName]state {
	m := make(map[exports.ServiceName]state, len(r.Services)+len(r.Plain)+len(r.Failed)+len(r.Excluded))
	for i := range r.Services {
		m[r.Services[i].Service] = state{kind: "chain", exp: &r.Services[i]}
	}
	for _, s := range r.Plain {
		m[s] = state{kind: "plain"}
	}
	for _, f := range r.Failed {
		m[f.Service] = state{kind: "failed", reason: f.Err.Error()}
	}
	for _, e := range r.Excluded {
		m[e.Service] = state{kind: "excluded", reason: e.Reason}
	}
	return m
}

// replicated reports whether the peer receives the service in this state.
func (s state) replicated() bool { return s.kind == "chain" || s.kind == "plain" }

// change compares one service's two states.
func change(s exports.ServiceName, b, a state) (ServiceChange, bool) {
	ch := ServiceChange{Service: s, Before: b.kind, After: a.kind}
	ch.Added, ch.Removed = !b.replicated() && a.replicated(), b.replicated() && !a.replicated()
	if a.reason != "" {
		ch.Reason = a.reason
	}
	var bm, am PeerMeta
	var bInst, aInst []CheckServiceNode
	if b.exp != nil {
		bm, bInst, ch.StartBefore = b.exp.PeerMeta, b.exp.Instances, b.exp.Start
	}
	if a.exp != nil {
		am, aInst, ch.StartAfter = a.exp.PeerMeta, a.exp.Instances, a.exp.Start
	}
	ch.GainedSpiffeIDs, ch.LostSpiffeIDs = gainedLost(bm.SpiffeID, am.SpiffeID)
	if bs, as := bm.PrimarySNI(), am.PrimarySNI(); bs != as {
		ch.SNIBefore, ch.SNIAfter = bs, as
	}
	if bm.Protocol != am.Protocol {
		ch.ProtocolBefore, ch.ProtocolAfter = bm.Protocol, am.Protocol
	}
	if ch.StartBefore == ch.StartAfter {
		ch.StartBefore, ch.StartAfter = "", ""
	}
	ch.GainedInstances, ch.LostInstances = gainedLost(instanceIDs(bInst), instanceIDs(aInst))
	changed := b.kind != a.kind || b.reason != a.reason || len(ch.GainedSpiffeIDs)+len(ch.LostSpiffeIDs)+len(ch.GainedInstances)+len(ch.LostInstances) > 0 ||
		ch.SNIAfter != ch.SNIBefore || ch.ProtocolAfter != ch.ProtocolBefore || ch.StartAfter != ch.StartBefore
	return ch, changed
}

func instanceIDs(nodes []CheckServiceNode) []string {
	out := make([]string, 0, len(nodes))
	for _, n := range nodes {
		out = append(out, nodeName(n)+"/"+serviceID(n))
	}
	return out
}

// gainedLost returns the elements of after not in before and of before not in after, each
// in its list's order; linear in the lists' lengths.
func gainedLost(before, after []string) (gained, lost []string) {
	had := make(map[string]bool, len(before))
	for _, s := range before {
		had[s] = true
	}
	has := make(map[string]bool, len(after))
	for _, s := range after {
		has[s] = true
		if !had[s] {
			gained = append(gained, s)
		}
	}
	for _, s := range before {
		if !has[s] {
			lost = append(lost, s)
		}
	}
	return gained, lost
}

// identity is a target's SPIFFE identity in the sense of Consul's refusal rule.
type identity struct {
	peer                                   bool
	partition, namespace, datacenter, name string
}

func identityOf(t *chain.Target) identity {
	if t.Peer != "" {
		return identity{true, t.Partition, t.Namespace, t.Peer, t.Service}
	}
	return identity{false, t.Partition, t.Namespace, t.Datacenter, t.Service}
}

// refusals lists the writes Consul would refuse, in its words, sorted:
//
//   - a service the peer would receive with a chain that is not peer-export safe (see
//     chain.Chain.CheckPeerExport) and was not already refused for that reason before the
//     change; Consul refuses the write of the exported-services entry or resolver that makes
//     it so;
//   - for every service the peer receives with a chain after the change whose protocol is
//     not HTTP-like, a start target whose identity is none of the identities of the
//     service's non-failover targets before (its chain compiled from before's entries,
//     exported or not). A service whose chain does not compile before has nothing to
//     compare with.
func refusals(before, after Input, b, a Replication) ([]string, error) {
	cc, err := chain.NewCompiler(before.Entries)
	if err != nil {
		return nil, fmt.Errorf("before: %w", err)
	}
	var out []string
	wasUnsafe := make(map[exports.ServiceName]string, len(b.Failed))
	for _, f := range b.Failed {
		if errors.Is(f.Err, chain.ErrPeerExport) {
			wasUnsafe[f.Service] = f.Err.Error()
		}
	}
	for _, f := range a.Failed {
		if errors.Is(f.Err, chain.ErrPeerExport) && wasUnsafe[f.Service] != f.Err.Error() {
			out = append(out, peerExportMessage(f.Err))
		}
	}
	x := before.Exporter
	for _, e := range a.Services {
		if chain.IsHTTPLike(e.PeerMeta.Protocol) {
			continue
		}
		old, err := cc.Compile(chain.Request{Service: e.Service.Name, Namespace: e.Service.Namespace, Partition: e.Service.Partition, Datacenter: x.Datacenter, TrustDomain: x.TrustDomain})
		if err != nil {
			continue
		}
		if !nonFailoverIdentities(old)[e.start] {
			out = append(out, fmt.Sprintf("peer exported service %q uses protocol=%q and cannot introduce new discovery chain targets like %q",
				displayName(e.Service), e.PeerMeta.Protocol, e.Start))
		}
	}
	slices.Sort(out)
	return out, nil
}

// nonFailoverIdentities returns the identities of the chain's targets that no target fails
// over to: Consul leaves failover targets out of the comparison on both sides.
func nonFailoverIdentities(c *chain.Chain) map[identity]bool {
	failover := map[string]bool{}
	for _, t := range c.Targets {
		for _, id := range t.Failover {
			failover[id] = true
		}
	}
	out := make(map[identity]bool, len(c.Targets))
	for id, t := range c.Targets {
		if !failover[id] {
			out[identityOf(t)] = true
		}
	}
	return out
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

// displayName names a service in Consul's messages: its name alone, or
// partition/namespace/name when either is not default.
func displayName(s exports.ServiceName) string {
	s = s.Canonical()
	if s.Partition != "default" || s.Namespace != "default" {
		return s.String()
	}
	return s.Name
}
