package intentions

import (
	"fmt"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/names"
)

// Explanation is a decision explaining itself: how the caller arrives, what happens to every
// intention of the sidecar's list, and where Envoy's answer differs from Consul's own readings.
type Explanation struct {
	Destination string
	Caller      Caller
	Request     Request
	// Default is the default policy Envoy applied (the ACL default policy).
	Default Action
	// HTTP: the sidecar's filter is HTTP RBAC, which reads each request; else network RBAC,
	// which reads only the connection.
	HTTP bool
	// Arrival is how the caller's connection arrives; Certificate is the URI of the
	// certificate the filter sees, XFCC the URI of the first element of the
	// x-forwarded-client-cert header it sees ("" when it sees none).
	Arrival           Arrival
	Certificate, XFCC string
	// Decision is Decide's answer.
	Decision Decision
	// Intentions are Destination.Intentions, which Decision, Steps, Precedent and Check index
	// (read-only).
	Intentions []Intention
	// Policies are the RBAC policies the request matched, sorted (none when the default
	// decided).
	Policies []string
	// Steps says what each intention of Destination.Intentions did, in order.
	Steps []Step
	// Precedent is the index of the intention Consul's own matcher picks — the first whose
	// source is the caller's name or "*" with the caller's peer (and namespace default) —, or
	// -1; PrecedentAllowed is the answer of "the most precedent matching intention decides"
	// (its action, or its first permission that fits the request; else the default).
	Precedent        int
	PrecedentAllowed bool
	// Check is the check API's answer for a local caller in namespace default (nil for
	// another caller, which the API cannot be asked about).
	Check *CheckAnswer
	// Notes say where Envoy's answer differs from Precedent's or Check's, and why.
	Notes []Note
}

// Step is what one intention of the sidecar's list did with the request.
type Step struct {
	Intention  int // index in Destination.Intentions
	Outcome    Outcome
	Permission int // the permission that fit, or -1
	// Reason is why an intention naming the caller did not match it (NoTrustBundle,
	// NotPresented); 0 otherwise.
	Reason Reason
	Why    string // one line
}

// Note is one reason Envoy's answer differs from another reading of the intentions.
type Note struct {
	Reason Reason
	Text   string
}

// Reason is why Envoy's answer differs from "the most precedent matching intention decides"
// or from the check API's.
type Reason uint8

const (
	// ReasonEnvoyError: Envoy refuses the rules (a regular expression that does not compile).
	ReasonEnvoyError Reason = iota + 1
	// ReasonPermissionsCheck: the check API calls an intention with permissions denied,
	// whatever the request.
	ReasonPermissionsCheck
	// ReasonACLDefault: with ACLs disabled the check API defaults to allow; Envoy follows
	// acl.default_policy.
	ReasonACLDefault
	// ReasonNoCheck: the check API cannot be asked about the caller: a peer's, or (Consul CE)
	// one in a namespace other than default.
	ReasonNoCheck
	// ReasonNoTrustBundle: the sidecar lacks the peer's trust bundle, so Consul skips the
	// peer's intentions silently.
	ReasonNoTrustBundle
	// ReasonStrippedHeader: a peer's intention matches on the x-forwarded-client-cert header,
	// which the filter strips (grpc, or the mesh entry's SanitizeXForwardedClientCert).
	ReasonStrippedHeader
	// ReasonPresentation: the caller arrives with another certificate than its source is
	// matched on (the mesh gateway's for an HTTP-like chain, its own otherwise).
	ReasonPresentation
	// ReasonNamespace: the caller is in another namespace than "default", where Consul CE
	// writes every source.
	ReasonNamespace
	// ReasonPrecedence: another intention applies too: Consul subtracts from an intention only
	// the earlier ones with a narrower source, so *→api and web→* both apply to web.
	ReasonPrecedence
	// ReasonNetworkL7: a network filter reads an intention with permissions as a deny.
	ReasonNetworkL7
	// ReasonRegexName: a source name with '.' is a regular expression in Envoy's rules.
	ReasonRegexName
)

var reasonNames = [...]string{"", "Envoy error", "permissions in the check API", "ACL default",
	"no check API answer", "no trust bundle", "stripped header", "presentation", "namespace",
	"precedence", "permissions on a network filter", "source name as a regular expression"}

// String names the reason.
func (r Reason) String() string {
	if int(r) < len(reasonNames) && r != 0 {
		return reasonNames[r]
	}
	return fmt.Sprintf("Reason(%d)", r)
}

