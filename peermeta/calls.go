package peermeta

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/chain/store"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/intentions"
	"github.com/meshscope/meshscope/internal/names"
)

// Calls answers "may CALLER call SERVICE [REQUEST]" for the callers of a cluster and of its
// peers, as Consul and the destination's Envoy decide it: whether the call can arrive at all
// (a peer's caller reaches only the services the chains exported to its peer target), whether
// the destination's sidecar trusts the caller's peer, how the caller is seen (its own
// certificate; through an HTTP-like chain, the mesh gateway's and the forwarded header), and
// Envoy's decision, explained (package intentions). It is built from the replication input
// (what is exported to whom: the exported-services entries, the catalog and its kinds, the
// connect services, the chain entries) and the store's sidecars (what each destination's
// sidecar has). It is immutable and safe for concurrent use; what each peer reaches is
// worked out on first use.
type Calls struct {
	in       Input
	sidecars *store.Sidecars
	cc       *chain.Compiler
	known    map[exports.ServiceName]bool // the candidates of the exporter's partition

	mu      sync.Mutex
	reaches map[string]map[exports.ServiceName]Reach // per peer
}

// NewCalls returns the answers of the cluster that in (whose Exporter.Peer is not read) and
// sidecars describe. The Input's chain entries must be the sidecars' Config's, and its
// exporter the sidecars' cluster (its trust domain and datacenter). The error is an input
// replication refuses, or a cluster that differs from the exporter.
func NewCalls(in Input, sidecars *store.Sidecars) (*Calls, error) {
	cl := sidecars.Cluster()
	in.Exporter.Peer = "calls" // not read; Validate wants a name
	if err := in.validate(); err != nil {
		return nil, err
	}
	if in.Exporter.TrustDomain != cl.TrustDomain || in.Exporter.Datacenter != cl.Datacenter {
		return nil, &FieldError{Field: "Exporter", Value: in.Exporter, Detail: fmt.Sprintf("the exporter is %s in %s; the sidecars' cluster is %s in %s",
			in.Exporter.TrustDomain, in.Exporter.Datacenter, cl.TrustDomain, cl.Datacenter)}
	}
	cc, err := chain.NewCompiler(in.Entries)
	if err != nil {
		return nil, err
	}
	c := &Calls{in: in, sidecars: sidecars, cc: cc, known: map[exports.ServiceName]bool{}, reaches: map[string]map[exports.ServiceName]Reach{}}
	for _, k := range in.candidates() {
		c.known[k.service] = true
	}
	return c, nil
}

// Call is the answer to "may Caller call Service [Request]".
type Call struct {
	Caller  intentions.Caller
	Service string
	Request intentions.Request
	// Allowed: the call arrives (Reachable) and Envoy lets it through.
	Allowed bool
	// Reachable: a local caller always reaches the service; a peer's caller when a chain
	// Consul exports to its peer targets the service (Via).
	Reachable bool
	// Via is, for a peer's reachable caller, the exported service whose chain reaches the
	// service, and the rule that exports it.
	Via *Reach `json:",omitempty"`
	// Trusted: the service's sidecar has the trust bundle of the caller's peer (always, for
	// a local caller); without it Consul leaves the peer's intentions out.
	Trusted bool
	// Explanation is Envoy's decision, were the call to arrive, with every intention's
	// outcome and where it differs from the check API and from "the most precedent matching
	// intention decides".
	Explanation intentions.Explanation
	// Notes say what the explanation does not: why a peer's caller does not arrive, or is
	// not trusted.
	Notes []string `json:",omitempty"`
}

// Reach is how a peer's caller reaches a local service: through the chain of an exported
// service that targets it.
type Reach struct {
	// Service is the exported service whose chain targets the destination (the destination
	// itself when its own chain does), and Target that chain's target.
	Service exports.ServiceName
	Target  string
	// Rule is the index of the exported-services rule that exports Service to the peer.
	// Union: it is not Service's most exact rule, which does not name the peer — Consul
	// exports the union of its rules (meshscope's Replicate, which applies one rule, does not
	// send the service: its UnionDiffers finding says so).
	Rule  int
	Union bool
}

