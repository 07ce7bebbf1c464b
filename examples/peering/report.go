package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/meshscope/meshscope/chain"
	"github.com/meshscope/meshscope/exports"
	"github.com/meshscope/meshscope/internal/cli"
	mreport "github.com/meshscope/meshscope/internal/report"
	"github.com/meshscope/meshscope/peermeta"
)

// report is everything the program shows; it is also the JSON output.
type report struct {
	TrustDomain string                     `json:"trustDomain"`
	Datacenter  string                     `json:"datacenter"`
	Partition   string                     `json:"partition"`
	Peers       []peerReport               `json:"peers"`
	Warnings    []string                   `json:"warnings,omitempty"`
	Explain     *explanation               `json:"explain,omitempty"`
	DryRun      []peermeta.ReplicationDiff `json:"dryRun,omitempty"`
}

type peerReport struct {
	peermeta.Replication
	// Union lists where Consul's union of rules would replicate more than meshscope.
	Union []string `json:"union,omitempty"`
}

// findings are what -fail-on counts: a service that fails to replicate or a write Consul
// would refuse is an error; a union difference or a gateway problem a warning.
func (r *report) findings() []mreport.Finding {
	var out []mreport.Finding
	for _, p := range r.Peers {
		for _, f := range p.Failed {
			out = append(out, mreport.New(p.Peer+": "+f.Service.String(), mreport.NotReplicated, "%v", f.Err))
		}
		for _, u := range p.Union {
			out = append(out, mreport.New(p.Peer, mreport.UnionDiffers, "%s", u))
		}
	}
	for _, w := range r.Warnings {
		out = append(out, mreport.New("gateways", mreport.NoMeshGateway, "%s", w))
	}
	for _, d := range r.DryRun {
		for _, m := range d.Refused {
			out = append(out, mreport.New(d.Peer, mreport.WriteRefused, "%s", m))
		}
	}
	return out
}

// warnGateways warns when peers can reach nothing: no mesh gateway, or every one critical.
func (r *report) warnGateways(gws []peermeta.CheckServiceNode) {
	if len(gws) == 0 {
		r.Warnings = append(r.Warnings, "no mesh gateway instances (-health with /v1/health/service/mesh-gateway output): peers can reach no exported service")
		return
	}
	for _, g := range gws {
		checks := peermeta.Flatten(g.Checks, "", "", "")
		if len(checks) == 0 || checks[0].Status != peermeta.StatusCritical {
			return
		}
	}
	r.Warnings = append(r.Warnings, fmt.Sprintf("all %d mesh gateway instances are critical: peers can reach no exported service", len(gws)))
}