// Explain returns Decide's decision with its explanation: every intention's outcome and why,
// the RBAC policies matched, Consul's matcher's pick with the answer "the most precedent
// matching intention decides" gives, the check API's answer for a local caller, and a note for
// each way Envoy's answer differs from theirs. It reads every intention and allocates.
func (d *Destination) Explain(c Caller, r Request, acl ACL) (Explanation, error) {
	if err := d.callProblem(&c, &r, acl); err != nil {
		return Explanation{}, err
	}
	def := acl.Default()
	p := d.present(&c, nil)
	req := newHTTPRequest(&r)
	x := Explanation{Destination: d.side.Service, Caller: c, Request: r, Default: def, HTTP: d.http,
		Arrival: d.arrival(&c), Certificate: string(p.cert), XFCC: string(p.xfcc), Precedent: -1, Intentions: d.list}
	matched := d.matching(&p, nil)
	x.Steps = make([]Step, len(d.list))
	rs := &d.rules[policyIndex(def)]
	x.Decision = d.judge(matched, &req, def, func(k int32, o Outcome, perm int) {
		at := d.kept[k].at
		x.Steps[at] = Step{Intention: int(at), Outcome: o, Permission: perm, Why: d.why(at, o, perm, def)}
		if o == Decides && !slices.Contains(x.Policies, rs.policy[k]) {
			x.Policies = append(x.Policies, rs.policy[k])
		}
	})
	slices.Sort(x.Policies)
	if rs.envoyError != "" {
		x.Decision, x.Policies = Decision{Intention: -1, Permission: -1, EnvoyError: rs.envoyError}, nil
	}
	for i := range x.Steps {
		if x.Steps[i].Outcome == 0 {
			x.Steps[i] = d.unmatched(i, &c, &p)
		}
		if x.Precedent < 0 && d.names(i, &c) && names.OrDefault(c.Namespace) == names.Default {
			x.Precedent = i
		}
	}
	x.PrecedentAllowed = d.precedentAllows(x.Precedent, &req, def)
	if c.Peer == "" && names.OrDefault(c.Namespace) == names.Default {
		if ans, err := d.Check(c.Service, acl); err == nil {
			x.Check = &ans
		}
	}
	x.Notes = d.notes(&x, acl)
	return x, nil
}

// names reports whether intention i's source names the caller: its peer, and its name or "*".
func (d *Destination) names(i int, c *Caller) bool {
	s := &d.list[i]
	return s.SourcePeer == c.Peer && (s.SourceName == Wildcard || s.SourceName == c.Service)
}

// why says in one line why intention i had outcome o.
func (d *Destination) why(i int32, o Outcome, perm int, def Action) string {
	x := &d.list[i]
	switch o {
	case Decides:
		if perm >= 0 {
			return fmt.Sprintf("its permission %d fits and %s, against the default %s", perm, x.Permissions[perm].Action.verb(), def)
		}
		if x.L7() {
			return fmt.Sprintf("a network filter reads its permissions as a deny, against the default %s", def)
		}
		return fmt.Sprintf("it %s, against the default %s", x.Action.verb(), def)
	case SameAsDefault:
		if x.L7() {
			return "a network filter reads its permissions as a deny, as the default does: Consul leaves it out of the rules"
		}
		return fmt.Sprintf("it %s, as the default does: Consul leaves it out of the rules", x.Action.verb())
	case NoPermission:
		return "none of its permissions fits the request; Envoy does not fall through to the intentions it shadows"
	case PermissionDefault:
		return fmt.Sprintf("its first permission that fits (%d) %s, as the default does", perm, def.verb())
	case Subtracted:
		return "an earlier intention with a narrower source matches the caller; Consul subtracts it from this one"
	}
	return ""
}

