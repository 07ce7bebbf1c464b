package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/meshscope/meshscope/internal/cli"
	"github.com/meshscope/meshscope/peermeta"
)

func (r *report) print(w io.Writer, wide bool) error {
	fmt.Fprintf(w, "trust domain <td> = %s, datacenter %s, partition %s\n", r.TrustDomain, r.Datacenter, r.Partition)
	short := func(s string) string { return strings.ReplaceAll(s, r.TrustDomain, "<td>") }
	findings(w, "", r.Findings)
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
		findings(w, "", p.AllFindings())
	}
	if !wide && len(r.Peers) > 0 {
		fmt.Fprintln(w, "\n(-wide lists each service's SNI, SPIFFE IDs with their origin, and instances)")
	}
	if len(r.Chains) > 0 {
		fmt.Fprint(w, "\nCHAINS (the graph of each exported chain; -o dot draws them)\n")
	}
	for _, c := range r.Chains {
		fmt.Fprintf(w, "\n%s\n", short(c.Graph()))
	}
	if r.Explain != nil {
		fmt.Fprintf(w, "\n%s", r.Explain)
	}
	if r.Request != nil {
		fmt.Fprintf(w, "\nEXPLAIN REQUEST %s\n", r.Request)
	}
	if r.DryRun != nil {
		fmt.Fprintln(w, "\nDRY RUN: the proposed writes, as Consul's server takes them (nothing is applied)")
		if len(r.DryRun.Refused) == 0 {
			fmt.Fprintln(w, "  Consul accepts every write")
		}
		findings(w, "  ", r.DryRun.findings)
		for _, d := range r.DryRun.Peers {
			printDiff(w, d, short)
		}
	}
	return nil
}

// dot prints the graph of each exported chain in Graphviz's language, a digraph each.
func (r *report) dot(w io.Writer) error {
	for _, c := range r.Chains {
		if _, err := io.WriteString(w, c.DOT()); err != nil {
			return err
		}
	}
	return nil
}

// findings prints each finding on its own line, level and code first, wrapped at cli.Width.
func findings(w io.Writer, indent string, fs []peermeta.Finding) {
	for _, f := range fs {
		cli.Wrap(w, indent, f.String())
	}
}

func instances(nodes []peermeta.CheckServiceNode) string {
	if len(nodes) == 0 {
		return "0"
	}
	counts := map[peermeta.HealthStatus]int{}
	for _, n := range nodes {
		counts[status(n)]++
	}
	var parts []string
	for _, st := range []peermeta.HealthStatus{peermeta.StatusPassing, peermeta.StatusWarning, peermeta.StatusCritical, peermeta.StatusMaintenance, "no checks"} {
		if counts[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[st], st))
		}
	}
	return fmt.Sprintf("%d (%s)", len(nodes), strings.Join(parts, ", "))
}

func status(n peermeta.CheckServiceNode) peermeta.HealthStatus {
	if len(n.Checks) == 0 {
		return "no checks"
	}
	return n.Checks[0].Status
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
	return fmt.Sprintf("%s on %s %s:%d, %s", n.Service.ID, n.Node.Node, n.Service.Address, n.Service.Port, status(n))
}

func printDiff(w io.Writer, d peermeta.ReplicationDiff, short func(string) string) {
	fmt.Fprintf(w, "\nDRY RUN for peer %s (nothing is applied)\n", d.Peer)
	if len(d.Services) == 0 {
		fmt.Fprintln(w, "  no replication changes")
	}
	for _, s := range d.Services {
		b, a := s.Before, s.After
		state := fmt.Sprintf("%s → %s", b.As, a.As)
		switch {
		case !replicated(b) && replicated(a):
			state = fmt.Sprintf("added (%s)", a.As)
		case replicated(b) && !replicated(a):
			state = fmt.Sprintf("removed (was %s)", b.As)
		}
		fmt.Fprintf(w, "  %s: %s\n", s.Key, state)
		for _, id := range s.Gained {
			fmt.Fprintf(w, "    + accepts %s\n", short(id))
		}
		for _, id := range s.Lost {
			fmt.Fprintf(w, "    - accepts %s\n", short(id))
		}
		// A start target and a protocol are news only when the service is replicated with a
		// chain on both sides.
		if b.Start != a.Start && b.Start != "" && a.Start != "" {
			fmt.Fprintf(w, "    start target %s → %s\n", b.Start, a.Start)
		}
		if b.Protocol != a.Protocol && b.Protocol != "" && a.Protocol != "" {
			fmt.Fprintf(w, "    protocol %s → %s\n", b.Protocol, a.Protocol)
		}
		if a.Reason != "" {
			cli.Wrap(w, "    ", fmt.Sprintf("%s after the change: %s", a.As, a.Reason))
		}
	}
}

// replicated reports whether the peer receives a service in state s: with a chain or as a
// plain service (a failed or excluded one is exported but not received).
func replicated(s peermeta.ServiceState) bool {
	return s.As == peermeta.AsChain || s.As == peermeta.AsPlain
}
