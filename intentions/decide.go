package intentions

import (
	"fmt"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/fielderr"
	"github.com/meshscope/meshscope/spiffe"
)

// Caller is the service that calls a destination.
type Caller struct {
	// Service is the calling service's name.
	Service string
	// Peer is the cluster peer the caller belongs to; "" for a local caller.
	Peer string
	// Namespace is the caller's namespace; "" means "default". A peered caller of another
	// namespace matches no intention (Consul CE writes every source in "default").
	Namespace string
}

// Request is the HTTP request a caller makes, for a destination whose sidecar has an HTTP
// filter (a network filter sees only the connection, and ignores it).
type Request struct {
	// Method is the request's method, required on an HTTP filter; methods match exactly.
	Method string
	// Path is the request's path; path matchers read it without its query or fragment.
	Path string
	// Headers are the request's headers, names in lower case. ":method" and ":path" are read
	// from Method and Path, and x-forwarded-client-cert is computed from how the caller
	// arrives, so none of them may be given here.
	Headers map[string]string
}

// ACL is the part of an agent's ACL configuration that intentions read.
type ACL struct {
	// Enabled is whether ACLs are enabled. Only the check API reads it: with ACLs disabled it
	// defaults to allow.
	Enabled bool
	// DefaultPolicy is acl.default_policy, allow or deny; "" is Consul's default, allow. The
	// destination's Envoy follows it whether or not ACLs are enabled.
	DefaultPolicy Action
}

// Default returns the default policy the destination's Envoy applies.
func (a ACL) Default() Action {
	if a.DefaultPolicy == "" {
		return Allow
	}
	return a.DefaultPolicy
}

// CheckDefault returns the default the check API applies: allow with ACLs disabled, else the
// default policy.
func (a ACL) CheckDefault() Action {
	if !a.Enabled {
		return Allow
	}
	return a.Default()
}

func (a ACL) problem() error {
	if a.DefaultPolicy != "" && a.DefaultPolicy != Allow && a.DefaultPolicy != Deny {
		return fielderr.Newf("", "ACL.DefaultPolicy", a.DefaultPolicy, "must be %q or %q, got %q", Allow, Deny, a.DefaultPolicy)
	}
	return nil
}

// Decision is the destination Envoy's answer to one request.
type Decision struct {
	// Allowed is whether Envoy lets the request through (false with EnvoyError).
	Allowed bool
	// Intention is the index, in Destination.Intentions, of the intention that decided: the
	// first (in Consul's order) whose action differs from the default policy and applies to
	// the request. -1 when none did and the default policy decided.
	Intention int
	// Permission is the index of the intention's permission that decided, -1 for an intention
	// without permissions or on a network filter (where an intention with permissions counts
	// as a deny).
	Permission int
	// Policy names the RBAC policy that matched: PolicyLayer4 or
	// "consul-intentions-layer7-<N>"; "" when the default decided.
	Policy string
	// EnvoyError is set when Envoy refuses the listener's rules under this default policy —
	// `safe_regex matcher "/api/[a-z" is invalid` — and so decides nothing.
	EnvoyError string
}

// Decide returns the destination Envoy's decision on a request by caller under the ACL default
// policy: the intentions Consul keeps (the most precedent of each source; a peer's only with its
// trust bundle) are matched against how the caller is presented (Arrival); one applies when it
// matches and no earlier matching intention has a strictly narrower source (Consul subtracts
// only those: so "*"→api and web→* may both apply to web); the request is refused under default
// allow, or let through under default deny, when an applying intention's action is not the
// default — an intention without permissions by its Action (a network filter reads one with
// permissions as deny), one with permissions by its first permission that fits the request.
// It reads only the intentions that can match the caller, allocates nothing, and fails only
// for a caller or request that is not well formed (a peer the sidecar's inputs do not describe:
// ErrUnknownPeer).
func (d *Destination) Decide(c Caller, r Request, acl ACL) (Decision, error) {
	if err := d.callProblem(&c, &r, acl); err != nil {
		return Decision{}, err
	}
	def := acl.Default()
	if e := d.rules[policyIndex(def)].envoyError; e != "" {
		return Decision{Intention: -1, Permission: -1, EnvoyError: e}, nil
	}
	var buf [256]byte
	p := d.present(&c, buf[:0])
	req := newHTTPRequest(&r)
	var cands [16]int32
	return d.judge(d.candidates(&p, cands[:0]), &req, def, nil), nil
}

