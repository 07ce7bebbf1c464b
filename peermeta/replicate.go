package peermeta

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
)

// Input is everything a cluster knows when it decides what to replicate to a peer.
type Input struct {
	// Exporter is the cluster as the peering sees it; Exporter.Peer names the peer.
	Exporter Exporter
	// Exports decides which services the peer receives.
	Exports *exports.Exports
	// Catalog is the cluster's services; only those of the exporter's partition can be
	// exported on its peering.
	Catalog []exports.ServiceName
	// Entries are the service-resolver entries and the services' protocols.
	Entries chain.Entries
	// Gateways are the local mesh gateway instances (as /v1/health/service/mesh-gateway
	// returns them); every exported service gets a synthetic instance at each.
	Gateways []CheckServiceNode
}

// Replication is everything one peer receives, and what it does not and why.
type Replication struct {
	Peer     string      `json:"Peer"`
	Exporter Exporter    `json:"Exporter"`
	Services []Exported  `json:"Services"`
	Failed   []Failure   `json:"Failed,omitempty"`
	Excluded []Exclusion `json:"Excluded,omitempty"`
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
}

// Exclusion is an exported service that is deliberately not replicated.
type Exclusion struct {
	Service exports.ServiceName `json:"Service"`
	Reason  string              `json:"Reason"`
}

// Replicate decides what the peer Exporter.Peer receives: the services of the exporter's
// partition whose one exported-services rule names the peer, sorted by partition, namespace
// and name, each with its PeerMeta (see Build), the origin of each SPIFFE ID, and one
// synthetic instance per mesh gateway instance (see Synthesize). A service whose chain does
// not compile is reported in Failed with the error; one whose chain reaches the reserved
// consul service is reported in Excluded. Invalid input — the exporter, or the resolver
// entries, which every chain shares — is an error.
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
	var local []exports.ServiceName
	for _, s := range in.Catalog {
		if s.Canonical().Partition == x.partition() {
			local = append(local, s)
		}
	}
	for _, s := range in.Exports.ForPeer(x.Peer, local) {
		c, err := cc.Compile(chain.Request{Service: s.Name, Namespace: s.Namespace, Partition: s.Partition, Datacenter: x.Datacenter, TrustDomain: x.TrustDomain})
		if err != nil {
			rep.Failed = append(rep.Failed, Failure{Service: s, Err: err})
			continue
		}
		if reason := reachesConsul(c); reason != "" {
			rep.Excluded = append(rep.Excluded, Exclusion{Service: s, Reason: reason})
			continue
		}
		m, origins := build(x, c)
		match, _ := in.Exports.Match(s)
		rep.Services = append(rep.Services, Exported{Service: s, Rule: match.Rule, PeerMeta: m, Origins: origins, Instances: Synthesize(s, m, gateways)})
	}
	return rep, nil
}

// reachesConsul says which target of the chain is the reserved consul service, if any.
func reachesConsul(c *chain.Chain) string {
	for _, id := range c.TargetIDs() {
		if t := c.Targets[id]; t.Peer == "" && t.Service == exports.ReservedService {
			return fmt.Sprintf("its chain reaches the reserved %s service (target %s); it is never exported", exports.ReservedService, id)
		}
	}
	return ""
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
