package chain

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"

	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/names"
	"github.com/meshscope/meshscope/internal/strict"
	"github.com/meshscope/meshscope/sni"
	"github.com/meshscope/meshscope/spiffe"
)

// compiler is the state of one compilation.
type compiler struct {
	*Compiler
	req      Request
	proto    string // the chain's protocol: the first service's a router or resolver reaches
	badProto map[exports.ServiceName]bool
	memo     map[key]*joined // where targets already walked come to rest
	errs     []error
	changes  []peerChange // what local resolvers did to peer targets (see peerlocal.go)
	kept     []Step       // steps of peer candidates that added no target (see keepPeerSteps)
	// loaded is what Consul's server reads for this chain (see loadedFrom); nil: every entry.
	loaded *readSet
	// The graph being built: splitter nodes by service, resolver node keys by the target
	// ID a request for them starts at ("" for one that does not resolve), whether a router
	// or splitter is in the chain, and where a merge Consul's server panics on is.
	splitNodes map[exports.ServiceName]string
	splitOrder []string // the splitter nodes' keys, in the order built
	resNodes   map[string]string
	routing    bool
	panicAt    string
}

// compile compiles a request whose required fields are present, from the entries Consul's
// server reads for it.
func (cc *Compiler) compile(req Request) (*Chain, error) { return cc.compileFrom(req, true) }

// compileFrom compiles a request whose required fields are present: from the entries
// Consul's server reads for it (asRead), or from every entry, as Consul's compiler does when
// handed them all (the recorded vectors of consul-chain.json were made so). The steps are
// Consul's: the graph is built, checked for cycles through routers and splitters, nested
// splitters are flattened and unreached nodes dropped, and a router or splitter on a
// protocol that is not HTTP-like is refused.
func (cc *Compiler) compileFrom(req Request, asRead bool) (*Chain, error) {
	req.Service = req.Service.Canonical()
	c := &compiler{Compiler: cc, req: req, badProto: map[exports.ServiceName]bool{},
		splitNodes: map[exports.ServiceName]string{}, resNodes: map[string]string{}}
	ch := &Chain{Service: req.Service, Datacenter: req.Datacenter, Nodes: map[string]*Node{}, Targets: map[string]*Target{}}
	seeds, routeUnsafe := cc.routingReads(req.service())
	if asRead {
		c.loaded = cc.loadedFrom(seeds, req.Service.Partition)
	}
	ch.StartNode = c.assemble(ch)
	if len(c.errs) == 0 {
		c.checkCycles(ch)
	}
	if len(c.errs) == 0 {
		c.flatten(ch)
	}
	if c.routing && !IsHTTPLike(c.proto) {
		c.errs = append(c.errs, &FieldError{Value: c.proto, Detail: fmt.Sprintf("discovery chain %q uses a protocol %q that does not permit advanced routing or splitting behavior", req.Service.Name, c.proto), Err: errRoutingProtocol})
	}
	if len(c.errs) > 0 {
		return nil, errors.Join(c.errs...)
	}
	ch.Protocol, ch.ServiceProtocol = c.proto, c.protocol(req.Service)
	ch.Start = startTarget(ch)
	if n := ch.Nodes[ch.StartNode]; n.Type == NodeResolver && n.Resolver.Default {
		t := ch.Targets[n.Resolver.Target]
		ch.Default = t.Peer == "" && t.Service == req.Service
	}
	ch.peerExport = cc.checkPeerExport(req.Service, seeds, routeUnsafe)
	ch.findings = c.findings(ch)
	return ch, nil
}

// protocol returns the protocol of the canonical service k: its service-defaults' when
// Consul's server reads them for this chain (it reads them beside the service's resolver).
func (c *compiler) protocol(k exports.ServiceName) string {
	if p, ok := c.protocols[k]; ok && (c.loaded == nil || c.loaded.has(c.Compiler, k)) {
		return p
	}
	return cmp.Or(c.defProto, "tcp")
}

// touch records that the chain touches a local service (canonical): the first one touched
// gives the chain its protocol, and every other must have it.
func (c *compiler) touch(k exports.ServiceName) {
	p := c.protocol(k)
	if c.proto == "" {
		c.proto = p
		return
	}
	if p != c.proto && !c.badProto[k] {
		c.badProto[k] = true
		c.errs = append(c.errs, &FieldError{Value: p, Detail: fmt.Sprintf("discovery chain %q uses inconsistent protocols; service %q has %q which is not %q", c.req.Service.Name, k.Short(), p, c.proto), Err: ErrProtocolMismatch})
	}
}

