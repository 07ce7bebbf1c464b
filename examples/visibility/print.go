package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/meshscope/meshscope/internal/cli"
	"github.com/meshscope/meshscope/visibility/ambient"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/sidecar"
)

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
	p.table(rows)
	if len(r.Services) > 0 {
		rows = [][]string{{"KUBERNETES SERVICE", "SCOPE", "WHY"}}
		for _, s := range r.Services {
			rows = append(rows, []string{s.Service.Namespace + "/" + s.Service.Name, string(s.Scope), s.Reason})
		}
		p.table(rows)
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
	p.table(rows)
	if len(r.Conflicts) > 0 {
		fmt.Fprintln(w, "(all others: every namespace not named under the same key, including namespaces not in the inventory)")
	}
	for _, e := range r.Explain {
		fmt.Fprintf(w, "\n%s\n", e)
	}
	r.printSidecars(p)
	if r.Upgrade != nil {
		r.printUpgrade(p)
	}
	if r.Audit != nil {
		r.printAudit(p)
	}
	r.printSidecarAudit(p)
	return p.err
}

func (r *report) printAudit(p *printer) {
	w := p.w
	from, to := r.change(false)
	fmt.Fprintf(w, "\nAUDIT: %s -> %s (a dry run: nothing is applied)\n", from, to)
	rows := [][]string{{"SERVICE ENTRY", "BEFORE", "AFTER", "GAINED BY", "LOST BY"}}
	if len(r.Audit.Entries) == 0 {
		rows = append(rows, []string{"(no visibility changes)", "", "", "", ""})
	}
	for _, e := range r.Audit.Entries {
		rows = append(rows, []string{e.Key.Namespace + "/" + e.Key.Name, e.Before.String(), e.After.String(), namespaces(e.Gained, "all other namespaces"), namespaces(e.Lost, "all other namespaces")})
	}
	p.table(rows)
	rows = [][]string{{"QUERY", "CLIENT NAMESPACES", "BEFORE", "AFTER"}}
	changes := append(r.Audit.Hosts, r.Audit.Addresses...)
	for i, q := range changes {
		rows = append(rows, []string{q.Key.Query, clients(changes, i), answer(q.Before), answer(q.After)})
	}
	if len(rows) == 1 {
		rows = append(rows, []string{"(no answer changes)", "", "", ""})
	}
	p.table(rows)
	fmt.Fprintln(w, "(client namespaces: exactly those whose answer changes; \"every namespace\" includes namespaces not in the inventory and a client without a namespace)")
	if len(r.Scope) > 0 {
		rows = [][]string{{"KUBERNETES SERVICE", "HOST", "SCOPE BEFORE", "SCOPE AFTER"}}
		for _, s := range r.Scope {
			rows = append(rows, []string{s.Key.Namespace + "/" + s.Key.Name, r.hosts[s.Key], string(s.Before), string(s.After)})
		}
		p.table(rows)
		cli.Wrap(w, "", "("+r.ScopeNote+")")
	}
}

// printer writes the report, keeping the first error.
type printer struct {
	w   io.Writer
	err error
}

