// Package chain expands a service's resolver configuration into every target a request for
// it can land on: the resolver half of a Consul-style discovery chain.
//
// A request for a service first meets that service's service-resolver entry, which can
// redirect it elsewhere (another service, subset, namespace, partition, datacenter, or a
// cluster peer), give it a default subset, and say where it fails over when every instance is
// unhealthy. Compile follows all of that and returns a Chain: the start target, the ordered
// failover targets, and for each local target its TLS server name (package sni) and SPIFFE ID
// (package spiffe) — exactly the names a proxy must dial and the identities it must accept.
//
// Targets are named by ID: svc.ns.partition.dc, with a subset subset.svc.ns.partition.dc, and
// for a peer svc.ns.partition.external.peer. For example, requesting "main" in datacenter dc1:
//
//	no resolvers                                    start main.default.default.dc1
//	main: Redirect{Service: "other"}                start other.default.default.dc1
//	main: Failover["*"]{Datacenters: [dc2, dc4]}    failover main.default.default.dc2, main.default.default.dc4
//	backup: Redirect{Service: "actual"};
//	main: Failover["*"]{Service: "backup"}          failover actual.default.default.dc1
//	main <-> other redirects                        detected circular resolver redirect: [main… -> other… -> main…]
//
// # Resolution
//
// Resolving a target repeats until it rests: a redirect moves the target (a redirect to the
// same target is a no-op; revisiting a target is a cycle and an error); a target without a
// subset takes the resolver's default subset; a named subset must exist. The start target's
// failover section (the one for its subset, else "*") gives candidates — one per datacenter,
// one per target, or one from Service/ServiceSubset/Namespace — each resolved the same way,
// through its own redirects and default subset but not its own failover. The failover list
// keeps repeats, as Consul's does (Datacenters [dc2, dc2] lists the dc2 target twice: it is
// what the proxy is given); loops through failover are fine. meshscope differs from Consul
// on one point: a candidate that resolves to the start target is dropped (Consul drops it
// only when it is the start target before resolution, and lists the start again after).
//
// # Peer targets and local resolvers
//
// Consul finds a target's resolver by service, namespace and partition; the peer is not part
// of the lookup. So a peer's target — api on peer east, api.default.default.external.east —
// goes through the local resolver named api, as Consul does: its redirect (a redirect that
// names no peer makes the target local: api redirecting to dc2 turns it into
// api.default.default.dc2), its default subset (which makes it local too), its subset check,
// its connect and request timeouts, load balancer and subset filter, its failover when the
// peer target is the start, and its part in cycle detection. Only the protocol check skips
// peer targets. Because this is almost never what the author meant, every chain in which a
// local resolver changes a peer target says so: Chain.Findings reports each change
// (PeerTargetResolvedLocally), naming the resolver and what it changed, and Explain prints
// the findings under the targets.
//
// Which local resolvers can do so is decided by what Consul's server reads. It does not
// compile a chain from every entry it holds, but from those the chain can reach: from the
// requested service, the resolver of each service reached and the services that resolver
// names — its redirect (one to a peer included), its failover sections' services, its
// failover targets not on a peer, and its own service in the partition members of the
// sameness groups it names (for a service without a resolver, the members of its
// partition's DefaultForFailover group). A failover target on a peer is not followed, so
// with web failing over to {Service: api, Peer: east}, the local resolver api is read, and
// governs that peer target, only when web's chain reaches api some other way; otherwise the
// target stays api.default.default.external.east. A service whose resolver is not read
// resolves as if it had none, and takes the default protocol. Compile does the same.
//
// Every local service a chain touches must speak the requested service's protocol (from
// service-defaults, else proxy-defaults, else tcp); peer targets are not checked.
//
// # Sameness groups
//
// A failover section or a redirect may name a sameness group (package exports has the
// entry): the members of that group of the requesting partition, in order — with
// IncludeLocal the partition itself first. Each member gives one candidate: the target with
// the section's Service (else the resolver's), its Namespace (else the resolver's), and the
// member's partition or peer. Partition members resolve through their own partition's
// resolvers; peer members, like every peer target, through the local resolver of their
// service (above). A sameness redirect is a failover, not a rewrite: the
// target stays the start. With group g of ap1 = [ap1, ap2, peer east], requesting main in
// ap1/dc1:
//
//	main: Failover["*"]{SamenessGroup: g}            failover main.default.ap2.dc1, main.default.ap1.external.east
//	main: Redirect{SamenessGroup: g}                 the same
//	no resolver for main; g is DefaultForFailover    the same
//	main: Failover["*"]{SamenessGroup: g, Service: backup}
//	                                                  failover backup.default.ap1.dc1, backup.default.ap2.dc1, backup.default.ap1.external.east
//
// A DefaultForFailover group applies only when the requested service has no resolver at
// all. Sameness groups are Consul Enterprise's; Consul CE refuses them.
//
// # What a target carries
//
// Besides its SNI and SPIFFE ID (local targets only; a peer gives its own), each target
// carries what a proxy needs to build its cluster, from the resolver of its own service (for
// a peer target, the local resolver of its name): ConnectTimeout (else 5s), RequestTimeout,
// the Filter and OnlyPassing of its subset, and the LoadBalancer; the start target carries
// the Policy of the failover section that gave its failover list. Subset filters are kept as
// written: their expression language is Consul's, and meshscope does not parse them.
//
// # Exporting to a peer
//
// Chain.CheckPeerExport says, in Consul's words, why Consul would refuse to export the
// service to a cluster peer: a resolver reachable from it — through redirects, failover
// sections and the partition members of sameness groups — redirects to another datacenter,
// a peer or another partition, or fails over to another datacenter.
//
// # Explaining, and cost
//
// Each Target carries Via, the steps that reached it: the request, then which resolver's
// Redirect, DefaultSubset or Failover field moved it where, so an operator can see why an
// identity is in the set (Chain.Explain renders them). Compile is iterative and its cost is
// linear in the resolution steps: a redirect chain of any length cannot exhaust the stack.
//
// # Input, errors and which strings are contracts
//
// ServiceResolver decodes `consul config read -kind service-resolver` JSON strictly and
// encodes back to it; LoadResolvers reads one entry, a stream or an array. Validate reports
// every problem with its path, in a deterministic order, in Consul v1.16's words (the few
// worded by meshscope are listed on Validate); the package's tests hold the validation and
// compile errors, targets and failover lists to answers recorded from Consul's own compiler. Every error is a
// FieldError (or several joined) wrapping a sentinel where a caller may branch
// (ErrRedirectCycle, ErrUnknownSubset, ErrProtocolMismatch, ErrDuplicateResolver,
// ErrMissingSamenessGroup, ErrPeerExport, ErrRequest).
//
// Contracts — strings that stay as they are: target IDs, SNI names and SPIFFE IDs, and the
// messages Consul itself prints (validation, circular redirect, inconsistent protocols,
// peer-export refusals). Diagnostics — everything else a message says, and the rendering of
// Explain and Step — may change between versions.
package chain