// unmatched is the step of intention i, whose source did not match the caller as presented.
func (d *Destination) unmatched(i int, c *Caller, p *presented) Step {
	s := Step{Intention: i, Permission: -1}
	x, f := &d.list[i], d.fate[i]
	switch {
	case x.SourcePeer != c.Peer && x.SourcePeer == "":
		s.Outcome, s.Why = OtherSource, "its source is a service of this cluster"
	case x.SourcePeer != c.Peer:
		s.Outcome, s.Why = OtherSource, fmt.Sprintf("its source is a service of peer %q", x.SourcePeer)
	case !d.names(i, c):
		s.Outcome, s.Why = OtherSource, "its source names another service"
	case f.dup >= 0:
		s.Outcome, s.Why = Duplicate, fmt.Sprintf("Intentions[%d] (%s) has the same source and more precedence; Consul keeps that one only", f.dup, d.list[f.dup])
	case f.noBundle:
		s.Outcome, s.Reason, s.Why = NoTrustBundle, ReasonNoTrustBundle, fmt.Sprintf("the sidecar has no trust bundle of peer %q; Consul leaves the peer's intentions out silently", x.SourcePeer)
	default:
		s.Outcome = NotPresented
		s.Reason, s.Why = d.unpresented(x, c, p)
	}
	return s
}

// unpresented says why a kept intention naming the caller does not match it as presented.
func (d *Destination) unpresented(x *Intention, c *Caller, p *presented) (Reason, string) {
	chain := fmt.Sprintf("the chain of %q is %s", d.side.Service, protocolName(d.side.ChainProtocol))
	switch {
	case names.OrDefault(c.Namespace) != names.Default:
		return ReasonNamespace, fmt.Sprintf("the caller is in namespace %q; Consul CE writes every source in namespace default", c.Namespace)
	case x.SourcePeer == "":
	case d.expectXFCC && !p.gateway:
		return ReasonPresentation, "peer sources are matched on the x-forwarded-client-cert header behind the local mesh gateway's certificate, but " + chain + ": the gateway passes the caller's TLS through and the caller's own certificate arrives"
	case d.expectXFCC && p.xfcc == nil:
		return ReasonStrippedHeader, fmt.Sprintf("peer sources are matched on the x-forwarded-client-cert header, which the filter strips (%s)", d.stripReason())
	case !d.expectXFCC && d.arrival(c) == GatewayHTTP:
		return ReasonPresentation, "the filter matches the caller's certificate, but " + chain + ": the mesh gateway terminates TLS and presents its own certificate"
	}
	return ReasonPresentation, fmt.Sprintf("Consul's pattern for its source does not match the identity presented (%s)", p.cert)
}

// stripReason says why the filter strips the x-forwarded-client-cert header.
func (d *Destination) stripReason() string {
	if d.side.Protocol == "grpc" {
		return "protocol grpc"
	}
	return "the mesh entry sets HTTP.SanitizeXForwardedClientCert"
}

func protocolName(p string) string {
	if p == "" {
		return "tcp"
	}
	return p
}

// precedentAllows is the answer of "the most precedent matching intention decides": intention
// i's action, or its first permission that fits the request; the default otherwise.
func (d *Destination) precedentAllows(i int, r *httpRequest, def Action) bool {
	if i < 0 {
		return def == Allow
	}
	act := d.list[i].Action
	if d.list[i].L7() {
		act = def
		for _, p := range d.perms[i] {
			if p.matches(r) {
				act = p.action
				break
			}
		}
	}
	return act == Allow
}

// notes says where Envoy's answer differs from the precedent intention's and the check API's.
func (d *Destination) notes(x *Explanation, acl ACL) []Note {
	var out []Note
	add := func(r Reason, format string, args ...any) {
		if !slices.ContainsFunc(out, func(n Note) bool { return n.Reason == r }) {
			out = append(out, Note{r, fmt.Sprintf(format, args...)})
		}
	}
	dec := x.Decision
	if dec.EnvoyError != "" {
		add(ReasonEnvoyError, "Envoy refuses the listener's rules under default %s: %s", x.Default, dec.EnvoyError)
		return out
	}
	if x.PrecedentAllowed != dec.Allowed || x.Check != nil && x.Check.Allowed != dec.Allowed {
		for i, st := range x.Steps {
			if st.Outcome <= Subtracted && !d.names(i, &x.Caller) {
				add(ReasonRegexName, "%s matches the caller although its source names another service: Consul writes source names into a regular expression, where '.' matches any character", d.ref(i))
			}
		}
	}
	if x.PrecedentAllowed != dec.Allowed {
		d.precedentNotes(x, add)
	}
	switch {
	case x.Check == nil && x.Caller.Peer != "":
		add(ReasonNoCheck, "the check API cannot be asked about a caller of peer %q; only Envoy's answer counts", x.Caller.Peer)
	case x.Check == nil:
		add(ReasonNoCheck, "the check API of Consul CE cannot be asked about a caller in namespace %q; only Envoy's answer counts", x.Caller.Namespace)
	case x.Check.Allowed != dec.Allowed:
		d.checkNotes(x, acl, add)
	}
	return out
}