// callProblem checks a caller, a request and an ACL; it allocates only for a problem.
func (d *Destination) callProblem(c *Caller, r *Request, acl ACL) error {
	if err := acl.problem(); err != nil {
		return err
	}
	id := d.identity(c)
	if c.Peer != "" {
		if _, ok := d.side.Peers[c.Peer]; !ok {
			return &FieldError{Field: "Caller.Peer", Value: c.Peer, Err: ErrUnknownPeer,
				Detail: fmt.Sprintf("no peering %q is described in the sidecar's inputs", c.Peer)}
		}
	}
	if err := id.Validate(); err != nil {
		return fielderr.Under("Caller", err)
	}
	if !d.http {
		return nil
	}
	if r.Method == "" {
		return fielderr.Newf("", "Request.Method", "", "the sidecar of %q filters HTTP requests: give the request's method", d.side.Service)
	}
	for name := range r.Headers {
		switch {
		case name != strings.ToLower(name):
			return fielderr.Newf("", "Request.Headers", name, "header name %q must be in lower case, as HTTP/2 and Envoy's matchers write it", name)
		case name == ":method" || name == ":path" || name == xfccHeader:
			return fielderr.Newf("", "Request.Headers", name, "header %q is not an input: it is read from the method, the path or how the caller arrives", name)
		}
	}
	return nil
}

const xfccHeader = "x-forwarded-client-cert"

// identity is the caller's identity: the SPIFFE ID of its certificate.
func (d *Destination) identity(c *Caller) spiffe.Service {
	if c.Peer == "" {
		return spiffe.Service{TrustDomain: d.side.TrustDomain, Namespace: c.Namespace, Datacenter: d.side.Datacenter, Service: c.Service}
	}
	p := d.side.Peers[c.Peer]
	return spiffe.Service{TrustDomain: p.TrustDomain, Partition: p.Partition, Namespace: c.Namespace, Datacenter: p.Datacenter, Service: c.Service}
}

// Arrival is how a caller's connection reaches the destination's sidecar.
type Arrival uint8

const (
	// Direct: a local caller connects with its own certificate.
	Direct Arrival = iota + 1
	// GatewayHTTP: a peered caller of an HTTP-like chain; the local mesh gateway terminates
	// TLS and connects with its own certificate, naming the caller in the first element of the
	// x-forwarded-client-cert header.
	GatewayHTTP
	// GatewayTLS: a peered caller of any other chain; the mesh gateway passes the caller's TLS
	// through, so the caller's own certificate arrives.
	GatewayTLS
)

// String returns "direct", "mesh-gateway-http" or "mesh-gateway-tls-passthrough".
func (a Arrival) String() string {
	switch a {
	case Direct:
		return "direct"
	case GatewayHTTP:
		return "mesh-gateway-http"
	case GatewayTLS:
		return "mesh-gateway-tls-passthrough"
	}
	return fmt.Sprintf("Arrival(%d)", a)
}

// arrival is how c arrives.
func (d *Destination) arrival(c *Caller) Arrival {
	switch {
	case c.Peer == "":
		return Direct
	case d.viaGateway:
		return GatewayHTTP
	}
	return GatewayTLS
}

// present returns how the caller appears to the filter, its identity appended to buf.
func (d *Destination) present(c *Caller, buf []byte) presented {
	id := d.identity(c)
	uri := id.AppendTo(buf)
	p := presented{cert: uri}
	if d.arrival(c) == GatewayHTTP {
		p.cert = d.gatewayID
	}
	if d.forwardXFCC {
		p.xfcc = uri
	}
	if rest, ok := cutPrefix(d.gwPrefix, p.cert); ok {
		p.gateway = anySegment(rest)
	}
	return p
}

// cutPrefix matches the start of s against a pattern whose '.' matches any character.
func cutPrefix(prefix string, s []byte) ([]byte, bool) {
	if len(s) < len(prefix) || !dotEqual(prefix, s[:len(prefix)]) {
		return nil, false
	}
	return s[len(prefix):], true
}

