package peermeta

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/intentions"
	"github.com/meshscope/meshscope/internal/report"
)

// Lint reports what users of intentions get wrong and Consul accepts without a word, on the
// sidecar of every destination the intentions reach (Destinations), under the ACL default
// policy of acl: an intention of a peer that never matches (IntentionNeverMatches) or that
// the sidecar leaves out for want of the peer's trust bundle (TrustBundleMissing), an
// intention with permissions on a sidecar whose network filter reads it as a deny
// (L7OnNetworkFilter), an intention naming a peer the cluster has no peering with
// (IntentionPeerUnknown), a regular expression Envoy refuses (RegexRefused), an intention a
// more precedent one with the same source shadows (SourceShadowed), and a destination whose
// sidecar meshscope cannot judge (IntentionsUnjudged). The findings are sorted.
func (c *Calls) Lint(acl intentions.ACL) []Finding {
	var out []Finding
	for _, e := range c.sidecars.Intentions() {
		for _, src := range e.Sources {
			if _, ok := c.sidecars.Peering(src.Peer); src.Peer != "" && !ok {
				out = append(out, report.New(entryPath(e.Name, src.Name, src.Peer), IntentionPeerUnknown,
					"the cluster has no peering %q: Consul accepts the intention, and it never applies", src.Peer))
			}
		}
	}
	for _, dest := range c.Destinations() {
		d, err := c.sidecars.Destination(dest)
		if err != nil {
			out = append(out, report.New("sidecar of "+dest, IntentionsUnjudged, "meshscope cannot say who may call %s: %v", dest, err))
			continue
		}
		out = append(out, c.lintSidecar(dest, d, acl)...)
	}
	slices.SortStableFunc(out, report.Compare)
	return slices.CompactFunc(out, func(a, b Finding) bool { return a == b })
}

// lintSidecar lints the intentions of one destination's sidecar.
func (c *Calls) lintSidecar(dest string, d *intentions.Destination, acl intentions.ACL) []Finding {
	var out []Finding
	side := d.Sidecar()
	list := d.Intentions()
	on := func(x intentions.Intention) string {
		if x.DestinationName == intentions.Wildcard {
			return " on " + dest + "'s sidecar"
		}
		return ""
	}
	for _, s := range d.Standings() {
		x := list[s.Intention]
		path := entryPath(x.DestinationName, x.SourceName, x.SourcePeer)
		switch s.Outcome {
		case intentions.Duplicate:
			out = append(out, report.New(path, SourceShadowed, "it never applies%s: %s", on(x), s.Why))
		case intentions.NotPresented:
			out = append(out, report.New(path, IntentionNeverMatches, "no caller of %q ever matches it%s: %s", x.SourcePeer, on(x), s.Why))
		case intentions.NoTrustBundle:
			if p, ok := c.sidecars.Peering(x.SourcePeer); ok {
				out = append(out, report.New(path, TrustBundleMissing, "%s's sidecar has no trust bundle of %q, so Consul leaves the intention out: %s", dest, p.Name, c.whyUntrusted(dest, p.Name)))
			}
		}
		if x.L7() && s.Outcome != intentions.Duplicate && s.Outcome != intentions.NoTrustBundle && !chain.IsHTTPLike(side.Protocol) {
			out = append(out, report.New(path, L7OnNetworkFilter, "%s's sidecar has protocol %s (its chain is %s): Envoy's network filter reads the permissions as a deny, whatever the request",
				dest, cmp.Or(side.Protocol, "tcp"), side.ChainProtocol))
		}
	}
	if e := d.RegexError(acl); e != "" {
		out = append(out, report.New("sidecar of "+dest, RegexRefused, "Envoy refuses %s's public listener under default %s (%s): every call to %s fails", dest, acl.Default(), e, dest))
	}
	return out
}

// whyUntrusted says why the sidecar of dest has no trust bundle of peer.
func (c *Calls) whyUntrusted(dest, peer string) string {
	p, _ := c.sidecars.Peering(peer)
	switch {
	case !p.Active():
		return fmt.Sprintf("peering %q is %s", peer, p.State)
	case p.Peer.TrustDomain == "":
		return fmt.Sprintf("peering %q has no trust bundle yet", peer)
	}
	name := exports.ServiceName{Partition: c.in.Exporter.partition(), Name: dest}.Canonical()
	if r, ok := c.reach(peer)[name]; ok {
		return fmt.Sprintf("%q reaches %s through %s (Services[%d]), but no service whose chain targets %s is exported to %q by its most exact rule", peer, dest, r.Service.Short(), r.Rule, dest, peer)
	}
	return fmt.Sprintf("no service whose chain targets %s is exported to %q (nor can a caller of %q reach it)", dest, peer, peer)
}

// Destinations returns the services whose sidecars the intentions reach, sorted: every
// service a service-intentions entry names and, when an entry of "*" is stored, every
// typical catalog service of the default namespace.
func (c *Calls) Destinations() []string {
	var out []string
	wildcard := false
	for _, e := range c.sidecars.Intentions() {
		if e.Name == intentions.Wildcard {
			wildcard = true
			continue
		}
		out = append(out, e.Name)
	}
	if wildcard {
		for _, cand := range c.in.candidates() {
			if s := cand.service; cand.wildcard && s.Namespace == "default" && s.Partition == "default" {
				out = append(out, s.Name)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// entryPath is the Path of a finding about one source of the service-intentions entry named
// dest: "service-intentions api (web@east)".
func entryPath(dest, source, peer string) string {
	if peer != "" {
		source += "@" + peer
	}
	return fmt.Sprintf("service-intentions %s (%s)", dest, source)
}