func (r *report) print(w io.Writer, wide bool) error {
	fmt.Fprintf(w, "trust domain <td> = %s, datacenter %s, partition %s\n", r.TrustDomain, r.Datacenter, r.Partition)
	short := func(s string) string { return strings.ReplaceAll(s, r.TrustDomain, "<td>") }
	for _, p := range r.Peers {
		fmt.Fprintf(w, "\nPEER %s\n", p.Peer)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SERVICE\tPROTOCOL\tSTART TARGET\tSPIFFE IDS\tINSTANCES")
		for _, s := range p.Services {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", s.Service, s.PeerMeta.Protocol, s.Start, len(s.PeerMeta.SpiffeID), instances(s.Instances))
		}
		if len(p.Services) == 0 {
			fmt.Fprintln(tw, "(none)\t\t\t\t")
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, s := range p.Services {
			if !wide {
				continue
			}
			fmt.Fprintf(w, "  %s: dial %s\n", s.Service, short(s.PeerMeta.PrimarySNI()))
			for _, o := range s.Origins {
				fmt.Fprintf(w, "    accept %s  (%s)\n", short(o.SpiffeID), origin(o))
			}
			for _, n := range s.Instances {
				fmt.Fprintf(w, "    instance %s\n", instance(n))
			}
		}
		if len(p.Plain) > 0 {
			names := make([]string, len(p.Plain))
			for i, s := range p.Plain {
				names[i] = s.String()
			}
			cli.Wrap(w, "", "PLAIN (not connect services: replicated without a chain): "+strings.Join(names, ", "))
		}
		for _, f := range p.Failed {
			cli.Wrap(w, "", fmt.Sprintf("NOT REPLICATED %s: %v", f.Service, f.Err))
		}
		for _, e := range p.Excluded {
			cli.Wrap(w, "", fmt.Sprintf("EXCLUDED %s: %v", e.Service, e.Err))
		}
		for _, u := range p.Union {
			cli.Wrap(w, "", "NOTE "+u)
		}
	}
	if !wide && len(r.Peers) > 0 {
		fmt.Fprintln(w, "\n(-wide lists each service's SNI, SPIFFE IDs with their origin, and instances)")
	}
	for _, warn := range r.Warnings {
		cli.Wrap(w, "", "WARNING "+warn)
	}
	if r.Explain != nil {
		fmt.Fprintf(w, "\n%s", r.Explain)
	}
	for _, d := range r.DryRun {
		printDiff(w, d, short)
	}
	return nil
}

func instances(nodes []peermeta.CheckServiceNode) string {
	if len(nodes) == 0 {
		return "0"
	}
	counts := map[string]int{}
	for _, n := range nodes {
		st := "no checks"
		if len(n.Checks) > 0 {
			st = n.Checks[0].Status
		}
		counts[st]++
	}
	var parts []string
	for _, st := range []string{peermeta.StatusPassing, peermeta.StatusWarning, peermeta.StatusCritical, peermeta.StatusMaintenance, "no checks"} {
		if counts[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[st], st))
		}
	}
	return fmt.Sprintf("%d (%s)", len(nodes), strings.Join(parts, ", "))
}

func origin(o peermeta.Origin) string {
	if o.From != peermeta.FromTarget {
		return string(o.From)
	}
	via := ""
	if n := len(o.Via); n > 0 && o.Via[n-1].Resolver != "" {
		via = " by " + o.Via[n-1].Field + " of " + o.Via[n-1].Resolver
	}
	return "target " + strings.Join(o.Targets, ", ") + via
}

func instance(n peermeta.CheckServiceNode) string {
	status := "no checks"
	if len(n.Checks) > 0 {
		status = n.Checks[0].Status
	}
	return fmt.Sprintf("%s on %s %s:%d, %s", n.Service.ID, n.Node.Node, n.Service.Address, n.Service.Port, status)
}

func printDiff(w io.Writer, d peermeta.ReplicationDiff, short func(string) string) {
	fmt.Fprintf(w, "\nDRY RUN for peer %s (nothing is applied)\n", d.Peer)
	if len(d.Services) == 0 {
		fmt.Fprintln(w, "  no replication changes")
	}
	for _, s := range d.Services {
		b, a := s.Before, s.After
		state := b.As + " → " + a.As
		switch {
		case !b.Replicated() && a.Replicated():
			state = "added (" + a.As + ")"
		case b.Replicated() && !a.Replicated():
			state = "removed (was " + b.As + ")"
		}
		fmt.Fprintf(w, "  %s: %s\n", s.Key, state)
		for _, id := range s.Gained {
			fmt.Fprintf(w, "    + accepts %s\n", short(id))
		}
		for _, id := range s.Lost {
			fmt.Fprintf(w, "    - accepts %s\n", short(id))
		}
		// An added or removed service's start target and protocol are news only when it
		// is replicated with a chain on both sides.
		if b.Start != a.Start && b.Start != "" && a.Start != "" {
			fmt.Fprintf(w, "    start target %s → %s\n", b.Start, a.Start)
		}
		if b.Protocol != a.Protocol && b.Protocol != "" && a.Protocol != "" {
			fmt.Fprintf(w, "    protocol %s → %s\n", b.Protocol, a.Protocol)
		}
		if a.Reason != "" {
			cli.Wrap(w, "    ", a.As+" after the change: "+a.Reason)
		}
	}
	for _, r := range d.Refused {
		cli.Wrap(w, "  ", "REFUSED BY CONSUL: "+r)
	}
}

// explanation is -explain's answer for one service.
type explanation struct {
	Rule     exports.Explanation `json:"rule"`
	Chain    string              `json:"chain,omitempty"`
	ChainErr string              `json:"chainError,omitempty"`
	PeerSafe string              `json:"peerExport,omitempty"`
}

