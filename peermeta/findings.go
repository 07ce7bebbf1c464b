package peermeta

import (
	"fmt"

	"github.com/meshscope/meshscope/chain/store"
	"github.com/meshscope/meshscope/internal/report"
)

// Finding is one result of a check: Path (what it is about), Code, Level (the code's) and
// Message. Every finding of the Consul half has this shape, so a program prints and gates
// on all of them alike.
type Finding = report.Finding

// The codes of the findings of Replicate, Diff, CheckGateways and the store, with their
// levels.
var (
	// NotReplicated (error): an exported connect service is not replicated to the peer: its
	// chain does not compile, or Consul would refuse to export it (Replication.Failed, as
	// Replication.AllFindings reports it).
	NotReplicated = report.NewCode("NotReplicated", report.Error)
	// Excluded (warning): an exported service is not replicated because its chain reaches the
	// reserved consul service (Replication.Excluded, as Replication.AllFindings reports it).
	Excluded = report.NewCode("Excluded", report.Warning)
	// UnionDiffers (warning): Consul replicates the service to the peer although its one
	// rule does not name the peer, because Consul replicates the union of every rule naming a
	// peer; meshscope applies the one rule (see exports.Exports.UnionMatch).
	UnionDiffers = report.NewCode("UnionDiffers", report.Warning)
	// UnknownKind (warning): a "*" rule naming the peer matches a catalog service whose kind
	// the input does not say (Input.Unclassified); a "*" rule exports only typical services,
	// so it is not replicated, but it may be one. The message says which input gives kinds
	// (Input.KindsFrom).
	UnknownKind = report.NewCode("UnknownKind", report.Warning)
	// NoMeshGateway (warning): there is no mesh gateway instance, so peers can reach no
	// exported service.
	NoMeshGateway = report.NewCode("NoMeshGateway", report.Warning)
	// GatewaysCritical (warning): every mesh gateway instance is critical.
	GatewaysCritical = report.NewCode("GatewaysCritical", report.Warning)
	// WriteRefused (error): Consul's server would refuse a write of a dry run, in its words
	// (ReplicationDiff.Refused, as ReplicationDiff.AllFindings reports it).
	WriteRefused = report.NewCode("WriteRefused", report.Error)
	// EntrySkipped is store.EntrySkipped, declared where the store reports it: the store
	// (LoadConfig, Config.Add and Apply) skipped a config entry of a kind replication does
	// not depend on (the gateways' entries, jwt-provider, …).
	EntrySkipped = store.EntrySkipped
)

// The codes of Calls.Lint: what users of intentions get wrong and Consul accepts without a
// word, with their levels.
var (
	// IntentionNeverMatches (warning): an intention of a peer that no caller of the peer ever
	// matches on the destination's sidecar: through an HTTP-like chain Consul matches peers on
	// the x-forwarded-client-cert header, which a grpc sidecar, or the mesh entry's
	// HTTP.SanitizeXForwardedClientCert, strips; an http chain to a tcp sidecar shows the
	// mesh gateway's certificate; a tcp chain to an http sidecar sends no header.
	IntentionNeverMatches = report.NewCode("IntentionNeverMatches", report.Warning)
	// TrustBundleMissing (warning): an intention of a peer that the destination's sidecar
	// leaves out, having no trust bundle of the peer: no service whose chain targets the
	// destination is exported to the peer by its most exact rule (a "*" rule naming the peer
	// does not count where an exact rule names another), or the peering is not active.
	TrustBundleMissing = report.NewCode("TrustBundleMissing", report.Warning)
	// L7OnNetworkFilter (warning): an intention with permissions on a destination whose
	// sidecar's own protocol is not HTTP-like (a registration's protocol beats
	// service-defaults): Envoy's network filter reads it as a deny, whatever the request.
	L7OnNetworkFilter = report.NewCode("L7OnNetworkFilter", report.Warning)
	// IntentionPeerUnknown (warning): an intention names a peer the cluster has no peering
	// with; Consul accepts it, and it never applies.
	IntentionPeerUnknown = report.NewCode("IntentionPeerUnknown", report.Warning)
	// RegexRefused (error): a PathRegex or header Regex that does not compile in a permission
	// the destination's rules hold under the ACL default policy: Envoy refuses the public
	// listener, and every call to the destination fails.
	RegexRefused = report.NewCode("RegexRefused", report.Error)
	// SourceShadowed (note): an intention the destination's sidecar never applies because a
	// more precedent intention has the same source (web→api shadows web→* on api's sidecar):
	// Consul keeps the most precedent intention of each source only.
	SourceShadowed = report.NewCode("SourceShadowed", report.Note)
	// IntentionsUnjudged (warning): meshscope cannot say who may call the destination: its
	// sidecar's inputs do not compile (a chain that does not compile, what meshscope does not
	// model, such as JWT requirements on an HTTP sidecar); the message says why.
	IntentionsUnjudged = report.NewCode("IntentionsUnjudged", report.Warning)
)

// replicationPath is the Path of a finding about one service's replication to a peer.
func replicationPath(s fmt.Stringer, peer string) string {
	return s.String() + " (peer " + peer + ")"
}

// CheckGateways reports when peers can reach no exported service at all: there is no mesh
// gateway instance (NoMeshGateway), or every instance's checks, flattened as its synthetic
// instances carry them (see Exported.Instances), are critical (GatewaysCritical).
func CheckGateways(gateways []CheckServiceNode) []Finding {
	if len(gateways) == 0 {
		return []Finding{report.New("mesh gateways", NoMeshGateway, "no mesh gateway instances: peers can reach no exported service")}
	}
	for _, g := range gateways {
		checks := flatten(g.Checks, "", "", "")
		if len(checks) == 0 || checks[0].Status != StatusCritical {
			return nil
		}
	}
	return []Finding{report.New("mesh gateways", GatewaysCritical, "all %d mesh gateway instances are critical: peers can reach no exported service", len(gateways))}
}
