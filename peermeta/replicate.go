package peermeta

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/spiffe"
)

// Input is everything a cluster knows when it decides what to replicate to a peer.
type Input struct {
	// Exporter is the cluster as the peering sees it; Exporter.Peer names the peer.
	Exporter Exporter
	// Exports decides which services the peer receives (exports.CompileGroups when the
	// exported-services entries name sameness groups).
	Exports *exports.Exports
	// Catalog is the cluster's services; only those of the exporter's partition can be
	// exported on its peering.
	Catalog []exports.ServiceName
	// Entries are the service-resolver entries, the services' protocols and the sameness
	// groups.
	Entries chain.Entries
	// Gateways are the local mesh gateway instances (as /v1/health/service/mesh-gateway
	// returns them); every exported connect service gets a synthetic instance at each.
	Gateways []CheckServiceNode
	// Connect lists the services that have a connect-enabled instance (a sidecar proxy for
	// them, or a connect-native instance) or sit behind a terminating gateway. With the
	// services that have a service-resolver entry, they are the connect services: the only
	// ones replicated with a discovery chain.
	Connect []exports.ServiceName
}

// Replication is everything one peer receives, and what it does not and why. The caller
// owns it: nothing in it is shared with the Input or with any other call's result.
type Replication struct {
	Peer     string     `json:"Peer"`
	Exporter Exporter   `json:"Exporter"`
	Services []Exported `json:"Services"`
	// Plain are the exported services that are not connect services: Consul replicates them
	// as services without PeerMeta (the importer gets their plain instances). Sorted.
	Plain []exports.ServiceName `json:"Plain,omitempty"`
	// Failed are the exported connect services whose chain does not compile or is not safe
	// to export to a peer; Excluded those deliberately not replicated because their chain
	// reaches the reserved consul service (Err wraps ErrReservedService).
	Failed   []Failure `json:"Failed,omitempty"`
	Excluded []Failure `json:"Excluded,omitempty"`
}

// Exported is one replicated service: its PeerMeta, where each SPIFFE ID comes from, and its
// synthetic instances.
type Exported struct {
	Service exports.ServiceName `json:"Service"`
	// Rule is the index of the exported-services rule that exports it.
	Rule      int                `json:"Rule"`
	PeerMeta  PeerMeta           `json:"PeerMeta"`
	Origins   []Origin           `json:"Origins"`
	Instances []CheckServiceNode `json:"Instances"`
	// Start is the ID of the chain's start target.
	Start string `json:"Start"`

	start spiffe.Service // the start target's identity, for Diff's refusal rule
}

// Replicate decides what the peer Exporter.Peer receives: the services of the exporter's
// partition whose one exported-services rule names the peer (under a "*" rule, the
// namespace's catalog services and the names of its service-resolver entries; under an
// exact rule the service it names, in the catalog or not), sorted by partition, namespace
// and name.
//
// Connect services — those with a service-resolver entry, or listed in Input.Connect — are
// replicated with a discovery chain: each with its PeerMeta (see Build), the origin of each
// SPIFFE ID, and one synthetic instance per mesh gateway instance (see Synthesize). The
// others are listed in Plain. A connect service is not replicated, and is listed with the
// reason, when, in this order: its chain does not compile (Failed, the compile error); its
// chain is not safe to export to a peer (Failed, chain.Chain.CheckPeerExport's error, in
// Consul's words); its chain reaches the reserved consul service (Excluded). Invalid input —
// the exporter, or the entries, which every chain shares — is an error.
func Replicate(in Input) (Replication, error) {
	if err := in.Exporter.Validate(); err != nil {
		return Replication{}, err
	}
	cc, err := chain.NewCompiler(in.Entries)
	if err != nil {
		return Replication{}, err
	}
	x := in.Exporter
	rep := Replication{Peer: x.Peer, Exporter: x, Services: []Exported{}}
	gateways := slices.Clone(in.Gateways)
	slices.SortStableFunc(gateways, func(a, b CheckServiceNode) int {
		return cmp.Or(strings.Compare(nodeName(a), nodeName(b)), strings.Compare(serviceID(a), serviceID(b)))
	})
	connect := connectServices(in)
	for _, e := range exported(in) {
		s := e.service
		if !connect[s] {
			rep.Plain = append(rep.Plain, s)
			continue
		}
		c, err := cc.Compile(chain.Request{Service: s.Name, Namespace: s.Namespace, Partition: s.Partition, Datacenter: x.Datacenter, TrustDomain: x.TrustDomain})
		if err == nil {
			err = c.CheckPeerExport()
		}
		if err != nil {
			rep.Failed = append(rep.Failed, Failure{Service: s, Err: err})
			continue
		}
		if err := reachesConsul(c); err != nil {
			rep.Excluded = append(rep.Excluded, Failure{Service: s, Err: err})
			continue
		}
		m, origins := build(x, c)
		rep.Services = append(rep.Services, Exported{Service: s, Rule: e.rule, PeerMeta: m, Origins: origins,
			Instances: Synthesize(s, m, gateways), Start: c.Start, start: identityOf(c.Targets[c.Start])})
	}
	return rep, nil
}

