// Package meshscope decides who can see and reach what in a service mesh. It is a set of
// small, stateless packages that a control plane embeds, and that a platform engineer runs on
// a dump of real configuration to preview a change before it applies.
//
// There are two halves, which never import each other.
//
// # Istio-style visibility
//
// Package visibility implements ServiceEntry visibility: a mesh admin's ordered policies,
// each a list of Kubernetes namespace label selectors, give every ServiceEntry a visibility
// of PUBLIC (everyone), NAMESPACE (its own namespace only) or NONE (no data plane). The first
// policy whose selectors all match the entry's namespace decides; otherwise the default
// applies. A hidden entry is absent, not blocked: DNS falls through to the upstream resolver
// and its addresses pass through. For example, with the default NAMESPACE and one policy
// "PUBLIC if team=platform", an entry in a namespace labelled team=platform is visible
// mesh-wide and an entry anywhere else is visible only to its own namespace.
//
// Its subpackages answer the questions around it, each from the same two inputs:
//
//   - visibility/mesh reads the mesh configuration (visibility, root namespace, default
//     exportTo, discovery selectors, service scope) from any shape it is kept in;
//   - visibility/inventory reads what the cluster holds: namespaces, ServiceEntries,
//     Services, Sidecars, VirtualServices and DestinationRules, refused in Istio's words
//     where Istio's validation refuses them;
//   - visibility/ambient is ztunnel's view: what its DNS proxy answers and where an address
//     goes, per client namespace;
//   - visibility/sidecar is an Envoy proxy's view, as istiod computes it: what a sidecar or a
//     gateway receives, which VirtualService routes each host and which DestinationRule it
//     gets;
//   - visibility/scope is each Kubernetes Service's multicluster scope.
//
// # Consul-style peering
//
// The other half answers what a cluster sends a peer it is peered with:
//
//   - exports reads exported-services config entries and decides, for each service, the one
//     most exact rule that exports it (the service by name, else "*" in its namespace, else
//     "*" in "*"), and so which peers receive it;
//   - chain compiles a service's discovery chain — routers, splitters and resolvers (default
//     subsets, redirects, failover, peers) — into where each request goes and every target
//     it can land on;
//   - sni and spiffe build, parse and validate the TLS server names and SPIFFE IDs the mesh
//     routes and authenticates with, such that no two inputs give the same name;
//   - chain/store holds a Consul server's config entries and takes writes as its write path
//     does, refusing in Consul's words what the server refuses;
//   - intentions reads service-intentions entries and answers who may call a service — as
//     the destination's Envoy decides, and as Consul's check API says;
//   - peermeta combines them into what is replicated to a peer for each exported service —
//     the SNI to dial, the SPIFFE IDs to accept and the protocol — and into "may CALLER call
//     SERVICE" for local and peered callers.
//
// End to end, for a cluster exporting to the peer west:
//
//	x, _ := exports.Compile(entry)                 // exported-services: db -> west
//	cc, _ := chain.NewCompiler(chain.Entries{...}) // service-resolvers: db fails over to db-backup
//	c, _ := cc.Compile(chain.Request{Service: exports.ServiceName{Name: "db"}, Datacenter: "dc1", TrustDomain: td})
//	m := peermeta.Build(peermeta.Exporter{Peer: "west", Datacenter: "dc1", TrustDomain: td}, c)
//	// m.SNI:      [db.default.default.west.external.<td>]
//	// m.SpiffeID: [spiffe://<td>/ns/default/dc/dc1/svc/db,
//	//              spiffe://<td>/gateway/mesh/dc/dc1,
//	//              spiffe://<td>/ns/default/dc/dc1/svc/db-backup]
//
// peermeta.Replicate does all of it for every service the peer receives, with the synthetic
// health instances of the local mesh gateways.
//
// # Conventions
//
// Configuration types are plain values with the upstream wire format's JSON tags, so real
// configuration unmarshals directly. Compile functions validate everything at once, reporting
// every problem with its path (errors.Join), and return immutable values that are safe for
// concurrent use and answer lookups without allocating. Every decision can say which rule
// decided it, and no answer depends on the order of the input.
package meshscope
