package chain

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/internal/strict"
	"github.com/meshscope/meshscope/sni"
	"github.com/meshscope/meshscope/spiffe"
)

// Request is the service a chain is compiled for, and where: the requesting datacenter,
// partition and namespace, and the trust domain the targets' names and IDs are built in.
// Empty Namespace and Partition mean "default"; Service, Datacenter and TrustDomain are
// required.
type Request struct {
	Service     string
	Namespace   string
	Partition   string
	Datacenter  string
	TrustDomain string
}

// ServiceKey names a service for resolver and protocol lookups. Empty Partition and
// Namespace mean "default".
type ServiceKey struct{ Partition, Namespace, Service string }

func (k ServiceKey) canonical() ServiceKey {
	return ServiceKey{orDefault(k.Partition), orDefault(k.Namespace), k.Service}
}

// String returns "partition/namespace/service", canonical.
func (k ServiceKey) String() string {
	c := k.canonical()
	return c.Partition + "/" + c.Namespace + "/" + c.Service
}

// Entries is the configuration a chain is compiled from.
type Entries struct {
	// Resolvers are the service-resolver entries, at most one per service.
	Resolvers []ServiceResolver
	// Protocols is each service's service-defaults protocol; a present "" means tcp.
	Protocols map[ServiceKey]string
	// DefaultProtocol is the proxy-defaults protocol for services without an entry in
	// Protocols; "" means tcp.
	DefaultProtocol string
}

// Chain is the compiled discovery chain of one service: its protocol, the target requests
// start at, and every target a request can land on. It is immutable and safe for concurrent
// use; its maps, slices and targets are read-only.
type Chain struct {
	Service, Namespace, Partition, Datacenter string
	// Protocol is the requested service's protocol, lower case; every local service the
	// chain touches has it.
	Protocol string
	// Start is the ID of the first resolved target.
	Start string
	// Targets holds the start target and its resolved failover targets, by ID.
	Targets map[string]*Target
}

// TargetIDs returns the IDs of the chain's targets, sorted.
func (c *Chain) TargetIDs() []string { return slices.Sorted(maps.Keys(c.Targets)) }

// Target is a place a request can land: a service (and subset) in a namespace, partition and
// datacenter, or a service exported by a peer.
//
// IDs are "svc.ns.partition.dc", with a subset "subset.svc.ns.partition.dc", and for a peer
// "svc.ns.partition.external.peer".
type Target struct {
	ID                                                      string
	Service, Subset, Namespace, Partition, Datacenter, Peer string
	// SNI and SpiffeID are the target's TLS server name and identity in the requesting trust
	// domain; empty for peer targets, whose names the peer gives.
	SNI, SpiffeID string
	// Failover lists the resolved failover targets' IDs in order; nil on failover targets.
	Failover []string
	// Via is how the request reached this target: the request itself, then each redirect,
	// default subset or failover step, with the resolver and field that took it.
	Via []Step
}

// Step is one move of a request from target to target.
type Step struct {
	// Resolver is the service-resolver ("partition/namespace/name") whose Field moved the
	// request; empty for the request itself.
	Resolver string `json:"Resolver,omitempty"`
	// Field is "Redirect", "DefaultSubset", a failover field such as
	// `Failover["*"].Datacenters[1]`, or "request".
	Field string `json:"Field"`
	From  string `json:"From,omitempty"`
	To    string `json:"To"`
}

// String renders the step as `web.default.default.dc1 -> Redirect of default/default/web -> …`.
func (s Step) String() string {
	if s.Resolver == "" {
		return s.Field + " " + s.To
	}
	return fmt.Sprintf("%s of %s -> %s", s.Field, s.Resolver, s.To)
}

// Explain renders, a target a line, how the request reaches each target, the start first,
// then its failover targets in order.
func (c *Chain) Explain() string {
	var b strings.Builder
	fmt.Fprintf(&b, "chain %s (%s)", ServiceKey{c.Partition, c.Namespace, c.Service}, c.Protocol)
	order := append([]string{c.Start}, c.Targets[c.Start].Failover...)
	for i, id := range order {
		t := c.Targets[id]
		role := "start"
		if i > 0 {
			role = fmt.Sprintf("failover %d", i)
		}
		parts := make([]string, len(t.Via))
		for j, s := range t.Via {
			parts[j] = s.String()
		}
		fmt.Fprintf(&b, "\n  %s %s: %s", role, id, strings.Join(parts, ", "))
	}
	return b.String()
}

// IsHTTPLike reports whether protocol is one of the L7 protocols http, http2 and grpc.
func IsHTTPLike(protocol string) bool {
	switch strings.ToLower(protocol) {
	case "http", "http2", "grpc":
		return true
	}
	return false
}