// May answers whether caller may call service (a service of the default namespace and
// partition, where Consul CE keeps intentions) with request r, under the ACL acl: see Call.
// A request is needed when the service's sidecar filters HTTP (give "GET /" for any). The
// error is a caller, service or request that is not well formed, a service no input names
// (when the input has a catalog), a peer's caller whose trust domain the cluster does not
// know, or a sidecar whose inputs do not compile (store.Sidecars).
func (c *Calls) May(caller intentions.Caller, service string, r intentions.Request, acl intentions.ACL) (Call, error) {
	name := exports.ServiceName{Partition: c.in.Exporter.partition(), Name: service}.Canonical()
	if len(c.in.Catalog) > 0 && !c.known[name] && service != "" {
		return Call{}, &FieldError{Field: "Service", Value: service, Detail: fmt.Sprintf("%q: no service of the catalog, the chain entries or the exported-services rules of partition %s", service, name.Partition)}
	}
	d, err := c.sidecars.Destination(service)
	if err != nil {
		return Call{}, err
	}
	call := Call{Caller: caller, Service: service, Request: r, Reachable: true, Trusted: true}
	if caller.Peer != "" {
		p, ok := c.sidecars.Peering(caller.Peer)
		if ok && p.Peer.TrustDomain == "" {
			return Call{}, &FieldError{Field: "Caller.Peer", Value: caller.Peer, Err: intentions.ErrUnknownPeer,
				Detail: fmt.Sprintf("peering %q has no trust domain: its trust bundle was not received, or give it (the peer's /v1/connect/ca/roots)", caller.Peer)}
		}
		if !ok {
			return Call{}, &FieldError{Field: "Caller.Peer", Value: caller.Peer, Err: intentions.ErrUnknownPeer, Detail: fmt.Sprintf("the cluster has no peering %q", caller.Peer)}
		}
		call.reachFrom(p, c.reach(caller.Peer)[name])
		call.Trusted = slices.Contains(d.Sidecar().TrustBundles, caller.Peer)
		if !call.Trusted {
			call.Notes = append(call.Notes, fmt.Sprintf("%s's sidecar has no trust bundle of %q: no service whose chain targets it is exported to %q by its most exact rule (with an active peering), so Consul leaves %q's intentions out", service, caller.Peer, caller.Peer, caller.Peer))
		}
	}
	if call.Explanation, err = d.Explain(caller, r, acl); err != nil {
		return Call{}, err
	}
	call.Allowed = call.Reachable && call.Explanation.Decision.Allowed
	return call, nil
}

// reachFrom records whether a caller of peering p reaches the service, through via (zero:
// no chain exported to p targets it).
func (call *Call) reachFrom(p store.Peering, via Reach) {
	switch {
	case !p.Active():
		call.Reachable = false
		call.Notes = append(call.Notes, fmt.Sprintf("peering %q is %s: nothing is exported on it", p.Name, p.State))
	case via.Service.Name == "":
		call.Reachable = false
		call.Notes = append(call.Notes, fmt.Sprintf("no chain exported to %q targets %s: a caller of %q cannot reach it", p.Name, call.Service, p.Name))
	default:
		call.Via = &via
		if via.Union {
			call.Notes = append(call.Notes, fmt.Sprintf("%s reaches %s through %s, which Services[%d] exports to %q although its most exact rule does not name %q: Consul exports the union of the rules",
				p.Name, call.Service, via.Service.Short(), via.Rule, p.Name, p.Name))
		}
	}
}

// reach returns the local services the peer reaches, each with how, worked out once.
func (c *Calls) reach(peer string) map[exports.ServiceName]Reach {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.reaches[peer]; ok {
		return r
	}
	r := c.reachable(peer)
	c.reaches[peer] = r
	return r
}

// exportedTo returns the services Consul exports to the peer (its ExportedServicesForPeer):
// under any rule naming the peer (the union of the rules), an exact rule's service and a "*"
// rule's typical catalog services and chain names, each with the rule — its most exact one
// when that names the peer —, sorted by service.
func (c *Calls) exportedTo(peer string) []Reach {
	var out []Reach
	for _, cand := range c.in.candidates() {
		s := cand.service
		if m, one := c.in.Exports.MatchPeer(s, peer); one && (m.Precedence == exports.Exact || cand.wildcard) {
			out = append(out, Reach{Service: s, Rule: m.Rule})
		} else if u, union := c.in.Exports.UnionMatch(s, peer); union && (u.Precedence == exports.Exact || cand.wildcard) {
			out = append(out, Reach{Service: s, Rule: u.Rule, Union: true})
		}
	}
	return out
}

