// Package exports implements Consul's exported-services configuration: which services of an
// admin partition are made available to cluster peers, other local partitions and sameness
// groups.
//
// One config entry governs one partition (its Name). Each of its rules names a service, or
// "*" for every service, in a namespace, or "*" for every namespace, and lists its consumers:
//
//	Kind = "exported-services"
//	Name = "default"
//	Services = [
//	  { Name = "*",  Namespace = "default", Consumers = [{ Peer = "east" }, { Peer = "north" }] },
//	  { Name = "db", Namespace = "default", Consumers = [{ Peer = "west" }] },
//	]
//
// # One rule per service
//
// When several rules could apply to a service, exactly one does — the most exact: the rule
// naming the service in its namespace, else "*" in that namespace, else "*" in "*". Consumers
// of different rules are never merged. Above, every service of the default namespace goes to
// east and north, except db, which goes to west only. Match answers which rule that is (and at
// which Precedence level) in constant time without allocating; Peers lists the peers of that
// rule; ForPeer lists what one peer receives from a catalog.
//
// Consul itself uses this one rule to configure proxies and trust bundles, but replicates to
// a peer (and lists in /v1/exported-services) the union of every rule naming the peer, so
// with the entry above Consul would still replicate db to east. meshscope applies the one rule
// everywhere, replication included, and says where the two readings differ: UnionMatch
// returns the rule by which Consul would still replicate a service to a peer. MatchPeer
// answers whether the one rule names a peer (in constant time), and PeersIn lists every
// peer a partition's entry names.
//
// The reserved service "consul" is never exported, by any rule.
//
// # Strict input
//
// Entries decode from `consul config read -kind exported-services` JSON, with the field name
// spellings Consul accepts (any case, peer_name, sameness_group), and encode back to the same
// JSON. Unknown fields are errors naming their path. Validate reports every problem at once,
// each with its path, and rejects what Consul silently resolves: a second rule for the same
// service (Consul lets the later win), an exact rule for "consul", a consumer naming nothing,
// a peer name that is not a lowercase DNS label. Compile accepts at most one entry per
// partition.
//
// # Explaining and auditing
//
// Explain lists every rule that names a service or "*" and why each did or did not apply (a
// more exact rule won, another namespace), so an operator can see why db goes to west but not
// east. Diff compares two configurations over a catalog and says, per consumer, which services
// it gains and loses — a dry run of the change.
//
// # Sameness groups
//
// A consumer may name a sameness group (Consul Enterprise) instead of a peer or partition:
//
//	Kind = "sameness-group"
//	Name = "dr"
//	Members = [{ Partition = "default" }, { Partition = "ap2" }, { Peer = "east" }]
//
// A rule whose consumers include { SamenessGroup = "dr" } reaches every member of the group
// other than the exporting partition itself: partition ap2 and peer east. CompileGroups
// compiles entries together with the groups they name (a group not given is an error,
// ErrUnknownSamenessGroup), Peers and ForPeer include the peers a group stands for, and
// Explain says which group each consumer came from. ValidateSamenessGroups checks groups as
// Consul does when they are written, including that a partition or peer belongs to one
// group at most.
//
// # Input, errors and which strings are contracts
//
// LoadEntries and LoadSamenessGroups read what `consul config read` prints — one entry, a
// stream of entries or a JSON array — strictly: a key given twice, an unknown field or a
// value of the wrong type is an error naming its path. Every error is a FieldError (or
// several joined, all reported at once) naming the entry and the path
// (`Services[1].Consumers[0]: …`), wrapping ErrDuplicateService, ErrDuplicateEntry or
// ErrUnknownSamenessGroup where a caller may branch.
//
// Contracts — strings that stay as they are: the JSON of ConfigEntry and SamenessGroup (as
// Consul writes it), the Precedence and Verdict names, and the messages Consul itself prints
// (such as a sameness group's membership refusals). Diagnostics — the wording of meshscope's
// own errors, of Explain and of String methods — may change between versions.
package exports