func (d *Destination) precedentNotes(x *Explanation, add func(Reason, string, ...any)) {
	p, dec := x.Precedent, x.Decision
	if p < 0 {
		return
	}
	step := x.Steps[p]
	switch {
	case step.Reason != 0:
		add(step.Reason, "%s, the most precedent intention naming the caller, does not apply: %s", d.ref(p), step.Why)
	case dec.Intention >= 0 && dec.Intention != p:
		add(ReasonPrecedence, "%s applies as well as %s: Consul subtracts from an intention only the earlier ones with a narrower source", d.ref(dec.Intention), d.ref(p))
	case d.list[p].L7() && !d.http:
		add(ReasonNetworkL7, "%s has permissions, which a network filter reads as a deny", d.ref(p))
	}
}

func (d *Destination) checkNotes(x *Explanation, acl ACL, add func(Reason, string, ...any)) {
	ch, dec := x.Check, x.Decision
	switch {
	case ch.HasPermissions:
		add(ReasonPermissionsCheck, "the check API calls %s denied because it has permissions, whatever the request", d.ref(ch.Intention))
	case ch.Intention < 0 && !acl.Enabled && acl.Default() == Deny:
		add(ReasonACLDefault, "no intention names the caller for the check API, which defaults to allow with ACLs disabled; Envoy follows acl.default_policy deny")
	case dec.Intention >= 0 && dec.Intention != ch.Intention:
		add(ReasonPrecedence, "%s applies as well as %s, the check API's match: Consul subtracts from an intention only the earlier ones with a narrower source", d.ref(dec.Intention), d.ref(ch.Intention))
	case ch.Intention >= 0 && d.list[ch.Intention].L7() && !d.http:
		add(ReasonNetworkL7, "%s has permissions, which a network filter reads as a deny", d.ref(ch.Intention))
	}
}

// verb is the action as a verb: "allows", "denies".
func (a Action) verb() string {
	if a == Deny {
		return "denies"
	}
	return string(a) + "s"
}

// ref names intention i: "Intentions[2] (web → api (9, allow))", or "the default" for -1.
func (d *Destination) ref(i int) string {
	if i < 0 {
		return "the default"
	}
	return fmt.Sprintf("Intentions[%d] (%s)", i, d.list[i])
}

// String renders the explanation, one line per fact and per intention.
func (x Explanation) String() string {
	var b strings.Builder
	who := x.Caller.Service
	if x.Caller.Peer != "" {
		who += "@" + x.Caller.Peer
	}
	fmt.Fprintf(&b, "%s → %s (%s), default %s", who, x.Destination, x.Arrival, x.Default)
	if x.HTTP {
		fmt.Fprintf(&b, ": %s %s", x.Request.Method, x.Request.Path)
	}
	filter := "network RBAC"
	if x.HTTP {
		filter = "HTTP RBAC"
	}
	fmt.Fprintf(&b, "\n  %s sees certificate %s", filter, x.Certificate)
	if x.XFCC != "" {
		fmt.Fprintf(&b, ", x-forwarded-client-cert URI %s", x.XFCC)
	}
	fmt.Fprintf(&b, "\n  %s", x.Decision)
	for _, s := range x.Steps {
		fmt.Fprintf(&b, "\n  [%d] %s: %s: %s", s.Intention, x.Intentions[s.Intention], s.Outcome, s.Why)
	}
	for _, n := range x.Notes {
		fmt.Fprintf(&b, "\n  note (%s): %s", n.Reason, n.Text)
	}
	return b.String()
}

// String says what the decision is: "allowed by Intentions[2], permission 0
// (consul-intentions-layer7-1)", "denied by the default", "refused by Envoy: …".
func (dec Decision) String() string {
	switch {
	case dec.EnvoyError != "":
		return "refused by Envoy: " + dec.EnvoyError
	case dec.Intention < 0 && dec.Allowed:
		return "allowed by the default"
	case dec.Intention < 0:
		return "denied by the default"
	}
	word := "denied"
	if dec.Allowed {
		word = "allowed"
	}
	s := fmt.Sprintf("%s by Intentions[%d]", word, dec.Intention)
	if dec.Permission >= 0 {
		s += fmt.Sprintf(", permission %d", dec.Permission)
	}
	return s + " (" + dec.Policy + ")"
}
