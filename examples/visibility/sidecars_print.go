package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/meshscope/meshscope/visibility"
)

// printSidecars prints what each class of sidecar proxies receives, and the -proxy
// explanation.
func (r *report) printSidecars(w io.Writer) error {
	rows := [][]string{{"SIDECAR PROXIES", "SIDECAR", "HOST", "FROM", "PORTS"}}
	for _, p := range r.Sidecars {
		who := proxies(p.Namespace, p.Workload)
		sc := p.Sidecar
		if sc == "" {
			sc = "(none: */*)"
		}
		if len(p.Services) == 0 {
			rows = append(rows, []string{who, sc, "(nothing)", "", ""})
		}
		for i, s := range p.Services {
			if i > 0 {
				who, sc = "", ""
			}
			rows = append(rows, []string{who, sc, s.Host, fmt.Sprintf("%s %s/%s", s.Kind, s.Namespace, s.Name), ports(s.Ports)})
		}
	}
	if err := table(w, rows); err != nil {
		return err
	}
	if r.SidecarsOmitted > 0 {
		fmt.Fprintf(w, "(%d more classes of proxies are not listed: the table stops after %d hosts; -proxy NAMESPACE [-workload LABELS] lists one class, -explain-host HOST with them explains one host)\n",
			r.SidecarsOmitted, sidecarBudget)
	}
	fmt.Fprintln(w, "(the hosts a proxy's Sidecar egress imports; istiod may add the destinations of VirtualServices, which the inventory does not hold)")
	if r.SidecarExplain != nil {
		fmt.Fprintf(w, "\n%s\n", r.SidecarExplain)
	}
	return nil
}

// printSidecarAudit prints the sidecar dry run.
func (r *report) printSidecarAudit(w io.Writer) error {
	if r.SidecarAudit == nil {
		return nil
	}
	from, to := r.Mesh, r.NewMesh
	if r.NewInventory != "" {
		from, to = r.Inventory, r.NewInventory
		if r.NewMesh != "" {
			from, to = r.Mesh+" + "+r.Inventory, r.NewMesh+" + "+r.NewInventory
		}
	}
	fmt.Fprintf(w, "\nSIDECAR AUDIT: %s -> %s (a dry run: nothing is applied)\n", from, to)
	rows := [][]string{{"SIDECAR PROXIES", "HOST", "BEFORE", "AFTER"}}
	if len(r.SidecarAudit) == 0 {
		rows = append(rows, []string{"(no sidecar receives anything different)", "", "", ""})
	}
	for _, c := range r.SidecarAudit {
		rows = append(rows, []string{proxies(c.Key.Namespace, c.Key.Workload), c.Key.Host, received(c.Before), received(c.After)})
	}
	return table(w, rows)
}

func proxies(ns, workload string) string {
	if workload == "" {
		return ns
	}
	return ns + " (" + workload + ")"
}

func received(s *visibility.SidecarService) string {
	if s == nil {
		return "(not received)"
	}
	return fmt.Sprintf("%s %s/%s %s", s.Kind, s.Namespace, s.Name, ports(s.Ports))
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
