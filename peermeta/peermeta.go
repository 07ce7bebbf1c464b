package peermeta

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/sni"
	"github.com/meshscope/meshscope/spiffe"
)

// PeerMeta is what an exporting cluster tells a peer about one exported service, in Consul's
// wire format: the SNI to dial, the SPIFFE IDs to accept, and the protocol.
type PeerMeta struct {
	SNI      []string `json:"SNI,omitempty"`
	SpiffeID []string `json:"SpiffeID,omitempty"`
	Protocol string   `json:"Protocol,omitempty"`
}

// clone returns a copy of m that shares nothing with it.
func (m PeerMeta) clone() *PeerMeta {
	return &PeerMeta{SNI: slices.Clone(m.SNI), SpiffeID: slices.Clone(m.SpiffeID), Protocol: m.Protocol}
}

// PrimarySNI returns the SNI the importer dials: the first, or "" when there is none.
func (m *PeerMeta) PrimarySNI() string {
	if m == nil || len(m.SNI) == 0 {
		return ""
	}
	return m.SNI[0]
}

// Exporter is the exporting cluster as one peering sees it: its own name for the peering
// (the peer name its exported-services entries use), the partition the peering lives in,
// its datacenter and its trust domain.
type Exporter struct {
	Peer        string `json:"Peer"`
	Partition   string `json:"Partition,omitempty"`
	Datacenter  string `json:"Datacenter"`
	TrustDomain string `json:"TrustDomain"`
}

// Validate reports every problem with the exporter, naming the field and value.
func (x Exporter) Validate() error {
	var errs []error
	check := func(field, value, reason string) {
		if reason != "" {
			errs = append(errs, &FieldError{Field: "Exporter." + field, Value: value, Detail: fmt.Sprintf("%q %s", value, reason)})
		}
	}
	check("Peer", x.Peer, names.Label(x.Peer))
	if x.Partition != "" {
		check("Partition", x.Partition, names.Label(x.Partition))
	}
	check("Datacenter", x.Datacenter, names.Datacenter(x.Datacenter))
	check("TrustDomain", x.TrustDomain, names.Subdomain(x.TrustDomain))
	return errors.Join(errs...)
}

func (x Exporter) partition() string { return names.OrDefault(x.Partition) }

// Build returns what the exporter replicates to the peer for one compiled chain:
//
//   - SNI: the one peered name the importer dials,
//     svc.ns.partition.<peer>.external.<trust domain>;
//   - SpiffeID: the service's own ID (the chain's namespace and partition, the exporter's
//     datacenter), then the exporter's mesh gateway's ID — always, so that a change between
//     tcp and http never leaves the importer without it — then, only for protocols that are
//     not HTTP-like, the ID of every local target of the chain in target-ID order (each with
//     its own partition, namespace and datacenter, as the chain's Target.SpiffeID gives it),
//     since for TCP the connection's mTLS ends at whichever instance the chain lands on. No
//     ID appears twice.
//   - Protocol: the service's own (chain.Chain.ServiceProtocol), as Consul replicates it:
//     it is the chain's, unless a splitter sends every request to services of another
//     protocol. Whether the protocol is HTTP-like, for the SPIFFE IDs above, is this one's.
//
// The targets' IDs are the chain's, built in the trust domain it was compiled for: compile
// it in the exporter's (Replicate does). A nil chain gives an empty PeerMeta. Build does not
// validate; Replicate does, and gives beside each PeerMeta where each of its SPIFFE IDs
// comes from (Exported.Origins).
func Build(x Exporter, c *chain.Chain) PeerMeta {
	m, _ := build(x, c)
	return m
}

// OriginKind says what a SPIFFE ID of a PeerMeta is the identity of.
type OriginKind string

// The kinds of origin.
const (
	// FromService: the exported service itself.
	FromService OriginKind = "service"
	// FromMeshGateway: the exporter's mesh gateway.
	FromMeshGateway OriginKind = "mesh-gateway"
	// FromTarget: a local target of the chain (tcp only).
	FromTarget OriginKind = "target"
)