// key identifies a target.
type key struct{ service, subset, namespace, partition, datacenter, peer string }

func (k key) id() string {
	if k.peer != "" {
		return k.service + "." + k.namespace + "." + k.partition + ".external." + k.peer
	}
	id := k.service + "." + k.namespace + "." + k.partition + "." + k.datacenter
	if k.subset != "" {
		return k.subset + "." + id
	}
	return id
}

func (k key) serviceKey() ServiceKey { return ServiceKey{k.partition, k.namespace, k.service} }

// indexed is a resolver with its position in Entries.Resolvers and its ID, built once.
type indexed struct {
	*ServiceResolver
	pos int
	id  string
}

// options are the fields of a Redirect, a failover section or a failover target.
type options struct{ service, subset, namespace, partition, datacenter, peer string }

// Compiler holds validated, indexed Entries and compiles chains from them. It is built by
// NewCompiler, immutable and safe for concurrent use: compile many chains (one per exported
// service, say) without validating the entries each time.
type Compiler struct {
	resolvers map[ServiceKey]indexed
	protocols map[ServiceKey]string
	defProto  string
}

// compiler is the state of one compilation.
type compiler struct {
	*Compiler
	req      Request
	proto    string
	badProto map[ServiceKey]bool
	errs     []error
}

// Compile expands the request's chain: it follows redirects (any number of hops, with cycle
// detection), applies default subsets, checks that subsets exist, expands failover, and
// builds each local target's SNI and SPIFFE ID. Every local service the chain touches must
// have the requested service's protocol. Problems are reported together: missing request
// fields, invalid or duplicate resolvers (each prefixed by the resolver), and resolution
// errors:
//
//	detected circular resolver redirect: [a.default.default.dc1 -> b.default.default.dc1 -> a.default.default.dc1]
//	service "web" does not have a subset named "v3"
//	discovery chain "web" uses inconsistent protocols; service "api" has "tcp" which is not "http"
//
// Compile works iteratively; its cost is linear in the number of resolution steps.
func Compile(req Request, e Entries) (*Chain, error) {
	reqErrs := checkRequest(req)
	cc, err := NewCompiler(e)
	if err != nil || len(reqErrs) > 0 {
		return nil, errors.Join(append(reqErrs, err)...)
	}
	return cc.compile(req)
}

// checkRequest reports the request's missing fields.
func checkRequest(req Request) []error {
	var errs []error
	for _, f := range []struct{ name, value string }{{"Service", req.Service}, {"Datacenter", req.Datacenter}, {"TrustDomain", req.TrustDomain}} {
		if f.value == "" {
			errs = append(errs, &FieldError{Field: "Request." + f.name, Detail: "is required", Err: ErrRequest})
		}
	}
	return errs
}

// Compile compiles the request's chain from the compiler's entries; see the function Compile.
func (cc *Compiler) Compile(req Request) (*Chain, error) {
	if errs := checkRequest(req); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return cc.compile(req)
}

// compile compiles a request whose required fields are present.
func (cc *Compiler) compile(req Request) (*Chain, error) {
	req.Namespace, req.Partition = orDefault(req.Namespace), orDefault(req.Partition)
	c := &compiler{Compiler: cc, req: req, badProto: map[ServiceKey]bool{}}
	ch := &Chain{Service: c.req.Service, Namespace: c.req.Namespace, Partition: c.req.Partition, Datacenter: c.req.Datacenter,
		Targets: map[string]*Target{}}
	start := key{service: c.req.Service, namespace: c.req.Namespace, partition: c.req.Partition, datacenter: c.req.Datacenter}
	c.proto = c.protocol(start.serviceKey())
	ch.Protocol = c.proto
	startID := start.id()
	t, tid, via, err := c.resolve(start, startID, []Step{{Field: "request", To: startID}})
	if err != nil {
		return nil, errors.Join(append(c.errs, err)...)
	}
	ch.Start = tid
	c.add(ch, ch.Start, t, via)
	ch.Targets[ch.Start].Failover = c.failover(ch, t)
	if len(c.errs) > 0 {
		return nil, errors.Join(c.errs...)
	}
	return ch, nil
}

