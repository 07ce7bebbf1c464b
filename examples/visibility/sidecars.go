package main

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshscope/meshscope/internal/cli"
	"github.com/meshscope/meshscope/visibility"
)

// proxyRow is what one class of sidecar proxies receives: those of a namespace, or those of
// its workloads a workload Sidecar selects.
type proxyRow struct {
	Namespace string                      `json:"namespace"`
	Workload  string                      `json:"workload,omitempty"` // the labels a workload Sidecar selects
	Sidecar   string                      `json:"sidecar"`
	Services  []visibility.SidecarService `json:"services"`
}

// sidecarClasses lists the classes of proxies of an inventory: every namespace, and in each
// the workloads each of its workload Sidecars selects, sorted.
func sidecarClasses(inv visibility.Inventory) []proxyRow {
	seen := map[string]bool{}
	var out []proxyRow
	add := func(ns, w string) {
		if k := ns + "\x00" + w; !seen[k] {
			seen[k] = true
			out = append(out, proxyRow{Namespace: ns, Workload: w})
		}
	}
	for ns := range inv.Namespaces {
		add(ns, "")
	}
	for _, s := range inv.Services {
		add(s.Namespace, "")
	}
	for _, sc := range inv.Sidecars {
		add(sc.Namespace, "")
		if len(sc.WorkloadSelector) > 0 {
			add(sc.Namespace, labels.Set(sc.WorkloadSelector).String())
		}
	}
	slices.SortFunc(out, func(a, b proxyRow) int {
		if a.Namespace != b.Namespace {
			return compare(a.Namespace, b.Namespace)
		}
		return compare(a.Workload, b.Workload)
	})
	return out
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// sidecarView builds the sidecar view of one configuration.
func sidecarView(m mesh, inv visibility.Inventory, name string) (*visibility.SidecarView, error) {
	v, err := visibility.NewSidecarView(m.res, m.meshScope, inv)
	if err != nil {
		return nil, cli.InFile(name, err)
	}
	return v, nil
}

// sidecars fills the sidecar section: what each class of proxies receives, the sidecar
// lint, -explain-host for -proxy, and the dry run against -new-mesh and -new-inventory.
func (r *report) sidecars(o options, cur mesh, inv visibility.Inventory, invName string) error {
	v, err := sidecarView(cur, inv, invName)
	if err != nil {
		return err
	}
	r.Findings = append(r.Findings, v.Lint()...)
	r.Sidecars = []proxyRow{}
	for _, c := range sidecarClasses(inv) {
		w, _ := labels.ConvertSelectorToLabelsMap(c.Workload)
		p := v.Proxy(c.Namespace, w)
		c.Sidecar, c.Services = p.Sidecar, p.Services
		r.Sidecars = append(r.Sidecars, c)
	}
	if o.proxySet && o.explainHost != "" {
		if known := inventoryNamespaces(inv); !slices.Contains(known, o.proxy) {
			return fmt.Errorf("-proxy %q: the inventory has no such namespace; it has: %s", o.proxy, strings.Join(known, ", "))
		}
		w, err := labels.ConvertSelectorToLabelsMap(o.workload)
		if err != nil {
			return fmt.Errorf("-workload %q: %v (want labels such as app=web,version=v1)", o.workload, err)
		}
		e := v.ExplainHost(o.proxy, w, o.explainHost)
		r.SidecarExplain = &e
	}
	if o.newMesh == "" && o.newInventory == "" && (o.mesh != "" || o.inventory != "") {
		return nil
	}
	next, nextInv, nextInvName := cur, inv, invName
	if o.newMesh != "" || o.mesh == "" && o.inventory == "" {
		if next, err = loadMesh(o.newMesh, "new-mesh.yaml", o.clusterDomain); err != nil {
			return err
		}
	}
	if o.newInventory != "" {
		if nextInv, nextInvName, err = loadInventory(o.newInventory, o.clusterDomain); err != nil {
			return err
		}
		r.NewInventory = nextInvName
	}
	after, err := sidecarView(next, nextInv, nextInvName)
	if err != nil {
		return err
	}
	r.SidecarAudit = visibility.DiffSidecars(v, after)
	return r.proposedFindings(next, nextInv, nextInvName)
}

// inventoryNamespaces returns the namespaces of an inventory — those with a Namespace object,
// a service or a Sidecar — sorted.
func inventoryNamespaces(inv visibility.Inventory) []string {
	var out []string
	for ns := range inv.Namespaces {
		out = append(out, ns)
	}
	for _, s := range inv.Services {
		out = append(out, s.Namespace)
	}
	for _, sc := range inv.Sidecars {
		out = append(out, sc.Namespace)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// loadInventory reads an inventory file.
func loadInventory(path, domain string) (visibility.Inventory, string, error) {
	data, name, err := cli.ReadFile(sample, path, "inventory.yaml")
	if err != nil {
		return visibility.Inventory{}, name, err
	}
	inv, err := visibility.LoadInventory(data, domain)
	if err != nil {
		return visibility.Inventory{}, name, cli.InFile(name, err)
	}
	return inv, name, nil
}