// reachable works out the local services a peer reaches, as Consul decides it: every
// service exported to the peer (exportedTo) that is a connect service whose chain compiles,
// is safe to export and does not reach the consul service, reaches the local targets (of the
// cluster's datacenter) of its chain. A service reached several ways keeps the first: by a
// most exact rule before the union, then by exported service.
func (c *Calls) reachable(peer string) map[exports.ServiceName]Reach {
	out := map[exports.ServiceName]Reach{}
	connect := connectServices(c.in)
	type reached struct {
		service exports.ServiceName
		how     Reach
	}
	var byUnion []reached
	for _, reach := range c.exportedTo(peer) {
		if !connect[reach.Service] {
			continue
		}
		ch, err := c.cc.Compile(chain.Request{Service: reach.Service, Datacenter: c.in.Exporter.Datacenter, TrustDomain: c.in.Exporter.TrustDomain})
		if err != nil || ch.CheckPeerExport() != nil || reachesConsul(ch) != nil {
			continue
		}
		for _, id := range ch.TargetIDs() {
			t := ch.Targets[id]
			if t.Peer != "" || t.Datacenter != c.in.Exporter.Datacenter {
				continue
			}
			r := reach
			r.Target = id
			if reach.Union {
				byUnion = append(byUnion, reached{t.Service.Canonical(), r})
			} else if _, seen := out[t.Service.Canonical()]; !seen {
				out[t.Service.Canonical()] = r
			}
		}
	}
	for _, r := range byUnion {
		if _, seen := out[r.service]; !seen {
			out[r.service] = r.how
		}
	}
	return out
}

// ParseCaller reads a caller as people write one: "web" (a local service), "east/web" (a
// service of the peer east) or "east/ns1/web" (of the peer's namespace ns1).
func ParseCaller(s string) (intentions.Caller, error) {
	parts := strings.Split(s, "/")
	var c intentions.Caller
	switch len(parts) {
	case 1:
		c.Service = parts[0]
	case 2:
		c.Peer, c.Service = parts[0], parts[1]
	case 3:
		c.Peer, c.Namespace, c.Service = parts[0], parts[1], parts[2]
	}
	if len(parts) == 0 || len(parts) > 3 || slices.Contains(parts, "") {
		return intentions.Caller{}, &FieldError{Value: s, Detail: "want service, peer/service or peer/namespace/service"}
	}
	if c.Namespace == names.Default {
		c.Namespace = ""
	}
	return c, nil
}

// ParseCall reads a call as people write one: "CALLER SERVICE", the caller as ParseCaller
// reads it — "east/web api".
func ParseCall(s string) (intentions.Caller, string, error) {
	fields := strings.Fields(s)
	if len(fields) != 2 {
		return intentions.Caller{}, "", &FieldError{Value: s, Detail: `want a caller and a service, such as "east/web api"`}
	}
	c, err := ParseCaller(fields[0])
	return c, fields[1], err
}

// IntentionsRequest is a request as chain.ParseHTTPRequest reads one, as package intentions
// reads it: its method, its path (intentions' path matchers read it without the query) and
// its headers, names lower-cased.
func IntentionsRequest(r chain.HTTPRequest) intentions.Request {
	out := intentions.Request{Method: r.Method, Path: r.Path}
	for name, v := range r.Header {
		if out.Headers == nil {
			out.Headers = map[string]string{}
		}
		out.Headers[strings.ToLower(name)] = v
	}
	return out
}

// String renders the answer: whether the caller may call the service, whether the call
// arrives and how, then Envoy's decision explained, one line per fact.
func (c Call) String() string {
	var b strings.Builder
	answer := "no"
	if c.Allowed {
		answer = "yes"
	}
	fmt.Fprintf(&b, "may %s call %s? %s", callerName(c.Caller), c.Service, answer)
	if c.Explanation.HTTP {
		fmt.Fprintf(&b, " (%s %s)", c.Request.Method, c.Request.Path)
	}
	switch {
	case c.Via != nil:
		fmt.Fprintf(&b, "\n  reachable through %s (target %s), exported to %s by Services[%d]", c.Via.Service.Short(), c.Via.Target, c.Caller.Peer, c.Via.Rule)
	case !c.Reachable:
		b.WriteString("\n  not reachable")
	}
	for _, n := range c.Notes {
		b.WriteString("\n  note: " + n)
	}
	b.WriteString("\n" + strings.ReplaceAll(c.Explanation.String(), "\n", "\n  "))
	return b.String()
}

// String renders the change on one line: "east/web → api GET /: allowed … ⇒ denied …".
func (c CallChange) String() string {
	return fmt.Sprintf("%s → %s %s %s: %s ⇒ %s", callerName(c.Caller), c.Service, c.Request.Method, c.Request.Path, c.Before.Why, c.After.Why)
}

// callerName writes a caller as ParseCaller reads it: "web", "east/web", "east/ns1/web".
func callerName(c intentions.Caller) string {
	parts := []string{c.Peer, c.Namespace, c.Service}
	if c.Namespace == names.Default {
		parts[1] = ""
	}
	return strings.Join(slices.DeleteFunc(parts, func(s string) bool { return s == "" }), "/")
}
