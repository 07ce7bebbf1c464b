// Package peermeta decides what a Consul-style cluster replicates to a peer for each service
// it exports: the TLS server name the importing side must dial, the SPIFFE IDs it must accept
// from the other end, and the protocol, plus the synthetic service instances — one per local
// mesh gateway — that carry them.
//
// A peer never dials an exported service's instances directly: it dials the exporter's mesh
// gateway with an SNI naming the service, and the gateway forwards the connection along the
// service's discovery chain. So for each exported service (package exports decides which)
// the exporter compiles its chain (package chain) and replicates a PeerMeta:
//
//	SNI       svc.ns.partition.<peer>.external.<trust domain>     (package sni)
//	SpiffeID  the service's own ID, the mesh gateway's ID,        (package spiffe)
//	          and — for tcp only — the ID of every local target the chain can land on
//	Protocol  the chain's protocol
//
// Why the difference: for HTTP-like protocols (http, http2, grpc) the exporter's mesh gateway
// terminates mTLS and re-originates it, so the importer sees the gateway's identity; for tcp
// the connection's mTLS ends at whichever instance the chain lands on — the service itself, a
// failover in another datacenter, a redirect target — so every one of those identities must
// be accepted. The gateway's ID is always included so that switching a service between tcp
// and http never leaves the importer without the identity it needs mid-change.
//
// For example, exporting mysql (tcp) from dc1 to the peer east, where mysql fails over to
// the service failover:
//
//	SNI       mysql.default.default.east.external.<td>
//	SpiffeID  spiffe://<td>/ns/default/dc/dc1/svc/mysql
//	          spiffe://<td>/gateway/mesh/dc/dc1
//	          spiffe://<td>/ns/default/dc/dc1/svc/failover
//
// Replicate says, beside each PeerMeta, where each ID comes from (Exported.Origins: the
// service, the gateway, or which redirect or failover target, with the steps that reached
// it).
//
// # Health
//
// The peer sees each exported service as one connect-proxy instance per mesh gateway
// instance ("<svc>-sidecar-proxy-instance-<i>"), at the gateway's address and port, with the
// gateway's checks flattened into one "overall-check": maintenance if the gateway or its node
// is in maintenance, else the worst of its checks (an unknown status counts as critical).
//
// # Replication, as Consul decides it
//
// Replicate puts it together for one peer: given the compiled exports, the catalog with each
// service's kind, the discovery chain entries and the mesh gateways, it returns every service
// the peer receives, sorted. A "*" rule exports the namespace's typical catalog services and
// the names of its resolver, router and splitter entries, as Consul does — never a mesh, terminating, ingress or API
// gateway, nor a sidecar proxy such as web-sidecar-proxy — and an exact rule the service it
// names, whatever its kind. A catalog service whose kind the caller does not know
// (Input.Unclassified: /v1/catalog/services does not say it) is not exported by "*", and is
// reported where a "*" rule would match it. Only connect services — with a service-resolver,
// service-router or service-splitter entry, a connect-enabled instance or a terminating gateway (Input.Connect) — get a chain
// and a PeerMeta; the others are listed in Plain, replicated without one. It reports —
// rather than drops — services whose chain does not compile or that Consul would refuse to
// export to a peer (a cross-datacenter, cross-peer or cross-partition redirect, or a
// cross-datacenter failover, in any resolver reachable from the service), and services
// excluded because their chain reaches the reserved consul service.
//
// # Findings
//
// What a reader should know comes as Findings, one shape for all (path, code, level,
// message; the level is the code's): Replication.Findings (UnionDiffers where Consul's union
// of rules replicates a service meshscope's one rule does not, UnknownKind, and the chains'
// own, such as chain.PeerTargetResolvedLocally), CheckGateways (NoMeshGateway,
// GatewaysCritical) and the store's Config.Findings (EntrySkipped). Each fact is
// reported once: a service not replicated is in Replication.Failed or Excluded, each chain a
// refused write breaks in ReplicationDiff.Refused, and their AllFindings methods give those
// as findings too (NotReplicated, Excluded, WriteRefused), so that a program prints and gates
// on everything alike.
//
// # Who may call whom
//
// Calls answers "may CALLER call SERVICE [REQUEST]" for the cluster's callers and its peers':
// whether the call arrives (a peer's caller reaches only the local services a chain Consul
// exports to its peer targets — the union of the exported-services rules naming the peer,
// as Consul's ExportedServicesForPeer lists them, not the one rule Replicate applies),
// whether the destination's sidecar has the peer's trust bundle (which follows the most exact
// rule: a service exported to east by "*" while its own rule names west trusts west only),
// how the caller arrives (its own certificate; through an HTTP-like chain, the mesh
// gateway's certificate and the forwarded header) and Envoy's decision, explained by package
// intentions — where it differs from the check API and from "the most precedent matching
// intention decides", and why. It reads the replication Input and the store's Sidecars
// (store.Config.Sidecars: the peerings — LoadPeerings reads /v1/peerings — and each
// registration's own protocol, APIOutput.Protocols):
//
//	calls, _ := peermeta.NewCalls(in, sidecars)
//	call, _ := calls.May(intentions.Caller{Service: "frontend", Peer: "east"}, "billing", intentions.Request{Method: "GET", Path: "/"}, acl)
//	fmt.Println(call) // may east/frontend call billing? no (GET /) … billing's sidecar has no trust bundle of "east" …
//
// Calls.Lint reports what users of intentions get wrong and Consul accepts without a word
// (IntentionNeverMatches, TrustBundleMissing, L7OnNetworkFilter, IntentionPeerUnknown,
// RegexRefused, SourceShadowed, IntentionsUnjudged: see the codes), and DiffCalls is the dry
// run of a change for the callers the intentions name: each call it allows or denies.
//
// # Reading Consul's configuration and API output
//
// The config entries `consul config read` prints are read into a Config, the store's (package
// store, chain/store, which holds a Consul server's config entries and its write path; Config,
// LoadConfig, WriteOutcome and WriteStage here are its names): Input.Entries and the
// exported-services entries compiled into Input.Exports come from it.
//
// APIOutput reads what Consul's HTTP API says about the services — the catalog
// (/v1/internal/ui/services, /v1/catalog/service/<name>, /v1/catalog/services), health
// output (/v1/health/service/<name>: the mesh gateways, sidecar proxies, connect-native
// instances) and a terminating gateway's services — and settles it into an Input: each
// catalog service's ServiceKind, and the connect services, by one rule whichever output
// tells of an instance (a sidecar proxy makes its destination a connect service, a
// connect-native instance its own service), and the protocol each sidecar proxy's
// registration gives itself (Protocols). LoadTrustDomain reads /v1/connect/ca/roots,
// LoadPeerings /v1/peerings.
//
// # A change's dry run
//
// Diff is the dry run of a change: it writes each entry the proposed configuration holds
// differently as Consul's server takes a write (store.Replay, judged with the intentions of
// Input.Intentions), lists every write the server refuses with the chains it breaks, and, for one peer, each service whose replication
// changes once the accepted writes are stored (added, removed, SPIFFE IDs gained and lost,
// SNI, protocol, start target, instances). A tcp export's refusal reads:
//
//	service-resolver db: chain default/default/db: peer exported service "db" uses protocol="tcp" and cannot introduce new discovery chain targets like "db2.default.default.dc1"
//
// Upstream is the importer's side: for a chain's peer target and the PeerMeta the peer sent,
// the SNI to dial and exactly the SPIFFE IDs to accept.
//
// # Errors and contracts
//
// Every error is a FieldError (or several joined); a Failure keeps its whole error. The
// strings that are contracts are the SNI names, SPIFFE IDs and instance IDs, Consul's JSON
// field names (what this package writes reads into Consul's own API types), Consul's
// messages (the refusals above, and those package chain passes on) and the finding codes.
// Upstream's messages, findings' messages and Reasons are diagnostics and may change.
package peermeta