// table prints rows as aligned columns after a blank line.
func (p *printer) table(rows [][]string) {
	tw := tabwriter.NewWriter(p.w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	if err := tw.Flush(); p.err == nil {
		p.err = err
	}
}

func answer(s *inventory.ServiceRef) string {
	if s == nil {
		return "(not in the mesh: upstream DNS / passthrough)"
	}
	return s.String()
}

// clients spells the client namespaces of changes[i]: by name, or for the "*" change every
// namespace but those the query's other changes name and those whose answer does not change.
func clients(changes []ambient.AnswerChange, i int) string {
	q := changes[i].Key
	if !slices.Equal(q.Clients, []string{ambient.AllOtherNamespaces}) {
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
		if n == ambient.AllOtherNamespaces {
			out[i] = star
		}
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, ", ")
}

// printSidecars prints what each class of sidecar proxies receives, and the -proxy
// explanation.
func (r *report) printSidecars(p *printer) {
	w := p.w
	rows := [][]string{{"SIDECAR PROXIES", "SIDECAR", "HOST", "FROM", "PORTS", "ROUTED BY", "DESTINATION RULE"}}
	for _, p := range r.Sidecars {
		who := proxies(p.Namespace, p.Workload)
		sc := cmp.Or(p.Sidecar, "(none: */*)")
		if len(p.Services) == 0 {
			rows = append(rows, []string{who, sc, "(nothing)", "", "", "", ""})
		}
		for i, s := range p.Services {
			if i > 0 {
				who, sc = "", ""
			}
			from := fmt.Sprintf("%s %s/%s", s.Kind, s.Namespace, s.Name)
			if s.AddedBy != "" {
				from += " (destination of " + s.AddedBy + ")"
			}
			rows = append(rows, []string{who, sc, s.Host, from, ports(s.Ports), cmp.Or(strings.Join(s.Routes, ","), "-"), rule(p.Rules[s.Host])})
		}
	}
	p.table(rows)
	if r.SidecarsOmitted > 0 {
		fmt.Fprintf(w, "(%d more classes of proxies are not listed: the table stops after %d hosts; -proxy NAMESPACE [-workload LABELS] lists one class, -explain-host HOST with them explains one host)\n",
			r.SidecarsOmitted, sidecarBudget)
	}
	if r.SidecarNote != "" {
		cli.Wrap(w, "", "("+r.SidecarNote+")")
	}
	if r.SidecarExplain != nil {
		fmt.Fprintf(w, "\n%s\n", r.SidecarExplain)
	}
}

// printSidecarAudit prints the sidecar dry run.
func (r *report) printSidecarAudit(p *printer) {
	if r.SidecarAudit == nil {
		return
	}
	from, to := r.change(true)
	fmt.Fprintf(p.w, "\nSIDECAR AUDIT: %s -> %s (a dry run: nothing is applied)\n", from, to)
	for _, a := range r.Applied {
		how := map[bool]string{true: "created", false: "replaced"}[a.Created]
		fmt.Fprintf(p.w, "  applied %s: %s %s\n", strings.TrimSpace(a.File+" "+a.Where), strings.Trim(a.Kind+" "+a.Namespace+"/"+a.Name, "/ "), how)
	}
	rows := [][]string{{"SIDECAR PROXIES", "HOST", "BEFORE", "AFTER"}}
	if len(r.SidecarAudit) == 0 {
		rows = append(rows, []string{"(no sidecar receives anything different)", "", "", ""})
	}
	for _, c := range r.SidecarAudit {
		after := received(c.After)
		if causes := changeCauses(c); len(causes) > 0 {
			after += fmt.Sprintf(" (%v)", causes)
		}
		rows = append(rows, []string{proxies(c.Key.Namespace, c.Key.Workload), c.Key.Host, received(c.Before), after})
	}
	p.table(rows)
}

// change names what a dry run changes: the releases, the mesh configurations and (with
// inventories) the inventories that differ, joined by " + ".
func (r *report) change(inventories bool) (string, string) {
	a, b := []string{r.Release, r.Mesh, r.Inventory}, []string{r.NewRelease, cmp.Or(r.NewMesh, r.Mesh), cmp.Or(r.NewInventory, r.Inventory)}
	if !inventories {
		a, b = a[:2], b[:2]
	}
	var from, to []string
	for i := range a {
		if a[i] != b[i] {
			from, to = append(from, a[i]), append(to, b[i])
		}
	}
	if len(from) == 0 { // nothing differs but the proposal's name
		return r.Mesh, r.Mesh
	}
	return strings.Join(from, " + "), strings.Join(to, " + ")
}

func proxies(ns, workload string) string {
	if workload == "" {
		return ns
	}
	return ns + " (" + workload + ")"
}

// received spells what a class of proxies has for a host: the service and its ports, and
// its routes and rule when it has any.
func received(a *sidecar.Answer) string {
	if a == nil {
		return "(not received)"
	}
	out := fmt.Sprintf("%s %s/%s %s", a.Kind, a.Namespace, a.Name, ports(a.Ports))
	if len(a.Routes) > 0 {
		out += ", routed by " + strings.Join(a.Routes, ",")
	}
	if a.Rule != nil {
		out += ", rule " + rule(a.Rule)
	}
	return out
}

// rule spells a DestinationRule a proxy gets: the rules merged into it and its subsets.
func rule(r *sidecar.Rule) string {
	if r == nil {
		return "-"
	}
	out := strings.Join(r.From, "+")
	if len(r.Subsets) > 0 {
		out += " [" + strings.Join(r.Subsets, ",") + "]"
	}
	return out
}

func ports(ps []uint32) string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = fmt.Sprint(p)
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, ",")
}
