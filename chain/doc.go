// Package chain compiles a Consul discovery chain: where a request for a service goes, and
// every target it can land on.
//
// A request for a service meets, in order, that service's service-router (HTTP routes, tried
// in order), the service-splitter of the service a route leads to (shares by weight), and
// the service-resolver of the service a split leads to, which can redirect it elsewhere
// (another service, subset, namespace, partition, datacenter, or a cluster peer), give it a
// default subset, and say where it fails over when every instance is unhealthy. Compile
// follows all of that and returns a Chain: Consul's graph of router, splitter and resolver
// nodes, and for each target its TLS server name (package sni) and SPIFFE ID (package
// spiffe) — exactly the names a proxy must dial and the identities it must accept.
// json.Marshal of a Chain is what Consul's /v1/discovery-chain/:service returns, so a preview
// can be diffed against a live cluster.
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
// # Routers and splitters
//
// Only the requested service's router is read: a route's destination gets its service's
// splitter or resolver, never its router. A route whose destination names a subset goes
// straight to that subset's resolver node; the router's last route is Consul's catch-all,
// PathPrefix "/" to its own service. A split to another service without a subset goes
// through that service's splitter when it has one: splitters nest, and the chain holds them
// flattened, each weight the product of the nested ones, rounded to 0.01 at each level as
// Consul rounds (never renormalised), each split's header changes merged with those of the
// splits above it. Requesting web with this router and splitters, all http:
//
//	web: Routes [{PathPrefix /api -> api}]        router:web.default.default
//	api: Splits [90 -> api, 10 -> api-next]         Routes[0] -> splitter:api.default.default
//	api-next: Splits [33.33 -> v2, 66.67 -> v3]     catch-all -> resolver:web.default.default.dc1
//	                                              splitter:api.default.default: 90% api, 3.33% v2.api-next, 6.67% v3.api-next
//
// The chain's protocol is that of the first service a router or resolver reaches — a
// splitter records none, so a splitter of an http service whose splits all go to http2
// services makes an http2 chain — and every other local service a route, split, redirect or
// failover touches must have it (http and http2 differ). A router or splitter on a chain
// whose protocol is not http, http2 or grpc is refused, in Consul's words, and so is a cycle
// through routers and splitters (detected circular reference, the path as Consul prints it).
//
// Three things differ from Consul on purpose. A route or split may name a namespace or
// partition: Consul CE, with one namespace, reads the default namespace's splitter and
// resolver for it; meshscope reads the named one's, as Consul Enterprise does. Consul
// flattens nested splitters in map order, and where three or more nest, an inner level may
// be rounded first; meshscope flattens outermost first, always. And a splitter node that
// flattening would give more than 65,536 splits is refused ("flattening the nested
// splitters of … gives more than 65536 splits"): splitters nested n deep, each splitting
// twice to the next, flatten into 2^n splits.
//
// # Explaining a request, drawing the graph
//
// Chain.ExplainRequest follows a request — method, path, headers, query — as Envoy matches
// Consul's routes: exact, prefix and RE2 paths (a regular expression must match the whole
// path), header matchers (exact, prefix, suffix, regex, present; Invert), methods and query
// parameters; it lists the routes tried in order with why each does not match, then the
// legs the request is split into, with each resolver node's target and failover. Graph and
// DOT render the graph as text and in Graphviz's language.
//
// # Findings
//
// Chain.Findings says what a reader should know besides errors: a peer target a local
// resolver changed (PeerTargetResolvedLocally, below), a route no request can reach because
// an earlier one matches everything it matches (RouteUnreachable), a splitter on a service
// whose protocol is not the chain's (SplitProtocolDiffers), weights that sum to 100 only
// once rounded (SplitWeightsRounded), and a merge of nested splitters' header changes that
// crashes Consul 1.16.0's server (HeaderMergePanics: a parent split whose request headers
// set no Add map above a split that adds some, and the like), which no live server holds.
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
// Every local service a chain touches must speak the chain's protocol (from service-defaults,
// else proxy-defaults, else tcp); peer targets are not checked.
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
// service to a cluster peer: its router has a route, or a splitter it reads a split, that
// leaves the entry's partition; or a resolver reachable from it — through redirects,
// failover sections and the partition members of sameness groups — redirects to another
// datacenter, a peer or another partition, or fails over to another datacenter.
//
// # Explaining, and cost
//
// Each Target carries Via, the steps that reached it: the request, then which resolver's
// Redirect, DefaultSubset or Failover field moved it where, so an operator can see why an
// identity is in the set (Chain.Explain renders them). Compile is iterative and its cost is
// linear in the entries it reads and the nodes, splits and resolution steps it writes: a
// redirect chain or nested splitters of any length cannot exhaust the stack.
//
// # Input, errors and which strings are contracts
//
// ServiceResolver, ServiceRouter and ServiceSplitter decode `consul config read` JSON of their
// kind strictly and encode back to it (json.Unmarshal reads one entry, or a JSON array of
// them; package store (chain/store) reads entries of every kind at once, from a stream or
// arrays, and takes their writes as Consul's server does). Validate reports every problem with
// its path, in a deterministic order, in Consul v1.16's words (the few worded by meshscope are
// listed on Validate); the package's tests, and those of packages store and peermeta, hold the validation and compile errors, the graphs,
// targets and failover lists to answers recorded from Consul's own compiler and server.
// Every error is a FieldError (or several joined); the three problems a caller may branch
// on wrap a sentinel: ErrRedirectCycle, ErrProtocolMismatch and ErrPeerExport.
//
// Contracts — strings that stay as they are: target IDs, node keys, SNI names and SPIFFE IDs,
// the chain's JSON, and the messages Consul itself prints (validation, circular redirect and
// reference, inconsistent protocols, routing on tcp, peer-export refusals). Diagnostics —
// everything else a message says, and the renderings of Explain, ExplainRequest, Graph, DOT
// and Step — may change between versions.
package chain
