package peermeta

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/chain/store"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/report"
)

// ReplicationDiff is what changes for one peer between two configurations — the dry run of a
// change to exported-services, resolvers, routers, splitters, protocols, sameness groups or
// gateways — and the writes of the change Consul's server refuses.
type ReplicationDiff struct {
	Peer string `json:"Peer"`
	// Services are the services whose replication changes once the writes Consul accepts
	// are stored, sorted by partition, namespace and name.
	Services []ServiceChange `json:"Services"`
	// Refused are the changes Consul's server refuses, one line per chain a refused write
	// breaks, "<kind> <entry>: <reason>" with the reason in Consul's words, in the order Diff
	// writes (see Diff; the order is fixed, whatever the order of the input). A refused
	// write is not stored: it changes no service's replication.
	Refused []string `json:"Refused,omitempty"`
}

// AllFindings returns the refused writes as findings, for a program that prints and gates on
// findings: one WriteRefused finding per reason, its path the entry written.
func (d *ReplicationDiff) AllFindings() []Finding {
	out := make([]Finding, 0, len(d.Refused))
	for _, line := range d.Refused {
		path, reason, _ := strings.Cut(line, ": ") // an entry's kind and name hold no ": "
		out = append(out, report.New(path, WriteRefused, "%s", reason))
	}
	return out
}

// ServiceChange is how one service's replication to the peer changes: Key is the service,
// Before and After how it is replicated on each side (the zero ServiceState: not exported to
// the peer), and Gained and Lost the SPIFFE IDs the peer starts and stops accepting for it,
// each in the order of the PeerMeta it comes from.
type ServiceChange = report.Change[exports.ServiceName, ServiceState, string]

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

// Diff is the dry run of the change from before to after, for the peer after.Exporter.Peer
// (before is replicated with before's exporter and that peer: each side keeps its own trust
// domain, datacenter and partition). It writes each entry after holds differently from
// before — new, changed or gone — to before's configuration as Consul's server takes a write
// (see store.Replay, the dry run's writes), and lists in Refused every chain a write the
// server refuses breaks:
//
//	service-resolver db: chain default/default/db: peer exported service "db" uses protocol="tcp" and cannot introduce new discovery chain targets like "db2.default.default.dc1"
//	service-resolver db: chain default/default/db: peer exported service "db" contains cross-datacenter resolver redirect
//	service-resolver web: chain default/default/web: detected circular resolver redirect: [web.default.default.dc1 -> db.default.default.dc1 -> web.default.default.dc1]
//
// The order of the writes matters to Consul, and two configurations do not say it: Diff writes
// in store.Replay's order (proxy-defaults first, the resolvers of the services a resolver
// names before it, exported-services last, then the deletions). Then it replicates both
// sides — after as the writes Consul accepts leave it — and returns, for each service whose replication
// changes, what the peer gains and loses: services, SNI, SPIFFE IDs, protocol, start target,
// instances, and services replicated without a chain. Invalid input on either side is an
// error.
func Diff(before, after Input) (ReplicationDiff, error) {
	peer := after.Exporter.Peer
	before.Exporter.Peer = peer
	b, err := Replicate(before)
	if err != nil {
		return ReplicationDiff{}, fmt.Errorf("before: %w", err)
	}
	if err := after.validate(); err != nil {
		return ReplicationDiff{}, fmt.Errorf("after: %w", err)
	}
	if _, err := chain.NewCompiler(after.Entries); err != nil {
		return ReplicationDiff{}, fmt.Errorf("after: %w", err)
	}
	writes, stored, err := store.Replay(Config{Exports: entriesOf(before.Exports), Entries: before.Entries, Intentions: before.Intentions},
		Config{Exports: entriesOf(after.Exports), Entries: after.Entries, Intentions: after.Intentions})
	if err != nil {
		return ReplicationDiff{}, err
	}
	out := ReplicationDiff{Peer: peer, Services: []ServiceChange{}, Refused: Refused(writes)}
	if len(out.Refused) > 0 {
		after.Entries = stored.Entries
		if after.Exports, err = exports.CompileGroups(stored.Entries.SamenessGroups, stored.Exports...); err != nil {
			return ReplicationDiff{}, fmt.Errorf("after: %w", err)
		}
	}
	a, err := Replicate(after)
	if err != nil {
		return ReplicationDiff{}, fmt.Errorf("after: %w", err)
	}
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
	return out, nil
}

// Refused renders the writes of a dry run Consul's server refuses, as ReplicationDiff.Refused
// lists them: one line per reason, "<kind> <entry>: <reason>", in the order written.
func Refused(writes []WriteOutcome) []string {
	var out []string
	for _, o := range writes {
		for _, r := range o.Reasons {
			out = append(out, o.Entry()+": "+r)
		}
	}
	return out
}

// entriesOf returns the exported-services entries x was compiled from, by partition.
func entriesOf(x *exports.Exports) []exports.ConfigEntry {
	var out []exports.ConfigEntry
	if x == nil {
		return nil
	}
	for _, p := range x.Partitions() {
		if e, ok := x.Entry(p); ok {
			out = append(out, *e)
		}
	}
	return out
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