// export is a service the peer receives and the index of the rule that exports it.
type export struct {
	service exports.ServiceName
	rule    int
}

// exported returns the services of the exporter's partition the peer receives, sorted by
// service: of the catalog, the resolver entries' names and the names of exact rules,
// those whose one rule names the peer, each matched once.
func exported(in Input) []export {
	var out []export
	for _, s := range candidates(in) {
		if m, ok := in.Exports.MatchPeer(s, in.Exporter.Peer); ok {
			out = append(out, export{s, m.Rule})
		}
	}
	return out
}

// candidates returns the names the exporter's partition could export: its catalog services,
// the names of its resolver entries and of its exact rules, canonical, sorted, without
// repeats.
func candidates(in Input) []exports.ServiceName {
	part := in.Exporter.partition()
	var names []exports.ServiceName
	for _, s := range in.Catalog {
		if s = s.Canonical(); s.Partition == part {
			names = append(names, s)
		}
	}
	for i := range in.Entries.Resolvers {
		if s := in.Entries.Resolvers[i].ServiceName(); s.Partition == part {
			names = append(names, s)
		}
	}
	if e, ok := in.Exports.Entry(part); ok {
		for _, r := range e.Services {
			if r.Name != exports.Wildcard && r.Namespace != exports.Wildcard {
				names = append(names, exports.ServiceName{Partition: part, Namespace: r.Namespace, Name: r.Name}.Canonical())
			}
		}
	}
	slices.SortFunc(names, exports.ServiceName.Compare)
	return slices.Compact(names)
}

// connectServices returns the set of connect services: those with a resolver entry and
// those in Input.Connect, canonical.
func connectServices(in Input) map[exports.ServiceName]bool {
	set := make(map[exports.ServiceName]bool, len(in.Entries.Resolvers)+len(in.Connect))
	for i := range in.Entries.Resolvers {
		set[in.Entries.Resolvers[i].ServiceName()] = true
	}
	for _, s := range in.Connect {
		set[s.Canonical()] = true
	}
	return set
}

// reachesConsul says which target of the chain is the reserved consul service, if any.
func reachesConsul(c *chain.Chain) error {
	for _, id := range c.TargetIDs() {
		if t := c.Targets[id]; t.Peer == "" && t.Service == exports.ReservedService {
			return &FieldError{Value: id, Detail: fmt.Sprintf("its chain reaches the reserved %s service (target %s); it is never exported", exports.ReservedService, id), Err: ErrReservedService}
		}
	}
	return nil
}

func nodeName(c CheckServiceNode) string {
	if c.Node == nil {
		return ""
	}
	return c.Node.Node
}

func serviceID(c CheckServiceNode) string {
	if c.Service == nil {
		return ""
	}
	return c.Service.ID
}