func (e *explanation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "EXPLAIN %s\n", e.Rule)
	switch {
	case e.ChainErr != "":
		fmt.Fprintf(&b, "chain: %s\n", e.ChainErr)
	case e.Chain != "":
		fmt.Fprintf(&b, "%s\n", e.Chain)
	}
	fmt.Fprintf(&b, "export to a peer: %s\n", e.PeerSafe)
	return b.String()
}

// explainService explains [partition/namespace/]name: its rule, its chain, its safety.
func explainService(arg string, x *exports.Exports, in inputs, rep *report) (*explanation, error) {
	parts := strings.Split(arg, "/")
	var s exports.ServiceName
	switch len(parts) {
	case 1:
		s = exports.ServiceName{Partition: rep.Partition, Name: parts[0]}
	case 3:
		s = exports.ServiceName{Partition: parts[0], Namespace: parts[1], Name: parts[2]}
	default:
		return nil, fmt.Errorf("-explain %q: want name or partition/namespace/name", arg)
	}
	s = s.Canonical()
	if !slices.Contains(candidates(in, s.Partition), s) {
		known := candidates(in, s.Partition)
		names := make([]string, len(known))
		for i, k := range known {
			names[i] = k.String()
		}
		return nil, fmt.Errorf("-explain %q: no such service in the catalog or the resolvers; services: %s", arg, list(names))
	}
	e := &explanation{Rule: x.Explain(s), PeerSafe: "safe"}
	c, err := chain.Compile(chain.Request{Service: s.Name, Namespace: s.Namespace, Partition: s.Partition, Datacenter: rep.Datacenter, TrustDomain: rep.TrustDomain}, in.entries.chain)
	if err != nil {
		e.ChainErr = err.Error()
		e.PeerSafe = "no chain"
		return e, nil
	}
	e.Chain = c.Explain()
	if err := c.CheckPeerExport(); err != nil {
		e.PeerSafe = err.Error()
	}
	return e, nil
}

// dryRun diffs the replication to each peer before and after the proposed change.
func (r *report) dryRun(in inputs, x *exports.Exports, after proposal, peers []string) error {
	for _, p := range peers {
		exp := peermeta.Exporter{Peer: p, Partition: r.Partition, Datacenter: r.Datacenter, TrustDomain: r.TrustDomain}
		d, err := peermeta.Diff(in.input(x, exp), after.input(after.x, exp))
		if err != nil {
			return err
		}
		r.DryRun = append(r.DryRun, d)
	}
	return nil
}

// replaced returns e with the proposed entries replacing those of the same kind and name.
func (e entries) replaced(p entries) entries {
	out := entries{chain: e.chain}
	out.exports = replace(e.exports, p.exports, func(x exports.ConfigEntry) string { return x.Name })
	out.chain.Resolvers = replace(e.chain.Resolvers, p.chain.Resolvers, func(r chain.ServiceResolver) exports.ServiceName { return r.ServiceName() })
	out.chain.SamenessGroups = replace(e.chain.SamenessGroups, p.chain.SamenessGroups, func(g exports.SamenessGroup) string { return g.ID() })
	if len(p.chain.Protocols) > 0 {
		out.chain.Protocols = maps.Clone(e.chain.Protocols)
		if out.chain.Protocols == nil {
			out.chain.Protocols = map[exports.ServiceName]string{}
		}
		maps.Copy(out.chain.Protocols, p.chain.Protocols)
	}
	if p.chain.DefaultProtocol != "" {
		out.chain.DefaultProtocol = p.chain.DefaultProtocol
	}
	return out
}

// replace returns cur without the values whose key a proposed value has, then the proposed
// values.
func replace[T any, K comparable](cur, proposed []T, key func(T) K) []T {
	drop := make(map[K]bool, len(proposed))
	for _, v := range proposed {
		drop[key(v)] = true
	}
	out := make([]T, 0, len(cur)+len(proposed))
	for _, v := range cur {
		if !drop[key(v)] {
			out = append(out, v)
		}
	}
	return append(out, proposed...)
}
