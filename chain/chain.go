package chain

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/meshscope/meshscope/exports"
)

// Request is the service a chain is compiled for, and where: the requested service (its
// partition and namespace are the requesting ones), the requesting datacenter, and the trust
// domain the targets' names and IDs are built in. An empty Service.Namespace or
// Service.Partition means "default"; Service.Name, Datacenter and TrustDomain are required.
type Request struct {
	Service     exports.ServiceName
	Datacenter  string
	TrustDomain string
}

// service returns the requested service, canonical.
func (r Request) service() exports.ServiceName { return r.Service.Canonical() }

// Entries is the configuration a chain is compiled from.
type Entries struct {
	// Resolvers are the service-resolver entries, at most one per service.
	Resolvers []ServiceResolver
	// Routers are the service-router entries, at most one per service; a chain reads the
	// requested service's only.
	Routers []ServiceRouter
	// Splitters are the service-splitter entries, at most one per service.
	Splitters []ServiceSplitter
	// Protocols is each service's service-defaults protocol; a present "" means tcp. Empty
	// partitions and namespaces of the keys mean "default".
	Protocols map[exports.ServiceName]string
	// DefaultProtocol is the proxy-defaults protocol for services without an entry in
	// Protocols; "" means tcp.
	DefaultProtocol string
	// SamenessGroups are the sameness-group entries resolvers may name in a Redirect or a
	// Failover section, and whose DefaultForFailover group applies to services without a
	// resolver.
	SamenessGroups []exports.SamenessGroup
}

// defaultConnectTimeout is a target's connect timeout when its resolver sets none, as in
// Consul.
const defaultConnectTimeout = 5 * time.Second

// Chain is the compiled discovery chain of one service: its protocol, its graph (the router,
// splitter and resolver nodes a request passes, from StartNode), and every target a request
// can land on. json.Marshal writes it as Consul's /v1/discovery-chain/:service does (see
// MarshalJSON).
//
// A Chain returned by Compile is the caller's: nothing in it — the maps, the nodes, the
// targets, their slices and pointers — is shared with the Compiler or another chain, so
// changing it changes no other answer. It is safe for concurrent reads. The zero Chain has
// no targets: TargetIDs returns nil, Explain renders only its header, and CheckPeerExport
// returns nil.
type Chain struct {
	// Service is the requested service, canonical: its partition and namespace are those the
	// chain was compiled in.
	Service    exports.ServiceName
	Datacenter string
	// Default is set when the chain is one Consul calls default: its start node is a default
	// resolver (see ResolverNode.Default) of the requested service itself.
	Default bool
	// Protocol is the chain's protocol, lower case, as Consul records it: that of the first
	// service whose router or resolver the chain reaches (the requested service's, unless a
	// splitter sends every request elsewhere). Every local service the chain's routes,
	// splits, redirects and failover touch has it.
	Protocol string
	// ServiceProtocol is the requested service's own protocol (its service-defaults', else
	// proxy-defaults', else tcp), lower case: what Consul replicates to a peer for the
	// service. It is Protocol, unless a splitter sends every request to services of another
	// protocol (a splitter records none).
	ServiceProtocol string
	// StartNode is the key in Nodes of the node requests start at: the router, else the
	// splitter, else the resolver of the requested service.
	StartNode string
	// Nodes are the graph's nodes by key, Type:Name (see Node); nodes no route or split
	// reaches are not kept.
	Nodes map[string]*Node
	// Start is the target of the start resolver node: the resolver node reached from
	// StartNode through the catch-all route of a router and the heaviest split (the first of
	// equal weights) of a splitter. For a chain without router or splitter, it is where a
	// request for the service lands.
	Start string
	// Targets holds every resolver node's target and its resolved failover targets, by ID.
	Targets map[string]*Target

	peerExport error     // CheckPeerExport's answer, worked out by Compile
	findings   []Finding // Findings' answer, worked out by Compile
}

// TargetIDs returns the IDs of the chain's targets, sorted; nil for a nil or zero Chain.
func (c *Chain) TargetIDs() []string {
	if c == nil || len(c.Targets) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(c.Targets))
}