// rewrite applies a redirect's, a default subset's or a failover candidate's options to t,
// as Consul rewrites a target: the peer is always the options' (so a rewrite without one
// makes a peer's target local, in the requesting datacenter unless the options name
// another); a peer's target has no datacenter and the requesting partition, and keeps its
// subset.
func (c *compiler) rewrite(t key, o options) key {
	n := t
	if o.service != "" && o.service != t.Name {
		n.Name, n.subset = o.service, ""
	}
	if o.subset != "" {
		n.subset = o.subset
	}
	if o.partition != "" {
		n.Partition = orDefault(o.partition)
	}
	if o.datacenter != "" {
		n.datacenter = o.datacenter
	}
	if o.namespace != "" || o.peer != "" {
		n.Namespace = orDefault(o.namespace)
	}
	n.peer = o.peer
	switch {
	case n.peer != "": // a peer's service: no datacenter, the requesting partition
		n.datacenter, n.Partition = "", c.req.Service.Partition
	case n.datacenter == "": // a peer's target made local
		n.datacenter = c.req.Datacenter
	}
	return n
}

// add records target k, building its SNI, SPIFFE ID and proxy settings.
func (c *compiler) add(ch *Chain, id string, k key, via []Step) {
	t := &Target{ID: id, Service: k.ServiceName, Subset: k.subset, Datacenter: k.datacenter, Peer: k.peer, Via: via}
	if k.peer == "" {
		s := sni.Service{Subset: k.subset, Service: k.Name, Namespace: k.Namespace, Partition: k.Partition, Datacenter: k.datacenter, TrustDomain: c.req.TrustDomain}
		if err := s.Validate(); err != nil {
			c.errs = append(c.errs, fielderr.In("target "+id+": SNI", err))
		}
		sp := spiffe.Service{TrustDomain: c.req.TrustDomain, Partition: k.Partition, Namespace: k.Namespace, Datacenter: k.datacenter, Service: k.Name}
		if err := sp.Validate(); err != nil {
			c.errs = append(c.errs, fielderr.In("target "+id+": SPIFFE ID", err))
		}
		t.SNI, t.SpiffeID = s.String(), sp.String()
	}
	if k.peer != "" {
		if err := peerNames(k); err != nil {
			c.errs = append(c.errs, fielderr.In("target "+id, err))
		}
	}
	// The proxy settings, from the resolver of the target's service — a local one for a
	// peer's target too, as Consul finds resolvers by service, namespace and partition.
	t.ConnectTimeout = defaultConnectTimeout
	if r, ok := c.resolverOf(k.ServiceName); ok {
		t.ConnectTimeout = cmp.Or(r.ConnectTimeout, defaultConnectTimeout)
		t.RequestTimeout = r.RequestTimeout
		t.LoadBalancer = r.LoadBalancer.clone()
		if sub, ok := r.Subsets[k.subset]; ok && k.subset != "" {
			t.Filter, t.OnlyPassing = sub.Filter, sub.OnlyPassing
		}
		if k.peer != "" {
			c.settingsOnPeer(id, k.subset, r)
		}
	}
	ch.Targets[id] = t
}

// peerNames checks the names of a peer's target as a local target's are checked: the
// service, namespace, partition and peer must be DNS labels. The name the importer dials is
// in the peer's trust domain, which only the peer's PeerMeta gives, so no whole name is
// built here.
func peerNames(k key) error {
	var errs []error
	for _, f := range [...]struct{ field, value string }{
		{"Service", k.Name}, {"Namespace", k.Namespace}, {"Partition", k.Partition}, {"Peer", k.peer},
	} {
		if reason := names.Label(f.value); reason != "" {
			errs = append(errs, &FieldError{Field: f.field, Value: f.value, Detail: strconv.Quote(f.value) + " " + reason, Err: sni.ErrInvalidComponent})
		}
	}
	return errors.Join(errs...)
}

// collides reports (and records as an error) a target ID already taken by another target:
// IDs join names with ".", so a partition named "external" can make a local target's ID
// read as a peer target's. Two targets of one peer's service that differ only in the subset
// they kept are one target, as their ID is (the first reached stays, as in Consul).
func (c *compiler) collides(ch *Chain, id string, k key) bool {
	prev, ok := ch.Targets[id]
	if !ok {
		return false
	}
	pk := key{prev.Service, prev.Subset, prev.Datacenter, prev.Peer}
	if pk.idKey() != k.idKey() {
		c.errs = append(c.errs, &FieldError{Value: id, Detail: fmt.Sprintf("target ID %q names two different targets (%s and %s); rename one", id, pk, k)})
		return true
	}
	return false
}

// key of a failover section in a message and a Step.
func sectionField(section string) string { return strict.Key("Failover", section) }
