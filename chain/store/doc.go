// Package store holds the config entries a Consul server stores, as `consul config read`
// prints them, and takes writes of them as the server's write path does: decoded, validated,
// and refused when storing one would break a discovery chain the server recompiles for it,
// or the peer-export safety of an exported service. Package chain compiles chains from what
// it holds, and package peermeta decides from it what a peer receives.
//
// # Reading
//
// Load (and Config.Add, for several files) reads what `consul config read` prints — one
// entry, a stream of them, or JSON arrays of them, of every kind, mixed — into a Config:
//
//	{"Kind":"service-resolver","Name":"api","Redirect":{"Service":"api-v2"}}
//	{"Kind":"service-defaults","Name":"api-v2","Protocol":"http"}
//	{"Kind":"mesh","Name":"mesh","Peering":{"PeerThroughMeshGateways":true}}
//
// The store models exported-services (Config.Exports), service-resolver, service-router,
// service-splitter and sameness-group (Config.Entries), service-defaults (each service's
// Protocol, Entries.Protocols), proxy-defaults (its Config.protocol,
// Entries.DefaultProtocol), service-intentions (Config.Intentions, read by package
// intentions' strict decoder) and mesh (its HTTP.SanitizeXForwardedClientCert, Config.Mesh).
// Each is read strictly: every field Consul defines is accepted, any other is an error naming
// the field it most likely misspells (a service-intentions entry's, in Consul's own words),
// and so is a key given twice or a value of the wrong type. An entry of Consul's other kinds
// — ingress-gateway, terminating-gateway, api-gateway, bound-api-gateway, http-route,
// tcp-route, inline-certificate, file-system-certificate, jwt-provider and
// control-plane-request-limit: every kind a Consul CE or Enterprise server up to 2.x stores
// — is skipped and named in a finding (EntrySkipped):
//
//	NOTE EntrySkipped value 3 (ingress-gateway edge): not read: an ingress gateway does not change what is replicated to peers
//
// A kind no Consul has is an error, with the kind it most likely misspells:
//
//	value 1 (service-resolvr api): Kind: "service-resolvr" is not a kind of Consul config entry (did you mean "service-resolver"?)
//
// Every entry is read one way, whatever its kind: its names (Kind, Name, Namespace,
// Partition) say what it is; then its kind's decoder reads it whole; then its kind's
// validation judges it alone. One table of kinds says, for each kind the store models, how
// it is decoded, named and keyed, validated, held in a Config, and judged when written; a
// kind the store comes to model is a row of that table.
//
// # Writing
//
// Config.Apply writes entries to a Config as a live Consul server takes them, in order, and
// says of each whether the server stores it (a WriteOutcome), or at which stage it refuses
// it and why, in Consul's words. The order matters:
//
//	service-resolver api: accepted                                   (api fails over to backup)
//	service-defaults backup: refused (store): chain default/default/api: discovery chain "api" uses inconsistent protocols; service "backup" has "http" which is not "tcp"
//	service-router web: refused (store): chain default/default/web: discovery chain "web" uses a protocol "tcp" that does not permit advanced routing or splitting behavior
//
// A router written before the service-defaults that make its service http is refused, the
// same router written after is accepted. A splitter whose weights sum to 99.99 once rounded
// is refused at validation, in Consul's words. A write that makes nested splitters merge
// header changes into a nil map crashes Consul 1.16.0's server, which stores nothing: Apply
// refuses it (StagePanic), saying so, where Consul would panic. A tcp chain exported to a
// peer may not gain a target with a new identity:
//
//	chain default/default/db: peer exported service "db" uses protocol="tcp" and cannot introduce new discovery chain targets like "db2.default.default.dc1"
//
// Which chains a write recompiles is the server's rule (see Config.Apply): a resolver,
// router, splitter or service-defaults entry of a service recompiles its chain and the
// chains of the entries that name it, found in an index of those names, so a write costs what
// it touches, not the size of the store. A Store is that live server: New reads a Config
// into one, Store.Apply takes writes, Store.Config reads it back. Config.Apply does the
// three at once; to replay many writes one at a time, keep a Store.
//
// Consul's server judges writes in datacenter dc1 whatever the cluster's own, and so does the
// store: the target IDs in its messages name dc1, as Consul's do.
//
// # Intentions
//
// A service-intentions entry is decoded, normalised and validated as Consul's write endpoint
// does it (package intentions), then judged by the store: Consul's server compiles the chain
// of its destination, and refuses an entry that gives permissions to a destination whose
// chain is not HTTP-like; a later write that would make such a chain tcp is refused in the
// same words, naming the entry:
//
//	service-intentions api: refused (store): service "api" has protocol "tcp", which is incompatible with L7 intentions permissions
//	service-defaults api: refused (store): service-intentions api: service "api" has protocol "tcp", which is incompatible with L7 intentions permissions
//
// Consul's server compiles, for every service-resolver, service-router, service-splitter,
// service-defaults and proxy-defaults write, the chain of every destination of an intentions
// entry; the store keeps, for each such chain, the entries it reads, and judges only the
// chains the write changes — the others compile as before, and gave no reason then — so a
// write still costs what it touches. (Where the stored state already breaks a destination's
// chain — a Config read by Add, which judges no write — Consul would refuse every such write
// for it, and the store names only what the write changes.)
//
// What each destination's sidecar has — Sidecars, from a Config and a Cluster (the local
// names, the peerings, each registration's own protocol): its intentions in Consul's order,
// its own protocol (the registration's, else service-defaults', else proxy-defaults'), its
// chain's protocol, its trust bundles (the peers of the most exact exported-services rule of
// every service whose chain targets it, with an active peering and a trust bundle) and the
// mesh entry's XFCC setting — is intentions.Sidecar, computed as Consul computes it, and each
// destination is compiled once: a decision through the store allocates nothing.
//
//	sc, _ := cfg.Sidecars(store.Cluster{TrustDomain: td, Datacenter: "dc1", Peerings: peerings})
//	dec, _ := sc.Decide("api", intentions.Caller{Service: "web"}, intentions.Request{Method: "GET", Path: "/"}, acl)
//
// # The dry run
//
// Replay writes the change from one Config to another — each entry the second holds
// differently, in an order of its own (the intentions no chain can refuse, proxy-defaults,
// service-defaults, sameness groups, resolvers, splitters, routers, exported-services, mesh,
// the intentions giving permissions; then the deletions) — and returns every write's outcome
// and what the accepted writes leave. peermeta.Diff replays a change so, and
// replicates what it leaves.
//
// # Errors and contracts
//
// Every error is a FieldError (or several joined). Consul's messages in Reasons are
// contracts; meshscope's own words (decode problems, the finding messages) are diagnostics and
// may change.
package store
