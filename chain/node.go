package chain

import (
	"encoding/json"
	"time"
)

// NodeType is the kind of a node of a compiled chain's graph.
type NodeType string

// The kinds of node, as Consul names them.
const (
	// NodeRouter: the requested service's router; its routes lead to splitters and resolvers.
	NodeRouter NodeType = "router"
	// NodeSplitter: a splitter, flattened: its splits lead to resolver nodes only.
	NodeSplitter NodeType = "splitter"
	// NodeResolver: a resolved target and its failover list.
	NodeResolver NodeType = "resolver"
)

// Node is one node of a chain's graph, as Consul's compiler records it. Its key in
// Chain.Nodes is Type:Name — "router:web.default.default", "splitter:api.default.default",
// "resolver:v1.api.default.default.dc1" (a resolver node is named by its target's ID).
type Node struct {
	Type NodeType `json:"Type"`
	Name string   `json:"Name"`
	// Routes are a router's routes in order, the catch-all to its own service last.
	Routes []Route `json:"Routes,omitempty"`
	// Splits are a splitter's splits, nested splitters flattened into them.
	Splits []Split `json:"Splits,omitempty"`
	// Resolver is a resolver node's target and failover.
	Resolver *ResolverNode `json:"Resolver,omitempty"`
	// LoadBalancer is a resolver node's resolver's load balancer; on a splitter node, the
	// first hash-based one among the resolvers its own splits go to (a proxy's route takes
	// one hash policy), as Consul attaches it.
	LoadBalancer *LoadBalancer `json:"LoadBalancer,omitempty"`
}

// key returns the node's key in Chain.Nodes: its Type and Name joined by ":".
func (n *Node) key() string { return string(n.Type) + ":" + n.Name }

// Route is one route of a router node: its definition, as the router gives it (the
// catch-all's is Consul's: PathPrefix "/" to the router's service), and the node it leads to.
type Route struct {
	Definition *ServiceRoute `json:"Definition"`
	NextNode   string        `json:"NextNode"`
}

// Split is one split of a splitter node: its definition (for a split flattened from a
// nested splitter, the inner split's, with the outer splits' header changes merged in),
// its weight (the product of the nested weights, each rounded as Consul rounds; a weight of
// 0 is kept and left out of JSON), and the resolver node it leads to.
type Split struct {
	Definition *ServiceSplit `json:"Definition"`
	Weight     float32       `json:"Weight,omitempty"`
	NextNode   string        `json:"NextNode"`
}

// ResolverNode is a resolver node's resolution: whether its resolver is a default one
// (Consul's IsDefault: no entry for the service, or one that sets nothing that changes
// resolution), its connect and request timeouts, its target, and where it fails over.
type ResolverNode struct {
	Default        bool          `json:"Default,omitempty"`
	ConnectTimeout time.Duration `json:"-"`
	RequestTimeout time.Duration `json:"RequestTimeout,omitempty"`
	Target         string        `json:"Target"`
	Failover       *NodeFailover `json:"Failover,omitempty"`
}

// NodeFailover is a resolver node's failover: the resolved targets' IDs in order, repeats
// kept, and the Policy of the failover section that named them.
type NodeFailover struct {
	Targets []string        `json:"Targets"`
	Policy  *FailoverPolicy `json:"Policy,omitempty"`
}

// resolverNodeJSON is a resolver node as Consul writes it: ConnectTimeout a duration string,
// RequestTimeout integer nanoseconds.
type resolverNodeJSON struct {
	ConnectTimeout string `json:"ConnectTimeout,omitempty"`
	resolverNodeFields
}

// resolverNodeFields are ResolverNode's fields, for resolverNodeJSON to embed.
type resolverNodeFields ResolverNode

// nodeJSON is a node as Consul writes it: its Resolver in Consul's form.
type nodeJSON struct {
	*Node
	Resolver *resolverNodeJSON `json:"Resolver,omitempty"`
}

// wire returns the node as Consul writes it.
func (n *Node) wire() nodeJSON {
	w := nodeJSON{Node: n}
	if r := n.Resolver; r != nil {
		w.Resolver = &resolverNodeJSON{resolverNodeFields: resolverNodeFields(*r)}
		if r.ConnectTimeout != 0 {
			w.Resolver.ConnectTimeout = r.ConnectTimeout.String()
		}
	}
	return w
}