// NewCompiler validates the entries and indexes them: every invalid resolver (each problem
// prefixed by the resolver), two resolvers for one service, and one service given two
// protocols are reported together.
func NewCompiler(e Entries) (*Compiler, error) {
	cc := &Compiler{resolvers: make(map[ServiceKey]indexed, len(e.Resolvers)), protocols: make(map[ServiceKey]string, len(e.Protocols))}
	var errs []error
	for i := range e.Resolvers {
		r := &e.Resolvers[i]
		k := ServiceKey{r.Partition, r.Namespace, r.Name}.canonical()
		where := func() string { return fmt.Sprintf("Resolvers[%d] (%s)", i, k) }
		if err := r.Validate(); err != nil {
			errs = append(errs, fielderr.In(where(), err))
			continue
		}
		if prev, dup := cc.resolvers[k]; dup {
			errs = append(errs, &FieldError{Where: where(), Value: k.String(), Detail: fmt.Sprintf("duplicate of Resolvers[%d]; one resolver per service", prev.pos), Err: ErrDuplicateResolver})
			continue
		}
		cc.resolvers[k] = indexed{r, i, k.String()}
	}
	keys := slices.SortedFunc(maps.Keys(e.Protocols), func(a, b ServiceKey) int {
		return cmp.Or(strings.Compare(a.Partition, b.Partition), strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Service, b.Service))
	})
	for _, k := range keys {
		p := strings.ToLower(e.Protocols[k])
		if p == "" {
			p = "tcp"
		}
		ck := k.canonical()
		if prev, dup := cc.protocols[ck]; dup && prev != p {
			errs = append(errs, &FieldError{Field: "Protocols", Value: p, Detail: fmt.Sprintf("%s is given twice, as %q and %q", ck, prev, p), Err: ErrDuplicateResolver})
			continue
		}
		cc.protocols[ck] = p
	}
	cc.defProto = strings.ToLower(e.DefaultProtocol)
	if cc.defProto == "" {
		cc.defProto = "tcp"
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return cc, nil
}

func (c *compiler) protocol(k ServiceKey) string {
	if p, ok := c.protocols[k.canonical()]; ok {
		return p
	}
	return c.defProto
}

// touch checks that a local service the chain touches has the chain's protocol.
func (c *compiler) touch(k ServiceKey) {
	if p := c.protocol(k); p != c.proto && !c.badProto[k] {
		c.badProto[k] = true
		name := k.Service
		if k.Partition != defaultName || k.Namespace != defaultName {
			name = k.String()
		}
		c.errs = append(c.errs, &FieldError{Value: p, Detail: fmt.Sprintf("discovery chain %q uses inconsistent protocols; service %q has %q which is not %q", c.req.Service, name, p, c.proto), Err: ErrProtocolMismatch})
	}
}

// rewrite moves target t by the options of a redirect or failover.
func (c *compiler) rewrite(t key, o options) key {
	n := t
	if o.service != "" && o.service != t.service {
		n.service, n.subset = o.service, ""
	}
	if o.subset != "" {
		n.subset = o.subset
	}
	if o.partition != "" {
		n.partition = o.partition
	}
	if o.datacenter != "" {
		n.datacenter = o.datacenter
	}
	if o.namespace != "" || o.peer != "" {
		n.namespace = orDefault(o.namespace)
	}
	n.peer = o.peer
	if n.peer != "" { // a peer's service: no subset or datacenter, the requesting partition
		n.subset, n.datacenter, n.partition = "", "", c.req.Partition
	}
	return n
}

// resolve follows redirects and default subsets from t until it rests, appending each step
// to via. It is iterative: a long redirect chain costs time, not stack.
func (c *compiler) resolve(t key, id string, via []Step) (key, string, []Step, error) {
	var buf [8]string
	visited := buf[:0]
	var seen map[string]bool // built only for long paths; short ones are scanned
	for {
		if t.peer != "" {
			return t, id, via, nil
		}
		sk := t.serviceKey()
		c.touch(sk)
		r, found := c.resolvers[sk]
		if seen[id] || seen == nil && slices.Contains(visited, id) {
			return key{}, "", nil, &FieldError{Value: id, Detail: fmt.Sprintf("detected circular resolver redirect: [%s]", strings.Join(append(visited, id), " -> ")), Err: ErrRedirectCycle}
		}
		visited = append(visited, id)
		if seen != nil {
			seen[id] = true
		} else if len(visited) > 16 {
			seen = make(map[string]bool, 64)
			for _, v := range visited {
				seen[v] = true
			}
		}
		if found && r.Redirect != nil {
			rd := r.Redirect
			n := c.rewrite(t, options{rd.Service, rd.ServiceSubset, rd.Namespace, rd.Partition, rd.Datacenter, rd.Peer})
			if nid := n.id(); nid != id {
				via = append(via, Step{Resolver: r.id, Field: "Redirect", From: id, To: nid})
				t, id = n, nid
				continue
			}
		}
		if t.subset == "" && found && r.DefaultSubset != "" {
			t.subset = r.DefaultSubset
			nid := t.id()
			via = append(via, Step{Resolver: r.id, Field: "DefaultSubset", From: id, To: nid})
			id = nid
			continue
		}
		if t.subset != "" && (!found || !r.isSubset(t.subset)) {
			return key{}, "", nil, &FieldError{Value: t.subset, Detail: fmt.Sprintf("service %q does not have a subset named %q", t.service, t.subset), Err: ErrUnknownSubset}
		}
		return t, id, via, nil
	}
}