// candidates appends to out the kept intentions whose source matches the presented caller, in
// order, reading each group's index: the caller's name, the names with '.', and "*".
func (d *Destination) candidates(p *presented, out []int32) []int32 {
	for gi := range d.groups {
		g := &d.groups[gi]
		rest, ok := sourceName(g.prefix, g.uri(p))
		if !ok {
			continue
		}
		if k, ok := g.exact[string(rest)]; ok {
			out = append(out, k)
		}
		for _, k := range g.dotted {
			if dotEqual(d.kept[k].name, rest) {
				out = append(out, k)
			}
		}
		if g.wildcard >= 0 && anySegment(rest) {
			out = append(out, g.wildcard)
		}
	}
	slices.Sort(out)
	return out
}

// matching appends to out every kept intention whose source matches the presented caller, in
// order, reading each one: what candidates finds with the index.
func (d *Destination) matching(p *presented, out []int32) []int32 {
	for k := range d.kept {
		g := &d.groups[d.kept[k].group]
		if rest, ok := sourceName(g.prefix, g.uri(p)); ok && nameMatches(d.kept[k].name, rest) {
			out = append(out, int32(k))
		}
	}
	return out
}

// Outcome is what one intention of the sidecar's list does with a request.
type Outcome uint8

const (
	// Decides: it applies, and its action (or its permission's) differs from the default.
	Decides Outcome = iota + 1
	// SameAsDefault: it applies, but its action is the default's, so Consul leaves it out of
	// the rules and the default does what it would.
	SameAsDefault
	// NoPermission: it applies, but none of its permissions fits the request; Envoy does not
	// fall through to the intentions it shadows.
	NoPermission
	// PermissionDefault: it applies, and its first permission that fits has the default's
	// action.
	PermissionDefault
	// Subtracted: its source is "*" and an earlier matching intention names the caller, whose
	// source Consul subtracts from it.
	Subtracted
	// OtherSource: its source names another service, peer or namespace.
	OtherSource
	// NotPresented: its source names the caller, but not as the filter sees the caller (the
	// Explanation says why: a certificate or a header).
	NotPresented
	// Duplicate: a more precedent intention has the same source; Consul keeps that one only.
	Duplicate
	// NoTrustBundle: its source is a peer's whose trust bundle the sidecar lacks; Consul
	// leaves it out silently.
	NoTrustBundle
)

var outcomeNames = [...]string{"", "decides", "same as the default", "no permission fits",
	"its permission has the default's action", "subtracted by a narrower source",
	"another source", "not presented as its source", "duplicate source", "no trust bundle"}

// String names the outcome.
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) && o != 0 {
		return outcomeNames[o]
	}
	return fmt.Sprintf("Outcome(%d)", o)
}

// judge evaluates matched kept intentions, in order, under default policy def, and returns the
// decision: the first that Decides, else the default. visit, when not nil, receives every
// intention's outcome and permission.
func (d *Destination) judge(cands []int32, r *httpRequest, def Action, visit func(k int32, o Outcome, perm int)) Decision {
	dec := Decision{Allowed: def == Allow, Intention: -1, Permission: -1}
	for i, k := range cands {
		o, perm, act := d.outcome(cands[:i], k, r, def)
		if visit != nil {
			visit(k, o, perm)
		}
		if o == Decides && dec.Intention < 0 {
			dec = Decision{Allowed: act == Allow, Intention: int(d.kept[k].at), Permission: perm, Policy: d.rules[policyIndex(def)].policy[k]}
			if visit == nil {
				break
			}
		}
	}
	return dec
}

// outcome is what kept intention k, whose source matches, does with the request; earlier are
// the matching kept intentions before it. It returns the permission that fit (-1 for none) and
// the action that applies.
func (d *Destination) outcome(earlier []int32, k int32, r *httpRequest, def Action) (Outcome, int, Action) {
	kk := &d.kept[k]
	if kk.name == "" {
		for _, e := range earlier {
			if d.kept[e].group == kk.group && d.kept[e].name != "" {
				return Subtracted, -1, ""
			}
		}
	}
	if kk.perms == nil {
		if kk.action == def {
			return SameAsDefault, -1, kk.action
		}
		return Decides, -1, kk.action
	}
	perm := kk.firstPermission(r)
	switch {
	case perm < 0:
		return NoPermission, -1, ""
	case kk.perms[perm].action == def:
		return PermissionDefault, perm, def
	}
	return Decides, perm, kk.perms[perm].action
}
