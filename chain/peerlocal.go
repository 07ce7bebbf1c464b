package chain

import (
	"fmt"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/internal/report"
)

// Finding is one result of a check: Path (what it is about), Code, Level (the code's) and
// Message. Every finding of the Consul half has this shape.
type Finding = report.Finding

// PeerTargetResolvedLocally (warning): a local service-resolver changed one of the chain's
// peer targets. Consul finds a target's resolver by service, namespace and partition — the
// peer is not part of the lookup — so the local resolver named like a peer's service also
// governs that service as the peer exports it: its redirect and default subset (which make
// the target local), its connect and request timeouts, load balancer and subset filter, and
// for a start target its failover. This is almost never what the author meant.
var PeerTargetResolvedLocally = report.NewCode("PeerTargetResolvedLocally", report.Warning)

// peerChange is one thing a local resolver did to a peer's target: a step (field Redirect
// or DefaultSubset, to the target it made), a failover section it gave the start target,
// or (field "" and settings) the proxy settings it gave the target.
type peerChange struct {
	target, resolver, field, to string
	settings                    []string
}

// settingsOnPeer records the proxy settings resolver r gives the peer target id (whose
// subset, kept from the target it was made from, is subset).
func (c *compiler) settingsOnPeer(id, subset string, r *indexed) {
	var s []string
	if r.ConnectTimeout != 0 {
		s = append(s, fmt.Sprintf("its ConnectTimeout %s", r.ConnectTimeout))
	}
	if r.RequestTimeout != 0 {
		s = append(s, fmt.Sprintf("its RequestTimeout %s", r.RequestTimeout))
	}
	if r.LoadBalancer != nil {
		s = append(s, "its LoadBalancer")
	}
	if sub := r.Subsets[subset]; subset != "" && (sub.Filter != "" || sub.OnlyPassing) {
		s = append(s, subsetSettings(sub, subset))
	}
	if len(s) > 0 {
		c.changes = append(c.changes, peerChange{target: id, resolver: r.id, settings: s})
	}
}

// subsetSettings names what of the definition of subset name a target is given.
func subsetSettings(sub Subset, name string) string {
	switch {
	case sub.Filter != "" && sub.OnlyPassing:
		return fmt.Sprintf("the Filter and OnlyPassing of Subsets[%q]", name)
	case sub.Filter != "":
		return fmt.Sprintf("the Filter of Subsets[%q]", name)
	}
	return fmt.Sprintf("the OnlyPassing of Subsets[%q]", name)
}

// what says what the change did, for a message.
func (p peerChange) what() string {
	switch {
	case p.settings != nil:
		return "gives it " + strings.Join(p.settings, ", ")
	case p.to == "":
		return fmt.Sprintf("gives it the failover targets of its %s", p.field)
	}
	return fmt.Sprintf("its %s makes it %s", p.field, p.to)
}

// keepPeerSteps keeps, for the chain's findings, the steps by which local resolvers moved
// the peer's candidate k (its resolution's tail rest) when the target it came to is not
// added with those steps: a repeat of a target already there, or the start (dropped).
func (c *compiler) keepPeerSteps(k key, rest tail) {
	if k.peer != "" && len(rest.steps) > 0 {
		c.kept = append(c.kept, rest.via(nil)...)
	}
}

// peerFindings turns the changes recorded while compiling ch into findings, once each, in a
// fixed order: those of the walks whose targets the chain has (a step on some target's Via,
// the settings of one of its targets, the failover of its start).
func (c *compiler) peerFindings(ch *Chain) []Finding {
	if len(c.changes) == 0 {
		return nil
	}
	type step struct{ from, field, to string }
	onVia := map[step]bool{}
	for _, t := range ch.Targets {
		for _, s := range t.Via {
			onVia[step{s.From, s.Field, s.To}] = true
		}
	}
	for _, s := range c.kept {
		onVia[step{s.From, s.Field, s.To}] = true
	}
	var out []Finding
	for _, p := range c.changes {
		kept := onVia[step{p.target, p.field, p.to}]
		switch t := ch.Targets[p.target]; {
		case p.settings != nil:
			kept = t != nil
		case p.to == "": // a failover section: news when it gave the start a failover list
			kept = t != nil && len(t.Failover) > 0
		}
		if !kept {
			continue
		}
		out = append(out, report.New(fmt.Sprintf("chain %s, target %s", ch.Service, p.target), PeerTargetResolvedLocally,
			"the local service-resolver %s governs this peer target and %s: Consul finds a target's resolver by service, namespace and partition, not by peer", p.resolver, p.what()))
	}
	slices.SortFunc(out, report.Compare)
	return slices.Compact(out)
}

// Findings returns what a reader of the chain should know: every peer target a local
// service-resolver changed (PeerTargetResolvedLocally), naming the resolver and what it
// changed; sorted, nil when there is nothing to say. The findings are the caller's.
func (c *Chain) Findings() []Finding {
	if c == nil {
		return nil
	}
	return slices.Clone(c.findings)
}