// failover resolves the failover candidates of the start target t and adds them.
func (c *compiler) failover(ch *Chain, t key) []string {
	if t.peer != "" {
		return nil
	}
	r, found := c.resolvers[t.serviceKey()]
	if !found {
		return nil
	}
	section := t.subset
	f, ok := r.Failover[section]
	if !ok || section == "" {
		section = wildcard
		f, ok = r.Failover[section]
	}
	if !ok {
		return nil
	}
	type candidate struct {
		opts  options
		field string
	}
	base := strict.Key("Failover", section)
	var cands []candidate
	switch {
	case len(f.Datacenters) > 0:
		list := base + ".Datacenters"
		for i, dc := range f.Datacenters {
			cands = append(cands, candidate{options{service: f.Service, subset: f.ServiceSubset, namespace: f.Namespace, datacenter: dc}, strict.Index(list, i)})
		}
	case len(f.Targets) > 0:
		list := base + ".Targets"
		cands = make([]candidate, 0, len(f.Targets))
		for i, ft := range f.Targets {
			cands = append(cands, candidate{options{ft.Service, ft.ServiceSubset, ft.Namespace, ft.Partition, ft.Datacenter, ft.Peer}, strict.Index(list, i)})
		}
	default:
		cands = append(cands, candidate{options{service: f.Service, subset: f.ServiceSubset, namespace: f.Namespace}, base})
	}
	startID := t.id()
	out := make([]string, 0, len(cands))
	targets := make(map[string]*Target, len(cands)+1) // sized once: no rehashing as it fills
	maps.Copy(targets, ch.Targets)
	ch.Targets = targets
	rid := r.id
	for _, cand := range cands {
		ck := c.rewrite(t, cand.opts)
		cid := ck.id()
		if cid == startID {
			continue
		}
		via := make([]Step, 1, 3) // the failover step, and typically a redirect or a default subset
		via[0] = Step{Resolver: rid, Field: cand.field, From: startID, To: cid}
		rk, id, via, err := c.resolve(ck, cid, via)
		if err != nil {
			c.errs = append(c.errs, fielderr.In(fmt.Sprintf("failover of %s by %s of %s", startID, cand.field, rid), err))
			continue
		}
		if c.collides(ch, id, rk) {
			continue
		}
		if _, seen := ch.Targets[id]; seen { // the start, or already in the list
			continue
		}
		out = append(out, id)
		c.add(ch, id, rk, via)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// collides reports (and records as an error) a target ID already taken by another target:
// IDs join names with ".", so a partition named "external" can make a local target's ID
// read as a peer target's.
func (c *compiler) collides(ch *Chain, id string, k key) bool {
	prev, ok := ch.Targets[id]
	if !ok {
		return false
	}
	if pk := (key{prev.Service, prev.Subset, prev.Namespace, prev.Partition, prev.Datacenter, prev.Peer}); pk != k {
		c.errs = append(c.errs, &FieldError{Value: id, Detail: fmt.Sprintf("target ID %q names two different targets (%+v and %+v); rename one", id, pk, k)})
		return true
	}
	return false
}

// add records target k, building its SNI and SPIFFE ID.
func (c *compiler) add(ch *Chain, id string, k key, via []Step) {
	t := &Target{ID: id, Service: k.service, Subset: k.subset, Namespace: k.namespace, Partition: k.partition,
		Datacenter: k.datacenter, Peer: k.peer, Via: via}
	if k.peer == "" {
		s := sni.Service{Subset: k.subset, Service: k.service, Namespace: k.namespace, Partition: k.partition, Datacenter: k.datacenter, TrustDomain: c.req.TrustDomain}
		if err := s.Validate(); err != nil {
			c.errs = append(c.errs, fielderr.In("target "+id+": SNI", err))
		}
		sp := spiffe.Service{TrustDomain: c.req.TrustDomain, Partition: k.partition, Namespace: k.namespace, Datacenter: k.datacenter, Service: k.service}
		if err := sp.Validate(); err != nil {
			c.errs = append(c.errs, fielderr.In("target "+id+": SPIFFE ID", err))
		}
		t.SNI, t.SpiffeID = s.String(), sp.String()
	}
	ch.Targets[id] = t
}