// Origin says where one SPIFFE ID of a PeerMeta comes from.
type Origin struct {
	SpiffeID string     `json:"SpiffeID"`
	From     OriginKind `json:"From"`
	// Targets are the chain targets whose identity this is, in target-ID order; Via is how
	// the first of them is reached (the request, redirects, failover).
	Targets []string     `json:"Targets,omitempty"`
	Via     []chain.Step `json:"Via,omitempty"`
}

// build is Build, and the origin of each SPIFFE ID it gives, in the same order.
func build(x Exporter, c *chain.Chain) (PeerMeta, []Origin) {
	if c == nil {
		return PeerMeta{}, nil
	}
	m := PeerMeta{
		SNI:      []string{sni.Peered{Service: c.Service.Name, Namespace: c.Service.Namespace, Partition: c.Service.Partition, Peer: x.Peer, TrustDomain: x.TrustDomain}.String()},
		Protocol: c.ServiceProtocol,
	}
	var origins []Origin
	index := make(map[string]int, 2) // SPIFFE ID -> its position: no ID twice, in linear time
	add := func(id string, from OriginKind) *Origin {
		if i, ok := index[id]; ok {
			return &origins[i]
		}
		index[id] = len(origins)
		m.SpiffeID = append(m.SpiffeID, id)
		origins = append(origins, Origin{SpiffeID: id, From: from})
		return &origins[len(origins)-1]
	}
	add(spiffe.Service{TrustDomain: x.TrustDomain, Partition: c.Service.Partition, Namespace: c.Service.Namespace, Datacenter: x.Datacenter, Service: c.Service.Name}.String(), FromService)
	add(spiffe.MeshGateway{TrustDomain: x.TrustDomain, Partition: x.partition(), Datacenter: x.Datacenter}.String(), FromMeshGateway)
	if !chain.IsHTTPLike(c.ServiceProtocol) {
		for _, tid := range c.TargetIDs() {
			t := c.Targets[tid]
			if t.Peer != "" {
				continue // a peer's service: its identities are the peer's to give
			}
			o := add(t.SpiffeID, FromTarget)
			if len(o.Targets) == 0 {
				o.Via = t.Via
			}
			o.Targets = append(o.Targets, tid)
		}
	}
	return m, origins
}

// CheckLocation questions the exporter against where its mesh gateway instances say they
// are: a peering's synthetic instances are at the mesh gateways of its own datacenter and
// partition, so when every instance that says its datacenter (Node.Datacenter) is in
// another one, or every instance that says its partition (Service.Partition, which Consul
// Enterprise's output gives) is in another one, every identity and target replicated would
// be wrong. The error names the field (Exporter.Datacenter or Exporter.Partition), its value
// and the instances elsewhere; nil when the instances say nothing or agree.
func (x Exporter) CheckLocation(gateways []CheckServiceNode) error {
	var dcs, parts []string
	dcHere, partHere := false, false // some instance says nothing, or is here
	for _, g := range gateways {
		if g.Node == nil || g.Node.Datacenter == "" || g.Node.Datacenter == x.Datacenter {
			dcHere = true
		} else {
			dcs = append(dcs, g.Node.Node+" in "+g.Node.Datacenter)
		}
		if g.Service == nil || g.Service.Partition == "" || names.OrDefault(g.Service.Partition) == x.partition() {
			partHere = true
		} else {
			parts = append(parts, fmt.Sprintf("%s in partition %s", g.Service.ID, g.Service.Partition))
		}
	}
	var errs []error
	if !dcHere && len(dcs) > 0 {
		errs = append(errs, &FieldError{Field: "Exporter.Datacenter", Value: x.Datacenter,
			Detail: fmt.Sprintf("every mesh gateway instance is in another datacenter (%s); give the exporting datacenter, the gateways' own", strings.Join(dcs, ", "))})
	}
	if !partHere && len(parts) > 0 {
		errs = append(errs, &FieldError{Field: "Exporter.Partition", Value: x.Partition,
			Detail: fmt.Sprintf("every mesh gateway instance is in another partition (%s); give the mesh gateways of the peerings' partition", strings.Join(parts, ", "))})
	}
	return errors.Join(errs...)
}
