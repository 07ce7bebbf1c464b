package intentions

import (
	"fmt"
	"slices"
)

// Standing is what becomes of one intention of the sidecar's list whatever the request:
// whether Consul's rules keep it, and whether a caller its source names can match it as the
// filter sees callers of its peer. An intention that can never apply is a mistake a user
// does not see: Consul accepts it and says nothing.
type Standing struct {
	Intention int // index in Destination.Intentions
	// Outcome is Duplicate (a more precedent intention has its source: Consul keeps that one),
	// NoTrustBundle (its peer's intentions are left out), NotPresented (a caller of its peer
	// never arrives as Consul matches the source), or 0: it can apply.
	Outcome Outcome
	// Of is, for a Duplicate, the index of the intention Consul keeps instead; -1 otherwise.
	Of int
	// Reason says why a NotPresented intention never matches (ReasonStrippedHeader,
	// ReasonPresentation); 0 otherwise.
	Reason Reason
	Why    string
}

// Standings says, for every intention of the sidecar's list, in order, what becomes of it
// whatever the request (Standing): a caller of a peer arrives the same way for every
// request, so an intention of a peer whose callers the filter cannot see as Consul matches
// them — behind a stripped x-forwarded-client-cert header, or with another certificate than
// the one matched — never applies. A caller in a namespace other than default matches no
// intention; Standings is about callers in namespace default.
func (d *Destination) Standings() []Standing {
	out := make([]Standing, len(d.list))
	for i := range d.list {
		x, f := &d.list[i], d.fate[i]
		s := Standing{Intention: i, Of: -1}
		switch {
		case f.dup >= 0:
			s.Outcome, s.Of = Duplicate, int(f.dup)
			s.Why = fmt.Sprintf("%s has the same source and more precedence; Consul keeps that one only", d.ref(int(f.dup)))
		case f.noBundle:
			s.Outcome, s.Reason = NoTrustBundle, ReasonNoTrustBundle
			s.Why = fmt.Sprintf("the sidecar has no trust bundle of peer %q; Consul leaves the peer's intentions out silently", x.SourcePeer)
		case x.SourcePeer != "":
			c := Caller{Service: x.SourceName, Peer: x.SourcePeer}
			if c.Service == Wildcard {
				c.Service = "any"
			}
			p := d.present(&c, nil)
			if !slices.Contains(d.matching(&p, nil), f.kept) {
				s.Outcome = NotPresented
				s.Reason, s.Why = d.unpresented(x, &c, &p)
			}
		}
		out[i] = s
	}
	return out
}

// RegexError returns Envoy's refusal of the listener's rules under the ACL default policy, ""
// when Envoy takes them: a regular expression that does not compile in a permission the
// rules hold (Decision.EnvoyError says the same for every request).
func (d *Destination) RegexError(acl ACL) string {
	return d.rules[policyIndex(acl.Default())].envoyError
}
