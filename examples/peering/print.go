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
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", s.Service, s.PeerMeta.Protocol, s.Start, len(s.PeerMeta.SpiffeID), peermeta.Health(s.Instances))
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
				fmt.Fprintf(w, "    accept %s  (%s)\n", short(o.SpiffeID), o)
			}
			for _, n := range s.Instances {
				fmt.Fprintf(w, "    instance %s\n", n)
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
	if r.Call != nil {
		fmt.Fprintf(w, "\n%s\n", short(r.Call.String()))
	}
	if r.DryRun != nil {
		fmt.Fprintln(w, "\nDRY RUN: the proposed writes, as Consul's server takes them (nothing is applied)")
		if len(r.DryRun.Refused) == 0 {
			fmt.Fprintln(w, "  Consul accepts every write")
		}
		findings(w, "  ", r.DryRun.findings)
		for _, d := range r.DryRun.Peers {
			fmt.Fprintf(w, "\nDRY RUN for peer %s (nothing is applied)\n", d.Peer)
			for _, line := range d.Lines() {
				cli.Wrap(w, "  ", short(line))
			}
		}
		fmt.Fprintf(w, "\nDRY RUN: the calls the change allows or denies, of the callers the intentions name (%d)\n", len(r.DryRun.Calls))
		for _, c := range r.DryRun.Calls {
			cli.Wrap(w, "  ", c.String())
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
