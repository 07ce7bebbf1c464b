package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/meshscope/meshscope/internal/cli"
	"github.com/meshscope/meshscope/visibility"
)

func (r *report) print(w io.Writer) error {
	fmt.Fprintf(w, "mesh %s, inventory %s\n", r.Mesh, r.Inventory)
	if !r.Enabled {
		fmt.Fprintln(w, "serviceEntryVisibility is not configured: every entry is PUBLIC")
	}
	if len(r.Findings) > 0 {
		fmt.Fprintln(w, "\nLINT")
		for _, f := range r.Findings {
			cli.Wrap(w, "  ", f.String())
		}
	}
	if len(r.Proposed) > 0 {
		fmt.Fprintln(w, "\nLINT OF THE PROPOSED CONFIGURATION (findings the current one does not have)")
		for _, f := range r.Proposed {
			cli.Wrap(w, "  ", f.String())
		}
	}
	rows := [][]string{{"SERVICE ENTRY", "HOSTS", "ADDRESSES", "VISIBILITY", "DECIDED BY"}}
	for _, e := range r.Entries {
		addrs := strings.Join(e.Addresses, ",")
		if !e.DNS {
			addrs = "none: DNS not answered"
		}
		rows = append(rows, []string{e.Namespace + "/" + e.Name, strings.Join(e.Hosts, ","), addrs, string(e.Decision.Visibility), e.DecidedBy})
	}
	if err := table(w, rows); err != nil {
		return err
	}
	if len(r.Services) > 0 {
		rows = [][]string{{"KUBERNETES SERVICE", "SCOPE", "WHY"}}
		for _, s := range r.Services {
			rows = append(rows, []string{s.Namespace + "/" + s.Name, string(s.Scope), s.Why})
		}
		if err := table(w, rows); err != nil {
			return err
		}
		cli.Wrap(w, "", "("+r.ScopeNote+")")
	}
	rows = [][]string{{"CLAIMED IN SEVERAL NAMESPACES", "CLIENT NAMESPACES", "GET"}}
	if len(r.Conflicts) == 0 {
		rows = append(rows, []string{"(none)", "", ""})
	}
	for _, c := range r.Conflicts {
		for i, a := range c.Answers {
			key := c.Key
			if i > 0 {
				key = ""
			}
			rows = append(rows, []string{key, namespaces(a.Clients, "all others"), answer(a.Service)})
		}
	}
	if err := table(w, rows); err != nil {
		return err
	}
	if len(r.Conflicts) > 0 {
		fmt.Fprintln(w, "(all others: every namespace not named under the same key, including namespaces not in the inventory)")
	}
	for _, e := range r.Explain {
		fmt.Fprintf(w, "\n%s\n", e)
	}
	if err := r.printSidecars(w); err != nil {
		return err
	}
	if r.Audit != nil {
		if err := r.printAudit(w); err != nil {
			return err
		}
	}
	return r.printSidecarAudit(w)
}

func (r *report) printAudit(w io.Writer) error {
	fmt.Fprintf(w, "\nAUDIT: %s -> %s (a dry run: nothing is applied)\n", r.Mesh, r.NewMesh)
	rows := [][]string{{"SERVICE ENTRY", "BEFORE", "AFTER", "GAINED BY", "LOST BY"}}
	if len(r.Audit.Entries) == 0 {
		rows = append(rows, []string{"(no visibility changes)", "", "", "", ""})
	}
	for _, e := range r.Audit.Entries {
		rows = append(rows, []string{e.Key.Namespace + "/" + e.Key.Name, e.Before.String(), e.After.String(), namespaces(e.Gained, "all other namespaces"), namespaces(e.Lost, "all other namespaces")})
	}
	if err := table(w, rows); err != nil {
		return err
	}
	rows = [][]string{{"QUERY", "CLIENT NAMESPACES", "BEFORE", "AFTER"}}
	changes := append(r.Audit.Hosts, r.Audit.Addresses...)
	for i, q := range changes {
		rows = append(rows, []string{q.Key.Query, clients(changes, i), answer(q.Before), answer(q.After)})
	}
	if len(rows) == 1 {
		rows = append(rows, []string{"(no answer changes)", "", "", ""})
	}
	if err := table(w, rows); err != nil {
		return err
	}
	fmt.Fprintln(w, "(client namespaces: exactly those whose answer changes; \"every namespace\" includes namespaces not in the inventory and a client without a namespace)")
	if len(r.Scope) > 0 {
		rows = [][]string{{"KUBERNETES SERVICE", "HOST", "SCOPE BEFORE", "SCOPE AFTER"}}
		for _, s := range r.Scope {
			rows = append(rows, []string{s.Key.Namespace + "/" + s.Key.Name, r.hosts[s.Key], string(s.Before), string(s.After)})
		}
		if err := table(w, rows); err != nil {
			return err
		}
		cli.Wrap(w, "", "("+r.ScopeNote+")")
	}
	return nil
}

// table prints rows as aligned columns after a blank line.
func table(w io.Writer, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

func answer(s *visibility.ServiceRef) string {
	if s == nil {
		return "(not in the mesh: upstream DNS / passthrough)"
	}
	return s.String()
}

// clients spells the client namespaces of changes[i]: by name, or for the "*" change every
// namespace but those the query's other changes name and those whose answer does not change.
func clients(changes []visibility.AnswerChange, i int) string {
	q := changes[i].Key
	if !slices.Equal(q.Clients, []string{visibility.AllOtherNamespaces}) {
		return strings.Join(q.Clients, ", ")
	}
	var but []string
	for _, other := range changes {
		if other.Key.Query == q.Query && !slices.Equal(other.Key.Clients, q.Clients) {
			but = append(but, other.Key.Clients...)
		}
	}
	but = append(but, q.Except...)
	if len(but) == 0 {
		return "every namespace"
	}
	slices.Sort(but)
	return "every namespace but " + strings.Join(but, ", ")
}

// namespaces lists client namespaces, spelling out "*" as star.
func namespaces(ns []string, star string) string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n
		if n == visibility.AllOtherNamespaces {
			out[i] = star
		}
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, ", ")
}