// MarshalJSON writes the destination as Consul does, with its timeouts as duration strings
// ("5s") and zero timeouts left out.
func (d ServiceRouteDestination) MarshalJSON() ([]byte, error) {
	type fields ServiceRouteDestination
	w := struct {
		RequestTimeout string `json:"RequestTimeout,omitempty"`
		IdleTimeout    string `json:"IdleTimeout,omitempty"`
		fields
	}{fields: fields(d)}
	if d.RequestTimeout != 0 {
		w.RequestTimeout = d.RequestTimeout.String()
	}
	if d.IdleTimeout != 0 {
		w.IdleTimeout = d.IdleTimeout.String()
	}
	return json.Marshal(w)
}

// chainJSON is a chain as Consul's /v1/discovery-chain/:service gives it under "Chain".
type chainJSON struct {
	ServiceName string                `json:"ServiceName"`
	Namespace   string                `json:"Namespace"`
	Partition   string                `json:"Partition"`
	Datacenter  string                `json:"Datacenter"`
	Default     bool                  `json:"Default,omitempty"`
	Protocol    string                `json:"Protocol,omitempty"`
	StartNode   string                `json:"StartNode,omitempty"`
	Nodes       map[string]nodeJSON   `json:"Nodes,omitempty"`
	Targets     map[string]targetJSON `json:"Targets,omitempty"`
}

// MarshalJSON writes the chain as Consul's /v1/discovery-chain/:service returns it under
// "Chain" (Consul's CompiledDiscoveryChain), field for field as Consul's marshallers write
// them, empty fields left out, so that a preview can be diffed against a live cluster's
// answer. The fields meshscope does not model — a target's MeshGateway, TransparentProxy,
// Locality and External, the chain's ServiceMeta, EnvoyExtensions, CustomizationHash and
// virtual IPs — are left out; SpiffeID, Via and the other fields meshscope adds are not
// Consul's and are not written.
func (c Chain) MarshalJSON() ([]byte, error) {
	w := chainJSON{ServiceName: c.Service.Name, Namespace: c.Service.Namespace, Partition: c.Service.Partition,
		Datacenter: c.Datacenter, Default: c.Default, Protocol: c.Protocol, StartNode: c.StartNode}
	if c.Nodes != nil {
		w.Nodes = make(map[string]nodeJSON, len(c.Nodes))
		for k, n := range c.Nodes {
			w.Nodes[k] = n.wire()
		}
	}
	if c.Targets != nil {
		w.Targets = make(map[string]targetJSON, len(c.Targets))
		for k, t := range c.Targets {
			w.Targets[k] = t.wire()
		}
	}
	return json.Marshal(w)
}

// subsetJSON is a target's subset definition as Consul writes it: always present.
type subsetJSON struct {
	Filter      string `json:"Filter,omitempty"`
	OnlyPassing bool   `json:"OnlyPassing,omitempty"`
}

// targetJSON is a target as Consul's DiscoveryTarget is written: ConnectTimeout a duration
// string, Subset its subset's definition, SNI and Name (the same name) for a local target.
type targetJSON struct {
	ConnectTimeout string     `json:"ConnectTimeout,omitempty"`
	ID             string     `json:"ID,omitempty"`
	Service        string     `json:"Service,omitempty"`
	ServiceSubset  string     `json:"ServiceSubset,omitempty"`
	Namespace      string     `json:"Namespace,omitempty"`
	Partition      string     `json:"Partition,omitempty"`
	Datacenter     string     `json:"Datacenter,omitempty"`
	Peer           string     `json:"Peer,omitempty"`
	Subset         subsetJSON `json:"Subset"`
	SNI            string     `json:"SNI,omitempty"`
	Name           string     `json:"Name,omitempty"`
}

// wire returns the target as Consul writes it.
func (t *Target) wire() targetJSON {
	w := targetJSON{ID: t.ID, Service: t.Service.Name, ServiceSubset: t.Subset, Namespace: t.Service.Namespace, Partition: t.Service.Partition,
		Datacenter: t.Datacenter, Peer: t.Peer, Subset: subsetJSON{t.Filter, t.OnlyPassing}, SNI: t.SNI, Name: t.SNI}
	if t.ConnectTimeout != 0 {
		w.ConnectTimeout = t.ConnectTimeout.String()
	}
	return w
}