// Target is a place a request can land: a service (and subset) in a namespace, partition and
// datacenter, or a service exported by a peer.
//
// IDs are "svc.ns.partition.dc", with a subset "subset.svc.ns.partition.dc", and for a peer
// "svc.ns.partition.external.peer". The zero Target is no target; its fields are only data.
type Target struct {
	ID string
	// Service is the target's service, canonical; a peer target's partition is the
	// requesting one.
	Service                  exports.ServiceName
	Subset, Datacenter, Peer string
	// SNI and SpiffeID are the target's TLS server name and identity in the requesting trust
	// domain; empty for peer targets, whose names the peer gives.
	SNI, SpiffeID string
	// Failover lists the resolved failover targets' IDs in order, repeats kept, of the
	// resolver node whose target this is (Node.Resolver.Failover.Targets); nil when it is no
	// resolver node's target (a failover target only) or the node has no failover.
	Failover []string
	// Via is how the request reached this target: the request itself, then each redirect,
	// default subset or failover step, with the resolver and field that took it.
	Via []Step

	// What a proxy needs to build the target's cluster, from the resolver of the target's own
	// service (after redirects) — for a peer target the local resolver of its service,
	// namespace and partition, as in Consul. ConnectTimeout is the resolver's, else 5s (Consul's
	// default); RequestTimeout the resolver's, else 0.
	ConnectTimeout, RequestTimeout time.Duration
	// Filter and OnlyPassing are the definition of the target's subset, when it has one.
	Filter      string
	OnlyPassing bool
	// LoadBalancer is the resolver's load balancer, nil when it has none.
	LoadBalancer *LoadBalancer
	// FailoverPolicy is the Policy of the failover section that produced the target's
	// Failover, when that list is not empty; nil otherwise.
	FailoverPolicy *FailoverPolicy
}

// Step is one move of a request from target to target.
type Step struct {
	// Resolver is the service-resolver ("partition/namespace/name") whose Field moved the
	// request; empty for the request itself and for a DefaultForFailover group.
	Resolver string `json:"Resolver,omitempty"`
	// Field is "Redirect", "DefaultSubset", a failover field such as
	// `Failover["*"].Datacenters[1]`, "Redirect.SamenessGroup", "DefaultForFailover", or
	// "request".
	Field string `json:"Field"`
	// SamenessGroup and Member name the group and the member ("ap2", "peer east") a sameness
	// failover step went to.
	SamenessGroup string `json:"SamenessGroup,omitempty"`
	Member        string `json:"Member,omitempty"`
	From          string `json:"From,omitempty"`
	To            string `json:"To"`
}

// String renders the step: `Redirect of default/default/web -> other.default.default.dc1`,
// or for a sameness group `Failover["*"] of ap1/default/main -> sameness group g, member ap2
// -> main.default.ap2.dc1`.
func (s Step) String() string {
	by := s.Field
	if s.Resolver != "" {
		by += " of " + s.Resolver
	}
	switch {
	case s.SamenessGroup != "":
		return fmt.Sprintf("%s -> sameness group %s, member %s -> %s", by, s.SamenessGroup, s.Member, s.To)
	case s.Resolver == "":
		return s.Field + " " + s.To
	}
	return by + " -> " + s.To
}

// Explain renders, a target a line, how the request reaches each target, the start first,
// then its failover targets in order (a repeated one each time it is listed), then the
// chain's findings (see Findings), a line each.
func (c *Chain) Explain() string {
	if c == nil {
		return "chain <nil>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "chain %s (%s)", c.Service, c.Protocol)
	start := c.Targets[c.Start]
	if start == nil {
		return b.String()
	}
	order := append([]string{c.Start}, start.Failover...)
	first := make(map[string]int, len(order))
	for i, id := range order {
		t := c.Targets[id]
		role := "start"
		if i > 0 {
			role = fmt.Sprintf("failover %d", i)
		}
		if j, again := first[id]; again { // a repeat: its steps are those of its first place
			fmt.Fprintf(&b, "\n  %s %s: again, as Consul lists a repeat (first as failover %d)", role, id, j)
			continue
		}
		first[id] = i
		parts := make([]string, len(t.Via))
		for j, s := range t.Via {
			parts[j] = s.String()
		}
		fmt.Fprintf(&b, "\n  %s %s: %s", role, id, strings.Join(parts, ", "))
	}
	for _, f := range c.findings {
		fmt.Fprintf(&b, "\n  %s", f)
	}
	return b.String()
}

// IsHTTPLike reports whether protocol is one of the L7 protocols http, http2 and grpc. As in
// Consul it is case-sensitive; protocols read from Entries are lower-cased first.
func IsHTTPLike(protocol string) bool {
	switch protocol {
	case "http", "http2", "grpc":
		return true
	}
	return false
}

// key identifies a target: its service (canonical), subset, datacenter and peer.
type key struct {
	exports.ServiceName
	subset, datacenter, peer string
}

func (k key) id() string {
	if k.peer != "" {
		return k.Name + "." + k.Namespace + "." + k.Partition + ".external." + k.peer
	}
	id := k.Name + "." + k.Namespace + "." + k.Partition + "." + k.datacenter
	if k.subset != "" {
		return k.subset + "." + id
	}
	return id
}

// idKey is the key as its ID sees it: a peer's target without the subset it kept (Consul
// keeps it, and the ID leaves it out).
func (k key) idKey() key {
	if k.peer != "" {
		k.subset = ""
	}
	return k
}

// String describes the key field by field, for a message about two keys with one ID.
func (k key) String() string {
	return fmt.Sprintf("{service:%s subset:%s namespace:%s partition:%s datacenter:%s peer:%s}", k.Name, k.subset, k.Namespace, k.Partition, k.datacenter, k.peer)
}
