package main

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/meshscope/meshscope/visibility"
	"github.com/meshscope/meshscope/visibility/ambient"
	"github.com/meshscope/meshscope/visibility/inventory"
	"github.com/meshscope/meshscope/visibility/scope"
	"github.com/meshscope/meshscope/visibility/sidecar"
)

// report is everything the program shows; it is also the JSON output.
type report struct {
	Mesh      string               `json:"mesh"`
	Inventory string               `json:"inventory"`
	Enabled   bool                 `json:"enabled"`
	Findings  []visibility.Finding `json:"findings"`
	// Proposed are the findings of the proposed configuration (-new-mesh, -new-inventory)
	// that the current one does not have: what the change introduces. -fail-on counts them.
	Proposed  []visibility.Finding  `json:"proposedFindings,omitempty"`
	Entries   []entryRow            `json:"entries"`
	Services  []scope.Scoped        `json:"services,omitempty"`
	Conflicts []ambient.Conflict    `json:"conflicts"`
	Explain   []ambient.Explanation `json:"explain,omitempty"`
	Sidecars  []proxyRow            `json:"sidecars"`
	// SidecarsOmitted counts the classes of proxies left out of Sidecars once it holds
	// sidecarBudget hosts (-proxy lists one class whatever its size).
	SidecarsOmitted int `json:"sidecarsOmitted,omitempty"`
	// SidecarExplain answers -explain-host for -proxy.
	SidecarExplain *sidecar.Explanation `json:"sidecarExplain,omitempty"`
	NewMesh        string               `json:"newMesh,omitempty"`
	NewInventory   string               `json:"newInventory,omitempty"`
	SidecarAudit   []sidecar.Change     `json:"sidecarAudit,omitempty"`
	Audit          *ambient.Audit       `json:"audit,omitempty"`
	Scope          []scope.Change       `json:"scopeChanges,omitempty"`
	// ScopeNote says, wherever scope is shown, when Istio applies it.
	ScopeNote string `json:"scopeNote,omitempty"`

	hosts map[inventory.ServiceRef]string // each Kubernetes Service's host, for the scope table
}

type entryRow struct {
	Namespace string              `json:"namespace"`
	Name      string              `json:"name"`
	Hosts     []string            `json:"hosts"`
	Addresses []string            `json:"addresses,omitempty"`
	DNS       bool                `json:"dnsAnswers"`
	Decision  visibility.Decision `json:"decision"`
	DecidedBy string              `json:"decidedBy"`
}

func build(o options) (*report, error) {
	m, meshName, err := loadMesh(o.mesh, "mesh.yaml")
	if err != nil {
		return nil, err
	}
	inv, invName, err := loadInventory(o.inventory, "inventory.yaml", o.clusterDomain)
	if err != nil {
		return nil, err
	}
	cur, err := views(m, meshName, inv, invName)
	if err != nil {
		return nil, err
	}
	rep := &report{Mesh: meshName, Inventory: invName, Enabled: cur.resolver.Enabled(), Conflicts: cur.index.Conflicts(), Entries: []entryRow{},
		hosts: map[inventory.ServiceRef]string{}}
	rep.Findings, _ = cur.findings()
	for s, d := range cur.index.Entries {
		if s.Kind == inventory.ServiceEntry {
			rep.Entries = append(rep.Entries, entryOf(s, d, cur.resolver))
		}
	}
	slices.SortFunc(rep.Entries, func(a, b entryRow) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	if len(m.ServiceScopeConfigs) > 0 || len(m.ServiceSettings) > 0 {
		rep.Services = cur.scoper.Services()
	}
	for _, s := range cur.scoper.Services() {
		rep.hosts[s.Service] = s.Host
	}
	if rep.Conflicts == nil {
		rep.Conflicts = []ambient.Conflict{}
	}
	known := cur.inv.NamespaceNames() // -client and -proxy must name one of them
	for _, f := range []struct{ name, ns string }{{"-client", o.client}, {"-proxy", o.proxy}} {
		if f.ns != "" && !slices.Contains(known, f.ns) {
			return nil, fmt.Errorf("%s %q: the inventory has no such namespace; it has: %s", f.name, f.ns, strings.Join(known, ", "))
		}
	}
	rep.explain(o, cur)
	rep.sidecars(o, cur)
	if err := rep.dryRun(o, cur); err != nil {
		return nil, err
	}
	if len(rep.Services) > 0 || len(rep.Scope) > 0 {
		rep.ScopeNote = scopeNote
	}
	return rep, nil
}

// dryRun audits the proposed configuration (-new-mesh, -new-inventory; the sample's
// new-mesh.yaml when no input flag is given) against the current one.
func (r *report) dryRun(o options, cur *config) error {
	if o.newMesh == "" && o.newInventory == "" && !o.sample {
		return nil
	}
	m, meshName, inv, invName := cur.mesh, cur.meshName, cur.inv, cur.invName
	var err error
	if o.newMesh != "" || o.sample {
		if m, meshName, err = loadMesh(o.newMesh, "new-mesh.yaml"); err != nil {
			return err
		}
		audit, err := ambient.Diff(cur.mesh, m, cur.inv)
		if err != nil {
			return fmt.Errorf("%s: %w", meshName, err)
		}
		r.NewMesh, r.Audit = meshName, &audit
	}
	if o.newInventory != "" {
		if inv, invName, err = loadInventory(o.newInventory, "", o.clusterDomain); err != nil {
			return err
		}
		r.NewInventory = invName
	}
	next, err := views(m, meshName, inv, invName)
	if err != nil {
		return err
	}
	r.Scope = scope.Diff(cur.scoper, next.scoper)
	r.SidecarAudit = sidecar.Diff(cur.view, next.view)
	r.Proposed = proposedFindings(r.Findings, next)
	return nil
}

// explain answers -explain-host and -explain-addr for a client namespace.
func (r *report) explain(o options, c *config) {
	if o.explainHost == "" && o.explainAddr == "" || o.proxySet {
		return
	}
	if o.explainHost != "" {
		r.Explain = append(r.Explain, c.index.ExplainHost(o.client, o.explainHost))
	}
	if o.explainAddr != "" {
		r.Explain = append(r.Explain, c.index.ExplainAddress(o.client, o.addr))
	}
}

// entryOf is the row of the ServiceEntry s, decided d by r: its addresses as ztunnel's DNS
// proxy answers with them, and whether it answers at all.
func entryOf(s inventory.Service, d visibility.Decision, r *visibility.Resolver) entryRow {
	row := entryRow{Namespace: s.Namespace, Name: s.Name, Hosts: s.Hosts, Decision: d, DecidedBy: r.DecidedBy(d)}
	for _, h := range s.Hosts {
		a := s.AddressesFor(h)
		for _, p := range a {
			row.Addresses = append(row.Addresses, address(p))
		}
		row.DNS = row.DNS || len(a) > 0
	}
	slices.Sort(row.Addresses)
	row.Addresses = slices.Compact(row.Addresses)
	return row
}

// address spells an IP without its /32 or /128, a CIDR as it is.
func address(p netip.Prefix) string {
	if p.IsSingleIP() {
		return p.Addr().String()
	}
	return p.String()
}
