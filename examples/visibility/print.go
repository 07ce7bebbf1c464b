package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/meshscope/meshscope/internal/cli"
	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/ambient"
	"github.com/meshscope/meshscope/visibility/mesh"
)

// printer writes the report, keeping the first error.
type printer struct {
	w   io.Writer
	err error
}

// table prints rows as aligned columns after a blank line; none, when rows hold only the
// header, under it.
func (p *printer) table(rows [][]string, none string) {
	if len(rows) == 1 && none != "" {
		rows = append(rows, []string{none})
	}
	tw := tabwriter.NewWriter(p.w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	if err := tw.Flush(); p.err == nil {
		p.err = err
	}
}

func (r *report) print(w io.Writer) error {
	p := &printer{w: w}
	first := r.Release
	if r.NewRelease != "" && r.NewRelease != first {
		first += ", proposed " + r.NewRelease
	}
	fmt.Fprintf(w, "%s; mesh %s, inventory %s\n", first, r.Mesh, r.Inventory)
	if r.ignored {
		fmt.Fprintf(w, "serviceEntryVisibility is configured, but %s ignores it (see LINT): every entry is PUBLIC\n", r.Release)
	} else if !r.Enabled {
		fmt.Fprintln(w, "serviceEntryVisibility is not configured: every entry is PUBLIC")
	}
	for i, fs := range [][]visibility.Finding{r.Findings, r.Proposed} {
		if len(fs) > 0 {
			fmt.Fprintln(w, "\n"+[]string{"LINT", "LINT OF THE PROPOSED CONFIGURATION (findings the current one does not have)"}[i])
		}
		for _, f := range fs {
			cli.Wrap(w, "  ", f.String())
		}
	}
	rows := [][]string{{"SERVICE ENTRY", "HOSTS", "ADDRESSES", "VISIBILITY", "DECIDED BY"}}
	for _, e := range r.Entries {
		addrs := cmp.Or(strings.Join(e.Addresses, ","), "none: DNS not answered")
		rows = append(rows, []string{e.Namespace + "/" + e.Name, strings.Join(e.Hosts, ","), addrs, string(e.Decision.Visibility), e.DecidedBy})
	}
	p.table(rows, "")
	if len(r.Services) > 0 {
		rows = [][]string{{"KUBERNETES SERVICE", "SCOPE", "WHY"}}
		for _, s := range r.Services {
			rows = append(rows, []string{s.Service.Namespace + "/" + s.Service.Name, string(s.Scope), s.Reason})
		}
		p.table(rows, "")
		cli.Wrap(w, "", "("+r.ScopeNote+")")
	}
	rows = [][]string{{"CLAIMED IN SEVERAL NAMESPACES", "CLIENT NAMESPACES", "GET"}}
	for _, c := range r.Conflicts {
		key := c.Key
		for _, a := range c.Answers {
			rows = append(rows, []string{key, namespaces(a.Clients, "all others"), a.Got()})
			key = ""
		}
	}
	p.table(rows, "(none)")
	if len(r.Conflicts) > 0 {
		fmt.Fprintln(w, "(all others: every namespace not named under the same key, including namespaces not in the inventory)")
	}
	for _, e := range r.Explain {
		fmt.Fprintf(w, "\n%s\n", e)
	}
	r.printSidecars(p)
	if r.NewRelease != "" {
		fmt.Fprintf(w, "\nDRY RUN (nothing is applied) of the proposed %s; mesh %s, inventory %s\n", r.NewRelease, r.NewMesh, r.NewInventory)
	}
	if r.Upgrade != nil {
		r.printUpgrade(p)
	}
	if r.Audit != nil {
		r.printAudit(p)
	}
	r.printSidecarAudit(p)
	return p.err
}

// printSidecars prints what each class of sidecar proxies receives, and the -proxy
// explanation.
func (r *report) printSidecars(p *printer) {
	rows := [][]string{{"SIDECAR PROXIES", "SIDECAR", "HOST", "FROM", "PORTS", "ROUTED BY", "DESTINATION RULE"}}
	for _, row := range r.Sidecars {
		who, sc := row.String(), cmp.Or(row.Sidecar, "(none: */*)")
		if len(row.Hosts) == 0 {
			rows = append(rows, []string{who, sc, "(nothing)", "", "", "", ""})
		}
		for _, a := range row.Hosts {
			from := fmt.Sprintf("%s %s/%s", a.Kind, a.Namespace, a.Name)
			if a.AddedBy != "" {
				from += " (destination of " + a.AddedBy + ")"
			}
			rows = append(rows, []string{who, sc, a.Host, from, ports(a.Ports), cmp.Or(a.RoutedBy(), "-"), cmp.Or(a.Rule.String(), "-")})
			who, sc = "", ""
		}
	}
	p.table(rows, "")
	if r.SidecarsOmitted > 0 {
		fmt.Fprintf(p.w, "(%d more classes of proxies are not listed: the table stops after %d hosts; -proxy NAMESPACE [-workload LABELS] lists one class, -explain-host HOST with them explains one host)\n",
			r.SidecarsOmitted, sidecarBudget)
	}
	if r.SidecarExplain != nil {
		fmt.Fprintf(p.w, "\n%s\n", r.SidecarExplain)
	}
}

// printUpgrade prints an upgrade's dry run: what the releases differ by, what each refuses.
func (r *report) printUpgrade(p *printer) {
	fmt.Fprintf(p.w, "\nUPGRADE: %s -> %s\n", r.Release, r.NewRelease)
	cli.Wrap(p.w, "  ", "the releases differ by (each may change what a proxy or ztunnel gets): "+cmp.Or(mesh.FormatCauses(r.Upgrade.Causes), "nothing meshscope models"))
	for _, f := range r.Upgrade.Refused {
		cli.Wrap(p.w, "  ", "refused by "+f.Release+", left out of its view: "+f.String())
	}
	if r.Upgrade.Ztunnel != "" {
		cli.Wrap(p.w, "  ", r.Upgrade.Ztunnel)
	}
}

// printAudit prints the dry run of ztunnel's answers (over the current inventory) and of
// service scope.
func (r *report) printAudit(p *printer) {
	fmt.Fprintln(p.w, "\nAUDIT (ztunnel, over the current inventory)")
	rows := [][]string{{"SERVICE ENTRY", "BEFORE", "AFTER", "GAINED BY", "LOST BY"}}
	for _, e := range r.Audit.Entries {
		rows = append(rows, []string{e.Key.Namespace + "/" + e.Key.Name, e.Before.String(), e.After.String(), namespaces(e.Gained, "all other namespaces"), namespaces(e.Lost, "all other namespaces")})
	}
	p.table(rows, "(no visibility changes)")
	rows = [][]string{{"QUERY", "CLIENT NAMESPACES", "BEFORE", "AFTER"}}
	for _, q := range slices.Concat(r.Audit.Hosts, r.Audit.Addresses) {
		rows = append(rows, []string{q.Key.Query, r.Audit.Clients(q.Key), ambient.Answer{Service: q.Before}.Got(), ambient.Answer{Service: q.After}.Got()})
	}
	p.table(rows, "(no answer changes)")
	fmt.Fprintln(p.w, "(client namespaces: exactly those whose answer changes; \"every namespace\" includes namespaces not in the inventory and a client without a namespace)")
	if len(r.Scope) > 0 {
		rows = [][]string{{"KUBERNETES SERVICE", "HOST", "SCOPE BEFORE", "SCOPE AFTER"}}
		for _, s := range r.Scope {
			rows = append(rows, []string{s.Key.Namespace + "/" + s.Key.Name, r.hosts[s.Key], string(s.Before), string(s.After)})
		}
		p.table(rows, "")
		cli.Wrap(p.w, "", "("+r.ScopeNote+")")
	}
}

// printSidecarAudit prints the dry run of what sidecars and gateways receive, a change a
// line (with the causes behind it, in an upgrade's), and of the status istiod writes on
// routes, a condition gained or lost a line.
func (r *report) printSidecarAudit(p *printer) {
	if r.SidecarAudit == nil {
		return
	}
	fmt.Fprintln(p.w, "\nSIDECAR AUDIT (sidecars, gateways, the status of routes)")
	for _, a := range r.Applied {
		fmt.Fprintf(p.w, "  applied %s\n", a)
	}
	for _, c := range r.SidecarAudit {
		cli.Wrap(p.w, "  ", c.String())
	}
	for _, c := range r.GatewayAudit {
		cli.Wrap(p.w, "  ", "gateways of "+c.String())
	}
	if len(r.SidecarAudit)+len(r.GatewayAudit) == 0 {
		fmt.Fprintln(p.w, "  (no sidecar or gateway receives anything different)")
	}
	for _, c := range r.RouteStatus {
		for i, conditions := range [][]string{c.Gained, c.Lost} {
			for _, cond := range conditions {
				cli.Wrap(p.w, "  ", fmt.Sprintf("%s %s/%s status %s: %s", c.Key.Kind, c.Key.Namespace, c.Key.Name, []string{"gains", "loses"}[i], cond))
			}
		}
	}
}

// namespaces lists client namespaces, spelling out "*" as star; "-" for none.
func namespaces(ns []string, star string) string {
	return cmp.Or(strings.ReplaceAll(strings.Join(ns, ", "), "*", star), "-")
}

// ports spells a host's ports as a table cell: "80 8080"; "-" for none.
func ports(ps []uint32) string { return cmp.Or(strings.Trim(fmt.Sprint(ps), "[]"), "-") }
