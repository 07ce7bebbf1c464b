package main

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/meshscope/meshscope/internal/cli"
	"github.com/meshscope/meshscope/internal/fielderr"
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
			return strings.Compare(a.Namespace, b.Namespace)
		}
		return strings.Compare(a.Workload, b.Workload)
	})
	return out
}

// sidecarView builds the sidecar view of one configuration.
func sidecarView(m mesh, inv visibility.Inventory, name string) (*visibility.SidecarView, error) {
	v, err := visibility.NewSidecarView(m.res, m.meshScope, inv)
	if err != nil {
		return nil, fielderr.In(name, err)
	}
	return v, nil
}

// sidecarBudget is how many hosts the sidecar table lists, over all classes of proxies,
// before it leaves the other classes out (and says how many).
const sidecarBudget = 5000

// sidecars fills the sidecar section: what each class of proxies receives, the sidecar
// lint, -explain-host for -proxy, and the dry run against -new-mesh and -new-inventory.
func (r *report) sidecars(o options, cur mesh, inv visibility.Inventory, invName string) error {
	v, err := sidecarView(cur, inv, invName)
	if err != nil {
		return err
	}
	r.Findings = append(r.Findings, v.Lint()...)
	if o.proxySet {
		if known := inventoryNamespaces(inv); !slices.Contains(known, o.proxy) {
			return fmt.Errorf("-proxy %q: the inventory has no such namespace; it has: %s", o.proxy, strings.Join(known, ", "))
		}
	}
	r.Sidecars = []proxyRow{}
	if o.proxySet && o.explainHost != "" {
		e := v.ExplainHost(o.proxy, o.labels, o.explainHost)
		r.SidecarExplain = &e
	}
	switch {
	case o.proxySet && o.explainHost == "": // one class, listed whatever its size
		p := v.Proxy(o.proxy, o.labels)
		r.Sidecars = append(r.Sidecars, proxyRow{Namespace: o.proxy, Workload: o.labels.String(), Sidecar: p.Sidecar, Services: p.Services})
	default:
		// Every class, until sidecarBudget hosts are listed: each namespace of a large mesh
		// may receive every public service, and the whole table would hold their product.
		listed := 0
		classes := sidecarClasses(inv)
		for i, c := range classes {
			if listed >= sidecarBudget {
				r.SidecarsOmitted = len(classes) - i
				break
			}
			w, _ := labels.ConvertSelectorToLabelsMap(c.Workload)
			p := v.Proxy(c.Namespace, w)
			c.Sidecar, c.Services = p.Sidecar, p.Services
			r.Sidecars = append(r.Sidecars, c)
			listed += len(p.Services)
		}
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

// parseWorkload reads -workload: a workload's labels, key=value separated by commas, each
// key once. It is not a selector: "app!=web" or "app" (a key alone) are refused, as is a key
// given twice, which would otherwise silently keep the last value.
func parseWorkload(s string) (labels.Set, error) {
	const want = "want a workload's labels, key=value separated by commas, such as app=web,version=v1"
	out := labels.Set{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		k, val, ok := strings.Cut(part, "=")
		k, val = strings.TrimSpace(k), strings.TrimSpace(val)
		switch {
		case part == "":
			return nil, fmt.Errorf("-workload %q: an empty label between commas (%s)", s, want)
		case !ok:
			return nil, fmt.Errorf("-workload %q: %q is not key=value (%s)", s, part, want)
		case strings.HasSuffix(k, "!"):
			return nil, fmt.Errorf("-workload %q: %q is a selector's test, not a label (%s)", s, part, want)
		}
		if msgs := validation.IsQualifiedName(k); len(msgs) > 0 {
			return nil, fmt.Errorf("-workload %q: %q is not a label key: %s (%s)", s, k, strings.Join(msgs, "; "), want)
		}
		if msgs := validation.IsValidLabelValue(val); len(msgs) > 0 {
			return nil, fmt.Errorf("-workload %q: %q is not a label value: %s (%s)", s, val, strings.Join(msgs, "; "), want)
		}
		if prev, dup := out[k]; dup {
			return nil, fmt.Errorf("-workload %q: label %s given twice (%s and %s=%s): a workload has one value per label", s, k, k+"="+prev, k, val)
		}
		out[k] = val
	}
	return out, nil
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
		return visibility.Inventory{}, name, fielderr.In(name, err)
	}
	return inv, name, nil
}
